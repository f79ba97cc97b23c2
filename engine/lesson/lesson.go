// Package lesson reads guided lessons: Markdown files with a small front
// matter (title, level, trace, machine) whose "## " sections are the
// steps. A step says which tab or keys it wants the student to reach and
// may ask a question whose answer the engine computes from the lesson's
// trace and machine (a simulated makespan, a deadlock, a causality
// finding), so that no answer is written down in the lesson and every
// answer stays true as the engine changes. docs/lessons.md describes the
// format; the TUI's Learn tab (views/learn) runs lessons.
//
// A lesson file looks like this:
//
//	---
//	title: Ring against hypercube
//	level: beginner
//	trace: tracesim gen ring --ranks 8 --iters 10
//	machine: ethernet-1996
//	set: topology=ring:8 hops=0
//	---
//	Introduction, in Markdown.
//
//	## Run it
//	<!-- step
//	keys: 7 r
//	question: What is the predicted run time, in ms?
//	answer: makespan
//	unit: ms
//	hint: The Simulate tab (7) runs the trace on the machine; r runs to the end.
//	-->
//	Text of the step, in Markdown.
package lesson

import (
	"bufio"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strconv"
	"strings"

	"github.com/tracesim/tracesim/engine/preset"
	"github.com/tracesim/tracesim/engine/replay"
	"github.com/tracesim/tracesim/tracefmt/gen"
)

// MaxSize is the largest lesson file Parse reads, in bytes: a lesson is
// prose, and anything larger is the wrong file.
const MaxSize = 1 << 20

// Error is a problem with a lesson file, at a line.
type Error struct {
	File string
	Line int // 1-based; 0 when the problem is the whole file
	Msg  string
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return e.File + ": " + e.Msg
}

// Setting is one machine setting a lesson or a step applies, with the
// line that gives it.
type Setting struct {
	Key, Value string
	Line       int
}

// Trace says where a lesson's trace comes from: a file beside the
// lesson, or a `tracesim gen` command.
type Trace struct {
	// File is a path relative to the lesson's directory ("" for Gen).
	File string
	// Gen is the generator's options of a `tracesim gen` command.
	Gen *gen.Options
	// Spec is the front matter's text, Line its line.
	Spec string
	Line int
}

// Lesson is a parsed lesson file.
type Lesson struct {
	// Name is the file's base name without ".md": what `tracesim lesson
	// NAME` and the progress records call it.
	Name string
	// File is the path it was read from, for messages.
	File  string
	Title string
	Level string
	Trace Trace
	// Preset is the machine preset's key ("" for the default machine)
	// and PresetLine its line.
	Preset     string
	PresetLine int
	// Settings apply on top of the preset, in order.
	Settings []Setting
	// Intro is the Markdown before the first step.
	Intro string
	Steps []Step

	// fsys and fsPath: where a lesson read by ParseFS came from, for its
	// trace file.
	fsys   fs.FS
	fsPath string
}

// Step is one "## " section of a lesson.
type Step struct {
	// Line is the line of the step's heading.
	Line  int
	Title string
	// Text is the step's Markdown without its step block.
	Text string
	// Tab is the name of the tab the student must reach ("" for none),
	// TabLine its line.
	Tab     string
	TabLine int
	// Keys are the keys the student must press, in order (other keys in
	// between do not matter), as Bubble Tea names them ("7", "r",
	// "enter"); KeysLine is their line.
	Keys     []string
	KeysLine int
	// Settings change the machine from this step on: the Learn tab
	// applies them when the step is reached.
	Settings []Setting
	// Question is nil for a step without one.
	Question *Question
}

// Question asks for something the tool shows.
type Question struct {
	Line int
	Text string
	// Answer says how the engine computes the expected answer;
	// AnswerLine is its line.
	Answer     Answer
	AnswerLine int
	// Unit is the unit answers are typed in when they give none: s, ms,
	// us or ns for times ("" for counts, ranks and ratios).
	Unit string
	// Tolerance is how far an answer may be from the expected one:
	// relative (0.02 for "2%") when Relative, else absolute in Unit.
	Tolerance float64
	Relative  bool
	// Hint is shown after a wrong answer.
	Hint string
}

// Kind is what an answer measures.
type Kind uint8

// Answer kinds.
const (
	// Makespan is the simulated run time, in seconds.
	Makespan Kind = iota
	// Ratio is the makespan on machine A over the makespan on machine B.
	Ratio
	// BlockedRanks is the number of ranks blocked when the replay
	// deadlocks (0 when it does not).
	BlockedRanks
	// SlowestRank is the rank that finishes last in the replay (any of
	// those that tie).
	SlowestRank
	// Reversals counts the messages received before they were sent (the
	// Causality tab's reversal findings).
	Reversals
	// ReversalRank is the rank that receives the message of the largest
	// reversal (any of them when several are as large).
	ReversalRank
	// LargestReversal is answered by selecting a finding in the Causality
	// tab: the reversal with the largest amount (any of equals).
	LargestReversal
	numKinds
)

var kindNames = [numKinds]string{
	Makespan: "makespan", Ratio: "ratio", BlockedRanks: "blocked-ranks",
	SlowestRank: "slowest-rank", Reversals: "reversals", ReversalRank: "reversal-rank",
	LargestReversal: "largest-reversal",
}

// String returns the kind as lesson files spell it.
func (k Kind) String() string {
	if k < numKinds {
		return kindNames[k]
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// Integer reports whether answers of kind k are whole numbers, compared
// exactly.
func (k Kind) Integer() bool { return k != Makespan && k != Ratio && k != LargestReversal }

// Selected reports whether answers of kind k are a finding the student
// selects in the Causality tab rather than a number they type.
func (k Kind) Selected() bool { return k == LargestReversal }

// Answer is how to compute a question's expected answer.
type Answer struct {
	Kind Kind
	// With are settings on top of the step's machine for Makespan,
	// BlockedRanks and SlowestRank, and machine A's for Ratio.
	With []Setting
	// Over is machine B's settings for Ratio.
	Over []Setting
}

// String returns the answer as a lesson file writes it.
func (a Answer) String() string {
	s := a.Kind.String()
	kv := func(ss []Setting) string {
		var b []string
		for _, x := range ss {
			b = append(b, x.Key+"="+x.Value)
		}
		return strings.Join(b, " ")
	}
	if len(a.With) > 0 || a.Kind == Ratio {
		s += " " + kv(a.With)
	}
	if a.Kind == Ratio {
		s += " / " + kv(a.Over)
	}
	return strings.Join(strings.Fields(s), " ")
}

// timeUnits are the units a time question may use, in seconds.
var timeUnits = map[string]float64{"s": 1, "ms": 1e-3, "us": 1e-6, "ns": 1e-9}

// Parse reads a lesson from r; file names it in errors, and its base name
// without ".md" is the lesson's Name. Errors are *Error values naming
// the line.
func Parse(file string, r io.Reader) (*Lesson, error) {
	name := strings.TrimSuffix(path.Base(strings.ReplaceAll(file, "\\", "/")), ".md")
	l := &Lesson{Name: name, File: file}
	p := &parser{l: l}
	sc := bufio.NewScanner(io.LimitReader(r, MaxSize+1))
	sc.Buffer(make([]byte, 64<<10), MaxSize+1)
	size := 0
	for sc.Scan() {
		p.line++
		size += len(sc.Bytes()) + 1
		if size > MaxSize {
			return nil, p.errf("the lesson is larger than %d bytes", MaxSize)
		}
		if err := p.feed(strings.TrimRight(sc.Text(), "\r")); err != nil {
			return nil, err
		}
	}
	if err := sc.Err(); err != nil {
		if err == bufio.ErrTooLong {
			return nil, p.errf("a line is longer than %d bytes", MaxSize)
		}
		return nil, &Error{File: file, Msg: err.Error()}
	}
	if err := p.finish(); err != nil {
		return nil, err
	}
	return l, nil
}

// parser states.
const (
	stStart = iota // before the front matter's opening ---
	stFront        // inside the front matter
	stBody         // Markdown
	stBlock        // inside a step block
)

type parser struct {
	l     *Lesson
	line  int
	state int
	text  []string // Markdown lines of the intro or the current step
	step  *Step
	// blockLine is the line of the open step block, seen whether the
	// current step has had one.
	blockLine int
	seen      map[string]int // keys given in the front matter or the block
	// question fields gathered in the current block
	q *Question
}

func (p *parser) errf(format string, a ...any) error {
	return &Error{File: p.l.File, Line: p.line, Msg: fmt.Sprintf(format, a...)}
}

func (p *parser) feed(s string) error {
	switch p.state {
	case stStart:
		if strings.TrimSpace(s) == "" {
			return nil
		}
		if strings.TrimSpace(s) != "---" {
			return p.errf("expected the front matter's opening line \"---\"")
		}
		p.state, p.seen = stFront, map[string]int{}
		return nil
	case stFront:
		if strings.TrimSpace(s) == "---" {
			return p.endFront()
		}
		return p.front(s)
	case stBlock:
		if strings.TrimSpace(s) == "-->" {
			return p.endBlock()
		}
		return p.blockField(s)
	}
	t := strings.TrimSpace(s)
	switch {
	case strings.HasPrefix(s, "## "):
		p.flushText()
		title := strings.TrimSpace(s[3:])
		if title == "" {
			return p.errf("a step heading needs a title")
		}
		p.l.Steps = append(p.l.Steps, Step{Line: p.line, Title: title})
		p.step = &p.l.Steps[len(p.l.Steps)-1]
		p.blockLine = 0
		return nil
	case t == "<!-- step" || strings.HasPrefix(t, "<!-- step "):
		if p.step == nil {
			return p.errf("a step block before the first \"## \" step heading")
		}
		if p.blockLine != 0 {
			return p.errf("a second step block in step %q (the first is on line %d)", p.step.Title, p.blockLine)
		}
		if rest := strings.TrimSpace(strings.TrimPrefix(t, "<!-- step")); rest != "" {
			return p.errf("a step block starts with a line of its own, \"<!-- step\"; found %q after it", rest)
		}
		p.state, p.blockLine, p.seen, p.q = stBlock, p.line, map[string]int{}, nil
		return nil
	}
	p.text = append(p.text, s)
	return nil
}

// field splits "key: value".
func (p *parser) field(s string) (string, string, error) {
	k, v, ok := strings.Cut(s, ":")
	k = strings.TrimSpace(k)
	if !ok || k == "" || strings.ContainsAny(k, " \t") {
		return "", "", p.errf("expected \"key: value\", found %q", strings.TrimSpace(s))
	}
	if at, dup := p.seen[k]; dup && k != "set" {
		return "", "", p.errf("%s is given twice (first on line %d)", k, at)
	}
	p.seen[k] = p.line
	v = strings.TrimSpace(v)
	if v == "" {
		return "", "", p.errf("%s: expected a value", k)
	}
	return k, v, nil
}

func (p *parser) front(s string) error {
	if t := strings.TrimSpace(s); t == "" || strings.HasPrefix(t, "#") {
		return nil
	}
	k, v, err := p.field(s)
	if err != nil {
		return err
	}
	l := p.l
	switch k {
	case "title":
		l.Title = v
	case "level":
		switch v {
		case "beginner", "intermediate", "advanced":
			l.Level = v
		default:
			return p.errf("level: expected beginner, intermediate or advanced, found %q", v)
		}
	case "trace":
		tr, err := parseTrace(v)
		if err != nil {
			return p.errf("trace: %v", err)
		}
		tr.Line = p.line
		l.Trace = tr
	case "machine":
		pr, err := preset.Lookup(v)
		if err != nil {
			return p.errf("machine: %v", err)
		}
		l.Preset, l.PresetLine = pr.Key, p.line
	case "set":
		ss, err := p.settings(strings.Fields(v))
		if err != nil {
			return err
		}
		l.Settings = append(l.Settings, ss...)
	default:
		return p.errf("unknown front matter key %q (expected title, level, trace, machine or set)", k)
	}
	return nil
}

func (p *parser) endFront() error {
	for _, k := range []string{"title", "trace"} {
		if _, ok := p.seen[k]; !ok {
			return p.errf("the front matter has no %s", k)
		}
	}
	if p.l.Level == "" {
		p.l.Level = "beginner"
	}
	p.state = stBody
	return nil
}

// settings parses key=value words, checking each against the engine's
// settings.
func (p *parser) settings(words []string) ([]Setting, error) {
	var out []Setting
	for _, w := range words {
		k, v, ok := strings.Cut(w, "=")
		if !ok || k == "" || v == "" {
			return nil, p.errf("expected a machine setting key=value, found %q", w)
		}
		c := replay.Default()
		if err := c.Set(k, v); err != nil {
			return nil, p.errf("set %s: %v", w, err)
		}
		out = append(out, Setting{Key: k, Value: v, Line: p.line})
	}
	return out, nil
}

func (p *parser) blockField(s string) error {
	if strings.TrimSpace(s) == "" {
		return nil
	}
	k, v, err := p.field(s)
	if err != nil {
		return err
	}
	st := p.step
	q := func() *Question {
		if p.q == nil {
			p.q = &Question{Tolerance: 0.02, Relative: true}
		}
		return p.q
	}
	switch k {
	case "tab":
		st.Tab, st.TabLine = v, p.line
	case "keys":
		for _, w := range strings.Fields(v) {
			if err := checkKey(w); err != nil {
				return p.errf("keys: %v", err)
			}
			st.Keys = append(st.Keys, w)
		}
		st.KeysLine = p.line
	case "set":
		ss, err := p.settings(strings.Fields(v))
		if err != nil {
			return err
		}
		st.Settings = append(st.Settings, ss...)
	case "question":
		q().Text, q().Line = v, p.line
	case "answer":
		a, err := p.answer(v)
		if err != nil {
			return err
		}
		q().Answer, q().AnswerLine = a, p.line
	case "unit":
		if _, ok := timeUnits[v]; !ok {
			return p.errf("unit: expected s, ms, us or ns, found %q", v)
		}
		q().Unit = v
	case "tolerance":
		tol, rel, err := parseTolerance(v)
		if err != nil {
			return p.errf("tolerance: %v", err)
		}
		q().Tolerance, q().Relative = tol, rel
	case "hint":
		q().Hint = v
	default:
		return p.errf("unknown step key %q (expected tab, keys, set, question, answer, unit, tolerance or hint)", k)
	}
	return nil
}

func (p *parser) endBlock() error {
	st := p.step
	if q := p.q; q != nil {
		blk := func(k string) error {
			return &Error{File: p.l.File, Line: p.blockLine, Msg: fmt.Sprintf("step %q: a question needs %s", st.Title, k)}
		}
		switch {
		case q.Line == 0:
			return blk("a question: line")
		case q.AnswerLine == 0:
			return blk("an answer: line saying how the tool computes it")
		case q.Hint == "":
			return blk("a hint: line, shown after a wrong answer")
		}
		at := func(line int, format string, a ...any) error {
			return &Error{File: p.l.File, Line: line, Msg: fmt.Sprintf(format, a...)}
		}
		switch {
		case q.Answer.Kind == Makespan && q.Unit == "":
			return at(q.AnswerLine, "answer makespan needs a unit: line (s, ms, us or ns)")
		case q.Answer.Kind != Makespan && q.Unit != "":
			return at(p.seen["unit"], "unit: answer %s is not a time", q.Answer.Kind)
		case q.Answer.Kind.Integer() && p.seen["tolerance"] != 0:
			return at(p.seen["tolerance"], "tolerance: answer %s is a whole number, compared exactly", q.Answer.Kind)
		case q.Answer.Kind.Selected() && p.seen["tolerance"] != 0:
			return at(p.seen["tolerance"], "tolerance: answer %s is a finding the student selects", q.Answer.Kind)
		}
		st.Question = q
	}
	p.state = stBody
	return nil
}

// answer parses an answer: line.
func (p *parser) answer(v string) (Answer, error) {
	words := strings.Fields(v)
	var a Answer
	found := false
	for k := Kind(0); k < numKinds; k++ {
		if k.String() == words[0] {
			a.Kind, found = k, true
		}
	}
	if !found {
		return a, p.errf("answer: unknown kind %q (expected %s)", words[0], strings.Join(kindNames[:], ", "))
	}
	rest := words[1:]
	switch a.Kind {
	case Reversals, ReversalRank, LargestReversal:
		if len(rest) > 0 {
			return a, p.errf("answer: %s is computed from the recorded trace and takes no settings", a.Kind)
		}
	case Ratio:
		i := -1
		for j, w := range rest {
			if w == "/" {
				if i >= 0 {
					return a, p.errf("answer: ratio has two \"/\"")
				}
				i = j
			}
		}
		if i < 0 {
			return a, p.errf("answer: ratio needs \"SETTINGS / SETTINGS\" (machine A's run time over machine B's)")
		}
		var err error
		if a.With, err = p.settings(rest[:i]); err != nil {
			return a, err
		}
		if a.Over, err = p.settings(rest[i+1:]); err != nil {
			return a, err
		}
		if len(a.With) == 0 && len(a.Over) == 0 {
			return a, p.errf("answer: a ratio of the same machine is always 1: give settings on one side of \"/\"")
		}
	default:
		var err error
		if a.With, err = p.settings(rest); err != nil {
			return a, err
		}
	}
	return a, nil
}

// flushText stores the Markdown gathered so far in the intro or the step.
func (p *parser) flushText() {
	txt := strings.Trim(strings.Join(p.text, "\n"), "\n")
	p.text = p.text[:0]
	if p.step == nil {
		p.l.Intro = txt
	} else {
		p.step.Text = txt
	}
}

func (p *parser) finish() error {
	switch p.state {
	case stStart:
		return &Error{File: p.l.File, Line: max(p.line, 1), Msg: "expected the front matter's opening line \"---\""}
	case stFront:
		return p.errf("the front matter is not closed by a line \"---\"")
	case stBlock:
		return &Error{File: p.l.File, Line: p.blockLine, Msg: "the step block is not closed by a line \"-->\""}
	}
	p.flushText()
	if len(p.l.Steps) == 0 {
		return p.errf("the lesson has no steps (\"## \" headings)")
	}
	return nil
}

// parseTolerance reads "2%" (relative) or "0.5" (absolute, in the
// question's unit).
func parseTolerance(v string) (float64, bool, error) {
	rel := strings.HasSuffix(v, "%")
	f, err := strconv.ParseFloat(strings.TrimSuffix(v, "%"), 64)
	if err != nil || !(f >= 0) || f > 1e9 {
		return 0, false, fmt.Errorf("expected a number or a percentage such as 2%%, found %q", v)
	}
	if rel {
		if f >= 100 {
			return 0, false, fmt.Errorf("%q accepts any answer: use less than 100%%", v)
		}
		f /= 100
	}
	return f, rel, nil
}

// namedKeys are the keys besides single characters a step may name.
var namedKeys = map[string]bool{
	"enter": true, "esc": true, "tab": true, "shift+tab": true, "space": true, "backspace": true,
	"up": true, "down": true, "left": true, "right": true, "pgup": true, "pgdown": true,
	"home": true, "end": true,
}

// checkKey accepts one printable character, a named key or ctrl+letter.
func checkKey(k string) error {
	if r := []rune(k); len(r) == 1 && r[0] > ' ' && r[0] != 0x7f {
		return nil
	}
	if namedKeys[k] {
		return nil
	}
	if c, ok := strings.CutPrefix(k, "ctrl+"); ok && len(c) == 1 && c[0] >= 'a' && c[0] <= 'z' {
		return nil
	}
	return fmt.Errorf("unknown key %q (expected one character, ctrl+x, or one of enter, esc, tab, shift+tab, space, backspace, up, down, left, right, pgup, pgdown, home, end)", k)
}

// parseTrace reads a trace: value, a file or a `tracesim gen` command.
func parseTrace(v string) (Trace, error) {
	words := strings.Fields(v)
	if words[0] != "tracesim" {
		if len(words) > 1 {
			return Trace{}, fmt.Errorf("expected a file name or a \"tracesim gen\" command, found %q", v)
		}
		if path.IsAbs(v) || strings.HasPrefix(v, "/") || strings.Contains(v, "\\") || containsDotDot(v) {
			return Trace{}, fmt.Errorf("%q: a trace file is named relative to the lesson, inside its directory", v)
		}
		return Trace{File: v, Spec: v}, nil
	}
	if len(words) < 3 || words[1] != "gen" {
		return Trace{}, fmt.Errorf("expected \"tracesim gen PATTERN [flags]\", found %q", v)
	}
	o := gen.Options{Pattern: words[2], Compute: -1, Seed: 1}
	args := words[3:]
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "-") {
			return Trace{}, fmt.Errorf("gen: unexpected argument %q (expected --flag value)", a)
		}
		name, val, has := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !has {
			if i+1 >= len(args) {
				return Trace{}, fmt.Errorf("gen: --%s needs a value", name)
			}
			i++
			val = args[i]
		}
		if err := gen.SetFlag(&o, name, val); err != nil {
			return Trace{}, fmt.Errorf("gen: --%s: %v", name, err)
		}
	}
	cnt, err := gen.Expect(o)
	if err != nil {
		return Trace{}, fmt.Errorf("gen: %v", err)
	}
	if cnt.Events > maxGenEvents {
		return Trace{}, fmt.Errorf("gen: %d events is more than a lesson's %d", cnt.Events, maxGenEvents)
	}
	return Trace{Gen: &o, Spec: v}, nil
}

// maxGenEvents bounds a generated lesson trace: lessons are run by a
// class on one server, and their answers are computed when they open.
const maxGenEvents = 2_000_000

func containsDotDot(v string) bool {
	for _, part := range strings.Split(v, "/") {
		if part == ".." {
			return true
		}
	}
	return false
}
