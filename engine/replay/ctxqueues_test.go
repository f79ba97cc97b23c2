package replay

import (
	"testing"

	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/tracefmt/gen"
)

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

// A rank's queues take one context from the slab, whether the run
// expands no collective into messages (a stencil's allreduce computed in
// bulk) or does (the same trace replayed message by message, or a
// broadcast, which is never computed in bulk): the world's collective
// queues are a table by rank, made only when a collective expands; the
// results do not depend on it: the finish of every rank is that of the
// run message by message.
func TestContextsTakenPerRank(t *testing.T) {
	stencil := generate(t, gen.Options{Pattern: "stencil2d", Ranks: 256, Iters: 3, Compute: -1})
	const P = 64
	bld := tracefmt.NewBuilder(P, false, tracefmt.Second)
	for r := range P {
		for i := range 3 {
			if _, err := bld.Add(r, tracefmt.Send(float64(i), (r+1)%P, 0, 0, 1024)); err != nil {
				t.Fatal(err)
			}
			if _, err := bld.Add(r, tracefmt.Recv(float64(i), (r+P-1)%P, 0, 0, 1024)); err != nil {
				t.Fatal(err)
			}
			if _, err := bld.Add(r, tracefmt.Collective(float64(i), tracefmt.OpBcast, 0, 0, 4096, 4096)); err != nil {
				t.Fatal(err)
			}
		}
	}
	bcast, err := bld.Finish()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name       string
		tr         *tracefmt.Trace
		perMessage bool
		want       int  // contexts taken per rank
		collQueues bool // the world's collective queues made
	}{
		{"stencil allreduce in bulk", stencil, false, 1, false},
		{"stencil allreduce by message", stencil, true, 1, true},
		{"ring and bcast", bcast, false, 1, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, res := simulate(t, tc.tr, cfgWith(t), Options{PerMessageCollectives: tc.perMessage})
			taken := 0
			for r := range s.queues {
				taken += cap(s.queues[r].ctx)
			}
			if want := tc.want * tc.tr.Size(); taken != want {
				t.Errorf("the ranks took %d contexts, want %d (%d a rank)", taken, want, tc.want)
			}
			if made := s.worldColl != nil; made != tc.collQueues || made && len(s.worldColl) != tc.tr.Size() {
				t.Errorf("%d collective queues of the world, want them made: %v", len(s.worldColl), tc.collQueues)
			}
			_, ref := simulate(t, tc.tr, cfgWith(t), Options{PerMessageCollectives: true})
			if res.Makespan != ref.Makespan || res.Messages.Count != ref.Messages.Count || res.Messages.Bytes != ref.Messages.Bytes {
				t.Errorf("makespan %v, %d messages; message by message %v, %d", res.Makespan, res.Messages.Count, ref.Makespan, ref.Messages.Count)
			}
			for r := range res.Ranks {
				if res.Ranks[r].Finish != ref.Ranks[r].Finish {
					t.Errorf("rank %d finishes at %v, message by message at %v", r, res.Ranks[r].Finish, ref.Ranks[r].Finish)
					break
				}
			}
		})
	}
}
