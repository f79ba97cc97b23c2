// Package tui is tracesim's terminal application: the root Bubble Tea
// model that holds the loaded trace, the tab bar of views (Timeline,
// Matrix, Sizes, Stats, …), the status bar, the help overlay, the file
// picker and trace loading with progress.
//
// Everything lives in the Model: one Model per program, so that many SSH
// sessions can run side by side in one process. Keys go first to whatever
// has focus (the loading screen, the picker, the help overlay, a view's
// text input), then to the global bindings, then to the active view.
//
// # Adding a view
//
// A tab is a name and a constructor (Tab); DefaultTabs lists them in
// tab-bar order, so a new view is one line there. Views are built the
// first time their tab is shown and rebuilt when another trace is opened;
// they share one component.Session (the theme, the derived-data cache,
// the file space, the what-if machine) and each gets its own size.
// Besides component.Model a view may implement the optional interfaces Windower, WindowSetter, Selector, AltSetter, SweepSetter and
// InputCapturer. Messages the application does not know are passed to
// every view that exists, so a view's background work can report while
// another tab is shown.
package tui

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/tracesim/tracesim/internal/userfile"
	"github.com/tracesim/tracesim/themes"
	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/tracefmt/units"
	"github.com/tracesim/tracesim/views/component"
	"github.com/tracesim/tracesim/views/derived"
	"github.com/tracesim/tracesim/views/learn"
	sweepview "github.com/tracesim/tracesim/views/sweep"
)

// Model is the application's root model.
type Model struct {
	opts   Options
	ctx    context.Context
	keys   KeyMap
	common component.Common // the session every view shares, and the view area's size
	dark   bool             // the terminal's background, as last reported

	tabs   []Tab
	views  []component.Model // nil until a tab is first shown
	active int

	tr   *tracefmt.Trace
	path string
	sum  string // "16 ranks · 4608 events", computed once per trace
	// span bounds the trace: times shown count from its start, as the
	// Timeline's ruler does.
	span  *derived.Span
	alt   *tracefmt.Trace
	label string // alt's label
	// pred and predLabel are the latest simulated replay, which views
	// built later get too.
	pred      *tracefmt.Trace
	predLabel string
	// predicting: the Simulate tab runs the prediction of an untimed
	// trace that setTrace asked for.
	predicting bool

	width, height int

	showHelp bool
	helpTop  int // first line of the help shown, when it scrolls
	help     help.Model
	picker   *picker
	load     *loading
	loadSeq  int
	status   string // transient message
	statusID int
	err      string // the last load error, shown until the next key

	// frame cache: the whole screen is recomposed only when one of its
	// parts changed.
	frame    string
	frameKey frameKey
	frames   int // recompositions, for tests

	// The bars are cached too: most messages change neither.
	tabKey  barKey
	tabLine string
	tabX    [][2]int // each tab's columns in the tab bar, for clicks
	// tabBars keeps the tab bar of each active tab at tabKey's width and
	// theme: switching tabs (tab, shift+tab, digits) draws each bar once,
	// not with lipgloss on every switch.
	tabBars    map[int]tabBarLine
	statusKey  statusKey
	statusLine string

	// sim is the budget used by the simulation under way (simulation.go).
	sim simUse
	// sweep is the sweep the Sweep tab shows (nil: none yet), sweepRun
	// the one under way and sweepGen its number (sweep.go).
	sweep    *sweepview.State
	sweepRun *sweepRun
	sweepGen int
	// lesson is the session's lesson and its Learn tab (lesson.go), nil
	// without one.
	lesson *lessonState
}

// tabBarLine is a tab bar drawn for one active tab.
type tabBarLine struct {
	line string
	x    [][2]int
}

// barKey is what the tab bar depends on.
type barKey struct {
	active, width int
	theme         *themes.Theme
}

// statusKey is what the status bar depends on.
type statusKey struct {
	width            int
	theme            *themes.Theme
	tr               *tracefmt.Trace
	path, label      string
	status, err, sel string
	win              int // the Windower's tab, or −1
	start, end       float64
}

// frameKey is what the composed frame depends on.
type frameKey struct {
	body, top, bottom string
}

// New returns the application model for one session.
func New(opts Options) *Model {
	ctx := opts.Context
	if ctx == nil {
		ctx = context.Background()
	}
	tabs := opts.Tabs
	if tabs == nil {
		tabs = DefaultTabs()
	}
	m := &Model{
		opts: opts, ctx: ctx, keys: DefaultKeyMap().Rebind(opts.Keys), dark: true,
		tabs: tabs, views: make([]component.Model, len(tabs)),
		help: help.New(),
	}
	// Without a server's cache the session keeps its own, so that its
	// views still derive each thing once (the Causality tab and the
	// Timeline's cone share one graph; three views share the span).
	d := opts.Derived
	if d == nil {
		d = derived.New()
	}
	// Views open the files a session names (graphs, maps,
	// configurations) through Files only, so a library confines them.
	files := opts.Files
	if files == nil && opts.Library != "" {
		files = userfile.DirSpace(opts.Library, "")
	}
	// The Machine tab's configuration, which the Simulate tab runs, is
	// per session (starting from the preset the options name) and kept
	// when another trace rebuilds the views.
	m.common = component.New(&component.Session{Theme: opts.theme(true), Derived: d, Files: files,
		WhatIf: presetWhatIf(opts.Preset)}, 0, 0)
	if opts.Lesson != nil {
		m.tabs = m.setupLesson(opts.Tabs)
		m.views = make([]component.Model, len(m.tabs))
		m.active = m.lesson.tab
	}
	for i, t := range m.tabs {
		if opts.StartTab != "" && t.Name == opts.StartTab {
			m.active = i
		}
	}
	m.styleHelp()
	// A sensible size until the terminal reports its own, so that a View
	// before the first WindowSizeMsg (tests, benchmarks) draws something.
	m.resize(80, 24)
	if opts.Trace != nil {
		m.setTrace(opts.Trace, opts.Path)
	}
	return m
}

// Init implements tea.Model: ask the terminal for its background colour
// (to pick dark or light) and start loading Path if no trace was given,
// or open the picker on the Library if there is no Path either.
func (m *Model) Init() tea.Cmd {
	cmds := []tea.Cmd{tea.RequestBackgroundColor}
	switch {
	case m.tr == nil && m.opts.Path != "":
		cmds = append(cmds, m.startLoad(m.opts.Path))
	case m.tr == nil && m.opts.Library != "":
		// Nothing to show yet but a library to choose from.
		cmds = append(cmds, m.openPicker())
	}
	if v := m.views[m.active]; v != nil {
		cmds = append(cmds, v.Init())
	}
	if m.tr != nil && !m.tr.Timed && m.pred == nil && !m.predicting {
		cmds = append(cmds, m.predict())
	}
	cmds = append(cmds, m.solveLesson())
	return tea.Batch(cmds...)
}

// Trace returns the loaded trace (nil while none is).
func (m *Model) Trace() *tracefmt.Trace { return m.tr }

// Active returns the index of the active tab.
func (m *Model) Active() int { return m.active }

// TabNames returns the names of the tabs in order.
func (m *Model) TabNames() []string {
	out := make([]string, len(m.tabs))
	for i, t := range m.tabs {
		out[i] = t.Name
	}
	return out
}

// ViewOf returns tab i's view, building it if needed (nil when no trace
// is loaded).
func (m *Model) ViewOf(i int) component.Model {
	if i < 0 || i >= len(m.tabs) {
		return nil
	}
	return m.build(i)
}

// setTrace makes tr the loaded trace: every view is rebuilt lazily.
func (m *Model) setTrace(tr *tracefmt.Trace, path string) tea.Cmd {
	m.tr, m.path = tr, path
	m.alt, m.label = nil, ""
	m.pred, m.predLabel = nil, ""
	for i := range m.views {
		m.views[i] = nil
	}
	m.sum = fmt.Sprintf("%d ranks · %d events", tr.Size(), tr.NumEvents())
	m.span = derived.SpanOf(m.common.Derived, tr)
	m.predicting = false
	if v := m.build(m.active); v != nil {
		return v.Init()
	}
	return nil
}

// openTrace is setTrace for a trace the user opened while the program
// runs: an untimed trace also starts its prediction (Init does it for the
// trace New was given).
func (m *Model) openTrace(tr *tracefmt.Trace, path string) tea.Cmd {
	cmd := m.setTrace(tr, path)
	if !tr.Timed {
		cmd = tea.Batch(cmd, m.predict())
	}
	return tea.Batch(cmd, m.solveLesson())
}

// predict asks the Simulate tab to replay the loaded (untimed) trace on
// the current machine: positions in the file say nothing of time, the
// prediction does. The run goes on in the background, its progress in
// the status bar; esc stops it. Its trace opens in the Timeline.
func (m *Model) predict() tea.Cmd {
	i := m.tabIndex("Simulate")
	if i < 0 {
		return nil
	}
	v := m.build(i)
	if v == nil {
		return nil
	}
	m.predicting = true
	nv, cmd := v.Update(component.PredictMsg{})
	return m.replace(i, nv, cmd)
}

// stopPrediction stops the prediction predict started.
func (m *Model) stopPrediction() tea.Cmd {
	m.predicting = false
	i := m.tabIndex("Simulate")
	if i < 0 || m.views[i] == nil {
		return nil
	}
	nv, cmd := m.views[i].Update(component.StopMsg{})
	return m.replace(i, nv, cmd)
}

// build returns tab i's view, constructing it on first use.
func (m *Model) build(i int) component.Model {
	if m.tr == nil {
		return nil
	}
	if m.views[i] == nil {
		v := m.tabs[i].New(m.common, m.tr)
		v.SetSize(m.common.Width, m.common.Height)
		if m.alt != nil {
			if a, ok := v.(AltSetter); ok {
				a.SetAlt(m.alt, m.label)
			}
		}
		if m.pred != nil {
			if a, ok := v.(PredictedSetter); ok {
				a.SetPredicted(m.pred, m.predLabel)
			}
		}
		if m.sweep != nil {
			if s, ok := v.(SweepSetter); ok {
				s.SetState(m.sweep)
			}
		}
		m.views[i] = v
		m.syncWindow()
	}
	return m.views[i]
}

// resize lays the screen out: the tab bar, the view area, the status bar.
func (m *Model) resize(w, h int) {
	m.width, m.height = max(w, 0), max(h, 0)
	vh := max(m.height-2, 0)
	// A pinned lesson takes the right of the screen (lesson.go).
	vw := m.width - m.paneWidth()
	m.common.SetSize(vw, vh)
	// The overlay wraps columns itself; a help width would only truncate.
	m.help.SetWidth(0)
	for _, v := range m.views {
		if v != nil {
			v.SetSize(vw, vh)
		}
	}
	m.sizeLesson()
	if m.picker != nil {
		m.picker.height = vh
	}
}

// styleHelp styles the help overlay from the theme.
func (m *Model) styleHelp() {
	st := m.common.Theme.Styles
	m.help.Styles = help.Styles{
		Ellipsis: st.HelpSep, ShortKey: st.HelpKey, ShortDesc: st.HelpDesc, ShortSeparator: st.HelpSep,
		FullKey: st.HelpKey, FullDesc: st.HelpDesc, FullSeparator: st.HelpSep,
	}
}

// setTheme switches the session's theme and tells the views.
func (m *Model) setTheme(t *themes.Theme) tea.Cmd {
	m.common.Theme = t
	m.styleHelp()
	return m.broadcast(component.ThemeMsg{})
}

// statusTTL is how long a transient status message stays.
const statusTTL = 4 * time.Second

// clearStatusMsg removes the transient status message unless a newer one
// replaced it.
type clearStatusMsg struct{ id int }

// setStatus shows a transient status message.
func (m *Model) setStatus(s string) tea.Cmd {
	m.status = s
	m.statusID++
	id := m.statusID
	return tea.Tick(statusTTL, func(time.Time) tea.Msg { return clearStatusMsg{id} })
}

// Update implements tea.Model.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	cmd := m.update(msg)
	m.syncWindow()
	return m, cmd
}

func (m *Model) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.resize(msg.Width, msg.Height)
		return nil
	case tea.BackgroundColorMsg:
		m.dark = msg.IsDark()
		return m.setTheme(m.opts.theme(m.dark))
	case tea.KeyPressMsg:
		return m.key(msg)
	case tea.PasteMsg, tea.PasteStartMsg, tea.PasteEndMsg, tea.KeyReleaseMsg:
		// Input belongs to the view on screen, never to hidden ones.
		if m.load != nil || m.picker != nil || m.showHelp {
			return nil
		}
		if v := m.build(m.active); v != nil {
			nv, cmd := v.Update(msg)
			return m.replace(m.active, nv, cmd)
		}
		return nil
	case tea.MouseMsg:
		return m.mouse(msg)
	case component.AdvanceMsg:
		return m.advance(msg)
	case component.SliceMsg:
		m.account(msg)
		return m.broadcast(msg)
	case pickerListMsg:
		m.listed(msg)
		return nil
	case loadProgressMsg:
		return m.loadProgress(msg)
	case loadDoneMsg:
		return m.loadDone(msg)
	case clearStatusMsg:
		if msg.id == m.statusID {
			m.status = ""
		}
		return nil
	case component.StatusMsg:
		return m.setStatus(string(msg))
	case component.SweepMsg:
		return m.startSweep(msg)
	case sweepProgressMsg:
		return m.sweepProgress(msg)
	case resultMsg:
		return m.resultOpened(msg)
	case learn.MachineMsg:
		return m.setMachine(msg)
	case learn.PinMsg:
		return m.pin()
	case component.ShowTabMsg:
		for i, t := range m.tabs {
			if t.Name == msg.Name {
				return m.switchTab(i)
			}
		}
		return nil
	case component.OpenTraceMsg:
		if msg.Trace == nil {
			return nil
		}
		return m.openTrace(msg.Trace, msg.Path)
	case component.FocusEventMsg:
		i := m.tabIndex(TimelineTab)
		v := m.build(i)
		if v == nil {
			return nil
		}
		m.active = i
		// Through Update: the view may answer with a
		// command (the Timeline computes the selection's causal cone, or
		// waits for its summary to be built).
		nv, cmd := v.Update(msg)
		return m.replace(i, nv, cmd)
	case component.AltTraceMsg:
		if msg.Predicted {
			m.pred, m.predLabel = msg.Trace, msg.Label
			m.predicting = false
		} else {
			m.alt, m.label = msg.Trace, msg.Label
			if m.alt == nil {
				m.label = ""
			}
		}
		var cmds []tea.Cmd
		for i, v := range m.views {
			if v == nil {
				continue
			}
			// Through Update, not AltSetter: the Timeline indexes
			// the alternative times in the background (half a second for
			// ten million events) instead of on the event loop.
			nv, cmd := v.Update(msg)
			cmds = append(cmds, m.replace(i, nv, cmd))
		}
		return tea.Batch(cmds...)
	}
	// Anything else (a view's own timer or result) goes to every view
	// that exists: a simulation may report while another tab is shown.
	return m.broadcast(msg)
}

// replace stores the model a view's Update returned.
func (m *Model) replace(i int, v component.Model, cmd tea.Cmd) tea.Cmd {
	m.views[i] = v
	return cmd
}

func (m *Model) broadcast(msg tea.Msg) tea.Cmd {
	var cmds []tea.Cmd
	for i, v := range m.views {
		if v != nil {
			nv, cmd := v.Update(msg)
			cmds = append(cmds, m.replace(i, nv, cmd))
		}
	}
	return tea.Batch(cmds...)
}

func (m *Model) tabIndex(name string) int {
	for i, t := range m.tabs {
		if t.Name == name {
			return i
		}
	}
	return 0
}

// syncWindow passes the Timeline's visible window to the views that
// follow it.
func (m *Model) syncWindow() {
	var w Windower
	for _, v := range m.views {
		if x, ok := v.(Windower); ok && v != nil {
			w = x
			break
		}
	}
	if w == nil {
		return
	}
	s, e := w.Window()
	for _, v := range m.views {
		if x, ok := v.(WindowSetter); ok && v != nil {
			x.SetWindow(s, e)
		}
	}
}

// key routes a key press: focused things first, then global keys, then
// the active view.
func (m *Model) key(msg tea.KeyPressMsg) (cmd tea.Cmd) {
	k := m.keys
	if key.Matches(msg, k.ForceQuit) {
		m.cancelLoad()
		return tea.Quit
	}
	if m.err != "" && m.load == nil && m.picker == nil && key.Matches(msg, k.Cancel) {
		// An error stays until dismissed: esc first clears it.
		m.err = ""
		return nil
	}
	switch {
	case m.load != nil:
		if key.Matches(msg, k.Cancel) {
			m.cancelLoad()
			return m.setStatus("loading cancelled")
		}
		if key.Matches(msg, k.Quit) {
			// q quits during a load as everywhere else: the key was
			// silently lost, and a user (or a class's script) waited.
			m.cancelLoad()
			return tea.Quit
		}
		// A tab chosen while the trace loads is the one it opens in:
		// a student who presses 6 during the load expects the Machine
		// tab, not the key silently lost. Other keys act on a view,
		// and there is none yet.
		if i, ok := m.tabFor(msg); ok {
			return m.switchTab(i)
		}
		return nil
	case m.picker != nil:
		return m.pickerKey(msg)
	case m.showHelp:
		switch {
		case key.Matches(msg, k.Quit):
			return tea.Quit
		case key.Matches(msg, k.Help), key.Matches(msg, k.Cancel):
			m.showHelp, m.helpTop = false, 0
		default:
			if d, ok := k.List.Move(msg, m.height-4); ok {
				// helpView clamps it to the lines there are.
				m.helpTop = min(max(m.helpTop+d, -1<<20), 1<<20)
			}
		}
		return nil
	}
	if m.lesson != nil && m.tr != nil && !m.learnGets(msg) {
		// The lesson follows the keys pressed outside its tab, once
		// they have taken effect (the tab shown after them).
		defer func() { cmd = tea.Batch(cmd, m.observe(msg.String())) }()
	}
	v := m.build(m.active)
	if c, ok := v.(InputCapturer); ok && v != nil && c.Capturing() {
		nv, cmd := v.Update(msg)
		return m.replace(m.active, nv, cmd)
	}
	switch {
	case key.Matches(msg, k.Quit):
		return tea.Quit
	case key.Matches(msg, k.Help):
		m.showHelp = true
		return nil
	case key.Matches(msg, k.NextTab), key.Matches(msg, k.PrevTab), m.learnKey(msg), key.Matches(msg, k.Tab):
		if i, ok := m.tabFor(msg); ok {
			return m.switchTab(i)
		}
		return nil
	case key.Matches(msg, k.Open):
		return m.openPicker()
	case key.Matches(msg, k.Theme):
		return m.nextTheme()
	case m.sweepRun != nil && m.tabs[m.active].Name == SweepTab && key.Matches(msg, k.Cancel):
		// esc on the Sweep tab stops the sweep under way first.
		return m.stopSweep()
	case m.predicting && key.Matches(msg, k.Cancel):
		// esc stops the prediction of an untimed trace first.
		return m.stopPrediction()
	}
	if v == nil {
		return nil
	}
	nv, cmd := v.Update(msg)
	return m.replace(m.active, nv, cmd)
}

// tabFor returns the tab a tab key selects (tab and shift+tab, a tab's
// digit, the Learn tab's 0), and false for any other key. The digit of
// the Learn tab's place selects nothing: 0 is its key.
func (m *Model) tabFor(msg tea.KeyPressMsg) (int, bool) {
	k := m.keys
	switch {
	case key.Matches(msg, k.NextTab):
		return (m.active + 1) % len(m.tabs), true
	case key.Matches(msg, k.PrevTab):
		return (m.active + len(m.tabs) - 1) % len(m.tabs), true
	case m.learnKey(msg):
		return m.lesson.tab, true
	case key.Matches(msg, k.Tab):
		if i := int(msg.String()[0] - '1'); i < len(m.tabs) && (m.lesson == nil || i != m.lesson.tab) {
			return i, true
		}
	}
	return 0, false
}

// switchTab makes tab i active, building its view on first use.
func (m *Model) switchTab(i int) tea.Cmd {
	if i == m.active {
		return nil
	}
	m.active = i
	if m.lesson != nil && m.lesson.pinned {
		// The pane shows beside every tab but the Learn tab itself.
		m.resize(m.width, m.height)
	}
	fresh := m.tr != nil && m.views[i] == nil
	v := m.build(i)
	if fresh && v != nil {
		return v.Init()
	}
	return nil
}

// nextTheme cycles through the themes, for trying them out.
func (m *Model) nextTheme() tea.Cmd {
	names := themes.Names()
	cur := m.common.Theme.Name
	next := names[0]
	for i, n := range names {
		if n == cur {
			next = names[(i+1)%len(names)]
		}
	}
	m.opts.Theme, m.opts.NoColor, m.opts.Environ = next, false, nil
	return tea.Batch(m.setTheme(m.opts.theme(m.dark)), m.setStatus("theme "+next))
}

// mouse routes mouse events: clicks on the tab bar switch tabs, the rest
// goes to the active view in its own coordinates.
func (m *Model) mouse(msg tea.MouseMsg) tea.Cmd {
	if m.load != nil || m.showHelp {
		return nil
	}
	ms := msg.Mouse()
	if m.picker != nil {
		if w, ok := msg.(tea.MouseWheelMsg); ok {
			switch w.Button {
			case tea.MouseWheelUp:
				m.picker.move(-3)
			case tea.MouseWheelDown:
				m.picker.move(3)
			}
		}
		return nil
	}
	if _, ok := msg.(tea.MouseClickMsg); ok && ms.Y == 0 {
		if i := m.tabAt(ms.X); i >= 0 {
			return m.switchTab(i)
		}
		return nil
	}
	v := m.build(m.active)
	if v == nil || ms.Y < 1 || ms.Y > m.common.Height || ms.X >= m.common.Width {
		// (Past the view's width is the pinned lesson's pane.)
		return nil
	}
	ms.Y--
	var out tea.Msg
	switch msg.(type) {
	case tea.MouseClickMsg:
		out = tea.MouseClickMsg(ms)
	case tea.MouseReleaseMsg:
		out = tea.MouseReleaseMsg(ms)
	case tea.MouseWheelMsg:
		out = tea.MouseWheelMsg(ms)
	case tea.MouseMotionMsg:
		out = tea.MouseMotionMsg(ms)
	default:
		return nil
	}
	nv, cmd := v.Update(out)
	return m.replace(m.active, nv, cmd)
}

// View implements tea.Model.
func (m *Model) View() tea.View {
	v := tea.NewView(m.Frame())
	v.AltScreen = true
	v.MouseMode = tea.MouseModeCellMotion
	v.WindowTitle = "tracesim"
	if m.path != "" {
		v.WindowTitle = "tracesim — " + filepath.Base(m.path)
	}
	// A theme chosen against the terminal's background (--theme light on
	// a dark terminal, or T) paints its own colours, or its text would be
	// unreadable; Bubble Tea restores the terminal's on exit.
	if th := m.common.Theme; th != nil && !th.Mono && th.Dark != m.dark {
		v.BackgroundColor, v.ForegroundColor = th.Background, th.Foreground
	}
	return v
}

// Frame returns the screen's content: exactly the terminal's height in
// lines, none wider than its width.
func (m *Model) Frame() string {
	key := frameKey{body: m.body(), top: m.tabBar(), bottom: m.statusBar()}
	if key == m.frameKey && m.frame != "" {
		return m.frame
	}
	m.frames++
	m.frameKey = key
	parts := make([]string, 0, 3)
	if m.height >= 1 {
		parts = append(parts, key.top)
	}
	if m.height >= 3 {
		parts = append(parts, key.body)
	}
	if m.height >= 2 {
		parts = append(parts, key.bottom)
	}
	m.frame = strings.Join(parts, "\n")
	return m.frame
}

// body renders the view area: an overlay when one is open, else the
// active view.
func (m *Model) body() string {
	w, h := m.common.Width, m.common.Height
	switch {
	case m.load != nil:
		return m.loadView(w, h)
	case m.picker != nil:
		return m.picker.view(m.common.Theme, w, h)
	case m.showHelp:
		return m.helpView(w, h)
	}
	v := m.build(m.active)
	if v == nil {
		st := m.common.Theme.Styles
		lines := []string{"", st.Title.Render("  No trace loaded."), "",
			"  Press " + st.HelpKey.Render("o") + " to open a trace file, " + st.HelpKey.Render("q") + " to quit."}
		if m.err != "" {
			lines = append(lines, "")
			for _, l := range errorLines(m.err, w-2) {
				lines = append(lines, "  "+st.Error.Render(l))
			}
		}
		return fit(lines, w, h)
	}
	body := v.View()
	if pw := m.paneWidth(); pw > 0 {
		body = m.withPane(body, pw, h)
	}
	if m.err != "" {
		body = m.overlayError(body, w, h)
	}
	return body
}

// errorLines wraps an error into lines of at most w cells, the last
// saying how to dismiss it.
func errorLines(err string, w int) []string {
	return component.Wrap("✗ "+err+" (esc dismisses)", max(w, 10), 0)
}

// overlayError writes the error, wrapped, over the last lines of the view
// (h lines of w cells), under a rule.
func (m *Model) overlayError(body string, w, h int) string {
	st := m.common.Theme.Styles
	lines := strings.Split(body, "\n")
	el := errorLines(m.err, w-1)
	el = el[max(len(el)-(h-1), 0):]
	at := max(len(lines)-len(el)-1, 0)
	lines[at] = st.Dim.Render(strings.Repeat("─", w))
	for i, l := range el {
		if at+1+i < len(lines) {
			lines[at+1+i] = fitLine(" "+st.Error.Render(l), w)
		}
	}
	return strings.Join(lines, "\n")
}

// tabBar renders the first line: the tabs and a help hint.
func (m *Model) tabBar() string {
	k := barKey{active: m.active, width: m.width, theme: m.common.Theme}
	if k == m.tabKey {
		return m.tabLine
	}
	if k.width != m.tabKey.width || k.theme != m.tabKey.theme {
		clear(m.tabBars)
	}
	m.tabKey = k
	if b, ok := m.tabBars[k.active]; ok {
		m.tabLine, m.tabX = b.line, b.x
		return m.tabLine
	}
	m.tabX = nil // renderTabBar fills a slice of its own: the kept ones stay
	m.tabLine = m.renderTabBar()
	if m.tabBars == nil {
		m.tabBars = map[int]tabBarLine{}
	}
	m.tabBars[k.active] = tabBarLine{line: m.tabLine, x: m.tabX}
	return m.tabLine
}

func (m *Model) renderTabBar() string {
	st := m.common.Theme.Styles
	title := st.Title.Render(" tracesim ")
	hint := st.Dim.Render("? help ")
	// On narrow terminals the title goes first, then the inactive tabs'
	// names are cut to four letters, then to nothing (their digits stay:
	// they are the keys); the help hint stays whenever the digits leave
	// room for it.
	for compact := 0; compact < 4; compact++ {
		var b strings.Builder
		at := 0
		if compact < 1 {
			b.WriteString(title)
			at = ansi.StringWidth(title)
		}
		m.tabX = m.tabX[:0]
		for i, t := range m.tabs {
			digit := fmt.Sprint(i + 1)
			if m.lesson != nil && i == m.lesson.tab {
				digit = "0" // the Learn tab's key
			}
			label := digit + " " + t.Name
			s := st.TabInactive
			switch {
			case i == m.active:
				s = st.TabActive
			case compact == 2 && len([]rune(t.Name)) > 4:
				label = digit + " " + string([]rune(t.Name)[:4])
			case compact == 3:
				label = digit
			}
			r := s.Render(label)
			b.WriteString(r)
			w := ansi.StringWidth(r)
			m.tabX = append(m.tabX, [2]int{at, at + w})
			at += w
		}
		line := b.String()
		if gap := m.width - at - ansi.StringWidth(hint); gap > 0 {
			return line + strings.Repeat(" ", gap) + hint
		}
		if compact == 3 {
			return fitLine(line, m.width)
		}
	}
	return ""
}

// tabAt returns the tab under column x of the tab bar, or −1.
func (m *Model) tabAt(x int) int {
	m.tabBar()
	for i, r := range m.tabX {
		if x >= r[0] && x < r[1] {
			return i
		}
	}
	return -1
}

// statusBar renders the last line: file, size, window, selection and any
// transient message.
func (m *Model) statusBar() string {
	k := statusKey{width: m.width, theme: m.common.Theme, tr: m.tr, path: m.path, label: m.label,
		status: m.status, err: m.err, win: -1}
	for i, v := range m.views {
		if w, ok := v.(Windower); ok && v != nil {
			k.win = i
			k.start, k.end = w.Window()
			break
		}
	}
	if s, ok := m.views[m.active].(Selector); ok && m.views[m.active] != nil {
		k.sel = s.Selection()
	}
	if k == m.statusKey {
		return m.statusLine
	}
	m.statusKey = k
	m.statusLine = m.renderStatusBar(k)
	return m.statusLine
}

func (m *Model) renderStatusBar(k statusKey) string {
	st := m.common.Theme.Styles
	var parts []string
	kv := func(k, v string) string { return st.StatusKey.Render(k) + st.StatusValue.Render(v) }
	if m.tr == nil {
		parts = append(parts, st.Dim.Render("no trace"))
	} else {
		name := filepath.Base(m.path)
		if m.path == "" {
			name = "(unnamed)"
		}
		parts = append(parts, st.StatusValue.Render(name), st.StatusBar.Render(m.sum))
		if m.label != "" {
			parts = append(parts, kv("alt ", m.label))
		}
		switch {
		case k.win >= 0 && m.tr.Timed:
			sec := m.tr.Unit.Seconds()
			// From the start of the run, as the Timeline's ruler counts.
			parts = append(parts, kv("window ", units.FormatDuration((k.start-m.span.Start)*sec)+"–"+units.FormatDuration((k.end-m.span.Start)*sec)))
		case k.win >= 0:
			// An untimed trace's window is in event positions.
			parts = append(parts, kv("window ", fmt.Sprintf("#%.0f–#%.0f", k.start, k.end)))
		}
		if k.sel != "" {
			parts = append(parts, st.Selected.Render(k.sel))
		}
	}
	if m.status != "" {
		parts = append(parts, st.Warn.Render(m.status))
	}

	return fitLine(" "+strings.Join(parts, st.Dim.Render(" │ ")), m.width)
}

// fitLine truncates or pads s to exactly w cells.
func fitLine(s string, w int) string {
	if w <= 0 {
		return ""
	}
	if ansi.StringWidth(s) > w {
		s = ansi.Truncate(s, w, "…")
	}
	return s + strings.Repeat(" ", max(0, w-ansi.StringWidth(s)))
}

// fit makes lines exactly w cells wide and h lines tall.
func fit(lines []string, w, h int) string {
	if h <= 0 {
		return ""
	}
	out := make([]string, h)
	for i := range out {
		s := ""
		if i < len(lines) {
			s = lines[i]
		}
		out[i] = fitLine(s, w)
	}
	return strings.Join(out, "\n")
}
