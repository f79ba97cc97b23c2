package tracefmt

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
)

// timeline renders rank r's events with their times.
func timeline(t *Trace, r int) []string {
	var out []string
	for i := range t.Ranks[r].Events {
		e := &t.Ranks[r].Events[i]
		var what string
		switch e.Kind {
		case KindEnter:
			what = "enter " + t.StateName(e.State())
		case KindLeave:
			what = "leave " + t.StateName(e.State())
		case KindSend:
			what = fmt.Sprintf("send>%d", e.Peer)
		case KindRecv:
			what = fmt.Sprintf("recv<%d", e.Peer)
		case KindWait:
			what = "wait"
		case KindCollective:
			what = e.Op().String()
		case KindCompute:
			what = "compute"
		case KindMarker:
			what = "marker"
		}
		out = append(out, fmt.Sprintf("%g %s", math.Round(e.Time*1e9)/1e9, what))
	}
	return out
}

// untimed builds an untimed trace from per-rank event lists.
func untimed(t *testing.T, unit Unit, ranks ...[]Event) *Trace {
	t.Helper()
	b := NewBuilder(len(ranks), false, unit)
	b.Marker("m")
	b.State("Phase")
	for r, es := range ranks {
		for _, e := range es {
			mustAdd(t, b, r, e)
		}
	}
	tr, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func req(e Event, id int64, f Flags) Event {
	e.Flags |= f
	e.SetRequest(id)
	return e
}

func flagged(e Event, f Flags) Event {
	e.Flags |= f
	return e
}

func TestAssignTimes(t *testing.T) {
	tests := []struct {
		name  string
		trace func(t *testing.T) *Trace
		want  [][]string
	}{
		{"ping-pong: a receive ends when its send was made",
			func(t *testing.T) *Trace {
				return untimed(t, Second,
					[]Event{ComputeWork(0, 1e9), Send(0, 1, 0, 0, 8), Recv(0, 1, 0, 0, 8)},
					[]Event{Recv(0, 0, 0, 0, 8), ComputeWork(0, 5e8), Send(0, 0, 0, 0, 8)})
			},
			[][]string{
				{"0 enter Compute", "0 compute", "1 leave Compute", "1 enter MPI_Send", "1 send>1", "1 leave MPI_Send", "1 enter MPI_Recv", "1.5 recv<1", "1.5 leave MPI_Recv"},
				{"0 enter MPI_Recv", "1 recv<0", "1 leave MPI_Recv", "1 enter Compute", "1 compute", "1.5 leave Compute", "1.5 enter MPI_Send", "1.5 send>0", "1.5 leave MPI_Send"},
			}},
		{"a non-blocking receive is stamped at the wait that completes it",
			func(t *testing.T) *Trace {
				return untimed(t, Second,
					[]Event{req(Recv(0, 1, 0, 0, 8), 1, FlagNonBlocking), ComputeWork(0, 2e9), Wait(0, 1),
						req(Recv(0, 1, 1, 0, 8), 2, FlagNonBlocking), req(Send(0, 1, 2, 0, 8), 3, FlagNonBlocking), WaitAll(0)},
					[]Event{ComputeWork(0, 1e9), Send(0, 0, 0, 0, 8), ComputeWork(0, 3e9), Send(0, 0, 1, 0, 8), Recv(0, 0, 2, 0, 8)})
			},
			[][]string{
				{"0 enter MPI_Irecv", "0 leave MPI_Irecv", "0 enter Compute", "0 compute", "2 leave Compute", "2 enter MPI_Wait", "2 recv<1", "2 wait", "2 leave MPI_Wait",
					"2 enter MPI_Irecv", "2 leave MPI_Irecv", "2 enter MPI_Isend", "2 send>1", "2 leave MPI_Isend",
					"2 enter MPI_Waitall", "4 recv<1", "4 wait", "4 leave MPI_Waitall"},
				{"0 enter Compute", "0 compute", "1 leave Compute", "1 enter MPI_Send", "1 send>0", "1 leave MPI_Send", "1 enter Compute", "1 compute", "4 leave Compute", "4 enter MPI_Send", "4 send>0",
					"4 leave MPI_Send", "4 enter MPI_Recv", "4 recv<0", "4 leave MPI_Recv"},
			}},
		{"a test completes a request whose message is there, and not otherwise",
			func(t *testing.T) *Trace {
				return untimed(t, Second,
					[]Event{req(Recv(0, 1, 0, 0, 8), 1, FlagNonBlocking), req(Recv(0, 1, 1, 0, 8), 2, FlagNonBlocking),
						ComputeWork(0, 2e9), req(Wait(0, 1), 1, FlagTest), req(Wait(0, 2), 2, FlagTest), Wait(0, 2)},
					[]Event{Send(0, 0, 0, 0, 8), ComputeWork(0, 3e9), Send(0, 0, 1, 0, 8)})
			},
			[][]string{
				{"0 enter MPI_Irecv", "0 leave MPI_Irecv", "0 enter MPI_Irecv", "0 leave MPI_Irecv", "0 enter Compute", "0 compute", "2 leave Compute",
					"2 enter MPI_Test", "2 recv<1", "2 wait", "2 leave MPI_Test",
					"2 enter MPI_Test", "2 wait", "2 leave MPI_Test",
					"2 enter MPI_Wait", "3 recv<1", "3 wait", "3 leave MPI_Wait"},
				{"0 enter MPI_Send", "0 send>0", "0 leave MPI_Send", "0 enter Compute", "0 compute", "3 leave Compute", "3 enter MPI_Send", "3 send>0", "3 leave MPI_Send"},
			}},
		{"a test does not wait for a message that waits for it",
			func(t *testing.T) *Trace {
				return untimed(t, Second,
					[]Event{req(Recv(0, 1, 0, 0, 8), 1, FlagNonBlocking), req(Wait(0, 1), 1, FlagTest), Send(0, 1, 0, 0, 8), Wait(0, 1)},
					[]Event{Recv(0, 0, 0, 0, 8), ComputeWork(0, 1e9), Send(0, 0, 0, 0, 8)})
			},
			[][]string{
				{"0 enter MPI_Irecv", "0 leave MPI_Irecv", "0 enter MPI_Test", "0 wait", "0 leave MPI_Test",
					"0 enter MPI_Send", "0 send>1", "0 leave MPI_Send", "0 enter MPI_Wait", "1 recv<1", "1 wait", "1 leave MPI_Wait"},
				{"0 enter MPI_Recv", "0 recv<0", "0 leave MPI_Recv", "0 enter Compute", "0 compute", "1 leave Compute", "1 enter MPI_Send", "1 send>0", "1 leave MPI_Send"},
			}},
		{"requests never waited complete at the end of the rank",
			func(t *testing.T) *Trace {
				return untimed(t, Second,
					[]Event{req(Recv(0, 1, 0, 0, 8), 1, FlagNonBlocking), ComputeTime(0, 1)},
					[]Event{ComputeWork(0, 5e9), Send(0, 0, 0, 0, 8)})
			},
			[][]string{
				{"0 enter MPI_Irecv", "0 leave MPI_Irecv", "0 enter Compute", "0 compute", "1 leave Compute", "5 recv<1"},
				{"0 enter Compute", "0 compute", "5 leave Compute", "5 enter MPI_Send", "5 send>0", "5 leave MPI_Send"},
			}},
		{"sendrecv is one state",
			func(t *testing.T) *Trace {
				return untimed(t, Second,
					[]Event{flagged(Send(0, 1, 0, 0, 8), FlagSendrecv), flagged(Recv(0, 1, 0, 0, 8), FlagSendrecv)},
					[]Event{ComputeWork(0, 1e9), flagged(Send(0, 0, 0, 0, 8), FlagSendrecv), flagged(Recv(0, 0, 0, 0, 8), FlagSendrecv)})
			},
			[][]string{
				{"0 enter MPI_Sendrecv", "0 send>1", "1 recv<1", "1 leave MPI_Sendrecv"},
				{"0 enter Compute", "0 compute", "1 leave Compute", "1 enter MPI_Sendrecv", "1 send>0", "1 recv<0", "1 leave MPI_Sendrecv"},
			}},
		{"collective shapes",
			func(t *testing.T) *Trace {
				return untimed(t, Second,
					[]Event{Collective(0, OpBcast, 1, 0, 0, 8), Collective(0, OpReduce, 0, 0, 8, 8), ComputeWork(0, 1e9),
						Collective(0, OpScan, -1, 0, 8, 8), Collective(0, OpBarrier, -1, 0, 0, 0)},
					[]Event{ComputeWork(0, 2e9), Collective(0, OpBcast, 1, 0, 8, 0), ComputeWork(0, 1e9), Collective(0, OpReduce, 0, 0, 8, 0),
						Collective(0, OpScan, -1, 0, 8, 8), ComputeWork(0, 1e9), Collective(0, OpBarrier, -1, 0, 0, 0)})
			},
			[][]string{
				// bcast waits for the root (rank 1, at 2 s); the reduce's
				// root waits for everyone (rank 1 at 3 s); rank 0's scan
				// waits for nobody, the barrier for everyone.
				{"0 enter MPI_Bcast", "0 bcast", "2 leave MPI_Bcast", "2 enter MPI_Reduce", "2 reduce", "3 leave MPI_Reduce",
					"3 enter Compute", "3 compute", "4 leave Compute", "4 enter MPI_Scan", "4 scan", "4 leave MPI_Scan", "4 enter MPI_Barrier", "4 barrier", "5 leave MPI_Barrier"},
				{"0 enter Compute", "0 compute", "2 leave Compute", "2 enter MPI_Bcast", "2 bcast", "2 leave MPI_Bcast", "2 enter Compute", "2 compute", "3 leave Compute", "3 enter MPI_Reduce", "3 reduce",
					"3 leave MPI_Reduce", "3 enter MPI_Scan", "3 scan", "4 leave MPI_Scan", "4 enter Compute", "4 compute", "5 leave Compute", "5 enter MPI_Barrier",
					"5 barrier", "5 leave MPI_Barrier"},
			}},
		{"events inside the trace's own MPI states get no extra state; durations keep their unit",
			func(t *testing.T) *Trace {
				b := NewBuilder(2, false, Millisecond)
				s := b.DefineState(StateDef{Name: "MPI_Send", Category: CatP2P})
				u := b.State("Phase")
				mustAdd(t, b, 0, Enter(0, u))
				mustAdd(t, b, 0, ComputeTime(0, 250))
				mustAdd(t, b, 0, Leave(0, u))
				mustAdd(t, b, 0, Enter(0, s))
				mustAdd(t, b, 0, Send(0, 1, 0, 0, 8))
				mustAdd(t, b, 0, Leave(0, s))
				mustAdd(t, b, 0, Mark(0, b.Marker("m")))
				mustAdd(t, b, 1, Recv(0, 0, 0, 0, 8))
				tr, err := b.Finish()
				if err != nil {
					t.Fatal(err)
				}
				return tr
			},
			[][]string{
				{"0 enter Phase", "0 enter Compute", "0 compute", "250 leave Compute", "250 leave Phase", "250 enter MPI_Send", "250 send>1", "250 leave MPI_Send", "250 marker"},
				{"0 enter MPI_Recv", "250 recv<0", "250 leave MPI_Recv"},
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := tt.trace(t)
			before := fmt.Sprint(in.Ranks, in.States)
			out, err := AssignTimes(in, 1e9)
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(in.Ranks, in.States) != before {
				t.Error("AssignTimes modified its input")
			}
			if !out.Timed || out.Unit != in.Unit {
				t.Errorf("timed %v unit %v, want a timed trace in %v", out.Timed, out.Unit, in.Unit)
			}
			for r := range tt.want {
				if got := timeline(out, r); !reflect.DeepEqual(got, tt.want[r]) {
					t.Errorf("rank %d:\n got %q\nwant %q", r, got, tt.want[r])
				}
			}
			checkCausal(t, in, out)
		})
	}
}

// checkCausal verifies what AssignTimes promises on any trace: a valid
// result, per-rank times that never go back, every message kept matched
// with its receive not earlier than its send, and MPI states paired.
func checkCausal(t *testing.T, in, out *Trace) {
	t.Helper()
	if err := out.Validate(); err != nil {
		t.Fatal(err)
	}
	if a, b := in.CountMessages(), out.CountMessages(); a != b {
		t.Errorf("messages %+v, then %+v", a, b)
	}
	for r := range out.Ranks {
		ev := out.Ranks[r].Events
		for i := range ev {
			e := &ev[i]
			if i > 0 && e.Time < ev[i-1].Time {
				t.Errorf("rank %d event %d: time goes back from %g to %g", r, i, ev[i-1].Time, e.Time)
			}
			if e.Kind == KindRecv && e.Match >= 0 {
				if s := out.Ranks[e.Peer].Events[e.Match]; s.Time > e.Time || s.Kind != KindSend {
					t.Errorf("rank %d event %d: receive at %g before its send at %g", r, i, e.Time, s.Time)
				}
			}
			if e.Kind == KindEnter && e.Match < 0 {
				t.Errorf("rank %d event %d: state %s never left", r, i, out.StateName(e.State()))
			}
		}
	}
}

// TestAssignTimesKeepsMatches: receives moved to their waits stay paired
// with the sends the input paired them with, also when waits complete
// same-channel requests out of order.
func TestAssignTimesKeepsMatches(t *testing.T) {
	in := untimed(t, Second,
		[]Event{req(Recv(0, 1, 0, 0, 1), 1, FlagNonBlocking), req(Recv(0, 1, 0, 0, 2), 2, FlagNonBlocking), Wait(0, 2), Wait(0, 1)},
		[]Event{Send(0, 0, 0, 0, 1), Send(0, 0, 0, 0, 2)})
	out, err := AssignTimes(in, 1e9)
	if err != nil {
		t.Fatal(err)
	}
	checkCausal(t, in, out)
	for _, e := range out.Ranks[0].Events {
		if e.Kind == KindRecv && out.Ranks[1].Events[e.Match].Size != e.Size {
			t.Errorf("receive of %d bytes paired with a send of %d", e.Size, out.Ranks[1].Events[e.Match].Size)
		}
	}
}

func TestAssignTimesErrors(t *testing.T) {
	tests := []struct {
		name  string
		trace *Trace
		speed float64
		want  string
	}{
		{"no speed", untimed(t, Second, []Event{ComputeWork(0, 1)}), 0, ErrNoCPUSpeed.Error()},
		{"negative speed", untimed(t, Second, []Event{ComputeWork(0, 1)}), -1, "needs a CPU speed: --cpu-speed 1Gf"},
		{"NaN speed", untimed(t, Second, []Event{ComputeWork(0, 1)}), math.NaN(), "needs a CPU speed"},
		{"infinite speed", untimed(t, Second, []Event{ComputeWork(0, 1)}), math.Inf(1), "needs a CPU speed"},
		{"unmatched receive", untimed(t, Second, []Event{Recv(0, 1, 4, 0, 8)}, nil), 1e9,
			"rank 0 event 0: receive from rank 1 (tag 4) has no matching send"},
		{"unmatched non-blocking receive", untimed(t, Second, []Event{req(Recv(0, 1, 4, 0, 8), 1, FlagNonBlocking), Wait(0, 1)}, nil), 1e9,
			"rank 0 event 0: receive from rank 1 (tag 4) has no matching send"},
		{"receives waiting for each other",
			untimed(t, Second, []Event{Recv(0, 1, 0, 0, 8), Send(0, 1, 0, 0, 8)}, []Event{Recv(0, 0, 0, 0, 8), Send(0, 0, 0, 0, 8)}), 1e9,
			"the trace deadlocks: rank 0 event 0 (receive from 1, tag 0) waits for rank 1 event 1 (send), which is blocked at rank 1 event 0 (receive from 0, tag 0); rank 1 event 0"},
		{"a rank never reaches the collective",
			untimed(t, Second, []Event{Collective(0, OpBarrier, -1, 0, 0, 0)}, []Event{ComputeWork(0, 1)}), 1e9,
			"the trace deadlocks: rank 0 event 0 (barrier) waits for ranks that never reach it"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := AssignTimes(tt.trace, tt.speed)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want …%s…", err, tt.want)
			}
			if tt.speed == 0 && !errors.Is(err, ErrNoCPUSpeed) {
				t.Errorf("error %v is not ErrNoCPUSpeed", err)
			}
		})
	}
}

// TestAssignTimesTimedInput: a timed trace needs no times.
func TestAssignTimesTimedInput(t *testing.T) {
	b := NewBuilder(1, true, Second)
	mustAdd(t, b, 0, ComputeTime(3, 1))
	tr, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	out, err := AssignTimes(tr, 1e9)
	if err != nil || out != tr {
		t.Errorf("AssignTimes(timed) = %p, %v; want the same trace", out, err)
	}
}

// BenchmarkAssignTimes times a 64-rank ring exchange with non-blocking
// receives, compute and an allreduce per step.
func BenchmarkAssignTimes(b *testing.B) {
	const P, steps = 64, 2000
	bd := NewBuilder(P, false, Second)
	for r := range P {
		for s := range steps {
			rq := Recv(0, (r+P-1)%P, 0, 0, 1024)
			rq.Flags |= FlagNonBlocking
			rq.SetRequest(int64(2*s + 1))
			sd := Send(0, (r+1)%P, 0, 0, 1024)
			sd.Flags |= FlagNonBlocking
			sd.SetRequest(int64(2*s + 2))
			for _, e := range []Event{rq, ComputeWork(0, 1e6*float64(1+r%3)), sd, WaitAll(0), Collective(0, OpAllreduce, -1, 0, 8, 8)} {
				if _, err := bd.Add(r, e); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
	tr, err := bd.Finish()
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := AssignTimes(tr, 1e9); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(tr.NumEvents())*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mevents/s")
}
