package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"

	"github.com/tracesim/tracesim/engine/sweep"
	"github.com/tracesim/tracesim/engine/sweep/parquetfile"
	"github.com/tracesim/tracesim/internal/atomicfile"
	"github.com/tracesim/tracesim/internal/userfile"
	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/tracefmt/formats"
	"github.com/tracesim/tracesim/tracefmt/gen"
	"github.com/tracesim/tracesim/tracefmt/units"
)

// sweepSpecLimit bounds a spec file: a page of settings, not data.
const sweepSpecLimit = 1 << 20

// sweepCommand is `tracesim sweep SPEC -o RESULT`, with its subcommands merge and show.
func sweepCommand(e *env) *cobra.Command {
	cc := newCommand("sweep", "run a parameter sweep of simulations on every core or on a Slurm cluster", "SPEC.toml -o RESULT.csv|RESULT.parquet [--jobs N] [--shard I/N | --slurm --shards N]",
		"Run a parameter sweep: one simulation per point of the spec's grid of machine\n"+
			"settings, on every core, one row per point (docs/sweep.md). Re-running the same\n"+
			"command skips the points already in RESULT: an interrupted sweep resumes.\n\n"+
			"  tracesim sweep merge DIR -o RESULT   merge the shards' results in DIR\n"+
			"  tracesim sweep show RESULT           plot and browse a result in the terminal")
	cc.AddCommand(sweepMergeCommand(e), sweepShowCommand(e))
	fs := cc.Flags()
	out := outputFlag(cc, "result file, .csv or .parquet (required)")
	jobs := fs.Int("jobs", 0, "simulations run at once (default: one per CPU)")
	shard := fs.String("shard", "", "run only shard I of N (I/N, 0 ≤ I < N): every N-th point from the I-th")
	quiet := fs.Bool("quiet", false, "no progress on stderr")
	maxGen := fs.Int("max-gen-events", defaultMaxGenEvents, "largest trace a gen command of the spec may make, in events (each worker holds one in memory)")
	var sl slurmFlags
	sl.register(fs)
	cc.Args = argCount(1, 1)
	e.runs(cc, func(pos []string) int {
		if *out == "" {
			fmt.Fprintln(e.stderr, "tracesim sweep: -o RESULT.csv is required")
			usageHint(e, "sweep")
			return exitUsage
		}
		if err := checkResultName(*out); err != nil {
			fmt.Fprintf(e.stderr, "tracesim sweep: -o %v\n", err)
			return exitUsage
		}
		if *jobs < 0 {
			fmt.Fprintln(e.stderr, "tracesim sweep: --jobs: expected a number ≥ 0")
			return exitUsage
		}
		if *maxGen < 1 {
			fmt.Fprintln(e.stderr, "tracesim sweep: --max-gen-events: expected a number ≥ 1")
			return exitUsage
		}
		// A spec that cannot run is a usage error (exit 2), found before
		// anything runs or the result is touched.
		spec, err := loadSpec(pos[0])
		if err != nil {
			return usageFail(e, "sweep", err)
		}
		points, err := spec.Expand()
		if err != nil {
			return usageFail(e, "sweep", fmt.Errorf("%s: %w", pos[0], err))
		}
		if err := checkTraces(spec, *maxGen); err != nil {
			return usageFail(e, "sweep", err)
		}
		if sl.slurm || sl.dryRun {
			if *shard != "" {
				fmt.Fprintln(e.stderr, "tracesim sweep: --shard and --slurm: the Slurm jobs choose their shards")
				return exitUsage
			}
			if *maxGen != defaultMaxGenEvents {
				sl.genArgs = fmt.Sprintf(" --max-gen-events %d", *maxGen)
			}
			return sl.run(e, pos[0], *out, *jobs, len(points))
		}
		if sl.given() {
			fmt.Fprintln(e.stderr, "tracesim sweep: --shards, --partition, --time and --wait go with --slurm or --dry-run")
			return exitUsage
		}
		if *shard != "" {
			i, n, err := sweep.ParseShard(*shard)
			if err != nil {
				fmt.Fprintf(e.stderr, "tracesim sweep: --%v\n", err)
				return exitUsage
			}
			points = sweep.Shard(points, i, n)
		}
		return sweepRun(e, spec, points, *out, *jobs, *quiet)
	})
	return cc
}

// defaultMaxGenEvents bounds the traces a spec's gen commands make, as
// the TUI bounds a result's (tui/sweepresult.go): 2,000,000 events are
// about 40 MB in memory per worker and a second to make.
const defaultMaxGenEvents = 2_000_000

// usageFail prints an error for command name and returns exitUsage: the
// arguments (a spec) cannot run.
func usageFail(e *env, name string, err error) int {
	fmt.Fprintf(e.stderr, "tracesim %s: %v\n", name, err)
	return exitUsage
}

// checkTraces checks the spec's traces before anything runs: every file
// exists, is readable and is of a format tracesim reads (a SimGrid TI
// index's rank files too), and no gen command makes more than maxGen
// events. Errors name the spec's line.
func checkTraces(spec *sweep.Spec, maxGen int) error {
	for i := range spec.Traces {
		ref := &spec.Traces[i]
		if ref.Gen != nil {
			if ref.GenEvents > maxGen {
				return fmt.Errorf("%s: makes %d events, more than --max-gen-events %d (each worker holds the trace in memory; raise the limit if it fits)",
					ref.At(spec.File), ref.GenEvents, maxGen)
			}
			continue
		}
		if err := checkTraceFile(ref.Path); err != nil {
			return fmt.Errorf("%s: %w", ref.At(spec.File), err)
		}
	}
	return nil
}

// checkTraceFile opens a trace file and the files it lists, and detects
// its format from its first bytes: what fails before the file is read.
func checkTraceFile(path string) error {
	files, err := formats.InputFiles(path, "")
	if err != nil {
		return err
	}
	for i, name := range files {
		f, err := os.Open(name)
		if err != nil {
			return err
		}
		st, err := f.Stat()
		if err == nil && st.IsDir() {
			err = fmt.Errorf("%s: a directory, not a trace file", name)
		}
		head := make([]byte, formats.SniffLen)
		var n int
		if err == nil {
			n, err = io.ReadFull(f, head)
			if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
				err = nil
			}
		}
		f.Close()
		if err != nil {
			return err
		}
		if i == 0 {
			if _, err := formats.Detect(name, head[:n]); err != nil {
				return err
			}
		}
	}
	return nil
}

// loadSpec reads and parses a spec file.
func loadSpec(path string) (*sweep.Spec, error) {
	data, err := userfile.ReadAll(userfile.OS, "sweep spec", path, sweepSpecLimit)
	if err != nil {
		return nil, err
	}
	return sweep.ParseFile(path, data)
}

// sweepRun runs the points of spec missing from out and leaves out with
// every finished point, in point order. Rows are journaled to out.part
// as they finish, so that a killed run loses nothing; out is written
// (atomically) and the journal removed when the run ends or is
// interrupted.
func sweepRun(e *env, spec *sweep.Spec, points []sweep.Point, out string, jobs int, quiet bool) int {
	part := out + ".part"
	_, err := os.Stat(out)
	outExisted := err == nil
	have, oldPart, err := readResults(spec, out, part)
	if err != nil {
		return fail(e, "sweep", err)
	}
	if oldPart {
		// The journal's header has no machine column, which the rows
		// appended now have: its rows go to out first, and a new
		// journal starts.
		if err := finishResults(out, part, have); err != nil {
			return fail(e, "sweep", err)
		}
	}
	done := make(map[string]bool, len(have.Rows))
	for _, r := range have.Rows {
		done[have.Key(r)] = true
	}
	var todo []sweep.Point
	for i := range points {
		if !done[spec.PointKey(&points[i])] {
			todo = append(todo, points[i])
		}
	}
	if len(todo) == 0 {
		if err := finishResults(out, part, have); err != nil {
			return fail(e, "sweep", err)
		}
		if !quiet {
			fmt.Fprintf(e.stderr, "tracesim sweep: all %d points already in %s\n", len(points), out)
		}
		return exitOK
	}

	f, err := os.OpenFile(part, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fail(e, "sweep", err)
	}
	var header []string
	if st, err := f.Stat(); err == nil && st.Size() == 0 {
		header = spec.Columns()
	}
	journal, err := sweep.NewJournal(f, header)
	if err != nil {
		f.Close()
		return fail(e, "sweep", fmt.Errorf("%s: %w", part, err))
	}
	if jobs <= 0 {
		jobs = runtime.NumCPU()
	}
	prog := newSweepProgress(e, len(todo), len(points)-len(todo), min(jobs, len(todo)), quiet)
	runErr := spec.Run(e.ctx, todo, sweep.Options{Jobs: jobs, Load: loadTrace}, func(p *sweep.Point, row []string) error {
		if err := journal.Append(row); err != nil {
			return fmt.Errorf("%s: %w", part, err)
		}
		have.Rows = append(have.Rows, row)
		prog.step()
		return nil
	})
	prog.finish()
	if err := f.Close(); err != nil && runErr == nil {
		runErr = fmt.Errorf("%s: %w", part, err)
	}
	if len(have.Rows) == 0 && !outExisted {
		// Nothing finished (interrupted while a trace was made, or a
		// trace failed to load): no result of no rows to mistake for
		// one, and no journal.
		if err := os.Remove(part); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fail(e, "sweep", err)
		}
	} else if err := finishResults(out, part, have); err != nil {
		return fail(e, "sweep", err)
	}
	finished := prog.n
	switch {
	case runErr != nil && errors.Is(runErr, context.Canceled) && len(have.Rows) == 0 && !outExisted:
		fmt.Fprintf(e.stderr, "tracesim sweep: interrupted before any point finished: nothing written\n")
		return exitFail
	case runErr != nil && errors.Is(runErr, context.Canceled):
		fmt.Fprintf(e.stderr, "tracesim sweep: interrupted: %d of %d points in %s; run the same command again to finish\n",
			len(points)-len(todo)+finished, len(points), out)
		return exitFail
	case runErr != nil:
		return fail(e, "sweep", runErr)
	}
	if !quiet {
		el := time.Since(prog.start).Seconds()
		fmt.Fprintf(e.stderr, "tracesim sweep: %d points in %s (%.3g points/s) → %s\n", finished, units.FormatDuration(el), float64(finished)/el, out)
	}
	// A point that could not run is a row with its error, not a failed
	// sweep (the other points stand); it must not pass unseen.
	if n := failedPoints(have); n > 0 {
		fmt.Fprintf(e.stderr, "tracesim sweep: %d of %d points failed: see their error column in %s\n", n, len(have.Rows), out)
	}
	return exitOK
}

// failedPoints counts the rows of t with an error.
func failedPoints(t *sweep.Table) int {
	col := t.Column("error")
	if col < 0 {
		return 0
	}
	n := 0
	for _, row := range t.Rows {
		if col < len(row) && row[col] != "" {
			n++
		}
	}
	return n
}

// readResults reads the rows already computed: out, then the journal of
// an interrupted run. Their columns must be the spec's, and every row a
// point of the spec (its point number is renumbered to the spec's).
// oldPart is true when the journal was written before the machine
// column existed.
func readResults(spec *sweep.Spec, out, part string) (have *sweep.Table, oldPart bool, err error) {
	have = &sweep.Table{Columns: spec.Columns()}
	points, err := spec.Expand()
	if err != nil {
		return nil, false, err
	}
	index := make(map[string]int, len(points))
	for i := range points {
		index[spec.PointKey(&points[i])] = points[i].Index
	}
	for _, name := range []string{out, part} {
		t, err := readTable(name)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, false, err
		}
		if len(t.Columns) == 0 {
			continue
		}
		// A result or journal from before the machine column: its
		// points ran on this spec's machine, as every row resumed does.
		if t.Column(sweep.MachineColumn) < 0 {
			oldPart = oldPart || name == part
			t.AddMachine(spec.Machine())
		}
		if !slices.Equal(t.Columns, have.Columns) {
			return nil, false, fmt.Errorf("%s: its columns are not this spec's (%s); give another -o or remove it",
				name, strings.Join(have.Columns, ","))
		}
		machine, mc := spec.Machine(), t.Column(sweep.MachineColumn)
		for k, r := range t.Rows {
			if r[mc] != machine {
				return nil, false, fmt.Errorf("%s: row %d (point %s) ran on another machine (%q) than this spec's (%q); give another -o or remove it", name, k+1, r[0], r[mc], machine)
			}
			i, ok := index[t.Key(r)]
			if !ok {
				return nil, false, fmt.Errorf("%s: row %d (point %s) is not a point of this spec; give another -o or remove it", name, k+1, r[0])
			}
			r[0] = fmt.Sprint(i)
		}
		if err := have.Merge(name, t); err != nil {
			return nil, false, err
		}
	}
	return have, oldPart, nil
}

// finishResults writes t to out in point order, atomically, then removes
// the journal whose rows it now holds.
func finishResults(out, part string, t *sweep.Table) error {
	if err := writeTable(out, t); err != nil {
		return err
	}
	if err := os.Remove(part); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// loadTrace reads a trace of the sweep, or makes it in memory when it is
// a gen command: nothing is written, so a killed sweep leaves no
// generated file behind, and a resumed one makes the same trace again.
// Both stop when ctx is cancelled.
func loadTrace(ctx context.Context, ref sweep.TraceRef) (*tracefmt.Trace, error) {
	if ref.Gen != nil {
		return gen.GenerateContext(ctx, ref.GenOptions)
	}
	return load(&env{ctx: ctx, stdout: io.Discard, stderr: io.Discard}, ref.Path, "")
}

// sweepProgress shows points done, the rate and the time left: one
// line rewritten in place on a terminal, a line per tenth otherwise.
type sweepProgress struct {
	w       io.Writer
	tty     bool
	quiet   bool
	total   int
	skipped int
	jobs    int
	n       int
	start   time.Time
	last    time.Time
	mu      sync.Mutex
}

func newSweepProgress(e *env, total, skipped, jobs int, quiet bool) *sweepProgress {
	p := &sweepProgress{w: e.stderr, total: total, skipped: skipped, jobs: jobs, quiet: quiet, start: time.Now()}
	if f, ok := e.stderr.(*os.File); ok && term.IsTerminal(f.Fd()) {
		p.tty = true
	}
	if !quiet {
		if skipped > 0 {
			fmt.Fprintf(p.w, "tracesim sweep: %d points already done, %d to run on %d workers\n", skipped, total, jobs)
		} else {
			fmt.Fprintf(p.w, "tracesim sweep: %d points on %d workers\n", total, jobs)
		}
	}
	return p
}

func (p *sweepProgress) step() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.n++
	if p.quiet {
		return
	}
	now := time.Now()
	tenth := max(p.total/10, 1)
	if p.tty && now.Sub(p.last) < 100*time.Millisecond && p.n < p.total {
		return
	}
	if !p.tty && p.n%tenth != 0 && p.n < p.total {
		return
	}
	p.last = now
	el := now.Sub(p.start).Seconds()
	eta := el / float64(p.n) * float64(p.total-p.n)
	const barW = 20
	fill := barW * p.n / p.total
	line := fmt.Sprintf("sweep %s%s %d/%d points (%s), %.3g points/s, elapsed %s, ETA %s",
		strings.Repeat("█", fill), strings.Repeat("░", barW-fill),
		p.n, p.total, units.FormatPercent(float64(100*p.n/p.total)/100, 0), float64(p.n)/el, formatSeconds(el), formatSeconds(eta))
	if p.tty {
		fmt.Fprintf(p.w, "\r\x1b[K%s", line)
	} else {
		fmt.Fprintln(p.w, line)
	}
}

func (p *sweepProgress) finish() {
	if p.tty && !p.quiet && p.n > 0 {
		fmt.Fprintln(p.w)
	}
}

// formatSeconds writes a wall-clock duration to the second: 42s, 3m05s,
// 1h02m.
func formatSeconds(s float64) string { return units.FormatElapsed(s) }

// sweepMergeCommand is `tracesim sweep merge DIR -o RESULT`.
func sweepMergeCommand(e *env) *cobra.Command {
	cc := newCommand("sweep merge", "merge the results of a sharded sweep", "DIR -o RESULT.csv|RESULT.parquet",
		"Merge the results of a sharded sweep: every .csv and .parquet file in DIR (the shards'\n"+
			"outputs), checked to be of one spec, into one result in point order.")
	out := outputFlag(cc, "merged result file, .csv or .parquet (required)")
	cc.Args = argCount(1, 1)
	e.runs(cc, func(pos []string) int {
		if *out == "" {
			fmt.Fprintln(e.stderr, "tracesim sweep merge: -o RESULT.csv is required")
			return exitUsage
		}
		if err := checkResultName(*out); err != nil {
			fmt.Fprintf(e.stderr, "tracesim sweep merge: -o %v\n", err)
			return exitUsage
		}
		t, n, err := mergeDir(pos[0])
		if err != nil {
			return fail(e, "sweep merge", err)
		}
		if err := writeTable(*out, t); err != nil {
			return fail(e, "sweep merge", err)
		}
		fmt.Fprintf(e.stderr, "tracesim sweep merge: %d points from %d files → %s\n", len(t.Rows), n, *out)
		return exitOK
	})
	return cc
}

// mergeDir reads the .csv and .parquet results in dir (not their
// journals) into one table.
func mergeDir(dir string) (*sweep.Table, int, error) {
	var names []string
	for _, pat := range []string{"*.csv", "*.parquet"} {
		n, err := filepath.Glob(filepath.Join(dir, pat))
		if err != nil {
			return nil, 0, err
		}
		names = append(names, n...)
	}
	if len(names) == 0 {
		return nil, 0, fmt.Errorf("%s: no .csv or .parquet results to merge", dir)
	}
	t := &sweep.Table{}
	for _, name := range names {
		o, err := readTable(name)
		if err != nil {
			return nil, 0, err
		}
		if err := t.Merge(name, o); err != nil {
			return nil, 0, err
		}
	}
	return t, len(names), nil
}

// checkResultName accepts a result file name: .csv or .parquet.
func checkResultName(name string) error {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".csv", ".parquet":
		return nil
	}
	return fmt.Errorf("%s: expected a .csv or .parquet file", name)
}

// readTable reads a result, CSV or Parquet by its extension (journals,
// .part, are CSV).
func readTable(name string) (*sweep.Table, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", name)
	}
	if strings.EqualFold(filepath.Ext(name), ".parquet") {
		return parquetfile.Read(name, f, st.Size())
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, err
	}
	return sweep.ReadCSV(name, data)
}

// writeTable writes a result atomically in point order, CSV or Parquet
// by its extension.
func writeTable(name string, t *sweep.Table) error {
	t.Sort()
	if strings.EqualFold(filepath.Ext(name), ".parquet") {
		return atomicfile.Write(name, func(w io.Writer) error { return parquetfile.Write(w, t) })
	}
	return atomicfile.Write(name, t.WriteCSV)
}
