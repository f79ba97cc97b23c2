package simgridti

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/tracesim/tracesim/internal/testshared"
	"github.com/tracesim/tracesim/tracefmt"
)

// FuzzRead: no input makes the reader panic; what it accepts is a valid
// trace that the writer can write, and the first write is a fixed point:
// reading it and writing again gives the same text. Claimed worlds of any
// size are fuzzed: the reader refuses mostly empty ones before allocating
// for them (tracefmt.CheckWorld).
func FuzzRead(f *testing.F) {
	for _, b := range realSeeds(f) {
		f.Add(b)
	}
	for _, s := range []string{
		"0 init\n1 init\n0 alltoallv 9 1 7 9 2 3 0 1\n1 alltoallv 7 3 4 9 7 5\n",
		"0 Irecv 1 1\n0 Irecv 1 2\n0 wait\n0 test\n1 send 0 1\n1 send 0 2\n",
		"0 recv -555 8 1\n0 recv -333 -444 1\n1 send 0 7 1\n2 send 0 8 1\n",
		"0 reducescatter 1 2 0\n1 gatherv 5 0 0 0\n0 sendRecv 5 1 6 1 0 1\n1 sendRecv 6 0 5 0\n",
		"p0 send p1 1e10\np1 recv p0\n0 location a.c 3\n0 waitAny 2\n0 sleep 1\n",
		// Issue 20: rewrites that changed the text every time, and
		// worlds claimed far beyond the ranks present.
		"0 AlltoAll 2 0 1\n1 AlltoAllv 0 0 7 0 7 1",
		"0 reduCesCAtter 0 0 0\n1 gAtherv 0 1 0 1",
		"0 init\n0 comm_size 1048576\n0 finalize\n",
		"0 init\n70000 init\n0 bcast 8\n70000 bcast 8\n",
		"0 comm_size 65536\n0 alltoall 8 8\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, err := Read(bytes.NewReader(data), nil)
		// A reader that hides its length is read like a file: on a
		// second goroutine when there is a second CPU.
		tr2, err2 := Read(struct{ io.Reader }{bytes.NewReader(data)}, nil)
		if fmt.Sprint(err) != fmt.Sprint(err2) || !reflect.DeepEqual(tr, tr2) {
			t.Fatalf("read as a file: %v, as a string: %v", err2, err)
		}
		// The fast path reads what the general path reads.
		tr3, err3 := readNamed("", bytes.NewReader(data), nil, true)
		if fmt.Sprint(err) != fmt.Sprint(err3) || !reflect.DeepEqual(tr, tr3) {
			t.Fatalf("general path: %v, fast path: %v", err3, err)
		}
		if err != nil {
			// An input with no action at all is refused at its end.
			var pe *ParseError
			if !errors.As(err, &pe) || pe.Line < 1 {
				t.Fatalf("error without a line: %v", err)
			}
			return
		}
		if err := tr.Validate(); err != nil {
			t.Fatalf("accepted an invalid trace: %v", err)
		}
		first, ok := writeString(t, tr)
		if !ok {
			return // e.g. a collective on another communicator: not from TI
		}
		back, err := Read(bytes.NewReader(first), nil)
		if err != nil {
			t.Fatalf("cannot read what was written: %v\n%s", err, first)
		}
		// The writer keeps every event but markers other than location.
		if a, b := kept(tr), kept(back); a != b {
			t.Fatalf("events per kind %v, then %v after writing:\n%s", a, b, first)
		}
		if second, _ := writeString(t, back); !bytes.Equal(first, second) {
			t.Fatalf("rewriting changed the text:\n%s\nthen:\n%s", first, second)
		}
	})
}

// realSeeds returns real SimGrid traces as single files: the examples and
// runs checked in, the shared samples when present (../shared beside the
// repository), and each index's rank files joined, since a fuzz input is
// one file.
func realSeeds(tb testing.TB) [][]byte {
	tb.Helper()
	var out [][]byte
	for _, glob := range []string{
		"testdata/simgrid-examples/*.txt",
		"testdata/smpi332/trace.txt_files/*.txt",
		testshared.Dir() + "/simgrid-ti/*.txt",
	} {
		paths, _ := filepath.Glob(glob)
		for _, p := range paths {
			b, err := os.ReadFile(p)
			if err != nil {
				tb.Fatal(err)
			}
			out = append(out, b)
		}
	}
	for _, dir := range []string{"testdata/smpi332/trace.txt_files", "../../testdata/simgrid/*.txt_files"} {
		dirs, _ := filepath.Glob(dir)
		for _, d := range dirs {
			files, _ := filepath.Glob(filepath.Join(d, "*.txt"))
			var joined []byte
			for _, p := range files {
				b, err := os.ReadFile(p)
				if err != nil {
					tb.Fatal(err)
				}
				joined = append(joined, b...)
			}
			out = append(out, joined)
		}
	}
	return out
}

func writeString(t *testing.T, tr *tracefmt.Trace) ([]byte, bool) {
	var buf bytes.Buffer
	if err := Write(&buf, tr, WriteOptions{Datatype: Double}); err != nil {
		return nil, false
	}
	return buf.Bytes(), true
}

// kept counts the events of each kind the writer keeps.
func kept(tr *tracefmt.Trace) [tracefmt.KindMarker + 1]int {
	var n [tracefmt.KindMarker + 1]int
	for r := range tr.Ranks {
		for i := range tr.Ranks[r].Events {
			e := &tr.Ranks[r].Events[i]
			// The action states come and go with the actions: the
			// writer drops markers other than location and their states.
			if e.Kind == tracefmt.KindEnter || e.Kind == tracefmt.KindLeave {
				continue
			}
			if e.Kind != tracefmt.KindMarker || tr.Markers[e.Marker()].Name == "location" {
				n[e.Kind]++
			}
		}
	}
	return n
}

// FuzzAssignTimes: timing any trace the reader accepts ends, with an
// error or with a timed trace in which times never go back on a rank and
// no receive precedes its send.
func FuzzAssignTimes(f *testing.F) {
	for _, b := range realSeeds(f) {
		f.Add(b)
	}
	for _, s := range []string{
		"0 recv 1 0 1\n0 send 1 0 1\n1 recv 0 0 1\n1 send 0 0 1\n",
		"0 irecv 1 0 8\n0 test 1 0 0\n0 send 1 0 8\n0 wait 1 0 0\n1 recv 0 0 8\n1 compute 1e9\n1 send 0 0 8\n",
		"0 barrier\n1 compute 5\n0 bcast 3 1\n1 bcast 3 1\n0 scan 1 0\n1 scan 1 0\n",
		"0 recv -555 0 1\n0 recv -555 0 1\n1 send 0 0 1\n2 send 0 0 1\n2 sleep 0.5\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, err := Read(bytes.NewReader(data), nil)
		// A reader that hides its length is read like a file: on a
		// second goroutine when there is a second CPU.
		tr2, err2 := Read(struct{ io.Reader }{bytes.NewReader(data)}, nil)
		if fmt.Sprint(err) != fmt.Sprint(err2) || !reflect.DeepEqual(tr, tr2) {
			t.Fatalf("read as a file: %v, as a string: %v", err2, err)
		}
		// The fast path reads what the general path reads.
		tr3, err3 := readNamed("", bytes.NewReader(data), nil, true)
		if fmt.Sprint(err) != fmt.Sprint(err3) || !reflect.DeepEqual(tr, tr3) {
			t.Fatalf("general path: %v, fast path: %v", err3, err)
		}
		if err != nil {
			return
		}
		timed, err := tracefmt.AssignTimes(tr, 1e9)
		if err != nil {
			return
		}
		if c0, c1 := tr.CountMessages(), timed.CountMessages(); c0 != c1 {
			t.Fatalf("messages %+v, then %+v", c0, c1)
		}
		for r := range timed.Ranks {
			ev := timed.Ranks[r].Events
			for i := range ev {
				if i > 0 && ev[i].Time < ev[i-1].Time {
					t.Fatalf("rank %d event %d: time goes back", r, i)
				}
				if ev[i].Kind == tracefmt.KindRecv && ev[i].Match >= 0 && timed.Ranks[ev[i].Peer].Events[ev[i].Match].Time > ev[i].Time {
					t.Fatalf("rank %d event %d: receive before its send", r, i)
				}
			}
		}
	})
}
