package timeline

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/tracesim/tracesim/tracefmt/units"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/tracesim/tracesim/engine/analysis"
	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/views/cellbuf"
	"github.com/tracesim/tracesim/views/component"
	"github.com/tracesim/tracesim/views/derived"
)

// Model is the Timeline component. Create it with New.
type Model struct {
	component.Common
	keys KeyMap

	tr        *tracefmt.Trace
	orig, alt *index
	// job builds orig off the event loop for big traces; until it is
	// done the view says so, and FocusEventMsg and SetAlt wait in
	// pending*.
	job          *buildJob
	asyncEvents  int
	waiting      bool // a wait command for job is out
	pendingFocus *tracefmt.EventRef
	pendingAlt   *altRequest
	pendingPred  *altRequest
	altTrace     *tracefmt.Trace
	altLabel     string
	useAlt       bool
	cone         coneState // the causal cone display (cone.go)
	drag         dragState // a pan by dragging (drag.go)
	altGen       int
	a, b         float64 // visible window
	cur          float64 // cursor time
	history      []window
	ranks        []int // ranks shown, in order (all, or the filter's)
	pos          []int // world rank → position in ranks, -1 when filtered out
	filterText   string
	row, top     int // cursor rank and first visible rank, as positions in ranks
	hidden       []bool
	hiddenGen    int
	legend       bool // legend has the focus
	legendRow    int
	msgMode      msgMode
	sel          selection
	prompt       prompt
	query        *query
	status       string
	offX, offY   int

	buf    *cellbuf.Buffer
	memo   component.Memo // the frame, drawn again when what it shows changes
	lay    layout
	arrows []drawnArrow
	// dots and dotClass are the braille layer of arrows over the rank
	// area, a cell each; ends are the arrows' end glyphs.
	dots, dotClass []uint8
	ends           []arrowEnd
	acc            accum
	row32          []int32 // samples of one rank row
	markRow        []uint8 // message marks of one rank row
	over           overviewCache
	stats          statsCache
	msgs           msgCountCache
	// plain renders without escape sequences (golden files).
	plain bool

	// A prediction (predict.go): the view mode, the run not drawn as
	// primary, which of the two is, the cursor's lane in the both-view (1:
	// the predicted row) and the line offset of the lane being drawn.
	pred    *prediction
	oth     other
	mode    viewMode
	swapped bool
	lane    int
	laneDY  int
}

var _ component.Model = (*Model)(nil)

// window is a visible time range, kept in the zoom history.
type window struct{ a, b float64 }

// msgMode says how messages are drawn.
type msgMode uint8

const (
	msgAuto   msgMode = iota // arrows when few enough, marks otherwise
	msgArrows                // arrows always (up to a limit)
	msgMarks                 // send/receive marks
	msgOff                   // nothing
)

var msgModeNames = [...]string{"auto", "arrows", "marks", "off"}

// selKind is what the selection holds.
type selKind uint8

const (
	selNone  selKind = iota
	selState         // a state interval; ref is its enter event
	selMsg           // a message; ref is the send (or a lone receive), peer the other end
	selEvent         // another event (collective, wait, marker...)
)

// selection is the selected item, by reference so that it survives a
// switch between original and alternative times.
type selection struct {
	kind selKind
	ref  tracefmt.EventRef
	peer tracefmt.EventRef // Rank -1 when there is none
}

// asyncEvents is the size from which a trace's summary is built off the
// event loop: smaller traces take under about 50 ms, not worth a frame
// saying "building".
const asyncEvents = 1 << 20

// altRequest is alternative times waiting for the trace's own summary.
type altRequest struct {
	tr    *tracefmt.Trace
	label string
}

// New returns a Timeline of tr (nil for none) drawing in c's area. It
// builds tr's summary (about half a second of CPU for 10 M events, on as
// many cores as GOMAXPROCS allows): at once for traces under a million
// events, else in the background, started here and awaited by the
// command Init returns (or the next Update), the view saying so
// meanwhile. A direct call of Focus during the build waits for it.
func New(c component.Common, tr *tracefmt.Trace) *Model {
	return newWithAsync(c, tr, asyncEvents)
}

// newWithAsync is New with the size from which summaries are built in the
// background.
func newWithAsync(c component.Common, tr *tracefmt.Trace, async int) *Model {
	m := &Model{Common: c, keys: DefaultKeyMap(), buf: cellbuf.New(0, 0), asyncEvents: async}
	m.SetTrace(tr)
	return m
}

// Keys returns the Timeline's key map (for the application's help).
func (m *Model) Keys() KeyMap { return m.keys }

// SetTrace shows a new trace, withdraws any alternative times, and fits
// the view to the whole run. It builds the trace's summary, in the
// background for big traces (see New).
func (m *Model) SetTrace(tr *tracefmt.Trace) {
	m.pred, m.oth, m.mode, m.swapped, m.lane = nil, other{}, modeRecorded, false, 0
	m.tr, m.orig, m.alt, m.altTrace, m.altLabel, m.useAlt = tr, nil, nil, nil, "", false
	m.job, m.waiting, m.pendingFocus, m.pendingAlt, m.pendingPred = nil, false, nil, nil, nil
	m.history, m.sel, m.query, m.status, m.filterText = nil, selection{}, nil, "", ""
	m.ranks, m.row, m.top, m.legend, m.legendRow = nil, 0, 0, false, 0
	m.prompt = prompt{}
	m.over, m.stats, m.msgs = overviewCache{}, statsCache{}, msgCountCache{}
	if tr != nil {
		if tr.NumEvents() >= m.asyncEvents {
			m.job = startBuild(m.cache(), tr)
		} else {
			m.orig = sharedIndex(m.cache(), tr)
		}
		m.hidden = make([]bool, len(tr.States))
		m.ranks = make([]int, len(tr.Ranks))
		for i := range m.ranks {
			m.ranks[i] = i
		}
		m.pos = positions(m.ranks, len(tr.Ranks))
	}
	m.hiddenGen++
	m.lay = m.layout()
	m.fit()
	if m.job != nil {
		// Window already answers while the summary is built.
		m.a, m.b = spanOf(tr)
		m.cur = (m.a + m.b) / 2
	}
	m.memo.Invalidate()
}

// cache returns the session's derived-data cache, nil for none.
func (m *Model) cache() *derived.Cache {
	return m.Common.Cache()
}

// poll installs the background summary when it is built and applies what
// waited for it; it reports whether it did.
func (m *Model) poll() bool {
	if m.job == nil || !m.job.ready() {
		return false
	}
	m.orig, m.job, m.waiting = m.job.ix, nil, false
	m.over, m.stats, m.msgs = overviewCache{}, statsCache{}, msgCountCache{}
	m.fit()
	m.memo.Invalidate()
	if a := m.pendingAlt; a != nil {
		m.pendingAlt = nil
		m.SetAlt(a.tr, a.label)
	}
	if a := m.pendingPred; a != nil {
		m.pendingPred = nil
		m.SetPredicted(a.tr, a.label)
	}
	if f := m.pendingFocus; f != nil {
		m.pendingFocus = nil
		m.Focus(*f)
	}
	return true
}

// waitCmd returns the command that wakes the view when the background
// summary is built, once per build.
func (m *Model) waitCmd() tea.Cmd {
	if m.job == nil || m.waiting {
		return nil
	}
	m.waiting = true
	return m.job.wait()
}

// SetAlt gives the Timeline alternative times for the same events (times
// corrected by the causality checker, a simulated replay); label names
// them. The view switches to them; the AltTimes key switches back and
// forth. A nil trace, or one whose ranks and events do not line up with
// the loaded trace, withdraws them.
//
// SetAlt builds the alternative's summary before it returns (about a
// second for 10 M events); Update handles component.AltTraceMsg without
// blocking, building it in a command.
func (m *Model) SetAlt(tr *tracefmt.Trace, label string) {
	if m.job != nil {
		m.pendingAlt = &altRequest{tr, label}
		if tr == nil {
			m.pendingAlt = nil
		}
		return
	}
	if m.withdrawAlt(tr) {
		m.installAlt(newIndex(tr), tr, label)
	}
}

// withdrawAlt drops the current alternative and reports whether tr can
// replace it.
func (m *Model) withdrawAlt(tr *tracefmt.Trace) bool {
	m.alt, m.altTrace, m.altLabel, m.useAlt = nil, nil, "", false
	m.altGen++
	m.memo.Invalidate()
	m.stats, m.over = statsCache{}, overviewCache{}
	if tr == nil || m.tr == nil {
		return false
	}
	if !sameShape(m.tr, tr) {
		m.status = "alternative times ignored: the events do not match the loaded trace"
		return false
	}
	return true
}

// installAlt switches to alternative times whose index is built.
func (m *Model) installAlt(ix *index, tr *tracefmt.Trace, label string) {
	m.alt, m.altTrace, m.altLabel, m.useAlt = ix, tr, label, true
	m.stats, m.over = statsCache{}, overviewCache{}
	m.memo.Invalidate()
	m.status = ""
	m.clampWindow()
	m.reframe()
}

// altReadyMsg carries an alternative's index built by altCmd. gen and
// base tell whether it is still wanted when it arrives.
type altReadyMsg struct {
	ix       *index
	tr, base *tracefmt.Trace
	label    string
	gen      int
}

// altCmd withdraws the current alternative and returns a command that
// builds the summary of tr off the event loop.
func (m *Model) altCmd(tr *tracefmt.Trace, label string) tea.Cmd {
	if m.job != nil {
		m.SetAlt(tr, label) // kept until the trace's own summary is built
		return nil
	}
	if !m.withdrawAlt(tr) {
		return nil
	}
	gen, base := m.altGen, m.tr
	m.status = "building " + label + " times…"
	return func() tea.Msg {
		return altReadyMsg{ix: newIndex(tr), tr: tr, base: base, label: label, gen: gen}
	}
}

// sameShape reports whether b has the ranks and events of a, so that an
// EventRef means the same event in both.
func sameShape(a, b *tracefmt.Trace) bool {
	if len(a.Ranks) != len(b.Ranks) {
		return false
	}
	for r := range a.Ranks {
		if len(a.Ranks[r].Events) != len(b.Ranks[r].Events) {
			return false
		}
	}
	return true
}

// ix returns the index of the times in use.
func (m *Model) ix() *index {
	if m.useAlt && m.alt != nil && !m.swapped {
		return m.alt
	}
	return m.orig
}

// Window returns the visible time window in trace units (event positions
// for untimed traces).
//
// Showing the prediction alone, it is the recorded trace's window that
// spans the same times since the start (for an untimed trace, the same
// fraction of the run), which is what the other views follow.
func (m *Model) Window() (start, end float64) {
	if m.swapped {
		conv := m.convToOther()
		return conv(m.a), conv(m.b)
	}
	return m.a, m.b
}

// Cursor returns the cursor's time in trace units.
func (m *Model) Cursor() float64 { return m.cur }

// Capturing reports whether the Timeline is reading text (search, go to,
// rank filter), so that the application should not treat keys as global
// shortcuts.
func (m *Model) Capturing() bool { return m.prompt.kind != promptNone }

// SetOffset tells the Timeline where its top-left cell is on the screen,
// so that it can map mouse positions to its own cells.
func (m *Model) SetOffset(x, y int) { m.offX, m.offY = x, y }

// Renders returns how many frames the Timeline has rendered, for tests and
// benchmarks of the frame cache.
func (m *Model) Renders() int { return m.memo.Renders() }

// Init implements component.Model.
// It waits for a summary being built in the background.
func (m *Model) Init() tea.Cmd { return m.waitCmd() }

// SetSize implements component.Model.
func (m *Model) SetSize(width, height int) {
	m.Common.SetSize(width, height)
	m.lay = m.layout()
}

// ShortHelp implements help.KeyMap.
func (m *Model) ShortHelp() []key.Binding {
	kb := m.keys.ShortHelp()
	if m.alt != nil {
		kb = append(kb, m.keys.AltTimes)
	}
	if m.pred != nil {
		kb = append(kb, m.keys.View)
	}
	return kb
}

// FullHelp implements help.KeyMap.
func (m *Model) FullHelp() [][]key.Binding { return m.keys.FullHelp() }

// viewState is everything a frame depends on besides the trace and the
// size: Update compares it before and after a message to decide whether
// the frame must be drawn again.
type viewState struct {
	a, b, cur          float64
	row, top           int
	hiddenGen, altGen  int
	useAlt, legend     bool
	legendRow          int
	msgMode            msgMode
	sel                selection
	promptKind         promptKind
	promptText, status string
	promptPos          int
	filter             string
	mode               viewMode
	lane               int
	osel               selection
}

func (m *Model) state() viewState {
	return viewState{
		a: m.a, b: m.b, cur: m.cur, row: m.row, top: m.top,
		hiddenGen: m.hiddenGen, altGen: m.altGen, useAlt: m.useAlt, legend: m.legend,
		legendRow: m.legendRow, msgMode: m.msgMode, sel: m.sel,
		promptKind: m.prompt.kind, promptText: m.prompt.in.Value(), promptPos: m.prompt.in.Position(), status: m.status,
		filter: m.filterText, mode: m.mode, lane: m.lane, osel: m.oth.sel,
	}
}

// Update implements component.Model.
func (m *Model) Update(msg tea.Msg) (component.Model, tea.Cmd) {
	// Keys and the mouse work in the current layout, even before the
	// first frame or after a size change not yet drawn.
	m.lay = m.layout()
	m.poll()
	if m.job != nil {
		// Nothing to act on until the summary is built.
		if f, ok := msg.(component.FocusEventMsg); ok {
			m.pendingFocus = &f.Event
		}
		if a, ok := msg.(component.AltTraceMsg); ok {
			if a.Predicted {
				m.pendingPred = &altRequest{a.Trace, a.Label}
			} else {
				m.SetAlt(a.Trace, a.Label)
			}
		}
		return m, m.waitCmd()
	}
	if cmd, ok := m.coneUpdate(msg); ok {
		return m, cmd
	}
	before := m.state()
	switch msg := msg.(type) {
	case component.FocusEventMsg:
		m.Focus(msg.Event)
	case component.AltTraceMsg:
		if msg.Predicted {
			return m, m.predCmd(msg.Trace, msg.Label)
		}
		return m, m.altCmd(msg.Trace, msg.Label)
	case predReadyMsg:
		m.installPred(msg)
	case altReadyMsg:
		if msg.gen == m.altGen && msg.base == m.tr {
			m.installAlt(msg.ix, msg.tr, msg.label)
		}
	case tea.KeyPressMsg:
		m.handleKey(msg)
	case tea.PasteMsg:
		if m.prompt.kind != promptNone {
			m.prompt.in, _ = m.prompt.in.Update(msg)
		}
	case tea.MouseWheelMsg:
		m.handleWheel(msg.Mouse())
	case tea.MouseClickMsg:
		m.handleClick(msg.Mouse())
	case tea.MouseMotionMsg:
		m.handleDrag(msg.Mouse())
	case tea.MouseReleaseMsg:
		m.drag.on = false
	}
	if m.state() != before {
		m.memo.Invalidate()
	}
	return m, m.coneFollow()
}

// handleKey handles a key press: the open prompt gets it first, then the
// legend when it has the focus, then the view.
func (m *Model) handleKey(k tea.KeyPressMsg) {
	if m.prompt.kind != promptNone {
		m.promptKey(k)
		return
	}
	if m.ix() == nil {
		return
	}
	m.status = ""
	if m.legend && m.legendKey(k) {
		return
	}
	ks := m.keys
	switch {
	case key.Matches(k, ks.ZoomIn):
		m.zoom(0.5)
	case key.Matches(k, ks.ZoomOut):
		m.zoom(2)
	case key.Matches(k, ks.Fit):
		m.pushHistory()
		m.fit()
	case key.Matches(k, ks.Back):
		m.back()
	case key.Matches(k, ks.ZoomSel):
		m.zoomToSelection()
	case key.Matches(k, ks.PanLeft):
		m.pan(-0.125)
	case key.Matches(k, ks.PanRight):
		m.pan(0.125)
	case key.Matches(k, ks.PageLeft):
		m.pan(-1)
	case key.Matches(k, ks.PageRight):
		m.pan(1)
	case key.Matches(k, ks.Home):
		m.pan(math.Inf(-1))
	case key.Matches(k, ks.End):
		m.pan(math.Inf(1))
	case key.Matches(k, ks.CursorLeft):
		m.moveCursor(-1)
	case key.Matches(k, ks.CursorRight):
		m.moveCursor(1)
	case key.Matches(k, ks.Up):
		m.moveRow(-1)
	case key.Matches(k, ks.Down):
		m.moveRow(1)
	case key.Matches(k, ks.PageUp):
		m.moveRow(-max(m.lay.nvis, 1))
	case key.Matches(k, ks.PageDown):
		m.moveRow(max(m.lay.nvis, 1))
	case key.Matches(k, ks.NextItem):
		m.laneAction(func() { m.stepItem(1) })
	case key.Matches(k, ks.PrevItem):
		m.laneAction(func() { m.stepItem(-1) })
	case key.Matches(k, ks.Select):
		m.laneAction(m.selectAtCursor)
	case key.Matches(k, ks.Clear):
		m.sel, m.oth.sel = selection{}, selection{}
	case key.Matches(k, ks.Search):
		m.prompt = newPrompt(promptSearch, "")
	case key.Matches(k, ks.SearchNext):
		m.searchNext(1)
	case key.Matches(k, ks.SearchPrev):
		m.searchNext(-1)
	case key.Matches(k, ks.GoTo):
		m.prompt = newPrompt(promptGoTo, "")
	case key.Matches(k, ks.RankFilter):
		m.prompt = newPrompt(promptRanks, m.filterText)
	case key.Matches(k, ks.Legend):
		m.legend = len(m.legendStates()) > 0
	case key.Matches(k, ks.View):
		m.cycleMode()
	case key.Matches(k, ks.AltTimes):
		if m.swapped {
			m.status = "alternative times apply to the recorded trace (p switches)"
		} else if m.alt != nil {
			m.useAlt = !m.useAlt
			m.over, m.stats = overviewCache{}, statsCache{}
			m.clampWindow()
			m.reframe()
		} else {
			m.status = "no alternative times (run the causality check or a simulation)"
		}
	case key.Matches(k, ks.Messages):
		m.msgMode = (m.msgMode + 1) % msgMode(len(msgModeNames))
		m.status = "messages: " + msgModeNames[m.msgMode]
	}
	m.syncLanes()
}

// legendKey handles keys while the legend has the focus and reports
// whether it used the key.
func (m *Model) legendKey(k tea.KeyPressMsg) bool {
	ks := m.keys
	n := len(m.legendStates())
	switch {
	case key.Matches(k, ks.Up):
		m.legendRow = max(m.legendRow-1, 0)
	case key.Matches(k, ks.Down):
		m.legendRow = min(m.legendRow+1, n-1)
	case key.Matches(k, ks.Toggle), key.Matches(k, ks.Select):
		if m.legendRow < n {
			s := m.legendStates()[m.legendRow]
			m.SetHidden(tracefmt.StateID(s), !m.hidden[s])
			m.status = m.stateName(s) + " shown"
			if m.hidden[s] {
				m.status = m.stateName(s) + " hidden"
			}
		}
	case key.Matches(k, ks.Legend), key.Matches(k, ks.Clear):
		m.legend = false
	default:
		return false
	}
	return true
}

// SetHidden shows or hides a state (by id) in the rank rows and overview.
func (m *Model) SetHidden(s tracefmt.StateID, hide bool) {
	if int(s) < 0 || int(s) >= len(m.hidden) || m.hidden[s] == hide {
		return
	}
	m.hidden[s] = hide
	m.hiddenGen++
	m.over = overviewCache{}
	m.memo.Invalidate()
}

// span returns the trace's extent in the times in use.
func (m *Model) span() (float64, float64) {
	ix := m.ix()
	if ix == nil {
		return 0, 1
	}
	if m.mode == modeBoth && m.oth.ix != nil {
		// One axis for both runs: as long as the longer.
		conv := m.convFromOther()
		return ix.start, max(ix.end, conv(m.oth.ix.end))
	}
	return ix.start, ix.end
}

// minWidth is the narrowest window: a fraction of the run small enough to
// separate nanosecond events in a day-long trace, wide enough to keep
// float64 times distinct.
func (m *Model) minWidth() float64 {
	s, e := m.span()
	return max((e-s)*math.Exp2(-36), math.Abs(e)*1e-12, 1e-12)
}

// fit shows the whole run with the cursor in the middle.
func (m *Model) fit() {
	m.a, m.b = m.span()
	m.cur = (m.a + m.b) / 2
}

// setWindow sets the window to [a, a+w), keeping it inside the run.
func (m *Model) setWindow(a, w float64) {
	s, e := m.span()
	w = min(max(w, m.minWidth()), e-s)
	a = min(max(a, s), e-w)
	m.a, m.b = a, a+w
	m.cur = min(max(m.cur, m.a), m.b)
}

// clampWindow keeps the window inside the run after the times change.
func (m *Model) clampWindow() { m.setWindow(m.a, m.b-m.a) }

func (m *Model) pushHistory() {
	w := window{m.a, m.b}
	if n := len(m.history); n > 0 && m.history[n-1] == w {
		return
	}
	// A bounded history: old entries are of little use and the model
	// should not grow without limit over a long session.
	if len(m.history) == 256 {
		m.history = slices.Delete(m.history, 0, 1)
	}
	m.history = append(m.history, w)
}

// back returns to the window before the last zoom.
func (m *Model) back() {
	n := len(m.history)
	if n == 0 {
		m.status = "zoom history is empty"
		return
	}
	w := m.history[n-1]
	m.history = m.history[:n-1]
	m.setWindow(w.a, w.b-w.a)
}

// zoom scales the window width by f around the cursor: the cursor keeps
// its time and its place on the screen.
func (m *Model) zoom(f float64) {
	w := m.b - m.a
	nw := w * f
	s, e := m.span()
	nw = min(max(nw, m.minWidth()), e-s)
	if nw == w {
		return
	}
	m.pushHistory()
	frac := (m.cur - m.a) / w
	m.setWindow(m.cur-frac*nw, nw)
}

// zoomToSelection fits the window to the selected item with a margin (a
// point event gets the width of eight columns of the current window).
func (m *Model) zoomToSelection() {
	t0, t1, ok := m.selRange()
	if !ok {
		m.status = "nothing selected"
		return
	}
	w := (t1 - t0) * 1.5
	if w == 0 {
		w = (m.b - m.a) / float64(max(m.lay.cols, 1)) * 8
	}
	m.pushHistory()
	m.setWindow((t0+t1)/2-w/2, w)
	m.cur = min(max(t0, m.a), m.b)
}

// zoomAt zooms around the time under column col, which becomes the
// cursor.
func (m *Model) zoomAt(col int, f float64) {
	m.cur = m.colTime(col)
	m.zoom(f)
}

// pan moves the window (and the cursor with it) by f window widths (±Inf:
// to the start or end of the run).
func (m *Model) pan(f float64) {
	w := m.b - m.a
	old := m.a
	s, e := m.span()
	m.setWindow(min(max(m.a+f*w, s), e), w)
	m.cur = min(max(m.cur+m.a-old, m.a), m.b)
}

// colTime returns the time at the middle of time column col.
func (m *Model) colTime(col int) float64 {
	cols := max(m.lay.cols, 1)
	return m.a + (float64(col)+0.5)*(m.b-m.a)/float64(cols)
}

// curCol returns the cursor's time column.
func (m *Model) curCol() int {
	cols := max(m.lay.cols, 1)
	c := int((m.cur - m.a) / (m.b - m.a) * float64(cols))
	return min(max(c, 0), cols-1)
}

// moveCursor moves the cursor by n columns, panning at the edges.
func (m *Model) moveCursor(n int) {
	cols := max(m.lay.cols, 1)
	c := m.curCol() + n
	if c < 0 || c >= cols {
		m.pan(float64(n) / float64(cols))
		return
	}
	m.cur = m.colTime(c)
}

// moveRow moves the rank cursor by n rows.
func (m *Model) moveRow(n int) {
	if len(m.ranks) == 0 {
		return
	}
	if m.lay.lanes == 2 && (n == 1 || n == -1) {
		// The both-view steps through the recorded and predicted rows.
		at := min(max(2*m.row+m.lane+n, 0), 2*len(m.ranks)-1)
		m.row, m.lane = at/2, at%2
		m.scrollToRow()
		return
	}
	m.row = min(max(m.row+n, 0), len(m.ranks)-1)
	m.scrollToRow()
}

// scrollToRow scrolls the rank rows so that the cursor rank shows.
func (m *Model) scrollToRow() {
	vis := max(m.lay.nvis, 1)
	if m.row < m.top {
		m.top = m.row
	}
	if m.row >= m.top+vis {
		m.top = m.row - vis + 1
	}
	m.top = min(max(m.top, 0), max(len(m.ranks)-vis, 0))
}

// Focus brings the event into view and selects it: a send or receive
// selects its message (both ends), an enter or leave its state interval.
func (m *Model) Focus(ref tracefmt.EventRef) {
	if m.tr == nil || ref.Rank < 0 || int(ref.Rank) >= len(m.tr.Ranks) ||
		ref.Index < 0 || int(ref.Index) >= len(m.tr.Ranks[ref.Rank].Events) {
		return
	}
	if m.job != nil {
		// Called directly, Focus has no command to wait with: the caller
		// wants the event now, so wait for the summary here.
		<-m.job.done
		m.poll()
	}
	m.memo.Invalidate()
	m.lay = m.layout()
	m.sel = m.selectionOf(ref)
	m.frameSelection(int(ref.Rank))
	m.syncLanes()
}

// reframe frames the selection again after the times changed (original
// and corrected times put a finding's ends elsewhere).
func (m *Model) reframe() {
	if m.sel.kind != selNone && m.tr != nil {
		m.frameSelection(int(m.sel.ref.Rank))
	}
}

// focusMinWidth is the narrowest window Focus opens on a timed trace, in
// seconds: a message corrected to a few picoseconds still gets a window
// in which the ruler has labels and the neighbouring events show.
const focusMinWidth = 1e-6

// frameSelection shows the selection the way Focus does: the window
// frames the whole item with one and a half times its span of context on
// each side, and never narrower than focusMinWidth (eight events on an
// untimed trace). It depends on the item and the times in use only, not
// on the terminal's size, so a finding opens the same at 80×24 as at
// 200×60. Rank r becomes the cursor rank, the cursor the item's start.
func (m *Model) frameSelection(r int) {
	t0, t1, ok := m.selRange()
	if !ok {
		return
	}
	m.showSelection(false, r)
	ix := m.ix()
	minW := 8.0
	if ix.timed {
		minW = focusMinWidth / ix.tr.Unit.Seconds()
	}
	w := max((t1-t0)*4, minW, m.minWidth())
	m.pushHistory()
	m.setWindow((t0+t1)/2-w/2, w)
	m.cur = min(max(t0, m.a), m.b)
}

// selectionOf returns the selection an event stands for.
func (m *Model) selectionOf(ref tracefmt.EventRef) selection { return selectionIn(m.tr, ref) }

// selectionIn returns the selection event ref of tr stands for.
func selectionIn(tr *tracefmt.Trace, ref tracefmt.EventRef) selection {
	e := tr.Event(ref)
	none := tracefmt.EventRef{Rank: -1, Index: -1}
	switch e.Kind {
	case tracefmt.KindSend, tracefmt.KindRecv:
		peer := none
		if e.Match >= 0 {
			peer = tracefmt.EventRef{Rank: e.Peer, Index: e.Match}
		}
		if e.Kind == tracefmt.KindRecv && peer.Rank >= 0 {
			ref, peer = peer, ref
		}
		return selection{kind: selMsg, ref: ref, peer: peer}
	case tracefmt.KindEnter, tracefmt.KindLeave:
		if e.Kind == tracefmt.KindLeave && e.Match >= 0 {
			ref.Index = e.Match
		}
		if tr.Event(ref).Match >= 0 {
			return selection{kind: selState, ref: ref, peer: none}
		}
	}
	return selection{kind: selEvent, ref: ref, peer: none}
}

// selRange returns the times the selection spans, in order.
func (m *Model) selRange() (t0, t1 float64, ok bool) {
	ix := m.ix()
	s := m.sel
	switch s.kind {
	case selNone:
		return 0, 0, false
	case selState:
		e := m.tr.Event(s.ref)
		t0, t1 = ix.time(int(s.ref.Rank), int(s.ref.Index)), ix.time(int(s.ref.Rank), int(e.Match))
	default:
		t0 = ix.time(int(s.ref.Rank), int(s.ref.Index))
		t1 = t0
		if s.peer.Rank >= 0 {
			t1 = ix.time(int(s.peer.Rank), int(s.peer.Index))
		}
	}
	return min(t0, t1), max(t0, t1), true
}

// showSelection makes the selection visible: its rank becomes the cursor
// rank (clearing a rank filter that hides either end), and the window moves (and
// with zoom, narrows) to show the whole item. The cursor goes to the
// item's start. Rank r becomes the cursor rank.
func (m *Model) showSelection(zoom bool, r int) {
	t0, t1, ok := m.selRange()
	if !ok {
		return
	}
	if !slices.Contains(m.ranks, int(m.sel.ref.Rank)) ||
		(m.sel.peer.Rank >= 0 && !slices.Contains(m.ranks, int(m.sel.peer.Rank))) {
		m.setFilter("")
	}
	m.row = max(slices.Index(m.ranks, r), 0)
	m.scrollToRow()
	w := m.b - m.a
	inView := t0 >= m.a && t1 <= m.b
	if zoom && (t1-t0)*8 < w && m.tooDense(t0, t1) {
		// Arrows and short states only show when zoomed in.
		w = max((t1-t0)*8, m.minWidth())
		inView = false
	}
	if (t1 - t0) > w {
		w = (t1 - t0) * 1.25
		inView = false
	}
	if !inView {
		m.pushHistory()
		m.setWindow((t0+t1)/2-w/2, w)
	}
	m.cur = min(max(t0, m.a), m.b)
}

// tooDense reports whether the item spanning [t0, t1] would be hard to see
// in the current window: shorter than two columns.
func (m *Model) tooDense(t0, t1 float64) bool {
	cols := max(m.lay.cols, 1)
	return (t1-t0)/(m.b-m.a)*float64(cols) < 2
}

// Selection describes the selected item in one line for the status bar;
// "" when nothing is selected.
func (m *Model) Selection() string {
	if m.tr == nil || m.ix() == nil || m.sel.kind == selNone {
		return ""
	}
	return m.describe(m.sel)
}

// fmtTime formats a time of the run relative to its start, with about
// four significant digits.
func (m *Model) fmtTime(t float64) string { return m.fmtTimeRes(t, 0) }

// fmtTimeRes formats a time of the run relative to its start precisely
// enough to tell apart times res apart (trace units; 0: four significant
// digits), so that the two ends of a 500 ns state late in a run do not
// print alike.
func (m *Model) fmtTimeRes(t, res float64) string {
	ix := m.ix()
	if !ix.timed {
		return "#" + strconv.FormatInt(int64(math.Round(t)), 10)
	}
	sec := ix.tr.Seconds(t - ix.start)
	return strings.Replace(units.FormatDurationRes(sec, ix.tr.Seconds(res)), " ", "", 1)
}

// fmtDur formats a duration in trace units.
func (m *Model) fmtDur(d float64) string {
	if !m.ix().timed {
		return strconv.FormatInt(int64(math.Round(d)), 10) + "ev"
	}
	return fmtSeconds(m.ix().tr.Seconds(d))
}

// describe returns the one-line description of a selection.
func (m *Model) describe(s selection) string {
	ix := m.ix()
	tr := m.tr
	e := tr.Event(s.ref)
	r := int(s.ref.Rank)
	t := ix.time(r, int(s.ref.Index))
	var b strings.Builder
	switch s.kind {
	case selState:
		t1 := ix.time(r, int(e.Match))
		d := &tr.States[e.State()]
		res := (t1 - t) / 10
		fmt.Fprintf(&b, "rank %d  %s  %s → %s  (%s)  %s", r, d.Name, m.fmtTimeRes(t, res), m.fmtTimeRes(t1, res), m.fmtDur(t1-t), d.Category)
		if txt := tr.Text(e); txt != "" {
			fmt.Fprintf(&b, "  %q", txt)
		}
	case selMsg:
		src, dst := r, int(e.Peer)
		if e.Kind == tracefmt.KindRecv {
			src, dst = dst, src
		}
		fmt.Fprintf(&b, "message %d→%d  tag %d  %s  %s", src, dst, e.Tag, fmtBytes(e.Size), m.commName(e.Comm))
		if s.peer.Rank >= 0 {
			t2 := ix.time(int(s.peer.Rank), int(s.peer.Index))
			res := math.Abs(t2-t) / 10
			fmt.Fprintf(&b, "  send %s  recv %s  (%s)", m.fmtTimeRes(t, res), m.fmtTimeRes(t2, res), m.fmtSignedDur(t2-t))
			// A format that stamps when the data left (Paraver's
			// physical send) says more than the call: the arrow and
			// the clock condition go from there.
			out := t
			if ix.timed {
				out += tr.SendDelay(s.ref)
			}
			if out != t {
				fmt.Fprintf(&b, "  data out %s (%s in flight)", m.fmtTimeRes(out, res), m.fmtSignedDur(t2-out))
			}
			switch {
			case t2 < t:
				b.WriteString("  REVERSED: received before sent")
			case t2 < out:
				b.WriteString("  REVERSED: received before its data left")
			}
		} else if e.Kind == tracefmt.KindSend {
			fmt.Fprintf(&b, "  send %s  (unmatched)", m.fmtTime(t))
		} else {
			fmt.Fprintf(&b, "  recv %s  (unmatched)", m.fmtTime(t))
		}
		if e.Flags.Has(tracefmt.FlagNonBlocking) {
			b.WriteString("  non-blocking")
		}
		if st := m.enclosing(s.ref); st != "" {
			b.WriteString("  in " + st)
		}
	default:
		fmt.Fprintf(&b, "rank %d  %s at %s", r, e.Kind, m.fmtTime(t))
		switch e.Kind {
		case tracefmt.KindCollective:
			if e.SizeKnown() {
				fmt.Fprintf(&b, "  %s  %s  sent %s  recvd %s", e.Op(), m.commName(e.Comm), fmtBytes(e.Size), fmtBytes(e.RecvBytes()))
			} else {
				fmt.Fprintf(&b, "  %s  %s  size unknown", e.Op(), m.commName(e.Comm))
			}
			if e.Root() >= 0 {
				fmt.Fprintf(&b, "  root %d", e.Root())
			}
		case tracefmt.KindMarker:
			if int(e.Marker()) < len(tr.Markers) {
				b.WriteString("  " + tr.Markers[e.Marker()].Name)
			}
			if txt := tr.Text(e); txt != "" {
				fmt.Fprintf(&b, "  %q", txt)
			}
		case tracefmt.KindCompute:
			if e.Flags.Has(tracefmt.FlagWork) {
				b.WriteString("  " + units.FormatFlops(e.Amount()))
			} else {
				b.WriteString("  " + m.fmtDur(e.Amount()))
			}
		case tracefmt.KindWait:
			if e.Flags.Has(tracefmt.FlagAll) {
				b.WriteString("  all requests")
			} else {
				fmt.Fprintf(&b, "  request %d", e.Request())
			}
		}
	}
	return b.String()
}

// fmtSignedDur formats a duration that may be negative.
func (m *Model) fmtSignedDur(d float64) string {
	if d < 0 {
		return "-" + m.fmtDur(-d)
	}
	return "+" + m.fmtDur(d)
}

// enclosing names the state that holds event ref on its rank.
func (m *Model) enclosing(ref tracefmt.EventRef) string {
	ix := m.ix()
	r := int(ref.Rank)
	k := ix.segAt(r, ix.time(r, int(ref.Index)), 0)
	if k < 0 {
		return ""
	}
	return m.tr.StateName(tracefmt.StateID(ix.ranks[r].segs[k].state))
}

func (m *Model) commName(c uint16) string {
	if int(c) < len(m.tr.Comms) && m.tr.Comms[c].Name != "" {
		return m.tr.Comms[c].Name
	}
	if c == 0 {
		return "WORLD"
	}
	return "comm " + strconv.Itoa(int(c))
}

// setFilter shows only the ranks spec lists ("0-3,8"); "" shows all.
func (m *Model) setFilter(spec string) error {
	var ranks []int
	if strings.TrimSpace(spec) == "" {
		ranks = make([]int, len(m.tr.Ranks))
		for i := range ranks {
			ranks[i] = i
		}
		spec = ""
	} else {
		var err error
		if ranks, err = parseRanks(spec, len(m.tr.Ranks)); err != nil {
			return err
		}
	}
	var curRank = -1
	if m.row < len(m.ranks) {
		curRank = m.ranks[m.row]
	}
	m.ranks, m.filterText = ranks, spec
	m.pos = positions(ranks, len(m.tr.Ranks))
	m.stats = statsCache{}
	m.row = max(slices.Index(m.ranks, curRank), 0)
	m.top = 0
	m.scrollToRow()
	return nil
}

// positions maps world ranks to their positions in ranks (-1 for ranks
// not in it).
func positions(ranks []int, n int) []int {
	pos := make([]int, n)
	for i := range pos {
		pos[i] = -1
	}
	for i, r := range ranks {
		pos[r] = i
	}
	return pos
}

// parseRanks parses a rank filter: a list of ranks and ranges, "0-3, 8, 12-".
func parseRanks(spec string, n int) ([]int, error) {
	r, err := analysis.ParseRanks(spec, n)
	if err != nil {
		return nil, fmt.Errorf("rank filter: %w", err)
	}
	return r, nil
}
