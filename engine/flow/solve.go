package flow

import (
	"math"

	"github.com/tracesim/tracesim/engine/des"
)

// Relative tolerances of the solver: links whose saturation levels agree
// to levelTol saturate together (symmetric patterns stay symmetric under
// rounding), and bounds below a link's level by boundTol are taken first.
const (
	levelTol = 1e-9
	boundTol = 1e-12
)

// solve recomputes the rates of the flows connected, through shared
// links, to the links changed since the last solve (n.pending), and their
// completion times. Flows elsewhere keep their rates.
func (n *Network) solve(now des.Time) {
	n.solvePending = false
	if len(n.pending) == 0 {
		n.wake()
		return
	}
	n.epoch++
	ep := n.epoch
	links := n.compLinks[:0]
	for _, l := range n.pending {
		if lk := &n.links[l]; lk.mark != ep {
			lk.mark = ep
			links = append(links, l)
		}
	}
	n.pending = n.pending[:0]
	// The connected component: flows on these links, their other links,
	// and so on. Each link is prepared for the solver as it is reached,
	// each flow brought up to date.
	flows := n.compFlows[:0]
	for i := 0; i < len(links); i++ {
		lk := &n.links[links[i]]
		n.account(lk, now)
		lk.rem, lk.usage, lk.unfixed = lk.cap, 0, int32(len(lk.el))
		for _, e := range lk.el {
			f := &n.flows[e.f]
			lk.usage += e.c * f.w
			if f.mark == ep {
				continue
			}
			f.mark = ep
			if dt := (now - f.last).Seconds(); dt > 0 {
				f.remain -= f.value * f.factor * dt
			}
			f.last, f.fixed, f.prev = now, false, f.value
			flows = append(flows, e.f)
			for _, l := range f.links {
				if lk := &n.links[l]; lk.mark != ep {
					lk.mark = ep
					links = append(links, l)
				}
			}
		}
	}
	n.fill(links, flows)
	for _, l := range links {
		n.links[l].load = 0
	}
	for _, fi := range flows {
		f := &n.flows[fi]
		for k, l := range f.links {
			n.links[l].load += n.coeff(f, k) * f.value
		}
		if f.value == f.prev && f.finish != des.Never {
			continue // same rate: same completion time
		}
		f.finish = n.finishTime(f, now)
		if f.hi < 0 {
			n.heapPush(fi)
		} else {
			n.heapFix(int(f.hi))
		}
	}
	n.compLinks, n.compFlows = links[:0], flows[:0]
	n.wake()
}

// fill is the weighted max-min allocation by progressive filling: every
// unfixed flow f runs at level/p_f; the level rises until a link is
// saturated (its flows are fixed there) or a flow reaches its bound (it is
// fixed at the bound), and so on until every flow is fixed.
func (n *Network) fill(links, flows []int32) {
	unfixed := len(flows)
	for unfixed > 0 {
		x := math.Inf(1)
		for _, l := range links {
			if lk := &n.links[l]; lk.unfixed > 0 && lk.usage > 0 && !lk.fatpipe {
				x = min(x, lk.rem/lk.usage)
			}
		}
		xb := math.Inf(1)
		for _, fi := range flows {
			if f := &n.flows[fi]; !f.fixed && f.bound > 0 {
				xb = min(xb, f.bound*f.penalty)
			}
		}
		if xb < x || math.IsInf(x, 1) {
			if math.IsInf(xb, 1) {
				// Neither a link nor a bound limits what is left:
				// cannot happen with finite bandwidths.
				for _, fi := range flows {
					if f := &n.flows[fi]; !f.fixed {
						n.fix(f, 0)
						unfixed--
					}
				}
				return
			}
			thr := xb * (1 + boundTol)
			for _, fi := range flows {
				if f := &n.flows[fi]; !f.fixed && f.bound > 0 && f.bound*f.penalty <= thr {
					n.fix(f, f.bound)
					unfixed--
				}
			}
			continue
		}
		thr := x * (1 + levelTol)
		for _, l := range links {
			lk := &n.links[l]
			if lk.unfixed == 0 || lk.usage <= 0 || lk.fatpipe || lk.rem/lk.usage > thr {
				continue
			}
			for _, e := range lk.el {
				if f := &n.flows[e.f]; !f.fixed {
					n.fix(f, x*f.w)
					unfixed--
				}
			}
		}
	}
}

// fix sets flow f's rate and takes it off its links' remaining capacity.
func (n *Network) fix(f *flowRec, v float64) {
	f.value, f.fixed = v, true
	for k, l := range f.links {
		lk := &n.links[l]
		c := n.coeff(f, k)
		lk.rem = max(lk.rem-c*v, 0)
		lk.usage -= c * f.w
		lk.unfixed--
	}
}

// finishTime is when flow f, at its current rate, has carried its bytes.
func (n *Network) finishTime(f *flowRec, now des.Time) des.Time {
	if f.remain <= 0 {
		return now
	}
	rate := f.value * f.factor
	if !(rate > 0) {
		return des.Never
	}
	ps := math.Ceil(f.remain / rate * 1e12)
	if ps >= float64(des.Never-now) {
		return des.Never
	}
	return now + des.Time(ps)
}

// wake makes sure an event comes when the earliest flow finishes.
func (n *Network) wake() {
	if len(n.heap) == 0 {
		return
	}
	t := n.flows[n.heap[0]].finish
	if t < n.wakeAt && t != des.Never {
		n.wakeGen++
		n.wakeAt = t
		n.h.Schedule(t, evWake, 0, n.wakeGen)
	}
}

// The heap of sharing flows, by completion time, then by the order they
// were sent (deterministic ties).

func (n *Network) less(a, b int32) bool {
	fa, fb := &n.flows[a], &n.flows[b]
	if fa.finish != fb.finish {
		return fa.finish < fb.finish
	}
	return fa.seq < fb.seq
}

func (n *Network) heapSwap(i, j int) {
	h := n.heap
	h[i], h[j] = h[j], h[i]
	n.flows[h[i]].hi = int32(i)
	n.flows[h[j]].hi = int32(j)
}

func (n *Network) heapUp(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !n.less(n.heap[i], n.heap[p]) {
			return
		}
		n.heapSwap(i, p)
		i = p
	}
}

func (n *Network) heapDown(i int) bool {
	start := i
	for {
		l := 2*i + 1
		if l >= len(n.heap) {
			break
		}
		c := l
		if r := l + 1; r < len(n.heap) && n.less(n.heap[r], n.heap[l]) {
			c = r
		}
		if !n.less(n.heap[c], n.heap[i]) {
			break
		}
		n.heapSwap(i, c)
		i = c
	}
	return i > start
}

func (n *Network) heapPush(fi int32) {
	n.flows[fi].hi = int32(len(n.heap))
	n.heap = append(n.heap, fi)
	n.heapUp(len(n.heap) - 1)
}

func (n *Network) heapFix(i int) {
	if !n.heapDown(i) {
		n.heapUp(i)
	}
}

func (n *Network) heapPop() int32 {
	top := n.heap[0]
	last := len(n.heap) - 1
	n.heapSwap(0, last)
	n.heap = n.heap[:last]
	if last > 0 {
		n.heapDown(0)
	}
	n.flows[top].hi = -1
	return top
}
