package replay

import (
	"fmt"
	"testing"
)

// TestPacketNICSendsInIssueOrder: a node's NIC sends in the order the
// application issued the sends, and a rendezvous send whose receive is
// posted late does not hold the sends behind it to other destinations.
// Rank 0 issues a send to rank 1, which posts its receive only after 1 ms
// of computation, then a send to rank 2, which is waiting. Rendezvous
// (200 KB) to rank 1: the message to rank 2 (1 KB or 200 KB) arrives when
// it would if rank 0 sent it alone. Eager (1 KB) to rank 1: it leaves at
// once, and the message to rank 2 follows it where they share the node's
// injection link or lane (crossbar; torus with ranks 1 and 2 in one
// direction) and arrives as if alone where they do not (torus, two
// directions).
func TestPacketNICSendsInIssueOrder(t *testing.T) {
	const late = 1e-3
	for _, topo := range []struct {
		spec, placement string
		shared          bool
	}{
		{"crossbar:4", "map:0,1,2", true},
		{"torus:4x4", "map:0,1,2", true},  // 1 and 2 both in +x
		{"torus:4x4", "map:5,6,9", false}, // +x and +y
	} {
		for _, first := range []int64{1000, 200_000} {
			for _, second := range []int64{1000, 200_000} {
				name := fmt.Sprintf("%s %s/first %dB/second %dB", topo.spec, topo.placement, first, second)
				t.Run(name, func(t *testing.T) {
					cfg := cfgWith(t, "model", "packet", "topology", topo.spec, "placement", topo.placement)
					arrival := func(withFirst bool) (float64, float64) {
						p := newProg(t, 3)
						if withFirst {
							p.isend(0, 1, 0, first)
						}
						p.isend(0, 2, 0, second)
						p.waitall(0)
						p.compute(1, late)
						if withFirst {
							p.recv(1, 0, 0, first)
						}
						p.recv(2, 0, 0, second)
						s, res := simulate(t, p.trace(), cfg, Options{RecordMessages: true})
						if !res.Complete {
							t.Fatalf("incomplete: %+v", res.Deadlock)
						}
						var to1, to2 float64
						for _, m := range s.Messages() {
							switch m.Dst {
							case 1:
								to1 = m.Delivered
							case 2:
								to2 = m.Delivered
							}
						}
						return to1, to2
					}
					to1, to2 := arrival(true)
					_, alone := arrival(false)
					eager := first < 65536
					switch {
					case eager && topo.shared:
						if !(to1 < to2 && to2 > alone && to1 < late) {
							t.Errorf("eager message to rank 1 at %.9f s, then to rank 2 at %.9f s (alone %.9f s): want them in issue order, both before %g s", to1, to2, alone, late)
						}
					case eager:
						if to2 != alone || !(to1 < late) {
							t.Errorf("eager message to rank 1 at %.9f s, to rank 2 at %.9f s: want rank 2's as if alone (%.9f s), rank 1's before %g s", to1, to2, alone, late)
						}
					default:
						if to2 != alone || !(to1 > late) {
							t.Errorf("rendezvous message to late rank 1 at %.9f s, to rank 2 at %.9f s: want rank 2's as if alone (%.9f s), rank 1's after %g s", to1, to2, alone, late)
						}
					}
				})
			}
		}
	}
}
