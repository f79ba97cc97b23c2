package tracefmt

import (
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	"testing"
)

// matchReference is the plain definition of MatchMessages: one FIFO per
// (communicator, source, destination, tag), sends queued in rank order.
func matchReference(t *Trace) {
	type key struct {
		src, dst, tag int32
		comm          uint16
	}
	queues := map[key][]int32{}
	for r := range t.Ranks {
		for i := range t.Ranks[r].Events {
			e := &t.Ranks[r].Events[i]
			if e.Kind == KindSend {
				e.Match = -1
				k := key{int32(r), e.Peer, e.Tag, e.Comm}
				queues[k] = append(queues[k], int32(i))
			}
		}
	}
	for r := range t.Ranks {
		for i := range t.Ranks[r].Events {
			e := &t.Ranks[r].Events[i]
			if e.Kind != KindRecv {
				continue
			}
			e.Match = -1
			k := key{e.Peer, int32(r), e.Tag, e.Comm}
			if q := queues[k]; len(q) > 0 {
				e.Match = q[0]
				t.Ranks[e.Peer].Events[q[0]].Match = int32(i)
				queues[k] = q[1:]
			}
		}
	}
}

// randomTrace returns n events per rank of point-to-point traffic over a
// few communicators and tags, with stale matches, wildcard receives and
// other kinds mixed in.
func randomTrace(rng *rand.Rand, ranks, n int) *Trace {
	t := &Trace{Ranks: make([]Rank, ranks), Comms: []Comm{{Name: "MPI_COMM_WORLD"}, {Name: "dup"}, {Name: "other"}}}
	for r := range t.Ranks {
		ev := make([]Event, n)
		for i := range ev {
			peer := rng.IntN(ranks)
			tag := int32(rng.IntN(4))
			if rng.IntN(50) == 0 {
				tag = int32(rng.Uint32()) // negative and large tags too
			}
			comm := uint16(0)
			if rng.IntN(8) == 0 {
				comm = uint16(1 + rng.IntN(2))
			}
			switch rng.IntN(5) {
			case 0, 1:
				ev[i] = Send(float64(i), peer, tag, comm, 8)
			case 2, 3:
				ev[i] = Recv(float64(i), peer, tag, comm, 8)
				if rng.IntN(10) == 0 {
					ev[i].Flags |= FlagAnySource
				}
			default:
				ev[i] = Collective(float64(i), OpBarrier, -1, 0, 0, 0)
			}
			ev[i].Match = int32(rng.IntN(n)) // stale, must be discarded
		}
		t.Ranks[r].Events = ev
	}
	return t
}

func cloneTrace(t *Trace) *Trace {
	c := *t
	c.Ranks = make([]Rank, len(t.Ranks))
	for r := range t.Ranks {
		c.Ranks[r].Events = append([]Event(nil), t.Ranks[r].Events...)
	}
	return &c
}

func TestMatchMessagesAgreesWithReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	tests := []struct {
		name     string
		ranks, n int
	}{
		{"one rank", 1, 200},
		{"small", 3, 50},
		{"many ranks", 40, 100},
		// Above parallelEvents: the concurrent path.
		{"parallel", 16, parallelEvents/16 + 100},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := randomTrace(rng, tt.ranks, tt.n)
			want := cloneTrace(got)
			MatchMessages(got)
			matchReference(want)
			for r := range want.Ranks {
				for i, w := range want.Ranks[r].Events {
					if g := got.Ranks[r].Events[i]; g.Match != w.Match {
						t.Fatalf("rank %d event %d (%s): Match = %d, want %d", r, i, w.Kind, g.Match, w.Match)
					}
				}
			}
			if err := got.Validate(); err != nil {
				t.Fatal(err)
			}
			// Matching again gives the same result.
			MatchMessages(got)
			for r := range want.Ranks {
				for i, w := range want.Ranks[r].Events {
					if g := got.Ranks[r].Events[i]; g.Match != w.Match {
						t.Fatalf("second run: rank %d event %d: Match = %d, want %d", r, i, g.Match, w.Match)
					}
				}
			}
		})
	}
}

// TestMatchMessagesBadPeers: peers outside the world (a trace being
// edited) leave events unmatched instead of panicking.
func TestMatchMessagesBadPeers(t *testing.T) {
	tr := &Trace{Ranks: make([]Rank, 2), Comms: []Comm{{}}}
	tr.Ranks[0].Events = []Event{Send(0, 7, 0, 0, 1), Recv(1, -3, 0, 0, 1), Recv(2, 9, 0, 0, 1), Send(3, 1, 0, 0, 1)}
	tr.Ranks[1].Events = []Event{Recv(0, 0, 0, 0, 1), Recv(1, 5, 0, 0, 1)}
	MatchMessages(tr)
	want := [][]int32{{-1, -1, -1, 0}, {3, -1}}
	for r, w := range want {
		for i, m := range w {
			if got := tr.Ranks[r].Events[i].Match; got != m {
				t.Errorf("rank %d event %d: Match = %d, want %d", r, i, got, m)
			}
		}
	}
}

// TestMatchMessagesUndefinedComm: MatchMessages checks nothing, so
// messages on a communicator the trace does not define (a trace being
// edited) are matched as the reference matches them.
func TestMatchMessagesUndefinedComm(t *testing.T) {
	tr := &Trace{Ranks: make([]Rank, 2), Comms: []Comm{{}}}
	tr.Ranks[0].Events = []Event{Send(0, 1, 0, 4, 1), Recv(1, 1, 2, 4, 1), Send(2, 1, 0, 0, 1)}
	tr.Ranks[1].Events = []Event{Send(0, 0, 2, 4, 1), Recv(1, 0, 0, 0, 1), Recv(2, 0, 0, 4, 1)}
	MatchMessages(tr)
	want := [][]int32{{2, 0, 1}, {1, 2, 0}}
	for r, w := range want {
		for i, m := range w {
			if got := tr.Ranks[r].Events[i].Match; got != m {
				t.Errorf("rank %d event %d: Match = %d, want %d", r, i, got, m)
			}
		}
	}
}

// benchMatchTrace is a ring exchange like the CLOG2 benchmark's: each rank
// sends to one of 7 neighbours per step, tags cycling over 16.
func benchMatchTrace(ranks, steps int) *Trace {
	t := &Trace{Ranks: make([]Rank, ranks), Comms: []Comm{{Name: "MPI_COMM_WORLD"}}}
	for r := range t.Ranks {
		ev := make([]Event, 0, 2*steps)
		for s := range steps {
			dst, src := (r+1+s%7)%ranks, (r+ranks-1-s%7)%ranks
			ev = append(ev, Send(0, dst, int32(s%16), 0, 8), Recv(0, src, int32(s%16), 0, 8))
		}
		t.Ranks[r].Events = ev
	}
	return t
}

func BenchmarkMatchMessages(b *testing.B) {
	t := benchMatchTrace(64, 1<<15)
	b.SetBytes(int64(t.NumEvents()) * 40)
	b.ReportAllocs()
	for b.Loop() {
		MatchMessages(t)
	}
	b.ReportMetric(float64(t.NumEvents())*float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

// TestFinishSkipMessageMatching: a builder told that the reader pairs
// the messages leaves them as added; otherwise Finish pairs them first
// with first.
func TestFinishSkipMessageMatching(t *testing.T) {
	tests := []struct {
		name      string
		skip      bool
		sends     []int32 // Match of rank 0's two sends
		recvsWant []int32 // Match of rank 1's two receives
	}{
		{"matched by Finish", false, []int32{0, 1}, []int32{0, 1}},
		{"left to the reader", true, []int32{-1, -1}, []int32{-1, -1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := NewBuilder(2, true, Second)
			for _, a := range []struct {
				r int
				e Event
			}{{0, Send(0, 1, 5, 0, 8)}, {0, Send(1, 1, 5, 0, 8)}, {1, Recv(2, 0, 5, 0, 8)}, {1, Recv(3, 0, 5, 0, 8)}} {
				if _, err := b.Add(a.r, a.e); err != nil {
					t.Fatal(err)
				}
			}
			if tt.skip {
				b.SkipMessageMatching()
			}
			tr, err := b.Finish()
			if err != nil {
				t.Fatal(err)
			}
			for i, w := range tt.sends {
				if g := tr.Ranks[0].Events[i].Match; g != w {
					t.Errorf("send %d: Match = %d, want %d", i, g, w)
				}
			}
			for i, w := range tt.recvsWant {
				if g := tr.Ranks[1].Events[i].Match; g != w {
					t.Errorf("receive %d: Match = %d, want %d", i, g, w)
				}
			}
		})
	}
}

// TestMatchMessagesManyRanksAndChannels: ranks that share a worker's
// scratch in turn (thousands of ranks of a few events, on the concurrent
// path), and a rank with more channels than the scratch map keeps room
// for, match as the reference does.
func TestMatchMessagesManyRanksAndChannels(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	master := func(ranks int) *Trace {
		// Rank 0 sends twice to every rank on each of two tags and
		// communicators; every rank receives them in another order.
		tr := &Trace{Ranks: make([]Rank, ranks), Comms: []Comm{{Name: "MPI_COMM_WORLD"}, {Name: "dup"}}}
		for r := 1; r < ranks; r++ {
			for _, c := range []uint16{1, 0} {
				for _, tag := range []int32{7, 3} {
					tr.Ranks[0].Events = append(tr.Ranks[0].Events, Send(0, r, tag, c, 8), Send(0, r, tag, c, 8))
					tr.Ranks[r].Events = append(tr.Ranks[r].Events, Recv(0, 0, 10-tag, c^1, 8), Recv(0, 0, tag, c, 8))
				}
			}
		}
		return tr
	}
	tests := []struct {
		name  string
		trace *Trace
	}{
		{"4,096 ranks of 20 events", randomTrace(rng, 4096, 20)},
		{"a master with 6,000 channels", master(1500)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if matchAsReference(t, tt.trace, "") == 0 {
				t.Fatal("no message matched: the case tests nothing")
			}
		})
	}
}

// TestMatchMessagesAllocationsFlatInRanks: matching allocates a bounded
// number of times whatever the rank count, not a table (a map, its
// channels, its items) per rank: at 65,536 ranks of 30 events those were
// most of MatchMessages' time.
func TestMatchMessagesAllocationsFlatInRanks(t *testing.T) {
	for _, ranks := range []int{64, 4096} {
		tr := &Trace{Ranks: make([]Rank, ranks), Comms: []Comm{{Name: "MPI_COMM_WORLD"}}}
		for r := range tr.Ranks {
			for s := range 8 {
				tr.Ranks[r].Events = append(tr.Ranks[r].Events, Send(0, (r+1+s%4)%ranks, int32(s), 0, 8), Recv(0, (r+ranks-1-s%4)%ranks, int32(s), 0, 8))
			}
		}
		allocs := testing.AllocsPerRun(3, func() { MatchMessages(tr) })
		// The per-rank tables come from shared blocks: about one
		// allocation per 4,096 channels or items, plus the fixed ones.
		if limit := 40.0; allocs > limit {
			t.Errorf("%d ranks: %.0f allocations a match, want at most %.0f", ranks, allocs, limit)
		}
		if c := tr.CountMessages(); c.Matched != 8*ranks {
			t.Errorf("%d ranks: %d matched, want %d", ranks, c.Matched, 8*ranks)
		}
	}
}

// TestMatchMessagesAroundFewSends: a rank's sends are queued by sorting
// them up to fewSends and through the channel cache and map beyond; on
// either side of the limit every channel keeps its sends in order, its
// receives take them first with first, as the reference does.
func TestMatchMessagesAroundFewSends(t *testing.T) {
	for _, k := range []int{1, 2, fewSends - 1, fewSends, fewSends + 1, 3 * fewSends} {
		// Ranks 0 and 2 send k messages each to rank 1, over tags that
		// descend and communicators that alternate (the channels come
		// unsorted, and interleaved), sizes numbering them; rank 1
		// receives each sender's channels in another order.
		tr := &Trace{Ranks: make([]Rank, 3), Comms: []Comm{{Name: "MPI_COMM_WORLD"}, {Name: "dup"}}}
		type ch struct {
			tag  int32
			comm uint16
		}
		chanOf := func(s int) ch { return ch{int32(5 - s%5), uint16(s % 3 % 2)} }
		for _, src := range []int{0, 2} {
			for s := range k {
				c := chanOf(s)
				tr.Ranks[src].Events = append(tr.Ranks[src].Events, Enter(0, 0), Send(0, 1, c.tag, c.comm, int64(1000*src+s)))
			}
		}
		for _, src := range []int{2, 0} {
			for s := range k {
				c := chanOf(k - 1 - s)
				tr.Ranks[1].Events = append(tr.Ranks[1].Events, Recv(0, src, c.tag, c.comm, 0))
			}
		}
		if matched := matchAsReference(t, tr, fmt.Sprintf("%d sends a rank: ", k)); matched != 2*k {
			t.Errorf("%d sends a rank: %d matched, want %d", k, matched, 2*k)
		}
	}
}

// matchAsReference matches tr's messages with MatchMessages and fails the
// test (its messages prefixed by what) unless every event's Match is the
// reference matcher's; it returns how many receives were matched.
func matchAsReference(t *testing.T, tr *Trace, what string) int {
	t.Helper()
	want := cloneTrace(tr)
	MatchMessages(tr)
	matchReference(want)
	matched := 0
	for r := range want.Ranks {
		for i, w := range want.Ranks[r].Events {
			if g := tr.Ranks[r].Events[i]; g.Match != w.Match {
				t.Fatalf("%srank %d event %d (%s): Match = %d, want %d", what, r, i, w.Kind, g.Match, w.Match)
			}
			if w.Kind == KindRecv && w.Match >= 0 {
				matched++
			}
		}
	}
	return matched
}

// BenchmarkMatchMessagesManyRanks matches a 65,536-rank ring exchange
// of 8 messages a rank (16 events): the per-rank cost of building the
// send tables, which the per-event cost at 64 ranks does not show.
func BenchmarkMatchMessagesManyRanks(b *testing.B) {
	t := benchMatchTrace(65536, 8)
	b.ReportAllocs()
	for b.Loop() {
		MatchMessages(t)
	}
	b.ReportMetric(float64(t.NumEvents())*float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

// TestForRanksEachRankOnce checks that forRanks calls fn once for every
// rank, on worker numbers below workers, whatever the runs it hands out.
func TestForRanksEachRankOnce(t *testing.T) {
	for _, p := range []int{0, 1, 5, 63, 64, 65, 1000, 4096, 65537} {
		for _, workers := range []int{1, 2, 3, 7} {
			calls := make([]atomic.Int32, p)
			var badWorker atomic.Int32
			forRanks(p, workers, func(w, r int) {
				if w < 0 || w >= max(workers, 1) {
					badWorker.Add(1)
				}
				calls[r].Add(1)
			})
			if n := badWorker.Load(); n != 0 {
				t.Errorf("p=%d workers=%d: %d calls with a worker number out of range", p, workers, n)
			}
			for r := range calls {
				if n := calls[r].Load(); n != 1 {
					t.Errorf("p=%d workers=%d: rank %d called %d times, want 1", p, workers, r, n)
					break
				}
			}
		}
	}
}

// TestMatchMessagesFewSendsSameKeyTwoComms sends, from a rank of few
// sends, one message after another to the same peer with the same tag
// on alternating communicators: the channels differ only by their
// communicator, and the receiver takes one communicator's first.
func TestMatchMessagesFewSendsSameKeyTwoComms(t *testing.T) {
	for _, k := range []int{2, 3, fewSends} {
		tr := &Trace{Ranks: make([]Rank, 2), Comms: []Comm{{Name: "MPI_COMM_WORLD"}, {Name: "dup"}}}
		for s := range k {
			tr.Ranks[0].Events = append(tr.Ranks[0].Events, Send(0, 1, 7, uint16(s%2), int64(s)))
		}
		for _, comm := range []uint16{1, 0} {
			for s := range k {
				if uint16(s%2) == comm {
					tr.Ranks[1].Events = append(tr.Ranks[1].Events, Recv(0, 0, 7, comm, int64(s)))
				}
			}
		}
		if matched := matchAsReference(t, tr, fmt.Sprintf("%d sends: ", k)); matched != k {
			t.Errorf("%d sends: %d matched, want %d", k, matched, k)
		}
	}
}
