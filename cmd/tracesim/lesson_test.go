package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// workedExample returns the lesson docs/lessons.md shows as its worked
// example.
func workedExample(t *testing.T) string {
	t.Helper()
	doc, err := os.ReadFile("../../docs/lessons.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(doc), "<!-- worked example")
	if !ok {
		t.Fatal("docs/lessons.md has no worked example")
	}
	_, rest, _ = strings.Cut(rest, "```markdown\n")
	ex, _, ok := strings.Cut(rest, "\n```\n")
	if !ok {
		t.Fatal("the worked example's block is not closed")
	}
	return ex + "\n"
}

func TestLessonCheck(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "faster-links.md")
	if err := os.WriteFile(good, []byte(workedExample(t)), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := tracesim(t, "lesson", "check", good)
	if code != 0 || out != good+": ok, 3 steps, 2 questions\n" || errOut != "" {
		t.Fatalf("check of the docs' worked example: %d\n%s%s", code, out, errOut)
	}
	code, out, _ = tracesim(t, "lesson", "check", "--answers", good)
	if code != 0 || !strings.Contains(out, `step 2 "Today's links": `) || !strings.Contains(out, "ratio bandwidth=1Gb/s / bandwidth=10Gb/s") {
		t.Errorf("--answers: %d\n%s", code, out)
	}

	// The table of broken lessons: each one a change to the worked
	// example, and the error that names its line.
	ex := workedExample(t)
	tests := []struct {
		name, from, to, want string
	}{
		{"no unit", "unit: ms\n", "", "bad.md:21: answer makespan needs a unit: line"},
		{"misspelt setting", "topology=ring:16", "topology=ring16", "bad.md:5: set topology=ring16: topology: "},
		{"tab digit", "keys: 1\n", "keys: 9\n", "bad.md:13: keys: 9 selects no tab (there are 8)"},
		{"unused setting", "set: bandwidth=10Gb/s\n", "set: bandwidth=10Gb/s buffer=8\n", "bad.md:30: set buffer: not used by flow"},
		{"unknown tab", "keys: 1\n", "tab: Timelime\n", "bad.md:13: tab: no tab \"Timelime\""},
		{"front matter", "level: beginner", "level: easy", "bad.md:3: level: expected beginner, intermediate or advanced"},
		{"gen", "--ranks 16", "--ranks 1", "bad.md:4: trace: gen: "},
		{"no hint", "hint: Press 7 for the Simulate tab, then r to run to the end, and read the makespan.\n", "", "bad.md:18: step \"Today's links\": a question needs a hint: line"},
		{"unclosed", "-->\nRun the trace", "Run the trace", "bad.md:24: expected \"key: value\", found \"Run the trace on the machine"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !strings.Contains(ex, tt.from) {
				t.Fatalf("the worked example has no %q", tt.from)
			}
			bad := filepath.Join(dir, "bad.md")
			if err := os.WriteFile(bad, []byte(strings.Replace(ex, tt.from, tt.to, 1)), 0o644); err != nil {
				t.Fatal(err)
			}
			code, out, errOut := tracesim(t, "lesson", "check", bad)
			if code != 1 || out != "" || !strings.HasPrefix(errOut, filepath.Join(dir, tt.want)) {
				t.Errorf("exit %d, stdout %q, stderr\n%s\nwant exit 1 and\n%s", code, out, errOut, filepath.Join(dir, tt.want))
			}
		})
	}
}

func TestLessonCheckBuiltins(t *testing.T) {
	code, out, errOut := tracesim(t, "lesson", "check", "ring-vs-hypercube", "eager-rendezvous", "clock-skew",
		"virtual-channels", "link-speed", "fattree-placement", "ring-vs-torus")
	if code != 0 || errOut != "" || strings.Count(out, ": ok, ") != 7 {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
}

func TestLessons(t *testing.T) {
	code, out, _ := tracesim(t, "lessons")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 8 || !strings.HasPrefix(lines[0], "NAME") ||
		!strings.HasPrefix(lines[1], "ring-vs-hypercube  beginner      4      3          Ring against hypercube for merge sort") {
		t.Errorf("lessons:\n%s", out)
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.md"), []byte(workedExample(t)), 0o644)
	code, out, _ = tracesim(t, "lessons", dir, "--json")
	if code != 0 || !strings.Contains(out, `"title": "Faster links for a ring exchange"`) || !strings.Contains(out, `"questions": 2`) {
		t.Errorf("lessons DIR --json: %d\n%s", code, out)
	}
	os.WriteFile(filepath.Join(dir, "b.md"), []byte("# not a lesson\n"), 0o644)
	code, _, errOut := tracesim(t, "lessons", dir)
	if code != 1 || !strings.Contains(errOut, filepath.Join(dir, "b.md")+":1: expected the front matter") {
		t.Errorf("a broken lesson in DIR: %d %s", code, errOut)
	}
	code, _, errOut = tracesim(t, "lesson", "no-such-lesson")
	if code != 1 || !strings.Contains(errOut, "no lesson \"no-such-lesson\"") || !strings.Contains(errOut, "ring-vs-torus") {
		t.Errorf("unknown lesson: %d %s", code, errOut)
	}
}

// TestLessonTraceFile: a lesson's trace file is read beside the lesson,
// and may not be looked for outside its directory.
func TestLessonTraceFile(t *testing.T) {
	dir := t.TempDir()
	ring, err := os.ReadFile("../../testdata/tsim/ring3.tsim")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "ring3.tsim"), ring, 0o644)
	src := "---\ntitle: Token ring\ntrace: ring3.tsim\n---\n## Run\n<!-- step\nkeys: 7 r\n" +
		"question: How long, in us?\nanswer: makespan\nunit: us\nhint: r runs it.\n-->\n"
	lf := filepath.Join(dir, "token.md")
	os.WriteFile(lf, []byte(src), 0o644)
	code, out, errOut := tracesim(t, "lesson", "check", "--answers", lf)
	if code != 0 || !strings.Contains(out, lf+": ok, 1 steps, 1 questions") || !strings.Contains(out, `step 1 "Run": `) {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	os.WriteFile(lf, []byte(strings.Replace(src, "ring3.tsim", "ring4.tsim", 1)), 0o644)
	code, _, errOut = tracesim(t, "lesson", "check", lf)
	if code != 1 || !strings.HasPrefix(errOut, lf+":3: trace: ") || !strings.Contains(errOut, "ring4.tsim") {
		t.Errorf("missing trace file: exit %d, %s", code, errOut)
	}
	// The UI needs a terminal: said, not a crash.
	code, _, errOut = tracesim(t, "lesson", "ring-vs-torus")
	if code != 2 || !strings.Contains(errOut, "the UI needs a terminal") {
		t.Errorf("lesson without a terminal: exit %d, %s", code, errOut)
	}
}
