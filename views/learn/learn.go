// Package learn is the Learn tab: it shows a lesson (engine/lesson) one
// step at a time, rendered from Markdown (views/markdown), next to the live
// views. A step is done when the student has reached the tab and pressed
// the keys it names (the application reports them with ObservedMsg) and
// has answered its question correctly; the tab then moves on by itself. A
// wrong answer shows the step's hint.
//
// The view never runs a simulation: the application computes the
// expected answers (lesson.Solve) on a command goroutine and hands them
// over with SolvedMsg, and applies the machine a step asks for when the
// view sends MachineMsg. A Progress, when given, records where the
// student is and what they answered (the class server's database).
package learn

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/tracesim/tracesim/engine/causality"
	"github.com/tracesim/tracesim/engine/lesson"
	"github.com/tracesim/tracesim/engine/replay"
	"github.com/tracesim/tracesim/views/component"
	"github.com/tracesim/tracesim/views/markdown"
)

// Progress records a student's way through lessons; the class server
// implements it on its database. Calls come from the session's Bubble Tea
// goroutine, so they should be quick.
type Progress interface {
	// Reached records that the student reached step (0-based) of the
	// lesson; step == the number of steps means the lesson is finished.
	Reached(lesson string, step int)
	// Answered records an answer to step's question and whether it was
	// correct.
	Answered(lesson string, step int, answer string, correct bool)
	// Resume returns the step to resume the lesson at, ok false when
	// the student has not started it.
	Resume(lesson string) (step int, ok bool)
}

// Messages between the Learn tab and the application.
type (
	// ObservedMsg tells the Learn tab of a key the student pressed
	// outside it (tab keys included), the tab shown afterwards and, when
	// that is the Causality tab, the finding selected there.
	ObservedMsg struct {
		Key     string
		Tab     string
		Finding *causality.Finding
	}
	// SolvedMsg brings the expected answers the engine computed, one per
	// step (nil for a step without a question), or why it could not.
	SolvedMsg struct {
		Lesson  string
		Answers []*lesson.Expected
		Err     error
	}
	// PinMsg asks the application to show the lesson beside the other
	// tabs, or to stop.
	PinMsg struct{}
	// MachineMsg asks the application to make Config the machine of the
	// Machine and Simulate tabs: the step the student reached changes it.
	MachineMsg struct {
		Config replay.Config
		Name   string
	}
)

// Options configure a Learn tab.
type Options struct {
	Lesson *lesson.Lesson
	// Progress records the student's progress; nil records nothing.
	Progress Progress
	// Tabs are the application's tab names in order (keys 1–9), so that
	// a step's tab key counts as pressed when that tab is already shown.
	Tabs []string
}

// feedback kinds.
const (
	fbNone = iota
	fbRight
	fbWrong
	fbInvalid
	fbInfo
)

// Model is the Learn tab.
type Model struct {
	common component.Common // the session and the tab's (or pane's) size
	keys   KeyMap
	opts   Options
	l      *lesson.Lesson

	step   int // current step; len(l.Steps) once finished
	keyPos int // keys of the step pressed so far, in order
	tabOK  bool
	right  bool // the step's question was answered correctly
	cont   bool // a step with nothing to do was read (enter)
	tab    string

	want     []*lesson.Expected
	solveErr error
	// finding is the last finding seen selected in the Causality tab:
	// the answer to a question of a finding.
	finding *causality.Finding

	answering bool
	input     textinput.Model
	fb        int
	fbText    string
	tries     int // answers given to the current question
	// answered and wrong count the checked answers of the session, for
	// the summary at the end.
	answered, wrong int

	top     int // first body line shown
	started bool

	// The last body drawn and what it was drawn for.
	bodyKey   string
	bodyLines []string
}

var _ component.Model = (*Model)(nil)

// New returns a Learn tab on o.Lesson, resuming where o.Progress says.
func New(c component.Common, o Options) *Model {
	ti := textinput.New()
	ti.Prompt = "answer: "
	ti.CharLimit = 64
	m := &Model{common: c, keys: DefaultKeyMap(), opts: o, l: o.Lesson, input: ti}
	if o.Progress != nil && m.l != nil {
		if s, ok := o.Progress.Resume(m.l.Name); ok && s >= 0 {
			m.step = min(s, len(m.l.Steps))
		}
	}
	return m
}

// Lesson returns the lesson shown.
func (m *Model) Lesson() *lesson.Lesson { return m.l }

// Step returns the current step (the number of steps once finished).
func (m *Model) Step() int { return m.step }

// Finished reports whether every step is done.
func (m *Model) Finished() bool { return m.l == nil || m.step >= len(m.l.Steps) }

// Capturing reports whether the answer box is open: it takes every key.
func (m *Model) Capturing() bool { return m.answering }

// Init implements component.Model: it records the step the student
// starts at, once (the application calls Init again when the tab is
// shown after another trace was opened).
func (m *Model) Init() tea.Cmd {
	if m.l != nil && m.opts.Progress != nil && !m.started {
		m.opts.Progress.Reached(m.l.Name, m.step)
	}
	m.started = true
	return nil
}

// SetSize implements component.Model. The application also draws the
// Learn tab as a narrower pane beside another tab, at the pane's size.
func (m *Model) SetSize(width, height int) {
	m.common.SetSize(width, height)
	m.input.SetWidth(max(width-12, 8))
}

// ShortHelp implements help.KeyMap.
func (m *Model) ShortHelp() []key.Binding { return m.keys.ShortHelp() }

// FullHelp implements help.KeyMap.
func (m *Model) FullHelp() [][]key.Binding { return m.keys.FullHelp() }

// Update implements component.Model.
func (m *Model) Update(msg tea.Msg) (component.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case SolvedMsg:
		if m.l != nil && msg.Lesson == m.l.Name {
			m.want, m.solveErr = msg.Answers, msg.Err
		}
		return m, nil
	case ObservedMsg:
		return m, m.observe(msg)
	case tea.KeyPressMsg:
		return m, m.key(msg)
	case tea.PasteMsg:
		if m.answering {
			var cmd tea.Cmd
			m.input, cmd = m.input.Update(msg)
			return m, cmd
		}
	}
	return m, nil
}

func (m *Model) current() *lesson.Step {
	if m.Finished() {
		return nil
	}
	return &m.l.Steps[m.step]
}

// observe follows what the student does in the other tabs.
func (m *Model) observe(o ObservedMsg) tea.Cmd {
	m.tab = o.Tab
	if o.Finding != nil {
		f := *o.Finding
		m.finding = &f
	}
	st := m.current()
	if st == nil {
		return nil
	}
	if st.Tab != "" && strings.EqualFold(st.Tab, o.Tab) {
		m.tabOK = true
	}
	if m.keyPos < len(st.Keys) && st.Keys[m.keyPos] == o.Key {
		m.keyPos++
	}
	m.skipShownTab()
	return m.advance()
}

// skipShownTab counts the step's next key as pressed when it selects the
// tab already shown: a student who stays in the Simulate tab need not
// leave it to press 7 again.
func (m *Model) skipShownTab() {
	st := m.current()
	if st == nil || m.tab == "" {
		return
	}
	for m.keyPos < len(st.Keys) {
		n, err := strconv.Atoi(st.Keys[m.keyPos])
		if err != nil || n < 1 || n > len(m.opts.Tabs) || m.opts.Tabs[n-1] != m.tab {
			return
		}
		m.keyPos++
	}
}

// stepDone reports whether the current step's tasks are all done.
func (m *Model) stepDone() bool {
	st := m.current()
	if st == nil {
		return false
	}
	if len(st.Keys) == 0 && st.Tab == "" && st.Question == nil {
		return m.cont
	}
	return m.keyPos >= len(st.Keys) && (st.Tab == "" || m.tabOK) && (st.Question == nil || m.right)
}

// advance moves past every done step, recording each step reached, and
// asks for the machine of the new step when it changes it.
func (m *Model) advance() tea.Cmd {
	var cmd tea.Cmd
	for m.stepDone() {
		m.step++
		m.keyPos, m.tabOK, m.right, m.cont, m.tries, m.top = 0, false, false, false, 0, 0
		if m.fb != fbRight {
			// A hint or a notice was about the step just done; the
			// last right answer stays, naming its step.
			m.fb, m.fbText = fbNone, ""
		}
		m.answering = false
		m.input.Blur()
		if m.opts.Progress != nil {
			m.opts.Progress.Reached(m.l.Name, m.step)
		}
		st := m.current()
		if st == nil {
			break
		}
		m.skipShownTab()
		if len(st.Settings) > 0 {
			if cfg, err := m.l.Config(m.step); err == nil {
				msg := MachineMsg{Config: cfg, Name: m.l.MachineName(m.step)}
				cmd = func() tea.Msg { return msg }
			} else {
				m.fb, m.fbText = fbInvalid, err.Error()
			}
		}
	}
	return cmd
}

func (m *Model) key(msg tea.KeyPressMsg) tea.Cmd {
	k := m.keys
	if m.answering {
		switch {
		case key.Matches(msg, k.Cancel):
			m.answering = false
			m.input.Blur()
			return nil
		case key.Matches(msg, k.Submit):
			return m.submit()
		}
		var cmd tea.Cmd
		m.input, cmd = m.input.Update(msg)
		return cmd
	}
	st := m.current()
	switch {
	case key.Matches(msg, k.Answer) && st != nil:
		if st.Question == nil || m.right {
			if len(st.Keys) == 0 && st.Tab == "" && st.Question == nil {
				m.cont = true
				return m.advance()
			}
			m.fb, m.fbText = fbInfo, "This step asks for "+m.todo(st)+" first."
			return nil
		}
		if st.Question.Answer.Kind.Selected() {
			return m.submitFinding()
		}
		m.answering = true
		m.input.SetValue("")
		return m.input.Focus()
	case key.Matches(msg, k.Pin):
		return func() tea.Msg { return PinMsg{} }
	}
	if d, ok := k.List.Move(msg, m.common.Height-6); ok {
		// View clamps top to the lesson; home and end move by half an
		// int, so top stays far from overflowing until then.
		m.top = min(max(m.top+d, 0), math.MaxInt/2)
	}
	return nil
}

// ready reports whether the current step's expected answer is known,
// saying why not in the feedback line.
func (m *Model) ready() bool {
	switch {
	case m.solveErr != nil:
		m.fb, m.fbText = fbInvalid, "The answers cannot be computed: "+m.solveErr.Error()
		return false
	case m.want == nil || m.step >= len(m.want) || m.want[m.step] == nil:
		m.fb, m.fbText = fbInfo, "The expected answers are still being computed: try again in a moment."
		return false
	}
	return true
}

// submit checks the typed answer.
func (m *Model) submit() tea.Cmd {
	st := m.current()
	if st == nil || st.Question == nil {
		m.answering = false
		return nil
	}
	in := strings.TrimSpace(m.input.Value())
	if !m.ready() {
		return nil
	}
	if in == "" && m.fb == fbWrong {
		// An enter pressed twice after a wrong answer must not replace
		// the hint with "type a number": the box stays open for the
		// next try.
		return nil
	}
	ok, err := st.Question.Check(*m.want[m.step], in)
	if err != nil {
		m.fb, m.fbText = fbInvalid, err.Error()+"."
		return nil
	}
	return m.record(st, in, ok)
}

// submitFinding answers a question of a finding with the one selected in
// the Causality tab.
func (m *Model) submitFinding() tea.Cmd {
	st := m.current()
	if !m.ready() {
		return nil
	}
	if m.finding == nil {
		m.fb, m.fbText = fbInfo, "Select a finding in the Causality tab (5) first, then press enter here."
		return nil
	}
	return m.record(st, lesson.DescribeFinding(*m.finding), st.Question.CheckFinding(*m.want[m.step], *m.finding))
}

// record counts and records an answer, shows whether it was right and
// moves on when the step is done.
func (m *Model) record(st *lesson.Step, in string, ok bool) tea.Cmd {
	m.tries++
	m.answered++
	if !ok {
		m.wrong++
	}
	if m.opts.Progress != nil {
		m.opts.Progress.Answered(m.l.Name, m.step, in, ok)
	}
	m.answering = false
	m.input.Blur()
	if !ok {
		m.fb, m.fbText = fbWrong, fmt.Sprintf("%s is not right. Hint: %s", in, st.Question.Hint)
		return nil
	}
	m.right = true
	m.fb, m.fbText = fbRight, fmt.Sprintf("Right: %s (step %d).", m.want[m.step].Format(st.Question), m.step+1)
	return m.advance()
}

// todo says what remains of the step's keys and tab.
func (m *Model) todo(st *lesson.Step) string {
	var parts []string
	if m.keyPos < len(st.Keys) {
		parts = append(parts, "the keys "+strings.Join(st.Keys[m.keyPos:], " "))
	}
	if st.Tab != "" && !m.tabOK {
		parts = append(parts, "the "+st.Tab+" tab")
	}
	if len(parts) == 0 {
		return "nothing more"
	}
	return strings.Join(parts, " and ")
}

// markdown is the current step as one Markdown document.
func (m *Model) markdown() string {
	var b strings.Builder
	if m.step == 0 && m.l.Intro != "" {
		b.WriteString(m.l.Intro + "\n\n")
	}
	st := m.current()
	if st == nil {
		fmt.Fprintf(&b, "## Lesson complete\n\nYou have done the %d steps of *%s*", len(m.l.Steps), m.l.Title)
		if m.answered > 0 {
			fmt.Fprintf(&b, ", with %d answers of which %d wrong", m.answered, m.wrong)
		}
		b.WriteString(".\n\nThe tabs stay open: try other machines in the Machine tab (6) and run them in the Simulate tab (7).")
		return b.String()
	}
	fmt.Fprintf(&b, "## %d. %s\n\n%s\n", m.step+1, st.Title, st.Text)
	if q := st.Question; q != nil {
		fmt.Fprintf(&b, "\n> **Question:** %s\n", q.Text)
	}
	return b.String()
}

// body draws the step's Markdown, wrapped to the width; the lines are
// kept until the step, the width or the theme changes.
func (m *Model) body(w int) []string {
	th := m.common.Theme
	name := ""
	if th != nil {
		name = th.Name
	}
	key := fmt.Sprintf("%d|%d|%s|%d|%d", m.step, w, name, m.answered, m.wrong)
	if key == m.bodyKey {
		return m.bodyLines
	}
	lines := markdown.Render(m.markdown(), max(w-6, 20), markdown.StylesFor(th))
	for i, l := range lines {
		lines[i] = "  " + l
	}
	m.bodyKey, m.bodyLines = key, lines
	return lines
}

// View implements component.Model: the lesson's title and steps, the
// current step rendered, then what it asks for and the answer box.
func (m *Model) View() string {
	w, h := m.common.Width, m.common.Height
	if m.l == nil {
		return component.Fit([]string{"", "  No lesson."}, w, h)
	}
	st := m.common.Theme.Styles
	where := fmt.Sprintf("  %s · step %d/%d", m.l.Level, m.step+1, len(m.l.Steps))
	if m.Finished() {
		where = fmt.Sprintf("  %s · done", m.l.Level)
	}
	head := []string{
		st.Title.Render(" "+m.l.Title+" ") + st.Dim.Render(where),
		m.strip(),
	}
	foot := m.footer()
	room := max(h-len(head)-len(foot), 1)
	body := m.body(w)
	m.top = max(min(m.top, len(body)-room), 0)
	end := min(m.top+room, len(body))
	lines := append(head, body[m.top:end]...)
	for len(lines) < h-len(foot) {
		lines = append(lines, "")
	}
	lines = append(lines, foot...)
	return component.Fit(lines, w, h)
}

// strip lists the steps: done, current, to come.
func (m *Model) strip() string {
	st := m.common.Theme.Styles
	var parts []string
	for i, s := range m.l.Steps {
		switch {
		case i < m.step:
			parts = append(parts, st.Dim.Render("✓ "+s.Title))
		case i == m.step:
			parts = append(parts, st.Selected.Render("▶ "+s.Title))
		default:
			parts = append(parts, st.Dim.Render("· "+s.Title))
		}
	}
	return " " + strings.Join(parts, "  ")
}

// footer is the step's tasks, the feedback and the answer box.
func (m *Model) footer() []string {
	th := m.common.Theme.Styles
	var out []string
	if s := m.current(); s != nil {
		var tasks []string
		if len(s.Keys) > 0 {
			var ks []string
			for i, k := range s.Keys {
				if i < m.keyPos {
					ks = append(ks, th.Dim.Render("✓"+k))
				} else {
					ks = append(ks, th.HelpKey.Render(k))
				}
			}
			tasks = append(tasks, "press "+strings.Join(ks, " "))
		}
		if s.Tab != "" {
			mark := th.HelpKey.Render(s.Tab)
			if m.tabOK {
				mark = th.Dim.Render("✓" + s.Tab)
			}
			tasks = append(tasks, "go to the "+mark+" tab")
		}
		switch {
		case s.Question != nil && !m.right && s.Question.Answer.Kind.Selected():
			tasks = append(tasks, "select it in the Causality tab, "+th.HelpKey.Render("enter")+" here to answer")
		case s.Question != nil && !m.right:
			tasks = append(tasks, th.HelpKey.Render("enter")+" to answer")
		case s.Question == nil && len(s.Keys) == 0 && s.Tab == "":
			tasks = append(tasks, th.HelpKey.Render("enter")+" to go on")
		}
		if m.want == nil && m.solveErr == nil && hasQuestions(m.l) {
			tasks = append(tasks, th.Dim.Render("(computing the answers…)"))
		}
		out = append(out, wrapANSI(" To do: "+strings.Join(tasks, ", "), m.common.Width)...)
		if q := s.Question; q != nil && !m.right && q.Answer.Kind.Selected() {
			sel := "nothing selected yet"
			if m.finding != nil {
				sel = lesson.DescribeFinding(*m.finding)
			}
			out = append(out, wrapANSI(" Selected: "+sel, m.common.Width)...)
		}
	}
	switch m.fb {
	case fbRight:
		txt := "✓ " + m.fbText
		if s := m.current(); s != nil && m.right {
			// Answered, but the step's keys or tab remain.
			txt += " Now " + m.todo(s) + "."
		}
		out = append(out, wrapANSI(" "+th.Bold.Render(txt), m.common.Width)...)
	case fbWrong:
		out = append(out, wrapStyled(th.Warn.Render, "✗ "+m.fbText, m.common.Width-2)...)
	case fbInvalid:
		out = append(out, wrapStyled(th.Error.Render, "! "+m.fbText, m.common.Width-2)...)
	case fbInfo:
		out = append(out, wrapStyled(th.Dim.Render, m.fbText, m.common.Width-2)...)
	}
	if m.answering {
		unit := ""
		if q := m.current().Question; q != nil && q.Unit != "" {
			unit = th.Dim.Render("  (in " + q.Unit + "; enter checks, esc closes)")
		} else {
			unit = th.Dim.Render("  (enter checks, esc closes)")
		}
		out = append(out, " "+m.input.View()+unit)
	}
	return out
}

func hasQuestions(l *lesson.Lesson) bool {
	for _, s := range l.Steps {
		if s.Question != nil {
			return true
		}
	}
	return false
}

// wrapANSI wraps a styled line at w cells (component.Wrap), keeping its
// leading spaces, continuation lines indented by one.
func wrapANSI(s string, w int) []string {
	text := strings.TrimLeft(s, " ")
	lead := s[:len(s)-len(text)]
	lines := component.Wrap(text, max(w-1, 10)-len(lead), 0)
	for i := range lines {
		if i == 0 {
			lines[i] = lead + lines[i]
		} else {
			lines[i] = " " + lines[i]
		}
	}
	return lines
}

// wrapStyled wraps s at spaces into lines of at most w cells, each styled
// and indented by one space.
func wrapStyled(style func(...string) string, s string, w int) []string {
	lines := component.Wrap(s, max(w, 10), 0)
	for i, l := range lines {
		lines[i] = " " + style(l)
	}
	return lines
}
