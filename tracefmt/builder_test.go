package tracefmt

import (
	"fmt"
	"reflect"
	"slices"
	"testing"
)

// TestAddEventsAsAdd: handing a rank's events over in chunks pairs its
// states as adding them one by one does, under both pairings.
func TestAddEventsAsAdd(t *testing.T) {
	for _, pairing := range []Pairing{PairNewest, PairOldest} {
		build := func(chunked bool) *Trace {
			b := NewBuilder(2, true, Second)
			b.SetPairing(pairing)
			a, c := b.State("A"), b.State("MPI_Send")
			ev := []Event{
				Enter(1, a), Enter(2, a), Enter(3, c), Send(4, 1, 0, 0, 8), Leave(5, c),
				Leave(6, a), Enter(7, c), Leave(8, a), Leave(9, c), Leave(10, c),
			}
			for i := range ev {
				ev[i].Match = 99 // ignored
			}
			if chunked {
				for _, part := range [][]Event{ev[:3], ev[3:4], ev[4:]} {
					if err := b.AddEvents(0, part); err != nil {
						t.Fatal(err)
					}
				}
			} else {
				for _, e := range ev {
					if _, err := b.Add(0, e); err != nil {
						t.Fatal(err)
					}
				}
			}
			if err := b.AddEvents(1, []Event{Recv(5, 0, 0, 0, 8)}); err != nil {
				t.Fatal(err)
			}
			tr, err := b.Finish()
			if err != nil {
				t.Fatal(err)
			}
			return tr
		}
		one, chunks := build(false), build(true)
		if !reflect.DeepEqual(one.Ranks, chunks.Ranks) {
			t.Errorf("pairing %d: AddEvents gives %v, Add %v", pairing, chunks.Ranks, one.Ranks)
		}
		if m := chunks.Ranks[0].Events[1].Match; (pairing == PairNewest) != (m == 5) {
			t.Errorf("pairing %d: the second enter of A pairs with event %d", pairing, m)
		}
	}
	b := NewBuilder(2, false, Second)
	if err := b.AddEvents(2, []Event{Send(0, 0, 0, 0, 1)}); err == nil || err.Error() != "rank 2 outside the world of 2 ranks" {
		t.Errorf("AddEvents to rank 2 of 2: %v", err)
	}
}

// TestPairingAcrossStateIDs pairs enters and leaves of states on both
// sides of the ids whose open lists sit in a slice per rank (below
// denseStates) or in a map, interleaved over ranks, under both rules: the
// Match fields are the same wherever the lists are kept.
func TestPairingAcrossStateIDs(t *testing.T) {
	for _, tc := range []struct {
		name    string
		pairing Pairing
		// want is rank 1's Match fields: enters of states 1, 63, 64
		// and 1000 twice, then their leaves in reverse.
		want []int32
	}{
		{"newest", PairNewest, []int32{15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0}},
		{"oldest", PairOldest, []int32{14, 15, 12, 13, 10, 11, 8, 9, 6, 7, 4, 5, 2, 3, 0, 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := NewBuilder(3, false, Second)
			b.SetPairing(tc.pairing)
			var ids []StateID
			for i := range 1001 {
				ids = append(ids, b.State(fmt.Sprintf("S%d", i)))
			}
			used := []StateID{ids[1], ids[63], ids[64], ids[1000]}
			var order []StateID
			for _, s := range used {
				order = append(order, s, s)
			}
			for _, r := range []int{1, 2} {
				for _, s := range order {
					if _, err := b.Add(r, Enter(0, s)); err != nil {
						t.Fatal(err)
					}
				}
			}
			for _, r := range []int{1, 2} {
				for i := len(order) - 1; i >= 0; i-- {
					if _, err := b.Add(r, Leave(0, order[i])); err != nil {
						t.Fatal(err)
					}
				}
			}
			tr, err := b.Finish()
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range []int{1, 2} {
				var got []int32
				for _, e := range tr.Ranks[r].Events {
					got = append(got, e.Match)
				}
				if !reflect.DeepEqual(got, tc.want) {
					t.Errorf("rank %d matches %v, want %v", r, got, tc.want)
				}
			}
		})
	}
	// A bad state id from a reader is refused by Finish, not a panic.
	b := NewBuilder(1, false, Second)
	for _, e := range []Event{Enter(0, -1), Leave(0, -1)} {
		if _, err := b.Add(0, e); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := b.Finish(); err == nil || err.Error() != "rank 0 event 0 (enter): state -1 not defined" {
		t.Errorf("state -1: %v", err)
	}
}

// TestAddChunksAsAddEvents: handing every rank's chunks over at once
// (ranks copied and paired on several goroutines when the trace is
// large) builds the trace that AddEvents builds chunk by chunk, under
// both pairings, and fails with the same error.
func TestAddChunksAsAddEvents(t *testing.T) {
	// chunks gives ranks ranks of n rounds each of nested states, a
	// message to the next rank and one from the previous, an unmatched
	// send, and a leave with no open enter, in chunks of 1 to 97 events.
	chunks := func(ranks, n int) [][][]Event {
		out := make([][][]Event, ranks)
		for r := range out {
			var ev []Event
			for i := range n {
				tm := float64(i)
				ev = append(ev, Enter(tm, 0), Enter(tm, 1), Send(tm, (r+1)%ranks, 0, 0, 8),
					Recv(tm, (r+ranks-1)%ranks, 0, 0, 8), Leave(tm, 1), Enter(tm, 1), Leave(tm, 0), Leave(tm, 1))
				if i%7 == 0 {
					ev = append(ev, Send(tm, (r+2)%ranks, 5, 0, 1), Leave(tm, 2))
				}
			}
			for i, k := 0, 1; i < len(ev); k = k%97 + 13 {
				j := min(i+k, len(ev))
				out[r] = append(out[r], ev[i:j:j])
				i = j
			}
		}
		return out
	}
	tests := []struct {
		name            string
		world, ranks, n int
		wantErr         string
	}{
		{name: "small", world: 3, ranks: 3, n: 20},
		{name: "large, several goroutines", world: 8, ranks: 8, n: 2000},
		{name: "fewer ranks with events than the world", world: 8, ranks: 5, n: 2000},
		{name: "a rank outside the world", world: 4, ranks: 6, n: 10, wantErr: "rank 4 outside the world of 4 ranks"},
	}
	for _, tc := range tests {
		for _, pairing := range []Pairing{PairNewest, PairOldest} {
			t.Run(fmt.Sprintf("%s, pairing %d", tc.name, pairing), func(t *testing.T) {
				build := func(all bool) (*Trace, error) {
					b := NewLazyBuilder(tc.world, true, Second)
					b.SetPairing(pairing)
					for _, s := range []string{"A", "B", "C"} {
						b.State(s)
					}
					cs := chunks(tc.ranks, tc.n)
					if all {
						if err := b.AddChunks(cs); err != nil {
							return nil, err
						}
					} else {
						for r := range cs {
							for _, c := range cs[r] {
								if err := b.AddEvents(r, c); err != nil {
									return nil, err
								}
							}
						}
					}
					return b.Finish()
				}
				want, wantErr := build(false)
				got, err := build(true)
				if tc.wantErr != "" {
					if wantErr == nil || wantErr.Error() != tc.wantErr || err == nil || err.Error() != tc.wantErr {
						t.Fatalf("errors: AddEvents %v, AddChunks %v, want %s", wantErr, err, tc.wantErr)
					}
					return
				}
				if wantErr != nil || err != nil {
					t.Fatalf("errors: AddEvents %v, AddChunks %v", wantErr, err)
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("AddChunks built another trace than AddEvents")
				}
				c := got.CountMessages()
				if c.Matched != tc.ranks*tc.n || c.UnmatchedSends == 0 {
					t.Errorf("messages %+v, want %d matched and some unmatched sends", c, tc.ranks*tc.n)
				}
			})
		}
	}
}

// TestAddChunksExactStreams: AddChunks leaves each stream without spare
// capacity, whatever size its allocation was rounded to, so that Finish
// has no stream to copy for its spare room (a copy of the whole trace at
// a few thousand events a rank).
func TestAddChunksExactStreams(t *testing.T) {
	for _, n := range []int{1, 17, 700, 1320, 5000, 70_000} {
		b := NewLazyBuilder(2, true, Second)
		chunk := make([]Event, n)
		for i := range chunk {
			chunk[i] = Event{Time: float64(i), Kind: KindCompute}
		}
		if err := b.AddChunks([][][]Event{{chunk[:n/2], chunk[n/2:]}, {chunk}}); err != nil {
			t.Fatal(err)
		}
		for r, rk := range b.Trace().Ranks {
			if len(rk.Events) != n || cap(rk.Events) != n {
				t.Errorf("%d events: rank %d has %d events, capacity %d; want %d and %d", n, r, len(rk.Events), cap(rk.Events), n, n)
			}
		}
		tr, err := b.Finish()
		if err != nil {
			t.Fatal(err)
		}
		if got := tr.Ranks[1].Events[n-1].Time; got != float64(n-1) {
			t.Errorf("%d events: the last event's time is %v, want %d", n, got, n-1)
		}
	}
}

// TestAddChunksOpenEntersCarryOver: enters a rank leaves open at the end
// of AddChunks (its lists are a worker's scratch while it runs) are still
// open to the leaves added after it, and enters opened before it (with
// Add) to the leaves within it, as with AddEvents; sparse state ids too.
func TestAddChunksOpenEntersCarryOver(t *testing.T) {
	const ranks = 3000 // several ranks a worker, beyond parallelEvents
	for _, pairing := range []Pairing{PairNewest, PairOldest} {
		build := func(all bool) (*Trace, error) {
			b := NewLazyBuilder(ranks, true, Second)
			b.SetPairing(pairing)
			for i := range 100 {
				b.State(fmt.Sprintf("S%d", i))
			}
			cs := make([][][]Event, ranks)
			for r := range cs {
				s := StateID(r % 100) // ids beyond denseStates on some ranks
				if r%3 == 0 {
					if _, err := b.Add(r, Enter(0, s)); err != nil {
						return nil, err
					}
				}
				var ev []Event
				for i := range 12 {
					ev = append(ev, Enter(float64(i), s), Enter(float64(i), 1), Leave(float64(i), 1))
					if i%2 == 0 {
						ev = append(ev, Leave(float64(i), s))
					}
				}
				cs[r] = [][]Event{ev[:5], ev[5:]}
			}
			if all {
				if err := b.AddChunks(cs); err != nil {
					return nil, err
				}
			} else {
				for r := range cs {
					for _, c := range cs[r] {
						if err := b.AddEvents(r, c); err != nil {
							return nil, err
						}
					}
				}
			}
			for r := range ranks {
				for range 7 {
					if _, err := b.Add(r, Leave(20, StateID(r%100))); err != nil {
						return nil, err
					}
				}
			}
			return b.Finish()
		}
		want, err := build(false)
		if err != nil {
			t.Fatal(err)
		}
		got, err := build(true)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("pairing %d: AddChunks built another trace than AddEvents", pairing)
		}
		// Rank 3 opened one enter before, six within; the seven leaves
		// after close them all.
		ev := got.Ranks[3].Events
		for i, e := range ev[len(ev)-7:] {
			if e.Match < 0 {
				t.Errorf("pairing %d: rank 3's leave %d after AddChunks is unpaired", pairing, i)
			}
		}
		if ev[0].Match < 0 {
			t.Errorf("pairing %d: rank 3's enter before AddChunks is unpaired", pairing)
		}
	}
}

// TestAddChunksAllocationsFlatInRanks: pairing the states of many ranks
// handed over in place (as the tsim reader does) allocates a bounded
// number of times, not lists per rank and state (those were ~2 µs a rank
// at 65,536 ranks of 30 events).
func TestAddChunksAllocationsFlatInRanks(t *testing.T) {
	const ranks = 4096
	ev := make([][]Event, ranks)
	for r := range ev {
		for i := range 8 {
			ev[r] = append(ev[r], Enter(float64(i), StateID(i%4)), Enter(float64(i), 5), Leave(float64(i), 5), Leave(float64(i), StateID(i%4)))
		}
		ev[r] = slices.Clip(ev[r])
	}
	streams := make([][]Event, ranks)
	cs := make([][][]Event, ranks)
	allocs := testing.AllocsPerRun(3, func() {
		b := NewLazyBuilder(ranks, true, Second)
		for r := range cs {
			if err := b.SetEvents(r, ev[r][:0]); err != nil {
				t.Fatal(err)
			}
			streams[r] = ev[r]
			cs[r] = streams[r : r+1 : r+1]
		}
		if err := b.AddChunks(cs); err != nil {
			t.Fatal(err)
		}
	})
	if limit := 40.0; allocs > limit {
		t.Errorf("%.0f allocations for %d ranks, want at most %.0f", allocs, ranks, limit)
	}
	for r := range ev {
		for i, e := range ev[r] {
			if e.Match < 0 {
				t.Fatalf("rank %d event %d (%s) is unpaired", r, i, e.Kind)
			}
		}
	}
}

// TestAddChunksInPlace: a chunk that is the room after a rank's stream
// (a reader that decoded the rank into it) becomes the stream's next
// events without a copy; a chunk from anywhere else, or from the room
// further on, is copied after the stream. Either way the stream holds
// its events then the chunk's, the chunk's states paired.
func TestAddChunksInPlace(t *testing.T) {
	seq := func(t0 float64) []Event {
		return []Event{Enter(t0, 0), Send(t0+1, 0, 1, 0, 8), Leave(t0+2, 0)}
	}
	tests := []struct {
		name string
		// before is how many events of the backing array the stream
		// holds; the chunk is the backing array's [from, from+3), or a
		// new array when from < 0.
		before, from int
	}{
		{"the room of an empty stream", 0, 0},
		{"the room after three events", 3, 3},
		{"another array", 3, -1},
		{"the room one event further on", 3, 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			backing := make([]Event, 8)
			copy(backing, seq(0))
			chunk := seq(100)
			if tt.from >= 0 {
				copy(backing[tt.from:], chunk)
				chunk = backing[tt.from : tt.from+3]
			}
			want := append(append([]Event{}, backing[:tt.before]...), chunk...)
			b := NewLazyBuilder(1, true, Second)
			if err := b.SetEvents(0, backing[:tt.before]); err != nil {
				t.Fatal(err)
			}
			if err := b.AddChunks([][][]Event{{chunk}}); err != nil {
				t.Fatal(err)
			}
			got := b.Trace().Ranks[0].Events
			if len(got) != len(want) {
				t.Fatalf("%d events, want %d", len(got), len(want))
			}
			for i := range want {
				if got[i].Time != want[i].Time || got[i].Kind != want[i].Kind {
					t.Errorf("event %d: %s at %g, want %s at %g", i, got[i].Kind, got[i].Time, want[i].Kind, want[i].Time)
				}
			}
			// The chunk's enter is paired with its leave.
			if e := got[tt.before]; e.Kind != KindEnter || e.Match != int32(tt.before+2) {
				t.Errorf("the chunk's enter: %s, Match = %d, want enter, %d", e.Kind, e.Match, tt.before+2)
			}
		})
	}
}
