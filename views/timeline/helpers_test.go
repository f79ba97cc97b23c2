package timeline

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/tracesim/tracesim/themes"
	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/tracefmt/gen"
	"github.com/tracesim/tracesim/views/component"
	"github.com/tracesim/tracesim/views/component/viewtest"
)

// newModel returns a Timeline of tr in w×h cells with the monochrome theme,
// rendering plain text so that tests can read the frame.
func newModel(t testing.TB, w, h int, tr *tracefmt.Trace) *Model {
	t.Helper()
	m := New(component.New(&component.Session{Theme: themes.Mono()}, w, h), tr)
	m.plain = true
	m.View()
	return m
}

// genTrace generates a small deterministic trace.
func genTrace(t testing.TB, o gen.Options) *tracefmt.Trace {
	t.Helper()
	if o.Compute == 0 {
		o.Compute = -1
	}
	tr, err := gen.Generate(o)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// press sends keys to m; a key "\"text\"" types text.
func press(m *Model, keys ...string) { viewtest.Press(m, keys...) }

// checkFrame fails unless s is exactly w×h cells.
func checkFrame(t *testing.T, s string, w, h int) {
	t.Helper()
	lines := strings.Split(s, "\n")
	if h == 0 {
		return
	}
	if len(lines) != h {
		t.Fatalf("%d lines, want %d", len(lines), h)
	}
	for i, l := range lines {
		if got := ansi.StringWidth(l); got != w {
			t.Fatalf("line %d is %d cells wide, want %d: %q", i, got, w, ansi.Strip(l))
		}
	}
}

// builder helps write small traces by hand.
type builder struct {
	t *testing.T
	b *tracefmt.Builder
}

func newBuilder(t *testing.T, ranks int, timed bool) *builder {
	return &builder{t, tracefmt.NewBuilder(ranks, timed, tracefmt.Microsecond)}
}

func (b *builder) add(r int, e tracefmt.Event) int {
	i, err := b.b.Add(r, e)
	if err != nil {
		b.t.Fatal(err)
	}
	return i
}

// state adds an interval of the named state on rank r.
func (b *builder) state(r int, name string, t0, t1 float64) {
	s := b.b.State(name)
	b.add(r, tracefmt.Enter(t0, s))
	b.add(r, tracefmt.Leave(t1, s))
}

func (b *builder) finish() *tracefmt.Trace {
	tr, err := b.b.Finish()
	if err != nil {
		b.t.Fatal(err)
	}
	return tr
}

// reversedTrace has one message that is received (at 6 µs) before it is
// sent (at 10 µs), and alt, the same trace with rank 1's clock moved by
// +10 µs, where it is received after it was sent.
func reversedTrace(t *testing.T) (orig, alt *tracefmt.Trace) {
	mk := func(off float64) *tracefmt.Trace {
		b := newBuilder(t, 2, true)
		b.state(0, "Compute", 0, 10)
		send, recv := b.b.State("MPI_Send"), b.b.State("MPI_Recv")
		b.add(0, tracefmt.Enter(10, send))
		b.add(0, tracefmt.Send(10, 1, 7, 0, 4096))
		b.add(0, tracefmt.Leave(11, send))
		b.state(0, "Compute", 11, 20)
		b.state(1, "Compute", 0+off, 5+off)
		b.add(1, tracefmt.Enter(5+off, recv))
		b.add(1, tracefmt.Recv(6+off, 0, 7, 0, 4096))
		b.add(1, tracefmt.Leave(6+off, recv))
		b.state(1, "Compute", 6+off, 20)
		return b.finish()
	}
	return mk(0), mk(10)
}

// nthSend returns the n-th send (from 1) of rank r.
func nthSend(tr *tracefmt.Trace, r, n int) tracefmt.EventRef {
	for i := range tr.Ranks[r].Events {
		if tr.Ranks[r].Events[i].Kind == tracefmt.KindSend {
			if n--; n == 0 {
				return tracefmt.EventRef{Rank: int32(r), Index: int32(i)}
			}
		}
	}
	return tracefmt.EventRef{Rank: -1, Index: -1}
}
