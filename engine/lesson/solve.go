package lesson

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/tracesim/tracesim/engine/causality"
	"github.com/tracesim/tracesim/engine/preset"
	"github.com/tracesim/tracesim/engine/replay"
	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/tracefmt/formats"
	"github.com/tracesim/tracesim/tracefmt/gen"
	"github.com/tracesim/tracesim/tracefmt/units"
)

// maxTraceFile bounds a trace file a lesson names, read whole.
const maxTraceFile = 256 << 20

// LoadTrace returns the lesson's trace: generated, or read from the file
// beside the lesson (in fsys when the lesson came from one, else on disk
// relative to the lesson's File).
func (l *Lesson) LoadTrace(ctx context.Context) (*tracefmt.Trace, error) {
	at := func(err error) error {
		return &Error{File: l.File, Line: l.Trace.Line, Msg: "trace: " + err.Error()}
	}
	switch {
	case l.Trace.Gen != nil:
		t, err := gen.Generate(*l.Trace.Gen)
		if err != nil {
			return nil, at(err)
		}
		return t, nil
	case l.Trace.File == "":
		return nil, &Error{File: l.File, Msg: "the lesson names no trace"}
	case l.fsys != nil:
		name := path.Join(path.Dir(l.fsPath), l.Trace.File)
		f, err := l.fsys.Open(name)
		if err != nil {
			return nil, at(err)
		}
		defer f.Close()
		data, err := io.ReadAll(io.LimitReader(f, maxTraceFile+1))
		if err != nil {
			return nil, at(err)
		}
		if len(data) > maxTraceFile {
			return nil, at(fmt.Errorf("%s is larger than %d bytes", l.Trace.File, maxTraceFile))
		}
		fm, err := formats.Detect(name, data[:min(len(data), 4096)])
		if err != nil {
			return nil, at(err)
		}
		t, err := fm.Read(name, bytes.NewReader(data))
		if err != nil {
			return nil, at(err)
		}
		return t, nil
	}
	p := filepath.Join(filepath.Dir(l.File), filepath.FromSlash(l.Trace.File))
	t, _, err := formats.Open(ctx, p, "", nil)
	if err != nil {
		return nil, at(err)
	}
	return t, nil
}

// Config returns the machine in force at step i: the default machine,
// the lesson's preset and settings, then the settings of steps 0…i. A
// step index past the last gives the machine at the end.
func (l *Lesson) Config(i int) (replay.Config, error) {
	c := replay.Default()
	if l.Preset != "" {
		p, err := preset.Lookup(l.Preset)
		if err == nil {
			err = p.Apply(&c)
		}
		if err != nil {
			return c, &Error{File: l.File, Line: l.PresetLine, Msg: "machine: " + err.Error()}
		}
	}
	sets := append([]Setting(nil), l.Settings...)
	for j := 0; j <= i && j < len(l.Steps); j++ {
		sets = append(sets, l.Steps[j].Settings...)
	}
	if err := apply(&c, sets, l.File); err != nil {
		return c, err
	}
	if err := c.Validate(); err != nil {
		line := 0
		if len(sets) > 0 {
			line = sets[len(sets)-1].Line
		}
		return c, &Error{File: l.File, Line: line, Msg: "the machine is invalid: " + err.Error()}
	}
	return c, nil
}

// MachineName names the machine of step i for the Machine and Simulate
// tabs' history: the preset and the settings changed since.
func (l *Lesson) MachineName(i int) string {
	name := l.Preset
	if name == "" {
		name = "default"
	}
	var kv []string
	for j := 0; j <= i && j < len(l.Steps); j++ {
		for _, s := range l.Steps[j].Settings {
			kv = append(kv, s.Key+"="+s.Value)
		}
	}
	if len(kv) > 0 {
		name += " " + strings.Join(kv, " ")
	}
	return "lesson: " + name
}

func apply(c *replay.Config, sets []Setting, file string) error {
	for _, s := range sets {
		if err := c.Set(s.Key, s.Value); err != nil {
			return &Error{File: file, Line: s.Line, Msg: err.Error()}
		}
	}
	return nil
}

// Expected is the answer the engine computed for a question.
type Expected struct {
	// Value is in seconds for makespans, and the largest amount for
	// LargestReversal.
	Value float64
	// Also are other answers as right as Value: the ranks that tie with
	// it (Value is the lowest of them, or the first in the checker's
	// order).
	Also []float64
	Kind Kind
}

// Format writes the expected answer as a student would type it, in the
// question's unit.
func (e Expected) Format(q *Question) string {
	if e.Kind.Selected() {
		return "the reversal of " + units.FormatDuration(e.Value)
	}
	if e.Kind.Integer() {
		return strconv.FormatFloat(e.Value, 'f', 0, 64)
	}
	v := e.Value
	unit := ""
	if q != nil && q.Unit != "" {
		v /= timeUnits[q.Unit]
		unit = " " + q.Unit
	}
	return strconv.FormatFloat(v, 'g', 4, 64) + unit
}

// Solve computes the expected answer of every question of the lesson on
// its trace: a nil entry for a step without one. Replays on the same
// machine run once.
func Solve(ctx context.Context, l *Lesson, tr *tracefmt.Trace) ([]*Expected, error) {
	s := solver{l: l, tr: tr, runs: map[string]*replay.Results{}}
	out := make([]*Expected, len(l.Steps))
	for i := range l.Steps {
		q := l.Steps[i].Question
		if q == nil {
			continue
		}
		v, also, err := s.solve(ctx, i, q)
		if err != nil {
			var le *Error
			if errors.As(err, &le) {
				return nil, err
			}
			return nil, &Error{File: l.File, Line: q.AnswerLine, Msg: fmt.Sprintf("answer %s: %v", q.Answer, err)}
		}
		out[i] = &Expected{Value: v, Also: also, Kind: q.Answer.Kind}
	}
	return out, nil
}

type solver struct {
	l    *Lesson
	tr   *tracefmt.Trace
	runs map[string]*replay.Results
	rep  *causality.Report
}

// solve computes question q of step i: the answer, and the other answers
// that are as right (ranks that tie).
func (s *solver) solve(ctx context.Context, i int, q *Question) (float64, []float64, error) {
	a := q.Answer
	switch a.Kind {
	case Reversals, ReversalRank, LargestReversal:
		if s.rep == nil {
			if !s.tr.Timed {
				return 0, nil, fmt.Errorf("the trace is untimed: it has no clocks to check")
			}
			rep, err := causality.Check(ctx, s.tr, causality.Options{})
			if err != nil {
				return 0, nil, err
			}
			s.rep = rep
		}
		rev := s.rep.ByKind[causality.KindReversal]
		if a.Kind == Reversals {
			return float64(len(rev)), nil, nil
		}
		if len(rev) == 0 {
			return 0, nil, fmt.Errorf("no message is received before it is sent: there is no reversal to find")
		}
		best := 0
		for j, f := range rev {
			if f.Amount > rev[best].Amount {
				best = j
			}
		}
		if a.Kind == LargestReversal {
			return rev[best].Amount, nil, nil
		}
		// The receivers of the other reversals as large are as right.
		var also []float64
		for _, f := range rev {
			if r := float64(f.Events[1].Rank); f.Amount == rev[best].Amount && r != float64(rev[best].Events[1].Rank) && !slices.Contains(also, r) {
				also = append(also, r)
			}
		}
		return float64(rev[best].Events[1].Rank), also, nil
	case Ratio:
		num, err := s.run(ctx, i, a.With, q.AnswerLine)
		if err != nil {
			return 0, nil, err
		}
		den, err := s.run(ctx, i, a.Over, q.AnswerLine)
		if err != nil {
			return 0, nil, err
		}
		if num.Deadlock != nil || den.Deadlock != nil {
			return 0, nil, fmt.Errorf("a replay deadlocks: its run time means nothing")
		}
		if !(den.Makespan > 0) {
			return 0, nil, fmt.Errorf("machine B's run time is 0")
		}
		return num.Makespan / den.Makespan, nil, nil
	}
	res, err := s.run(ctx, i, a.With, q.AnswerLine)
	if err != nil {
		return 0, nil, err
	}
	switch a.Kind {
	case Makespan:
		if res.Deadlock != nil {
			return 0, nil, fmt.Errorf("the replay deadlocks: %s", res.Deadlock.Message)
		}
		return res.Makespan, nil, nil
	case BlockedRanks:
		if res.Deadlock == nil {
			return 0, nil, nil
		}
		return float64(res.Deadlock.BlockedTotal), nil, nil
	case SlowestRank:
		if len(res.Ranks) == 0 {
			return 0, nil, fmt.Errorf("the replay has no ranks")
		}
		best := 0
		for j, r := range res.Ranks {
			if r.Finish > res.Ranks[best].Finish {
				best = j
			}
		}
		// Ranks that finish at the same time are as right.
		var also []float64
		for _, r := range res.Ranks {
			if r.Finish == res.Ranks[best].Finish && r.Rank != res.Ranks[best].Rank {
				also = append(also, float64(r.Rank))
			}
		}
		return float64(res.Ranks[best].Rank), also, nil
	}
	return 0, nil, fmt.Errorf("unknown answer kind %s", a.Kind)
}

// run replays the trace on step i's machine with extra settings, once
// per distinct machine.
func (s *solver) run(ctx context.Context, i int, with []Setting, line int) (*replay.Results, error) {
	cfg, err := s.l.Config(i)
	if err != nil {
		return nil, err
	}
	if err := apply(&cfg, with, s.l.File); err != nil {
		return nil, err
	}
	if err := cfg.Validate(); err != nil {
		return nil, &Error{File: s.l.File, Line: line, Msg: "the machine is invalid: " + err.Error()}
	}
	var key strings.Builder
	for _, kv := range cfg.Values() {
		key.WriteString(kv[0] + "=" + kv[1] + "\n")
	}
	if r, ok := s.runs[key.String()]; ok {
		return r, nil
	}
	sim, err := replay.New(s.tr, cfg, replay.Options{})
	if err != nil {
		return nil, err
	}
	if err := sim.Run(ctx); err != nil {
		return nil, err
	}
	res := sim.Results()
	s.runs[key.String()] = &res
	return &res, nil
}

// Check compares a student's answer with the expected one. A number
// without a unit is in the question's unit; a time may carry its own
// ("2.5ms"). Ranks and counts must be exact; "rank 3" is read as 3. The
// error says why the input is not an answer at all (not a number).
func (q *Question) Check(want Expected, input string) (bool, error) {
	if want.Kind.Selected() {
		return false, fmt.Errorf("this question is answered by selecting a finding in the Causality tab")
	}
	in := strings.TrimSpace(strings.ToLower(input))
	in = strings.TrimSpace(strings.TrimPrefix(in, "rank"))
	in = strings.TrimSpace(strings.TrimRight(in, "x×"))
	if in == "" {
		return false, fmt.Errorf("type a number")
	}
	if want.Kind.Integer() {
		n, err := strconv.ParseFloat(in, 64)
		if err != nil || n != math.Trunc(n) {
			return false, fmt.Errorf("%q is not a whole number", input)
		}
		return n == want.Value || slices.Contains(want.Also, n), nil
	}
	var got float64
	if q.Unit != "" {
		v, err := strconv.ParseFloat(in, 64)
		if err == nil {
			got = v * timeUnits[q.Unit]
		} else if got, err = units.ParseDuration(in); err != nil {
			return false, fmt.Errorf("%q is not a time (a number in %s, or with a unit such as 2.5ms)", input, q.Unit)
		}
	} else {
		v, err := strconv.ParseFloat(in, 64)
		if err != nil {
			return false, fmt.Errorf("%q is not a number", input)
		}
		got = v
	}
	if math.IsNaN(got) || math.IsInf(got, 0) {
		return false, fmt.Errorf("%q is not a number", input)
	}
	diff := math.Abs(got - want.Value)
	if q.Relative {
		return diff <= q.Tolerance*math.Abs(want.Value), nil
	}
	scale := 1.0
	if q.Unit != "" {
		scale = timeUnits[q.Unit]
	}
	// A small slack so that a tolerance of 0.5 accepts exactly 0.5 off
	// despite the unit conversion's rounding.
	return diff <= q.Tolerance*scale*(1+1e-9), nil
}

// ParseFS reads the lesson at name in fsys; its trace file is read from
// fsys too.
func ParseFS(fsys fs.FS, name string) (*Lesson, error) { return parseFS(fsys, name, name) }

// parseFS is ParseFS with the name errors and the lesson's File give it
// (a path on disk for a lesson of Dir).
func parseFS(fsys fs.FS, name, file string) (*Lesson, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	defer f.Close()
	l, err := Parse(file, f)
	if err != nil {
		return nil, err
	}
	l.fsys, l.fsPath = fsys, name
	return l, nil
}

// CheckFinding compares the finding a student selected with the expected
// answer of a LargestReversal question: any reversal of the largest
// amount is right.
func (q *Question) CheckFinding(want Expected, f causality.Finding) bool {
	if !want.Kind.Selected() || f.Kind != causality.KindReversal {
		return false
	}
	return math.Abs(f.Amount-want.Value) <= 1e-9*math.Abs(want.Value)
}

// DescribeFinding writes a finding as the Causality tab lists it, for
// feedback and progress records: "reversal 2:137 → 3:138 (35.83 µs)".
func DescribeFinding(f causality.Finding) string {
	var ev []string
	for _, e := range f.Events {
		if e.Rank >= 0 {
			ev = append(ev, fmt.Sprintf("%d:%d", e.Rank, e.Index))
		}
	}
	s := f.Kind.String() + " " + strings.Join(ev, " → ")
	if f.Kind.AmountUnit() == "s" {
		s += " (" + units.FormatDuration(f.Amount) + ")"
	}
	return s
}
