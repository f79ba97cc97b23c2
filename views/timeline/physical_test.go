package timeline

import (
	"math"
	"testing"

	"github.com/tracesim/tracesim/tracefmt"
)

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
			b := tracefmt.NewBuilder(2, true, tracefmt.Microsecond)
			st := b.State("Running")
			for r := range 2 {
				if _, err := b.Add(r, tracefmt.Enter(0, st)); err != nil {
					t.Fatal(err)
				}
			}
			s, _ := b.Add(0, tracefmt.Send(10, 1, 0, 0, 8))
			b.Add(1, tracefmt.Recv(90, 0, 0, 0, 8))
			b.Add(0, tracefmt.Leave(100, st))
			b.Add(1, tracefmt.Leave(100, st))
			tr, err := b.Finish()
			if err != nil {
				t.Fatal(err)
			}
			tr.SetMessageTimes([]tracefmt.MessageTime{{Event: tracefmt.EventRef{Rank: 0, Index: int32(s)}, Delta: tc.delay}})
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
// data left (times from the trace's start), and calls it reversed when it arrived before that, though
// after the send call.
func TestDescribePhysicalSend(t *testing.T) {
	tests := []struct {
		name  string
		delay float64
		want  string
	}{
		{"calls only", 0, "message 0→1  tag 0  8 B  MPI_COMM_WORLD  send 0s  recv 80µs  (+80µs)"},
		{"data out before the arrival", 40, "message 0→1  tag 0  8 B  MPI_COMM_WORLD  send 0s  recv 80µs  (+80µs)  data out 40µs (+40µs in flight)"},
		{"data out after the arrival", 85, "message 0→1  tag 0  8 B  MPI_COMM_WORLD  send 0s  recv 80µs  (+80µs)  data out 85µs (-5µs in flight)  REVERSED: received before its data left"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := tracefmt.NewBuilder(2, true, tracefmt.Microsecond)
			s, err := b.Add(0, tracefmt.Send(10, 1, 0, 0, 8))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := b.Add(1, tracefmt.Recv(90, 0, 0, 0, 8)); err != nil {
				t.Fatal(err)
			}
			tr, err := b.Finish()
			if err != nil {
				t.Fatal(err)
			}
			send := tracefmt.EventRef{Rank: 0, Index: int32(s)}
			tr.SetMessageTimes([]tracefmt.MessageTime{{Event: send, Delta: tc.delay}})
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
		b := tracefmt.NewBuilder(2, true, tracefmt.Microsecond)
		s, err := b.Add(0, tracefmt.Send(10, 1, 0, 0, 8))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := b.Add(1, tracefmt.Recv(90, 0, 0, 0, 8)); err != nil {
			t.Fatal(err)
		}
		tr, err := b.Finish()
		if err != nil {
			t.Fatal(err)
		}
		tr.SetMessageTimes([]tracefmt.MessageTime{{Event: tracefmt.EventRef{Rank: 0, Index: int32(s)}, Delta: tc.delay}})
		m := newModel(t, 160, 30, tr)
		q, err := parseQuery("reversed")
		if err != nil {
			t.Fatal(err)
		}
		if got := m.match(q, m.ix(), 0, s); got != tc.hit {
			t.Errorf("data out %g µs after the call: reversed %v, want %v", tc.delay, got, tc.hit)
		}
	}
}
