package tracefmt

import (
	"reflect"
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
