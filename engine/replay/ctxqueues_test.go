package replay

import "testing"

// A context's keys keep their queues whether they sit in the inline array
// or the map past it: every key finds the queues it was given, absent keys
// find none, and each visits every key once.
func TestCtxQueuesKeys(t *testing.T) {
	for _, n := range []int{0, 1, smallKeys, smallKeys + 1, 40} {
		var q ctxQueues
		var a allocs
		got := map[uint64]*keyQueues{}
		for i := range n {
			k := matchKey(int32(i*7), int32(i%3))
			kq := q.key(k, &a)
			kq.unexp.push(int32(i))
			got[k] = kq
		}
		for k, kq := range got {
			if q.find(k) != kq || q.key(k, &a) != kq {
				t.Errorf("%d keys: key %#x finds other queues than it was given", n, k)
			}
		}
		if kq := q.find(matchKey(1, 99)); kq != nil {
			t.Errorf("%d keys: an absent key finds queues holding %d messages", n, kq.unexp.len())
		}
		seen, msgs := 0, 0
		q.each(func(kq *keyQueues) { seen++; msgs += kq.unexp.len() })
		if seen != n || msgs != n || int(q.nkeys) != n {
			t.Errorf("%d keys: each visits %d keys holding %d messages, nkeys %d; want %d of each", n, seen, msgs, q.nkeys, n)
		}
	}
}
