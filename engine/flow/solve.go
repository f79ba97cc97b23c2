package flow

import (
	"math"
	"slices"

	"github.com/tracesim/tracesim/engine/des"
)

// Relative tolerances of the solver: links whose saturation levels agree
// to levelTol saturate together (symmetric patterns stay symmetric under
// rounding), and bounds below a link's level by boundTol are taken first.
// checkTol is the rounding that solve's check of the flows it kept
// forgives (a link within it of its capacity is saturated, levels within
// it are equal).
const (
	levelTol = 1e-9
	boundTol = 1e-12
	checkTol = 1e-9
	// unsatTol is the margin by which a link's spare capacity must
	// exceed what its flows take at their bounds for fill to leave it
	// out: far above the rounding of the sums, far below any real gap.
	unsatTol = 1e-6
)

// system is the max-min system of the flows a solve re-solves, copied
// into dense arrays indexed by the solve's own flow and link numbers, so
// that progressive filling walks contiguous memory rather than the
// network's flow and link records. Its slices are reused from solve to
// solve: a solve allocates nothing once they have grown.
type system struct {
	// Flow i: its slot in Network.flows, its weight 1/penalty, the level
	// at which it reaches its bound (+Inf: none), the bound, its rate,
	// whether it is fixed and the link it was fixed at (-1: its bound).
	// Its links are fLink[fOff[i]:fOff[i+1]] (the solve's link numbers
	// with the crosstraffic bit, see ctBit), each consuming its
	// coefficient times its rate.
	slot  []int32
	prev  []float64 // rate before the solve
	w     []float64
	level []float64
	bound []float64
	val   []float64
	fixed []bool
	at    []int32
	fOff  []int32
	fLink []int32
	// Link j: its constraint id, the load of the flows that keep their
	// rates, remaining capacity, Σ c·w of its unfixed flows, their
	// number, and whether it shares nothing (fatpipe). Its re-solved
	// flows are lFlow[lOff[j]:lOff[j+1]] (the solve's flow numbers with
	// the crosstraffic bit), each consuming its coefficient of its rate.
	id      []int32
	changed []bool // a flow started or finished on it
	kept    []float64
	rem     []float64
	usage   []float64
	unfixed []int32
	fat     []bool
	lOff    []int32
	lFlow   []int32
	// coef is the coefficient an element's crosstraffic bit gives: 1
	// (route) and the crosstraffic share (way back).
	coef [2]float64
	// ratio is link j's saturation level rem/usage while it can still
	// saturate, +Inf once it cannot (no unfixed flow, no usage left, a
	// fatpipe, or a capacity its flows cannot fill even at their bounds):
	// fill's scans compare levels without dividing, and fix updates the
	// links it touches.
	ratio []float64
	// What build keeps from one round of check to the next: link j's
	// load less that of the re-solved flows before clamping at 0, their
	// Σ c·w, their Σ c·bound (+Inf when one has no bound), their number
	// and its capacity; and how many flows and links it has built.
	kraw, ubase, bsum []float64
	lcount            []int32
	cap               []float64
	builtF            int
	builtL            int
	// What check keeps from one round to the next: the rates and the
	// links fixed at of the flows, the number of re-solved flows of each
	// link, and how many flows and links it checked.
	lastVal  []float64
	lastAt   []int32
	lastCnt  []int32
	checkedF int
	checkedL int
	// fatShare shares a fatpipe as SimGrid's LMM does rather than
	// bounding each flow by it alone: a fatpipe saturates at the level
	// cap / max(c·w) of its unfixed flows, and its flows are then fixed
	// at that level, so that a flow of a longer route (a larger penalty)
	// gets less than the fatpipe's bandwidth while one of a shorter
	// route crosses it. The flows a solve re-solves are then the whole
	// connected component (as Config.Exhaustive), fatpipes included.
	fatShare bool
	fatSat   []bool // fill's scratch under fatShare: per link
	// fatMax is, under fatShare, how many unfixed uses of fatpipe j
	// have the largest c·w (its usage): fix rescans the fatpipe's
	// flows only when the last of them is fixed.
	fatMax []int32
	// fresh makes every round build the system anew, check every link
	// and let fill scan every link that may saturate, even those whose
	// flows cannot fill them (the tests compare the results with the
	// reuse above and these shortcuts).
	fresh bool
	// extended, when set, is called after every build that extended the
	// previous round's system of F0 flows (tests).
	extended func(F0 int)
	// Scratch of fill: the links that may still saturate, the flows not
	// fixed yet.
	live, open []int32
	// memo remembers the systems built and filled before (see
	// solveMemo).
	memo solveMemo
	// distinct is, per cached path (Network.paths), whether its
	// constraints are all different: 1 yes, 2 no, 0 not worked out yet
	// (see setBneck).
	distinct []uint8
	// zeroRate is set once a solve has left a flow on its links at rate
	// 0 (level +Inf): until then every flow on its links at level +Inf
	// is one activated since the last solve, which seed includes first,
	// and seed reads only the flows fixed at a changed link (see seed).
	zeroRate bool
}

// solve recomputes the rates of the flows whose rates the changes since
// the last solve (the flows of n.pending, started on or finished from
// their links) can alter, and their completion times. The other flows
// keep their rates.
//
// Which flows those are is found by checking, not by following every
// shared link: crosstraffic connects nearly every flow of a machine to
// every other, but a change moves few rates (on a drifting halo exchange
// a handful of the hundreds connected). The solve re-solves a set of
// flows — at first the flows started and the flows fixed at a changed
// link — by progressive filling, with the other flows' loads taken off
// the capacities of the links they share. The result is the weighted
// max-min allocation if every flow has a bottleneck: a saturated link on
// which no flow has a higher level (rate × penalty), or its bound. The
// re-solved flows have one by construction; a kept flow on a link the
// solve changed loses it when that link is saturated at a level below
// its own, or when the link it was fixed at is no longer saturated or
// now carries a higher level. Such flows join the set and the set is
// solved again, until no kept flow loses its bottleneck — at worst the
// whole connected component, the solve without the check. Flows on
// links the solve did not change keep their bottlenecks.
func (n *Network) solve(now des.Time) {
	if n.solveWith != nil {
		n.solveWith(now)
		return
	}
	n.solvePending = false
	if len(n.pending) == 0 {
		n.wake()
		return
	}
	if n.wholeRecall(now) {
		return // done as the last time the network was in this state
	}
	n.epoch++
	s := &n.sys
	s.slot, s.id, s.changed = s.slot[:0], s.id[:0], s.changed[:0]
	s.builtF, s.builtL, s.checkedF, s.checkedL = 0, 0, 0, 0
	n.seed(now)
	if len(s.slot) == 0 {
		// Only flows that finished, alone on their links: no rate
		// moves (the check finds nothing without re-solved flows).
		n.wholeStart(0, 0)
		n.wholeEnd(nil, 0)
		n.wake()
		return
	}
	s.memo.begin()
	for {
		if !n.recall() {
			n.build()
			s.fill()
			n.remember()
		}
		if !n.check(now) {
			break
		}
	}
	// Rates and link loads back into the network; new completion times
	// for the flows whose rate changed. The whole-solve memo stores
	// what is written (see wholeMemo).
	n.wholeStart(len(s.slot), len(s.id))
	changed := 0
	for j, l := range s.id {
		load := s.kept[j]
		for _, x := range s.lFlow[s.lOff[j]:s.lOff[j+1]] {
			load += float64(s.coef[ctOf(x)] * s.val[x&math.MaxInt32])
		}
		if load != n.links[l].load {
			// Integrated up to now only when the load changes: the
			// integrals are straight lines between changes.
			n.setLoad(l, load, now)
			changed++
		}
	}
	for i, fi := range s.slot {
		n.setRate(fi, s.val[i], s.linkID(s.at[i]), now)
		if math.IsInf(n.flevel[fi], 1) {
			s.zeroRate = true
		}
	}
	n.wholeEnd(s.slot, changed)
	n.wake()
}

// seed starts the set of flows to re-solve: the flows started since the
// last solve, the flows fixed at a changed link, and flows that have no
// rate yet.
func (n *Network) seed(now des.Time) {
	for _, fi := range n.added {
		n.include(fi, now)
	}
	for _, fi := range n.pending {
		for _, l := range n.flinks(&n.flows[fi]) {
			n.reach(l)
			j := n.lsolve[l].local
			if n.sys.changed[j] {
				// Listed again (several flows started or finished on
				// it): its flows are in already.
				continue
			}
			n.sys.changed[j] = true
			if !n.sys.zeroRate {
				// The flows at level +Inf are those of n.added, in
				// already: only the flows fixed here, fixedAt[l] uses
				// of l, are looked for, and the scan stops at the last.
				for left, el := n.fixedAt[l], n.elems(&n.links[l]); left > 0 && len(el) > 0; el = el[1:] {
					if f := el[0].f; n.bneck[f] == l {
						n.include(f, now)
						left--
					}
				}
				continue
			}
			for _, e := range n.elems(&n.links[l]) {
				if n.bneck[e.f] == l || math.IsInf(n.flevel[e.f], 1) {
					n.include(e.f, now)
				}
			}
		}
	}
	n.pending, n.added = n.pending[:0], n.added[:0]
	if n.cfg.Exhaustive || n.sys.fatShare {
		// The whole connected component: every flow on every link
		// reached, and their links, and so on.
		for j := 0; j < len(n.sys.id); j++ {
			for _, e := range n.elems(&n.links[n.sys.id[j]]) {
				n.include(e.f, now)
			}
		}
	}
}

// include adds flow fi to the flows the solve re-solves, its bytes
// brought up to now and its links to the solve's links.
func (n *Network) include(fi int32, now des.Time) {
	if n.fmark[fi] == n.epoch {
		return
	}
	n.fmark[fi] = n.epoch
	f := &n.flows[fi]
	n.settle(fi, now)
	n.sys.slot = append(n.sys.slot, fi)
	for _, l := range n.flinks(f) {
		n.reach(l)
	}
}

// reach adds constraint l to the solve's links.
func (n *Network) reach(l int32) {
	if ls := &n.lsolve[l]; ls.mark != n.epoch {
		ls.mark = n.epoch
		ls.local = int32(len(n.sys.id))
		n.sys.id = append(n.sys.id, l)
		n.sys.changed = append(n.sys.changed, false)
	}
}

// build fills the system from the flows and links the solve has
// reached: each flow's weight, bound and links; each link's capacity
// less the load of the flows it keeps, and its re-solved flows (a
// counting sort of the flows' links).
//
// When check has added flows, build extends the system rather than
// building it anew: the flows and links built before keep their rows,
// and the sums over a link's flows (the load they leave, their Σ c·w)
// continue from where they stopped, in the same order of the flows as
// from scratch, so the system is the same to the bit. Only what fill
// changes (the rates, the remaining capacities, the counts) is reset.
func (n *Network) build() {
	s := &n.sys
	F, F0 := len(s.slot), s.builtF
	if s.fresh {
		F0, s.builtL = 0, 0
	}
	s.w, s.level, s.bound, s.prev = extend(s.w, F), extend(s.level, F), extend(s.bound, F), extend(s.prev, F)
	s.val, s.fixed, s.at = grow(s.val, F), grow(s.fixed, F), grow(s.at, F)
	if F0 == 0 {
		s.fOff, s.fLink = append(s.fOff[:0], 0), s.fLink[:0]
	}
	for i := F0; i < F; i++ {
		f := &n.flows[s.slot[i]]
		s.w[i], s.level[i], s.bound[i], s.prev[i] = f.w, math.Inf(1), f.bound, f.prev
		if f.bound > 0 {
			s.level[i] = f.bound * f.penalty
		}
		links := n.flinks(f)
		if len(s.fLink)+len(links) > cap(s.fLink) {
			s.fLink = withRoom(s.fLink, 2*cap(s.fLink)+len(links))
		}
		for k, l := range links {
			s.fLink = append(s.fLink, n.lsolve[l].local|ctBit(int32(k) >= f.nfwd))
		}
		s.fOff = append(s.fOff, int32(len(s.fLink)))
	}
	for i := range F {
		s.val[i], s.fixed[i], s.at[i] = 0, false, -1
	}
	L, L0 := len(s.id), s.builtL
	s.kraw, s.ubase, s.lcount = extend(s.kraw, L), extend(s.ubase, L), extend(s.lcount, L)
	s.bsum = extend(s.bsum, L)
	s.cap, s.fat = extend(s.cap, L), extend(s.fat, L)
	s.kept, s.rem, s.usage = grow(s.kept, L), grow(s.rem, L), grow(s.usage, L)
	s.ratio = grow(s.ratio, L)
	// lOff keeps the previous round's offsets, which an extended build
	// reads (see below).
	s.unfixed, s.lOff = grow(s.unfixed, L), extend(s.lOff, L+1)
	// A link's kept load is its load less that of the flows re-solved;
	// links reached since the last build carry only flows added since.
	for j := L0; j < L; j++ {
		lk := &n.links[s.id[j]]
		s.kraw[j], s.ubase[j], s.bsum[j], s.lcount[j] = lk.load, 0, 0, 0
		s.cap[j], s.fat[j] = lk.cap, lk.fatpipe
	}
	// The loops below work on local copies of the slices: the
	// compiler cannot keep a field of *s in a register across a store
	// that might alias it, and these loops are the solver's hottest.
	s.coef = [2]float64{1, n.cfg.CrossTraffic}
	fOff, fLink, coef := s.fOff[:F+1], s.fLink, s.coef
	kraw, ubase, bsum, lcount := s.kraw[:L], s.ubase[:L], s.bsum[:L], s.lcount[:L]
	for i := F0; i < F; i++ {
		prev, w, b := s.prev[i], s.w[i], s.bound[i]
		if b <= 0 {
			b = math.Inf(1) // no bound
		}
		for k := fOff[i]; k < fOff[i+1]; k++ {
			x := fLink[k]
			j, c := x&math.MaxInt32, coef[ctOf(x)]
			kraw[j] -= float64(c * prev)
			ubase[j] += float64(c * w)
			bsum[j] += float64(c * b)
			lcount[j]++
		}
	}
	kept, rem, usage, ratio := s.kept[:L], s.rem[:L], s.usage[:L], s.ratio[:L]
	lOff, unfixed, capa, fat := s.lOff[:L+1], s.unfixed[:L], s.cap[:L], s.fat[:L]
	off := int32(0)
	for j := range L {
		kept[j] = fmax(kraw[j], 0)
		rem[j], usage[j] = fmax(capa[j]-kept[j], 0), ubase[j]
		if F0 == 0 {
			lOff[j], unfixed[j] = off, 0
		}
		off += lcount[j]
		// A link whose spare capacity its re-solved flows cannot fill
		// even at their bounds never saturates first (see fill).
		ratio[j] = math.Inf(1)
		if lcount[j] > 0 && usage[j] > 0 && !fat[j] && (s.fresh || !(rem[j] > bsum[j]*(1+unsatTol))) {
			ratio[j] = rem[j] / usage[j]
		}
	}
	from := 0 // the first flow to place
	if F0 == 0 {
		lOff[L] = off
		s.lFlow = grow(s.lFlow, int(off))
	} else {
		// Extended: a link's re-solved flows are in the order of their
		// numbers, and the flows added have the highest, so its list is
		// the previous round's (still in lFlow at the previous offsets,
		// which neither fill nor check change) followed by the added
		// flows' uses. The lists are moved up to their new offsets, from
		// the last link down (a list only moves up, never over one not
		// yet moved), and only the added flows are placed, rather than
		// every use of every flow.
		s.lFlow = extend(s.lFlow, int(off))
		lFlow := s.lFlow
		nextOld := lOff[L0] // where the previous list of link j ended
		lOff[L] = off
		for j := L - 1; j >= 0; j-- {
			oa, oc := int32(0), int32(0)
			if j < L0 {
				oa = lOff[j]
				oc, nextOld = nextOld-oa, oa
			}
			off -= lcount[j]
			lOff[j], unfixed[j] = off, oc
			if off != oa {
				for p := oc - 1; p >= 0; p-- {
					lFlow[off+p] = lFlow[oa+p]
				}
			}
		}
		from = F0
	}
	lFlow := s.lFlow
	for i := from; i < F; i++ {
		for k := fOff[i]; k < fOff[i+1]; k++ {
			x := fLink[k]
			j := x & math.MaxInt32
			p := lOff[j] + unfixed[j] // next free place of link j
			lFlow[p] = int32(i) | x&math.MinInt32
			unfixed[j]++
		}
	}
	if s.fatShare {
		// A fatpipe's usage is the largest c·w of its flows, not
		// their sum, and its remaining capacity stays its bandwidth.
		s.fatMax = grow(s.fatMax, L)
		for j := range L {
			if !fat[j] {
				continue
			}
			rem[j] = capa[j]
			usage[j], s.fatMax[j] = s.fatUsage(j)
			ratio[j] = math.Inf(1)
			if lcount[j] > 0 && usage[j] > 0 {
				ratio[j] = rem[j] / usage[j]
			}
		}
	}
	s.builtF, s.builtL = F, L
	if F0 > 0 && s.extended != nil {
		s.extended(F0)
	}
}

// extend returns s with length n, keeping its first elements; the new
// ones are the caller's to set.
func extend[T any](s []T, n int) []T {
	if cap(s) < n {
		return withRoom(s, n+n/4)[:n]
	}
	return s[:n]
}

// check adds to the solve the kept flows that the re-solved rates leave
// without a bottleneck (see solve) and reports whether it added any.
func (n *Network) check(now des.Time) bool {
	s := &n.sys
	ep := n.epoch
	grew := false
	// A link checked in the previous round that has the same re-solved
	// flows (no flow on it added since: their number tells) at the same
	// rates fixed at the same links is checked as then, and then added
	// nothing (what it adds is on it): it is skipped.
	L, F, prevL, prevF := len(s.id), len(s.slot), s.checkedL, s.checkedF
	if s.fresh {
		prevL = 0
	}
	s.lastCnt = extend(s.lastCnt, L)
	// Local copies of the slices (see build).
	lOff, lFlow, coef, lastCnt := s.lOff[:L+1], s.lFlow, s.coef, s.lastCnt[:L]
	val, prev, w, at, slot := s.val[:F], s.prev[:F], s.w[:F], s.at[:F], s.slot[:F]
	lastVal, lastAt, bneck, fixedAt := s.lastVal, s.lastAt, n.bneck, n.fixedAt
	for j, l := range s.id[:L:L] {
		lk := &n.links[l]
		if lk.fatpipe {
			continue
		}
		a, b := lOff[j], lOff[j+1]
		cnt := b - a
		same := j < prevL && lastCnt[j] == cnt
		lastCnt[j] = cnt
		if cnt == 0 || cnt == lk.en && !s.fresh {
			// No flow re-solved here, or none kept: no kept flow's
			// bottleneck is here.
			continue
		}
		moved := s.changed[j]
		fl := lFlow[a:b]
		wasHere := int32(0) // re-solved flows fixed here before the solve
		fixedHere := false  // a re-solved flow is fixed here now
		for _, x := range fl {
			i := x & math.MaxInt32
			v, fa := val[i], at[i]
			was := bneck[slot[i]]
			if was == l {
				wasHere++
			}
			fixedHere = fixedHere || fa == int32(j)
			moved = moved || v != prev[i] || was != s.linkID(fa)
			same = same && int(i) < prevF && v == lastVal[i] && fa == lastAt[i]
		}
		if !moved || same {
			// The same flows at the same rates fixed at the same
			// links: the kept flows' bottlenecks here are as they
			// were.
			continue
		}
		if !fixedHere && fixedAt[l] == wasHere && !s.fresh {
			// No re-solved flow fixed here and no kept flow fixed
			// here (all flows fixed here are re-solved): no rule
			// below can fail, whatever the levels, so neither the
			// re-solved flows' levels nor the kept flows are looked
			// at. On the CG replay 9 in 10 of the links that got
			// this far were such links.
			continue
		}
		load := s.kept[j]
		lowFixed, high := math.Inf(1), 0.0 // lowest level fixed here, highest level here
		for _, x := range fl {
			i := x & math.MaxInt32
			v := val[i]
			load += float64(coef[ctOf(x)] * v)
			lv := v / w[i]
			high = fmax(high, lv)
			if at[i] == int32(j) {
				lowFixed = fmin(lowFixed, lv)
			}
		}
		// The kept flows' highest level, and the lowest level of those
		// fixed here: the flows to add are looked for only if some
		// flow breaks the rules.
		kept, lowHere, here := 0.0, math.Inf(1), false
		for _, e := range n.elems(lk) {
			if n.fmark[e.f] != ep {
				lv := n.flevel[e.f]
				kept = fmax(kept, lv)
				if n.bneck[e.f] == l {
					lowHere, here = fmin(lowHere, lv), true
				}
			}
		}
		high = fmax(high, kept)
		saturated := load >= lk.cap*(1-checkTol)
		if kept <= lowFixed*(1+checkTol) && (!here || saturated && lowHere >= high*(1-checkTol)) {
			continue
		}
		for _, e := range n.elems(lk) {
			if n.fmark[e.f] == ep {
				continue
			}
			lv := n.flevel[e.f]
			if lv > lowFixed*(1+checkTol) ||
				n.bneck[e.f] == l && (!saturated || lv < high*(1-checkTol)) {
				n.include(e.f, now)
				grew = true
			}
		}
	}
	s.lastVal, s.lastAt = append(withRoom(s.lastVal[:0], F), s.val[:F]...), append(withRoom(s.lastAt[:0], F), s.at[:F]...)
	s.checkedL, s.checkedF = L, F
	return grew
}

// setBneck records that flow fi is fixed at constraint l (-1: at its
// bound, or off its links), keeping each constraint's count of the uses
// of it by flows fixed at it: a flow whose route and way back share a
// constraint counts twice there, as it is twice among its flows (check
// compares the count with its re-solved flows fixed there).
//
// A flow on a cached path whose constraints are all different (most
// routes: a SPLITDUPLEX route and its way back use different links)
// uses each of its constraints once: its old and new ones are counted
// without a pass over its links. Either way the counts are those of the
// pass (a flow is only ever fixed at one of its own constraints).
func (n *Network) setBneck(fi, l int32) {
	if n.bneck[fi] != l {
		n.moveBneck(fi, l)
	}
}

// moveBneck is setBneck for a flow whose constraint fixed at changes
// (setBneck, small enough to be inlined, tells).
func (n *Network) moveBneck(fi, l int32) {
	old := n.bneck[fi]
	f := &n.flows[fi]
	d := n.sys.distinct
	if pi := f.path; pi >= 0 && int(pi) < len(d) && d[pi] == 1 && f.nl == n.paths[pi].n || n.distinctPath(f) {
		if old >= 0 {
			n.fixedAt[old]--
		}
		if l >= 0 {
			n.fixedAt[l]++
		}
		n.bneck[fi] = l
		return
	}
	for _, k := range n.flinks(f) {
		if k == old {
			n.fixedAt[old]--
		}
		if k == l {
			n.fixedAt[l]++
		}
	}
	n.bneck[fi] = l
}

// distinctPath tells whether flow f runs its whole cached path and the
// path's constraints are all different, working that out once per path
// (system.distinct).
func (n *Network) distinctPath(f *flowRec) bool {
	pi := f.path
	if pi < 0 {
		return false
	}
	p := &n.paths[pi]
	if f.nl != p.n {
		return false // its links were dropped (nothing to carry)
	}
	d := &n.sys.distinct
	if int(pi) >= len(*d) {
		*d = append(*d, make([]uint8, len(n.paths)-len(*d))...)
	}
	switch (*d)[pi] {
	case 1:
		return true
	case 2:
		return false
	}
	links := n.flinks(f)
	(*d)[pi] = 1
	for k, l := range links {
		if slices.Contains(links[k+1:], l) {
			(*d)[pi] = 2
			break
		}
	}
	return (*d)[pi] == 1
}

// ctBit is the crosstraffic bit of an element of fLink or lFlow: the
// top bit when the element is on the way back (it consumes the
// crosstraffic share of the flow's rate, not all of it). Kept in the
// number rather than as a coefficient beside it, it spares the solver
// 8 bytes an element in each list (at 65,536 ranks a solve can have a
// million elements) and the recalled systems a pass to decode.
func ctBit(back bool) int32 {
	if back {
		return math.MinInt32
	}
	return 0
}

// ctOf is the index in system.coef of an element's coefficient: 1 when
// its crosstraffic bit is set.
func ctOf(x int32) uint32 {
	return uint32(x) >> 31
}

// linkID is the constraint id of the solve's link j; -1 for -1.
func (s *system) linkID(j int32) int32 {
	if j < 0 {
		return -1
	}
	return s.id[j]
}

// fmin and fmax are min and max for the solver's numbers, which are
// never NaN: the builtins' NaN and signed-zero handling costs a few
// instructions in its innermost loops.
func fmin(a, b float64) float64 {
	if b < a {
		return b
	}
	return a
}

func fmax(a, b float64) float64 {
	if b > a {
		return b
	}
	return a
}

// grow returns s with length n, reusing its array when it is large
// enough; the contents are the caller's to set.
func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return withRoom(s[:0], n+n/4)[:n]
	}
	return s[:n]
}

// fill is the weighted max-min allocation by progressive filling: every
// unfixed flow f runs at level/p_f; the level rises until a link is
// saturated (its flows are fixed there) or a flow reaches its bound (it is
// fixed at the bound), and so on until every flow is fixed.
func (s *system) fill() {
	// The links that can still saturate, in order: each step scans them
	// only, dropping those done (a link whose flows are all fixed, or
	// whose usage rounding took to 0, stays so), rather than all of the
	// system's. Local copies of the slices, as in build.
	ratio, fixed, level, w := s.ratio[:len(s.id)], s.fixed[:len(s.slot)], s.level[:len(s.slot)], s.w
	lOff, lFlow := s.lOff, s.lFlow
	live := withRoom(s.live[:0], len(ratio))
	for j, r := range ratio {
		if !math.IsInf(r, 1) {
			live = append(live, int32(j))
		}
	}
	// The flows not fixed yet, in order, and how many; xb is the lowest
	// bound level among them and nxb the number of them at xb. Fixing
	// flows only takes levels away, so xb stays the lowest while a flow
	// at it is left: the flows are scanned again (and the list of those
	// left compacted) only when the last flow at xb is fixed, not at
	// every step. Levels repeat (a flow's bound is its route's slowest
	// link, its penalty its route's latency: on a crossbar every flow's
	// level is the same), so that is rare.
	if s.fatShare {
		s.fatSat = grow(s.fatSat, len(ratio))
	}
	open := withRoom(s.open[:0], len(s.slot))
	for i := range s.slot {
		open = append(open, int32(i))
	}
	left, xb, nxb := len(open), math.Inf(1), 0
	for left > 0 {
		x := math.Inf(1)
		k := 0
		for _, j := range live {
			if r := ratio[j]; !math.IsInf(r, 1) {
				live[k] = j
				k++
				x = fmin(x, r)
			}
		}
		live = live[:k]
		if nxb == 0 {
			xb = math.Inf(1)
			k = 0
			for _, i := range open {
				if !fixed[i] {
					open[k] = i
					k++
					if l := level[i]; l < xb {
						xb, nxb = l, 1
					} else if l == xb {
						nxb++
					}
				}
			}
			open = open[:k]
		}
		if xb < x || math.IsInf(x, 1) {
			if math.IsInf(xb, 1) {
				// Neither a link nor a bound limits what is left:
				// cannot happen with finite bandwidths.
				for _, i := range open {
					if !fixed[i] {
						s.fix(int(i), 0, -1)
					}
				}
				break
			}
			thr := xb * (1 + boundTol)
			for _, i := range open {
				if l := level[i]; !fixed[i] && l <= thr {
					s.fix(int(i), s.bound[i], -1)
					left--
					if l == xb {
						nxb--
					}
				}
			}
			continue
		}
		thr := x * (1 + levelTol)
		if s.fatShare {
			// A fatpipe saturated at this level fixes all its flows
			// here, even those another link fixes first (SimGrid
			// lists the saturated constraints before fixing any
			// variable): so it is chosen now, before fixing takes its
			// flows away and raises its level.
			for _, j := range live {
				s.fatSat[j] = s.fat[j] && ratio[j] <= thr
			}
		}
		for _, j := range live {
			if s.fatShare && s.fat[j] {
				if !s.fatSat[j] {
					continue
				}
				s.fatSat[j] = false
			} else if ratio[j] > thr {
				continue
			}
			for _, e := range lFlow[lOff[j]:lOff[j+1]] {
				if i := e & math.MaxInt32; !fixed[i] {
					s.fix(int(i), x*w[i], j)
					left--
					if level[i] == xb {
						nxb--
					}
				}
			}
		}
	}
	s.live, s.open = live, open[:0]
}

// fix sets flow i's rate, fixed at link j (-1: its bound), and takes it
// off its links' remaining capacity.
func (s *system) fix(i int, v float64, j int32) {
	s.val[i], s.fixed[i], s.at[i] = v, true, j
	w := s.w[i]
	a, b := s.fOff[i], s.fOff[i+1]
	fLink, coef := s.fLink[a:b], s.coef
	// The four per-link slices cut to one length: one bounds check a
	// use rather than four.
	ratio := s.ratio
	rem, usage, unfixed := s.rem[:len(ratio)], s.usage[:len(ratio)], s.unfixed[:len(ratio)]
	for _, x := range fLink {
		j, c := x&math.MaxInt32, coef[ctOf(x)]
		if s.fatShare && s.fat[j] {
			unfixed[j]--
			if c*w == usage[j] {
				if s.fatMax[j]--; s.fatMax[j] == 0 {
					usage[j], s.fatMax[j] = s.fatUsage(int(j))
				}
			}
			ratio[j] = math.Inf(1)
			if unfixed[j] > 0 && usage[j] > 0 {
				ratio[j] = rem[j] / usage[j]
			}
			continue
		}
		rem[j] = fmax(rem[j]-float64(c*v), 0)
		usage[j] -= float64(c * w)
		unfixed[j]--
		if !math.IsInf(ratio[j], 1) {
			ratio[j] = math.Inf(1)
			if unfixed[j] > 0 && usage[j] > 0 {
				ratio[j] = rem[j] / usage[j]
			}
		}
	}
}

// fatUsage is fatpipe j's usage under fatShare: the largest c·w of its
// unfixed flows (0 when none is left), and how many uses have it.
func (s *system) fatUsage(j int) (float64, int32) {
	u, n := 0.0, int32(0)
	for _, x := range s.lFlow[s.lOff[j]:s.lOff[j+1]] {
		if i := x & math.MaxInt32; !s.fixed[i] {
			switch cw := s.coef[ctOf(x)] * s.w[i]; {
			case cw > u:
				u, n = cw, 1
			case cw == u:
				n++
			}
		}
	}
	return u, n
}

// reschedule gives flow fi, whose rate a solve has set, its completion
// time and its place in the heap, unless its rate did not change.
func (n *Network) reschedule(fi int32, now des.Time) {
	f := &n.flows[fi]
	if f.value == f.prev && f.finish != des.Never {
		return // same rate: same completion time
	}
	f.finish = n.finishTime(f, now)
	if hi := n.hpos[fi]; hi < 0 {
		n.heapPush(fi)
	} else {
		n.heapFix(int(hi))
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
