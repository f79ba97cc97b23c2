package replay

import (
	"slices"
	"testing"
	"unsafe"
)

// TestCollQueue checks that a collective queue gives each key's entries
// of each kind back in push order, whether they sit in its record or,
// past collInline entries, in the run's map, that it returns to its
// record once emptied, and that a receive is never taken for a message
// of the same key or the other way round.
func TestCollQueue(t *testing.T) {
	type op struct {
		push bool
		msg  bool // a message (else a receive)
		key  uint64
		n    int // how many pushes (of the next ids, counting from 0 over the test) or takes
	}
	for _, tc := range []struct {
		name     string
		ops      []op
		want     []int32 // the ids taken, in order (-1 for a miss)
		left     int     // entries left
		leftMsgs int     // messages among them
	}{
		{"miss on empty", []op{{false, false, 7, 1}, {false, true, 7, 1}}, []int32{-1, -1}, 0, 0},
		{"one key keeps order", []op{{true, true, 1, 3}, {false, true, 1, 4}}, []int32{0, 1, 2, -1}, 0, 0},
		{"keys apart", []op{{true, false, 1, 2}, {true, false, 2, 2}, {false, false, 2, 1}, {false, false, 1, 1}}, []int32{2, 0}, 2, 0},
		{"kinds apart", []op{{true, true, 3, 1}, {false, false, 3, 1}, {true, false, 3, 1}, {false, true, 3, 1}, {false, false, 3, 1}},
			[]int32{-1, 0, 1}, 0, 0},
		{"a message left", []op{{true, false, 1, 1}, {true, true, 2, 2}, {false, true, 2, 1}}, []int32{1}, 2, 1},
		{"past the record", []op{{true, true, 5, collInline}, {true, false, 6, 3}, {true, true, 5, 100}, {false, true, 5, 2}, {false, false, 6, 3}, {false, true, 6, 1}},
			[]int32{0, 1, collInline, collInline + 1, collInline + 2, -1}, collInline + 98, collInline + 98},
		{"back to the record", []op{{true, true, 5, collInline + 1}, {false, true, 5, collInline + 1}, {true, false, 9, 1}, {false, false, 9, 1}},
			append(seq(0, collInline+1), collInline+1), 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var s Sim
			var q collQueue
			var got []int32
			next := int32(0)
			for _, o := range tc.ops {
				for range o.n {
					if o.push {
						s.collPush(&q, o.key, next, o.msg)
						next++
					} else {
						got = append(got, s.collTake(&q, o.key, o.msg))
					}
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("taken %v, want %v", got, tc.want)
			}
			msgs := q.msgs()
			for k, f := range s.collBig {
				if k.msg {
					msgs += f.len()
				}
			}
			if n := int(q.n + q.bigN); n != tc.left || msgs != tc.leftMsgs {
				t.Errorf("%d entries left (%d messages), want %d (%d)", n, msgs, tc.left, tc.leftMsgs)
			}
			if q.bigN == 0 && len(s.collBig) != 0 {
				t.Errorf("the map holds %d fifos of an empty queue", len(s.collBig))
			}
		})
	}
}

// TestCollQueueIsOneLine holds the queue to one cache line: a delivery
// of a collective's message reads it whole.
func TestCollQueueIsOneLine(t *testing.T) {
	if n := unsafe.Sizeof(collQueue{}); n != 64 {
		t.Errorf("a collective queue takes %d bytes, want 64", n)
	}
}

func seq(from, n int) []int32 {
	out := make([]int32, n)
	for i := range out {
		out[i] = int32(from + i)
	}
	return out
}
