package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"
)

// slurmFlags are sweep's flags for running on a Slurm cluster.
type slurmFlags struct {
	slurm     bool
	shards    int
	partition string
	time      string
	wait      bool
	dryRun    bool
	// genArgs are the sweep's flags the shards must repeat (a raised
	// --max-gen-events), each word shell-quoted.
	genArgs string
}

func (s *slurmFlags) register(fs *pflag.FlagSet) {
	fs.BoolVar(&s.slurm, "slurm", false, "submit the sweep to Slurm: a job array of --shards tasks and a dependent merge job")
	fs.IntVar(&s.shards, "shards", 0, "number of Slurm array tasks (with --slurm)")
	fs.StringVar(&s.partition, "partition", "", "Slurm partition (with --slurm)")
	fs.StringVar(&s.time, "time", "", "Slurm time limit per task, e.g. 1:00:00 (with --slurm)")
	fs.BoolVar(&s.wait, "wait", false, "wait for the Slurm jobs and check the merged result (with --slurm)")
	fs.BoolVar(&s.dryRun, "dry-run", false, "print the Slurm batch scripts instead of submitting them")
}

// given reports whether a Slurm-only flag was set.
func (s *slurmFlags) given() bool {
	return s.shards != 0 || s.partition != "" || s.time != "" || s.wait
}

// slurmPlan is what a Slurm sweep writes: its directory (beside the
// result, RESULT.slurm/) with the batch scripts, the shards' results and
// logs.
type slurmPlan struct {
	dir         string
	shardScript string
	mergeScript string
}

// plan writes the batch scripts' text. Paths are absolute: the jobs run
// wherever Slurm starts them.
func (s *slurmFlags) plan(exe, spec, out string, jobs int) (*slurmPlan, error) {
	absSpec, err := filepath.Abs(spec)
	if err != nil {
		return nil, err
	}
	absOut, err := filepath.Abs(out)
	if err != nil {
		return nil, err
	}
	cwd, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	dir := strings.TrimSuffix(absOut, filepath.Ext(absOut)) + ".slurm"
	cpus := max(jobs, 1)
	var head bytes.Buffer
	if s.partition != "" {
		fmt.Fprintf(&head, "#SBATCH --partition=%s\n", s.partition)
	}
	if s.time != "" {
		fmt.Fprintf(&head, "#SBATCH --time=%s\n", s.time)
	}
	fmt.Fprintf(&head, "#SBATCH --chdir=%s\n", cwd)
	q := shellQuote
	shard := fmt.Sprintf(`#!/bin/sh
# tracesim sweep %s: shard $SLURM_ARRAY_TASK_ID of %d (docs/sweep.md)
#SBATCH --job-name=tracesim-sweep
#SBATCH --array=0-%d
#SBATCH --cpus-per-task=%d
#SBATCH --output=%s
%sexec %s sweep %s --quiet --jobs %d%s --shard "$SLURM_ARRAY_TASK_ID/%d" -o %s"/shard-$SLURM_ARRAY_TASK_ID.csv"
`, filepath.Base(spec), s.shards, s.shards-1, cpus, filepath.Join(dir, "shard-%a.log"), head.String(),
		q(exe), q(absSpec), cpus, s.genArgs, s.shards, q(dir))
	merge := fmt.Sprintf(`#!/bin/sh
# tracesim sweep %s: merge the %d shards' results (docs/sweep.md)
#SBATCH --job-name=tracesim-sweep-merge
#SBATCH --cpus-per-task=1
#SBATCH --output=%s
%sexec %s sweep merge %s -o %s
`, filepath.Base(spec), s.shards, filepath.Join(dir, "merge.log"), head.String(), q(exe), q(dir), q(absOut))
	return &slurmPlan{dir: dir, shardScript: shard, mergeScript: merge}, nil
}

// shellQuote quotes a word for sh.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._-+=:,@", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// run writes and submits (or prints) the Slurm jobs of a sweep.
func (s *slurmFlags) run(e *env, spec, out string, jobs, points int) int {
	if s.shards < 1 {
		fmt.Fprintln(e.stderr, "tracesim sweep: --slurm needs --shards N (N ≥ 1)")
		return exitUsage
	}
	if s.shards > points {
		fmt.Fprintf(e.stderr, "tracesim sweep: --shards %d: the sweep has only %d points\n", s.shards, points)
		return exitUsage
	}
	if s.dryRun && s.wait {
		fmt.Fprintln(e.stderr, "tracesim sweep: --dry-run and --wait: nothing is submitted to wait for")
		return exitUsage
	}
	exe, err := os.Executable()
	if err != nil {
		return fail(e, "sweep", err)
	}
	p, err := s.plan(exe, spec, out, jobs)
	if err != nil {
		return fail(e, "sweep", err)
	}
	if s.dryRun {
		fmt.Fprintf(e.stdout, "# %s\n%s\n# %s\n%s", filepath.Join(p.dir, "shard.sbatch"), p.shardScript,
			filepath.Join(p.dir, "merge.sbatch"), p.mergeScript)
		return exitOK
	}
	if err := os.MkdirAll(p.dir, 0o755); err != nil {
		return fail(e, "sweep", err)
	}
	shardFile, mergeFile := filepath.Join(p.dir, "shard.sbatch"), filepath.Join(p.dir, "merge.sbatch")
	for _, f := range []struct{ name, text string }{{shardFile, p.shardScript}, {mergeFile, p.mergeScript}} {
		if err := os.WriteFile(f.name, []byte(f.text), 0o755); err != nil {
			return fail(e, "sweep", err)
		}
	}
	arrayID, err := sbatch(e.ctx, shardFile)
	if err != nil {
		return fail(e, "sweep", err)
	}
	mergeID, err := sbatch(e.ctx, mergeFile, "--dependency=afterok:"+arrayID)
	if err != nil {
		exec.Command("scancel", arrayID).Run()
		return fail(e, "sweep", err)
	}
	fmt.Fprintf(e.stderr, "tracesim sweep: submitted job array %s (%d shards) and merge job %s; scripts and logs in %s\n",
		arrayID, s.shards, mergeID, p.dir)
	if !s.wait {
		return exitOK
	}
	if err := waitSlurm(e, arrayID, mergeID, p.dir); err != nil {
		return fail(e, "sweep", err)
	}
	fmt.Fprintf(e.stderr, "tracesim sweep: jobs done; merged result in %s\n", out)
	return exitOK
}

// sbatch submits a script and returns the job id.
func sbatch(ctx context.Context, script string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "sbatch", append(append([]string{"--parsable"}, args...), script)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	outb, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("sbatch %s: %v: %s", script, err, strings.TrimSpace(stderr.String()))
	}
	// --parsable prints "ID" or "ID;CLUSTER".
	id, _, _ := strings.Cut(strings.TrimSpace(string(outb)), ";")
	if _, err := strconv.Atoi(id); err != nil {
		return "", fmt.Errorf("sbatch %s: unexpected output %q", script, outb)
	}
	return id, nil
}

// jobStates returns the state of every task of the jobs ids ("123_0"
// → "COMPLETED") and the pending reason of those that wait.
func jobStates(ctx context.Context, ids ...string) (map[string][2]string, error) {
	cmd := exec.CommandContext(ctx, "squeue", "-h", "-t", "all", "-j", strings.Join(ids, ","), "-o", "%i %T %r")
	outb, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("squeue: %w", err)
	}
	st := map[string][2]string{}
	for _, l := range strings.Split(strings.TrimSpace(string(outb)), "\n") {
		f := strings.Fields(l)
		if len(f) >= 2 {
			reason := ""
			if len(f) > 2 {
				reason = f[2]
			}
			st[f[0]] = [2]string{f[1], reason}
		}
	}
	return st, nil
}

// terminal reports whether a Slurm job state is final.
func terminal(state string) bool {
	switch state {
	case "PENDING", "RUNNING", "CONFIGURING", "COMPLETING", "SUSPENDED", "REQUEUED", "RESIZING", "SIGNALING", "STAGE_OUT":
		return false
	}
	return true
}

// waitSlurm polls squeue until the merge job has ended; cancelled (ctrl+c)
// it cancels the jobs. It fails when a shard or the merge failed, naming
// the log to read.
func waitSlurm(e *env, arrayID, mergeID, dir string) error {
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	lastDone := -1
	for {
		select {
		case <-e.ctx.Done():
			exec.Command("scancel", arrayID, mergeID).Run()
			return fmt.Errorf("interrupted: cancelled jobs %s and %s", arrayID, mergeID)
		case <-tick.C:
		}
		st, err := jobStates(e.ctx, arrayID, mergeID)
		if err != nil {
			return err
		}
		done, total := 0, 0
		var failed []string
		for id, s := range st {
			if !strings.HasPrefix(id, arrayID+"_") || strings.Contains(id, "[") {
				continue
			}
			total++
			if terminal(s[0]) {
				done++
				if s[0] != "COMPLETED" {
					failed = append(failed, id+" "+s[0])
				}
			}
		}
		if total > 0 && done != lastDone {
			fmt.Fprintf(e.stderr, "tracesim sweep: %d shards done\n", done)
			lastDone = done
		}
		m, ok := st[mergeID]
		if len(failed) > 0 && (!ok || m[0] == "PENDING") {
			exec.Command("scancel", mergeID).Run()
			return fmt.Errorf("shard task(s) %s; see %s", strings.Join(failed, ", "), filepath.Join(dir, "shard-*.log"))
		}
		if !ok {
			// Slurm forgot the job (MinJobAge passed): the merge log
			// says how it ended.
			return fmt.Errorf("job %s is no longer known to Slurm; see %s", mergeID, filepath.Join(dir, "merge.log"))
		}
		if terminal(m[0]) {
			if m[0] != "COMPLETED" {
				return fmt.Errorf("merge job %s %s; see %s", mergeID, m[0], filepath.Join(dir, "merge.log"))
			}
			return nil
		}
	}
}
