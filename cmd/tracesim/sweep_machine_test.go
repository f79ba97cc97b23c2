package main

import (
	"context"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tracesim/tracesim/engine/replay"
	"github.com/tracesim/tracesim/engine/sweep"
)

// A point of a result opened by `sweep show RESULT` without the spec runs
// on the spec's base machine, which the result's machine column records:
// its makespan equals the row's exactly, in CSV and Parquet.
func TestSweepShowWithoutSpecBaseMachine(t *testing.T) {
	tests := []struct {
		name, base, ext string
	}{
		{"preset csv", `preset = "simgrid"`, ".csv"},
		{"preset parquet", `preset = "simgrid"`, ".parquet"},
		{"top-level settings", "bandwidth = \"2Gb/s\"\nlatency = \"40us\"", ".csv"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			spec := filepath.Join(dir, "spec.toml")
			text := "traces = [\"gen ring --ranks 8 --iters 4\"]\n" + tc.base + "\n[axes]\ntopology = [\"torus:2x4\", \"ring:8\"]\n"
			if err := os.WriteFile(spec, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			// Not beside the spec's name, so that show does not find it.
			out := filepath.Join(dir, "result"+tc.ext)
			if code, _, errs := tracesim(t, "sweep", spec, "-o", out, "--jobs", "1"); code != exitOK {
				t.Fatalf("sweep: exit %d: %s", code, errs)
			}
			res := readResult(t, out)
			if len(res.Rows) != 2 {
				t.Fatalf("%d rows, want 2", len(res.Rows))
			}
			open, err := showOpener(res, out, "")
			if err != nil {
				t.Fatal(err)
			}
			ms := res.Column("makespan_s")
			for i, row := range res.Rows {
				run, err := open(context.Background(), row)
				if err != nil {
					t.Fatalf("point %d: %v", i, err)
				}
				sim, err := replay.New(run.Trace, run.Config, replay.Options{})
				if err != nil {
					t.Fatal(err)
				}
				if err := sim.Run(context.Background()); err != nil {
					t.Fatal(err)
				}
				if got := strconv.FormatFloat(sim.Results().Makespan, 'g', -1, 64); got != row[ms] {
					t.Errorf("point %d: makespan %s opened without the spec, the row's %s (machine %q)", i, got, row[ms], row[res.Column(sweep.MachineColumn)])
				}
			}
		})
	}
}

// A result and a journal written before the machine column resume: the
// rows they hold are kept (not run again) and get the spec's machine.
func TestSweepResumeOlderResult(t *testing.T) {
	for _, file := range []string{"out", "journal"} {
		t.Run(file, func(t *testing.T) {
			dir := t.TempDir()
			spec := filepath.Join(dir, "spec.toml")
			text := "traces = [\"gen ring --ranks 8 --iters 4\"]\nlatency = \"40us\"\n[axes]\ntopology = [\"torus:2x4\", \"ring:8\"]\n"
			if err := os.WriteFile(spec, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(dir, "res.csv")
			if code, _, errs := tracesim(t, "sweep", spec, "-o", out); code != exitOK {
				t.Fatalf("sweep: exit %d: %s", code, errs)
			}
			want := readResult(t, out)
			// The older version's file: no machine column, one point
			// missing, an event count no run gives again.
			m := want.Column(sweep.MachineColumn)
			var b strings.Builder
			b.WriteString(strings.Join(want.Columns[:m], ",") + "\n")
			old := append([]string(nil), want.Rows[0][:m]...)
			old[want.Column("events")] = "123456"
			b.WriteString(strings.Join(old, ",") + "\n")
			name := out
			if file == "journal" {
				name = out + ".part"
			}
			os.Remove(out)
			if err := os.WriteFile(name, []byte(b.String()), 0o644); err != nil {
				t.Fatal(err)
			}
			code, _, errs := tracesim(t, "sweep", spec, "-o", out)
			if code != exitOK {
				t.Fatalf("resume: exit %d: %s", code, errs)
			}
			got := readResult(t, out)
			if strings.Join(got.Columns, ",") != strings.Join(want.Columns, ",") {
				t.Fatalf("columns %v, want %v", got.Columns, want.Columns)
			}
			if len(got.Rows) != 2 {
				t.Fatalf("%d rows, want 2", len(got.Rows))
			}
			if n := got.Rows[0][got.Column("events")]; n != "123456" {
				t.Errorf("point 0 ran again (%s events), want the older file's row kept", n)
			}
			for i, r := range got.Rows {
				if r[m] != "latency=40us" {
					t.Errorf("point %d: machine %q, want latency=40us", i, r[m])
				}
			}
			if _, err := os.Stat(out + ".part"); err == nil {
				t.Errorf("the journal %s.part is left", out)
			}
		})
	}
}

// TestSweepShowWithoutSpecEndToEnd opens a point of a result whose spec
// had preset = "simgrid" in the real UI, without the spec, runs it in
// Simulate and finds the makespan the sweep recorded.
func TestSweepShowWithoutSpecEndToEnd(t *testing.T) {
	bin, dir := showSetup(t)
	spec := filepath.Join(dir, "spec.toml")
	text := "traces = [\"gen ring --ranks 8 --iters 4\"]\npreset = \"simgrid\"\n[axes]\ntopology = [\"torus:2x4\", \"ring:8\"]\n"
	if err := os.WriteFile(spec, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	// Not beside the spec's name, so that show does not find it.
	if out, err := exec.Command(bin, "sweep", spec, "-o", filepath.Join(dir, "result.csv")).CombinedOutput(); err != nil {
		t.Fatalf("sweep: %v\n%s", err, out)
	}
	// Point 0 (torus:2x4): on the default machine its makespan would be
	// 0.6% shorter.
	recorded := recordedMakespan(t, filepath.Join(dir, "result.csv"), 0)
	x := startShow(t, "tracesim-sweepbase", "cd "+dir+" && "+bin+" sweep show result.csv")
	x.waitFor("sweep tab", "1 Sweep", "Sweep · result.csv · 2 points")
	x.waitFor("point 0 selected", "point 0: torus:2x4")
	x.keys("Enter")
	x.waitFor("simulate tab", "sweep point 0:", "ready")
	got, shown, screen := x.runMakespan()
	if math.Abs(got-recorded) > 1e-6*recorded {
		t.Errorf("Simulate predicts %s, the sweep recorded %g s:\n%s", shown, recorded, screen)
	}
}

// A result whose points ran on another base machine than the spec's now
// has is refused rather than mixed with points of the new one.
func TestSweepResumeOtherMachine(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "spec.toml")
	out := filepath.Join(dir, "res.csv")
	for i, latency := range []string{"40us", "50us"} {
		text := "traces = [\"gen ring --ranks 8 --iters 4\"]\nlatency = \"" + latency + "\"\n[axes]\ntopology = [\"torus:2x4\", \"ring:8\"]\n"
		if err := os.WriteFile(spec, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		code, _, errs := tracesim(t, "sweep", spec, "-o", out)
		if i == 0 {
			if code != exitOK {
				t.Fatalf("sweep: exit %d: %s", code, errs)
			}
			continue
		}
		want := `tracesim sweep: ` + out + `: row 1 (point 0) ran on another machine ("latency=40us") than this spec's ("latency=50us"); give another -o or remove it`
		if code != exitFail || strings.TrimSpace(errs) != want {
			t.Errorf("sweep with another latency: exit %d, %q; want exit %d, %q", code, errs, exitFail, want)
		}
	}
}
