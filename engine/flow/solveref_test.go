package flow

import (
	"math"

	"github.com/tracesim/tracesim/engine/des"
)

// solveRef is the solver before the dense rewrite (solve.go), kept as
// the reference the tests and benchmarks compare the solver with: it
// recomputes the rates of the flows connected, through shared
// links, to the links changed since the last solve (n.pending), and their
// completion times. Flows elsewhere keep their rates.
func (n *Network) solveRef(now des.Time) {
	n.solvePending = false
	if len(n.pending) == 0 {
		n.wake()
		return
	}
	n.epoch++
	ep := n.epoch
	links := n.compLinks[:0]
	for _, fi := range n.pending {
		for _, l := range n.flinks(&n.flows[fi]) {
			if ls := &n.lsolve[l]; ls.mark != ep {
				ls.mark = ep
				links = append(links, l)
			}
		}
	}
	n.pending = n.pending[:0]
	// The connected component: flows on these links, their other links,
	// and so on. Each link is prepared for the solver as it is reached,
	// each flow brought up to date.
	flows := n.compFlows[:0]
	r := &refScratch{rem: make([]float64, len(n.links)), usage: make([]float64, len(n.links)),
		unfixed: make([]int32, len(n.links)), fixed: make([]bool, len(n.flows))}
	for i := 0; i < len(links); i++ {
		l := links[i]
		lk := &n.links[l]
		n.account(l, now)
		r.rem[l], r.usage[l], r.unfixed[l] = lk.cap, 0, lk.en
		for _, e := range n.elems(lk) {
			f := &n.flows[e.f]
			r.usage[l] += n.coeff(f, int(e.k)) * f.w
			if n.fmark[e.f] == ep {
				continue
			}
			n.fmark[e.f] = ep
			if dt := (now - f.last).Seconds(); dt > 0 {
				f.remain -= f.value * f.factor * dt
			}
			f.last, r.fixed[e.f], f.prev = now, false, f.value
			flows = append(flows, e.f)
			for _, l := range n.flinks(f) {
				if ls := &n.lsolve[l]; ls.mark != ep {
					ls.mark = ep
					links = append(links, l)
				}
			}
		}
	}
	n.fillRef(r, links, flows)
	for _, l := range links {
		n.links[l].load = 0
	}
	for _, fi := range flows {
		f := &n.flows[fi]
		for k, l := range n.flinks(f) {
			n.links[l].load += n.coeff(f, k) * f.value
		}
		n.reschedule(fi, now)
	}
	n.compLinks, n.compFlows = links[:0], flows[:0]
	n.wake()
}

// fillRef is the weighted max-min allocation by progressive filling: every
// unfixed flow f runs at level/p_f; the level rises until a link is
// saturated (its flows are fixed there) or a flow reaches its bound (it is
// fixed at the bound), and so on until every flow is fixed.
func (n *Network) fillRef(r *refScratch, links, flows []int32) {
	unfixed := len(flows)
	// level is link l's saturation level, +Inf when it cannot saturate:
	// a fatpipe's, under SimGrid's sharing (system.fatShare), is its
	// bandwidth over the largest c·w of its unfixed flows.
	level := func(l int32) float64 {
		lk := &n.links[l]
		if lk.fatpipe && n.sys.fatShare {
			u := 0.0
			for _, e := range n.elems(lk) {
				if !r.fixed[e.f] {
					u = max(u, n.coeff(&n.flows[e.f], int(e.k))*n.flows[e.f].w)
				}
			}
			if u > 0 {
				return lk.cap / u
			}
			return math.Inf(1)
		}
		if r.unfixed[l] > 0 && r.usage[l] > 0 && !lk.fatpipe {
			return r.rem[l] / r.usage[l]
		}
		return math.Inf(1)
	}
	for unfixed > 0 {
		x := math.Inf(1)
		for _, l := range links {
			x = min(x, level(l))
		}
		xb := math.Inf(1)
		for _, fi := range flows {
			if f := &n.flows[fi]; !r.fixed[fi] && f.bound > 0 {
				xb = min(xb, f.bound*f.penalty)
			}
		}
		if xb < x || math.IsInf(x, 1) {
			if math.IsInf(xb, 1) {
				// Neither a link nor a bound limits what is left:
				// cannot happen with finite bandwidths.
				for _, fi := range flows {
					if f := &n.flows[fi]; !r.fixed[fi] {
						n.fixRef(r, fi, f, 0)
						unfixed--
					}
				}
				return
			}
			thr := xb * (1 + boundTol)
			for _, fi := range flows {
				if f := &n.flows[fi]; !r.fixed[fi] && f.bound > 0 && f.bound*f.penalty <= thr {
					n.fixRef(r, fi, f, f.bound)
					unfixed--
				}
			}
			continue
		}
		thr := x * (1 + levelTol)
		// Fatpipes saturated at this level are chosen before fixing
		// (as SimGrid lists its saturated constraints), the other links
		// as they come.
		fatSat := map[int32]bool{}
		for _, l := range links {
			if n.links[l].fatpipe && level(l) <= thr {
				fatSat[l] = true
			}
		}
		for _, l := range links {
			lk := &n.links[l]
			if lk.fatpipe && n.sys.fatShare {
				if !fatSat[l] {
					continue
				}
			} else if level(l) > thr {
				continue
			}
			for _, e := range n.elems(lk) {
				if f := &n.flows[e.f]; !r.fixed[e.f] {
					n.fixRef(r, e.f, f, x*f.w)
					unfixed--
				}
			}
		}
	}
}

// fixRef sets flow fi's rate and takes it off its links' remaining
// capacity.
func (n *Network) fixRef(r *refScratch, fi int32, f *flowRec, v float64) {
	f.value, r.fixed[fi] = v, true
	for k, l := range n.flinks(f) {
		c := n.coeff(f, k)
		r.rem[l] = max(r.rem[l]-c*v, 0)
		r.usage[l] -= c * f.w
		r.unfixed[l]--
	}
}

// refScratch is the reference solver's scratch: per link, its remaining
// capacity, Σ c·w of its unfixed flows and their number; per flow slot,
// whether it is fixed.
type refScratch struct {
	rem, usage []float64
	unfixed    []int32
	fixed      []bool
}
