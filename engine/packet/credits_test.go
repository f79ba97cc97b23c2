package packet

import (
	"testing"

	"github.com/tracesim/tracesim/engine/des"
)

// The times of the credits on their way back to an output VC, or to an
// injection lane, are kept in the VC's or the lane's own record for
// buffers of up to outRing packets, and in the shared tables pend and
// lanePend for deeper ones: on congested traffic, where credits
// decide when packets move, both give every message the same delivery
// time and order, the same hops and link loads.
func TestPendingCreditsInRecordOrTable(t *testing.T) {
	for _, tc := range []struct {
		spec, routing string
		vcs, buffer   int
	}{
		{"torus:4x4", "adaptive", 2, 2},
		{"torus:4x4", "adaptive", 2, 4},
		{"torus:6x6", "dor:bubble", 1, 3},
		{"mesh:4x4", "dor", 1, 2},
		{"fattree:k=4,levels=2", "", 2, 4},
	} {
		inRecord := runUniformBuffer(t, tc.spec, tc.routing, tc.vcs, tc.buffer, func(n *Network) {
			if n.pend != nil {
				t.Fatalf("%s: buffers of %d packets keep their credits in pend", tc.spec, tc.buffer)
			}
		})
		inTable := runUniformBuffer(t, tc.spec, tc.routing, tc.vcs, tc.buffer, func(n *Network) {
			n.pend = make([]des.Time, len(n.outs)*int(n.nb))
		})
		sameRun(t, tc.spec+" credits in pend", inRecord, inTable)
		// The lanes' credits likewise: in the lane's record (nic.ring)
		// or in lanePend.
		lanesInTable := runUniformBuffer(t, tc.spec, tc.routing, tc.vcs, tc.buffer, func(n *Network) {
			if n.lanePend != nil {
				t.Fatalf("%s: buffers of %d packets keep their lanes' credits in lanePend", tc.spec, tc.buffer)
			}
			n.lanePend = make([]des.Time, len(n.nics)*int(n.nb))
		})
		sameRun(t, tc.spec+" lanes' credits in lanePend", inRecord, lanesInTable)
		if inRecord.tries <= inRecord.hops/2 {
			t.Fatalf("%s: %d tries for %d hops: no congestion to test", tc.spec, inRecord.tries, inRecord.hops)
		}
	}
}
