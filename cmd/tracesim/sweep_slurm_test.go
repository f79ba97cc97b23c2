package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// smallSpec is a quick sweep: 2 traces × 3 topologies × 2 bandwidths.
const smallSpec = `traces = ["gen ring --ranks 8 --iters 20", "gen alltoall --ranks 8 --iters 4"]
[axes]
topology = ["torus:2x4", "fattree:k=4,levels=2", "dragonfly:p=2,a=4,h=2"]
bandwidth = ["10Gb/s", "100Gb/s"]
`

// TestSweepSlurm is the Slurm acceptance test: a 4-shard sweep
// submitted with --slurm --wait to a real single-node Slurm (started by
// scripts/slurm-up) leaves a merged result equal to the local run's.
func TestSweepSlurm(t *testing.T) {
	if testing.Short() {
		t.Skip("needs a Slurm controller")
	}
	up := exec.Command("../../scripts/slurm-up")
	up.Env = append(os.Environ(), "SKIP_INSTALL=1")
	if out, err := up.CombinedOutput(); err != nil {
		t.Skipf("no Slurm (scripts/slurm-up: %v): %s", err, strings.TrimSpace(string(out)))
	}
	bin := buildTracesim(t)
	dir := t.TempDir()
	spec := filepath.Join(dir, "spec.toml")
	if err := os.WriteFile(spec, []byte(smallSpec), 0o644); err != nil {
		t.Fatal(err)
	}
	local := filepath.Join(dir, "local.csv")
	if out, err := exec.Command(bin, "sweep", spec, "-o", local).CombinedOutput(); err != nil {
		t.Fatalf("local sweep: %v\n%s", err, out)
	}
	merged := filepath.Join(dir, "slurm.csv")
	cmd := exec.Command(bin, "sweep", spec, "-o", merged, "--slurm", "--shards", "4", "--wait")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("slurm sweep: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "submitted job array") || !strings.Contains(string(out), "4 shards done") {
		t.Errorf("slurm sweep said:\n%s", out)
	}
	for i := range 4 {
		if _, err := os.Stat(filepath.Join(dir, "slurm.slurm", "shard-"+strconv.Itoa(i)+".csv")); err != nil {
			t.Errorf("shard %d: %v", i, err)
		}
	}
	want := readResult(t, local)
	if len(want.Rows) != 12 {
		t.Fatalf("local run: %d rows, want 12", len(want.Rows))
	}
	equalTables(t, readResult(t, merged), want)

	// A missing trace is found before anything is submitted.
	bad := filepath.Join(dir, "bad.toml")
	if err := os.WriteFile(bad, []byte("traces = [\"missing.tsim\"]\n[axes]\nlatency = [\"1us\", \"2us\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	badOut := filepath.Join(dir, "bad.csv")
	refused := exec.Command(bin, "sweep", bad, "-o", badOut, "--slurm", "--shards", "2", "--wait")
	out, _ = refused.CombinedOutput()
	if code := refused.ProcessState.ExitCode(); code != exitUsage || strings.Contains(string(out), "submitted") || !strings.Contains(string(out), `bad.toml: line 1: traces: "missing.tsim"`) {
		t.Errorf("missing trace: exit %d, want 2 before submitting:\n%s", code, out)
	}
	// Shards that fail (their trace, a tsim file cut short, fails when
	// read, past the checks of its first bytes): --wait says which and
	// where their logs are, and the merge never runs.
	if code, _, errs := tracesim(t, "gen", "ring", "-o", filepath.Join(dir, "missing.tsim")); code != exitOK {
		t.Fatal(errs)
	}
	if err := os.Truncate(filepath.Join(dir, "missing.tsim"), 300); err != nil {
		t.Fatal(err)
	}
	out, err = exec.Command(bin, "sweep", bad, "-o", badOut, "--slurm", "--shards", "2", "--wait").CombinedOutput()
	if err == nil {
		t.Fatalf("failing shards: exit 0\n%s", out)
	}
	if msg := string(out); !strings.Contains(msg, "FAILED") || !strings.Contains(msg, filepath.Join(dir, "bad.slurm", "shard-*.log")) {
		t.Errorf("failing shards said:\n%s", msg)
	}
	if _, err := os.Stat(badOut); err == nil {
		t.Errorf("%s written although the shards failed", badOut)
	}
	if log, _ := os.ReadFile(filepath.Join(dir, "bad.slurm", "shard-0.log")); !strings.Contains(string(log), "missing.tsim") {
		t.Errorf("shard log: %s", log)
	}
}

// TestSweepSlurmDryRun checks the batch scripts --dry-run prints: the
// array over the shards, the partition and time limit, the merge.
func TestSweepSlurmDryRun(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "spec.toml")
	if err := os.WriteFile(spec, []byte(smallSpec), 0o644); err != nil {
		t.Fatal(err)
	}
	res := filepath.Join(dir, "res.csv")
	code, out, errs := tracesim(t, "sweep", spec, "-o", res, "--slurm", "--shards", "3", "--partition", "long", "--time", "2:00:00", "--jobs", "2", "--dry-run")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	sdir := filepath.Join(dir, "res.slurm")
	for _, want := range []string{
		"# " + filepath.Join(sdir, "shard.sbatch") + "\n#!/bin/sh\n",
		"#SBATCH --array=0-2\n",
		"#SBATCH --cpus-per-task=2\n",
		"#SBATCH --output=" + filepath.Join(sdir, "shard-%a.log") + "\n",
		"#SBATCH --partition=long\n#SBATCH --time=2:00:00\n",
		" sweep " + spec + ` --quiet --jobs 2 --shard "$SLURM_ARRAY_TASK_ID/3" -o ` + sdir + `"/shard-$SLURM_ARRAY_TASK_ID.csv"` + "\n",
		"# " + filepath.Join(sdir, "merge.sbatch") + "\n#!/bin/sh\n",
		" sweep merge " + sdir + " -o " + res + "\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("dry run lacks %q:\n%s", want, out)
		}
	}
	if _, err := os.Stat(sdir); err == nil {
		t.Errorf("--dry-run created %s", sdir)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--slurm"}, "--slurm needs --shards N"},
		{[]string{"--slurm", "--shards", "13"}, "--shards 13: the sweep has only 12 points"},
		{[]string{"--shards", "2"}, "go with --slurm or --dry-run"},
		{[]string{"--slurm", "--shards", "2", "--shard", "0/2"}, "--shard and --slurm"},
		{[]string{"--shard", "2/2"}, `shard "2/2": expected I/N with 0 ≤ I < N`},
	} {
		code, _, errs := tracesim(t, append([]string{"sweep", spec, "-o", res}, c.args...)...)
		if code != exitUsage || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, stderr %q, want 2 and %q", c.args, code, errs, c.want)
		}
	}
}
