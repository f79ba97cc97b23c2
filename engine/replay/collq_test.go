package replay

import (
	"slices"
	"testing"
)

// TestCollQueue checks that a collective queue gives each key's entries
// back in push order, whether they sit in its slices or, past collSmall
// entries, in its map, and that it returns to the slices once emptied.
func TestCollQueue(t *testing.T) {
	type op struct {
		push bool
		key  uint64
		n    int // how many pushes (of the next ids, counting from 0 over the test) or takes
	}
	for _, tc := range []struct {
		name string
		ops  []op
		want []int32 // the ids taken, in order (-1 for a miss)
		left int
	}{
		{"miss on empty", []op{{false, 7, 1}}, []int32{-1}, 0},
		{"one key keeps order", []op{{true, 1, 3}, {false, 1, 4}}, []int32{0, 1, 2, -1}, 0},
		{"keys apart", []op{{true, 1, 2}, {true, 2, 2}, {false, 2, 1}, {false, 1, 1}}, []int32{2, 0}, 2},
		{"past the slices", []op{{true, 5, collSmall}, {true, 6, 3}, {true, 5, 100}, {false, 5, 2}, {false, 6, 3}},
			[]int32{0, 1, collSmall, collSmall + 1, collSmall + 2}, collSmall + 98},
		{"back to the slices", []op{{true, 5, collSmall + 1}, {false, 5, collSmall + 1}, {true, 9, 1}, {false, 9, 1}},
			append(seq(0, collSmall+1), collSmall+1), 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var s Sim
			var q collQueue
			var got []int32
			next := int32(0)
			for _, o := range tc.ops {
				for range o.n {
					if o.push {
						s.collPush(&q, o.key, next)
						next++
					} else {
						got = append(got, s.collTake(&q, o.key))
					}
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("taken %v, want %v", got, tc.want)
			}
			if q.len() != tc.left {
				t.Errorf("%d entries left, want %d", q.len(), tc.left)
			}
		})
	}
}

func seq(from, n int) []int32 {
	out := make([]int32, n)
	for i := range out {
		out[i] = int32(from + i)
	}
	return out
}
