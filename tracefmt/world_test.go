package tracefmt

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// TestLazyBuilderWorld: a reader's builder holds only the ranks that have
// events until Finish, which refuses a world of more than MaxEmptyRanks
// empty ranks with what they would cost, and gives every declared rank
// otherwise. A builder made with NewBuilder keeps the world it was given.
func TestLazyBuilderWorld(t *testing.T) {
	tests := []struct {
		name      string
		lazy      bool
		world     int
		ranks     []int // ranks that get one event
		heldAfter int   // len(Trace().Ranks) before Finish
		wantErr   string
	}{
		{"claimed world refused", true, 1 << 20, []int{0, 1}, 2,
			"the world has 1048576 ranks but only 2 of them have events: its 1048574 empty ranks would need about 2 GiB of memory to check or simulate, and at most 65536 may be empty"},
		{"65,536 empty ranks accepted", true, 65536 + 3, []int{0, 2, 1}, 3, ""},
		{"a high rank holds the ranks below it", true, 100, []int{0, 99}, 100, ""},
		{"eager builder keeps its world", false, 1 << 17, []int{0}, 1 << 17, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := NewBuilder(tt.world, false, Second)
			if tt.lazy {
				b = NewLazyBuilder(tt.world, false, Second)
			}
			for _, r := range tt.ranks {
				mustAdd(t, b, r, ComputeWork(0, 1))
			}
			if got := len(b.Trace().Ranks); got != tt.heldAfter {
				t.Errorf("%d ranks held before Finish, want %d", got, tt.heldAfter)
			}
			// A reader asks before Finish, to say where the world came from.
			if err := CheckBuilt(b.Trace(), tt.world); tt.lazy && fmt.Sprint(err) != fmt.Sprint(errOrNil(tt.wantErr)) {
				t.Errorf("CheckBuilt: %v, want %q", err, tt.wantErr)
			}
			tr, err := b.Finish()
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tr.Size() != tt.world || tr.NumEvents() != len(tt.ranks) {
				t.Errorf("%d ranks and %d events, want %d and %d", tr.Size(), tr.NumEvents(), tt.world, len(tt.ranks))
			}
		})
	}
	b := NewLazyBuilder(4, false, Second)
	if _, err := b.Add(4, ComputeWork(0, 1)); err == nil || !strings.Contains(err.Error(), "rank 4 outside the world of 4 ranks") {
		t.Errorf("rank outside the world: error %v", err)
	}
}

// errOrNil is the error with text s, or nil for "".
func errOrNil(s string) error {
	if s == "" {
		return nil
	}
	return errors.New(s)
}

// TestDeepNesting: pairing stays right (and linear) when one state nests
// deeply under both rules, with another state interleaved.
func TestDeepNesting(t *testing.T) {
	const n = 1000
	for _, p := range []Pairing{PairNewest, PairOldest} {
		b := NewLazyBuilder(1, true, Second)
		b.SetPairing(p)
		s, o := b.State("S"), b.State("O")
		for i := range n {
			mustAdd(t, b, 0, Enter(float64(i), s))
			mustAdd(t, b, 0, Enter(float64(i), o))
		}
		for i := range 2 * n {
			st := s
			if i%2 == 1 {
				st = o
			}
			mustAdd(t, b, 0, Leave(float64(n+i), st))
		}
		tr, err := b.Finish()
		if err != nil {
			t.Fatal(err)
		}
		ev := tr.Ranks[0].Events
		// The first leave of S (index 2n) closes S's newest enter
		// (2n-2) or its oldest (0).
		want := int32(2*n - 2)
		if p == PairOldest {
			want = 0
		}
		if ev[2*n].Match != want || ev[want].Match != int32(2*n) {
			t.Errorf("pairing %d: the first leave closes %d, want %d", p, ev[2*n].Match, want)
		}
		for i := range ev {
			if ev[i].Match < 0 {
				t.Fatalf("pairing %d: event %d unpaired", p, i)
			}
		}
	}
}
