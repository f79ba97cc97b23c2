package tracefmt

import (
	"fmt"
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
