package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tracesim/tracesim/engine/sweep"
)

// doneWhenSpec is the acceptance sweep: 3 topologies × 6
// bandwidths × 2 placements × 2 traces = 72 points. The traces are long
// enough (tens of ms per point) for a kill to land halfway.
const doneWhenSpec = `# the 72-point sweep of docs/sweep.md
traces = ["gen ring --ranks 8 --iters 1500", "gen alltoall --ranks 8 --iters 100"]
preset = "default"

[axes]
topology = ["torus:2x4", "fattree:k=4,levels=2", "dragonfly:p=2,a=4,h=2"]
bandwidth = { from = "1Gb/s", to = "400Gb/s", count = 6, log = true }
placement = ["block", "random"]
`

// buildTracesim builds the command into a temporary directory.
func buildTracesim(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "tracesim")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

func equalTables(t *testing.T, got, want *sweep.Table) {
	t.Helper()
	if strings.Join(got.Columns, ",") != strings.Join(want.Columns, ",") {
		t.Fatalf("columns %v, want %v", got.Columns, want.Columns)
	}
	if len(got.Rows) != len(want.Rows) {
		t.Fatalf("%d rows, want %d", len(got.Rows), len(want.Rows))
	}
	for i := range got.Rows {
		if g, w := strings.Join(got.Rows[i], ","), strings.Join(want.Rows[i], ","); g != w {
			t.Fatalf("row %d:\n got %s\nwant %s", i, g, w)
		}
	}
}

// TestSweepResumeAfterKill is the acceptance test: the 72-point
// sweep killed with SIGKILL halfway, then run again, runs only the
// missing points and leaves a result equal to an uninterrupted run's.
func TestSweepResumeAfterKill(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command and runs 144 simulations")
	}
	bin := buildTracesim(t)
	dir := t.TempDir()
	spec := filepath.Join(dir, "spec.toml")
	if err := os.WriteFile(spec, []byte(doneWhenSpec), 0o644); err != nil {
		t.Fatal(err)
	}
	full := filepath.Join(dir, "full.csv")
	if out, err := exec.Command(bin, "sweep", spec, "-o", full, "--jobs", "2").CombinedOutput(); err != nil {
		t.Fatalf("uninterrupted sweep: %v\n%s", err, out)
	}
	want := readResult(t, full)
	if len(want.Rows) != 72 {
		t.Fatalf("uninterrupted sweep: %d rows, want 72", len(want.Rows))
	}

	res := filepath.Join(dir, "res.csv")
	cmd := exec.Command(bin, "sweep", spec, "-o", res, "--jobs", "2")
	// The spec's gen commands make their traces in memory: SIGKILL
	// leaves nothing but the journal, in TMPDIR or beside the result
	// (each killed run used to leave a /tmp/tracesim-sweep-N).
	tmp := t.TempDir()
	tmpEnv := append(os.Environ(), "TMPDIR="+tmp)
	nothingLeft := func(when string, want ...string) {
		t.Helper()
		if left, _ := os.ReadDir(tmp); len(left) != 0 {
			t.Errorf("%s: left in TMPDIR: %v", when, left)
		}
		left, _ := filepath.Glob(filepath.Join(dir, "*"))
		for i := range left {
			left[i] = filepath.Base(left[i])
		}
		if !slices.Equal(left, want) {
			t.Errorf("%s: files beside the spec %v, want %v", when, left, want)
		}
	}
	cmd.Env = tmpEnv
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Kill once the journal holds half the points.
	part := res + ".part"
	deadline := time.Now().Add(60 * time.Second)
	killedAt := 0
	for time.Now().Before(deadline) {
		data, _ := os.ReadFile(part)
		if n := bytes.Count(data, []byte("\n")) - 1; n >= 36 {
			cmd.Process.Signal(syscall.SIGKILL)
			killedAt = n
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	cmd.Wait()
	if killedAt == 0 {
		t.Fatal("the sweep never reached 36 points")
	}
	if _, err := os.Stat(res); err == nil {
		t.Fatalf("%s exists after the kill: the result must appear only when the run ends", res)
	}
	data, _ := os.ReadFile(part)
	journaled, err := sweep.ReadCSV(part, data)
	if err != nil {
		t.Fatalf("journal after the kill: %v", err)
	}
	if n := len(journaled.Rows); n < 36 || n >= 72 {
		t.Fatalf("journal holds %d points after the kill, want 36 to 71", n)
	}

	nothingLeft("after the kill", "full.csv", "res.csv.part", "spec.toml")

	resume := exec.Command(bin, "sweep", spec, "-o", res, "--jobs", "2")
	resume.Env = tmpEnv
	out, err := resume.CombinedOutput()
	if err != nil {
		t.Fatalf("resumed sweep: %v\n%s", err, out)
	}
	nothingLeft("after the resumed run", "full.csv", "res.csv", "spec.toml")
	msg := string(out)
	wantMsg := "points already done, " + strconv.Itoa(72-len(journaled.Rows)) + " to run"
	if !strings.Contains(msg, strconv.Itoa(len(journaled.Rows))+" "+wantMsg) {
		t.Errorf("resumed sweep says\n%s\nwant %q", msg, wantMsg)
	}
	if _, err := os.Stat(part); err == nil {
		t.Errorf("%s left after the resumed run", part)
	}
	equalTables(t, readResult(t, res), want)

	// A third run has nothing to do.
	out, err = exec.Command(bin, "sweep", spec, "-o", res).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "all 72 points already in") {
		t.Errorf("third run: %v\n%s", err, out)
	}
}

// TestSweepInterrupt: SIGINT (ctrl+c) and SIGTERM stop a sweep within a
// second, leave the finished points in the result and no journal or
// generated trace behind.
func TestSweepInterrupt(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command")
	}
	bin := buildTracesim(t)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			tmp := t.TempDir()
			spec := filepath.Join(dir, "spec.toml")
			if err := os.WriteFile(spec, []byte(doneWhenSpec), 0o644); err != nil {
				t.Fatal(err)
			}
			res := filepath.Join(dir, "res.csv")
			cmd := exec.Command(bin, "sweep", spec, "-o", res, "--jobs", "2")
			cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			took, err := interruptWhen(t, cmd, sig, 60*time.Second, func() bool {
				data, _ := os.ReadFile(res + ".part")
				return bytes.Count(data, []byte("\n")) > 10
			})
			if took > time.Second {
				t.Errorf("the sweep took %v to stop, want under a second", took)
			}
			if err == nil {
				t.Errorf("exit status 0 after %v, want 1", sig)
			}
			if !strings.Contains(stderr.String(), "interrupted: ") || !strings.Contains(stderr.String(), "run the same command again to finish") {
				t.Errorf("stderr:\n%s", stderr.String())
			}
			got := readResult(t, res)
			if n := len(got.Rows); n < 10 || n >= 72 {
				t.Errorf("%d points in the result, want the 10+ finished ones", n)
			}
			for i := 1; i < len(got.Rows); i++ {
				a, _ := strconv.Atoi(got.Rows[i-1][0])
				b, _ := strconv.Atoi(got.Rows[i][0])
				if a >= b {
					t.Errorf("rows out of point order at row %d: point %d after %d", i, b, a)
				}
			}
			left, _ := filepath.Glob(filepath.Join(dir, "*"))
			if len(left) != 2 {
				t.Errorf("files left beside the spec: %v, want spec.toml and res.csv", left)
			}
			if tmpLeft, _ := os.ReadDir(tmp); len(tmpLeft) != 0 {
				t.Errorf("temporary files left: %v", tmpLeft)
			}
		})
	}
}

// readResult reads a CSV or Parquet sweep result and blanks its wall_s
// column, the one column that differs between runs of one spec.
func readResult(t *testing.T, path string) *sweep.Table {
	t.Helper()
	tb, err := readTable(path)
	if err != nil {
		t.Fatal(err)
	}
	w := tb.Column("wall_s")
	for _, r := range tb.Rows {
		r[w] = ""
	}
	return tb
}

// TestSweepParquet: a Parquet result resumes like a CSV one (half the
// points as a shard, then the rest), and shards merge from Parquet and
// CSV alike into the same rows as one CSV run.
func TestSweepParquet(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "spec.toml")
	if err := os.WriteFile(spec, []byte(smallSpec), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) string {
		t.Helper()
		code, _, errs := tracesim(t, append([]string{"sweep", spec}, args...)...)
		if code != exitOK {
			t.Fatalf("sweep %v: exit %d: %s", args, code, errs)
		}
		return errs
	}
	csvOut, pq := filepath.Join(dir, "all.csv"), filepath.Join(dir, "all.parquet")
	// Progress: a line per tenth of the points when stderr is no
	// terminal, with the count, the rate and the time left.
	errs := run("-o", csvOut, "--jobs", "2")
	for _, want := range []string{
		"tracesim sweep: 12 points on 2 workers\n",
		"sweep ██████████░░░░░░░░░░ 6/12 points (50 %), ",
		"sweep ████████████████████ 12/12 points (100 %), ",
		"tracesim sweep: 12 points in ",
	} {
		if !strings.Contains(errs, want) {
			t.Errorf("progress lacks %q:\n%s", want, errs)
		}
	}
	// The last line has nothing left to wait for; its elapsed time is
	// whatever the machine took (a loaded CI run took over a second).
	if last := regexp.MustCompile(`12/12 points \(100 %\), [0-9.]+ points/s, elapsed [0-9]+s, ETA 0s\n`); !last.MatchString(errs) {
		t.Errorf("progress lacks a last line matching %q:\n%s", last, errs)
	}
	want := readResult(t, csvOut)

	run("-o", pq, "--shard", "1/2")
	if n := len(readResult(t, pq).Rows); n != 6 {
		t.Fatalf("shard 1/2: %d rows, want 6", n)
	}
	if errs := run("-o", pq); !strings.Contains(errs, "6 points already done, 6 to run") {
		t.Errorf("resume said %q", errs)
	}
	equalTables(t, readResult(t, pq), want)

	shards := filepath.Join(dir, "shards")
	os.Mkdir(shards, 0o755)
	run("-o", filepath.Join(shards, "a.parquet"), "--shard", "0/2")
	run("-o", filepath.Join(shards, "b.csv"), "--shard", "1/2")
	merged := filepath.Join(dir, "merged.parquet")
	if code, _, errs := tracesim(t, "sweep", "merge", shards, "-o", merged); code != exitOK || !strings.Contains(errs, "12 points from 2 files") {
		t.Fatalf("merge: exit %d: %s", code, errs)
	}
	equalTables(t, readResult(t, merged), want)

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-o", filepath.Join(dir, "r.json")}, "r.json: expected a .csv or .parquet file"},
		{[]string{}, "-o RESULT.csv is required"},
	} {
		code, _, errs := tracesim(t, append([]string{"sweep", spec}, c.args...)...)
		if code != exitUsage || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", c.args, code, errs, c.want)
		}
	}
}

// TestSweepResumeRefuses: a result of another spec is not mixed with
// this one's.
func TestSweepResumeRefuses(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "spec.toml")
	res := filepath.Join(dir, "res.csv")
	write := func(s string) {
		if err := os.WriteFile(spec, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(smallSpec)
	if code, _, errs := tracesim(t, "sweep", spec, "-o", res); code != exitOK {
		t.Fatalf("first run: %s", errs)
	}
	for _, c := range []struct{ spec, want string }{
		// Another axis: other columns.
		{smallSpec + "placement = [\"block\", \"random\"]\n", "res.csv: its columns are not this spec's"},
		// Fewer bandwidths: rows the spec does not have.
		{strings.Replace(smallSpec, `"10Gb/s", `, "", 1), "res.csv: row 1 (point 0) is not a point of this spec"},
	} {
		write(c.spec)
		code, _, errs := tracesim(t, "sweep", spec, "-o", res)
		if code != exitFail || !strings.Contains(errs, c.want) {
			t.Errorf("exit %d, %q; want 1 and %q", code, errs, c.want)
		}
	}
	// The same spec again: nothing to do.
	write(smallSpec)
	if code, _, errs := tracesim(t, "sweep", spec, "-o", res); code != exitOK || !strings.Contains(errs, "all 12 points already in") {
		t.Errorf("same spec: exit %d, %q", code, errs)
	}
}

// TestSweepSpecErrors: a spec that cannot run is refused with exit
// status 2 (a usage error, as docs/sweep.md says) and a message naming
// the spec's line, before anything runs and before the result or its
// journal is created.
func TestSweepSpecErrors(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "notrace.txt"), []byte("hello, not a trace\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "adir.tsim"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, spec string
		args       []string
		want       string
	}{
		{"toml syntax", "traces = [\"gen ring\"\n", nil, "spec.toml: line 1, column 21: expected a comma"},
		{"unknown key", "traces = [\"gen ring\"]\nbandwith = \"1Gb/s\"\n", nil, "spec.toml: line 2: bandwith: not a sim setting"},
		{"invalid point", "traces = [\"gen ring\"]\nmodel = \"packet\"\n[axes]\ntopology = [\"torus:2x4\", \"fattree:k=4,levels=2\"]\nrouting = [\"updown\"]\n", nil,
			`spec.toml: line 4: axes.topology: point topology=torus:2x4 routing=updown: routing "updown" is not valid on torus:2x4`},
		{"missing trace", "traces = [\n  \"gen ring\",\n  \"nofile.tsim\",\n]\n", nil, `spec.toml: line 3: traces: "nofile.tsim": open ` + filepath.Join(dir, "nofile.tsim") + ": no such file or directory"},
		{"not a trace", "traces = [\"notrace.txt\"]\n", nil, `spec.toml: line 1: traces: "notrace.txt": ` + filepath.Join(dir, "notrace.txt") + ": unrecognised trace format"},
		{"a directory", "traces = [\"gen ring\", \"adir.tsim\"]\n", nil, `spec.toml: line 1: traces: "adir.tsim": ` + filepath.Join(dir, "adir.tsim") + ": a directory, not a trace file"},
		{"gen pattern", "traces = [\"gen ring\",\n\"gen allreduce\"]\n", nil, `spec.toml: line 2: traces: "gen allreduce": gen: unknown pattern "allreduce"`},
		{"gen flag", "traces = [\"gen ring --rank 8\"]\n", nil, `spec.toml: line 1: traces: "gen ring --rank 8": gen: flag --rank 8:`},
		{"gen too large", "traces = [\"gen ring --ranks 64 --iters 400000\"]\n", nil,
			`spec.toml: line 1: traces: "gen ring --ranks 64 --iters 400000": makes 179200000 events, more than --max-gen-events 2000000`},
		{"gen over a lowered bound", "traces = [\"gen ring\"]\n", []string{"--max-gen-events", "10"}, `spec.toml: line 1: traces: "gen ring": makes 5600 events, more than --max-gen-events 10`},
		{"repetitions of nothing random", "traces = [\"gen ring\"]\nrepetitions = 3\n", nil, "spec.toml: line 2: repetitions: every repetition would give the same row"},
		{"no spec", "", nil, "sweep spec file " + filepath.Join(dir, "spec.toml") + ": "},
	} {
		t.Run(c.name, func(t *testing.T) {
			spec := filepath.Join(dir, "spec.toml")
			os.Remove(spec)
			if c.spec != "" {
				if err := os.WriteFile(spec, []byte(c.spec), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			res := filepath.Join(dir, "res.csv")
			code, _, errs := tracesim(t, append([]string{"sweep", spec, "-o", res}, c.args...)...)
			if code != exitUsage || !strings.Contains(errs, c.want) {
				t.Errorf("exit %d, %q; want 2 and %q", code, errs, c.want)
			}
			for _, f := range []string{res, res + ".part"} {
				if _, err := os.Stat(f); err == nil {
					t.Errorf("%s created by a spec that cannot run", f)
				}
			}
		})
	}
	// The bound raised, the large gen command is accepted (checked
	// here with --dry-run, which runs nothing).
	spec := filepath.Join(dir, "spec.toml")
	if err := os.WriteFile(spec, []byte("traces = [\"gen ring --ranks 64 --iters 400000\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := tracesim(t, "sweep", spec, "-o", filepath.Join(dir, "res.csv"), "--max-gen-events", "200000000", "--slurm", "--shards", "1", "--dry-run")
	if code != exitOK || !strings.Contains(out, "--max-gen-events 200000000 --shard") {
		t.Errorf("raised bound: exit %d, %s%s; want 0 and shard jobs that raise it too", code, out, errs)
	}
}

// TestSweepInterruptGen: ctrl+c while a spec's gen command makes a large
// trace stops the sweep within a second (the audit measured 37 s), and
// nothing is left behind, not even in TMPDIR: the trace is made in
// memory.
func TestSweepInterruptGen(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command")
	}
	bin := buildTracesim(t)
	dir, tmp := t.TempDir(), t.TempDir()
	spec := filepath.Join(dir, "spec.toml")
	if err := os.WriteFile(spec, []byte("traces = [\"gen ring --ranks 64 --iters 400000\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res := filepath.Join(dir, "res.csv")
	cmd := exec.Command(bin, "sweep", spec, "-o", res, "--jobs", "2", "--max-gen-events", "200000000")
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	// Half a second in, the 179,200,000 events are being made (a
	// minute's work).
	start := time.Now()
	took, err := interruptWhen(t, cmd, syscall.SIGINT, 60*time.Second, func() bool {
		return time.Since(start) > 500*time.Millisecond
	})
	if took > time.Second {
		t.Errorf("the sweep took %v to stop, want under a second", took)
	}
	if err == nil || !strings.Contains(stderr.String(), "interrupted before any point finished: nothing written") {
		t.Errorf("exit %v, stderr:\n%s", err, stderr.String())
	}
	// No result of no rows either.
	if _, err := os.Stat(res); err == nil {
		t.Errorf("%s written, with no point in it", res)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("left in TMPDIR: %v", left)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "res.csv.*")); len(left) != 0 {
		t.Errorf("left beside the result: %v", left)
	}
}

// TestSweepFailedPointsSaid: a point that cannot run (8 ranks on a
// 4-node torus) is a row with its error, and the sweep says how many
// failed instead of passing them over in silence.
func TestSweepFailedPointsSaid(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "spec.toml")
	body := "traces = [\"gen ring --ranks 8 --iters 2\"]\n[axes]\ntopology = [\"torus:2x2\", \"torus:2x4\"]\n"
	if err := os.WriteFile(spec, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "r.csv")
	code, _, errs := tracesim(t, "sweep", spec, "-o", out, "--quiet")
	if code != exitOK || !strings.Contains(errs, "1 of 2 points failed: see their error column in "+out) {
		t.Fatalf("exit %d, stderr %q; want 0 and the failed point counted", code, errs)
	}
	res := readResult(t, out)
	col := res.Column("error")
	if len(res.Rows) != 2 || res.Rows[0][col] == "" || res.Rows[1][col] != "" {
		t.Errorf("rows %q: want the torus:2x2 point's error and none for torus:2x4", res.Rows)
	}
}

// TestSweepStudyFixture: the Sweep view's fixture (views/sweep/testdata,
// whose goldens draw it) is what its spec gives today, so the goldens
// show the engine's numbers, not those of an older engine (8 of its 72
// makespans were stale once random placement took the run's seed).
func TestSweepStudyFixture(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 72 simulations")
	}
	out := filepath.Join(t.TempDir(), "study.csv")
	if code, _, errs := tracesim(t, "sweep", "../../views/sweep/testdata/study.toml", "-o", out, "--quiet"); code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	equalTables(t, readResult(t, out), readResult(t, "../../views/sweep/testdata/study.csv"))
}
