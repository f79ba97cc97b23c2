package otf2

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/tracefmt/clog2"
	"github.com/tracesim/tracesim/tracefmt/tsim"
)

// writeArchive writes t as an archive dir/traces.otf2 and returns the
// anchor's path.
func writeArchive(t testing.TB, tr *tracefmt.Trace, dir string) string {
	t.Helper()
	anchor := filepath.Join(dir, "traces.otf2")
	f, err := os.Create(anchor)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	err = Write(anchor, f, tr, func(rel string, fn func(io.Writer) error) error {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		g, err := os.Create(p)
		if err != nil {
			return err
		}
		defer g.Close()
		return fn(g)
	})
	if err != nil {
		t.Fatal(err)
	}
	return anchor
}

// modelCounts counts a trace's ranks, states, sends and collectives, and
// the event records our writer makes of it.
func modelCounts(tr *tracefmt.Trace) counts {
	c := counts{Ranks: tr.Size()}
	for _, r := range tr.Ranks {
		for _, e := range r.Events {
			switch e.Kind {
			case tracefmt.KindEnter:
				c.States++
				c.EventRecords++
			case tracefmt.KindLeave:
				c.EventRecords++
			case tracefmt.KindSend:
				c.Messages++
				c.EventRecords++
				if e.Flags.Has(tracefmt.FlagNonBlocking) {
					c.EventRecords++ // MpiIsendComplete
				}
			case tracefmt.KindRecv:
				c.EventRecords++
				if e.Flags.Has(tracefmt.FlagNonBlocking) {
					c.EventRecords++ // MpiIrecvRequest, then MpiIrecv
				}
			case tracefmt.KindCollective:
				c.Collectives++
				c.EventRecords += 2 // begin and end
			}
		}
	}
	return c
}

// TestRoundTrip writes traces of other formats as OTF2 archives: the
// OTF2 library's otf2-print reads them without error and counts what the
// trace holds, and our reader reads back the same trace.
func TestRoundTrip(t *testing.T) {
	needTools(t, false)
	tests := []struct {
		path string
		read func(string) (*tracefmt.Trace, error)
		want counts
		// lossy marks a trace with what OTF2 records cannot hold: markers
		// and compute bursts (no record: the span may end earlier) and
		// wildcard receives (MpiRecv names the actual sender only).
		lossy bool
	}{
		{"../../testdata/mpe/masterworker.clog2", fromReader(clog2.Read), counts{Ranks: 4, EventRecords: 514, States: 174, Messages: 83}, false},
		{"../../testdata/mpe/colls.clog2", fromReader(clog2.Read), counts{Ranks: 4, EventRecords: 496, States: 128, Collectives: 120}, false},
		{"../../testdata/mpe/allreduce.clog2", fromReader(clog2.Read), counts{Ranks: 4, EventRecords: 176, States: 48, Collectives: 40}, false},
		{"../../testdata/tsim/ring3.tsim", fromReader(tsim.Read), counts{Ranks: 3, EventRecords: 36, States: 12, Messages: 3, Collectives: 3}, false},
		// OTF2 archives the library wrote, through our writer: the
		// sub-communicators' local ranks and the non-blocking requests
		// must come out as otf2-print counts them.
		{"testdata/archives/subcomm/traces.otf2", ReadFile, counts{Ranks: 6, EventRecords: 72, States: 22, Messages: 2, Collectives: 12}, false},
		{"testdata/archives/isend_irecv/traces.otf2", ReadFile, counts{Ranks: 4, EventRecords: 60, States: 22, Messages: 4}, false},
		{"testdata/archives/threads/traces.otf2", ReadFile, counts{Ranks: 2, EventRecords: 26, States: 12, Messages: 1}, false},
		{"../../testdata/tsim/features.tsim", fromReader(tsim.Read), counts{Ranks: 4, EventRecords: 33, States: 6, Messages: 4, Collectives: 5}, true},
	}
	for _, tt := range tests {
		t.Run(filepath.Base(filepath.Dir(tt.path))+"/"+filepath.Base(tt.path), func(t *testing.T) {
			src, err := tt.read(tt.path)
			if err != nil {
				t.Fatal(err)
			}
			model := modelCounts(src)
			if model != tt.want {
				t.Errorf("source counts %+v, want %+v", model, tt.want)
			}
			anchor := writeArchive(t, src, t.TempDir())
			if ref := printCounts(t, anchor); ref != model {
				t.Errorf("otf2-print of the written archive %+v, source %+v", ref, model)
			}
			back, tr := ourCounts(t, anchor, !tt.lossy)
			if back != model {
				t.Errorf("read back %+v, source %+v", back, model)
			}
			ss, bs := tracefmt.Summarize(src), tracefmt.Summarize(tr)
			if tt.lossy {
				ss.Messages.WildcardRecvs, ss.Duration = 0, bs.Duration
			}
			if ss.Bytes != bs.Bytes || ss.CollectiveBytes != bs.CollectiveBytes || ss.Messages != bs.Messages {
				t.Errorf("bytes %d/%d, collective bytes %d/%d, messages %+v/%+v (source/read back)",
					ss.Bytes, bs.Bytes, ss.CollectiveBytes, bs.CollectiveBytes, ss.Messages, bs.Messages)
			}
			if d := ss.Duration - bs.Duration; d > 1e-9 || d < -1e-9 {
				t.Errorf("duration %g s, read back %g s", ss.Duration, bs.Duration)
			}
		})
	}
}

// fromReader makes a file reader of a stream reader.
func fromReader(read func(io.Reader) (*tracefmt.Trace, error)) func(string) (*tracefmt.Trace, error) {
	return func(path string) (*tracefmt.Trace, error) {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		return read(f)
	}
}

// TestAllocPerRank: writing and reading cost memory by what a rank holds,
// not a whole chunk for every rank: 9,120 ranks with no events (a
// cross-format fuzz find) allocated 45 GB to write (a zeroed 1 MiB event
// chunk and 4 MiB definition chunk per rank) and 1.2 GB to read back (a
// 64 KiB first read of each of the rank's two files). The archive written
// reads back with every rank.
func TestAllocPerRank(t *testing.T) {
	tests := []struct {
		name    string
		tsim    string
		ranks   int
		perRank uint64 // bytes allocated per rank, at most
	}{
		{"2,000 ranks, no events", "tsim 1\nranks 2000\n", 2000, 64 << 10},
		{"1,000 ranks, one compute each", "tsim 1\nranks 1000\n" + computeEach(1000), 1000, 64 << 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr, err := tsim.Read(strings.NewReader(tt.tsim))
			if err != nil {
				t.Fatal(err)
			}
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			files, err := writeMem(tr)
			runtime.ReadMemStats(&after)
			if err != nil {
				t.Fatal(err)
			}
			if got := (after.TotalAlloc - before.TotalAlloc) / uint64(tt.ranks); got > tt.perRank {
				t.Errorf("writing allocated %d bytes per rank, want at most %d", got, tt.perRank)
			}
			runtime.ReadMemStats(&before)
			back, err := readMem(files)
			runtime.ReadMemStats(&after)
			if err != nil {
				t.Fatal(err)
			}
			if got := (after.TotalAlloc - before.TotalAlloc) / uint64(tt.ranks); got > tt.perRank {
				t.Errorf("reading allocated %d bytes per rank, want at most %d", got, tt.perRank)
			}
			if len(back.Ranks) != tt.ranks {
				t.Errorf("read back %d ranks, want %d", len(back.Ranks), tt.ranks)
			}
		})
	}
}

// computeEach gives tsim lines of one compute event on each of n ranks.
func computeEach(n int) string {
	var b strings.Builder
	for r := range n {
		fmt.Fprintf(&b, "0 %d compute dur=1\n", r)
	}
	return b.String()
}

// writeMem writes tr as an archive held in memory: its files by name, the
// anchor under "t.otf2".
func writeMem(tr *tracefmt.Trace) (map[string][]byte, error) {
	files := map[string][]byte{}
	var anchor bytes.Buffer
	err := Write("t.otf2", &anchor, tr, func(rel string, fn func(io.Writer) error) error {
		var b bytes.Buffer
		err := fn(&b)
		files[rel] = b.Bytes()
		return err
	})
	files["t.otf2"] = anchor.Bytes()
	return files, err
}

// readMem reads an archive written by writeMem.
// writeReadBack reads the tsim text in, writes it as an archive in memory
// and reads that back: the archive's files and the trace read back.
func writeReadBack(t *testing.T, text string) (map[string][]byte, *tracefmt.Trace) {
	t.Helper()
	tr, err := tsim.Read(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	files, err := writeMem(tr)
	if err != nil {
		t.Fatal(err)
	}
	back, err := readMem(files)
	if err != nil {
		t.Fatal(err)
	}
	return files, back
}

func readMem(files map[string][]byte) (*tracefmt.Trace, error) {
	tr, _, err := Read("t.otf2", bytes.NewReader(files["t.otf2"]), func(name string) (io.ReadCloser, error) {
		b, ok := files[name]
		if !ok {
			return nil, fmt.Errorf("no file %s", name)
		}
		return io.NopCloser(bytes.NewReader(b)), nil
	})
	return tr, err
}

// TestWriteNULNames: a NUL byte in a name is written as U+FFFD, so what
// is read back writes again the same; before, the name was cut at the
// NUL ("\x000" read back as "", then written as "communicator 1": a
// cross-format fuzz find).
func TestWriteNULNames(t *testing.T) {
	tests := []struct {
		name, tsim string
		comm       string // the communicator's name read back
		state      string // the state's name read back
	}{
		{"communicator", "tsim 1\nranks 1\ncomm \"\\x000\"\n0 0 compute dur=1\n", "\uFFFD0", ""},
		{"state", "tsim 1\nranks 1\nstate \"a\\x00b\"\n0 0 enter \"a\\x00b\"\n1 0 leave \"a\\x00b\"\n", "", "a\uFFFDb"},
		{"empty communicator", "tsim 1\nranks 1\ncomm \"\"\n0 0 compute dur=1\n", "communicator 1", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			first, back := writeReadBack(t, tt.tsim)
			if tt.comm != "" && (len(back.Comms) < 2 || back.Comms[1].Name != tt.comm) {
				t.Errorf("communicators read back %+v, want the second named %q", back.Comms, tt.comm)
			}
			if tt.state != "" && (len(back.States) < 1 || back.States[0].Name != tt.state) {
				t.Errorf("states read back %+v, want the first named %q", back.States, tt.state)
			}
			second, err := writeMem(back)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(first["t.def"], second["t.def"]) {
				t.Errorf("definitions written again differ:\n%q\nthen\n%q", first["t.def"], second["t.def"])
			}
		})
	}
}

// TestWriteRegionsAsRead: the regions written are the states the reader
// defines, in its order (first use, rank by rank; one per name), so that
// a trace read back writes the same archive. A state defined but never
// entered was written as a region the reader drops, and states in a table
// order other than first use were renumbered once read back (a
// FuzzCrossFormat find: "otf2: what was read back writes different
// bytes").
func TestWriteRegionsAsRead(t *testing.T) {
	tests := []struct {
		name, tsim string
		states     string // the states read back
	}{
		{"unused state", "tsim 1\nranks 1\nstate Unused\nstate Work\n0 0 enter Work\n1 0 leave Work\n", "[Work]"},
		{"table order is not first use", "tsim 1\nranks 2\nstate A\nstate B\nstate C\n" +
			"0 0 enter C\n1 0 leave C\n0 1 enter B\n1 1 leave B\n2 1 enter A\n3 1 leave A\n2 0 enter B\n3 0 leave B\n", "[C B A]"},
		{"two states of one name", "tsim 1\nranks 1\nstate X\nstate X\n0 0 enter 1\n1 0 leave 1\n2 0 enter 0\n3 0 leave 0\n", "[X]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			first, back := writeReadBack(t, tt.tsim)
			var names []string
			for _, s := range back.States {
				names = append(names, s.Name)
			}
			if got := fmt.Sprint(names); got != tt.states {
				t.Errorf("states read back %s, want %s", got, tt.states)
			}
			second, err := writeMem(back)
			if err != nil {
				t.Fatal(err)
			}
			for name, b := range first {
				if !bytes.Equal(b, second[name]) {
					t.Errorf("%s written again differs", name)
				}
			}
		})
	}
}
