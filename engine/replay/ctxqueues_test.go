package replay

import "testing"

// A context's keys keep their queues whether they sit in the inline array
// or the map past it: every key finds the queues it was given, absent keys
// find none, and each visits every key once.
func TestCtxQueuesKeys(t *testing.T) {
	for _, n := range []int{0, 1, smallKeys, smallKeys + 1, 40} {
		var q ctxQueues
		var a allocs
		s := &Sim{msgs: make([]message, n)}
		got := map[uint64]*keyQueues{}
		for i := range n {
			k := matchKey(int32(i*7), int32(i%3))
			kq := q.key(k, &a)
			s.pushMsg(&kq.unexp, int32(i))
			got[k] = kq
		}
		for k, kq := range got {
			if q.find(k) != kq || q.key(k, &a) != kq {
				t.Errorf("%d keys: key %#x finds other queues than it was given", n, k)
			}
		}
		if kq := q.find(matchKey(1, 99)); kq != nil {
			t.Errorf("%d keys: an absent key finds queues holding %d messages", n, s.countMsgs(&kq.unexp))
		}
		seen, msgs := 0, 0
		q.each(func(kq *keyQueues) { seen++; msgs += s.countMsgs(&kq.unexp) })
		if seen != n || msgs != n || int(q.nkeys) != n {
			t.Errorf("%d keys: each visits %d keys holding %d messages, nkeys %d; want %d of each", n, seen, msgs, q.nkeys, n)
		}
	}
}

// A key's queues, linked through the messages and receives they hold,
// give back the ids pushed in push order, apart from every other key's,
// however pushes and pops interleave, and are empty once popped out.
func TestKeyQueuesOrder(t *testing.T) {
	const keys, ids = 7, 200
	s := &Sim{msgs: make([]message, ids), ops: make([]recvOp, ids)}
	kqs := make([]keyQueues, keys)
	want := make([][]int32, keys) // pushed, not yet popped
	popped := 0
	for id := range int32(ids) {
		k := int(id*5) % keys
		s.pushMsg(&kqs[k].unexp, id)
		s.pushOp(&kqs[k].posted, id)
		want[k] = append(want[k], id)
		// Pop from another key now and then, so that lists empty and
		// refill while others grow.
		if j := int(id*3) % keys; id%3 == 0 && len(want[j]) > 0 {
			m, o := s.popMsg(&kqs[j].unexp), s.popOp(&kqs[j].posted)
			if m != want[j][0] || o != want[j][0] {
				t.Fatalf("key %d: pop gave message %d and receive %d, want %d", j, m, o, want[j][0])
			}
			want[j] = want[j][1:]
			popped++
		}
	}
	for k := range kqs {
		if n := s.countMsgs(&kqs[k].unexp); n != len(want[k]) {
			t.Errorf("key %d holds %d messages, want %d", k, n, len(want[k]))
		}
		for _, w := range want[k] {
			if f := kqs[k].unexp.first(); f != w {
				t.Fatalf("key %d: first message %d, want %d", k, f, w)
			}
			if m, o := s.popMsg(&kqs[k].unexp), s.popOp(&kqs[k].posted); m != w || o != w {
				t.Fatalf("key %d: pop gave message %d and receive %d, want %d", k, m, o, w)
			}
			popped++
		}
		if !kqs[k].unexp.empty() || !kqs[k].posted.empty() {
			t.Errorf("key %d: not empty once every id was popped", k)
		}
	}
	if popped != ids {
		t.Errorf("popped %d ids, want %d", popped, ids)
	}
}
