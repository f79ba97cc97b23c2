package timeline

import (
	"charm.land/bubbles/v2/textinput"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/tracefmt/units"
)

// promptKind says what the one-line prompt is reading.
type promptKind uint8

const (
	promptNone promptKind = iota
	promptSearch
	promptGoTo
	promptRanks
)

var promptLabels = [...]string{"", "/", "go to: ", "ranks: "}

// prompt is a one-line text input at the bottom of the view.
type prompt struct {
	kind promptKind
	// in edits the text: cursor movement, word deletion (ctrl+w,
	// alt+backspace), paste. Only its value and cursor position are
	// drawn, into the footer's cells.
	in textinput.Model
}

// newPrompt opens a prompt of kind holding text, the cursor at its end.
func newPrompt(kind promptKind, text string) prompt {
	in := textinput.New()
	in.Prompt = ""
	in.CharLimit = 200
	in.SetValue(text)
	in.Focus()
	return prompt{kind: kind, in: in}
}

// promptKey handles a key while the prompt is open.
func (m *Model) promptKey(k tea.KeyPressMsg) {
	switch {
	case key.Matches(k, m.keys.promptCancel):
		m.prompt = prompt{}
	case key.Matches(k, m.keys.promptAccept):
		kind, text := m.prompt.kind, strings.TrimSpace(m.prompt.in.Value())
		m.prompt = prompt{}
		if m.tr == nil {
			return
		}
		switch kind {
		case promptSearch:
			m.startSearch(text)
		case promptGoTo:
			if err := m.goTo(text); err != nil {
				m.status = err.Error()
			}
		case promptRanks:
			if err := m.setFilter(text); err != nil {
				m.status = err.Error()
			}
		}
	default:
		// The cursor is drawn in the footer's cells, not blinked: the
		// input's commands (blinks) are not needed.
		m.prompt.in, _ = m.prompt.in.Update(k)
	}
}

// goTo moves the cursor to a time given relative to the start of the run
// ("1.5ms", "20 us", a bare number of seconds; an event position "#120"
// or "120" for untimed traces) and centres the window on it.
func (m *Model) goTo(s string) error {
	ix := m.ix()
	var t float64
	if !ix.timed {
		n, err := strconv.Atoi(strings.TrimPrefix(s, "#"))
		if err != nil || n < 0 {
			return fmt.Errorf("go to: %q is not an event position (untimed trace)", s)
		}
		t = float64(n)
	} else {
		sec, err := units.ParseDuration(s)
		if err != nil {
			return fmt.Errorf("go to: %v", err)
		}
		t = ix.start + sec/ix.tr.Unit.Seconds()
	}
	if t < ix.start || t > ix.end {
		return fmt.Errorf("go to: %s is outside the run (0 to %s)", s, m.fmtDur(ix.end-ix.start))
	}
	m.pushHistory()
	w := m.b - m.a
	m.setWindow(t-w/2, w)
	m.cur = t
	return nil
}

// query is a compiled search: words match state names, key-operator-value
// terms match fields of messages (tag, size, peer, from, to, comm) or of
// states (dur), rank matches either's rank.
type query struct {
	text  string
	names []string // lower-case substrings of the state name
	conds []cond
	msgs  bool // the query is about messages
	rev   bool // only messages received before they were sent
}

// cond is one key-operator-value term.
type cond struct {
	key, op string
	v       float64
	sec     bool // v is seconds, to convert to trace units
}

// isMsgKey reports whether a search key is about messages.
func isMsgKey(k string) bool {
	switch k {
	case "tag", "size", "peer", "from", "to", "comm":
		return true
	}
	return false
}

// parseQuery compiles a search.
func parseQuery(s string) (*query, error) {
	q := &query{text: s}
	for _, f := range strings.Fields(s) {
		i := strings.IndexAny(f, "<>=!")
		if i <= 0 {
			switch strings.ToLower(f) {
			case "msg", "msgs", "message", "messages":
				q.msgs = true
			case "reversed":
				q.msgs, q.rev = true, true
			default:
				q.names = append(q.names, strings.ToLower(f))
			}
			continue
		}
		k, rest := strings.ToLower(f[:i]), f[i:]
		op := rest[:1]
		if len(rest) > 1 && rest[1] == '=' {
			op = rest[:2]
		}
		val := rest[len(op):]
		if op == "!" || val == "" {
			return nil, fmt.Errorf("search: %q: expected key=value, key>value, key<value, key>=, key<= or key!=", f)
		}
		c := cond{key: k, op: op}
		var err error
		switch {
		case k == "size":
			var n int64
			n, err = units.ParseSize(val)
			c.v = float64(n)
		case k == "dur" || k == "duration" || k == "time":
			c.key, c.sec = "dur", true
			c.v, err = units.ParseDuration(val)
		case isMsgKey(k) || k == "rank":
			var n int
			n, err = strconv.Atoi(val)
			c.v = float64(n)
		default:
			return nil, fmt.Errorf("search: unknown key %q (known: tag, size, peer, from, to, comm, rank, dur)", k)
		}
		if err != nil {
			return nil, fmt.Errorf("search: %q: %v", f, err)
		}
		if isMsgKey(c.key) {
			q.msgs = true
		}
		q.conds = append(q.conds, c)
	}
	if len(q.names) == 0 && len(q.conds) == 0 && !q.msgs {
		return nil, fmt.Errorf("search: empty query")
	}
	return q, nil
}

func (c cond) test(x float64) bool {
	switch c.op {
	case "=", "==":
		return x == c.v
	case "!=":
		return x != c.v
	case ">":
		return x > c.v
	case "<":
		return x < c.v
	case ">=":
		return x >= c.v
	case "<=":
		return x <= c.v
	}
	return false
}

// match reports whether event i of rank r is a hit. A message is found at
// its send (or at a receive that has no send); a state at its enter.
func (m *Model) match(q *query, ix *index, r, i int) bool {
	e := &m.tr.Ranks[r].Events[i]
	if q.msgs {
		if !(e.Kind == tracefmt.KindSend || (e.Kind == tracefmt.KindRecv && e.Match < 0)) {
			return false
		}
		src, dst := r, int(e.Peer)
		if e.Kind == tracefmt.KindRecv {
			src, dst = dst, src
		}
		if q.rev {
			// Reversed as drawn: received before the data left.
			if e.Kind != tracefmt.KindSend || e.Match < 0 || ix.time(int(e.Peer), int(e.Match)) >= ix.arrowTime(tracefmt.EventRef{Rank: int32(r), Index: int32(i)}) {
				return false
			}
		}
		for _, c := range q.conds {
			var x float64
			switch c.key {
			case "tag":
				x = float64(e.Tag)
			case "size":
				x = float64(e.Size)
			case "comm":
				x = float64(e.Comm)
			case "from":
				x = float64(src)
			case "to":
				x = float64(dst)
			case "rank":
				x = float64(r)
			case "peer":
				// Either end: "messages involving rank 3".
				if c.op == "=" || c.op == "==" {
					if float64(src) != c.v && float64(dst) != c.v {
						return false
					}
					continue
				}
				x = float64(dst)
			case "dur":
				if e.Match < 0 {
					return false
				}
				x = ix.tr.Seconds(ix.time(int(e.Peer), int(e.Match)) - ix.time(r, i))
			}
			if !c.test(x) {
				return false
			}
		}
		if len(q.names) > 0 {
			name := strings.ToLower(m.enclosing(tracefmt.EventRef{Rank: int32(r), Index: int32(i)}))
			for _, n := range q.names {
				if !strings.Contains(name, n) {
					return false
				}
			}
		}
		return true
	}
	if e.Kind != tracefmt.KindEnter || e.Match < 0 {
		return false
	}
	if len(q.names) > 0 {
		name := strings.ToLower(m.tr.StateName(e.State()))
		for _, n := range q.names {
			if !strings.Contains(name, n) {
				return false
			}
		}
	}
	for _, c := range q.conds {
		var x float64
		switch c.key {
		case "rank":
			x = float64(r)
		case "dur":
			d := ix.time(r, int(e.Match)) - ix.time(r, i)
			if c.sec && ix.timed {
				x = ix.tr.Seconds(d)
			} else {
				x = d
			}
		}
		if !c.test(x) {
			return false
		}
	}
	return true
}

// startSearch compiles text (or reuses the last query when text is empty)
// and goes to the first hit after the cursor.
func (m *Model) startSearch(text string) {
	if text != "" {
		q, err := parseQuery(text)
		if err != nil {
			m.status = err.Error()
			return
		}
		m.query = q
	}
	m.searchNext(1)
}

// pos orders hits: by time, then rank, then event index.
type pos struct {
	t    float64
	r, i int
}

func (p pos) less(q pos) bool {
	if p.t != q.t {
		return p.t < q.t
	}
	if p.r != q.r {
		return p.r < q.r
	}
	return p.i < q.i
}

// here returns the position searches and item steps start from: the
// selection's, or the cursor's.
func (m *Model) here() pos {
	ix := m.ix()
	if m.sel.kind != selNone {
		r, i := int(m.sel.ref.Rank), int(m.sel.ref.Index)
		return pos{ix.time(r, i), r, i}
	}
	return pos{m.cur, -1, -1}
}

// searchNext selects the next (dir 1) or previous (dir -1) hit of the
// query on the shown ranks, wrapping around at the ends.
func (m *Model) searchNext(dir int) {
	if m.query == nil {
		m.status = "no search yet: press / to search"
		return
	}
	best, found := m.findHit(dir, m.here())
	wrapped := false
	if !found {
		edge := pos{math.Inf(-1), -1, -1}
		if dir < 0 {
			edge = pos{math.Inf(1), math.MaxInt, math.MaxInt}
		}
		best, found = m.findHit(dir, edge)
		wrapped = found
	}
	if !found {
		m.status = fmt.Sprintf("no match for %q", m.query.text)
		return
	}
	m.status = fmt.Sprintf("/%s", m.query.text)
	if wrapped {
		m.status += " (wrapped)"
	}
	m.sel = m.selectionOf(tracefmt.EventRef{Rank: int32(best.r), Index: int32(best.i)})
	m.showSelection(true, best.r)
}

// findHit returns the first hit after (dir 1) or before (dir -1) from.
// Each rank's scan starts at from's time and stops at its first hit or
// once it is past the best hit so far, so a search costs about the events
// between the cursor and the hit, not the whole trace (ranks whose clock
// runs backwards are scanned whole).
func (m *Model) findHit(dir int, from pos) (pos, bool) {
	ix := m.ix()
	var best pos
	found := false
	ahead := func(p pos) bool {
		if dir < 0 {
			return p.less(from)
		}
		return from.less(p)
	}
	better := func(p pos) bool {
		if dir < 0 {
			return best.less(p)
		}
		return p.less(best)
	}
	for _, r := range m.ranks {
		ev := m.tr.Ranks[r].Events
		// consider reports whether event i is a hit ahead of from.
		consider := func(i int) bool {
			if !m.match(m.query, ix, r, i) {
				return false
			}
			p := pos{ix.time(r, i), r, i}
			if !ahead(p) {
				return false
			}
			if !found || better(p) {
				best, found = p, true
			}
			return true
		}
		switch {
		case !ix.ranks[r].sorted:
			for i := range ev {
				consider(i)
			}
		case dir > 0:
			i := sort.Search(len(ev), func(i int) bool { return ix.time(r, i) >= from.t })
			for ; i < len(ev); i++ {
				if found && ix.time(r, i) > best.t || consider(i) {
					break
				}
			}
		default:
			i := sort.Search(len(ev), func(i int) bool { return ix.time(r, i) > from.t }) - 1
			for ; i >= 0; i-- {
				if found && ix.time(r, i) < best.t || consider(i) {
					break
				}
			}
		}
	}
	return best, found
}

// isItem reports whether event i of rank r can be stepped to: the start of
// a state, a message end or a marker.
func (m *Model) isItem(r, i int) bool {
	e := &m.tr.Ranks[r].Events[i]
	return e.Kind == tracefmt.KindSend || e.Kind == tracefmt.KindRecv || e.Kind == tracefmt.KindMarker ||
		(e.Kind == tracefmt.KindEnter && e.Match >= 0)
}

// stepItem selects the next (dir 1) or previous (dir -1) state start or
// message end on the cursor rank.
func (m *Model) stepItem(dir int) {
	if len(m.ranks) == 0 {
		return
	}
	r := m.ranks[m.row]
	ev := m.tr.Ranks[r].Events
	ix := m.ix()
	var i int
	switch {
	case m.sel.kind != selNone && int(m.sel.ref.Rank) == r:
		i = int(m.sel.ref.Index) + dir
	case m.sel.kind != selNone && int(m.sel.peer.Rank) == r:
		i = int(m.sel.peer.Index) + dir
	default:
		i = sort.Search(len(ev), func(j int) bool { return ix.time(r, j) >= m.cur })
		if dir < 0 {
			i--
		}
	}
	for ; i >= 0 && i < len(ev); i += dir {
		if m.isItem(r, i) {
			m.sel = m.selectionOf(tracefmt.EventRef{Rank: int32(r), Index: int32(i)})
			m.showSelection(false, r)
			m.cur = min(max(ix.time(r, i), m.a), m.b)
			return
		}
	}
	m.status = "no more events on this rank"
}

func indexOf(s []int, v int) int {
	for i, x := range s {
		if x == v {
			return i
		}
	}
	return -1
}

// selectAtCursor selects what is under the cursor on the cursor rank: an
// arrow end, else a message end or marker in the cursor's column, else the
// state.
func (m *Model) selectAtCursor() {
	if len(m.ranks) == 0 {
		return
	}
	r := m.ranks[m.row]
	col := m.curCol()
	for _, a := range m.arrows {
		for _, end := range [2]struct {
			ref tracefmt.EventRef
			c   int
		}{{a.sel.ref, a.c1}, {a.sel.peer, a.c2}} {
			if int(end.ref.Rank) == r && end.c == col {
				m.sel = a.sel
				return
			}
		}
	}
	ix := m.ix()
	cw := (m.b - m.a) / float64(max(m.lay.cols, 1))
	lo, hi := m.a+float64(col)*cw, m.a+float64(col+1)*cw
	best, bd := -1, math.Inf(1)
	for _, list := range [3][]int32{ix.ranks[r].sends, ix.ranks[r].recvs, ix.ranks[r].marks} {
		i0, i1 := ix.rangeIn(r, list, lo, hi)
		for _, i := range list[i0:i1] {
			if d := math.Abs(ix.time(r, int(i)) - m.cur); d < bd {
				best, bd = int(i), d
			}
		}
	}
	if best >= 0 {
		m.sel = m.selectionOf(tracefmt.EventRef{Rank: int32(r), Index: int32(best)})
		return
	}
	if k := ix.segAt(r, m.cur, cw/2); k >= 0 {
		m.sel = m.selectionOf(tracefmt.EventRef{Rank: int32(r), Index: ix.ranks[r].segs[k].enter})
		return
	}
	m.sel = selection{}
	m.status = "nothing under the cursor"
}

// handleWheel zooms around the pointer (wheel up/down) or pans (wheel
// left/right, or shift with the wheel).
func (m *Model) handleWheel(mo tea.Mouse) {
	if m.ix() == nil {
		return
	}
	x, y := mo.X-m.offX, mo.Y-m.offY
	l := m.lay
	if l.legW > 0 && x >= l.legX && y < l.footY {
		switch mo.Button {
		case tea.MouseWheelUp:
			m.legendRow = max(m.legendRow-1, 0)
		case tea.MouseWheelDown:
			m.legendRow = min(m.legendRow+1, len(m.legendStates())-1)
		}
		return
	}
	col := min(max(x-l.x0, 0), max(l.cols-1, 0))
	shift := mo.Mod.Contains(tea.ModShift)
	switch {
	case mo.Button == tea.MouseWheelLeft || (shift && mo.Button == tea.MouseWheelUp):
		m.pan(-0.125)
	case mo.Button == tea.MouseWheelRight || (shift && mo.Button == tea.MouseWheelDown):
		m.pan(0.125)
	case mo.Button == tea.MouseWheelUp:
		m.zoomAt(col, 0.5)
	case mo.Button == tea.MouseWheelDown:
		m.zoomAt(col, 2)
	}
}

// handleClick moves the cursor to the pointer and selects what is there;
// a click in the overview centres the window there, one in the legend
// shows or hides a state.
func (m *Model) handleClick(mo tea.Mouse) {
	if m.ix() == nil || mo.Button != tea.MouseLeft {
		return
	}
	x, y := mo.X-m.offX, mo.Y-m.offY
	l := m.lay
	switch {
	case l.legW > 0 && x > l.legX && y < l.footY:
		slots, per, _ := m.legendRows()
		k := (y - legendHeader) / per
		i := m.legendTop() + k
		states := m.legendStates()
		switch {
		case y < legendHeader || i < 0 || i >= len(states):
		case k >= slots:
			// The "+N more" line (or the counts under it): scroll to the
			// next state rather than toggle one that is not drawn.
			m.legendRow = i
		default:
			m.legendRow = i
			s := states[i]
			m.SetHidden(tracefmt.StateID(s), !m.hidden[s])
		}
	case x < l.x0 || x >= l.x0+l.cols:
	case y == l.overY:
		s, e := m.span()
		t := s + (float64(x-l.x0)+0.5)/float64(l.cols)*(e-s)
		w := m.b - m.a
		m.pushHistory()
		m.setWindow(t-w/2, w)
		m.cur = t
	case y >= l.areaY && y < l.areaY+l.nvis*l.per:
		m.row = min(m.top+(y-l.areaY)/l.per, len(m.ranks)-1)
		m.lane = 0
		if l.lanes == 2 && (y-l.areaY)%l.per >= l.bar {
			m.lane = 1 // the predicted row and the line under it
		}
		m.cur = m.colTime(x - l.x0)
		m.laneAction(m.selectAtCursor)
		m.syncLanes()
		m.startDrag(x - l.x0)
	}
}
