package lesson

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/tracesim/tracesim/engine/causality"
	"github.com/tracesim/tracesim/tracefmt"
)

const good = `---
title: Ring
level: beginner
trace: tracesim gen ring --ranks 4 --iters 5
set: topology=ring:4
---
Intro.

## Look
<!-- step
keys: 1 2
-->
Text one.

## Run
<!-- step
set: bandwidth=1Gb/s
keys: 7 r
question: How long?
answer: makespan
unit: us
tolerance: 1%
hint: Press r.
-->
Text two.
`

func TestParseGood(t *testing.T) {
	l, err := Parse("dir/ring.md", strings.NewReader(good))
	if err != nil {
		t.Fatal(err)
	}
	if l.Name != "ring" || l.Title != "Ring" || l.Intro != "Intro." || len(l.Steps) != 2 {
		t.Fatalf("lesson %q %q intro %q, %d steps", l.Name, l.Title, l.Intro, len(l.Steps))
	}
	if l.Trace.Gen == nil || l.Trace.Gen.Ranks != 4 || l.Trace.Gen.Iters != 5 || l.Trace.Line != 4 {
		t.Errorf("trace %+v", l.Trace)
	}
	s := l.Steps[1]
	if s.Title != "Run" || s.Line != 15 || s.Text != "Text two." || strings.Join(s.Keys, ",") != "7,r" {
		t.Errorf("step %+v", s)
	}
	q := s.Question
	if q == nil || q.Text != "How long?" || q.Answer.Kind != Makespan || q.Unit != "us" || q.Tolerance != 0.01 || !q.Relative || q.Hint != "Press r." || q.AnswerLine != 20 {
		t.Errorf("question %+v", q)
	}
	c, err := l.Config(1)
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := c.Get("bandwidth"); v != "1Gb/s" {
		t.Errorf("step 1's bandwidth %s, want 1Gb/s", v)
	}
	if c, _ := l.Config(0); func() string { v, _ := c.Get("bandwidth"); return v }() == "1Gb/s" {
		t.Error("step 0 has step 1's setting")
	}
}

// TestParseErrors is the table of broken lessons: each error names the
// line and what was expected.
func TestParseErrors(t *testing.T) {
	front := "---\ntitle: T\ntrace: tracesim gen ring\n---\n"
	tests := []struct {
		name, in, want string
	}{
		{"empty", "", "x.md:1: expected the front matter's opening line \"---\""},
		{"no front matter", "# Title\n", "x.md:1: expected the front matter's opening line"},
		{"unclosed front", "---\ntitle: T\n", "x.md:2: the front matter is not closed"},
		{"no title", "---\ntrace: x.tsim\n---\n## S\n", "x.md:3: the front matter has no title"},
		{"no trace", "---\ntitle: T\n---\n", "x.md:3: the front matter has no trace"},
		{"unknown key", "---\ntitel: T\n", "x.md:2: unknown front matter key \"titel\""},
		{"twice", "---\ntitle: T\ntitle: U\n", "x.md:3: title is given twice (first on line 2)"},
		{"level", "---\nlevel: expert\n", "x.md:2: level: expected beginner, intermediate or advanced"},
		{"bad preset", "---\nmachine: cray\n", "x.md:2: machine: unknown preset \"cray\""},
		{"bad setting", "---\nset: topology=blob:3\n", "x.md:2: set topology=blob:3:"},
		{"setting no =", "---\nset: topology\n", "x.md:2: expected a machine setting key=value"},
		{"gen pattern", "---\ntrace: tracesim gen spiral\n", "x.md:2: trace: gen: "},
		{"gen flag", "---\ntrace: tracesim gen ring --colour 3\n", "x.md:2: trace: gen: --colour: unknown flag"},
		{"gen value", "---\ntrace: tracesim gen ring --ranks\n", "x.md:2: trace: gen: --ranks needs a value"},
		{"trace escape", "---\ntrace: ../x.tsim\n", "x.md:2: trace: \"../x.tsim\": a trace file is named relative to the lesson"},
		{"no steps", front + "Just text.\n", "x.md:5: the lesson has no steps"},
		{"block before step", front + "<!-- step\n", "x.md:5: a step block before the first"},
		{"unclosed block", front + "## S\n<!-- step\nkeys: 1\n", "x.md:6: the step block is not closed"},
		{"two blocks", front + "## S\n<!-- step\n-->\n<!-- step\n", "x.md:8: a second step block in step \"S\" (the first is on line 6)"},
		{"bad key", front + "## S\n<!-- step\nkeys: 7 ctrl+shift+x\n", "x.md:7: keys: unknown key \"ctrl+shift+x\""},
		{"unknown step key", front + "## S\n<!-- step\nkey: 7\n", "x.md:7: unknown step key \"key\""},
		{"no colon", front + "## S\n<!-- step\nkeys 7\n", "x.md:7: expected \"key: value\", found \"keys 7\""},
		{"empty value", front + "## S\n<!-- step\nkeys:\n", "x.md:7: keys: expected a value"},
		{"unknown answer", front + "## S\n<!-- step\nanswer: speed\n", "x.md:7: answer: unknown kind \"speed\""},
		{"ratio no slash", front + "## S\n<!-- step\nanswer: ratio vcs=1\n", "x.md:7: answer: ratio needs"},
		{"ratio same", front + "## S\n<!-- step\nanswer: ratio /\n", "x.md:7: answer: a ratio of the same machine is always 1"},
		{"reversals settings", front + "## S\n<!-- step\nanswer: reversals vcs=1\n", "x.md:7: answer: reversals is computed from the recorded trace"},
		{"bad unit", front + "## S\n<!-- step\nunit: min\n", "x.md:7: unit: expected s, ms, us or ns"},
		{"bad tolerance", front + "## S\n<!-- step\ntolerance: lots\n", "x.md:7: tolerance: expected a number or a percentage"},
		{"whole tolerance", front + "## S\n<!-- step\ntolerance: 100%\n", "x.md:7: tolerance: \"100%\" accepts any answer"},
		{"no answer", front + "## S\n<!-- step\nquestion: Q?\nhint: h\n-->\n", "x.md:6: step \"S\": a question needs an answer: line"},
		{"no hint", front + "## S\n<!-- step\nquestion: Q?\nanswer: reversals\n-->\n", "x.md:6: step \"S\": a question needs a hint: line"},
		{"no question", front + "## S\n<!-- step\nanswer: reversals\nhint: h\n-->\n", "x.md:6: step \"S\": a question needs a question: line"},
		{"makespan unit", front + "## S\n<!-- step\nquestion: Q?\nanswer: makespan\nhint: h\n-->\n", "x.md:8: answer makespan needs a unit: line"},
		{"rank with unit", front + "## S\n<!-- step\nquestion: Q?\nanswer: slowest-rank\nunit: ms\nhint: h\n-->\n", "x.md:9: unit: answer slowest-rank is not a time"},
		{"selection tolerance", front + "## S\n<!-- step\nquestion: Q?\nanswer: largest-reversal\ntolerance: 1%\nhint: h\n-->\n", "x.md:9: tolerance: answer largest-reversal is a finding the student selects"},
		{"rank tolerance", front + "## S\n<!-- step\nquestion: Q?\nanswer: reversals\ntolerance: 1\nhint: h\n-->\n", "x.md:9: tolerance: answer reversals is a whole number"},
		{"heading no title", front + "## \n", "x.md:5: a step heading needs a title"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("x.md", strings.NewReader(tt.in))
			if err == nil {
				t.Fatalf("no error, want %q", tt.want)
			}
			var le *Error
			if !errors.As(err, &le) || le.Line == 0 {
				t.Errorf("error %v names no line", err)
			}
			if !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("error\n %v\nwant prefix\n %s", err, tt.want)
			}
		})
	}
}

// TestCheckErrors covers what only Check finds: tabs, keys, machines the
// answers cannot run on, traces that do not load.
func TestCheckErrors(t *testing.T) {
	front := "---\ntitle: T\ntrace: tracesim gen pingpong --iters 3\n---\n"
	tests := []struct {
		name, in, want string
	}{
		{"unknown tab", front + "## S\n<!-- step\ntab: Learn more\n-->\n", "x.md:7: tab: no tab \"Learn more\""},
		{"digit past tabs", front + "## S\n<!-- step\nkeys: 9\n-->\n", "x.md:7: keys: 9 selects no tab (there are 7)"},
		{"unused setting", front + "## S\n<!-- step\nset: buffer=8\n-->\n", "x.md:7: set buffer: not used by flow"},
		{"unused lesson setting", "---\ntitle: T\ntrace: tracesim gen pingpong --iters 3\nset: startup=2us\n---\n## S\n", "x.md:4: set startup: not used by flow"},
		{"missing trace file", "---\ntitle: T\ntrace: nowhere.tsim\n---\n## S\n", "x.md:3: trace: "},
		{"reversals untimed", "---\ntitle: T\ntrace: builtin/exchange4.tsim\n---\n## S\n<!-- step\nquestion: Q\nanswer: reversals\nhint: h\n-->\n", "x.md:8: answer reversals: the trace is untimed"},
		{"makespan deadlock", "---\ntitle: T\ntrace: builtin/exchange4.tsim\n---\n## S\n<!-- step\nquestion: Q\nanswer: makespan eager-threshold=1KiB\nunit: ms\nhint: h\n-->\n", "x.md:8: answer makespan eager-threshold=1KiB: the replay deadlocks"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, err := Parse("x.md", strings.NewReader(tt.in))
			if err != nil {
				t.Fatalf("parse: %v", err)
			}
			_, _, errs := Check(context.Background(), l, CheckOptions{Tabs: tabs})
			if len(errs) == 0 {
				t.Fatalf("no error, want %q", tt.want)
			}
			if !strings.HasPrefix(errs[0].Error(), tt.want) {
				t.Errorf("error\n %v\nwant prefix\n %s", errs[0], tt.want)
			}
			var le *Error
			if !errors.As(errs[0], &le) || le.Line == 0 {
				t.Errorf("error %v names no line", errs[0])
			}
		})
	}
}

func TestQuestionCheck(t *testing.T) {
	ms := &Question{Unit: "ms", Tolerance: 0.02, Relative: true}
	abs := &Question{Unit: "us", Tolerance: 0.5}
	ratio := &Question{Tolerance: 0.05, Relative: true}
	rank := &Question{}
	tests := []struct {
		q     *Question
		want  Expected
		input string
		ok    bool
		err   string
	}{
		{ms, Expected{Value: 2.5e-3, Kind: Makespan}, "2.5", true, ""},
		{ms, Expected{Value: 2.5e-3, Kind: Makespan}, "2.54", true, ""},
		{ms, Expected{Value: 2.5e-3, Kind: Makespan}, "2.6", false, ""},
		{ms, Expected{Value: 2.5e-3, Kind: Makespan}, "2500us", true, ""},
		{ms, Expected{Value: 2.5e-3, Kind: Makespan}, "2.5 s", false, ""},
		{ms, Expected{Value: 2.5e-3, Kind: Makespan}, "fast", false, "\"fast\" is not a time"},
		{abs, Expected{Value: 10e-6, Kind: Makespan}, "10.5", true, ""},
		{abs, Expected{Value: 10e-6, Kind: Makespan}, "10.6", false, ""},
		{ratio, Expected{Value: 2.78, Kind: Ratio}, "2.8x", true, ""},
		{ratio, Expected{Value: 2.78, Kind: Ratio}, "3", false, ""},
		{rank, Expected{Value: 3, Kind: ReversalRank}, "rank 3", true, ""},
		{rank, Expected{Value: 3, Kind: ReversalRank}, "2", false, ""},
		{rank, Expected{Value: 3, Kind: ReversalRank}, "3.5", false, "\"3.5\" is not a whole number"},
		{rank, Expected{Value: 3, Kind: ReversalRank}, " ", false, "type a number"},
		{rank, Expected{Value: 2, Also: []float64{7, 13}, Kind: SlowestRank}, "13", true, ""},
		{rank, Expected{Value: 2, Also: []float64{7, 13}, Kind: SlowestRank}, "3", false, ""},
	}
	for _, tt := range tests {
		ok, err := tt.q.Check(tt.want, tt.input)
		if ok != tt.ok || (err == nil) != (tt.err == "") || (err != nil && !strings.Contains(err.Error(), tt.err)) {
			t.Errorf("Check(%v, %q) = %v, %v; want %v, %q", tt.want.Value, tt.input, ok, err, tt.ok, tt.err)
		}
	}
}

func TestCheckFinding(t *testing.T) {
	q := &Question{}
	want := Expected{Kind: LargestReversal, Value: 35.83e-6}
	tests := []struct {
		f  causality.Finding
		ok bool
	}{
		{causality.Finding{Kind: causality.KindReversal, Amount: 35.83e-6}, true},
		{causality.Finding{Kind: causality.KindReversal, Amount: 35.82e-6}, false},
		{causality.Finding{Kind: causality.KindLatency, Amount: 35.83e-6}, false},
	}
	for _, tt := range tests {
		if got := q.CheckFinding(want, tt.f); got != tt.ok {
			t.Errorf("CheckFinding(%v %v) = %v", tt.f.Kind, tt.f.Amount, got)
		}
	}
	if _, err := q.Check(want, "3"); err == nil || !strings.Contains(err.Error(), "selecting a finding in the Causality tab") {
		t.Errorf("typing an answer to a selection question: %v", err)
	}
	f := causality.Finding{Kind: causality.KindReversal, Amount: 35.83e-6,
		Events: [2]tracefmt.EventRef{{Rank: 2, Index: 137}, {Rank: 3, Index: 138}}}
	if got := DescribeFinding(f); got != "reversal 2:137 → 3:138 (35.83 µs)" {
		t.Errorf("DescribeFinding = %q", got)
	}
}

func FuzzParse(f *testing.F) {
	f.Add(good)
	f.Add("---\ntitle: T\ntrace: x.tsim\n---\n## S\n<!-- step\nanswer: ratio a=1 / b=2\n-->\n")
	f.Fuzz(func(t *testing.T, in string) {
		l, err := Parse("f.md", strings.NewReader(in))
		if err != nil {
			var le *Error
			if !errors.As(err, &le) {
				t.Fatalf("error %v is not an *Error", err)
			}
			return
		}
		if len(l.Steps) == 0 || l.Title == "" {
			t.Fatalf("parsed a lesson without steps or title")
		}
		for i := range l.Steps {
			l.Config(i)
		}
	})
}
