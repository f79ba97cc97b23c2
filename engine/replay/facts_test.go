package replay

import (
	"math"
	"math/rand/v2"
	"testing"
)

// mapChans is the channel bookkeeping the fact scan had before its
// table: a map of per-channel records, FIFO lists of the candidate sends
// not yet received and of the receives met before their send, a channel
// forgotten once it has no message in flight.
type mapChans map[chanID]*mapChan

type mapChan struct {
	sent, recvd int64
	sends       []mapSend
	recvs       []mapRecv
}

type mapSend struct {
	ord  int64
	cand int32
}

type mapRecv struct {
	ord int64
	t   float64
}

func (m mapChans) ch(id chanID) *mapChan {
	if m[id] == nil {
		m[id] = &mapChan{}
	}
	return m[id]
}

func (m mapChans) send(id chanID, cand int32) (float64, bool) {
	ch := m.ch(id)
	ord := ch.sent
	ch.sent++
	t, ok := 0.0, false
	if ord < ch.recvd {
		t, ok = ch.recvs[0].t, true
		ch.recvs = ch.recvs[1:]
	} else if cand >= 0 {
		ch.sends = append(ch.sends, mapSend{ord, cand})
	}
	if ch.sent == ch.recvd {
		delete(m, id)
	}
	return t, ok
}

func (m mapChans) recv(id chanID, t float64) int32 {
	ch := m.ch(id)
	ord := ch.recvd
	ch.recvd++
	c := int32(-1)
	if ord < ch.sent {
		if len(ch.sends) > 0 && ch.sends[0].ord == ord {
			c = ch.sends[0].cand
			ch.sends = ch.sends[1:]
		}
	} else {
		ch.recvs = append(ch.recvs, mapRecv{ord, t})
	}
	if ch.sent == ch.recvd {
		delete(m, id)
	}
	return c
}

// TestChanTableAsMap drives the fact scan's channel table and the map
// it replaced with the same random sends and receives (channels that
// collide in the table, thousands in flight at once so that it grows,
// receives before their send, sends that are no candidate, receives
// outside an MPI_Recv): every send gets the receive time the map gives,
// every receive the candidate, the table holds the channels the map
// holds, and once every message is received it holds none and its
// items are all free.
func TestChanTableAsMap(t *testing.T) {
	for _, c := range []struct {
		name  string
		chans int
		ops   int
	}{
		{"few channels", 5, 20000},
		{"thousands in flight", 3000, 200000},
		{"one channel", 1, 5000},
	} {
		t.Run(c.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, uint64(c.chans)))
			ids := make([]chanID, c.chans)
			for k := range ids {
				// Few ranks, tags and communicators: ids that differ
				// in one field only.
				ids[k] = chanID{src: int32(k % 7), dst: int32(k / 7 % 11), tag: int32(k / 77), comm: uint16(k % 3)}
			}
			var ct chanTable
			m := mapChans{}
			// pending counts each channel's sends minus receives.
			pending := make([]int, c.chans)
			cand := int32(0)
			maxUsed := 0
			for op := range c.ops {
				k := rng.IntN(c.chans)
				id := ids[k]
				// Drain at the end: every message received.
				drain := op >= c.ops*3/4
				if drain && pending[k] == 0 {
					continue
				}
				if drain && pending[k] > 0 || !drain && rng.IntN(2) == 0 {
					x := float64(op)
					if rng.IntN(5) == 0 {
						x = math.NaN()
					}
					got, want := ct.recv(id, x), m.recv(id, x)
					if got != want {
						t.Fatalf("op %d: receive on %+v got candidate %d, the map %d", op, id, got, want)
					}
					pending[k]--
				} else {
					cd := int32(-1)
					if rng.IntN(3) > 0 {
						cd = cand
						cand++
					}
					gt, gok := ct.send(id, cd)
					wt, wok := m.send(id, cd)
					if gok != wok || gok && gt != wt && !(math.IsNaN(gt) && math.IsNaN(wt)) {
						t.Fatalf("op %d: send on %+v got (%v, %v), the map (%v, %v)", op, id, gt, gok, wt, wok)
					}
					pending[k]++
				}
				if ct.used != len(m) {
					t.Fatalf("op %d: the table holds %d channels, the map %d", op, ct.used, len(m))
				}
				maxUsed = max(maxUsed, ct.used)
			}
			for k, p := range pending {
				for ; p < 0; p++ {
					ct.send(ids[k], -1)
				}
				for ; p > 0; p-- {
					ct.recv(ids[k], 0)
				}
			}
			if ct.used != 0 {
				t.Errorf("%d channels held once every message is received", ct.used)
			}
			for at := range ct.slots {
				if ct.slots[at].used {
					t.Errorf("slot %d still used: %+v", at, ct.slots[at])
				}
			}
			free := 0
			for k := ct.free - 1; k >= 0; k = ct.items[k].next {
				free++
			}
			if free != len(ct.items) {
				t.Errorf("%d of %d items free once every message is received", free, len(ct.items))
			}
			if c.chans > 1000 && maxUsed < 1000 {
				t.Errorf("at most %d channels in flight: the table never grew", maxUsed)
			}
		})
	}
}
