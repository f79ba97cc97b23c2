package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracesim/tracesim/engine/causality"
	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/tracefmt/formats"
)

// checkJSONOf runs `tracesim check --json` and decodes its output.
func checkJSONOf(t *testing.T, wantCode int, args ...string) checkJSON {
	t.Helper()
	code, out, errs := tracesim(t, append([]string{"check", "--json"}, args...)...)
	if code != wantCode {
		t.Fatalf("check %v: exit %d, want %d: %s", args, code, wantCode, errs)
	}
	var j checkJSON
	if err := json.Unmarshal([]byte(out), &j); err != nil {
		t.Fatalf("check %v: %v\n%s", args, err, out)
	}
	return j
}

func openTrace(t *testing.T, path string) *tracefmt.Trace {
	t.Helper()
	tr, _, err := formats.Open(context.Background(), path, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// TestCheckFixGenerated is the acceptance test of check and fix: skewed
// generated traces have violations (exit 3); after fix, check exits 0,
// every message is received after it was sent, and local intervals keep
// their lengths within the bounds of the controlled logical clock.
func TestCheckFixGenerated(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		pattern, ranks string
		kinds          []string // kinds that must be found
		lmin           string
	}{
		{"ring", "8", []string{"reversal"}, "0"},
		{"pingpong", "2", []string{"reversal"}, "1us"},
		{"stencil2d", "16", []string{"reversal", "collective"}, "0"},
		{"alltoall", "8", []string{"collective"}, "1us"},
		{"master-worker", "8", []string{"reversal"}, "0"},
		{"cg", "16", []string{"reversal", "collective"}, "500ns"},
		{"random-pairs", "8", []string{"reversal"}, "0"},
	}
	for _, tt := range tests {
		t.Run(tt.pattern, func(t *testing.T) {
			in := filepath.Join(dir, tt.pattern+".tsim")
			fixed := filepath.Join(dir, tt.pattern+"-fixed.tsim")
			if code, _, errs := tracesim(t, "gen", tt.pattern, "--ranks", tt.ranks, "--iters", "30", "--skew", "300us", "-o", in); code != exitOK {
				t.Fatalf("gen: exit %d: %s", code, errs)
			}
			code, out, _ := tracesim(t, "check", in, "--lmin", tt.lmin)
			if code != exitFindings || !strings.Contains(out, "violations") {
				t.Fatalf("check: exit %d, want %d\n%s", code, exitFindings, out)
			}
			j := checkJSONOf(t, exitFindings, in, "--lmin", tt.lmin)
			for _, k := range tt.kinds {
				if j.Counts[k] == 0 {
					t.Errorf("no %s findings: %v", k, j.Counts)
				}
			}
			if len(j.Violations) != j.ViolationCount || j.Omitted != 0 {
				t.Errorf("JSON lists %d of %d violations (omitted %d)", len(j.Violations), j.ViolationCount, j.Omitted)
			}
			for i := 1; i < len(j.Violations); i++ {
				a, b := j.Violations[i-1], j.Violations[i]
				if a.Kind.Class() == b.Kind.Class() && a.Kind.Class() == causality.ClassClock && a.Amount < b.Amount {
					t.Fatalf("violations not largest first: %v then %v", a.Amount, b.Amount)
				}
			}
			if code, out, errs := tracesim(t, "fix", in, "-o", fixed, "--lmin", tt.lmin); code != exitOK || !strings.Contains(out, ", 0 after") {
				t.Fatalf("fix: exit %d: %s%s", code, out, errs)
			}
			if code, out, _ := tracesim(t, "check", fixed, "--lmin", tt.lmin); code != exitOK {
				t.Fatalf("check after fix: exit %d\n%s", code, out)
			}
			a, b := openTrace(t, in), openTrace(t, fixed)
			verifyFixed(t, a, b, parseDur(t, tt.lmin))
		})
	}
}

func parseDur(t *testing.T, s string) float64 {
	var x float64
	if err := (durationValue{&x}).Set(s); err != nil {
		t.Fatal(err)
	}
	return x
}

// verifyFixed checks a corrected trace against its original without the
// causality package: the clock condition of every message, and the
// interval bounds of the CLC (γ = 0.99999, σ = 0.01) on every interval
// that ends at an event the correction does not move on purpose (a
// receive, or the end of a collective call).
func verifyFixed(t *testing.T, orig, fixed *tracefmt.Trace, lmin float64) {
	t.Helper()
	u := fixed.Unit.Seconds()
	fixed.Messages(func(s, r tracefmt.EventRef) bool {
		if st, rt := fixed.Event(s).Time, fixed.Event(r).Time; rt < st+lmin/u {
			t.Fatalf("message %v → %v: sent at %g, received at %g (l_min %g)", s, r, st, rt, lmin/u)
		}
		return true
	})
	for r := range orig.Ranks {
		a, b := orig.Ranks[r].Events, fixed.Ranks[r].Events
		if len(a) != len(b) {
			t.Fatalf("rank %d: %d events, was %d", r, len(b), len(a))
		}
		for i := 1; i < len(a); i++ {
			d, nd := a[i].Time-a[i-1].Time, b[i].Time-b[i-1].Time
			if nd < 0 {
				t.Fatalf("rank %d event %d: clock runs backwards after fix", r, i)
			}
			e := &a[i]
			collEnd := e.Kind == tracefmt.KindLeave && orig.States[e.State()].Category == tracefmt.CatCollective
			if d < 0 || e.Kind == tracefmt.KindRecv || collEnd {
				continue
			}
			if tol := 1e-9 + 1e-12*a[i].Time; nd < 0.99999*d-tol || nd > 1.01*d+tol {
				t.Fatalf("rank %d event %d (%s): interval %g became %g", r, i, e.Kind, d, nd)
			}
		}
	}
}

// TestFixFormats: fix writes the input's format when tracesim writes it
// (CLOG2 here), tsim otherwise, and --to overrides.
func TestFixFormats(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "ring.clog2")
	if code, _, errs := tracesim(t, "gen", "ring", "--iters", "20", "--skew", "100us", "-o", in); code != exitOK {
		t.Fatalf("gen: %s", errs)
	}
	tests := []struct {
		args   []string
		format string
	}{
		{nil, "clog2"},
		{[]string{"--to", "tsim"}, "tsim"},
		{[]string{"--method", "clc"}, "clog2"},
	}
	for i, tt := range tests {
		out := filepath.Join(dir, "fixed"+itoa(i))
		args := append([]string{"fix", in, "-o", out, "--json"}, tt.args...)
		code, stdout, errs := tracesim(t, args...)
		if code != exitOK {
			t.Fatalf("fix %v: exit %d: %s", tt.args, code, errs)
		}
		var j fixJSON
		if err := json.Unmarshal([]byte(stdout), &j); err != nil {
			t.Fatal(err)
		}
		if j.OutputFormat != tt.format || j.ViolationsBefore == 0 || j.ViolationsAfter != 0 || j.MaxShift <= 0 || j.MaxShiftAt == nil {
			t.Errorf("fix %v: %+v", tt.args, j)
		}
		if _, fm, err := formats.Open(context.Background(), out, "", nil); err != nil || fm.Name != tt.format {
			t.Errorf("fix %v wrote %v (%v), want %s", tt.args, fm, err, tt.format)
		}
		if code, _, _ := tracesim(t, "check", out); code != exitOK {
			t.Errorf("fix %v: check after fix exit %d", tt.args, code)
		}
	}
	// An unwritable input format falls back to tsim.
	t.Run("unwritable input", func(t *testing.T) {
		p := shared(t, "clog/fpilog.clog")
		out := filepath.Join(dir, "fpilog-fixed")
		code, stdout, errs := tracesim(t, "fix", p, "-o", out, "--json", "--lmin", "250us")
		if code != exitOK {
			t.Fatalf("fix fpilog: exit %d: %s", code, errs)
		}
		var j fixJSON
		if err := json.Unmarshal([]byte(stdout), &j); err != nil {
			t.Fatal(err)
		}
		if j.OutputFormat != "tsim" || j.ViolationsBefore != 9 || j.ViolationsAfter != 0 || len(j.NegativeCycle) == 0 {
			t.Errorf("fix fpilog: %+v", j)
		}
	})
}

// TestCheckRealSamples pins the findings on the MPE samples: they are
// clean; a minimum latency close to their fastest message shows some.
func TestCheckRealSamples(t *testing.T) {
	tests := []struct {
		rel, lmin string
		code      int
		counts    map[string]int
	}{
		{"clog/fpilog.clog", "0", exitOK, nil},
		{"clog/pmandel.clog", "0", exitOK, nil},
		{"clog2/cpilog.clog2", "0", exitOK, nil},
		{"alog/srtest.alog", "0", exitOK, nil},
		{"alog/sam_hyp.16.log", "0", exitOK, nil},
		{"clog/fpilog.clog", "250us", exitFindings, map[string]int{"latency": 9}},
		{"clog/pmandel.clog", "250us", exitFindings, map[string]int{"latency": 908}},
		{"alog/srtest.alog", "2ms", exitFindings, map[string]int{"latency": 12}},
	}
	for _, tt := range tests {
		t.Run(tt.rel+"/"+tt.lmin, func(t *testing.T) {
			j := checkJSONOf(t, tt.code, shared(t, tt.rel), "--lmin", tt.lmin)
			for k, n := range j.Counts {
				if n != tt.counts[k] {
					t.Errorf("%s: %d, want %d", k, n, tt.counts[k])
				}
			}
			if !j.Replayed || j.Deadlock != nil {
				t.Errorf("replay: %v %v %s", j.Replayed, j.Deadlock, j.ReplayError)
			}
		})
	}
}

// TestCheckDeadlockAndDefects: a trace whose ranks each receive before
// sending deadlocks in replay; a cut trace has unmatched messages.
func TestCheckDeadlockAndDefects(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := writeText(p, text); err != nil {
			t.Fatal(err)
		}
		return p
	}
	h2h := write("h2h.tsim", `tsim 1
ranks 2
unit us
0 0 enter MPI_Recv
1 0 recv from=1 size=8
2 0 leave MPI_Recv
3 0 enter MPI_Send
3 0 send to=1 size=8
4 0 leave MPI_Send
0 1 enter MPI_Recv
1 1 recv from=0 size=8
2 1 leave MPI_Recv
3 1 enter MPI_Send
3 1 send to=0 size=8
4 1 leave MPI_Send
`)
	j := checkJSONOf(t, exitFindings, h2h)
	if j.Counts["deadlock"] != 1 || j.Deadlock == nil || len(j.Deadlock.Cycle) != 3 {
		t.Errorf("deadlock: counts %v, report %+v", j.Counts, j.Deadlock)
	}
	j = checkJSONOf(t, exitFindings, h2h, "--replay", "off")
	if j.Counts["deadlock"] != 0 || j.Replayed {
		t.Errorf("--replay off: %v", j.Counts)
	}
	code, out, _ := tracesim(t, "check", h2h)
	if code != exitFindings || !strings.Contains(out, "deadlock: ranks wait for each other in a cycle 0 → 1 → 0") {
		t.Errorf("check h2h: exit %d\n%s", code, out)
	}
	// fix cannot undo a causal cycle: exit 3 with a warning.
	code, out, _ = tracesim(t, "fix", h2h, "-o", filepath.Join(dir, "h2h-fixed.tsim"))
	if code != exitFindings || !strings.Contains(out, "close causal cycles") {
		t.Errorf("fix h2h: exit %d\n%s", code, out)
	}
	cut := write("cut.tsim", `tsim 1
ranks 2
unit us
5 0 recv from=1 tag=3 size=8 anysrc
6 0 send to=1 tag=4 size=8
7 0 enter MPI_Iprobe
8 0 leave MPI_Iprobe
`)
	j = checkJSONOf(t, exitFindings, cut, "--replay", "off")
	want := map[string]int{"unmatched-recv": 1, "unmatched-send": 1, "wildcard": 1, "nondeterministic": 1}
	for k, n := range j.Counts {
		if n != want[k] {
			t.Errorf("cut: %s = %d, want %d", k, n, want[k])
		}
	}
	if j.ViolationCount != 2 || len(j.Notes) != 2 || len(j.Violations) != 2 {
		t.Errorf("cut: %d violations, %d listed, %d notes", j.ViolationCount, len(j.Violations), len(j.Notes))
	}
	// Notes alone do not fail a check.
	notes := write("notes.tsim", "tsim 1\nranks 2\nunit us\n1 1 send to=0\n2 0 recv from=1 anysrc\n")
	if code, out, _ := tracesim(t, "check", notes); code != exitOK || !strings.Contains(out, "no violations; 1 notes") {
		t.Errorf("notes: exit %d\n%s", code, out)
	}
}

// TestCheckLimit: the table lists --limit violations and counts the
// rest; JSON lists all unless --limit is given.
func TestCheckLimit(t *testing.T) {
	in := filepath.Join(t.TempDir(), "ring.tsim")
	if code, _, errs := tracesim(t, "gen", "ring", "--iters", "50", "--skew", "300us", "-o", in); code != exitOK {
		t.Fatal(errs)
	}
	j := checkJSONOf(t, exitFindings, in)
	total := j.ViolationCount
	if total <= 25 || len(j.Violations) != total {
		t.Fatalf("violations %d, listed %d", total, len(j.Violations))
	}
	j = checkJSONOf(t, exitFindings, in, "--limit", "5")
	if len(j.Violations) != 5 || j.Omitted != total-5 {
		t.Errorf("--limit 5: listed %d, omitted %d", len(j.Violations), j.Omitted)
	}
	for _, tt := range []struct {
		args []string
		rows int
	}{
		{nil, defaultCheckLimit},
		{[]string{"--limit", "3"}, 3},
		{[]string{"--limit", "0"}, total},
	} {
		_, out, _ := tracesim(t, append([]string{"check", in}, tt.args...)...)
		rows := strings.Count(out, "message ")
		if rows != tt.rows {
			t.Errorf("check %v: %d rows, want %d", tt.args, rows, tt.rows)
		}
		if more := strings.Contains(out, "more violations"); more != (tt.rows < total) {
			t.Errorf("check %v: 'more violations' line %v", tt.args, more)
		}
	}
}

func TestCheckFixUsage(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "pp.tsim")
	if code, _, errs := tracesim(t, "gen", "pingpong", "--iters", "5", "-o", in); code != exitOK {
		t.Fatal(errs)
	}
	untimed := filepath.Join(dir, "u.tsim")
	if err := writeText(untimed, "tsim 1\nranks 2\nuntimed\n- 0 send to=1\n- 1 recv from=0\n"); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"check", "--help"}, exitOK, "tracesim check FILE [--json]"},
		{[]string{"fix", "--help"}, exitOK, "tracesim fix FILE -o OUT"},
		{[]string{"check"}, exitUsage, "expected 1 argument"},
		{[]string{"check", in, "--lmin", "fast"}, exitUsage, "invalid value"},
		{[]string{"check", in, "--replay", "maybe"}, exitUsage, "want auto, on or off"},
		{[]string{"check", filepath.Join(dir, "nope.tsim")}, exitFail, "nope.tsim"},
		{[]string{"check", in}, exitOK, "no violations"},
		{[]string{"check", untimed}, exitOK, "untimed (no clock checks)"},
		{[]string{"fix", in}, exitUsage, "-o OUT is required"},
		{[]string{"fix", in, "-o", filepath.Join(dir, "x"), "--method", "magic"}, exitUsage, "want offsets, clc or both"},
		{[]string{"fix", in, "-o", filepath.Join(dir, "x"), "--to", "clog"}, exitUsage, "cannot write clog"},
		{[]string{"fix", in, "-o", filepath.Join(dir, "x"), "--to", "nope"}, exitUsage, "--to"},
		{[]string{"fix", untimed, "-o", filepath.Join(dir, "x")}, exitFail, "untimed"},
		{[]string{"fix", in, "-o", filepath.Join(dir, "clean.tsim")}, exitOK, "nothing to correct"},
	}
	for _, tt := range tests {
		code, out, errs := tracesim(t, tt.args...)
		if code != tt.code || !strings.Contains(out+errs, tt.msg) {
			t.Errorf("%v: exit %d, want %d with %q\n%s%s", tt.args, code, tt.code, tt.msg, out, errs)
		}
	}
	// Offsets alone fail loudly when the clocks drift.
	drift := filepath.Join(dir, "drift.tsim")
	if err := writeText(drift, `tsim 1
ranks 2
unit us
10 0 send to=1
10.5 0 recv from=1
0 1 recv from=0
1 1 send to=0
`); err != nil {
		t.Fatal(err)
	}
	code, _, errs := tracesim(t, "fix", drift, "-o", filepath.Join(dir, "d"), "--method", "offsets")
	if code != exitFail || !strings.Contains(errs, "no constant clock offsets") {
		t.Errorf("offsets on drift: exit %d: %s", code, errs)
	}
	code, out, _ := tracesim(t, "fix", drift, "-o", filepath.Join(dir, "d"))
	if code != exitOK || !strings.Contains(out, "none exist (negative cycle through ranks") {
		t.Errorf("both on drift: exit %d\n%s", code, out)
	}
}

func writeText(path, text string) error { return os.WriteFile(path, []byte(text), 0o644) }

// TestBenchCausality runs the causality rows of `tracesim bench`.
func TestBenchCausality(t *testing.T) {
	if testing.Short() {
		t.Skip("runs benchmarks")
	}
	results := benchJSON(t, "--events", "2000", "--time", "10ms", "--run", "causality")
	want := map[string]string{"causality/check": "Mmsgs/s", "causality/fix": "ns/event"}
	if len(results) != len(want) {
		t.Fatalf("ran %d benchmarks, want %d", len(results), len(want))
	}
	for _, res := range results {
		if m := want[res.Name]; res.Metrics[m] <= 0 || res.Metrics["Mevents/s"] <= 0 {
			t.Errorf("%s: metrics %v", res.Name, res.Metrics)
		}
	}
}

// check's TIMES column prints the two ends of a finding precisely enough
// to differ: µs-sized reversals 400 ms into a run once read
// "400.1 ms → 400.1 ms".
func TestCheckTimesDiffer(t *testing.T) {
	in := filepath.Join(t.TempDir(), "ring.tsim")
	if code, _, errs := tracesim(t, "gen", "ring", "--iters", "8", "--compute", "50ms", "--skew", "20us", "-o", in); code != exitOK {
		t.Fatal(errs)
	}
	_, out, _ := tracesim(t, "check", in)
	rows := 0
	for _, l := range strings.Split(out, "\n") {
		if !strings.HasPrefix(l, "reversal ") || !strings.Contains(l, "ms → ") {
			continue
		}
		f := strings.Fields(l)
		// reversal A → B  T1 ms → T2 ms  amount …
		if len(f) < 9 {
			t.Fatalf("row %q", l)
		}
		if t1, t2 := f[4]+f[5], f[7]+f[8]; t1 == t2 {
			t.Errorf("the ends print alike: %q", l)
		}
		rows++
	}
	if rows == 0 {
		t.Fatalf("no reversal rows:\n%s", out)
	}
}
