package flow

import (
	"testing"

	"github.com/tracesim/tracesim/engine/des"
)

// TestInlineElems: after every solve of random traffic, each link's
// element list is where its record says — in the record while it has
// never outgrown it or since it was last emptied, in the pool otherwise
// — and every element names a flow that runs over the link at that
// index, whose place there is the element's (the swap-removes keep the
// places). Lists move to the pool and back: an emptied link gives its
// range back (on the old layout a list stayed in the pool for good).
func TestInlineElems(t *testing.T) {
	moved, back := 0, 0
	for trial := range 12 {
		spec, cfg, sends := randomTraffic(t, trial, 11, 300)
		wasPooled := map[int]bool{}
		_, _ = runSetup(t, cfg, sends, func(n *Network) {
			var solveChecked func(des.Time)
			solveChecked = func(now des.Time) {
				n.solveWith = nil // the network's own solve, then the lists
				defer func() { n.solveWith = solveChecked }()
				n.solve(now)
				for l := range n.links {
					lk := &n.links[l]
					switch {
					case lk.ecap == 0 && lk.en > inlineElems:
						t.Fatalf("%s trial %d: link %d holds %d elements in its record", spec, trial, l, lk.en)
					case lk.ecap > 0 && lk.en == 0:
						t.Fatalf("%s trial %d: link %d's empty list kept its range of %d", spec, trial, l, lk.ecap)
					case lk.ecap > 0:
						if !wasPooled[l] {
							moved++
						}
						wasPooled[l] = true
					case wasPooled[l]:
						back++
						wasPooled[l] = false
					}
					for i, e := range n.elems(lk) {
						f := &n.flows[e.f]
						if k := int(e.k); k >= int(f.nl) || n.flinks(f)[k] != int32(l) || n.fpos(f)[k] != int32(i) {
							t.Fatalf("%s trial %d: link %d element %d (flow %d, link %d of its %d) not where the flow has it",
								spec, trial, l, i, e.f, e.k, f.nl)
						}
					}
				}
			}
			n.solveWith = solveChecked
		})
	}
	if moved == 0 || back == 0 {
		t.Fatalf("%d lists moved to the pool and %d back into their records: the traffic tests neither way", moved, back)
	}
}
