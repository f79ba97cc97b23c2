package tui

import (
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	sw "github.com/tracesim/tracesim/engine/sweep"
)

// A point of a result whose spec had a base machine (a preset, top-level
// settings) opens from the picker on that machine, read from the
// result's machine column: its run finds the row's makespan exactly. A
// result from before the column opens on the session's machine, as
// before.
func TestSweepResultBaseMachine(t *testing.T) {
	tests := []struct {
		name     string
		base     string // the spec's base settings
		noColumn bool   // drop the machine column, as an older result
	}{
		{"preset", `preset = "simgrid"`, false},
		{"top-level settings", "bandwidth = \"2Gb/s\"\nlatency = \"40us\"", false},
		{"older result without the column", ``, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			lib := t.TempDir()
			res := runResult(t, lib, "traces = [\"gen ring --ranks 8 --iters 4\"]\n"+tc.base+"\n[axes]\ntopology = [\"torus:2x4\", \"ring:8\"]\n")
			if tc.noColumn {
				m := res.Column(sw.MachineColumn)
				res.Columns = res.Columns[:m]
				for i := range res.Rows {
					res.Rows[i] = res.Rows[i][:m]
				}
			}
			writeResult(t, filepath.Join(lib, "a-result.csv"), res)
			ms := slices.Index(res.Columns, "makespan_s")
			for i, row := range res.Rows {
				m := openResultPoint(t, lib, i, nil)
				if got := m.TabNames()[m.Active()]; got != "Simulate" {
					t.Fatalf("point %d: tab %s after enter (status %q), want Simulate", i, got, m.status)
				}
				last := runSimulate(t, m)
				if got := strconv.FormatFloat(last.Results.Makespan, 'g', -1, 64); got != row[ms] {
					t.Errorf("point %d: Simulate's makespan %s, the row's %s", i, got, row[ms])
				}
				if mc := res.Column(sw.MachineColumn); mc >= 0 {
					want, err := sw.ParseMachine(row[mc])
					if err == nil {
						err = want.Set("topology", row[res.Column("topology")])
					}
					if err != nil {
						t.Fatal(err)
					}
					if got, w := sw.FormatMachine(&last.Config), sw.FormatMachine(&want); got != w {
						t.Errorf("point %d: Simulate ran %q, want the row's machine %q", i, got, w)
					}
				}
			}
		})
	}
}
