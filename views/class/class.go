// Package class is the Class tab a teacher gets from `tracesim serve
// --class-db`: every student of the class database (internal/classdb)
// with their current lesson and step, their right and wrong answers,
// the time on their step and who is stuck (no new step for a while),
// refreshed live.
//
// The view never blocks on the database: it reads the class on a command
// goroutine (Options.Source) and asks again Options.Refresh after each
// answer, so a student's step shows on the teacher's screen within about
// Refresh plus one read.
package class

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/tracesim/tracesim/internal/classdb"
	"github.com/tracesim/tracesim/tracefmt/units"
	"github.com/tracesim/tracesim/views/cellbuf"
	"github.com/tracesim/tracesim/views/component"
)

// Defaults for the zero values of Options.
const (
	DefaultRefresh    = 250 * time.Millisecond
	DefaultStuckAfter = 5 * time.Minute
)

// Options configure a Class tab.
type Options struct {
	// Source reads the class (classdb.DB.Class); it runs on a command
	// goroutine.
	Source func(context.Context) ([]classdb.Student, error)
	// Online, when set, returns the keys of the students connected now;
	// nil shows no online column.
	Online func() map[string]bool
	// StuckAfter is how long a student may stay on one step before the
	// tab calls them stuck; 0 means DefaultStuckAfter.
	StuckAfter time.Duration
	// Refresh is the pause between two reads; 0 means DefaultRefresh.
	Refresh time.Duration
	// Now is the clock; nil means time.Now (goldens give a fixed one).
	Now func() time.Time
	// Context ends the reads (the session's); nil means Background.
	Context context.Context
}

// Sort orders.
const (
	byName = iota
	byStuck
	byProgress
	nSorts
)

// sortName names a sort order for the tab's second line.
func sortName(s int) string {
	switch s {
	case byStuck:
		return "time on step"
	case byProgress:
		return "progress"
	}
	return "name"
}

// Messages of the tab's refresh loop, addressed to one view and one
// loop of it (gen), so that a view rebuilt by the application, or Init
// called again, never leaves two loops running.
type (
	refreshMsg struct {
		owner *Model
		gen   int
	}
	classMsg struct {
		owner    *Model
		gen      int
		students []classdb.Student
		online   map[string]bool
		err      error
		at       time.Time
	}
)

// Model is the Class tab.
type Model struct {
	common component.Common
	keys   KeyMap
	opts   Options

	gen      int               // the refresh loop running; Init starts a new one
	fetched  []classdb.Student // as read: by name
	students []classdb.Student // in display order
	online   map[string]bool
	err      error
	at       time.Time // when students was read
	reads    int

	sort   int
	cursor int    // index in students
	curKey string // the key under the cursor, kept across reads
	top    int
}

var _ component.Model = (*Model)(nil)

// New returns a Class tab reading o.Source.
func New(c component.Common, o Options) *Model {
	if o.StuckAfter <= 0 {
		o.StuckAfter = DefaultStuckAfter
	}
	if o.Refresh <= 0 {
		o.Refresh = DefaultRefresh
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Context == nil {
		o.Context = context.Background()
	}
	return &Model{common: c, keys: DefaultKeyMap(), opts: o}
}

// Init implements component.Model: it starts the refresh loop, ending
// any loop started before (the application may drop the command of an
// Init and call it again).
func (m *Model) Init() tea.Cmd {
	if m.opts.Source == nil {
		return nil
	}
	m.gen++
	return m.read()
}

// read reads the class in the background.
func (m *Model) read() tea.Cmd {
	src, online, ctx, now, gen := m.opts.Source, m.opts.Online, m.opts.Context, m.opts.Now, m.gen
	return func() tea.Msg {
		st, err := src(ctx)
		msg := classMsg{owner: m, gen: gen, students: st, err: err, at: now()}
		if online != nil {
			msg.online = online()
		}
		return msg
	}
}

// Reads returns how many reads of the class the tab has shown.
func (m *Model) Reads() int { return m.reads }

// Students returns the students shown, in display order.
func (m *Model) Students() []classdb.Student { return m.students }

// SetSize implements component.Model.
func (m *Model) SetSize(width, height int) { m.common.SetSize(width, height) }

// ShortHelp implements help.KeyMap.
func (m *Model) ShortHelp() []key.Binding { return m.keys.ShortHelp() }

// FullHelp implements help.KeyMap.
func (m *Model) FullHelp() [][]key.Binding { return m.keys.FullHelp() }

// Update implements component.Model.
func (m *Model) Update(msg tea.Msg) (component.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case classMsg:
		if msg.owner != m || msg.gen != m.gen {
			return m, nil
		}
		m.reads++
		m.err = msg.err
		if msg.err == nil {
			m.fetched, m.online, m.at = msg.students, msg.online, msg.at
			m.order()
		}
		if m.opts.Context.Err() != nil {
			return m, nil
		}
		gen := m.gen
		return m, tea.Tick(m.opts.Refresh, func(time.Time) tea.Msg { return refreshMsg{m, gen} })
	case refreshMsg:
		if msg.owner != m || msg.gen != m.gen || m.opts.Context.Err() != nil {
			return m, nil
		}
		return m, m.read()
	case tea.KeyPressMsg:
		m.key(msg)
	}
	return m, nil
}

func (m *Model) key(msg tea.KeyPressMsg) {
	if d, ok := m.keys.List.Move(msg, m.rowsShown()); ok {
		m.move(m.cursor + d) // clamped: home and end move by half an int

		return
	}
	if key.Matches(msg, m.keys.Sort) {
		m.sort = (m.sort + 1) % nSorts
		m.order()
	}
}

// move puts the cursor on student i (clamped).
func (m *Model) move(i int) {
	if len(m.students) == 0 {
		m.cursor, m.curKey = 0, ""
		return
	}
	m.cursor = min(max(i, 0), len(m.students)-1)
	m.curKey = m.students[m.cursor].Key
}

// onStep is how long s has been on their step at now.
func onStep(s classdb.Student, now time.Time) time.Duration {
	if s.StepSince.IsZero() {
		return 0
	}
	return max(now.Sub(s.StepSince), 0)
}

// Status of a student.
const (
	stNone    = "not started"
	stDone    = "done"
	stStuck   = "stuck"
	stWorking = "working"
	stAway    = "away"
)

// status says what s is doing at now.
func (m *Model) status(s classdb.Student, now time.Time) string {
	switch {
	case s.Lesson == "":
		return stNone
	case s.Finished():
		return stDone
	case m.online != nil && !m.online[s.Key]:
		return stAway
	case onStep(s, now) >= m.opts.StuckAfter:
		return stStuck
	}
	return stWorking
}

// order sorts the students for display, keeping the cursor on the same
// student.
func (m *Model) order() {
	now := m.at
	m.students = append(m.students[:0], m.fetched...)
	switch m.sort {
	case byStuck:
		slices.SortStableFunc(m.students, func(a, b classdb.Student) int {
			sa, sb := m.status(a, now) == stStuck, m.status(b, now) == stStuck
			if sa != sb {
				if sa {
					return -1
				}
				return 1
			}
			return int(onStep(b, now) - onStep(a, now))
		})
	case byProgress:
		frac := func(s classdb.Student) float64 {
			if s.Steps == 0 {
				return 0
			}
			return float64(s.Step) / float64(s.Steps)
		}
		slices.SortStableFunc(m.students, func(a, b classdb.Student) int {
			switch fa, fb := frac(a), frac(b); {
			case fa < fb:
				return -1
			case fa > fb:
				return 1
			}
			return 0
		})
	}
	// byName is the database's own order.
	m.cursor = 0
	for i, s := range m.students {
		if s.Key == m.curKey {
			m.cursor = i
		}
	}
	m.move(m.cursor)
}

// rowsShown is the number of student rows the view has room for.
func (m *Model) rowsShown() int { return m.common.Height - 3 }

// column of the table.
type column struct {
	title string
	width int
	right bool
}

// View implements component.Model.
func (m *Model) View() string {
	w, h := m.common.Width, m.common.Height
	st := m.common.Theme.Styles
	now := m.at
	var lines []string
	lines = append(lines, m.summary(now))
	if m.err != nil {
		lines = append(lines, st.Error.Render(ansi.Truncate(m.err.Error(), w, "…")))
	} else {
		lines = append(lines, st.Dim.Render(fmt.Sprintf("sorted by %s · stuck: no new step for %s", sortName(m.sort), units.FormatElapsed(m.opts.StuckAfter.Seconds()))))
	}
	if len(m.students) == 0 {
		lines = append(lines, "", "No student has connected yet: their lesson and step show here as soon as they do.")
		return component.Fit(lines, w, h)
	}
	cols := m.columns(w)
	var hdr []string
	for _, c := range cols {
		hdr = append(hdr, pad(c.title, c.width, c.right))
	}
	lines = append(lines, st.TableHeader.Render(strings.Join(hdr, " ")))

	rows := max(m.rowsShown(), 1)
	if m.cursor < m.top {
		m.top = m.cursor
	}
	if m.cursor >= m.top+rows {
		m.top = m.cursor - rows + 1
	}
	m.top = min(m.top, max(len(m.students)-rows, 0))
	for i := m.top; i < len(m.students) && i < m.top+rows; i++ {
		lines = append(lines, m.row(m.students[i], cols, now, i == m.cursor))
	}
	return component.Fit(lines, w, h)
}

// summary is the first line: the class in numbers.
func (m *Model) summary(now time.Time) string {
	st := m.common.Theme.Styles
	var stuck, done int
	for _, s := range m.students {
		switch m.status(s, now) {
		case stStuck:
			stuck++
		case stDone:
			done++
		}
	}
	noun := "students"
	if len(m.students) == 1 {
		noun = "student"
	}
	parts := []string{st.Bold.Render(fmt.Sprintf("%d %s", len(m.students), noun))}
	if m.online != nil {
		n := 0
		for _, s := range m.students {
			if m.online[s.Key] {
				n++
			}
		}
		parts = append(parts, fmt.Sprintf("%d online", n))
	}
	stuckText := fmt.Sprintf("%d stuck", stuck)
	if stuck > 0 {
		stuckText = st.Error.Render(stuckText)
	}
	parts = append(parts, stuckText, fmt.Sprintf("%d finished", done))
	if !m.at.IsZero() {
		parts = append(parts, st.Dim.Render("updated "+m.at.Format("15:04:05")))
	}
	return strings.Join(parts, " · ")
}

// columns lays the table out in w cells: the name and lesson columns
// take what the fixed ones leave, and a progress bar appears when wide.
func (m *Model) columns(w int) []column {
	fixed := []column{
		{"step", 7, true}, {"right", 5, true}, {"wrong", 5, true}, {"on step", 7, true}, {"status", 11, false},
	}
	used := len(fixed) + 1 // separators
	for _, c := range fixed {
		used += c.width
	}
	bar := 0
	if w >= 110 {
		bar = 20
		used += bar + 1
	}
	flex := max(w-used, 16)
	name := min(max(flex/2, 8), 28)
	lessonW := min(max(flex-name, 8), 32)
	cols := []column{{"student", name, false}, {"lesson", lessonW, false}, fixed[0]}
	if bar > 0 {
		cols = append(cols, column{"progress", bar, false})
	}
	return append(cols, fixed[1:]...)
}

// row draws student s in cols.
func (m *Model) row(s classdb.Student, cols []column, now time.Time, selected bool) string {
	st := m.common.Theme.Styles
	status := m.status(s, now)
	var cells []string
	for _, c := range cols {
		var v string
		switch c.title {
		case "student":
			v = s.Label()
		case "lesson":
			v = s.Lesson
			if v == "" {
				v = "–"
			}
		case "step":
			if s.Lesson != "" {
				v = fmt.Sprintf("%d/%d", min(s.Step+1, s.Steps), s.Steps)
			}
		case "progress":
			v = bar(s, c.width)
		case "right":
			v = fmt.Sprint(s.Right)
		case "wrong":
			v = fmt.Sprint(s.Wrong)
		case "on step":
			if s.Lesson != "" && !s.Finished() {
				v = units.FormatElapsed(onStep(s, now).Seconds())
			}
		case "status":
			v = status
		}
		cell := pad(v, c.width, c.right)
		if c.title == "status" && !selected {
			switch status {
			case stStuck:
				cell = st.Error.Render(cell)
			case stDone:
				cell = st.Bold.Render(cell)
			case stAway, stNone:
				cell = st.Dim.Render(cell)
			}
		}
		cells = append(cells, cell)
	}
	line := strings.Join(cells, " ")
	if selected {
		return st.TableSelected.Render(line)
	}
	return line
}

// bar draws s's progress through their lesson in w cells, to an eighth
// of a cell (cellbuf.HBar, the kit's bar), unstyled so that a selected
// row's style covers it.
func bar(s classdb.Student, w int) string {
	if s.Steps == 0 || w <= 0 {
		return ""
	}
	b := cellbuf.New(w, 1)
	b.HBar(0, 0, w, float64(s.Step)/float64(s.Steps), cellbuf.Style{}, '░', cellbuf.Style{})
	return b.Render()
}

// pad fits s in w cells, cut with … or padded on the left (right) or
// the right.
func pad(s string, w int, right bool) string {
	s = ansi.Truncate(s, w, "…")
	fill := strings.Repeat(" ", max(w-ansi.StringWidth(s), 0))
	if right {
		return fill + s
	}
	return s + fill
}
