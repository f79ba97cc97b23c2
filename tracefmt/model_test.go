package tracefmt

import (
	"testing"
	"unsafe"
)

func TestEventIs40Bytes(t *testing.T) {
	if got := unsafe.Sizeof(Event{}); got != 40 {
		t.Fatalf("sizeof(Event) = %d, want 40", got)
	}
}

func mustAdd(t *testing.T, b *Builder, r int, e Event) int {
	t.Helper()
	i, err := b.Add(r, e)
	if err != nil {
		t.Fatal(err)
	}
	return i
}

func TestPairing(t *testing.T) {
	tests := []struct {
		name    string
		pairing Pairing
		// leave at index 3 closes enter at index want
		want int32
	}{
		{"newest", PairNewest, 1},
		{"oldest", PairOldest, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := NewBuilder(1, true, Second)
			b.SetPairing(tt.pairing)
			s := b.State("Work")
			o := b.State("Other")
			mustAdd(t, b, 0, Enter(0, s))
			mustAdd(t, b, 0, Enter(1, s))
			mustAdd(t, b, 0, Enter(1.5, o))
			mustAdd(t, b, 0, Leave(2, s))
			mustAdd(t, b, 0, Leave(2.5, o))
			mustAdd(t, b, 0, Leave(3, s))
			tr, err := b.Finish()
			if err != nil {
				t.Fatal(err)
			}
			ev := tr.Ranks[0].Events
			if ev[3].Match != tt.want {
				t.Errorf("leave matched enter %d, want %d", ev[3].Match, tt.want)
			}
			if ev[4].Match != 2 || ev[2].Match != 4 {
				t.Errorf("Other state pairing %d/%d", ev[2].Match, ev[4].Match)
			}
			if ev[5].Match != 1-tt.want {
				t.Errorf("last leave matched %d, want %d", ev[5].Match, 1-tt.want)
			}
		})
	}
}

func TestUnpairedLeaveKept(t *testing.T) {
	b := NewBuilder(1, true, Second)
	s := b.State("MPI_Recv")
	mustAdd(t, b, 0, Leave(1, s))
	mustAdd(t, b, 0, Enter(2, s))
	tr, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	if tr.NumEvents() != 2 || tr.Ranks[0].Events[0].Match != -1 || tr.Ranks[0].Events[1].Match != -1 {
		t.Fatalf("unpaired events not kept as unpaired: %+v", tr.Ranks[0].Events)
	}
}

// TestNonOvertaking: 1 MiB then 10 B from rank 0 to 1 with the same tag match
// in send order (models.md), and channels with other tags are independent.
func TestNonOvertaking(t *testing.T) {
	b := NewBuilder(3, true, Second)
	mustAdd(t, b, 0, Send(0, 1, 5, 0, 1<<20))
	mustAdd(t, b, 0, Send(1, 1, 5, 0, 10))
	mustAdd(t, b, 0, Send(2, 1, 6, 0, 77))
	// Receives posted in another order by tag; the tag-5 ones follow send order.
	mustAdd(t, b, 1, Recv(3, 0, 6, 0, 77))
	mustAdd(t, b, 1, Recv(4, 0, 5, 0, 1<<20))
	mustAdd(t, b, 1, Recv(5, 0, 5, 0, 10))
	// A wildcard receive matches by its actual source.
	mustAdd(t, b, 2, Send(0, 1, 5, 0, 3))
	w := Recv(6, 2, 5, 0, 3)
	w.Flags |= FlagAnySource
	mustAdd(t, b, 1, w)
	// Unmatched on both sides are kept.
	mustAdd(t, b, 2, Send(7, 0, 9, 0, 1))
	mustAdd(t, b, 2, Recv(8, 0, 9, 0, 1))
	tr, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	r1 := tr.Ranks[1].Events
	want := []int32{2, 0, 1, 0}
	for i, w := range want {
		if r1[i].Match != w {
			t.Errorf("rank 1 recv %d matched send %d, want %d", i, r1[i].Match, w)
		}
	}
	if r1[3].Peer != 2 {
		t.Errorf("wildcard recv peer %d", r1[3].Peer)
	}
	if err := tr.Validate(); err != nil {
		t.Fatal(err)
	}
	got := tr.CountMessages()
	if (got != MessageCounts{Matched: 4, UnmatchedSends: 1, UnmatchedRecvs: 1, WildcardRecvs: 1}) {
		t.Errorf("counts %+v", got)
	}
	n := 0
	tr.Messages(func(s, r EventRef) bool {
		if tr.Event(s).Size != tr.Event(r).Size {
			t.Errorf("message %v→%v sizes differ", s, r)
		}
		n++
		return true
	})
	if n != 4 {
		t.Errorf("Messages visited %d", n)
	}
}

func TestCommunicatorsSeparateChannels(t *testing.T) {
	b := NewBuilder(2, false, Second)
	c, err := b.AddComm(Comm{Name: "dup", Ranks: []int32{0, 1}})
	if err != nil {
		t.Fatal(err)
	}
	mustAdd(t, b, 0, Send(0, 1, 0, c, 8))
	mustAdd(t, b, 0, Send(0, 1, 0, 0, 16))
	mustAdd(t, b, 1, Recv(0, 0, 0, 0, 16))
	mustAdd(t, b, 1, Recv(0, 0, 0, c, 8))
	tr, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	if tr.Ranks[1].Events[0].Match != 1 || tr.Ranks[1].Events[1].Match != 0 {
		t.Fatalf("communicators mixed: %+v", tr.Ranks[1].Events)
	}
}

func TestBuilderErrors(t *testing.T) {
	b := NewBuilder(2, true, Second)
	if _, err := b.Add(2, Send(0, 0, 0, 0, 1)); err == nil {
		t.Error("rank outside world accepted")
	}
	mustAdd(t, b, 0, Send(0, 5, 0, 0, 1))
	if _, err := b.Finish(); err == nil {
		t.Error("peer outside world accepted")
	}
	b = NewBuilder(1, true, Second)
	mustAdd(t, b, 0, Send(0, 0, 0, 3, 1))
	if _, err := b.Finish(); err == nil {
		t.Error("undefined communicator accepted")
	}
}

func TestAccessors(t *testing.T) {
	c := Collective(1, OpAllreduce, -1, 0, 8, 16)
	if c.Op() != OpAllreduce || c.Root() != -1 || c.Size != 8 || c.RecvBytes() != 16 {
		t.Errorf("collective accessors: %+v", c)
	}
	w := ComputeWork(0, 1.5e9)
	if w.Amount() != 1.5e9 || !w.Flags.Has(FlagWork) {
		t.Errorf("compute accessors")
	}
	s := Send(0, 1, 2, 0, 3)
	s.SetRequest(42)
	if s.Request() != 42 {
		t.Errorf("request")
	}
	for k := KindEnter; k < numKinds; k++ {
		if got, ok := ParseKind(k.String()); !ok || got != k {
			t.Errorf("kind %v round trip", k)
		}
	}
	for o := OpOther; o < numOps; o++ {
		if got, ok := ParseCollOp(o.String()); !ok || got != o {
			t.Errorf("op %v round trip", o)
		}
	}
}

func TestCategoryOf(t *testing.T) {
	tests := map[string]Category{
		"MPI_Send": CatP2P, "MPI_Irecv": CatP2P, "MPI_Sendrecv": CatP2P,
		"MPI_Wait": CatWait, "MPI_Waitall": CatWait, "MPI_Test": CatWait,
		"MPI_Allreduce": CatCollective, "MPI_Bcast": CatCollective, "MPI_Barrier": CatCollective,
		"MPI_Reduce_scatter": CatCollective, "MPI_File_write": CatIO,
		"Compute": CatCompute, "PI_Get": CatUser, "MPI_Comm_rank": CatOther,
		"Broadcast": CatUser,
	}
	for name, want := range tests {
		if got := CategoryOf(name); got != want {
			t.Errorf("CategoryOf(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestSummarize(t *testing.T) {
	b := NewBuilder(2, true, Microsecond)
	s := b.State("MPI_Send")
	mustAdd(t, b, 0, Enter(10, s))
	mustAdd(t, b, 0, Send(11, 1, 0, 0, 100))
	mustAdd(t, b, 0, Leave(14, s))
	mustAdd(t, b, 1, Recv(20, 0, 0, 0, 100))
	mustAdd(t, b, 1, Collective(30, OpBarrier, -1, 0, 0, 0))
	tr, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	sum := Summarize(tr)
	if sum.Ranks != 2 || sum.Events != 5 || sum.Bytes != 100 || sum.Messages.Matched != 1 || sum.Collectives != 1 {
		t.Errorf("summary %+v", sum)
	}
	if d := sum.Duration; d < 20e-6-1e-12 || d > 20e-6+1e-12 {
		t.Errorf("duration %g", d)
	}
	if len(sum.States) != 1 || sum.States[0].Count != 1 || sum.States[0].Total < 3.999e-6 || sum.States[0].Total > 4.001e-6 {
		t.Errorf("states %+v", sum.States)
	}
}

// TestSummarizeOnePass: the one pass of Summarize gives what the span,
// the message count and the totals give separately: the span over every
// event (a clock running backwards included), none for an untimed trace
// or a trace without events, unmatched and wildcard messages counted.
func TestSummarizeOnePass(t *testing.T) {
	type ev struct {
		r int
		e Event
	}
	wild := Recv(4, 0, 7, 0, 8)
	wild.Flags |= FlagAnySource
	tests := []struct {
		name            string
		ranks           int
		timed           bool
		events          []ev
		start, duration float64
		msgs            MessageCounts
		bytes           int64
		computeSec      float64
		flops           float64
	}{
		{"clock running backwards", 2, true,
			[]ev{{0, Send(5, 1, 7, 0, 8)}, {0, ComputeTime(3, 2)}, {0, Send(6, 1, 9, 0, 16)}, {1, wild}, {1, Recv(9, 0, 3, 0, 4)}},
			3e-3, 6e-3, MessageCounts{Matched: 1, UnmatchedSends: 1, UnmatchedRecvs: 1, WildcardRecvs: 1}, 24, 2e-3, 0},
		{"untimed: no span", 2, false,
			[]ev{{0, ComputeWork(5, 1e6)}, {0, Send(6, 1, 0, 0, 8)}, {1, Recv(9, 0, 0, 0, 8)}},
			0, 0, MessageCounts{Matched: 1}, 8, 0, 1e6},
		{"no events", 3, true, nil, 0, 0, MessageCounts{}, 0, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := NewBuilder(tt.ranks, tt.timed, Millisecond)
			for _, a := range tt.events {
				mustAdd(t, b, a.r, a.e)
			}
			tr, err := b.Finish()
			if err != nil {
				t.Fatal(err)
			}
			s := Summarize(tr)
			if s.Start != tt.start || s.Duration != tt.duration {
				t.Errorf("start %g duration %g, want %g %g", s.Start, s.Duration, tt.start, tt.duration)
			}
			if s.Messages != tt.msgs {
				t.Errorf("messages %+v, want %+v", s.Messages, tt.msgs)
			}
			if s.Bytes != tt.bytes || s.Compute.Seconds != tt.computeSec || s.Compute.Flops != tt.flops {
				t.Errorf("bytes %d compute %g s %g flops, want %d %g %g", s.Bytes, s.Compute.Seconds, s.Compute.Flops, tt.bytes, tt.computeSec, tt.flops)
			}
			if s.Events != len(tt.events) || len(s.RankEvents) != tt.ranks {
				t.Errorf("events %d ranks %d, want %d %d", s.Events, len(s.RankEvents), len(tt.events), tt.ranks)
			}
		})
	}
}
