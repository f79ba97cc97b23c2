// Package machine is the Machine tab: a form of every simulation setting
// (replay.Settings, the same keys as `tracesim sim` flags and its
// --config files), the machine-describing ones first — topology and its
// parameters, links, packets and buffers, virtual channels, routing
// (filtered by the topology), placement, network model, replay mode, CPU,
// eager threshold, collectives — with presets, inline validation by the
// engine's own checks, and saving and loading of configuration files.
//
// The list is drawn by the tab; each value is edited in a huh form (an
// input with validation, or a select) that opens below it. Every valid
// change goes to the Simulate tab as a component.ConfigMsg.
package machine

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/huh/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/tracesim/tracesim/engine/collective"
	"github.com/tracesim/tracesim/engine/replay"
	"github.com/tracesim/tracesim/engine/routing"
	"github.com/tracesim/tracesim/engine/topology"
	"github.com/tracesim/tracesim/internal/atomicfile"
	"github.com/tracesim/tracesim/internal/userfile"
	"github.com/tracesim/tracesim/themes"
	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/views/component"
)

// mainKeys are the settings that describe the machine, listed first in
// the order a user thinks of them; the others follow by group.
func mainKeys() []string {
	return []string{
		"topology", "routing", "vcs", "buffer", "packet-size", "header",
		"bandwidth", "link-latency", "router-delay", "latency",
		"placement", "ranks-per-node", "map",
		"model", "switching", "startup", "mode",
		"cpu-scale", "cpu-speed", "eager-threshold", "collectives", "coll-alg",
	}
}

// row is one line of the list: a section header or a setting.
type row struct {
	header string
	key    string
	set    *replay.Setting
}

// edKind is what the open editor edits.
type edKind uint8

const (
	edSetting edKind = iota
	edTopology
	edRouting
	edPlacement
	edCollectives
	edPreset
	edSave
	edLoad
	edSweep
)

// editor is the huh form open below the list, with the values its
// fields are bound to (it lives on the heap so the bindings stay valid).
type editor struct {
	kind edKind
	key  string
	form *huh.Form
	a, b string
	ops  []opChoice // the collectives editor's choices
	// sweep is the sweep form's values (edSweep).
	sweep *sweepForm

	// The checks of values that name a file, read by commands: their
	// results by value, the one to start, and the keys typed so far
	// (a result re-submits the form only if none came since).
	results map[string]error
	pending *formCheck
	keys    int
	// While a check runs (checking), keys wait in queued: given to the
	// form, they would edit the value being checked or go to a field
	// the form has not moved to yet; they are delivered, in order,
	// once its result is in.
	checking bool
	queued   []tea.KeyPressMsg
}

// formCheck is a check of a form's value that reads files.
type formCheck struct {
	value string
	keys  int
	check func(open userfile.Opener) error
}

// formCheckedMsg is the outcome of a formCheck.
type formCheckedMsg struct {
	ed    *editor
	value string
	keys  int
	err   error
}

// errChecking is shown under a value while the files it names are read.
var errChecking = errors.New("checking…")

// validate checks a form's value with check, which reads nothing here:
// when the value names a file, the check that reads it runs as a
// command (started by Update), and its result — "checking…" until it
// comes — is the answer.
func (ed *editor) validate(value string, check func(open userfile.Opener) error) error {
	named := false
	err := check(noRead(&named))
	if !named {
		return err
	}
	if r, ok := ed.results[value]; ok {
		return r
	}
	ed.pending = &formCheck{value: value, keys: ed.keys, check: check}
	return errChecking
}

// startCheck returns the command for the form's pending check, if any.
func (m *Model) startCheck() tea.Cmd {
	ed := m.ed
	if ed == nil || ed.pending == nil {
		return nil
	}
	p := ed.pending
	ed.pending = nil
	ed.checking = true
	open := m.cfg.Open
	return func() tea.Msg {
		return formCheckedMsg{ed: ed, value: p.value, keys: p.keys, err: p.check(open)}
	}
}

// formChecked records a form check's result and, when nothing was typed
// since, submits the value again so that it passes or shows the error;
// then it delivers the keys typed while the check ran, as if typed after.
func (m *Model) formChecked(msg formCheckedMsg) tea.Cmd {
	ed := m.ed
	if ed == nil || ed != msg.ed {
		return nil // the editor was closed
	}
	if ed.results == nil {
		ed.results = map[string]error{}
	}
	ed.results[msg.value] = msg.err
	ed.checking = false
	queued := ed.queued
	ed.queued = nil
	var cmds []tea.Cmd
	if msg.keys == ed.keys {
		cmds = append(cmds, m.toForm(tea.KeyPressMsg{Code: tea.KeyEnter}))
	}
	for i, k := range queued {
		if m.ed != nil && m.ed.checking {
			// The value was submitted again and names another file:
			// the rest waits for that check.
			m.ed.queued = append(m.ed.queued, queued[i:]...)
			break
		}
		_, cmd := m.Update(k)
		cmds = append(cmds, cmd)
	}
	return tea.Batch(cmds...)
}

// opChoice is the algorithm chosen for one collective operation.
type opChoice struct {
	op  tracefmt.CollOp
	alg string
}

// Model is the Machine tab.
type Model struct {
	common component.Common
	keys   KeyMap
	shared *component.WhatIf

	ranks  int // of the loaded trace, for the placement check
	cfg    replay.Config
	name   string
	err    error  // what is wrong with cfg as a whole, if anything
	errKey string // the setting err names
	note   string // the outcome of the last preset, save or load

	rows []row
	cur  int // selected row (always a setting)
	top  int // first list line shown
	ed   *editor
	sum  string // the topology's summary, for the title

	// checking is set while the files the configuration names are read
	// by a command (checkedMsg); gen tells its result from a stale one.
	checking bool
	gen      int
	initCmd  tea.Cmd // New's check, returned by Init

	memo component.Memo // the frame, drawn again when the state changes
	// sizeUnknown counts the trace's collectives without recorded sizes:
	// no machine setting changes what they cost, which the form says.
	sizeUnknown int
}

var _ component.Model = (*Model)(nil)

// New returns a Machine tab for tr (used for its number of ranks) drawing
// in c's area. It edits the configuration the session's WhatIf holds
// and records every valid change there (none: a private default machine).
func New(c component.Common, tr *tracefmt.Trace) *Model {
	sh := component.WhatIfOf(c)
	m := &Model{common: c, keys: DefaultKeyMap(), shared: sh}
	m.cfg, m.name = sh.Config()
	if tr != nil {
		m.ranks = len(tr.Ranks)
		m.sizeUnknown = tr.UnknownSizeCollectives()
	}
	seen := map[string]bool{}
	m.rows = append(m.rows, row{header: "The machine"})
	for _, k := range mainKeys() {
		if s, ok := replay.LookupSetting(k); ok {
			m.rows = append(m.rows, row{key: k, set: s})
			seen[k] = true
		}
	}
	group := ""
	for _, s := range replay.Settings() {
		if seen[s.Key] {
			continue
		}
		if s.Group != group {
			group = s.Group
			m.rows = append(m.rows, row{header: "More: " + group})
		}
		s := s
		m.rows = append(m.rows, row{key: s.Key, set: &s})
	}
	m.cur = 1
	m.initCmd = m.check(false)
	return m
}

// Config returns the configuration the form shows and whether it is valid.
func (m *Model) Config() (replay.Config, error) { return m.cfg, m.err }

// Capturing reports whether an editor is open: it takes every key.
func (m *Model) Capturing() bool { return m.ed != nil }

// Init implements component.Model.
func (m *Model) Init() tea.Cmd {
	cmd := m.initCmd
	m.initCmd = nil
	return cmd
}

// SetSize implements component.Model.
func (m *Model) SetSize(width, height int) {
	m.common.SetSize(width, height)
	m.memo.Invalidate()
	if m.ed != nil {
		m.ed.form = m.ed.form.WithWidth(max(width-2, 20))
	}
}

// ShortHelp implements help.KeyMap.
func (m *Model) ShortHelp() []key.Binding { return m.keys.ShortHelp() }

// FullHelp implements help.KeyMap.
func (m *Model) FullHelp() [][]key.Binding { return m.keys.FullHelp() }

// check validates the whole configuration. It first gives it the
// session's opener, so that every file the configuration names — now or
// after a preset or a load replaced it — is read from the session's
// library and nowhere else. Update reads no file: a configuration that
// names files (a graph, a map, a platform) is checked by the returned
// command, whose checkedMsg applies the result (and publishes it, with
// publish) — meanwhile the form shows "checking…". One that names none
// is checked here, and published by the caller.
func (m *Model) check(publish bool) tea.Cmd {
	if f := m.common.Files; f != nil {
		m.cfg.Open = f.Open
	}
	m.gen++
	cfg := m.cfg
	named := false
	cfg.Open = noRead(&named)
	sum, err := checkConfig(&cfg, m.ranks)
	if !named {
		m.checking = false
		m.checked(err, sum)
		return nil
	}
	m.checking = true
	m.err, m.errKey = nil, ""
	gen, ranks := m.gen, m.ranks
	cfg.Open = m.cfg.Open
	return func() tea.Msg {
		sum, err := checkConfig(&cfg, ranks)
		return checkedMsg{gen: gen, err: err, sum: sum, publish: publish, cfg: cfg}
	}
}

// checkedMsg is the outcome of a check that read files.
type checkedMsg struct {
	gen     int
	err     error
	sum     string
	publish bool
	// cfg is the configuration checked, with what its check read of
	// the files it names (replay.Unused needs the platform's links).
	cfg replay.Config
}

// errNoRead is what noRead's opener returns.
var errNoRead = errors.New("files are read by a command, not in Update")

// noRead returns an opener that reads nothing and records that a file
// was named: the check in Update stops there and leaves it to a command.
func noRead(named *bool) userfile.Opener {
	return func(string) (fs.File, error) {
		*named = true
		return nil, errNoRead
	}
}

// checkConfig is the whole check: Validate, and the topology's summary.
func checkConfig(cfg *replay.Config, ranks int) (sum string, err error) {
	err = Validate(cfg, ranks)
	sum = "complete graph"
	if t, terr := cfg.ParseTopology(); terr == nil && t != nil {
		sum = topology.Summary(t)
	}
	return sum, err
}

// checked applies a check's outcome.
func (m *Model) checked(err error, sum string) {
	m.err = err
	m.errKey = culprit(err)
	m.sum = sum
	m.memo.Invalidate()
}

// publish records a valid configuration and tells the other tabs.
func (m *Model) publish() tea.Cmd {
	if m.err != nil || m.checking {
		return nil
	}
	msg := m.shared.SetConfig(m.cfg, m.name)
	return func() tea.Msg { return msg }
}

// apply sets one setting from the form.
func (m *Model) apply(key, value string) tea.Cmd { return m.applyHow(key, value, true) }

// applyHow sets one setting; byHand says the user gave the value (an
// edit, not a reset to the default), so that what it implies for other
// settings follows.
func (m *Model) applyHow(key, value string, byHand bool) tea.Cmd {
	m.memo.Invalidate()
	s, ok := replay.LookupSetting(key)
	if !ok {
		return nil
	}
	next := m.cfg
	if err := s.Set(&next, value); err != nil {
		// The editors validate as the user types, so this is rare (a
		// preset or default that no longer parses); keep the old value.
		m.err, m.errKey = fmt.Errorf("%s: %w", key, err), key
		return nil
	}
	// A value given by hand may imply others (an eager threshold makes
	// the send mode auto): the status line says what changed besides
	// it. A reset asks for the default, not a what-if.
	if byHand {
		if why := next.ByHand(func(k string) bool { return k == key }); why != "" {
			m.note = why
		}
	}
	m.cfg, m.name = next, "custom"
	return tea.Batch(m.check(true), m.publish())
}

// Update implements component.Model.
func (m *Model) Update(msg tea.Msg) (component.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case component.ThemeMsg:
		m.memo.Invalidate()
	case component.OpenTraceMsg:
		if msg.Trace != nil {
			m.ranks = len(msg.Trace.Ranks)
			m.sizeUnknown = msg.Trace.UnknownSizeCollectives()
			m.memo.Invalidate()
			return m, m.check(false)
		}
		return m, nil
	case component.ConfigMsg:
		return m, nil
	case component.SweepRefusedMsg:
		m.note = "sweep of " + msg.Key + " not started: " + msg.Reason
		m.memo.Invalidate()
		return m, nil
	case fileMsg:
		return m, m.loaded(msg)
	case formCheckedMsg:
		return m, m.formChecked(msg)
	case checkedMsg:
		if msg.gen != m.gen {
			return m, nil // the configuration changed since
		}
		m.checking = false
		// The same settings (the generation says so), and what the
		// check read of their files: which settings the platform
		// leaves unused.
		open := m.cfg.Open
		m.cfg = msg.cfg
		m.cfg.Open = open
		m.checked(msg.err, msg.sum)
		if msg.publish {
			return m, m.publish()
		}
		return m, nil
	case tea.KeyPressMsg:
		if m.ed == nil {
			return m, m.key(msg)
		}
		if m.ed.checking {
			m.ed.queued = append(m.ed.queued, msg)
			return m, nil
		}
	}
	if m.ed == nil {
		return m, nil
	}
	return m, m.toForm(msg)
}

// toForm gives the open form a message: keys, its own messages (next
// field, next group) and cursor blinks.
func (m *Model) toForm(msg tea.Msg) tea.Cmd {
	m.memo.Invalidate()
	if _, ok := msg.(tea.KeyPressMsg); ok {
		m.ed.keys++
	}
	f, cmd := m.ed.form.Update(msg)
	if f, ok := f.(*huh.Form); ok {
		m.ed.form = f
	}
	cmd = m.settle(cmd)
	switch m.ed.form.State {
	case huh.StateCompleted:
		ed := m.ed
		m.ed = nil
		return tea.Batch(cmd, m.finish(ed))
	case huh.StateAborted:
		m.ed = nil
		return cmd
	}
	return tea.Batch(cmd, m.startCheck())
}

// settle gives the open form, before the next key, the messages by which
// huh moves to the next or previous field or group, and returns the rest
// of cmd. huh sends them as commands, so Bubble Tea would deliver them
// after any keys already queued: typed ahead (or arriving in one burst
// over a slow link), the keys after enter went to the field being left
// (a select ignored the text meant for the next field; a submitted
// input took the keys meant for the list). Batches are opened (a batch's
// command only returns its commands); every other command (cursor
// blinks, huh's evaluations of titles and descriptions) is returned to
// run as usual.
func (m *Model) settle(cmd tea.Cmd) tea.Cmd {
	if cmd == nil || m.ed == nil {
		return cmd
	}
	switch stepOf(cmd) {
	case stepBatch:
		msg := cmd()
		batch, ok := msg.(tea.BatchMsg)
		if !ok { // a sequence: its order is its own
			return func() tea.Msg { return msg }
		}
		out := make([]tea.Cmd, 0, len(batch))
		for _, c := range batch {
			out = append(out, m.settle(c))
		}
		return tea.Batch(out...)
	case stepMove:
		f, next := m.ed.form.Update(cmd())
		if f, ok := f.(*huh.Form); ok {
			m.ed.form = f
		}
		return m.settle(next)
	}
	return cmd
}

// A formStep is what settle does with a command.
type formStep int

const (
	stepOther formStep = iota // run by Bubble Tea
	stepBatch                 // tea.Batch's or tea.Sequence's: opened
	stepMove                  // huh's move to a field or group: run now
)

// stepOf tells huh's moves and Bubble Tea's batches by their code:
// huh's moves between groups are unexported, so they are told by name
// (go.mod pins huh; TestTypeAhead fails if a new huh renames them).
func stepOf(cmd tea.Cmd) formStep {
	pc := reflect.ValueOf(cmd).Pointer()
	noop := func() tea.Msg { return nil }
	switch pc {
	case reflect.ValueOf(tea.Batch(noop, noop)).Pointer():
		return stepBatch
	case reflect.ValueOf(huh.NextField).Pointer(), reflect.ValueOf(huh.PrevField).Pointer():
		return stepMove
	}
	if f := runtime.FuncForPC(pc); f != nil {
		switch f.Name() {
		case "charm.land/huh/v2.nextGroup", "charm.land/huh/v2.prevGroup":
			return stepMove
		}
	}
	return stepOther
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
	if d, ok := k.List.Move(msg, m.common.Height-4); ok {
		m.move(d)
		return nil
	}
	switch {
	case key.Matches(msg, k.Edit):
		return m.edit(m.rows[m.cur].key)
	case key.Matches(msg, k.Default):
		r := m.rows[m.cur]
		def := replay.Default()
		m.note = r.key + " reset to its default"
		return m.applyHow(r.key, r.set.Get(&def), false)
	case key.Matches(msg, k.Sweep):
		return m.openSweep()
	case key.Matches(msg, k.Presets):
		return m.openPresets()
	case key.Matches(msg, k.Save):
		return m.openPath(edSave, "Save the configuration to", "machine.toml")
	case key.Matches(msg, k.Load):
		return m.openPath(edLoad, "Load a configuration from", "machine.toml")
	default:
		handled = false
	}
	return nil
}

// move selects the setting d rows away, skipping headers.
func (m *Model) move(d int) {
	i := min(max(m.cur+d, 0), len(m.rows)-1)
	step := 1
	if d < 0 {
		step = -1
	}
	for i >= 0 && i < len(m.rows) && m.rows[i].set == nil {
		i += step
	}
	if i < 0 || i >= len(m.rows) {
		return
	}
	m.cur = i
}

// Select moves the selection to the setting key, for tests and for
// other tabs that want to point at one.
func (m *Model) Select(key string) bool {
	for i, r := range m.rows {
		if r.key == key {
			m.cur = i
			m.memo.Invalidate()
			return true
		}
	}
	return false
}

// formKeys are huh's bindings with esc cancelling the editor (huh's own
// quit key is ctrl+c, which the application keeps for quitting).
func formKeys() *huh.KeyMap {
	km := huh.NewDefaultKeyMap()
	km.Quit = key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "cancel"))
	return km
}

func (m *Model) open(ed *editor, fields ...huh.Field) tea.Cmd {
	theme := huh.ThemeFunc(huh.ThemeCharm)
	if m.common.Theme != nil && m.common.Theme.Mono {
		theme = huh.ThemeFunc(huh.ThemeBase)
	}
	ed.form = huh.NewForm(huh.NewGroup(fields...)).
		WithShowHelp(false).
		WithKeyMap(formKeys()).
		WithTheme(theme).
		WithWidth(max(m.common.Width-2, 20)).
		WithHeight(12)
	m.ed = ed
	m.memo.Invalidate()
	return ed.form.Init()
}

// edit opens the editor of a setting.
func (m *Model) edit(k string) tea.Cmd {
	s, ok := replay.LookupSetting(k)
	if !ok {
		return nil
	}
	ed := &editor{kind: edSetting, key: k, a: s.Get(&m.cfg)}
	switch {
	case k == "topology":
		return m.editTopology(ed)
	case k == "routing":
		return m.editRouting(ed)
	case k == "placement":
		return m.editPlacement(ed)
	case k == "coll-alg":
		return m.editCollectives(ed)
	case s.Kind == replay.KindChoice:
		opts := make([]huh.Option[string], len(s.Choices))
		for i, c := range s.Choices {
			opts[i] = huh.NewOption(c, c)
		}
		return m.open(ed, huh.NewSelect[string]().Title(k).Description(s.Help).Options(opts...).Value(&ed.a))
	}
	return m.open(ed, huh.NewInput().Title(k).Description(s.Help).Value(&ed.a).
		Validate(func(v string) error {
			c := m.cfg
			return s.Set(&c, v)
		}))
}

// editTopology edits the topology as a kind and its parameters.
func (m *Model) editTopology(ed *editor) tea.Cmd {
	ed.kind = edTopology
	ed.a, ed.b, _ = strings.Cut(m.cfg.Topology, ":")
	examples := map[string]string{}
	for _, e := range topology.Examples() {
		k, p, _ := strings.Cut(e, ":")
		examples[k] = p
	}
	opts := []huh.Option[string]{huh.NewOption("none (complete graph; crossbar for the packet model)", "")}
	for _, k := range topology.Kinds() {
		opts = append(opts, huh.NewOption(k.String(), k.String()))
	}
	acc := &lockedString{v: &ed.a}
	kind := huh.NewSelect[string]().Title("topology kind").Options(opts...).Accessor(acc).Height(min(len(opts)+2, 8))
	params := huh.NewInput().Title("parameters").Value(&ed.b).
		DescriptionFunc(func() string {
			a := acc.Get()
			if a == "" {
				return "none needed"
			}
			return "e.g. " + a + ":" + examples[a] + " (see docs/topology.md)"
		}, &ed.a).
		Validate(func(p string) error {
			if ed.a == "" {
				return nil
			}
			spec := joinSpec(ed.a, p)
			return ed.validate(spec, func(open userfile.Opener) error {
				_, err := topology.ParseWith(spec, topology.Options{Open: open})
				return err
			})
		})
	return m.open(ed, kind, params)
}

// lockedString is the value of a form's kind select: huh evaluates the
// description functions that show it on command goroutines while Update
// changes it.
type lockedString struct {
	mu sync.Mutex
	v  *string
}

// Get implements huh.Accessor.
func (l *lockedString) Get() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return *l.v
}

// Set implements huh.Accessor.
func (l *lockedString) Set(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	*l.v = s
}

// editPlacement edits the placement as a strategy and its parameters
// (K ranks per node, a seed, a wrap map, a map file), checked against the
// loaded trace's ranks and the topology's nodes as the user types.
func (m *Model) editPlacement(ed *editor) tea.Cmd {
	ed.kind = edPlacement
	ed.a, ed.b, _ = strings.Cut(m.cfg.Placement, ":")
	hints := map[string]string{
		"":           "ranks-per-node and map place the ranks",
		"linear":     "no parameters: rank i on node i",
		"block":      "K: K consecutive ranks per node (empty: as few nodes as fit)",
		"roundrobin": "no parameters: rank i on node i mod nodes",
		"random":     "seed=S[,per=K]: a random placement, the same for the same seed",
		"map":        "P1,P2,…: rank j on node P[j mod n] (PUPPET's wrap map)",
		"file":       "PATH: a map file (RANK NODE lines, see docs/topology.md)",
	}
	opts := []huh.Option[string]{huh.NewOption("none (ranks-per-node, map)", "")}
	for _, k := range []string{"linear", "block", "roundrobin", "random", "map", "file"} {
		opts = append(opts, huh.NewOption(k, k))
	}
	acc := &lockedString{v: &ed.a}
	kind := huh.NewSelect[string]().Title("placement strategy").Options(opts...).Accessor(acc).Height(min(len(opts)+2, 9))
	params := huh.NewInput().Title("parameters").Value(&ed.b).
		DescriptionFunc(func() string { return hints[acc.Get()] }, &ed.a).
		Validate(func(p string) error {
			spec, cfg, ranks := joinPlacement(ed.a, p), m.cfg, m.ranks
			return ed.validate(spec, func(open userfile.Opener) error {
				c := cfg
				c.Open = open
				_, err := Check(c, "placement", spec, ranks)
				switch culprit(err) {
				case "", "placement", "ranks-per-node", "map":
				default:
					return nil // another setting's problem: shown on its row
				}
				return err
			})
		})
	return m.open(ed, kind, params)
}

// editCollectives offers one choice per collective operation: MPICH's
// automatic choice or one of the algorithms engine/collective has for it.
func (m *Model) editCollectives(ed *editor) tea.Cmd {
	ed.kind = edCollectives
	for op := tracefmt.OpBarrier; op <= tracefmt.OpExscan; op++ {
		if len(collective.Algorithms(op)) == 0 {
			continue
		}
		cur := "auto"
		if a := m.cfg.CollAlg[op]; a != collective.Auto {
			cur = a.String()
		}
		ed.ops = append(ed.ops, opChoice{op: op, alg: cur})
	}
	// The fields bind to the elements of ed.ops, which no longer move.
	var fields []huh.Field
	for i := range ed.ops {
		c := &ed.ops[i]
		opts := []huh.Option[string]{huh.NewOption("auto", "auto")}
		for _, a := range collective.Algorithms(c.op) {
			if a != collective.Auto { // listed first already
				opts = append(opts, huh.NewOption(a.String(), a.String()))
			}
		}
		fields = append(fields, huh.NewSelect[string]().Title(fmt.Sprintf("%-14s", c.op.String())).
			Options(opts...).Value(&c.alg).Inline(true))
	}
	cmd := m.open(ed, fields...)
	// Fifteen operations: the form scrolls within the editor's area.
	ed.form = ed.form.WithHeight(max(m.common.Height-8, 6))
	return cmd
}

// collAlgSpec writes the choices as the coll-alg setting reads them.
func collAlgSpec(ops []opChoice) string {
	var parts []string
	for _, c := range ops {
		if c.alg != "auto" {
			parts = append(parts, c.op.String()+"="+c.alg)
		}
	}
	if len(parts) == 0 {
		return "auto"
	}
	return strings.Join(parts, ",")
}

// joinPlacement writes a placement spec; strategies without parameters
// take none.
func joinPlacement(kind, params string) string {
	params = strings.TrimSpace(params)
	if kind == "" || params == "" {
		return kind
	}
	return kind + ":" + params
}

func joinSpec(kind, params string) string {
	if kind == "" {
		return ""
	}
	return kind + ":" + strings.TrimSpace(params)
}

// editRouting offers the routings valid on the configured topology, with
// the virtual channels each needs.
func (m *Model) editRouting(ed *editor) tea.Cmd {
	ed.kind = edRouting
	t, err := m.cfg.ParseTopology()
	if err != nil {
		m.note = "fix the topology first: " + err.Error()
		return nil
	}
	if t == nil {
		t, _ = topology.Parse("crossbar:2") // the packet model's network without a topology
	}
	def, _ := routing.Default(t, m.cfg.VCs)
	opts := []huh.Option[string]{huh.NewOption(fmt.Sprintf("default for %d VCs (%s)", m.cfg.VCs, def), "")}
	for _, in := range routing.Available(t) {
		free := "may deadlock"
		if in.DeadlockFree {
			free = "deadlock-free"
		}
		label := fmt.Sprintf("%-15s ≥%d VC, %s", in.Name, in.MinVCs, free)
		if in.MinVCs > m.cfg.VCs {
			label += fmt.Sprintf(" (needs %d VCs, have %d)", in.MinVCs, m.cfg.VCs)
		}
		// One line per choice: huh wraps long options, which makes the
		// list jump; the summary is cut to the width.
		label = ansi.Truncate(label+": "+in.Summary, max(m.common.Width-8, 20), "…")
		opts = append(opts, huh.NewOption(label, in.Name))
	}
	return m.open(ed, huh.NewSelect[string]().Title("routing on "+t.Spec()).Options(opts...).Value(&ed.a).Height(min(len(opts)+2, 10)))
}

func (m *Model) openPresets() tea.Cmd {
	ed := &editor{kind: edPreset}
	var opts []huh.Option[string]
	for _, p := range Presets() {
		opts = append(opts, huh.NewOption(ansi.Truncate(p.Name+" — "+p.Description, max(m.common.Width-8, 20), "…"), p.Name))
	}
	return m.open(ed, huh.NewSelect[string]().Title("preset machine").Options(opts...).Value(&ed.a).Height(min(len(opts)+2, 10)))
}

func (m *Model) openPath(kind edKind, title, def string) tea.Cmd {
	ed := &editor{kind: kind, a: def}
	desc := "TOML or JSON by extension, as `tracesim sim --config` reads"
	return m.open(ed, huh.NewInput().Title(title).Description(desc).Value(&ed.a).
		Validate(func(p string) error {
			if strings.TrimSpace(p) == "" {
				return fmt.Errorf("a file name is needed")
			}
			return nil
		}))
}

// finish applies what a completed editor produced.
func (m *Model) finish(ed *editor) tea.Cmd {
	switch ed.kind {
	case edSetting, edRouting:
		m.note = ""
		if ed.kind == edRouting {
			ed.key = "routing"
		}
		return m.apply(ed.key, strings.TrimSpace(ed.a))
	case edTopology:
		m.note = ""
		return m.apply("topology", joinSpec(ed.a, ed.b))
	case edPlacement:
		m.note = ""
		return m.apply("placement", joinPlacement(ed.a, ed.b))
	case edCollectives:
		m.note = ""
		return m.apply("coll-alg", collAlgSpec(ed.ops))
	case edPreset:
		return m.applyPreset(ed.a)
	case edSave:
		return m.save(ed.a)
	case edLoad:
		return m.load(ed.a)
	case edSweep:
		return m.finishSweep(ed)
	}
	return nil
}

// applyPreset replaces the configuration with the named preset.
func (m *Model) applyPreset(name string) tea.Cmd {
	i := slices.IndexFunc(Presets(), func(p Preset) bool { return p.Name == name })
	if i < 0 {
		return nil
	}
	cfg, err := Presets()[i].Config()
	if err != nil {
		m.note = err.Error()
		return nil
	}
	m.cfg, m.name = cfg, name
	m.note = "preset " + name
	return tea.Batch(m.check(true), m.publish())
}

// fileMsg is the outcome of a save or a load, done on a command
// goroutine: file I/O stays out of Update.
type fileMsg struct {
	note string
	cfg  *replay.Config // the configuration loaded; nil for a save or a failure
	name string
}

// save writes the configuration to name: into the session's save
// directory when the session has a library (Files), else by path. The
// note names the file as the user can find it — relative to the library,
// never by the server's absolute path.
func (m *Model) save(name string) tea.Cmd {
	name = strings.TrimSpace(name)
	format := "toml"
	ext := strings.ToLower(filepath.Ext(name))
	if ext == ".json" {
		format = "json"
	}
	files := m.common.Files
	if files != nil && ext != ".toml" && ext != ".json" {
		// In a shared library (a served session) a save may only make
		// configuration files, never replace a trace someone else reads.
		m.note = "save: " + name + ": the name must end in .toml or .json"
		return nil
	}
	cfg := m.cfg
	return func() tea.Msg {
		write := func(dir string) func(io.Writer) error {
			return func(w io.Writer) error {
				// file: specs are relative to the file's directory when
				// read back (LoadFile), so write them that way.
				out := cfg.Relocated(dir)
				data, err := out.Encode(format)
				if err != nil {
					return err
				}
				_, err = w.Write(data)
				return err
			}
		}
		if files == nil {
			if err := atomicfile.Write(name, write(filepath.Dir(name))); err != nil {
				return fileMsg{note: "save: " + err.Error()}
			}
			return fileMsg{note: "saved " + name}
		}
		rel, err := files.SaveName(name)
		if err == nil {
			rel, err = files.Save(name, write(filepath.Dir(filepath.FromSlash(rel))))
		}
		if err != nil {
			return fileMsg{note: "save: " + err.Error()}
		}
		return fileMsg{note: "saved " + rel}
	}
}

// load reads a configuration: in a served session the student's own copy
// when there is one, else the library's (a teacher's shared file).
func (m *Model) load(name string) tea.Cmd {
	name = strings.TrimSpace(name)
	files := m.common.Files
	return func() tea.Msg {
		c := replay.Default()
		p := name
		if files != nil {
			c.Open = files.Open
			p = files.Find(name)
		}
		if err := c.LoadFile(p); err != nil {
			return fileMsg{note: "load: " + err.Error()}
		}
		return fileMsg{note: "loaded " + p, cfg: &c, name: filepath.Base(p)}
	}
}

// loaded applies the outcome of a save or a load.
func (m *Model) loaded(msg fileMsg) tea.Cmd {
	m.note = msg.note
	m.memo.Invalidate()
	if msg.cfg == nil {
		return nil
	}
	m.cfg, m.name = *msg.cfg, msg.name
	return tea.Batch(m.check(true), m.publish())
}

// View implements component.Model.
func (m *Model) View() string {
	// An open form draws its cursor and fields itself: never cached.
	if m.ed != nil {
		m.memo.Invalidate()
	}
	return m.memo.View(m.common, func(w, h int) string { return component.Fit(m.render(w, h), w, h) })
}

func (m *Model) render(w, h int) []string {
	if w <= 0 || h <= 0 {
		return nil
	}
	st := m.common.Theme.Styles
	lines := []string{st.Title.Render("Machine") + st.Dim.Render(" · "+m.name+" · "+m.sum)}
	if m.sizeUnknown > 0 && h > 4 {
		lines = append(lines, st.Warn.Render(ansi.Truncate("⚠ "+tracefmt.SizeUnknownNote(m.sizeUnknown), w, "…")))
	}

	var edit []string
	if m.ed != nil {
		edit = strings.Split(strings.TrimRight(m.ed.form.View(), "\n"), "\n")
		// The form pads to its height (set so that a wrapped
		// description does not push the input out): drop the padding.
		for len(edit) > 1 && strings.TrimSpace(ansi.Strip(edit[len(edit)-1])) == "" {
			edit = edit[:len(edit)-1]
		}
		edit = append([]string{st.Dim.Render(strings.Repeat("─", w))}, edit...)
	}
	footer := m.footer(st, w)
	// The editor may take all but the title, the footer and three lines
	// of the list (the edited setting stays in view).
	edit = edit[:min(len(edit), max(h-1-len(footer)-3, 3))]
	listH := max(h-1-len(edit)-len(footer), 0)
	lines = append(lines, m.list(st, w, listH)...)
	lines = append(lines, edit...)
	lines = append(lines, footer...)
	return lines
}

// list renders the settings, scrolled so that the selection shows.
func (m *Model) list(st themes.Styles, w, h int) []string {
	if h <= 0 {
		return nil
	}
	kw := 16
	vw := min(max(w/4, 12), 32)
	var out []string
	sel := 0
	def := replay.Default()
	for i, r := range m.rows {
		if r.set == nil {
			out = append(out, st.PanelTitle.Render(r.header))
			continue
		}
		if i == m.cur {
			sel = len(out)
		}
		v := r.set.Get(&m.cfg)
		if v == "" {
			v = "(none)"
		}
		mark := "  "
		ks := st.Bold
		if i == m.cur {
			mark = "▸ "
			ks = st.Selected
		}
		// Values that differ from the defaults stand out: they are the
		// what-if.
		vs := pad(v, vw)
		if r.set.Get(&m.cfg) != r.set.Get(&def) {
			vs = st.Bold.Render(pad(v+" *", vw))
		}
		// The help is cut with an ellipsis; the footer shows the
		// selected setting's in full. A setting the model ignores is
		// greyed and says so instead.
		help := ansi.Truncate(r.set.Help, max(w-2-kw-1-vw-1, 0), "…")
		if why := replay.Unused(&m.cfg, r.key); why != "" {
			ks, vs = st.Dim, st.Dim.Render(pad(v, vw))
			if r.set.Get(&m.cfg) != r.set.Get(&def) {
				vs = st.Dim.Render(pad(v+" *", vw))
			}
			help = ansi.Truncate(why, max(w-2-kw-1-vw-1, 0), "…")
		}
		line := mark + ks.Render(pad(r.key, kw)) + " " + vs + " " + st.Dim.Render(help)
		out = append(out, line)
		if r.key == m.errKey && m.err != nil {
			// Up to three lines: the engine's messages end with what
			// would be valid, the useful part.
			for i, l := range component.Wrap("✗ "+m.err.Error(), max(w-6, 10), 0) {
				if i == 3 {
					break
				}
				out = append(out, "    "+st.Error.Render(l))
			}
		}
	}
	// Scroll: keep the selection (and its error line) in view.
	if sel < m.top {
		m.top = sel
	}
	if sel+1 >= m.top+h {
		m.top = sel + 2 - h
	}
	m.top = min(max(m.top, 0), max(len(out)-h, 0))
	return out[m.top:min(len(out), m.top+h)]
}

func (m *Model) footer(st themes.Styles, w int) []string {
	var out []string
	switch {
	case m.checking:
		out = append(out, st.Dim.Render("… checking the files the configuration names"))
	case m.err != nil && m.errKey == "":
		out = append(out, st.Error.Render("✗ not applied: "+m.err.Error()))
	case m.err != nil:
		out = append(out, st.Error.Render("✗ not applied: fix "+m.errKey+" (marked above)"))
	default:
		ok := "✓ valid: the Simulate tab runs this machine next · * differs from the default"
		if m.cur >= 0 && m.cur < len(m.rows) && m.rows[m.cur].set != nil {
			if why := replay.Unused(&m.cfg, m.rows[m.cur].key); why != "" {
				// Valid, and without effect: say so rather than "✓".
				ok = "✓ valid, but " + m.rows[m.cur].key + " is " + why + ": it changes nothing"
			}
		}
		out = append(out, st.Dim.Render(ok))
	}
	if m.note != "" && m.common.Height >= 8 {
		// Wrapped, not cut: a refused sweep's or a failed load's reason
		// comes after its first words ("sweep of topology not started:
		// …"), and at 80 columns a cut line lost it. Up to four lines
		// (a file path and the engine's "want …"); the list gives way.
		for _, l := range component.Wrap(m.note, w, 4) {
			out = append(out, st.Dim.Render(l))
		}
	}
	// The selected setting's help, when the list had to cut it.
	if m.ed == nil && m.cur >= 0 && m.cur < len(m.rows) && m.rows[m.cur].set != nil && m.common.Height >= 16 {
		kw, vw := 16, min(max(w/4, 12), 32)
		if help := m.rows[m.cur].set.Help; lipgloss.Width(help) > w-2-kw-1-vw-1 {
			lines := component.Wrap(m.rows[m.cur].key+": "+help, max(w, 10), 0)
			var full []string
			for i, l := range lines[:min(len(lines), 3)] {
				if i == 2 && len(lines) > 3 {
					l = ansi.Truncate(l+" …", w, "…")
				}
				full = append(full, st.Dim.Render(l))
			}
			out = append(full, out...)
		}
	}
	return out
}

func pad(s string, w int) string {
	if n := lipgloss.Width(s); n < w {
		return s + strings.Repeat(" ", w-n)
	}
	return ansi.Truncate(s, w, "…")
}
