package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
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
	"unicode/utf8"

	"github.com/tracesim/tracesim/internal/simgrid"
	"github.com/tracesim/tracesim/tracefmt/units"
)

// simgridCase is one trace and platform of `tracesim bench --simgrid`, as
// testdata/simgrid/bench/record.sh writes them into its directory.
type simgridCase struct {
	name     string // e.g. "cg64/star"
	index    string // the trace's index, relative to the directory
	ranks    int
	platform string // platform file, relative to the directory
	hostfile string
}

// simgridCases are the traces record.sh records (a CG-like run on 64
// ranks, a 2-D stencil on 256, each ≥ 1 M actions), each on a star and a
// torus cluster of the same hosts and links.
func simgridCases() []simgridCase {
	return []simgridCase{
		{"cg64/star", "cg64/cg.txt", 64, "star64.xml", "hosts64"},
		{"cg64/torus", "cg64/cg.txt", 64, "torus64.xml", "hosts64"},
		{"stencil256/star", "stencil256/stencil.txt", 256, "star256.xml", "hosts256"},
		{"stencil256/torus", "stencil256/stencil.txt", 256, "torus256.xml", "hosts256"},
	}
}

// simgridRun is one measured process: its wall time, its CPU time (user
// and system, with the processes it waited for), its peak resident set
// size and the makespan it printed.
type simgridRun struct {
	Wall     float64 `json:"wall_s"`
	CPU      float64 `json:"cpu_s"`
	PeakRSS  int64   `json:"peak_rss_bytes"`
	Makespan float64 `json:"makespan_s"`
}

// simgridResult is one case of `tracesim bench --simgrid`: the paired
// runs of smpirun -replay and of `tracesim sim` with the flow model
// (--preset simgrid) and with the contention-free simgrid model.
type simgridResult struct {
	Case     string       `json:"case"`
	Actions  int64        `json:"actions"`
	Ranks    int          `json:"ranks"`
	SimGrid  []simgridRun `json:"smpirun"`
	Flow     []simgridRun `json:"flow"`
	Analytic []simgridRun `json:"analytic"`
	// Ratios are medians of the paired ratios smpirun / tracesim.
	FlowWallRatio     float64 `json:"flow_wall_ratio"`
	AnalyticWallRatio float64 `json:"analytic_wall_ratio"`
	FlowCPURatio      float64 `json:"flow_cpu_ratio"`
	AnalyticCPURatio  float64 `json:"analytic_cpu_ratio"`
	// Memory ratios compare the largest peak of each side.
	FlowMemRatio     float64 `json:"flow_mem_ratio"`
	AnalyticMemRatio float64 `json:"analytic_mem_ratio"`
}

// simChild is how `tracesim bench --simgrid` starts `tracesim sim`: the
// executable and extra environment (tests start their own binary).
type simChild struct {
	path string
	env  []string
}

// benchSimGrid runs `tracesim bench --simgrid DIR`: for every case whose
// files are in dir, repeat times, smpirun -replay and `tracesim sim` one
// after the other (the order alternating between repeats, so that a
// change of the machine's load hits both), each a child process measured
// by its wall time and its peak RSS (wait4's rusage).
func benchSimGrid(e *env, child simChild, dir, runRe string, repeat int, asJSON bool) int {
	re, err := regexp.Compile(runRe)
	if err != nil {
		fmt.Fprintf(e.stderr, "tracesim bench: --run: %v\n", err)
		return exitUsage
	}
	if _, err := simgrid.Path(); err != nil {
		return fail(e, "bench", errors.New("--simgrid needs smpirun (SimGrid, Debian package libsimgrid-dev)"))
	}
	var results []simgridResult
	header := []string{"CASE", "ACTIONS", "SMPIRUN WALL", "CPU", "PEAK", "FLOW WALL", "CPU", "PEAK", "WALL ×", "CPU ×", "MEM ×",
		"ANALYTIC WALL", "CPU", "PEAK", "WALL ×", "CPU ×", "MEM ×", "MAKESPAN SMPIRUN", "FLOW", "ANALYTIC"}
	// Rows are printed as their cases finish (a case takes minutes), so
	// the columns have widths fixed up front, wide enough for the values.
	widths := make([]int, len(header))
	for i, h := range header {
		widths[i] = max(utf8.RuneCountInString(h), 9)
	}
	for _, c := range simgridCases() {
		widths[0] = max(widths[0], len(c.name))
	}
	for i := len(header) - 3; i < len(header); i++ {
		widths[i] = max(widths[i], 12) // seconds to the nanosecond
	}
	if !asJSON {
		fmt.Fprintf(e.stdout, "smpirun -replay --cfg=network/model:CM02  against  tracesim sim --preset simgrid (flow) and --model simgrid (analytic);\n"+
			"%d paired runs per case: medians of the wall and CPU times and of the paired ratios, largest peak RSS\n\n", repeat)
		printColumns(e.stdout, widths, header)
	}
	ran := 0
	for _, c := range simgridCases() {
		if !re.MatchString(c.name) {
			continue
		}
		index := filepath.Join(dir, c.index)
		if _, err := os.Stat(index); err != nil {
			fmt.Fprintf(e.stderr, "tracesim bench: %s: %v (record it with testdata/simgrid/bench/record.sh %s)\n", c.name, err, dir)
			continue
		}
		actions, err := countActions(index)
		if err != nil {
			return fail(e, "bench", err)
		}
		r := simgridResult{Case: c.name, Actions: actions, Ranks: c.ranks}
		platform, hostfile := filepath.Join(dir, c.platform), filepath.Join(dir, c.hostfile)
		simArgs := []string{"sim", index, "--platform", platform, "--hostfile", hostfile, "--preset", "simgrid", "--json"}
		for i := range repeat {
			steps := []func() error{
				func() error {
					res, err := simgrid.Run(e.ctx, simgrid.Replay{Index: index, Ranks: c.ranks, Platform: platform, Hostfile: hostfile,
						Config: []string{"network/model:CM02"}, Precise: true})
					if err != nil {
						return err
					}
					r.SimGrid = append(r.SimGrid, simgridRun{Wall: res.Wall.Seconds(), CPU: res.CPU.Seconds(), PeakRSS: res.PeakRSS, Makespan: res.SimulatedTime})
					return nil
				},
				func() error {
					run, err := runSimChild(e.ctx, child, simArgs)
					r.Flow = append(r.Flow, run)
					return err
				},
				func() error {
					run, err := runSimChild(e.ctx, child, append(slices.Clone(simArgs), "--model", "simgrid"))
					r.Analytic = append(r.Analytic, run)
					return err
				},
			}
			if i%2 == 1 {
				slices.Reverse(steps)
			}
			for _, step := range steps {
				if err := step(); err != nil {
					return fail(e, "bench", fmt.Errorf("%s: %w", c.name, err))
				}
			}
		}
		r.FlowWallRatio, r.FlowCPURatio, r.FlowMemRatio = pairedRatios(r.SimGrid, r.Flow)
		r.AnalyticWallRatio, r.AnalyticCPURatio, r.AnalyticMemRatio = pairedRatios(r.SimGrid, r.Analytic)
		results = append(results, r)
		ran++
		if !asJSON {
			sg, fl, an := medianRun(r.SimGrid), medianRun(r.Flow), medianRun(r.Analytic)
			printColumns(e.stdout, widths, []string{c.name, strconv.FormatInt(actions, 10),
				units.FormatDurationSig(sg.Wall, 3), units.FormatDurationSig(sg.CPU, 3), units.FormatBytes(sg.PeakRSS),
				units.FormatDurationSig(fl.Wall, 3), units.FormatDurationSig(fl.CPU, 3), units.FormatBytes(fl.PeakRSS),
				fmt.Sprintf("%.1f", r.FlowWallRatio), fmt.Sprintf("%.1f", r.FlowCPURatio), fmt.Sprintf("%.2f", r.FlowMemRatio),
				units.FormatDurationSig(an.Wall, 3), units.FormatDurationSig(an.CPU, 3), units.FormatBytes(an.PeakRSS),
				fmt.Sprintf("%.1f", r.AnalyticWallRatio), fmt.Sprintf("%.1f", r.AnalyticCPURatio), fmt.Sprintf("%.2f", r.AnalyticMemRatio),
				units.FormatDurationSig(sg.Makespan, 10), units.FormatDurationSig(fl.Makespan, 10), units.FormatDurationSig(an.Makespan, 10)})
		}
	}
	if ran == 0 {
		return fail(e, "bench", fmt.Errorf("no trace of --simgrid %s was found: record them with testdata/simgrid/bench/record.sh %s", dir, dir))
	}
	if asJSON {
		return writeJSON(e, "bench", map[string]any{"simgrid": results})
	}
	fmt.Fprintln(e.stdout, "\nWALL ×, CPU × and MEM × are smpirun's wall time, CPU time and peak RSS divided by tracesim's (above 1: tracesim is faster, smaller).")
	return exitOK
}

// runSimChild runs this executable with args (a `sim --json` command) and
// returns its wall time, peak RSS and the makespan it printed.
func runSimChild(ctx context.Context, child simChild, args []string) (simgridRun, error) {
	cmd := exec.CommandContext(ctx, child.path, args...)
	if child.env != nil {
		cmd.Env = append(os.Environ(), child.env...)
	}
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	start := time.Now()
	err := cmd.Run()
	run := simgridRun{Wall: time.Since(start).Seconds(), PeakRSS: simgrid.PeakRSS(cmd.ProcessState)}
	if ps := cmd.ProcessState; ps != nil {
		run.CPU = (ps.UserTime() + ps.SystemTime()).Seconds()
	}
	if err != nil {
		return run, fmt.Errorf("tracesim %v: %w: %s", args, err, bytes.TrimSpace(errOut.Bytes()))
	}
	var res struct {
		Makespan *float64 `json:"makespan_s"`
	}
	if err := json.Unmarshal(out.Bytes(), &res); err != nil || res.Makespan == nil {
		return run, fmt.Errorf("tracesim %v printed no makespan_s (%v)", args, err)
	}
	run.Makespan = *res.Makespan
	return run, nil
}

// countActions counts the actions of a SimGrid TI trace: the lines of the
// files its index lists (or of the index itself when it lists none).
func countActions(index string) (int64, error) {
	data, err := os.ReadFile(index)
	if err != nil {
		return 0, err
	}
	var files []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		if line := bytes.TrimSpace(sc.Bytes()); len(line) > 0 {
			files = append(files, filepath.Join(filepath.Dir(index), string(line)))
		}
	}
	var n int64
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			return 0, fmt.Errorf("%s: %w", index, err)
		}
		k, err := countLines(fh)
		fh.Close()
		if err != nil {
			return 0, fmt.Errorf("%s: %w", f, err)
		}
		n += k
	}
	return n, nil
}

func countLines(r io.Reader) (int64, error) {
	buf := make([]byte, 1<<16)
	var n int64
	for {
		k, err := r.Read(buf)
		n += int64(bytes.Count(buf[:k], []byte{'\n'}))
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
}

// pairedRatios returns the medians of the paired wall-time and CPU-time
// ratios base/x and the ratio of the largest peaks, base's over x's.
func pairedRatios(base, x []simgridRun) (wall, cpu, mem float64) {
	var walls, cpus []float64
	var peakB, peakX int64
	for i := range min(len(base), len(x)) {
		if x[i].Wall > 0 {
			walls = append(walls, base[i].Wall/x[i].Wall)
		}
		if x[i].CPU > 0 {
			cpus = append(cpus, base[i].CPU/x[i].CPU)
		}
		peakB, peakX = max(peakB, base[i].PeakRSS), max(peakX, x[i].PeakRSS)
	}
	wall, cpu = median(walls), median(cpus)
	if peakX > 0 {
		mem = float64(peakB) / float64(peakX)
	}
	return wall, cpu, mem
}

// medianRun returns the median wall and CPU times, the largest peak and
// the makespan of the first run (every run prints the same).
func medianRun(runs []simgridRun) simgridRun {
	if len(runs) == 0 {
		return simgridRun{}
	}
	walls, cpus := make([]float64, len(runs)), make([]float64, len(runs))
	m := simgridRun{Makespan: runs[0].Makespan}
	for i, r := range runs {
		walls[i], cpus[i] = r.Wall, r.CPU
		m.PeakRSS = max(m.PeakRSS, r.PeakRSS)
	}
	m.Wall, m.CPU = median(walls), median(cpus)
	return m
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// printColumns prints one line of cells, each left-aligned in its width
// and two spaces apart.
func printColumns(w io.Writer, widths []int, cells []string) {
	var b strings.Builder
	for i, c := range cells {
		b.WriteString(c)
		if i < len(cells)-1 {
			b.WriteString(strings.Repeat(" ", max(widths[i]-utf8.RuneCountInString(c), 0)+2))
		}
	}
	b.WriteByte('\n')
	io.WriteString(w, b.String())
}
