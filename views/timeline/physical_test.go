package timeline

import (
	"math"
	"testing"

	"github.com/tracesim/tracesim/tracefmt"
)

// oneMessage returns a two-rank trace in µs whose ranks run a state from
// 0 to 100 with a message sent (called) at 10 and received at 90, whose
// data left delay after the call, and the send's reference.
func oneMessage(t *testing.T, delay float64) (*tracefmt.Trace, tracefmt.EventRef) {
	t.Helper()
	b := tracefmt.NewBuilder(2, true, tracefmt.Microsecond)
	st := b.State("Running")
	var send tracefmt.EventRef
	for _, a := range []struct {
		r int
		e tracefmt.Event
	}{
		{0, tracefmt.Enter(0, st)}, {1, tracefmt.Enter(0, st)},
		{0, tracefmt.Send(10, 1, 0, 0, 8)}, {1, tracefmt.Recv(90, 0, 0, 0, 8)},
		{0, tracefmt.Leave(100, st)}, {1, tracefmt.Leave(100, st)},
	} {
		i, err := b.Add(a.r, a.e)
		if err != nil {
			t.Fatal(err)
		}
		if a.e.Kind == tracefmt.KindSend {
			send = tracefmt.EventRef{Rank: int32(a.r), Index: int32(i)}
		}
	}
	tr, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	tr.SetMessageTimes([]tracefmt.MessageTime{{Event: send, Delta: delay}})
	return tr, send
}

// TestArrowFromPhysicalSend: a message's arrow leaves its sender where
// the data left (Paraver's physical send, recorded apart from the call)
// and reaches the receiver at the arrival.
func TestArrowFromPhysicalSend(t *testing.T) {
	tests := []struct {
		name     string
		delay    float64
		from, to float64 // times of the arrow's ends
	}{
		{"calls only", 0, 10, 90},
		{"physical send 40 after the call", 40, 50, 90},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tr, _ := oneMessage(t, tc.delay)
			m := newModel(t, 120, 30, tr)
			m.msgMode = msgArrows
			m.memo.Invalidate()
			m.View()
			if len(m.arrows) != 1 {
				t.Fatalf("%d arrows drawn, want 1", len(m.arrows))
			}
			cw := (m.b - m.a) / float64(m.lay.cols)
			col := func(x float64) int { return int(math.Floor((x - m.a) / cw)) }
			if a := m.arrows[0]; a.c1 != col(tc.from) || a.c2 != col(tc.to) {
				t.Errorf("arrow from column %d to %d, want %d (t=%g) to %d (t=%g)", a.c1, a.c2, col(tc.from), tc.from, col(tc.to), tc.to)
			}
		})
	}
}

// TestDescribePhysicalSend: the selected message's line gives when its
// data left (times from the trace's start), and calls it reversed when it
// arrived before that, though after the send call.
func TestDescribePhysicalSend(t *testing.T) {
	tests := []struct {
		name  string
		delay float64
		want  string
	}{
		{"calls only", 0, "message 0→1  tag 0  8 B  MPI_COMM_WORLD  send 10µs  recv 90µs  (+80µs)  in Running"},
		{"data out before the arrival", 40, "message 0→1  tag 0  8 B  MPI_COMM_WORLD  send 10µs  recv 90µs  (+80µs)  data out 50µs (+40µs in flight)  in Running"},
		{"data out after the arrival", 85, "message 0→1  tag 0  8 B  MPI_COMM_WORLD  send 10µs  recv 90µs  (+80µs)  data out 95µs (-5µs in flight)  REVERSED: received before its data left  in Running"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tr, send := oneMessage(t, tc.delay)
			m := newModel(t, 160, 30, tr)
			if got := m.describe(m.selectionOf(send)); got != tc.want {
				t.Errorf("line\n%q\nwant\n%q", got, tc.want)
			}
		})
	}
}

// TestSearchReversedPhysical: the "reversed" search finds a message
// received after its send call but before its data left.
func TestSearchReversedPhysical(t *testing.T) {
	for _, tc := range []struct {
		delay float64
		hit   bool
	}{{0, false}, {40, false}, {85, true}} {
		tr, send := oneMessage(t, tc.delay)
		m := newModel(t, 160, 30, tr)
		q, err := parseQuery("reversed")
		if err != nil {
			t.Fatal(err)
		}
		if got := m.match(q, m.ix(), int(send.Rank), int(send.Index)); got != tc.hit {
			t.Errorf("data out %g µs after the call: reversed %v, want %v", tc.delay, got, tc.hit)
		}
	}
}
