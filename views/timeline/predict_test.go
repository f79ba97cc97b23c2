package timeline

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/tracesim/tracesim/engine/replay"
	"github.com/tracesim/tracesim/themes"
	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/tracefmt/gen"
	"github.com/tracesim/tracesim/views/component"
)

// replayOf runs tr on the default machine and returns the replay's trace.
func replayOf(t testing.TB, tr *tracefmt.Trace) *tracefmt.Trace {
	t.Helper()
	out, err := replay.RunToTrace(context.Background(), tr, replay.Default())
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// rowText returns the characters of line y from column x, n cells.
func rowText(m *Model, x, y, n int) string {
	var b strings.Builder
	for c := x; c < x+n; c++ {
		if cl := m.buf.Ptr(c, y); cl != nil {
			b.WriteRune(cl.Rune)
		}
	}
	return b.String()
}

// TestBothView draws a run and its replay in the both-view and checks, on
// every shown rank, that the predicted row is coloured with the replay's
// own states where they are (each state with nothing inside it and at
// least four columns wide, at its middle column), and that the row ends
// with the rank's predicted finish minus its recorded finish.
func TestBothView(t *testing.T) {
	// The replay differs from the recording: it has more events than the
	// recording (a state per CPU burst, collectives' messages), which the
	// Timeline once refused as "the events do not match".
	tr := genTrace(t, gen.Options{Pattern: "cg", Ranks: 8, Iters: 3, Size: 8192, Compute: 200e-6, Jitter: 0.2, Seed: 1})
	pred := replayOf(t, tr)
	if sameShape(tr, pred) {
		t.Fatal("the replay has the recording's events: the test would not show pairing by call order")
	}
	r0, _ := tr.Span()
	p0, _ := pred.Span()
	for _, sz := range [][2]int{{80, 24}, {160, 48}} {
		t.Run(fmt.Sprintf("%dx%d", sz[0], sz[1]), func(t *testing.T) {
			m := New(component.New(&component.Session{Theme: themes.Dark()}, sz[0], sz[1]), tr)
			m.SetPredicted(pred, "sim #1 on test")
			m.View()
			if m.mode != modeBoth || m.lay.lanes != 2 {
				t.Fatalf("mode %s, %d lanes; want both, 2", modeNames[m.mode], m.lay.lanes)
			}
			l, pal := m.lay, m.palette()
			cwSec := tr.Seconds(m.b-m.a) / float64(l.cols)
			checked := 0
			for v := range l.nvis {
				r := m.ranks[m.top+v]
				y := m.rowY(m.top+v) + l.bar
				// The finish shift, computed here from the two traces.
				shift := pred.Seconds(pred.FinishTimes()[r]-p0) - tr.Seconds(tr.FinishTimes()[r]-r0)
				want := fmtShift(shift)
				row := rowText(m, l.x0, y, l.cols)
				if !strings.HasSuffix(row, want) {
					t.Errorf("rank %d: predicted row %q does not end with the finish shift %s", r, row, want)
				}
				ev := pred.Ranks[r].Events
				for i := range ev {
					if ev[i].Kind != tracefmt.KindEnter || ev[i].Match != int32(i+1) {
						continue
					}
					c0 := (pred.Seconds(ev[i].Time-p0) - tr.Seconds(m.a-r0)) / cwSec
					c1 := (pred.Seconds(ev[i+1].Time-p0) - tr.Seconds(m.a-r0)) / cwSec
					mid := int((c0 + c1) / 2)
					if c1-c0 < 4 || c0 < 0 || mid >= l.cols-len([]rune(want))-1 {
						continue
					}
					cell := m.buf.Ptr(l.x0+mid, y)
					if s := ev[i].State(); cell.Bg != pal.states[s] {
						t.Errorf("rank %d column %d: predicted row shows %v, want the colour of %s", r, mid, cell.Bg, pred.States[s].Name)
					}
					checked++
				}
			}
			if checked < l.nvis {
				t.Fatalf("only %d predicted states checked on %d ranks", checked, l.nvis)
			}
		})
	}
}

// TestBothViewCounterpart selects a message on a recorded row and finds
// its counterpart selected on the predicted row (by call order), then
// selects a state on a predicted row and finds its counterpart on the
// recorded one.
func TestBothViewCounterpart(t *testing.T) {
	tr := genTrace(t, gen.Options{Pattern: "cg", Ranks: 8, Iters: 3, Size: 8192, Compute: 200e-6, Seed: 1})
	pred := replayOf(t, tr)
	corr := tracefmt.Correspond(tr, pred)
	send := nthSend(tr, 2, 5)
	want, ok := corr.AtoB(send)
	if !ok {
		t.Fatal("the 5th send of rank 2 has no counterpart in the replay")
	}
	m := newModel(t, 160, 48, tr)
	m.SetPredicted(pred, "sim #1")
	m.Focus(send)
	press(m, "esc") // clears both…
	m.Focus(send)   // …and selects again
	m.syncLanes()
	if m.oth.sel.kind != selMsg || m.oth.sel.ref != want {
		t.Fatalf("predicted selection %+v, want the message sent at %v", m.oth.sel, want)
	}
	v := m.View()
	foot := strings.Split(v, "\n")[m.lay.footY+1]
	if !strings.HasPrefix(foot, "predicted: message 2→") {
		t.Fatalf("footer's second line %q, want the predicted message", foot)
	}
	// The cursor to rank 2's predicted row, then a state there.
	press(m, "down")
	if m.lane != 1 {
		t.Fatalf("down from the recorded row: lane %d, want the predicted row", m.lane)
	}
	press(m, "w") // the next item on the predicted row
	if m.oth.sel.kind == selNone {
		t.Fatal("w on the predicted row selected nothing")
	}
	if back, ok := corr.BtoA(m.oth.sel.ref); ok && m.sel.ref != back {
		t.Fatalf("recorded selection %v, want the counterpart %v", m.sel.ref, back)
	}
}

// TestModeCycle steps through the three views and checks what each
// draws: recorded rows only, predicted rows only (the replay's Compute
// bursts, its makespan on the ruler), and both.
func TestModeCycle(t *testing.T) {
	tr := genTrace(t, gen.Options{Pattern: "ring", Ranks: 4, Iters: 2, Compute: 100e-6, Seed: 1})
	pred := replayOf(t, tr)
	m := newModel(t, 120, 30, tr)
	press(m, "p")
	if !strings.Contains(m.View(), "no prediction") {
		t.Fatalf("p without a prediction:\n%s", m.View())
	}
	m.SetPredicted(pred, "sim #1 on test")
	_, pe := pred.Span()
	for _, tc := range []struct {
		mode  viewMode
		says  string
		lanes int
		end   float64 // the window's end, seconds from the start
	}{
		{modeRecorded, "showing recorded", 1, tr.Seconds(spanEnd(tr))},
		{modePredicted, "showing predicted (sim #1 on test)", 1, pred.Seconds(pe)},
		{modeBoth, "showing recorded and predicted (sim #1 on test)", 2, max(tr.Seconds(spanEnd(tr)), pred.Seconds(pe))},
	} {
		press(m, "p")
		if v := m.View(); !strings.Contains(v, tc.says) {
			t.Errorf("after p: the status does not say %q:\n%s", tc.says, v)
		}
		if m.mode != tc.mode || m.lay.lanes != tc.lanes {
			t.Fatalf("after p: mode %s, lanes %d; want %s, %d", modeNames[m.mode], m.lay.lanes, modeNames[tc.mode], tc.lanes)
		}
		press(m, "f")
		if got := m.ix().tr.Seconds(m.b - m.ix().start); abs(got-tc.end) > tc.end*1e-6 {
			t.Errorf("%s: fitted window ends at %gs, want %gs", modeNames[tc.mode], got, tc.end)
		}
	}
}

// spanEnd returns the length of tr's run in trace units.
func spanEnd(tr *tracefmt.Trace) float64 {
	s, e := tr.Span()
	return e - s
}

func abs(x float64) float64 { return max(x, -x) }
