package main

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tracesim/tracesim/internal/memlatency"
	"github.com/tracesim/tracesim/internal/simgrid"
	"github.com/tracesim/tracesim/tracefmt/gen"
	"github.com/tracesim/tracesim/tracefmt/units"
)

// defaultScalePoints are bench --scale's traces: 1 M to 100 M events at
// 64 ranks, and 10 M events at 64, 4,096 and 65,536 ranks.
const defaultScalePoints = "1M@64,10M@64,50M@64,100M@64,10M@4096,10M@65536"

// scalePoint is one generated trace of bench --scale.
type scalePoint struct {
	events, ranks int
}

// parseScalePoints reads "EVENTS@RANKS,…" with k, M suffixes on events.
func parseScalePoints(s string) ([]scalePoint, error) {
	var pts []scalePoint
	for _, f := range strings.Split(s, ",") {
		ev, rk, ok := strings.Cut(strings.TrimSpace(f), "@")
		mult := 1
		switch {
		case strings.HasSuffix(ev, "M"):
			ev, mult = strings.TrimSuffix(ev, "M"), 1_000_000
		case strings.HasSuffix(ev, "k"):
			ev, mult = strings.TrimSuffix(ev, "k"), 1000
		}
		n, err1 := strconv.Atoi(ev)
		p, err2 := strconv.Atoi(rk)
		if !ok || err1 != nil || err2 != nil || n < 1 || p < 2 {
			return nil, fmt.Errorf("--points: %q: expected EVENTS@RANKS such as 10M@4096", f)
		}
		pts = append(pts, scalePoint{n * mult, p})
	}
	return pts, nil
}

// scaleStages are the commands bench --scale times on each trace, each in
// a process of its own so that its peak resident size is its own.
var scaleStages = []scaleStage{
	{"info", []string{"info"}},
	{"check", []string{"check"}},
	{"sim analytic", []string{"sim", "--model", "puppet"}},
	{"sim flow", []string{"sim", "--model", "flow", "--sample-period", "0"}},
	{"sim packet", []string{"sim", "--model", "packet", "--sample-period", "0"}},
}

// scaleStage is one command bench --scale times: its name in the table
// and its arguments before the trace's path.
type scaleStage struct {
	name string
	args []string
}

// selectScaleStages returns the stages whose name matches the regular
// expression runRe, in the table's order: all of them when it is empty,
// an error when it is not a regular expression or matches none (a run
// that times nothing would print an empty table).
func selectScaleStages(runRe string) ([]scaleStage, error) {
	re, err := regexp.Compile(runRe)
	if err != nil {
		return nil, err
	}
	var out []scaleStage
	for _, st := range scaleStages {
		if re.MatchString(st.name) {
			out = append(out, st)
		}
	}
	if len(out) == 0 {
		names := make([]string, len(scaleStages))
		for i, st := range scaleStages {
			names[i] = strconv.Quote(st.name)
		}
		return nil, fmt.Errorf("%q matches no stage of --scale (%s)", runRe, strings.Join(names, ", "))
	}
	return out, nil
}

// runBenchScale generates a stencil2d trace for every point and times the
// stages on it: wall time and trace events per wall second (the whole
// process as a user waits for it, its reader's decoding spread over the
// cores), CPU time (user + system), trace events per CPU second and
// peak resident bytes per event (the child's maximum RSS
// over the trace's events). NET B/EVENT is what each event adds: the
// stage's peak less its peak on the same generator's one-iteration trace
// at the same rank count, over the events more. Peak ÷ events carries the
// process's fixed start (binary, runtime, ~20 MB) and the per-rank state,
// which dominate a trace of a few million events; the net figure is the
// trace's own cost. The rate is per CPU second because the wall
// time of a process on a shared, loaded machine measures the other
// processes as much as this one: comparing per-event costs across sizes
// and rank counts needs the time the process itself ran. Every stage
// reads the trace, so "load" is part of each; info is mostly load.
// Each stage runs repeat times: its row is the run of median CPU time,
// with the largest peak of the runs. USER NS/EVENT is the median of the
// runs' user time alone: on a virtual machine that hands freed memory
// back to its host (free page reporting), the first touch of fresh pages
// costs system time that moves from 0.1 to 0.9 s between identical runs
// of a 400 MB trace, whatever the process does; user time is the
// process's own work. The spread is printed over both.
// Only the stages whose name matches runRe run (all when it is empty).
func runBenchScale(e *env, points, runRe string, repeat int) int {
	pts, err := parseScalePoints(points)
	if err != nil {
		fmt.Fprintf(e.stderr, "tracesim bench: %v\n", err)
		return exitUsage
	}
	stages, err := selectScaleStages(runRe)
	if err != nil {
		fmt.Fprintf(e.stderr, "tracesim bench: --run: %v\n", err)
		return exitUsage
	}
	exe, err := os.Executable()
	if err != nil {
		return fail(e, "bench", err)
	}
	dir, err := os.MkdirTemp("", "tracesim-bench-scale-")
	if err != nil {
		return fail(e, "bench", err)
	}
	defer os.RemoveAll(dir)
	// Fixed columns rather than a tabwriter: each line is printed as
	// soon as its stage has run.
	const row = "%11s %7s  %-13s %10s %14s %10s %13s %13s %14s %13s %12s\n"
	fmt.Fprintf(e.stdout, row, "EVENTS", "RANKS", "STAGE", "WALL", "MEVENTS/WALL-S", "CPU", "MEVENTS/CPU-S", "CPU NS/EVENT", "USER NS/EVENT", "PEAK B/EVENT", "NET B/EVENT")
	// perEvent[i] and userPerEvent[i] hold stage i's CPU and user
	// nanoseconds per event at each point, for the spread printed at
	// the end.
	perEvent := make([][]float64, len(stages))
	userPerEvent := make([][]float64, len(stages))
	// bases[ranks][i] is stage i's peak on the one-iteration trace.
	bases := map[int][]int64{}
	for _, pt := range pts {
		c, err := gen.Expect(scaleGenOptions(pt.ranks, 1))
		if err != nil {
			return fail(e, "bench", err)
		}
		iters := max(1, pt.events/max(c.Events, 1))
		all, err := gen.Expect(scaleGenOptions(pt.ranks, iters))
		if err != nil {
			return fail(e, "bench", err)
		}
		n := all.Events
		base, ok := bases[pt.ranks]
		if !ok {
			if base, err = scaleBase(e, exe, dir, pt.ranks, stages); err != nil {
				return fail(e, "bench", err)
			}
			bases[pt.ranks] = base
		}
		path, err := genScaleTrace(e, exe, dir, pt.ranks, iters)
		if err != nil {
			return fail(e, "bench", err)
		}
		for i, st := range stages {
			u, err := medianChild(e, exe, append(append([]string{}, st.args...), path), repeat)
			if err != nil {
				return fail(e, "bench", fmt.Errorf("%s on %d events at %d ranks: %w", st.name, n, pt.ranks, err))
			}
			net := "-"
			if n > c.Events {
				net = fmt.Sprintf("%.0f", float64(u.rss-base[i])/float64(n-c.Events))
			}
			ns, userNs := scaleNsPerEvent(u.cpu, n), scaleNsPerEvent(u.user, n)
			fmt.Fprintf(e.stdout, row, strconv.Itoa(n), strconv.Itoa(pt.ranks), st.name, u.wall.Round(time.Millisecond),
				fmt.Sprintf("%.3g", float64(n)/max(u.wall.Seconds(), 1e-9)/1e6),
				u.cpu.Round(time.Millisecond), fmt.Sprintf("%.3g", float64(n)/max(u.cpu.Seconds(), 1e-9)/1e6),
				strconv.FormatFloat(ns, 'f', 0, 64), strconv.FormatFloat(userNs, 'f', 0, 64),
				fmt.Sprintf("%.0f", float64(u.rss)/float64(n)), net)
			perEvent[i] = append(perEvent[i], ns)
			userPerEvent[i] = append(userPerEvent[i], userNs)
		}
		os.Remove(path)
	}
	if len(pts) > 1 {
		// How far the cost per event moves across sizes and rank
		// counts: issue #19 bounds max/min at 1.2.
		const spread = "%-13s %13s %13s %8s %14s %14s %13s\n"
		fmt.Fprintf(e.stdout, "\n"+spread, "STAGE", "MIN NS/EVENT", "MAX NS/EVENT", "MAX/MIN", "MIN USER NS/EV", "MAX USER NS/EV", "USER MAX/MIN")
		for i, st := range stages {
			lo, hi := slices.Min(perEvent[i]), slices.Max(perEvent[i])
			ulo, uhi := slices.Min(userPerEvent[i]), slices.Max(userPerEvent[i])
			fmt.Fprintf(e.stdout, spread, st.name, fmt.Sprintf("%.0f", lo), fmt.Sprintf("%.0f", hi), scaleRatio(hi, lo),
				fmt.Sprintf("%.0f", ulo), fmt.Sprintf("%.0f", uhi), scaleRatio(uhi, ulo))
		}
	}
	if err := printMemoryCurve(e.stdout); err != nil {
		return fail(e, "bench", err)
	}
	return exitOK
}

// scaleMemorySizes are the working sets of bench --scale's memory curve:
// from one core's second-level cache to well beyond any last level.
var scaleMemorySizes = []int{256 << 10, 1 << 20, 2 << 20, 4 << 20, 8 << 20, 16 << 20, 64 << 20}

// scaleMemoryLoads is the number of timed loads at each size: about 0.2 s
// at main memory's latency.
const scaleMemoryLoads = 1 << 20

// printMemoryCurve prints this machine's latency of a dependent load by
// the memory it walks (internal/memlatency). The simulations' cost per
// event across rank counts follows it: their per-rank, per-link and
// per-message state grows with the ranks, and where it outgrows the last
// cache level each event's touches of it cost main memory's latency.
func printMemoryCurve(w io.Writer) error {
	fmt.Fprintf(w, "\nMEMORY: a load whose address depends on the load before, walking a working set at random (this machine's caches)\n")
	fmt.Fprintf(w, "%12s %10s\n", "WORKING SET", "NS/LOAD")
	for _, size := range scaleMemorySizes {
		p, err := memlatency.Measure(size, scaleMemoryLoads)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "%12s %10.1f\n", units.FormatBytes(int64(p.Bytes)), p.NsPerLoad)
	}
	return nil
}

// scaleRatio is hi/lo to two decimals, or "-" where lo is 0: the kernel
// splits a process's CPU time into user and system by the clock ticks it
// sampled, so a run of a few milliseconds can show no user time at all.
func scaleRatio(hi, lo float64) string {
	if lo <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f", hi/lo)
}

// scaleNsPerEvent is cpu over n events in whole nanoseconds, rounded
// once, half away from zero. Each row prints it and the spread is
// taken over it: formatting the quotient with %.0f in one place and
// rounding it in the other disagreed on halves (%.0f rounds them to
// even), so a row said 3822 where the spread said 3823.
func scaleNsPerEvent(cpu time.Duration, n int) float64 {
	return math.Round(float64(cpu.Nanoseconds()) / float64(max(n, 1)))
}

// scaleGenOptions are the options of bench --scale's stencil2d trace:
// no computation, so that the stages' work is the communication's. The
// events each point is divided by are counted with these same options
// (counting with the pattern's default computation once overstated them
// by a tenth).
func scaleGenOptions(ranks, iters int) gen.Options {
	return gen.Options{Pattern: "stencil2d", Ranks: ranks, Iters: iters, Compute: 0}
}

// scaleGenArgs are the `tracesim gen` arguments that write the trace of
// scaleGenOptions to path.
func scaleGenArgs(ranks, iters int, path string) []string {
	o := scaleGenOptions(ranks, iters)
	return []string{"gen", o.Pattern, "--ranks", strconv.Itoa(o.Ranks), "--iters", strconv.Itoa(o.Iters),
		"--compute", strconv.FormatFloat(o.Compute, 'g', -1, 64), "-o", path}
}

// genScaleTrace writes bench --scale's stencil2d trace of iters
// iterations at ranks ranks into dir and returns its path.
func genScaleTrace(e *env, exe, dir string, ranks, iters int) (string, error) {
	path := filepath.Join(dir, fmt.Sprintf("s%d-%d.tsim", iters, ranks))
	if _, err := benchChild(e, exe, scaleGenArgs(ranks, iters, path)); err != nil {
		return "", fmt.Errorf("gen: %w", err)
	}
	return path, nil
}

// scaleBase returns each stage's peak resident bytes on the
// one-iteration trace at ranks ranks: the fixed part NET B/EVENT leaves
// out.
func scaleBase(e *env, exe, dir string, ranks int, stages []scaleStage) ([]int64, error) {
	path, err := genScaleTrace(e, exe, dir, ranks, 1)
	if err != nil {
		return nil, err
	}
	defer os.Remove(path)
	base := make([]int64, len(stages))
	for i, st := range stages {
		u, err := benchChild(e, exe, append(append([]string{}, st.args...), path))
		if err != nil {
			return nil, fmt.Errorf("%s on one iteration at %d ranks: %w", st.name, ranks, err)
		}
		base[i] = u.rss
	}
	return base, nil
}

// medianChild runs the binary with args repeat times, one run after the
// other, and returns the run of median CPU time (the lower middle one of
// an even count) with the largest peak of all runs. On a shared two-core
// machine a single run moves by ±15 %; the median of three moves far
// less, and the peak is a bound, so the largest is the honest one.
func medianChild(e *env, exe string, args []string, repeat int) (childUsage, error) {
	runs := make([]childUsage, 0, repeat)
	for range max(repeat, 1) {
		u, err := benchChild(e, exe, args)
		if err != nil {
			return childUsage{}, err
		}
		runs = append(runs, u)
	}
	return medianUsage(runs), nil
}

// medianUsage is the run of median CPU time among runs (the lower middle
// one of an even count), with the largest peak of them all and the
// median user time of them all (the user time of another run when the
// system time ordered them differently).
func medianUsage(runs []childUsage) childUsage {
	var peak int64
	for _, u := range runs {
		peak = max(peak, u.rss)
	}
	sorted := slices.SortedStableFunc(slices.Values(runs), func(a, b childUsage) int { return cmp.Compare(a.cpu, b.cpu) })
	u := sorted[(len(sorted)-1)/2]
	u.rss = peak
	users := make([]time.Duration, len(runs))
	for i, r := range runs {
		users[i] = r.user
	}
	slices.Sort(users)
	u.user = users[(len(users)-1)/2]
	return u
}

// childUsage is what a child process of a benchmark used: wall time,
// CPU time (user + system), user time alone and peak resident bytes.
type childUsage struct {
	wall, cpu, user time.Duration
	rss             int64
}

// benchChild runs the binary with args and returns what it used.
func benchChild(e *env, exe string, args []string) (childUsage, error) {
	cmd := exec.CommandContext(e.ctx, exe, args...)
	cmd.Stdout = io.Discard
	var stderr strings.Builder
	cmd.Stderr = &stderr
	start := time.Now()
	if err := cmd.Run(); err != nil {
		return childUsage{}, fmt.Errorf("%v: %s", err, strings.TrimSpace(stderr.String()))
	}
	user := cmd.ProcessState.UserTime()
	u := childUsage{wall: time.Since(start), cpu: user + cmd.ProcessState.SystemTime(), user: user}
	u.rss = simgrid.PeakRSS(cmd.ProcessState)
	return u, nil
}
