package formats

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/tracefmt/perfetto"
	"github.com/tracesim/tracesim/tracefmt/tsim"
)

// carried says what a format keeps of a trace, for FuzzCrossFormat: every
// readable format keeps the ranks, each rank's matched sends in order with
// their destination and size, and its collectives; some keep tags and
// times too.
type carried struct {
	// tags: a message's tag reads back.
	tags bool
	// res returns the resolution of the times of a trace read back, in
	// seconds; nil for a format without times.
	res func(back *tracefmt.Trace) float64
	// shift returns what the format adds to every time of ref, in
	// seconds; nil for none.
	shift func(ref *tracefmt.Trace) float64
	// counted are the kinds of events whose number on each rank reads
	// back the same.
	counted []tracefmt.Kind
	// lossless: the trace reads back equal (its tsim text is the same).
	lossless bool
	// recvAtWait: a non-blocking receive reads back at the wait that
	// completes it (OTF2's MpiIrecv), its own time kept as its posting.
	recvAtWait bool
}

// carriedBy are the writable formats that read back, by name; perfetto is
// written only, and checked by perfetto.Check.
var carriedBy = map[string]carried{
	"tsim": {tags: true, lossless: true, res: func(*tracefmt.Trace) float64 { return 0 }},
	"clog2": {tags: true, res: func(*tracefmt.Trace) float64 { return 0 },
		counted: []tracefmt.Kind{tracefmt.KindLeave, tracefmt.KindSend, tracefmt.KindCollective}},
	"otf2": {tags: true, recvAtWait: true, counted: []tracefmt.Kind{tracefmt.KindEnter, tracefmt.KindLeave, tracefmt.KindSend, tracefmt.KindCollective}, res: func(back *tracefmt.Trace) float64 {
		v, _ := back.Attr("otf2.timer_resolution")
		ticks, err := strconv.ParseFloat(v, 64)
		if err != nil || ticks <= 0 {
			return math.Inf(1)
		}
		return 1 / ticks
	}},
	// Paraver's times are unsigned: a trace that starts before 0 is
	// shifted by whole nanoseconds to start at 0 or just after.
	"paraver": {tags: true, counted: []tracefmt.Kind{tracefmt.KindCollective, tracefmt.KindMarker},
		res: func(*tracefmt.Trace) float64 { return 1e-9 }, shift: func(ref *tracefmt.Trace) float64 {
			start, _ := ref.Span()
			if start >= 0 {
				return 0
			}
			return -math.Floor(start*ref.Unit.Seconds()*1e9) * 1e-9
		}},
	"ti": {counted: []tracefmt.Kind{tracefmt.KindSend, tracefmt.KindCollective}},
}

// message is a matched send as FuzzCrossFormat compares it: times in
// seconds.
type message struct {
	to, tag    int32
	size       int64
	sent, recv float64
}

// rankView is what every readable format keeps of a rank, and the
// number of its events of each kind.
type rankView struct {
	sends       []message
	collectives int
	// recvs counts the matched receives.
	recvs int
	kinds [tracefmt.KindMarker + 1]int
}

// completedAt returns when rank r's receive i completed: at its event,
// or for a non-blocking one at the wait that names its request (or waits
// for all), else at the rank's last event, where a writer completes what
// was never waited for.
func completedAt(t *tracefmt.Trace, r, i int) float64 {
	ev := t.Ranks[r].Events
	e := &ev[i]
	if !e.Flags.Has(tracefmt.FlagNonBlocking) || e.Request() == 0 {
		return e.Time
	}
	for j := i + 1; j < len(ev); j++ {
		w := &ev[j]
		if w.Kind == tracefmt.KindWait && (w.Flags.Has(tracefmt.FlagAll) || w.Request() == e.Request()) {
			return w.Time
		}
	}
	return ev[len(ev)-1].Time
}

// view returns what every format keeps of t's ranks; recvAtWait takes a
// non-blocking receive's time from the wait that completes it.
func view(t *tracefmt.Trace, recvAtWait bool) []rankView {
	sec := t.Unit.Seconds()
	out := make([]rankView, len(t.Ranks))
	for r := range t.Ranks {
		for _, e := range t.Ranks[r].Events {
			if int(e.Kind) < len(out[r].kinds) {
				out[r].kinds[e.Kind]++
			}
			switch e.Kind {
			case tracefmt.KindRecv:
				if e.Match >= 0 {
					out[r].recvs++
				}
			case tracefmt.KindCollective:
				out[r].collectives++
			case tracefmt.KindSend:
				if e.Match < 0 {
					continue
				}
				m := message{to: e.Peer, tag: e.Tag, size: e.Size}
				if t.Timed {
					m.sent = e.Time * sec
					m.recv = t.Ranks[e.Peer].Events[e.Match].Time * sec
					if recvAtWait {
						m.recv = completedAt(t, int(e.Peer), int(e.Match)) * sec
					}
				}
				out[r].sends = append(out[r].sends, m)
			}
		}
	}
	return out
}

// near reports whether b is a within res (and a relative 1e-12 for the
// rounding of float seconds).
func near(a, b, res float64) bool {
	return math.Abs(a-b) <= res+1e-12*math.Max(math.Abs(a), math.Abs(b))
}

// compare says how back, read from format name, differs from ref in
// what the format carries.
func compare(name string, c carried, ref, back *tracefmt.Trace) error {
	if back.Size() != ref.Size() {
		return fmt.Errorf("%d ranks, want %d", back.Size(), ref.Size())
	}
	a, b := view(ref, c.recvAtWait), view(back, false)
	res := -1.0
	if c.res != nil && ref.Timed && back.Timed {
		res = c.res(back)
	}
	if c.shift != nil && res >= 0 {
		d := c.shift(ref)
		for r := range a {
			for i := range a[r].sends {
				a[r].sends[i].sent += d
				a[r].sends[i].recv += d
			}
		}
	}
	for r := range a {
		if a[r].collectives != b[r].collectives {
			return fmt.Errorf("rank %d: %d collectives, want %d", r, b[r].collectives, a[r].collectives)
		}
		if a[r].recvs != b[r].recvs {
			return fmt.Errorf("rank %d: %d matched receives, want %d", r, b[r].recvs, a[r].recvs)
		}
		for _, k := range c.counted {
			if a[r].kinds[k] != b[r].kinds[k] {
				return fmt.Errorf("rank %d: %d events %s, want %d", r, b[r].kinds[k], k, a[r].kinds[k])
			}
		}
		if len(a[r].sends) != len(b[r].sends) {
			return fmt.Errorf("rank %d: %d matched sends, want %d", r, len(b[r].sends), len(a[r].sends))
		}
		for i, m := range a[r].sends {
			n := b[r].sends[i]
			if n.to != m.to || n.size != m.size || c.tags && n.tag != m.tag {
				return fmt.Errorf("rank %d send %d: to %d tag %d size %d, want to %d tag %d size %d", r, i, n.to, n.tag, n.size, m.to, m.tag, m.size)
			}
			if res >= 0 && (!near(n.sent, m.sent, res) || !near(n.recv, m.recv, res)) {
				return fmt.Errorf("rank %d send %d: sent at %g s, received at %g s, want %g and %g (resolution %g s)", r, i, n.sent, n.recv, m.sent, m.recv, res)
			}
		}
	}
	if c.lossless {
		var x, y bytes.Buffer
		if err := tsim.Write(&x, ref); err != nil {
			return err
		}
		if err := tsim.Write(&y, back); err != nil {
			return err
		}
		if !bytes.Equal(x.Bytes(), y.Bytes()) {
			return fmt.Errorf("read back differs:\n%s\nwant\n%s", y.Bytes(), x.Bytes())
		}
	}
	return nil
}

// crossSpeed is the CPU speed that times an untimed trace for the timed
// formats, and turns times into work for TI.
const crossSpeed = 1e9

// FuzzCrossFormat writes every fuzzed tsim input that parses through
// every writer (as convert does: an untimed trace gets times at 1 Gf/s
// for the timed formats) and reads each back: no writer or reader may
// panic, a writer may refuse a trace but a written file must read back,
// what the format carries (carriedBy) must read back equal, and writing
// what was read back must give the same bytes again. Perfetto's JSON,
// which tracesim does not read, must pass perfetto.Check.
func FuzzCrossFormat(f *testing.F) {
	seeds, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "tsim", "*.tsim"))
	for _, p := range seeds {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("tsim 1\nranks 2\nunit us\ntimed\n0 0 send to=1 tag=7 size=8\n1.5 1 recv from=0 tag=7 size=8\n2 0 coll barrier\n2 1 coll barrier\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		src, err := tsim.Read(bytes.NewReader(data))
		if err != nil {
			return
		}
		events := 0
		for r := range src.Ranks {
			events += len(src.Ranks[r].Events)
		}
		// Large worlds cost every writer per rank (OTF2 a file per
		// location): bounded so that an input runs in milliseconds.
		if src.Size() > 256 || events > 1<<14 {
			return
		}
		timed := src
		if !src.Timed {
			if timed, err = tracefmt.AssignTimes(src, crossSpeed); err != nil {
				timed = nil // the timed formats refuse it too
			}
		}
		dir := t.TempDir()
		for _, fm := range All() {
			if !fm.Writable() {
				continue
			}
			path := filepath.Join(dir, fm.Name, "out"+fm.Extensions[0])
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			o := WriteOptions{CPUSpeed: crossSpeed}
			if err := SaveWith(path, fm.Name, src, o); err != nil {
				t.Logf("%s refused: %v", fm.Name, err)
				continue // a trace the format cannot hold
			}
			ref := src
			if fm.Timed {
				ref = timed
			}
			if ref == nil {
				t.Fatalf("%s: written though times could not be assigned", fm.Name)
			}
			if !fm.Readable() {
				file, err := os.Open(path)
				if err != nil {
					t.Fatal(err)
				}
				_, err = perfetto.Check(file)
				file.Close()
				if err != nil {
					t.Fatalf("%s: written file fails the check: %v", fm.Name, err)
				}
				continue
			}
			back, _, err := Open(context.Background(), path, fm.Name, nil)
			if err != nil {
				t.Fatalf("%s: written, then not read back: %v", fm.Name, err)
			}
			c, ok := carriedBy[fm.Name]
			if !ok {
				t.Fatalf("%s: writable and readable, but FuzzCrossFormat does not say what it carries", fm.Name)
			}
			if err := compare(fm.Name, c, ref, back); err != nil {
				t.Fatalf("%s: %v", fm.Name, err)
			}
			first, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			again := filepath.Join(dir, fm.Name, "again"+fm.Extensions[0])
			if err := SaveWith(again, fm.Name, back, o); err != nil {
				t.Fatalf("%s: read back, then refused: %v", fm.Name, err)
			}
			second, err := os.ReadFile(again)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(first, second) {
				t.Fatalf("%s: what was read back writes different bytes", fm.Name)
			}
		}
	})
}
