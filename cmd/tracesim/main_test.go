package main

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tracesim/tracesim/internal/testshared"
	"github.com/tracesim/tracesim/tracefmt/gen"
)

// tracesim runs the CLI in-process with args and returns the exit code
// and outputs.
func tracesim(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(&env{ctx: context.Background(), stdout: &out, stderr: &errb}, args)
	return code, out.String(), errb.String()
}

// infoJSON runs `tracesim info --json` on path and decodes the result.
func infoJSON(t *testing.T, path string, extra ...string) map[string]any {
	t.Helper()
	code, out, errs := tracesim(t, append([]string{"info", path, "--json"}, extra...)...)
	if code != exitOK {
		t.Fatalf("info %s: exit %d: %s", path, code, errs)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatalf("info %s: %v\n%s", path, err, out)
	}
	return m
}

func messages(m map[string]any) map[string]any { return m["messages"].(map[string]any) }

// TestGenEveryPattern is the acceptance test of `tracesim gen`: every
// pattern, written as tsim and as CLOG2, reads back with the number of
// messages the generator promises, none unmatched, and the two formats
// agree on ranks, messages and states.
func TestGenEveryPattern(t *testing.T) {
	dir := t.TempDir()
	for _, p := range gen.Patterns() {
		t.Run(p.Name, func(t *testing.T) {
			ranks := map[string]int{"pingpong": 2, "cg": 16}[p.Name]
			if ranks == 0 {
				ranks = 16
			}
			o := gen.Options{Pattern: p.Name, Ranks: ranks, Iters: 10, Compute: -1, Seed: 1}
			want, err := gen.Expect(o)
			if err != nil {
				t.Fatal(err)
			}
			var infos []map[string]any
			for _, ext := range []string{".tsim", ".clog2"} {
				out := filepath.Join(dir, p.Name+ext)
				code, _, errs := tracesim(t, "gen", p.Name, "--ranks", itoa(ranks), "--iters", "10", "-o", out)
				if code != exitOK {
					t.Fatalf("gen %s: exit %d: %s", ext, code, errs)
				}
				m := infoJSON(t, out)
				msg := messages(m)
				if got := int(m["ranks"].(float64)); got != ranks {
					t.Errorf("%s: ranks = %d, want %d", ext, got, ranks)
				}
				if got := int(msg["matched"].(float64)); got != want.Messages {
					t.Errorf("%s: matched = %d, want %d", ext, got, want.Messages)
				}
				if msg["unmatched_sends"].(float64) != 0 || msg["unmatched_recvs"].(float64) != 0 {
					t.Errorf("%s: unmatched messages: %v", ext, msg)
				}
				// CLOG2 logs a receive with the sender it got: the
				// any-source flag of the posted receive is not recorded.
				if got := int(msg["wildcard_recvs"].(float64)); ext == ".tsim" && got != want.WildcardRecvs {
					t.Errorf("%s: wildcard_recvs = %d, want %d", ext, got, want.WildcardRecvs)
				}
				infos = append(infos, m)
			}
			a, b := infos[0], infos[1]
			ma, mb := messages(a), messages(b)
			delete(ma, "wildcard_recvs")
			delete(mb, "wildcard_recvs")
			if !jsonEqual(ma, mb) {
				t.Errorf("messages differ: tsim %v, clog2 %v", ma, mb)
			}
			// Times are microseconds in tsim and float64 seconds in
			// CLOG2, so totals agree to rounding, not bit for bit.
			sa, sb := statesByName(a), statesByName(b)
			if len(sa) != len(sb) {
				t.Fatalf("states differ:\ntsim  %v\nclog2 %v", sa, sb)
			}
			for name, x := range sa {
				y, ok := sb[name]
				if !ok || x["count"] != y["count"] || math.Abs(x["total_s"]-y["total_s"]) > 1e-9*max(1, x["total_s"]) {
					t.Errorf("state %s: tsim %v, clog2 %v", name, x, y)
				}
			}
		})
	}
}

// TestGenStencilPinned pins the counts the issue names.
func TestGenStencilPinned(t *testing.T) {
	out := filepath.Join(t.TempDir(), "s.tsim")
	if code, _, errs := tracesim(t, "gen", "stencil2d", "--ranks", "16", "--iters", "10", "-o", out); code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	m := infoJSON(t, out)
	if m["ranks"].(float64) != 16 || messages(m)["matched"].(float64) != 480 || m["events"].(float64) != 4320 {
		t.Errorf("stencil2d 16x10: ranks %v matched %v events %v, want 16, 480, 4320",
			m["ranks"], messages(m)["matched"], m["events"])
	}
}

func TestGenDeterministicAndFormats(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.tsim"), filepath.Join(dir, "b.tsim")
	for _, p := range []string{a, b} {
		if code, _, errs := tracesim(t, "gen", "master-worker", "--ranks", "5", "--seed", "7", "--skew", "20us", "-o", p); code != exitOK {
			t.Fatalf("exit %d: %s", code, errs)
		}
	}
	da, _ := os.ReadFile(a)
	db, _ := os.ReadFile(b)
	if !bytes.Equal(da, db) {
		t.Error("same seed gave different files")
	}
	ti := filepath.Join(dir, "ring.txt")
	if code, _, errs := tracesim(t, "gen", "ring", "--ranks", "4", "--format", "ti", "-o", ti); code != exitOK {
		t.Fatalf("gen --format ti: exit %d: %s", code, errs)
	}
	m := infoJSON(t, ti)
	if m["format"] != "ti" || m["timed"] != false || messages(m)["matched"].(float64) == 0 {
		t.Errorf("gen --format ti: %v", m)
	}
}

func TestGenUsageErrors(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"gen", "-o", "x.tsim"}, "expected a PATTERN"},
		{[]string{"gen", "ring"}, "-o FILE is required"},
		{[]string{"gen", "spiral", "-o", "x.tsim"}, "spiral"},
		{[]string{"gen", "ring", "-o", "x.tsim", "--size", "lots"}, "-size"},
		{[]string{"gen", "ring", "-o", "x.tsim", "--format", "vampir"}, "unknown format"},
		{[]string{"gen", "pingpong", "--ranks", "3", "-o", "x.tsim"}, "rank"},
	}
	for _, tc := range tests {
		code, _, errs := tracesim(t, tc.args...)
		if code != exitUsage || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 mentioning %q", tc.args, code, errs, tc.want)
		}
	}
}

// TestConvertChain converts CLOG2 ↔ tsim ↔ TI and checks that messages
// survive, and that an untimed trace needs --cpu-speed for a timed format.
func TestConvertChain(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "cg.clog2")
	if code, _, errs := tracesim(t, "gen", "cg", "--ranks", "8", "--iters", "3", "-o", src); code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	want := messages(infoJSON(t, src))["matched"]
	tsimF, ti, back := filepath.Join(dir, "cg.tsim"), filepath.Join(dir, "cg.ti"), filepath.Join(dir, "back.clog2")
	for _, step := range [][]string{
		{"convert", src, "-o", tsimF},
		{"convert", tsimF, "-o", ti},
		{"convert", ti, "-o", back, "--cpu-speed", "1Gf"},
	} {
		if code, _, errs := tracesim(t, step...); code != exitOK {
			t.Fatalf("%v: exit %d: %s", step, code, errs)
		}
		out := step[3]
		if got := messages(infoJSON(t, out))["matched"]; got != want {
			t.Errorf("%s: matched %v, want %v", out, got, want)
		}
	}
	code, _, errs := tracesim(t, "convert", ti, "-o", filepath.Join(dir, "x.clog2"))
	if code != exitFail || !strings.Contains(errs, "--cpu-speed") {
		t.Errorf("TI to CLOG2 without a CPU speed: exit %d, %q", code, errs)
	}
	if _, err := os.Stat(filepath.Join(dir, "x.clog2")); err == nil {
		t.Error("a failed conversion left its output behind")
	}
	code, _, errs = tracesim(t, "convert", src, "-o", filepath.Join(dir, "x.alog"))
	if code != exitFail || !strings.Contains(errs, "cannot write alog") {
		t.Errorf("convert to a read-only format: exit %d, %q", code, errs)
	}
}

func TestInfoErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.tsim")
	os.WriteFile(bad, []byte("tsim 1\nranks 2\nunit us\n\n0 0 send to=7 tag=0 size=1\n"), 0o644)
	code, _, errs := tracesim(t, "info", bad)
	if code != exitFail || !strings.Contains(errs, "bad.tsim") || !strings.Contains(errs, "line 5") {
		t.Errorf("bad rank: exit %d, %q (want the file and line 5)", code, errs)
	}
	junk := filepath.Join(dir, "junk.bin")
	os.WriteFile(junk, []byte{0, 1, 2, 3, 0xff}, 0o644)
	code, _, errs = tracesim(t, "info", junk)
	if code != exitFail || !strings.Contains(errs, "unrecognised trace format") {
		t.Errorf("unknown format: exit %d, %q", code, errs)
	}
	code, _, errs = tracesim(t, "info", filepath.Join(dir, "missing.tsim"))
	if code != exitFail || !strings.Contains(errs, "missing.tsim") {
		t.Errorf("missing file: exit %d, %q", code, errs)
	}
	code, _, _ = tracesim(t, "info")
	if code != exitUsage {
		t.Errorf("info without a file: exit %d, want 2", code)
	}
	code, out, _ := tracesim(t, "info", "--help")
	if code != exitOK || !strings.Contains(out, "tracesim info FILE [--json] [--format NAME]") {
		t.Errorf("info --help: exit %d, %q", code, out)
	}
}

// shared returns the path of a file of ../shared/testdata-external, or
// skips the test when the shared material is absent.
func shared(t *testing.T, rel string) string {
	t.Helper()
	p := filepath.Join(testshared.Dir(), rel)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("shared sample %s not available: %v", rel, err)
	}
	return p
}

// TestInfoRealSamples pins what `tracesim info` reports on real traces.
func TestInfoRealSamples(t *testing.T) {
	tests := []struct {
		file                      string
		format                    string
		ranks, events             int
		matched, unsends, unrecvs int
	}{
		// cpilog's 36 bookkeeping records are no events.
		{"clog/fpilog.clog", "clog", 4, 306, 39, 0, 0},
		{"clog/pmandel.clog", "clog", -1, 10582, 1473, -1, -1},
		{"clog2/cpilog.clog2", "clog2", 5, 160 - 36, -1, -1, -1},
		{"alog/srtest.alog", "alog", 3, -1, 15, -1, -1},
		{"alog/sam_hyp.16.log", "alog", 16, -1, -1, -1, -1},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			m := infoJSON(t, shared(t, tc.file))
			msg := messages(m)
			check := func(name string, got any, want int) {
				if want >= 0 && int(got.(float64)) != want {
					t.Errorf("%s = %v, want %d", name, got, want)
				}
			}
			if m["format"] != tc.format {
				t.Errorf("format = %v, want %s", m["format"], tc.format)
			}
			check("ranks", m["ranks"], tc.ranks)
			check("events", m["events"], tc.events)
			check("matched", msg["matched"], tc.matched)
			check("unmatched_sends", msg["unmatched_sends"], tc.unsends)
			check("unmatched_recvs", msg["unmatched_recvs"], tc.unrecvs)
		})
	}
}

func TestBenchRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("runs benchmarks")
	}
	results := benchJSON(t, "--events", "2000", "--time", "10ms", "--run", "tsim/read|sim/causal")
	if len(results) != 2 {
		t.Fatalf("ran %d benchmarks, want 2", len(results))
	}
	for _, res := range results {
		if res.Metrics["Mevents/s"] <= 0 {
			t.Errorf("%s: no throughput: %v", res.Name, res.Metrics)
		}
	}
	if results[0].Metrics["B/event"] <= 0 || results[0].Metrics["B/event"] > 64 {
		t.Errorf("tsim/read: %v B/event, want (0, 64]", results[0].Metrics["B/event"])
	}
}

// TestBenchReaders: the three readers are measured on the same trace, each
// with MB per CPU second beside MB/s, so that a loaded machine's figures
// still compare within one run.
func TestBenchReaders(t *testing.T) {
	if testing.Short() {
		t.Skip("runs benchmarks")
	}
	results := benchJSON(t, "--events", "20000", "--time", "10ms", "--run", "^(tsim|clog2|ti)/read$")
	var names []string
	for _, res := range results {
		names = append(names, res.Name)
		for _, m := range []string{"MB/s", "MB/cpu-s", "Mevents/s"} {
			if res.Metrics[m] <= 0 {
				t.Errorf("%s: %s %v, want > 0", res.Name, m, res.Metrics[m])
			}
		}
		if b := res.Metrics["B/event"]; b <= 0 || b > 64 {
			t.Errorf("%s: %v B/event, want (0, 64]", res.Name, b)
		}
	}
	if got := strings.Join(names, " "); got != "tsim/read clog2/read ti/read" {
		t.Fatalf("ran %s, want tsim/read clog2/read ti/read", got)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// statesByName indexes the states of an info JSON by name.
func statesByName(m map[string]any) map[string]map[string]float64 {
	out := map[string]map[string]float64{}
	for _, s := range m["states"].([]any) {
		st := s.(map[string]any)
		out[st["name"].(string)] = map[string]float64{"count": st["count"].(float64), "total_s": st["total_s"].(float64)}
	}
	return out
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

// TestInterruptedSaysSo: a command whose context is cancelled (Ctrl-C,
// SIGTERM) while it reads says it was interrupted, not only the context
// package's "context canceled".
func TestInterruptedSaysSo(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.tsim")
	var out, errOut bytes.Buffer
	e := &env{ctx: context.Background(), stdout: &out, stderr: &errOut}
	if code := run(e, []string{"gen", "stencil2d", "--ranks", "16", "--iters", "50", "-o", path}); code != exitOK {
		t.Fatalf("gen: exit %d: %s", code, errOut.String())
	}
	for _, cmd := range [][]string{{"info", path}, {"check", path}, {"sim", path}} {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		out.Reset()
		errOut.Reset()
		code := run(&env{ctx: ctx, stdout: &out, stderr: &errOut}, cmd)
		want := "tracesim " + cmd[0] + ": interrupted"
		if code != exitFail || !strings.HasPrefix(errOut.String(), want) || strings.Count(errOut.String(), "interrupted") != 1 {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q once", cmd, code, errOut.String(), exitFail, want)
		}
	}
}
