// Package simulate is the Simulate tab: it shows the loaded trace replayed
// on the machine the Machine tab describes, live (the application runs the
// replay, slice by slice, when the tab asks: see component.AdvanceMsg). The user runs it to the end,
// pauses and resumes, steps by one event, one message or Δt of simulated
// time, runs to a given time, changes the speed and resets; meanwhile the
// tab shows the simulated clock, the engine's rate and progress, the
// network's links and router queues as heatmaps drawn on the topology,
// throughput and latency charts, what every rank is doing, and a banner
// when the engine reports a deadlock or the network saturates. Finished
// runs go to a history with their configuration, and any two can be
// compared; each one is offered to the Timeline as an alternative run.
package simulate

import (
	"context"
	"fmt"
	"github.com/tracesim/tracesim/tracefmt/units"
	"math"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/tracesim/tracesim/engine/des"
	"github.com/tracesim/tracesim/engine/replay"
	"github.com/tracesim/tracesim/engine/runner"
	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/views/cellbuf"
	"github.com/tracesim/tracesim/views/component"
)

// Status is where the current run stands.
type Status uint8

// Run states.
const (
	// Idle: nothing simulated yet (or just reset).
	Idle Status = iota
	// Running: slices follow each other until the end, the target time
	// or a pause.
	Running
	// Paused: the run stopped part way and can be resumed.
	Paused
	// Finished: every rank finished, or the run deadlocked.
	Finished
	// Failed: the engine returned an error (a bad configuration for this
	// trace, such as ranks that do not fit on the topology).
	Failed
)

// String names the status as the header shows it.
func (s Status) String() string {
	return [...]string{"ready", "running", "paused", "finished", "failed"}[s]
}

// Pane is what the body of the tab shows.
type Pane uint8

// Panes, cycled with v.
const (
	PaneLive Pane = iota
	PaneResults
	PaneHistory
	numPanes
)

// numRates is the number of speeds; rate(0) is as fast as the engine
// goes, rate(1) to rate(numRates-1) double from 1 µs to about a second of
// simulated time per second.
const numRates = 22

// defaultSpeed is the speed a session starts at: about a millisecond of
// simulated time per second, so that a small run (the 16-rank demo
// lasts 2 ms) plays over a few seconds and can be watched.
const defaultSpeed = 11

// rate returns speed i in simulated seconds per host second.
func rate(i int) float64 {
	if i <= 0 || i >= numRates {
		return 0
	}
	return 1e-6 * math.Exp2(float64(i-1))
}

// Run is one finished simulation kept in the history.
type Run struct {
	// N numbers runs from 1 in the order they finished.
	N int
	// Name is the configuration's name (a preset, "custom"), Label a
	// short description of the machine.
	Name, Label string
	Config      replay.Config
	Results     *replay.Results
	// Trace is the simulated run as a timed trace (nil if it could not be
	// built).
	Trace *tracefmt.Trace
}

// Model is the Simulate tab.
type Model struct {
	common component.Common
	keys   KeyMap

	ctx    context.Context
	cancel context.CancelFunc
	// predicting is a run the application asked for with component.PredictMsg: it
	// goes flat out whatever the chosen speed, reports its progress in
	// the status bar, and offers its trace as "predicted on <machine>".
	predicting bool
	// wantTrace: the user asked for the run so far in the Timeline; the
	// next slice brings it.
	wantTrace bool

	tr      *tracefmt.Trace
	cfg     replay.Config
	cfgName string

	eng     *engine
	gen     int
	busy    bool // a slice is in flight
	status  Status
	target  des.Time    // end of the current run-to, des.Never for the end
	pending []runner.Op // steps asked for while a slice was in flight
	lastOp  runner.Op   // the kind of the slice in flight or last run
	speed   int         // index in rates
	dt      des.Time    // step of runner.Delta
	err     string

	snap  *replay.Snapshot
	clock des.Time // simulated time reached (see engine.clock)
	pts   []runner.Point
	// ranksAt are what the snapshots said at the end of each slice, for
	// the bytes-in-flight and ranks-blocked time series.
	ranksAt []ranksPoint
	evRate  float64 // kernel events per host second, last slice
	// charts keep the time series drawn (see timeChart); chartDraws
	// counts their drawings, for tests.
	charts     [3]timeChart
	chartDraws int
	slices     int // slices taken (advanced), for the charts' drawing
	hist       linkHistory

	pane Pane
	// showFlows: the link pane shows the flows on the busiest links over
	// time rather than the utilisation map (f; flow model).
	showFlows bool
	router    int // selected router
	scroll    int // per-rank table offset
	// resultsPage and historyPage are the rows of the per-rank table and
	// of the run list the last frame drew: a page for pgup/pgdn.
	resultsPage, historyPage int
	runs                     []Run
	sel                      int // selected run in the history
	base                     int // run compared against the selected one (-1: the previous)

	prompt    textinput.Model
	prompting bool

	buf   cellbuf.Buffer
	bar   runBar         // the run's progress bar in the frame drawn last
	plain bool           // no escape sequences (golden tests)
	memo  component.Memo // the frame, drawn again when the state changes
}

var _ component.Model = (*Model)(nil)

// New returns a Simulate tab for tr drawing in c's area. It runs the
// configuration the session's WhatIf holds (the Machine tab's; none: the
// default machine) and then each one a component.ConfigMsg brings.
func New(c component.Common, tr *tracefmt.Trace) *Model {
	sh := component.WhatIfOf(c)
	ctx, cancel := context.WithCancel(context.Background())
	ti := textinput.New()
	ti.Prompt = "run to time: "
	ti.Placeholder = "e.g. 250us"
	m := &Model{
		common: c, keys: DefaultKeyMap(), ctx: ctx, cancel: cancel,
		dt:    10 * des.Time(1e6),
		speed: defaultSpeed,
		base:  -1, prompt: ti,
	}
	m.cfg, m.cfgName = sh.Config()
	if sh.FullSpeed() {
		m.speed = 0 // a sweep point: unpaced, as the sweep ran it
	}
	m.SetTrace(tr)
	return m
}

// SetTrace replaces the trace to simulate; the current run is dropped,
// the history kept.
func (m *Model) SetTrace(tr *tracefmt.Trace) {
	m.tr = tr
	m.reset()
}

// SetConfig sets the configuration of the next run. When nothing has
// been simulated since the last reset the run is prepared with it at
// once.
func (m *Model) SetConfig(cfg replay.Config, name string) {
	m.cfg, m.cfgName = cfg, name
	if m.status == Idle && !m.busy {
		m.reset()
	}
	m.memo.Invalidate()
}

// Config returns the configuration of the next run.
func (m *Model) Config() replay.Config { return m.cfg }

// Close stops the simulation in flight. The application calls it when
// the session ends; a slice in progress returns within one frame.
func (m *Model) Close() { m.cancel() }

// Status returns where the current run stands.
func (m *Model) Status() Status { return m.status }

// Snapshot returns the latest snapshot of the current run, or nil.
func (m *Model) Snapshot() *replay.Snapshot { return m.snap }

// Runs returns the finished runs, oldest first.
func (m *Model) Runs() []Run { return m.runs }

// Capturing reports whether the run-to-time prompt is open: it takes
// every key then.
func (m *Model) Capturing() bool { return m.prompting }

// Init implements component.Model.
func (m *Model) Init() tea.Cmd { return nil }

// SetSize implements component.Model.
func (m *Model) SetSize(width, height int) {
	m.common.SetSize(width, height)
	m.memo.Invalidate()
}

// ShortHelp implements help.KeyMap.
func (m *Model) ShortHelp() []key.Binding { return m.keys.ShortHelp() }

// FullHelp implements help.KeyMap.
func (m *Model) FullHelp() [][]key.Binding { return m.keys.FullHelp() }

// reset drops the current run and prepares a new one with the current
// configuration. A slice in flight is cancelled and its result ignored.
func (m *Model) reset() {
	m.gen++
	if m.eng != nil && m.busy {
		// The in-flight slice owns the old engine; cancelling makes it
		// return quickly, and its message is recognised as stale.
		m.cancel()
		m.ctx, m.cancel = context.WithCancel(context.Background())
	}
	if f := m.common.Files; f != nil {
		// Whatever tab built the configuration, the run reads the files
		// it names from the session's library only.
		m.cfg.Open = f.Open
	}
	m.eng = &engine{gen: m.gen, cfg: m.cfg, name: m.cfgName, run: runner.New(m.tr, m.cfg)}
	m.busy, m.status, m.target, m.pending = false, Idle, des.Never, nil
	m.snap, m.pts, m.evRate, m.err, m.clock = nil, nil, 0, "", 0
	m.ranksAt = nil
	m.hist = linkHistory{}
	m.router, m.scroll = 0, 0
	m.memo.Invalidate()
}

// start sends the engine off on one slice of kind o.
func (m *Model) start(o runner.Op) tea.Cmd {
	if m.tr == nil || m.busy {
		return nil
	}
	m.busy = true
	r := rate(m.speed)
	if m.predicting {
		r = 0
	}
	wt := m.wantTrace
	m.wantTrace = false
	m.lastOp = o
	return m.eng.slice(m.ctx, o, m.target, r, m.dt, wt)
}

// request asks for a step or a run, now or after the slice in flight.
func (m *Model) request(o runner.Op) tea.Cmd {
	switch m.status {
	case Failed:
		if o != runner.Run {
			return m.statusMsg("the run has failed: R resets, r runs again")
		}
		m.reset()
	case Finished:
		// A new run, on the machine as it is now (it may have changed
		// since the last one).
		m.reset()
	}
	if o == runner.Run {
		m.status = Running
	} else {
		m.status = Paused
	}
	if m.busy {
		if o != runner.Run {
			m.pending = append(m.pending[:0], o)
		}
		return nil
	}
	return m.start(o)
}

func (m *Model) statusMsg(s string) tea.Cmd {
	return func() tea.Msg { return component.StatusMsg(s) }
}

// Update implements component.Model.
func (m *Model) Update(msg tea.Msg) (component.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case component.SliceMsg:
		cmd := m.sliceDone(msg)
		if m.predicting && m.status == Running && m.snap != nil && m.snap.TotalTraceEvents > 0 {
			pc := float64(m.snap.TraceEvents) / float64(m.snap.TotalTraceEvents)
			cmd = tea.Batch(cmd, m.statusMsg(fmt.Sprintf("predicting on %s… %s (esc stops)", Describe(&m.cfg), units.FormatPercent(pc, 0))))
		}
		return m, cmd
	case component.PredictMsg:
		// A fresh run to the end on the current machine.
		m.reset()
		m.predicting = true
		return m, tea.Batch(m.request(runner.Run), m.statusMsg("predicting on "+Describe(&m.cfg)+"… (esc stops)"))
	case component.StopMsg:
		if m.predicting && (m.status == Running || m.busy) {
			m.predicting = false
			m.reset()
			return m, m.statusMsg("prediction stopped (Simulate tab: r runs it)")
		}
		return m, nil
	case component.ConfigMsg:
		m.SetConfig(msg.Config, msg.Name)
		if msg.FullSpeed {
			m.speed = 0 // a sweep point: unpaced, as the sweep ran it
		}
	case component.OpenTraceMsg:
		if msg.Trace != nil {
			m.SetTrace(msg.Trace)
		}
	case component.ThemeMsg:
		m.memo.Invalidate()
	case tea.KeyPressMsg:
		if m.prompting {
			m.memo.Invalidate()
			return m, m.promptKey(msg)
		}
		return m, m.key(msg)
	}
	return m, nil
}

func (m *Model) key(msg tea.KeyPressMsg) tea.Cmd {
	k := m.keys
	// Keys nobody binds must not cost a frame.
	handled := true
	defer func() {
		if handled {
			m.memo.Invalidate()
		}
	}()
	if key.Matches(msg, k.Pause, k.Run, k.Reset, k.RunTo) {
		m.predicting = false // the user's run from now on
	}
	switch {
	case key.Matches(msg, k.Pause):
		switch m.status {
		case Running:
			m.status = Paused
			m.pending = nil
			return nil
		case Finished, Failed:
			return m.statusMsg("the run has ended: R resets, r runs again")
		}
		return m.request(runner.Run)
	case key.Matches(msg, k.Run):
		if m.status == Finished || m.status == Failed {
			m.reset()
		}
		m.target = des.Never
		return m.request(runner.Run)
	case key.Matches(msg, k.Step):
		return m.request(runner.Event)
	case key.Matches(msg, k.StepMessage):
		return m.request(runner.Message)
	case key.Matches(msg, k.StepDelta):
		return m.request(runner.Delta)
	case key.Matches(msg, k.RunTo):
		m.prompting = true
		m.prompt.SetValue("")
		return m.prompt.Focus()
	case key.Matches(msg, k.Reset):
		m.reset()
		m.pane = PaneLive // the new run is watched there
		return m.statusMsg("simulation reset")
	case key.Matches(msg, k.Faster):
		if m.speed == 0 {
			return nil
		}
		if m.speed++; m.speed == numRates {
			m.speed = 0 // past the fastest pace: unlimited
		}
	case key.Matches(msg, k.Slower):
		if m.speed == 0 {
			m.speed = numRates - 1
		} else if m.speed > 1 {
			m.speed--
		}
	case key.Matches(msg, k.Shorter):
		m.dt = max(m.dt/2, des.Time(1000)) // 1 ns
	case key.Matches(msg, k.Longer):
		m.dt = min(m.dt*2, des.FromSeconds(10))
	case key.Matches(msg, k.Pane):
		m.pane = (m.pane + 1) % numPanes
	case key.Matches(msg, k.Flows):
		if !m.flowsModel() {
			return m.statusMsg("flows per link: only the flow model counts them (Machine: model = flow)")
		}
		m.showFlows = !m.showFlows
	case key.Matches(msg, k.Compare):
		if m.pane == PaneHistory && len(m.runs) > 0 {
			m.base = m.sel
		}
	case key.Matches(msg, k.Confirm) && m.pane != PaneHistory && m.eng != nil && m.snap != nil &&
		(m.status == Running || m.status == Paused):
		// A run under way: its timeline so far, brought by the next
		// slice (a Peek when paused).
		m.wantTrace = true
		if m.busy {
			return m.statusMsg("the run so far goes to the Timeline…")
		}
		return m.start(runner.Peek)
	case key.Matches(msg, k.Confirm):
		// In the history, show the selected run in the Timeline.
		if m.pane == PaneHistory && m.sel < len(m.runs) && m.runs[m.sel].Trace != nil {
			r := &m.runs[m.sel]
			tr, label := r.Trace, predLabel(r)
			// In order: the Timeline gets the run, then comes to the front.
			return tea.Sequence(
				func() tea.Msg { return component.AltTraceMsg{Trace: tr, Label: label, Predicted: true} },
				func() tea.Msg { return component.ShowTabMsg{Name: "Timeline"} },
				m.statusMsg(fmt.Sprintf("sim #%d in the Timeline (p: recorded, predicted, both)", r.N)))
		}
		handled = false
	case m.listKey(msg):
	case key.Matches(msg, k.Left):
		m.move(-1, 0)
	case key.Matches(msg, k.Right):
		m.move(1, 0)
	default:
		handled = false
	}
	return nil
}

// listKey moves the selection of the pane shown by a list key (↑↓,
// pgup/pgdn, home/end), a page being the rows the pane last drew; it
// reports whether msg is one.
func (m *Model) listKey(msg tea.KeyPressMsg) bool {
	page := 1
	switch m.pane {
	case PaneLive:
		// A page of routers is the grid's height: pgdn goes to the
		// bottom row, home/end to the first and last router.
		if n, cols := m.routerGrid(); n > 0 {
			page = (n + cols - 1) / cols
		}
	case PaneResults:
		page = m.resultsPage
	case PaneHistory:
		page = m.historyPage
	}
	d, ok := m.keys.List.Move(msg, page)
	if ok {
		m.move(0, d)
	}
	return ok
}

// move moves the selection of the pane shown: the router in the live
// view, the rank table in the results, the run in the history. dy may be
// as large as ListKeys.Move makes it for home and end.
func (m *Model) move(dx, dy int) {
	switch m.pane {
	case PaneLive:
		n, cols := m.routerGrid()
		if n == 0 {
			return
		}
		rows := (n + cols - 1) / cols
		dy = min(max(dy, -rows), rows) // no overflow in dy*cols
		m.router = min(max(m.router+dx+dy*cols, 0), n-1)
	case PaneResults:
		// The last offset that still fills the page; the drawing clamps
		// again for a page that has since changed.
		last := 0
		if len(m.runs) > 0 {
			last = max(len(m.runs[len(m.runs)-1].Results.Ranks)-max(m.resultsPage, 1), 0)
		}
		m.scroll = min(max(m.scroll+dy, 0), last)
	case PaneHistory:
		if len(m.runs) > 0 {
			m.sel = min(max(m.sel+dy, 0), len(m.runs)-1)
		}
	}
}

func (m *Model) promptKey(msg tea.KeyPressMsg) tea.Cmd {
	switch {
	case key.Matches(msg, m.keys.Cancel):
		m.prompting = false
		m.prompt.Blur()
		return nil
	case key.Matches(msg, m.keys.Confirm):
		v := strings.TrimSpace(m.prompt.Value())
		t, err := replay.ParseTime(v)
		if err != nil {
			return m.statusMsg(fmt.Sprintf("run to %q: %v", v, err))
		}
		m.prompting = false
		m.prompt.Blur()
		m.target = t
		if m.status == Finished || m.status == Failed || m.clock > t {
			m.reset()
			m.target = t
		}
		return m.request(runner.Run)
	}
	var cmd tea.Cmd
	m.prompt, cmd = m.prompt.Update(msg)
	return cmd
}

// sliceDone takes a slice's result and starts the next one if the run
// goes on; a trace of the run so far goes to the Timeline.
func (m *Model) sliceDone(sm component.SliceMsg) tea.Cmd {
	if sm.Gen != m.gen {
		return nil // a slice of a run that was reset
	}
	next := m.advanced(&sm.Slice)
	if sm.Slice.Done || sm.Slice.Trace == nil {
		return next
	}
	tr := sm.Slice.Trace
	label := fmt.Sprintf("run so far (%s) on %s", units.FormatDurationSig(m.clock.Seconds(), 7), Describe(&m.eng.cfg))
	return tea.Batch(next, tea.Sequence(
		func() tea.Msg { return component.AltTraceMsg{Trace: tr, Label: label, Predicted: true} },
		func() tea.Msg { return component.ShowTabMsg{Name: "Timeline"} }))
}

// advanced takes a slice's result and starts the next one if the run
// goes on.
func (m *Model) advanced(msg *runner.Slice) tea.Cmd {
	m.busy = false
	m.slices++
	m.memo.Invalidate()
	if msg.Snap != nil {
		if m.snap != nil && msg.Wall > 0 && msg.Snap.Events >= m.snap.Events {
			m.evRate = float64(msg.Snap.Events-m.snap.Events) / msg.Wall.Seconds()
		}
		m.snap = msg.Snap
		m.clock = msg.Clock
		m.ranksAt = appendRanks(m.ranksAt, msg.Snap, m.clock.Seconds())
	}
	m.hist.add(msg.Points)
	m.pts = append(m.pts, msg.Points...)
	if over := len(m.pts) - runner.MaxPoints; over > 0 {
		m.pts = append(m.pts[:0], m.pts[over:]...)
	}
	switch {
	case msg.Done:
		return m.finish(msg)
	case msg.Err != nil:
		m.status, m.err = Failed, msg.Err.Error()
		return m.statusMsg("simulation failed: " + m.err)
	}
	if m.lastOp == runner.Delta && !msg.Reached {
		// The step was cut short by the slice's host-time bound: it
		// goes on to its end before any key pressed meanwhile.
		return m.start(runner.Delta)
	}
	if len(m.pending) > 0 {
		o := m.pending[0]
		m.pending = m.pending[1:]
		return m.start(o)
	}
	if m.status == Running {
		if msg.Reached {
			m.status, m.target = Paused, des.Never
			return nil
		}
		return m.start(runner.Run)
	}
	return nil
}

// maxRuns bounds the history; the oldest runs (and their traces) go.
const maxRuns = 32

// finish records an ended run in the history and offers its simulated
// trace to the Timeline.
func (m *Model) finish(msg *runner.Slice) tea.Cmd {
	defer func() { m.predicting = false }()
	m.status = Finished
	m.pending = nil
	if msg.Err != nil {
		m.status, m.err = Failed, msg.Err.Error()
	}
	n := 1
	if len(m.runs) > 0 {
		n = m.runs[len(m.runs)-1].N + 1
	}
	run := Run{N: n, Name: m.eng.name, Label: Describe(&m.eng.cfg),
		Config: m.eng.cfg, Results: msg.Results}
	if msg.TraceErr == nil {
		run.Trace = msg.Trace
	}
	m.runs = append(m.runs, run)
	if len(m.runs) > maxRuns {
		m.runs = append(m.runs[:0], m.runs[len(m.runs)-maxRuns:]...)
	}
	m.sel, m.base = len(m.runs)-1, -1
	m.pane = PaneResults
	m.scroll = 0
	label := fmt.Sprintf("sim #%d", n)
	status := fmt.Sprintf("%s: predicted makespan %s", label, units.FormatDurationSig(msg.Results.Makespan, 7))
	if msg.Results.Deadlock != nil {
		status = label + ": deadlock — see the banner"
	}
	cmds := []tea.Cmd{m.statusMsg(status)}
	if run.Trace != nil {
		tr, plabel := run.Trace, predLabel(&run)
		if m.predicting {
			plabel = "predicted on " + run.Label
		}
		cmds = append(cmds, func() tea.Msg { return component.AltTraceMsg{Trace: tr, Label: plabel, Predicted: true} })
	}
	return tea.Batch(cmds...)
}

// predLabel names a run's predicted timeline: "sim #1 on packet torus:4x4
// dor 10 Gb/s".
func predLabel(r *Run) string { return fmt.Sprintf("sim #%d on %s", r.N, r.Label) }

// Describe summarises a configuration in a few words for the history:
// "packet torus:4x4 dor 10 Gb/s predict".
func Describe(c *replay.Config) string {
	get := func(k string) string {
		s, err := c.Get(k)
		if err != nil {
			return "?"
		}
		return s
	}
	parts := []string{get("model")}
	if c.Topology != "" {
		parts = append(parts, c.Topology)
	}
	if c.Model.Measured() && c.Routing != "" {
		parts = append(parts, c.Routing)
	}
	switch c.Model {
	case replay.ModelLogGOPS:
		parts = append(parts, "L="+get("L"))
	default:
		// Through units like every rate the tabs show: a bandwidth a
		// range or a sweep chose (1/per-byte not a round number of bits)
		// reads "10.99 Gb/s", not the configuration's exact spelling.
		bw := "inf"
		if c.PerByte > 0 {
			bw = units.FormatRate(1e12 / c.PerByte)
		}
		parts = append(parts, bw)
	}
	parts = append(parts, get("mode"))
	// Every other setting that differs from the defaults, so that two
	// runs never read alike; one the model ignores says so.
	shown := map[string]bool{"model": true, "topology": true, "routing": c.Model == replay.ModelPacket,
		"bandwidth": true, "per-byte": true, "mode": true, "L": c.Model == replay.ModelLogGOPS}
	def := replay.Default()
	for _, st := range replay.Settings() {
		if shown[st.Key] || st.Get(c) == st.Get(&def) {
			continue
		}
		p := st.Key + "=" + st.Get(c)
		if replay.Unused(c, st.Key) != "" {
			p += "(unused)"
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, " ")
}
