package simgridti

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/tracesim/tracesim/tracefmt"
)

// FuzzRead: no input makes the reader panic; what it accepts is a valid
// trace that the writer can write, and writing what was read back gives
// the same text again.
func FuzzRead(f *testing.F) {
	paths, _ := filepath.Glob("testdata/simgrid-examples/*.txt")
	more, _ := filepath.Glob("testdata/smpi332/trace.txt_files/*.txt")
	for _, p := range append(paths, more...) {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	for _, s := range []string{
		"0 init\n1 init\n0 alltoallv 9 1 7 9 2 3 0 1\n1 alltoallv 7 3 4 9 7 5\n",
		"0 Irecv 1 1\n0 Irecv 1 2\n0 wait\n0 test\n1 send 0 1\n1 send 0 2\n",
		"0 recv -555 8 1\n0 recv -333 -444 1\n1 send 0 7 1\n2 send 0 8 1\n",
		"0 reducescatter 1 2 0\n1 gatherv 5 0 0 0\n0 sendRecv 5 1 6 1 0 1\n1 sendRecv 6 0 5 0\n",
		"p0 send p1 1e10\np1 recv p0\n0 location a.c 3\n0 waitAny 2\n0 sleep 1\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if hugeNumber(data) {
			t.Skip("world sizes beyond 4096 ranks only cost memory")
		}
		tr, err := Read(bytes.NewReader(data), nil)
		if err != nil {
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
		// Writing normalises what the model leaves open (the per-pair
		// counts of inconsistent alltoallv, truncating receives); from
		// then on a read and a write change nothing.
		second, _ := writeString(t, back)
		again, err := Read(bytes.NewReader(second), nil)
		if err != nil {
			t.Fatal(err)
		}
		if third, _ := writeString(t, again); !bytes.Equal(second, third) {
			t.Fatalf("rewriting changed the text:\n%s\nthen:\n%s", second, third)
		}
	})
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

// hugeNumber reports whether data holds an integer field above 4096 that
// could be a rank or a comm_size.
func hugeNumber(data []byte) bool {
	for _, f := range bytes.Fields(data) {
		s := string(f)
		if len(s) > 1 && s[0] == 'p' {
			s = s[1:]
		}
		if n, err := strconv.Atoi(s); err == nil && n > 4096 && n < MaxRanks {
			return true
		}
	}
	return false
}

// FuzzAssignTimes: timing any trace the reader accepts ends, with an
// error or with a timed trace in which times never go back on a rank and
// no receive precedes its send.
func FuzzAssignTimes(f *testing.F) {
	paths, _ := filepath.Glob("testdata/simgrid-examples/*.txt")
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
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
		if hugeNumber(data) {
			t.Skip("world sizes beyond 4096 ranks only cost memory")
		}
		tr, err := Read(bytes.NewReader(data), nil)
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
