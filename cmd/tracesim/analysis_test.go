package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/tracesim/tracesim/engine/analysis"
	"github.com/tracesim/tracesim/internal/testshared"
	"github.com/tracesim/tracesim/themes"
	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/tracefmt/tsim"
	"github.com/tracesim/tracesim/tracefmt/units"
	"github.com/tracesim/tracesim/tui/demo"
	"github.com/tracesim/tracesim/views/component"
	"github.com/tracesim/tracesim/views/matrix"
	"github.com/tracesim/tracesim/views/sizes"
	"github.com/tracesim/tracesim/views/stats"
)

// demoFile writes the TUI's demo trace to a file for the commands.
func demoFile(t *testing.T) string {
	t.Helper()
	tr, err := demo.Trace()
	if err != nil {
		t.Fatal(err)
	}
	return writeTrace(t, tr, "demo.tsim")
}

// untimedFile writes a two-rank trace that records no times.
func untimedFile(t *testing.T) string {
	t.Helper()
	tr := &tracefmt.Trace{Comms: []tracefmt.Comm{{}}, Ranks: make([]tracefmt.Rank, 2)}
	tr.Ranks[0].Events = []tracefmt.Event{tracefmt.ComputeWork(0, 2e9), tracefmt.Send(0, 1, 0, 0, 100)}
	tr.Ranks[1].Events = []tracefmt.Event{tracefmt.Recv(0, 0, 0, 0, 100), tracefmt.ComputeWork(0, 1e9)}
	return writeTrace(t, tr, "untimed.tsim")
}

func writeTrace(t *testing.T, tr *tracefmt.Trace, name string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := tsim.Write(f, tr); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// analysisSamples returns the demo, the untimed trace and the external
// samples, found by internal/testshared ($TRACESIM_SHARED, else a
// "shared" directory beside the module); it skips the test when fewer
// than three of the four samples are present, so that a checkout without
// them reports the comparison skipped rather than passed on the demo.
func analysisSamples(t *testing.T) []string {
	ext := testshared.Require(t, 3, "clog/fpilog.clog", "clog/pmandel.clog", "alog/srtest.alog", "simgrid-ti/actions_with_isend.txt")
	return append([]string{demoFile(t), untimedFile(t)}, ext...)
}

// runJSON runs a command with --json and decodes its output into v.
func runJSON(t *testing.T, v any, args ...string) {
	t.Helper()
	code, out, errs := tracesim(t, append(args, "--json")...)
	if code != exitOK {
		t.Fatalf("%v: exit %d: %s", args, code, errs)
	}
	if err := json.Unmarshal([]byte(out), v); err != nil {
		t.Fatalf("%v: %v\n%s", args, err, out)
	}
}

func pressKeys(m component.Model, keys ...tea.KeyPressMsg) {
	for _, k := range keys {
		m.Update(k)
	}
}

var keyW = tea.KeyPressMsg{Code: 'w', Text: "w"}

// middleThird returns the middle third of a timed trace as a --window
// value and in trace units, as the Timeline would hand it to a view.
func middleThird(tr *tracefmt.Trace) (string, float64, float64) {
	start, end := tr.Span()
	sec := tr.Unit.Seconds()
	a, b := (end-start)*sec/3, 2*(end-start)*sec/3
	return fmt.Sprintf("%.17gs:%.17gs", a, b), start + a/sec, start + b/sec
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-12*max(1, math.Abs(a), math.Abs(b)) }

// `tracesim stats --json` is the Stats tab's model: the same per-rank
// rows and the same called functions, whole run and in a window.
func TestStatsEqualsTheTab(t *testing.T) {
	for _, path := range analysisSamples(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			tr, err := load(&env{ctx: context.Background()}, path, "")
			if err != nil {
				t.Fatal(err)
			}
			type run struct {
				name string
				args []string
				view func(*stats.Model)
			}
			runs := []run{{"whole run", nil, func(*stats.Model) {}}}
			if tr.Timed {
				spec, a, b := middleThird(tr)
				runs = append(runs, run{"window " + spec, []string{"--window", spec}, func(m *stats.Model) {
					m.SetWindow(a, b)
					pressKeys(m, keyW)
				}})
			}
			for _, r := range runs {
				m := stats.New(component.New(&component.Session{Theme: themes.Mono()}, 120, 40), tr)
				r.view(m)
				m.View()
				p := m.Profile()
				var got StatsJSON
				runJSON(t, &got, append([]string{"stats", path}, r.args...)...)
				if len(got.Ranks) != len(p.Ranks) {
					t.Fatalf("%s: %d ranks, tab %d", r.name, len(got.Ranks), len(p.Ranks))
				}
				for i, g := range got.Ranks {
					w := p.Ranks[i]
					if g.Rank != w.Rank || !near(g.Compute, w.Time[analysis.Compute]) || !near(g.MPI, w.Time[analysis.MPI]) ||
						!near(g.Waiting, w.Time[analysis.Waiting]) || !near(g.User, w.Time[analysis.User]) ||
						!near(g.Span, w.Span) || !near(g.Work, w.Work) || g.Sends != w.Sends || g.Bytes != w.Bytes {
						t.Errorf("%s: rank row %d %+v, tab %+v", r.name, i, g, w)
					}
				}
				called := 0
				for _, f := range p.Funcs {
					if f.Calls > 0 {
						called++
					}
				}
				if len(got.Functions) != called {
					t.Errorf("%s: %d functions, tab %d", r.name, len(got.Functions), called)
				}
				for i, g := range got.Functions {
					if i > 0 && g.Total > got.Functions[i-1].Total {
						t.Errorf("%s: functions not by total, descending, as the tab: %s after %s", r.name, g.Name, got.Functions[i-1].Name)
					}
					for _, f := range p.Funcs {
						if f.Name == g.Name && f.Calls > 0 && (f.Calls != g.Calls || !near(f.Total, g.Total) || !near(f.Max, g.Max)) {
							t.Errorf("%s: %s %d calls %g s max %g s, tab %d calls %g s max %g s", r.name, g.Name, g.Calls, g.Total, g.Max, f.Calls, f.Total, f.Max)
						}
					}
				}
			}
		})
	}
}

// `tracesim matrix --json` is the Matrix tab's matrix, in rank and in
// node space.
func TestMatrixEqualsTheTab(t *testing.T) {
	for _, path := range analysisSamples(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			tr, err := load(&env{ctx: context.Background()}, path, "")
			if err != nil {
				t.Fatal(err)
			}
			m := matrix.New(component.New(&component.Session{Theme: themes.Mono()}, 120, 40), tr)
			check := func(name string, args ...string) {
				want, k := m.Shown()
				for _, metric := range []string{"bytes", "messages"} {
					var got MatrixJSON
					runJSON(t, &got, append([]string{"matrix", path, "--metric", metric}, args...)...)
					cells := want.Bytes
					if metric == "messages" {
						cells = want.Count
					}
					if got.Group != k || fmt.Sprint(got.Matrix) != fmt.Sprint(cells) || got.Collectives != want.Collectives {
						t.Errorf("%s %s: group %d %v, %d collectives; tab %d %v, %d", name, metric, got.Group, got.Matrix, got.Collectives, k, cells, want.Collectives)
					}
				}
			}
			check("rank space")
			// --ranks: the tab's matrix among those ranks, nothing else.
			full, _ := m.Shown()
			if full.Scale == 1 && tr.Size() >= 3 {
				sel := map[int]bool{0: true, tr.Size() - 1: true}
				var got MatrixJSON
				runJSON(t, &got, "matrix", path, "--ranks", fmt.Sprintf("0,%d", tr.Size()-1))
				for i, row := range got.Matrix {
					for j, v := range row {
						want := int64(0)
						if sel[i] && sel[j] {
							want = full.Bytes[i][j]
						}
						if v != want {
							t.Errorf("--ranks 0,%d: %d → %d holds %d B, tab %d B", tr.Size()-1, i, j, v, want)
						}
					}
				}
			}
			// --window: the sends in the middle third, counted as the tab
			// counts, with the window the Timeline would hand over; and
			// the same total as the Sizes tab in that window.
			if tr.Timed {
				spec, a, b := middleThird(tr)
				want := analysis.ComputeTraffic(tr, analysis.Window{Start: a, End: b}, nil)
				var got MatrixJSON
				runJSON(t, &got, "matrix", path, "--window", spec)
				if fmt.Sprint(got.Matrix) != fmt.Sprint(want.Bytes) {
					t.Errorf("--window %s: %v, tab's traffic over the window %v", spec, got.Matrix, want.Bytes)
				}
				sz := sizes.New(component.New(&component.Session{Theme: themes.Mono()}, 120, 40), tr)
				sz.SetWindow(a, b)
				pressKeys(sz, keyW)
				_, bytes := sz.Histogram().Total()
				var sum int64
				for _, row := range got.Matrix {
					for _, v := range row {
						sum += v
					}
				}
				if sum != bytes {
					t.Errorf("--window %s: the matrix sums to %d B, the Sizes tab's window holds %d B", spec, sum, bytes)
				}
			}
			if tr.Size() >= 4 {
				pressKeys(m, tea.KeyPressMsg{Code: 'n', Text: "n"})
				check("node space", "--space", "node", "--ranks-per-node", "2")
			}
		})
	}
}

// `tracesim sizes --json` is the Sizes tab's histogram: every rank, one
// rank, and in a window.
func TestSizesEqualsTheTab(t *testing.T) {
	for _, path := range analysisSamples(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			tr, err := load(&env{ctx: context.Background()}, path, "")
			if err != nil {
				t.Fatal(err)
			}
			m := sizes.New(component.New(&component.Session{Theme: themes.Mono()}, 120, 40), tr)
			check := func(name string, args ...string) {
				h := m.Histogram()
				var got SizesJSON
				runJSON(t, &got, append([]string{"sizes", path}, args...)...)
				var want []BinJSON
				for k := range h.Count {
					if h.Count[k] > 0 {
						lo, hi := analysis.BinRange(k)
						want = append(want, BinJSON{Bin: k, Label: analysis.BinLabel(k), Min: lo, Max: hi, Messages: h.Count[k], Bytes: h.Bytes[k]})
					}
				}
				c, b := h.Total()
				if fmt.Sprint(got.Bins) != fmt.Sprint(want) && !(len(got.Bins) == 0 && len(want) == 0) || got.Messages != c || got.Bytes != b {
					t.Errorf("%s: %v (%d, %d B), tab %v (%d, %d B)", name, got.Bins, got.Messages, got.Bytes, want, c, b)
				}
			}
			check("all ranks")
			pressKeys(m, tea.KeyPressMsg{Code: tea.KeyRight}, tea.KeyPressMsg{Code: tea.KeyRight})
			check("rank 1", "--ranks", "1")
			if tr.Timed {
				spec, a, b := middleThird(tr)
				pressKeys(m, tea.KeyPressMsg{Code: 'a', Text: "a"})
				m.SetWindow(a, b)
				pressKeys(m, keyW)
				check("window "+spec, "--window", spec)
			}
		})
	}
}

// The plain-text tables show what the JSON says, with units.
func TestAnalysisTables(t *testing.T) {
	path := demoFile(t)
	var st StatsJSON
	runJSON(t, &st, "stats", path, "--sort", "mpi")
	var mx MatrixJSON
	runJSON(t, &mx, "matrix", path, "--ranks", "0-3")
	var sz SizesJSON
	runJSON(t, &sz, "sizes", path)
	r0, f0 := st.Ranks[0], st.Functions[0]
	tests := []struct {
		args []string
		want []string
	}{
		{[]string{"stats", path, "--sort", "mpi"}, []string{
			"per-rank profile · all ranks · whole run",
			fmt.Sprintf("%d  %s", r0.Rank, units.FormatDuration(r0.Compute)),
			fmt.Sprintf("%s  %d  %s", f0.Name, f0.Calls, units.FormatDuration(f0.Total)),
		}},
		{[]string{"stats", untimedFile(t)}, []string{
			"rank  compute  work  sends  bytes",
			"0  0 s  2 Gf  1  100 B",
			"1  0 s  1 Gf  0  0 B",
		}},
		{[]string{"matrix", path, "--ranks", "0-3"}, []string{
			"bytes sent, rank × rank (rows send, columns receive) · ranks 0-3 · whole run",
			"0  1  2  3  total",
		}},
		{[]string{"sizes", path, "--by", "bytes"}, []string{
			"message sizes · all ranks · whole run · by bytes",
			fmt.Sprintf("%s  %d", sz.Bins[0].Label, sz.Bins[0].Messages),
			fmt.Sprintf("total  %d  %s", sz.Messages, units.FormatBytes(sz.Bytes)),
		}},
	}
	for _, tc := range tests {
		code, out, errs := tracesim(t, tc.args...)
		if code != exitOK {
			t.Fatalf("%v: exit %d: %s", tc.args, code, errs)
		}
		squeezed := strings.Join(strings.Fields(out), "  ")
		for _, w := range tc.want {
			if !strings.Contains(squeezed, strings.Join(strings.Fields(w), "  ")) {
				t.Errorf("%v: no %q in\n%s", tc.args, w, out)
			}
		}
	}
	// --sort mpi: the rank spending most time in MPI first.
	for i := 1; i < len(st.Ranks); i++ {
		if st.Ranks[i].MPI > st.Ranks[i-1].MPI {
			t.Errorf("--sort mpi: rank %d (%g s) after rank %d (%g s)", st.Ranks[i].Rank, st.Ranks[i].MPI, st.Ranks[i-1].Rank, st.Ranks[i-1].MPI)
		}
	}
	// --ranks 0-3: only messages among ranks 0 to 3.
	for i, row := range mx.Matrix {
		for j, v := range row {
			if v != 0 && (i > 3 || j > 3) {
				t.Errorf("--ranks 0-3: %d → %d holds %d", i, j, v)
			}
		}
	}
}

func TestAnalysisErrors(t *testing.T) {
	path := demoFile(t)
	untimed := untimedFile(t)
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"stats"}, exitUsage, "tracesim stats: expected 1 argument(s), got 0"},
		{[]string{"stats", path, "--window", "2ms"}, exitUsage, `tracesim stats: --window: "2ms": expected START:END, durations from the trace's start such as 1ms:2ms`},
		{[]string{"sizes", path, "--window", "5ms:1ms"}, exitUsage, `tracesim sizes: --window: "5ms:1ms": the start is after the end`},
		{[]string{"matrix", path, "--window", "1qs:"}, exitUsage, `tracesim matrix: --window: start: "1qs": unknown time unit "qs"`},
		{[]string{"stats", path, "--ranks", "0-99"}, exitUsage, `tracesim stats: --ranks: "0-99" outside 0..15`},
		{[]string{"sizes", path, "--ranks", "two"}, exitUsage, `tracesim sizes: --ranks: "two" is not a rank or a range like 0-3`},
		{[]string{"stats", path, "--sort", "speed"}, exitUsage, `invalid value "speed" for flag --sort: "speed": expected rank, compute, user`},
		{[]string{"stats", path, "--sort", "work"}, exitUsage, `tracesim stats: --sort: "work" is not a column of this timed trace`},
		{[]string{"matrix", path, "--metric", "flops"}, exitUsage, `invalid value "flops" for flag --metric: "flops": expected bytes, messages`},
		{[]string{"matrix", path, "--space", "core"}, exitUsage, `invalid value "core" for flag --space: "core": expected rank, node`},
		{[]string{"matrix", path, "--space", "node", "--ranks-per-node", "9"}, exitUsage, "tracesim matrix: --ranks-per-node: expected 2 to 8 (two nodes or more of 16 ranks), got 9"},
		{[]string{"sizes", path, "--by", "weight"}, exitUsage, `invalid value "weight" for flag --by: "weight": expected messages, bytes`},
		{[]string{"sizes", filepath.Join(t.TempDir(), "none.tsim")}, exitFail, "tracesim sizes: "},
		{[]string{"stats", untimed, "--window", "0:1ms"}, exitUsage, "tracesim stats: --window: " + untimed + " is untimed: it records no times to window by"},
		{[]string{"stats", untimed, "--sort", "mpi"}, exitUsage, `tracesim stats: --sort: "mpi" is not a column of this untimed trace`},
	}
	for _, tc := range tests {
		code, out, errs := tracesim(t, tc.args...)
		if code != tc.code || !strings.Contains(errs, tc.want) || out != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit %d and %q", tc.args, code, out, errs, tc.code, tc.want)
		}
	}
}
