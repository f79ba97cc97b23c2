package tui

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tracesim/tracesim/engine/replay"
	sw "github.com/tracesim/tracesim/engine/sweep"
	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/tracefmt/formats"
	"github.com/tracesim/tracesim/tracefmt/gen"
	"github.com/tracesim/tracesim/views/component/viewtest"
	"github.com/tracesim/tracesim/views/simulate"
)

// runResult runs the sweep of specText, a spec in dir, as `tracesim
// sweep` does and returns its result.
func runResult(t *testing.T, dir, specText string) *sw.Table {
	t.Helper()
	spec, err := sw.ParseFile(filepath.Join(dir, "a-result.toml"), []byte(specText))
	if err != nil {
		t.Fatal(err)
	}
	pts, err := spec.Expand()
	if err != nil {
		t.Fatal(err)
	}
	load := func(ctx context.Context, ref sw.TraceRef) (*tracefmt.Trace, error) {
		if ref.Gen == nil {
			tr, _, err := formats.Open(ctx, ref.Path, "", nil)
			return tr, err
		}
		o, err := gen.ParseArgs(ref.Gen)
		if err != nil {
			return nil, err
		}
		return gen.Generate(o)
	}
	res := &sw.Table{Columns: spec.Columns()}
	err = spec.Run(context.Background(), pts, sw.Options{Jobs: 1, Load: load}, func(_ *sw.Point, row []string) error {
		res.Rows = append(res.Rows, row)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	res.Sort()
	return res
}

// writeResult writes res to path as CSV.
func writeResult(t *testing.T, path string, res *sw.Table) {
	t.Helper()
	var b bytes.Buffer
	if err := res.WriteCSV(&b); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// runSimulate presses r on the Simulate tab and returns the finished run.
func runSimulate(t *testing.T, m *Model) simulate.Run {
	t.Helper()
	keys(t, m, "r")
	v := m.ViewOf(m.tabIndex("Simulate")).(*simulate.Model)
	runs := v.Runs()
	if v.Status() != simulate.Finished || len(runs) == 0 {
		t.Fatalf("Simulate did not finish the run (status %v):\n%s", v.Status(), viewtest.ASCII(t, m.Frame()))
	}
	return runs[len(runs)-1]
}

// openResultPoint opens a-result.csv of lib from the picker, selects
// point i and presses enter; open is the session's Options.Open (nil: none).
func openResultPoint(t *testing.T, lib string, i int, open func(context.Context, string) (*tracefmt.Trace, error)) *Model {
	t.Helper()
	m := newModel(t, 120, 30, func(o *Options) { o.Library, o.Open = lib, open })
	pick(m, "o")
	settle(t, m, press(m, "enter"))
	if got := m.TabNames()[m.Active()]; got != SweepTab {
		t.Fatalf("tab %s shown after opening a-result.csv, want %s:\n%s", got, SweepTab, viewtest.ASCII(t, m.Frame()))
	}
	for range i {
		keys(t, m, "down")
	}
	keys(t, m, "enter")
	return m
}

// enter on a point of a result opened from the picker opens it in
// Simulate: its trace (generated, or a library file beside the result)
// on the session's machine with the row's axis values and seed, whose
// run finds the row's makespan.
func TestSweepResultPointOpens(t *testing.T) {
	tests := []struct {
		name   string
		traces string // the spec's traces
		file   string // a trace file written to the library ("": none)
		path   string // the session's trace afterwards
		served bool   // the session reads traces through Options.Open
	}{
		{"gen", `["gen ring --ranks 8 --iters 4"]`, "", "gen ring --ranks 8 --iters 4", false},
		{"library file", `["b-ring.tsim"]`, "b-ring.tsim", "b-ring.tsim", false},
		{"served library file", `["b-ring.tsim"]`, "b-ring.tsim", "b-ring.tsim", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			lib := t.TempDir()
			if tc.file != "" {
				tr, err := gen.Generate(gen.Options{Pattern: "ring", Ranks: 8, Iters: 4, Compute: -1, Seed: 1})
				if err != nil {
					t.Fatal(err)
				}
				if err := formats.Save(filepath.Join(lib, tc.file), "", tr); err != nil {
					t.Fatal(err)
				}
				tc.path = filepath.Join(lib, tc.file)
			}
			res := runResult(t, lib, "traces = "+tc.traces+"\nplacement = \"random\"\nseeds = [3, 4]\n[axes]\ntopology = [\"torus:2x4\", \"ring:8\"]\nbandwidth = [\"1Gb/s\", \"10Gb/s\"]\n")
			writeResult(t, filepath.Join(lib, "a-result.csv"), res)

			// A served session's opener (its library cache) reads the file.
			var opened []string
			var open func(context.Context, string) (*tracefmt.Trace, error)
			if tc.served {
				open = func(ctx context.Context, path string) (*tracefmt.Trace, error) {
					opened = append(opened, path)
					tr, _, err := formats.Open(ctx, path, "", nil)
					return tr, err
				}
			}
			// Point 5: ring:8 at 1Gb/s, seed 4.
			m := openResultPoint(t, lib, 5, open)
			if tc.served && !slices.Equal(opened, []string{tc.path}) {
				t.Errorf("the session's opener read %q, want %q", opened, tc.path)
			}
			row := res.Rows[5]
			si := m.tabIndex("Simulate")
			if m.Active() != si {
				t.Fatalf("tab %s shown after enter (status %q), want Simulate:\n%s", m.TabNames()[m.Active()], m.status, viewtest.ASCII(t, m.Frame()))
			}
			if m.path != tc.path {
				t.Errorf("trace %q loaded, want %q", m.path, tc.path)
			}
			last := runSimulate(t, m)
			ms := slices.Index(res.Columns, "makespan_s")
			if got := strconv.FormatFloat(last.Results.Makespan, 'g', -1, 64); got != row[ms] {
				t.Errorf("Simulate's makespan %s, point 5's row %s", got, row[ms])
			}
			for _, key := range []string{"topology", "bandwidth", "seed"} {
				set, _ := replay.LookupSetting(key)
				if got, want := set.Get(&last.Config), row[res.Column(key)]; got != want {
					t.Errorf("Simulate ran %s %s, the row's is %s", key, got, want)
				}
			}
		})
	}
}

// A result opened from the library names its traces relative to itself:
// one that leads out of the library, by .. or an absolute path, is
// refused before anything is read, and a missing one is named.
func TestSweepResultPointRefused(t *testing.T) {
	dir := t.TempDir()
	lib := filepath.Join(dir, "library")
	if err := os.Mkdir(lib, 0o755); err != nil {
		t.Fatal(err)
	}
	// The file outside exists and is a trace: only the refusal keeps it
	// from the session.
	tr, err := gen.Generate(gen.Options{Pattern: "ring", Ranks: 8, Iters: 4, Compute: -1, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if err := formats.Save(filepath.Join(dir, "outside.tsim"), "", tr); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		trace string
		says  string
	}{
		{"../outside.tsim", "sweep point 0: trace ../outside.tsim: refused: a result opened from the library may only name traces in it, relative to the result"},
		{"/etc/passwd", "sweep point 0: trace /etc/passwd: refused: a result opened from the library may only name traces in it, relative to the result"},
		{"missing.tsim", "sweep point 0: trace missing.tsim: not found beside the result"},
		{"gen nosuch", `sweep point 0: trace "gen nosuch": gen: unknown pattern "nosuch"`},
		{"gen ring --ranks 1024 --iters 10000", `sweep point 0: trace "gen ring --ranks 1024 --iters 10000": 71680000 events is more than a session with a library generates (2000000)`},
	}
	for _, tc := range tests {
		t.Run(tc.trace, func(t *testing.T) {
			res := &sw.Table{Columns: append([]string{"point", "trace", "bandwidth"}, sw.MetricColumns()...)}
			row := make([]string, len(res.Columns))
			row[0], row[1], row[2] = "0", tc.trace, "1Gb/s"
			res.Rows = [][]string{row}
			writeResult(t, filepath.Join(lib, "a-result.csv"), res)
			// Nothing may reach the served session's opener.
			open := func(_ context.Context, path string) (*tracefmt.Trace, error) {
				t.Errorf("the session's opener was asked for %s", path)
				return nil, os.ErrNotExist
			}
			m := openResultPoint(t, lib, 0, open)
			if !strings.HasPrefix(m.status, tc.says) {
				t.Errorf("enter says %q, want %q", m.status, tc.says)
			}
			if m.path != "stencil.tsim" || m.TabNames()[m.Active()] != SweepTab {
				t.Errorf("trace %s on tab %s after enter, want stencil.tsim kept on %s", m.path, m.TabNames()[m.Active()], SweepTab)
			}
		})
	}
}

// A result's trace file is relative to the result: a result in a folder
// of the library may name a trace beside the folder, but not one beyond
// the library, nor reach one through a link out of it.
func TestSweepResultTracePath(t *testing.T) {
	dir := t.TempDir()
	lib := filepath.Join(dir, "library")
	if err := os.MkdirAll(filepath.Join(lib, "results"), 0o755); err != nil {
		t.Fatal(err)
	}
	tr, err := gen.Generate(gen.Options{Pattern: "ring", Ranks: 4, Iters: 2, Compute: -1, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{filepath.Join(lib, "b-ring.tsim"), filepath.Join(dir, "outside.tsim")} {
		if err := formats.Save(p, "", tr); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(dir, "outside.tsim"), filepath.Join(lib, "results", "link.tsim")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		path string // the trace's path in the session
		err  string
	}{
		{"../b-ring.tsim", filepath.Join(lib, "b-ring.tsim"), ""},
		{"../../outside.tsim", "", "trace ../../outside.tsim: refused: a result opened from the library may only name traces in it, relative to the result"},
		{"link.tsim", "", "trace link.tsim: results/link.tsim: outside the library"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := &resultOpener{dir: filepath.Join(lib, "results"), library: lib}
			got, path, err := o.trace(context.Background(), tc.name)
			switch {
			case tc.err != "":
				if err == nil || !strings.HasPrefix(err.Error(), tc.err) || got != nil {
					t.Errorf("trace %s: %v, want an error starting %q", tc.name, err, tc.err)
				}
			case err != nil:
				t.Errorf("trace %s: %v", tc.name, err)
			case path != tc.path || len(got.Ranks) != 4:
				t.Errorf("trace %s: %s of %d ranks, want %s of 4", tc.name, path, len(got.Ranks), tc.path)
			}
		})
	}
}
