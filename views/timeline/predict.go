package timeline

import (
	"math"
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/tracesim/tracesim/engine/analysis"
	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/views/cellbuf"
)

// viewMode says which runs the Timeline shows: the loaded (recorded)
// trace, a simulated replay of it (the prediction), or both, each rank as
// two rows on one time axis.
type viewMode uint8

const (
	modeRecorded viewMode = iota
	modePredicted
	modeBoth
)

var modeNames = [...]string{"recorded", "predicted", "both"}

// other is the run the view does not draw as its primary: the prediction
// while the recorded trace is primary, the recorded trace while the
// prediction is (mode predicted). Swapping it with the primary lets every
// drawing and navigation function work on either run.
type other struct {
	tr    *tracefmt.Trace
	ix    *index
	sel   selection
	arrow []drawnArrow
}

// prediction is a simulated replay of the loaded trace, with its own
// events, shown beside or instead of the recorded run.
type prediction struct {
	label string
	// corr pairs the recorded trace's events (a) with the prediction's (b).
	corr *tracefmt.Correspondence
	// shift is each rank's predicted finish minus its recorded finish,
	// both relative to their run's start, in seconds (NaN for untimed
	// recorded traces).
	shift []float64
}

// predReadyMsg carries a prediction's index and correspondence built by
// predCmd; base tells whether it is still wanted when it arrives.
type predReadyMsg struct {
	tr, base *tracefmt.Trace
	ix       *index
	corr     *tracefmt.Correspondence
	shift    []float64 // analysis.FinishShift(base, tr), worked out with the index
	label    string
	gen      int
}

// predCmd returns the command that indexes a prediction off the event
// loop; nil withdraws the current one.
func (m *Model) predCmd(tr *tracefmt.Trace, label string) tea.Cmd {
	m.withdrawPred()
	if tr == nil || m.rec() == nil {
		return nil
	}
	if len(tr.Ranks) != len(m.rec().Ranks) {
		m.status = "prediction ignored: it has " + strconv.Itoa(len(tr.Ranks)) + " ranks, the trace " + strconv.Itoa(len(m.rec().Ranks))
		return nil
	}
	m.status = "building the timeline of " + label + "…"
	gen, base := m.altGen, m.rec()
	return func() tea.Msg {
		return predReadyMsg{tr: tr, base: base, ix: newIndex(tr), corr: tracefmt.Correspond(base, tr), shift: analysis.FinishShift(base, tr), label: label, gen: gen}
	}
}

// SetPredicted gives the Timeline a simulated replay of the loaded trace
// (label names it: "sim #1 · packet torus:4x4") and shows it beside the
// recorded run, or alone when the recorded trace is untimed. A nil trace
// withdraws it. It indexes the replay before it returns; Update handles
// component.AltTraceMsg with Predicted set without blocking.
func (m *Model) SetPredicted(tr *tracefmt.Trace, label string) {
	cmd := m.predCmd(tr, label)
	if cmd == nil {
		return
	}
	if msg, ok := cmd().(predReadyMsg); ok {
		m.installPred(msg)
	}
}

// rec returns the recorded (loaded) trace.
func (m *Model) rec() *tracefmt.Trace {
	if m.swapped {
		return m.oth.tr
	}
	return m.tr
}

// withdrawPred drops the prediction and returns to the recorded run.
func (m *Model) withdrawPred() {
	if m.swapped {
		m.swap()
		m.clampWindow()
	}
	m.pred, m.oth, m.mode, m.lane = nil, other{}, modeRecorded, 0
	m.altGen++
	m.over, m.stats = overviewCache{}, statsCache{}
	m.memo.Invalidate()
}

// installPred shows a prediction whose index is built: both runs when the
// recorded trace is timed, the prediction alone otherwise.
func (m *Model) installPred(msg predReadyMsg) {
	if msg.gen != m.altGen || msg.base != m.rec() {
		return
	}
	m.pred = &prediction{label: msg.label, corr: msg.corr}
	m.oth = other{tr: msg.tr, ix: msg.ix}
	m.growHidden(len(msg.tr.States))
	m.pred.shift = msg.shift
	m.status = ""
	if m.tr.Timed {
		m.setMode(modeBoth)
	} else {
		m.setMode(modePredicted)
	}
	m.pushHistory()
	m.fit()
	m.memo.Invalidate()
}

// growHidden makes the hidden-state flags cover n states (a prediction
// adds states, such as Compute, after the recorded trace's own).
func (m *Model) growHidden(n int) {
	for len(m.hidden) < n {
		m.hidden = append(m.hidden, false)
	}
}

// swap exchanges the primary run with the other one: the trace, its
// index, the selection and the drawn arrows, and the window and cursor in
// the other run's units.
func (m *Model) swap() {
	conv := m.convToOther()
	m.a, m.b, m.cur = conv(m.a), conv(m.b), conv(m.cur)
	m.tr, m.oth.tr = m.oth.tr, m.tr
	m.orig, m.oth.ix = m.oth.ix, m.orig
	m.sel, m.oth.sel = m.oth.sel, m.sel
	m.arrows, m.oth.arrow = m.oth.arrow, m.arrows
	m.swapped = !m.swapped
}

// convToOther returns the function that takes a time of the primary run to
// the other run's units: the same time since the run's start.
func (m *Model) convToOther() func(float64) float64 { return convTimes(m.ix(), m.oth.ix) }

// convFromOther returns the function that takes a time of the other run
// to the primary run's units (the inverse of convToOther).
func (m *Model) convFromOther() func(float64) float64 { return convTimes(m.oth.ix, m.ix()) }

// convTimes returns the function that takes a time of run p to run o's
// units: the same time since the run's start. Between an untimed run and a
// timed one there is no common axis: times map by the fraction of the run.
func convTimes(p, o *index) func(float64) float64 {
	if p == nil || o == nil {
		return func(t float64) float64 { return t }
	}
	k := (o.end - o.start) / (p.end - p.start)
	if p.timed && o.timed {
		k = p.tr.Unit.Seconds() / o.tr.Unit.Seconds()
	}
	return func(t float64) float64 { return o.start + (t-p.start)*k }
}

// inOther runs fn with the other run as primary and swaps back, keeping
// the window exactly: it is how the predicted rows of the both-view are
// drawn and navigated.
func (m *Model) inOther(fn func()) {
	a, b, cur := m.a, m.b, m.cur
	m.swap()
	fn()
	m.swap()
	m.a, m.b, m.cur = a, b, cur
}

// setMode switches between the recorded run, the prediction and both,
// keeping the window's times since the run's start and the selection's
// counterpart.
func (m *Model) setMode(md viewMode) {
	if m.pred == nil {
		return
	}
	if md == modeBoth && !m.rec().Timed {
		md = modePredicted
	}
	wantSwap := md == modePredicted
	if wantSwap != m.swapped {
		m.oth.sel = m.counterpart(m.sel, !m.swapped)
		m.swap()
		m.clampWindow()
	}
	m.mode, m.lane = md, 0
	if md == modeBoth {
		m.oth.sel = m.counterpart(m.sel, true)
	}
	m.over, m.stats = overviewCache{}, statsCache{}
	m.lay = m.layout()
	m.scrollToRow()
	m.memo.Invalidate()
}

// cycleMode steps recorded → predicted → both (predicted ↔ recorded for
// untimed traces).
func (m *Model) cycleMode() {
	if m.pred == nil {
		m.status = "no prediction: run a simulation (Simulate tab, s)"
		return
	}
	next := (m.mode + 1) % viewMode(len(modeNames))
	if next == modeBoth && !m.rec().Timed {
		next = modeRecorded
	}
	m.setMode(next)
	m.status = "showing " + m.modeLabel()
}

// modeShort names what the view shows in a few words, for the status
// line.
func (m *Model) modeShort() string {
	if m.mode == modeRecorded {
		return "recorded"
	}
	if strings.HasPrefix(m.pred.label, "predicted") {
		return m.pred.label // "predicted on packet torus:4x4 …"
	}
	return modeNames[m.mode] + " · " + m.pred.label
}

// modeLabel names what the view shows.
func (m *Model) modeLabel() string {
	switch m.mode {
	case modePredicted:
		return "predicted (" + m.pred.label + ")"
	case modeBoth:
		return "recorded and predicted (" + m.pred.label + ")"
	}
	return "recorded"
}

// counterpart returns the selection in the other run that stands for s
// (fromRec: s is in the recorded trace), by rank and call order; none
// when the item has no counterpart.
func (m *Model) counterpart(s selection, fromRec bool) selection {
	if m.pred == nil || s.kind == selNone {
		return selection{}
	}
	look := m.pred.corr.AtoB
	target := m.oth.tr
	if !fromRec {
		look = m.pred.corr.BtoA
	}
	if m.swapped == fromRec {
		// The other run is the one s is in.
		target = m.tr
	}
	ref, ok := look(s.ref)
	if !ok {
		return selection{}
	}
	return selectionIn(target, ref)
}

// syncLanes keeps the two runs' selections counterparts of each other in
// the both-view, the selection of the cursor's lane leading.
func (m *Model) syncLanes() {
	if m.mode != modeBoth || m.pred == nil {
		return
	}
	if m.lane == 0 {
		if want := m.counterpart(m.sel, true); want != m.oth.sel {
			m.oth.sel = want
		}
		return
	}
	if want := m.counterpart(m.oth.sel, false); want != m.sel {
		m.sel = want
	}
}

// laneAction runs fn on the run of the cursor's lane: the predicted row
// in the both-view swaps the prediction in first.
func (m *Model) laneAction(fn func()) {
	if m.mode == modeBoth && m.lane == 1 {
		// Unlike inOther, the window follows what fn did (stepping to
		// an item off screen pans to it).
		m.swap()
		fn()
		m.swap()
		return
	}
	fn()
}

// fmtShift formats a finish shift: "+1.23ms", "-40µs", "±0".
func fmtShift(d float64) string {
	switch {
	case math.IsNaN(d):
		return ""
	case d == 0:
		return "±0"
	case d < 0:
		return "-" + fmtSeconds(-d)
	}
	return "+" + fmtSeconds(d)
}

// drawPredRows draws the predicted row of each shown rank in the
// both-view: its states, markers, messages and selection, one bar below
// the recorded one, and the rank's finish shift at the row's end.
func (m *Model) drawPredRows(p *palette) {
	l := m.lay
	m.inOther(func() {
		m.laneDY = l.bar
		defer func() { m.laneDY = 0 }()
		m.drawBars(p, false)
		m.drawMarkers(p)
		m.drawMessages(p)
		m.drawSelection(p)
	})
	for v := 0; v < l.nvis; v++ {
		i := m.top + v
		r := m.ranks[i]
		y := m.rowY(i) + l.bar
		if l.gutter > 1 {
			st := p.muted
			if i == m.row && m.lane == 1 {
				st = p.accent
				st.Attrs |= cellbuf.Reverse
			}
			buf := m.buf
			buf.SetString(l.gutter-2, y, "p", st, 1)
		}
		s := fmtShift(m.pred.shift[r])
		if s == "" {
			continue
		}
		n := len([]rune(s))
		if n+1 > l.cols {
			continue
		}
		st := p.text
		st.Attrs |= cellbuf.Reverse
		m.buf.SetString(l.x0+l.cols-n, y, s, st, n)
	}
}

// bothDetails returns the footer's description of the selection in both
// runs.
func (m *Model) bothDetails() []string {
	var out []string
	if m.sel.kind != selNone {
		out = append(out, "recorded: "+m.describe(m.sel))
	}
	if m.oth.sel.kind != selNone {
		var d string
		m.inOther(func() { d = m.describe(m.sel) })
		out = append(out, "predicted: "+d)
	} else if m.sel.kind != selNone {
		out = append(out, "predicted: no counterpart")
	}
	return out
}

// legendStates returns the states the legend lists: the run's, and in the
// both-view those of the prediction too (its Compute bursts, the calls of
// an untimed trace), in id order.
func (m *Model) legendStates() []int32 {
	own := m.ix().states
	if m.lay.lanes != 2 || m.oth.ix == nil {
		return own
	}
	return mergeIDs(own, m.oth.ix.states)
}

// mergeIDs returns the sorted union of two sorted lists.
func mergeIDs(a, b []int32) []int32 {
	out := make([]int32, 0, len(a)+len(b))
	for len(a) > 0 || len(b) > 0 {
		switch {
		case len(b) == 0 || len(a) > 0 && a[0] < b[0]:
			out, a = append(out, a[0]), a[1:]
		case len(a) == 0 || b[0] < a[0]:
			out, b = append(out, b[0]), b[1:]
		default:
			out, a, b = append(out, a[0]), a[1:], b[1:]
		}
	}
	return out
}

// stateName names state s of either run (a prediction's table extends the
// recorded trace's).
func (m *Model) stateName(s int32) string {
	if int(s) < len(m.tr.States) {
		return m.tr.States[s].Name
	}
	if m.oth.tr != nil && int(s) < len(m.oth.tr.States) {
		return m.oth.tr.States[s].Name
	}
	return "state " + strconv.Itoa(int(s))
}

// otherStateStats adds to count and total (primary units) the window's
// intervals of the states only the other run has, for the both-view's
// legend.
func (m *Model) otherStateStats(count []int, total []float64) {
	o := m.oth.ix
	if m.lay.lanes != 2 || o == nil {
		return
	}
	own := map[int32]bool{}
	for _, s := range m.ix().states {
		own[s] = true
	}
	conv, back := m.convToOther(), m.convFromOther()
	oc := make([]int, len(count))
	ot := make([]float64, len(total))
	for _, r := range m.ranks {
		o.stateStats(r, conv(m.a), conv(m.b), oc, ot)
	}
	zero := back(0)
	for s := range count {
		if !own[int32(s)] {
			count[s], total[s] = oc[s], back(ot[s])-zero
		}
	}
}
