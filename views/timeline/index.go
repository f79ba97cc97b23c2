package timeline

import (
	"math"
	"math/bits"
	"runtime"
	"slices"
	"sort"
	"sync"
	"unsafe"

	tea "charm.land/bubbletea/v2"

	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/views/derived"
)

// An index holds what the Timeline needs to draw one version of a trace
// (original or alternative times) in time proportional to the number of
// cells rather than the number of events: per rank, the rank's flattened
// state segments, its state intervals grouped by state (for the legend's
// counts and totals), its point-to-point events in time order (for
// arrows), and a multi-resolution summary (for zoomed-out views). It is
// built once per trace and never changes, so frames only read it; the
// index of a trace's own times is shared by every session showing the
// trace (sharedIndex), so nothing may write to it after newIndex.
type index struct {
	tr *tracefmt.Trace
	// timed is false for untimed traces, whose pseudo-time is the event's
	// position in its rank's stream.
	timed bool
	// start and end bound the trace; end > start even for a trace whose
	// events share one timestamp, so that widths never divide by zero.
	start, end float64
	ranks      []rankIndex
	// states lists the states that occur, in id order: the legend's rows.
	states []int32
}

// seg is a stretch of time a rank spends in one state, the innermost of
// the states open at that time. Segments of a rank do not overlap.
type seg struct {
	t0, t1 float64
	state  int32
	// enter is the index of the state's enter event.
	enter int32
}

// runs are the intervals of one state on one rank, sorted by start, with
// prefix sums of their durations: the count and time in any window take
// two binary searches.
type runs struct {
	state  int32
	starts []float64
	// cum[i] is the total duration of the first i intervals.
	cum []float64
	// fence holds every fenceStep-th start, for searchStarts.
	fence []float64
}

// bin is one cell of the multi-resolution summary: the three states that
// fill most of the bin (state id + 1, 0 for none) with the fraction of the
// bin each fills (in 1/65535ths: drawing needs no more), and the messages
// sent and received in the bin (saturating: marks need only presence).
// Keeping three states lets a hidden state give way to the next one. 24
// bytes.
type bin struct {
	st           [3]int32
	fr           [3]uint16
	sends, recvs uint16
}

// frScale converts a fraction of a bin to bin.fr units.
const frScale = math.MaxUint16

// frac returns entry i's fraction of the bin.
func (b *bin) frac(i int) float64 { return float64(b.fr[i]) / frScale }

// rankIndex is the index of one rank.
type rankIndex struct {
	segs []seg
	runs []runs // sorted by state
	// sends and recvs are event indices in time order.
	sends, recvs []int32
	// sendFence and recvFence hold the time of every fenceStep-th entry
	// of sends and recvs: a search for a time looks there first, in a
	// few contiguous cache lines, and then among fenceStep entries only,
	// instead of probing the trace's events (a cache miss each) all the
	// way down. The Timeline's message counts search every rank's lists
	// on every pan and zoom.
	sendFence, recvFence []float64
	// marks are the marker events (MPE user events), in time order.
	marks []int32
	// levels[k] has len(levels[0])>>k bins of width w0<<k from the trace
	// start.
	levels [][]bin
	w0     float64
	// sorted says the rank's events are in time order, so that searches
	// can start at a time by binary search.
	sorted bool
}

// time returns the (pseudo-)time of event i of rank r.
func (ix *index) time(r, i int) float64 {
	if ix.timed {
		return ix.tr.Ranks[r].Events[i].Time
	}
	return float64(i)
}

// arrowTime is where an arrow leaves or reaches event ref: a send's
// physical time (when its data left, which Paraver records apart from the
// call) and a receive's own time (the arrival).
func (ix *index) arrowTime(ref tracefmt.EventRef) float64 {
	t := ix.time(int(ref.Rank), int(ref.Index))
	if ix.timed && ix.tr.Event(ref).Kind == tracefmt.KindSend {
		t += ix.tr.SendDelay(ref)
	}
	return t
}

// spanOf returns the extent of tr as the Timeline draws it: like
// tr.Span, but over finite times only (a corrupt timestamp must not make
// the run infinitely long), event positions for untimed traces, and never
// empty.
func spanOf(tr *tracefmt.Trace) (start, end float64) {
	if tr.Timed {
		start, end = math.Inf(1), math.Inf(-1)
		for r := range tr.Ranks {
			for i := range tr.Ranks[r].Events {
				if t := tr.Ranks[r].Events[i].Time; !math.IsInf(t, 0) && !math.IsNaN(t) {
					start, end = min(start, t), max(end, t)
				}
			}
		}
		if start > end {
			start, end = 0, 0
		}
	} else {
		for r := range tr.Ranks {
			end = max(end, float64(len(tr.Ranks[r].Events)))
		}
	}
	if !(end > start) || math.IsInf(end-start, 0) {
		// One timestamp (or none): give the run a nominal width of one
		// unit so that it still shows. (A span too wide for float64 is
		// cut to the same.)
		end = start + max(1, math.Abs(start)*1e-9)
	}
	return start, end
}

// buildJob is an index being built off the event loop.
type buildJob struct {
	tr   *tracefmt.Trace
	done chan struct{} // closed when ix is set
	ix   *index
}

// indexKind names the index of a trace's own times in a derived.Cache.
const indexKind = "timeline.index"

// sharedIndex returns the index of tr's own times from c, building it if
// no session holds it; with a nil c, a private one. Alternative times are
// per session and never go through it.
func sharedIndex(c *derived.Cache, tr *tracefmt.Trace) *index {
	return derived.Get(c, tr, indexKind, func() *index { return newIndex(tr) })
}

// startBuild starts getting the index of tr from c in a goroutine: a
// session opening a trace whose index another session is building waits
// for that build instead of starting its own.
func startBuild(c *derived.Cache, tr *tracefmt.Trace) *buildJob {
	j := &buildJob{tr: tr, done: make(chan struct{})}
	go func() {
		j.ix = sharedIndex(c, tr)
		close(j.done)
	}()
	return j
}

// ready reports whether the index is built.
func (j *buildJob) ready() bool {
	select {
	case <-j.done:
		return true
	default:
		return false
	}
}

// builtMsg says that a buildJob has finished.
type builtMsg struct{ job *buildJob }

// wait returns a command that reports when the index is built.
func (j *buildJob) wait() tea.Cmd {
	return func() tea.Msg {
		<-j.done
		return builtMsg{j}
	}
}

// newIndex builds the index of tr, ranks in parallel.
func newIndex(tr *tracefmt.Trace) *index {
	ix := &index{tr: tr, timed: tr.Timed, ranks: make([]rankIndex, len(tr.Ranks))}
	ix.start, ix.end = spanOf(tr)
	workers := max(1, min(runtime.GOMAXPROCS(0), len(tr.Ranks)))
	var wg sync.WaitGroup
	next := make(chan int)
	for range workers {
		wg.Go(func() {
			for r := range next {
				ix.buildRank(r)
			}
		})
	}
	for r := range tr.Ranks {
		next <- r
	}
	close(next)
	wg.Wait()
	seen := make([]bool, len(tr.States))
	for r := range ix.ranks {
		for _, ru := range ix.ranks[r].runs {
			if int(ru.state) < len(seen) {
				seen[ru.state] = true
			}
		}
	}
	for s, ok := range seen {
		if ok {
			ix.states = append(ix.states, int32(s))
		}
	}
	return ix
}

// buildRank fills ix.ranks[r]. A first pass counts, so that the second
// allocates every slice once at its final size: for 10 M events, growing
// slices by appending would allocate several times the index's size.
func (ix *index) buildRank(r int) {
	ev := ix.tr.Ranks[r].Events
	ri := &ix.ranks[r]
	nst := len(ix.tr.States)
	perState := make([]int, nst)
	nEnter, nSend, nRecv, nMark := 0, 0, 0, 0
	ri.sorted = true
	for i := range ev {
		e := &ev[i]
		if i > 0 && e.Time < ev[i-1].Time {
			ri.sorted = false
		}
		switch e.Kind {
		case tracefmt.KindEnter:
			if e.Match >= 0 && int(e.Match) < len(ev) && e.Peer >= 0 && int(e.Peer) < nst {
				perState[e.Peer]++
				nEnter++
			}
		case tracefmt.KindSend:
			nSend++
		case tracefmt.KindRecv:
			nRecv++
		case tracefmt.KindMarker:
			nMark++
		}
	}
	ri.segs = make([]seg, 0, nEnter)
	ri.sends = make([]int32, 0, nSend)
	ri.recvs = make([]int32, 0, nRecv)
	ri.marks = make([]int32, 0, nMark)
	byState := make([]int, nst) // state → position in ri.runs
	for s, n := range perState {
		if n > 0 {
			byState[s] = len(ri.runs)
			ri.runs = append(ri.runs, runs{state: int32(s), starts: make([]float64, 0, n), cum: make([]float64, 1, n+1)})
		}
	}
	var stack []int32 // enter indices of the open states, innermost last
	var open float64  // start of the innermost open state's current segment
	emit := func(enter int32, t0, t1 float64) {
		if t1 < t0 {
			t1 = t0 // a clock running backwards: keep the segment, empty
		}
		ri.segs = append(ri.segs, seg{t0: t0, t1: t1, state: ev[enter].Peer, enter: enter})
	}
	sorted := true
	for i := range ev {
		e := &ev[i]
		t := ix.time(r, i)
		switch e.Kind {
		case tracefmt.KindEnter:
			if e.Match < 0 || int(e.Match) >= len(ev) || e.Peer < 0 || int(e.Peer) >= nst {
				continue // never left: no interval to draw
			}
			ru := &ri.runs[byState[e.Peer]]
			if n := len(ru.starts); n > 0 && ru.starts[n-1] > t {
				sorted = false
			}
			ru.starts = append(ru.starts, t)
			ru.cum = append(ru.cum, ru.cum[len(ru.cum)-1]+max(ix.time(r, int(e.Match))-t, 0))
			if n := len(stack); n > 0 {
				emit(stack[n-1], open, t)
			}
			stack = append(stack, int32(i))
			open = t
		case tracefmt.KindLeave:
			if e.Match < 0 {
				continue
			}
			k := slices.Index(stack, e.Match)
			switch {
			case k < 0:
			case k == len(stack)-1:
				emit(stack[k], open, t)
				stack = stack[:k]
				open = t
			default:
				// Badly nested: an outer state ends first. Drop it; the
				// inner one goes on being drawn.
				stack = slices.Delete(stack, k, k+1)
			}
		case tracefmt.KindSend:
			ri.sends = append(ri.sends, int32(i))
		case tracefmt.KindRecv:
			ri.recvs = append(ri.recvs, int32(i))
		case tracefmt.KindMarker:
			ri.marks = append(ri.marks, int32(i))
		}
	}
	if !sorted {
		// Clocks that run backwards: sort each state's intervals by start
		// and sum again.
		for k := range ri.runs {
			ru := &ri.runs[k]
			type iv struct{ start, dur float64 }
			ivs := make([]iv, len(ru.starts))
			for i := range ivs {
				ivs[i] = iv{ru.starts[i], ru.cum[i+1] - ru.cum[i]}
			}
			slices.SortStableFunc(ivs, func(a, b iv) int { return cmpFloat(a.start, b.start) })
			for i, v := range ivs {
				ru.starts[i] = v.start
				ru.cum[i+1] = ru.cum[i] + v.dur
			}
		}
	}
	if !slices.IsSortedFunc(ri.segs, func(a, b seg) int { return cmpFloat(a.t0, b.t0) }) {
		slices.SortStableFunc(ri.segs, func(a, b seg) int { return cmpFloat(a.t0, b.t0) })
	}
	byTime := func(a, b int32) int { return cmpFloat(ix.time(r, int(a)), ix.time(r, int(b))) }
	if !slices.IsSortedFunc(ri.sends, byTime) {
		slices.SortStableFunc(ri.sends, byTime)
	}
	if !slices.IsSortedFunc(ri.recvs, byTime) {
		slices.SortStableFunc(ri.recvs, byTime)
	}
	if !slices.IsSortedFunc(ri.marks, byTime) {
		slices.SortStableFunc(ri.marks, byTime)
	}
	for k := range ri.runs {
		ru := &ri.runs[k]
		ru.fence = make([]float64, 0, (len(ru.starts)+fenceStep-1)/fenceStep)
		for i := 0; i < len(ru.starts); i += fenceStep {
			ru.fence = append(ru.fence, ru.starts[i])
		}
	}
	ri.sendFence = ix.fence(r, ri.sends)
	ri.recvFence = ix.fence(r, ri.recvs)
	ri.segs = slices.Clip(ri.segs)
	ix.buildLevels(r)
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// binsPerItem sets the finest level's resolution: about one bin per 16
// segments or messages. Samples narrower than a bin are drawn from the
// segments themselves, about 16 or fewer a sample on average.
const binsPerItem = 16

// maxLevel0 bounds the finest level (4 Mi bins, 96 MiB) for pathological
// ranks.
const maxLevel0 = 1 << 22

// buildLevels builds the multi-resolution summary of rank r: level 0 from
// the segments and messages, each coarser level by merging pairs.
func (ix *index) buildLevels(r int) {
	ri := &ix.ranks[r]
	items := len(ri.segs) + len(ri.sends) + len(ri.recvs)
	n := 1
	if items > binsPerItem {
		n = 1 << bits.Len(uint(items/binsPerItem-1))
	}
	n = min(n, maxLevel0)
	ri.w0 = (ix.end - ix.start) / float64(n)
	l0 := make([]bin, n)
	var acc accum
	cur := -1
	flush := func() {
		if cur >= 0 {
			for _, a := range l0[cur].entries() {
				acc.add(a.st, a.t)
			}
			l0[cur].setTop(&acc, 1)
		}
		acc.reset()
	}
	binOf := func(t float64) int {
		b := int((t - ix.start) / ri.w0)
		return min(max(b, 0), n-1)
	}
	for _, s := range ri.segs {
		b0, b1 := binOf(s.t0), binOf(s.t1)
		for b := b0; b <= b1; b++ {
			if b != cur {
				flush()
				cur = b
			}
			lo := ix.start + float64(b)*ri.w0
			ov := min(s.t1, lo+ri.w0) - max(s.t0, lo)
			if ov > 0 {
				acc.add(s.state+1, ov/ri.w0)
			}
		}
	}
	flush()
	for _, i := range ri.sends {
		b := &l0[binOf(ix.time(r, int(i)))]
		b.sends = satAdd(b.sends, 1)
	}
	for _, i := range ri.recvs {
		b := &l0[binOf(ix.time(r, int(i)))]
		b.recvs = satAdd(b.recvs, 1)
	}
	ri.levels = [][]bin{l0}
	for prev := l0; len(prev) > 1; {
		next := make([]bin, len(prev)/2)
		for i := range next {
			acc.reset()
			for _, c := range [2]*bin{&prev[2*i], &prev[2*i+1]} {
				for _, a := range c.entries() {
					acc.add(a.st, a.t/2)
				}
				next[i].sends = satAdd(next[i].sends, c.sends)
				next[i].recvs = satAdd(next[i].recvs, c.recvs)
			}
			next[i].setTop(&acc, 1)
		}
		ri.levels = append(ri.levels, next)
		prev = next
	}
}

func satAdd(a, b uint16) uint16 {
	if s := a + b; s >= a {
		return s
	}
	return math.MaxUint16
}

// stateTime is an amount of time (or of a bin's width) spent in a state,
// the state as id + 1.
type stateTime struct {
	st int32
	t  float64
}

// accum sums time per state over a few entries (a sample spans at most a
// handful of bins or segments, so a slice beats a map).
type accum struct {
	e []stateTime
}

func (a *accum) reset() { a.e = a.e[:0] }

func (a *accum) add(st int32, t float64) {
	for i := range a.e {
		if a.e[i].st == st {
			a.e[i].t += t
			return
		}
	}
	a.e = append(a.e, stateTime{st, t})
}

// best returns the state (id + 1) with the most time that is not hidden,
// and its time; 0 when there is none.
func (a *accum) best(hidden []bool) (int32, float64) {
	var st int32
	bt := -1.0
	for _, e := range a.e {
		s := e.st - 1
		if s >= 0 && int(s) < len(hidden) && hidden[s] {
			continue
		}
		if e.t > bt {
			st, bt = e.st, e.t
		}
	}
	return st, max(bt, 0)
}

// entries returns the bin's states with their fractions.
func (b *bin) entries() []stateTime {
	var out [3]stateTime
	n := 0
	for i, s := range b.st {
		if s != 0 {
			out[n] = stateTime{s, b.frac(i)}
			n++
		}
	}
	return out[:n]
}

// setTop stores the three largest entries of acc, scaled by k.
func (b *bin) setTop(acc *accum, k float64) {
	b.st, b.fr = [3]int32{}, [3]uint16{}
	for _, e := range acc.e {
		t := uint16(min(max(e.t*k, 0), 1)*frScale + 0.5)
		for i := range 3 {
			if b.st[i] == 0 || t > b.fr[i] {
				copy(b.st[i+1:], b.st[i:2])
				copy(b.fr[i+1:], b.fr[i:2])
				b.st[i], b.fr[i] = e.st, t
				break
			}
		}
	}
}

// sampleRow fills out with the states (id + 1, 0 for none) that fill
// most of each of len(out) samples of width sw from a on rank r, ignoring
// hidden states. It reads the summary level whose bins are at most a
// sample wide, or the segments when no level is that fine, walking either
// once from left to right: its cost is the samples plus the bins or
// segments in the window, not the size of the trace.
func (ix *index) sampleRow(r int, a, sw float64, out []int32, hidden []bool, acc *accum) {
	ri := &ix.ranks[r]
	if sw < ri.w0 || len(ri.levels) == 0 {
		segs := ri.segs
		j := sort.Search(len(segs), func(i int) bool { return segs[i].t0 >= a })
		if j > 0 && segs[j-1].t1 > a {
			j--
		}
		for k := range out {
			lo, hi := a+float64(k)*sw, a+float64(k+1)*sw
			for j < len(segs) && segs[j].t1 < lo {
				j++
			}
			acc.reset()
			for q := j; q < len(segs) && segs[q].t0 < hi; q++ {
				s := &segs[q]
				acc.add(s.state+1, max(min(s.t1, hi)-max(s.t0, lo), 0))
			}
			out[k], _ = acc.best(hidden)
		}
		return
	}
	// Bins at most a sample wide: two or three to a sample, weighted by
	// how much of each the sample covers.
	lvl := min(bits.Len(uint(sw/ri.w0))-1, len(ri.levels)-1)
	lv := ri.levels[lvl]
	inv := 1 / (ri.w0 * float64(int(1)<<lvl))
	for k := range out {
		f0 := (a + float64(k)*sw - ix.start) * inv // sample edges in bins
		f1 := f0 + sw*inv
		i0 := max(int(f0), 0)
		i1 := min(int(math.Ceil(f1)), len(lv))
		// When one state leads every bin the sample touches, it leads
		// the sample: no need to add anything up.
		if i0 < i1 {
			top := lv[i0].st[0]
			same := top != 0 && !(int(top-1) < len(hidden) && hidden[top-1])
			for i := i0 + 1; same && i < i1; i++ {
				same = lv[i].st[0] == top
			}
			if same {
				out[k] = top
				continue
			}
		}
		acc.reset()
		for i := i0; i < i1; i++ {
			ov := min(f1, float64(i+1)) - max(f0, float64(i))
			if ov <= 0 {
				continue
			}
			b := &lv[i]
			for e := range b.st {
				if b.st[e] != 0 {
					acc.add(b.st[e], b.frac(e)*ov)
				}
			}
		}
		out[k], _ = acc.best(hidden)
	}
}

// msgCounts returns the number of sends and receives of rank r in [a, b]
// (closed, so that a window on the whole run counts its last event).
func (ix *index) msgCounts(r int, a, b float64) (sends, recvs int) {
	ri := &ix.ranks[r]
	b = math.Nextafter(b, math.Inf(1))
	s0, s1 := ix.fencedRange(r, ri.sends, ri.sendFence, a, b)
	r0, r1 := ix.fencedRange(r, ri.recvs, ri.recvFence, a, b)
	return s1 - s0, r1 - r0
}

// searchStarts returns the position of the first interval starting at or
// after t, as sort.SearchFloat64s(ru.starts, t) does, probing the fence
// first: a long run's starts span many cache lines, its fence few.
func (ru *runs) searchStarts(t float64) int {
	k := sort.SearchFloat64s(ru.fence, t)
	lo, hi := 0, len(ru.starts)
	if k > 0 {
		lo = (k-1)*fenceStep + 1
	}
	if k < len(ru.fence) {
		hi = k * fenceStep
	}
	return lo + sort.SearchFloat64s(ru.starts[lo:hi], t)
}

// fenceStep is the number of list entries between two fence times.
const fenceStep = 32

// fence returns the times of every fenceStep-th entry of list (time-sorted
// event indices of rank r).
func (ix *index) fence(r int, list []int32) []float64 {
	f := make([]float64, 0, (len(list)+fenceStep-1)/fenceStep)
	for i := 0; i < len(list); i += fenceStep {
		f = append(f, ix.time(r, int(list[i])))
	}
	return f
}

// fencedRange is rangeIn on a whole list of rank r with its fence: the
// same positions, found with fewer probes of the trace's events.
func (ix *index) fencedRange(r int, list []int32, fence []float64, a, b float64) (lo, hi int) {
	lo = ix.fencedSearch(r, list, fence, a)
	if b <= a {
		return lo, lo
	}
	return lo, ix.fencedSearch(r, list, fence, b)
}

// fencedSearch returns the position of the first entry of list at or
// after t. Entry k·fenceStep has time fence[k]: the first fence at or
// after t bounds the position from above and the one before it from
// below, so only the entries between them are probed.
func (ix *index) fencedSearch(r int, list []int32, fence []float64, t float64) int {
	k := sort.SearchFloat64s(fence, t)
	lo, hi := 0, len(list)
	if k > 0 {
		lo = (k-1)*fenceStep + 1
	}
	if k < len(fence) {
		hi = k * fenceStep
	}
	return lo + sort.Search(hi-lo, func(i int) bool { return ix.time(r, int(list[lo+i])) >= t })
}

// rangeIn returns the positions in list of the events in [a, b).
func (ix *index) rangeIn(r int, list []int32, a, b float64) (lo, hi int) {
	lo = sort.Search(len(list), func(i int) bool { return ix.time(r, int(list[i])) >= a })
	hi = lo + sort.Search(len(list)-lo, func(i int) bool { return ix.time(r, int(list[lo+i])) >= b })
	return lo, hi
}

// stateStats returns the number of intervals of each state that overlap
// [a, b) on rank r and the time they spend in it, adding to count and
// total (indexed by state id).
func (ix *index) stateStats(r int, a, b float64, count []int, total []float64) {
	for _, ru := range ix.ranks[r].runs {
		if int(ru.state) >= len(count) {
			continue
		}
		n := len(ru.starts)
		i0 := ru.searchStarts(a)
		i1 := max(i0, ru.searchStarts(b))
		c := i1 - i0
		t := ru.cum[i1] - ru.cum[i0]
		if c > 0 {
			// The last interval may run past b.
			last := i1 - 1
			if end := ru.starts[last] + ru.cum[last+1] - ru.cum[last]; end > b {
				t -= end - b
			}
		}
		if i0 > 0 && i0 <= n {
			// The interval before a may run into the window.
			p := i0 - 1
			if end := ru.starts[p] + ru.cum[p+1] - ru.cum[p]; end > a {
				c++
				t += min(end, b) - a
			}
		}
		count[ru.state] += c
		total[ru.state] += t
	}
}

// segAt returns the position of the segment of rank r that holds time t,
// or of the nearest one within tol; -1 when there is none.
func (ix *index) segAt(r int, t, tol float64) int {
	segs := ix.ranks[r].segs
	j := sort.Search(len(segs), func(i int) bool { return segs[i].t0 > t })
	best, bd := -1, math.Inf(1)
	for _, k := range [2]int{j - 1, j} {
		if k < 0 || k >= len(segs) {
			continue
		}
		if d := max(segs[k].t0-t, t-segs[k].t1, 0); d < bd {
			best, bd = k, d
		}
	}
	if bd > tol {
		return -1
	}
	return best
}

// memory returns the bytes the index holds beyond the trace.
func (ix *index) memory() int {
	n := 0
	for r := range ix.ranks {
		ri := &ix.ranks[r]
		n += cap(ri.segs)*24 + (cap(ri.sends)+cap(ri.recvs)+cap(ri.marks))*4
		n += (cap(ri.sendFence) + cap(ri.recvFence)) * 8
		for _, ru := range ri.runs {
			n += (cap(ru.starts) + cap(ru.cum) + cap(ru.fence)) * 8
		}
		for _, lv := range ri.levels {
			n += cap(lv) * int(unsafe.Sizeof(bin{}))
		}
	}
	return n
}
