package tsim

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tracesim/tracesim/tracefmt"
)

// refPairer is the pairing rule stated plainly: the open enters in the
// order they were entered; a leave closes the newest (or oldest) open
// enter of its state.
type refPairer []openEnter

func (r *refPairer) pop(rule tracefmt.Pairing, st tracefmt.StateID) int32 {
	l := *r
	j := -1
	for k := range l {
		if l[k].st == st && (j < 0 || rule == tracefmt.PairNewest) {
			j = k
		}
	}
	if j < 0 {
		return -1
	}
	i := l[j].i
	*r = slices.Delete(l, j, j+1)
	return i
}

// TestPairerPairsAsTheRule pushes and pops random enters and leaves of
// a few states, with up to depth enters open at once (past the inline
// room and back), and checks every pop and the enters left open against
// the rule stated plainly.
func TestPairerPairsAsTheRule(t *testing.T) {
	for _, tc := range []struct {
		rule   tracefmt.Pairing
		states int
		depth  int
	}{
		{tracefmt.PairNewest, 1, 3},
		{tracefmt.PairNewest, 3, 4},
		{tracefmt.PairNewest, 3, 5},
		{tracefmt.PairNewest, 5, 40},
		{tracefmt.PairOldest, 1, 3},
		{tracefmt.PairOldest, 3, 4},
		{tracefmt.PairOldest, 3, 5},
		{tracefmt.PairOldest, 5, 40},
	} {
		for seed := range uint64(50) {
			rng := rand.New(rand.NewPCG(seed, uint64(tc.depth)))
			var p pairer
			var ref refPairer
			for i := range int32(400) {
				st := tracefmt.StateID(rng.IntN(tc.states))
				if len(ref) < tc.depth && rng.IntN(2) == 0 {
					p.push(st, i)
					ref = append(ref, openEnter{st, i})
					continue
				}
				if got, want := p.pop(tc.rule, st), ref.pop(tc.rule, st); got != want {
					t.Fatalf("rule %d, %d states, depth %d, seed %d: leave %d of state %d closed enter %d, want %d",
						tc.rule, tc.states, tc.depth, seed, i, st, got, want)
				}
			}
			var open, want []int32
			p.each(func(i int32) { open = append(open, i) })
			for _, o := range ref {
				want = append(want, o.i)
			}
			slices.Sort(open)
			if !slices.Equal(open, want) {
				t.Fatalf("rule %d, %d states, depth %d, seed %d: open enters %v, want %v", tc.rule, tc.states, tc.depth, seed, open, want)
			}
		}
	}
}
