package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"regexp"
	"runtime"
	"testing"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/tracesim/tracesim/engine/replay"
	"github.com/tracesim/tracesim/internal/cputime"
	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/tracefmt/clog2"
	"github.com/tracesim/tracesim/tracefmt/gen"
	"github.com/tracesim/tracesim/tracefmt/simgridti"
	"github.com/tracesim/tracesim/tracefmt/tsim"
	"github.com/tracesim/tracesim/tui"
)

// benchInput is what the benchmarks share: one generated trace and its
// encodings, each made the first time a benchmark asks for it (a run of
// the OTF2 reader alone on a 1 GB file holds no CLOG2 encoding beside it).
type benchInput struct {
	trace   *tracefmt.Trace
	encoded map[string]*benchFile
}

// benchRow is one line of the `tracesim bench` table. Metrics name the
// figures it reports (b.ReportMetric units) in the order printed.
type benchRow struct {
	name    string
	what    string
	metrics []string
	run     func(in *benchInput, b *testing.B)
}

// benchRows returns the project's benchmarks. The same figures come from
// the packages' own `go test -bench`; this table exists so that a user can
// measure an installed binary on their machine without the sources.
func benchRows() []benchRow {
	return []benchRow{
		{"tsim/read", "parse the text format", []string{"MB/s", "MB/cpu-s", "Mevents/s", "B/event"}, benchTsimRead},
		{"tsim/write", "write the text format", []string{"MB/s", "Mevents/s"}, benchTsimWrite},
		{"clog2/read", "parse MPE CLOG2", []string{"MB/s", "MB/cpu-s", "Mevents/s", "B/event"}, benchClog2Read},
		{"clog2/write", "write MPE CLOG2", []string{"MB/s", "Mevents/s"}, benchClog2Write},
		{"ti/read", "parse SimGrid time-independent actions", []string{"MB/s", "MB/cpu-s", "Mevents/s", "B/event"}, benchTIRead},
		{"otf2/read", "parse an OTF2 archive (held in memory)", []string{"MB/s", "Mevents/s", "B/event", "MB", "CLOG2-MB/s", "xCLOG2"}, benchOTF2Read},
		{"paraver/read", "parse a Paraver .prv and its .pcf", []string{"MB/s", "Mevents/s", "B/event", "MB", "CLOG2-MB/s", "xCLOG2"}, benchParaverRead},
		{"gen/stencil2d", "generate a trace", []string{"Mevents/s"}, benchGen},
		{"sim/causal", "causal replay, analytic PUPPET network", []string{"Mevents/s"}, benchReplay("causal")},
		{"sim/predict", "predict replay, analytic PUPPET network", []string{"Mevents/s"}, benchReplay("predict")},
		{"causality/check", "causality checks of a skewed trace (no replay)", []string{"Mmsgs/s", "Mevents/s"}, benchCausalityCheck},
		{"causality/fix", "offsets + controlled logical clock on a skewed trace", []string{"ns/event", "Mevents/s"}, benchCausalityFix},
		{"timeline/frame", "draw a 200×60 Timeline frame of the whole trace", []string{"ms/frame"}, benchTimelineFrame},
	}
}

// benchCommand is `tracesim bench`: the project's benchmarks as a table.
func benchCommand(e *env) *cobra.Command {
	cc := newCommand("bench", "run the project's benchmarks and print a table", "[--events N] [--run REGEXP] [--time DUR] [--json] | --simgrid DIR [--repeat N] [--run REGEXP] [--json] | --ui [--events N] [--presses N] [--fps LIST] | --scale [--points LIST] [--repeat N] [--run REGEXP]",
		"Run tracesim's benchmarks on this machine and print a table: throughput of the\n"+
			"parsers and writers, resident bytes per event of the trace model, replay speed.\n"+
			"The input is a generated 64-rank stencil2d trace of about --events events.\n\n"+
			"With --simgrid DIR: replay the SimGrid traces testdata/simgrid/bench/record.sh\n"+
			"recorded into DIR with smpirun -replay and with tracesim sim, side by side, and\n"+
			"print both wall times, peak memories, makespans and their ratios.\n\n"+
			"With --ui, measure instead the UI's key-to-screen time through a pseudo-terminal\n"+
			"(on a trace of 10,000,000 events unless --events says otherwise).\n\n"+
			"With --scale, time info, check and sim as separate processes on generated traces\n"+
			"of the --points sizes, each stage --repeat times (the median CPU time is reported,\n"+
			"and the median user time beside it).")
	fs := cc.Flags()
	events := fs.Int("events", 1_000_000, "approximate number of events of the generated trace")
	ui := benchUIFlags{width: 200, height: 60}
	fs.BoolVar(&ui.on, "ui", false, "measure the UI's key-to-screen time in a pseudo-terminal (p50/p90/p99/max, idle CPU)")
	fs.IntVar(&ui.presses, "presses", 200, "with --ui: key presses measured per frame-rate cap")
	fs.StringVar(&ui.fpsList, "fps", "60,120", "with --ui: the UI's frame-rate caps to compare, comma-separated")
	fs.StringVar(&ui.renderers, "renderer", tui.RendererDirect+","+tui.RendererBubbleTea, "with --ui: the UI's renderers to compare, comma-separated ("+tui.RendererDirect+", "+tui.RendererBubbleTea+")")
	fs.BoolVar(&ui.realtime, "realtime", false, "with --ui: run the benchmark's own threads under SCHED_FIFO (Linux; root or CAP_SYS_NICE), so that only the UI's scheduling delays are measured")
	fs.IntVar(&ui.ssh, "ssh", 0, "with --ui: measure N sessions of `tracesim serve` over SSH instead (keys pressed in each in turn)")
	var idle float64 = 3
	fs.Var(durationValue{&idle}, "idle", "with --ui: how long to measure the idle UI's CPU use (0: not at all)")
	runRe := fs.String("run", "", "only benchmarks whose name matches this regular expression (with --simgrid: cases such as cg64/torus; with --scale: stages such as \"info\" or \"sim flow\")")
	asJSON := fs.Bool("json", false, "print JSON")
	simgridDir := fs.String("simgrid", "", "compare with smpirun -replay on the traces recorded into this directory")
	repeat := fs.Int("repeat", 3, "paired runs per case with --simgrid; runs per stage with --scale (the median by CPU time is reported)")
	scale := fs.Bool("scale", false, "instead, time info, check and sim (analytic, flow, packet) as separate processes on generated traces of --points sizes: wall time, events/s, peak bytes per event")
	points := fs.String("points", defaultScalePoints, "with --scale: the traces, EVENTS@RANKS separated by commas (events take k or M)")
	var benchTime float64 = 1
	fs.Var(durationValue{&benchTime}, "time", "target time per benchmark, e.g. 2s")
	cc.Args = argCount(0, 0)
	e.runs(cc, func([]string) int {
		if *repeat < 1 {
			fmt.Fprintln(e.stderr, "tracesim bench: --repeat must be at least 1")
			return exitUsage
		}
		if *simgridDir != "" {
			self, err := os.Executable()
			if err != nil {
				return fail(e, "bench", err)
			}
			return benchSimGrid(e, simChild{path: self}, *simgridDir, *runRe, *repeat, *asJSON)
		}
		if *scale {
			return runBenchScale(e, *points, *runRe, *repeat)
		}
		re, err := regexp.Compile(*runRe)
		if err != nil {
			fmt.Fprintf(e.stderr, "tracesim bench: --run: %v\n", err)
			return exitUsage
		}
		if ui.on {
			ui.json, ui.idle = *asJSON, time.Duration(idle*float64(time.Second))
			ui.events = *events
			fs.Visit(func(f *pflag.Flag) { ui.eventsSet = ui.eventsSet || f.Name == "events" })
			if !ui.eventsSet {
				ui.events = 10_000_000
			}
			return runBenchUI(e, ui)
		}
		if *events < 1000 {
			fmt.Fprintln(e.stderr, "tracesim bench: --events must be at least 1000")
			return exitUsage
		}
		testing.Init()
		// testing.Benchmark reads its target time from the testing package's
		// flags, which testing.Init registers on the default flag set.
		if err := flag.Set("test.benchtime", fmt.Sprintf("%gs", benchTime)); err != nil {
			return fail(e, "bench", err)
		}
		in, err := makeBenchInput(*events)
		if err != nil {
			return fail(e, "bench", err)
		}
		type result struct {
			Name    string             `json:"name"`
			What    string             `json:"what"`
			N       int                `json:"iterations"`
			NsPerOp int64              `json:"ns_per_op"`
			Metrics map[string]float64 `json:"metrics"`
		}
		var results []result
		nEvents, nRanks := in.trace.NumEvents(), len(in.trace.Ranks)
		tw := tabwriter.NewWriter(e.stdout, 2, 4, 2, ' ', 0)
		if !*asJSON {
			// Encodings are made when a benchmark first needs one: each read
			// row reports the size of its input (MB).
			fmt.Fprintf(e.stdout, "input: stencil2d, %d ranks, %d events; %s/%s, %d CPUs\n\n",
				nRanks, nEvents,
				runtime.GOOS, runtime.GOARCH, runtime.NumCPU())
			fmt.Fprintln(tw, "BENCHMARK\tTIME/OP\tFIGURES\tWHAT")
		}
		var selected []string
		for _, row := range benchRows() {
			if re.MatchString(row.name) {
				selected = append(selected, row.name)
			}
		}
		if err := in.prepare(e.ctx, selected); err != nil {
			return fail(e, "bench", err)
		}
		for _, row := range benchRows() {
			if !re.MatchString(row.name) {
				continue
			}
			if err := e.ctx.Err(); err != nil {
				return fail(e, "bench", err)
			}
			r := testing.Benchmark(func(b *testing.B) { row.run(in, b) })
			res := result{Name: row.name, What: row.what, N: r.N, NsPerOp: r.NsPerOp(), Metrics: map[string]float64{}}
			figures := ""
			for _, m := range row.metrics {
				v := r.Extra[m]
				res.Metrics[m] = v
				figures += fmt.Sprintf("%.4g %s  ", v, m)
			}
			results = append(results, res)
			if !*asJSON {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", row.name, time.Duration(r.NsPerOp()).Round(time.Microsecond), figures, row.what)
			}
		}
		tw.Flush()
		if *asJSON {
			return writeJSON(e, "bench", map[string]any{
				"events": nEvents, "ranks": nRanks,
				"cpus": runtime.NumCPU(), "results": results,
			})
		}
		return exitOK
	})
	return cc
}

func makeBenchInput(events int) (*benchInput, error) {
	o := gen.Options{Pattern: "stencil2d", Ranks: 64, Iters: 1, Compute: -1}
	c, err := gen.Expect(o)
	if err != nil {
		return nil, err
	}
	o.Iters = max(1, events/c.Events)
	t, err := gen.Generate(o)
	if err != nil {
		return nil, fmt.Errorf("generating the input: %w", err)
	}
	return &benchInput{trace: t, encoded: map[string]*benchFile{}}, nil
}

// benchRead measures a parser: bytes and events per second, bytes per
// second of the process's CPU time (what one core parses, however loaded
// the machine; a reader on two goroutines pays for both), and the heap
// the resulting trace holds per event (measured once, outside the timing).
func benchRead(b *testing.B, data []byte, read func([]byte) (*tracefmt.Trace, error)) {
	b.SetBytes(int64(len(data)))
	var events int
	cpu := cputime.Used()
	for b.Loop() {
		t, err := read(data)
		if err != nil {
			b.Fatal(err)
		}
		events += t.NumEvents()
	}
	b.StopTimer()
	if cpu = cputime.Used() - cpu; cpu > 0 {
		b.ReportMetric(float64(len(data))*float64(b.N)/cpu.Seconds()/1e6, "MB/cpu-s")
	}
	b.ReportMetric(float64(len(data))*float64(b.N)/b.Elapsed().Seconds()/1e6, "MB/s")
	b.ReportMetric(float64(events)/b.Elapsed().Seconds()/1e6, "Mevents/s")
	reportResident(b, func() (*tracefmt.Trace, error) { return read(data) })
}

// reportResident reads once more, outside the timing, and reports the
// heap the resulting trace holds per event (B/event).
func reportResident(b *testing.B, read func() (*tracefmt.Trace, error)) {
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	t, err := read()
	if err != nil {
		b.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/float64(t.NumEvents()), "B/event")
	runtime.KeepAlive(t)
}

func benchWrite(b *testing.B, t *tracefmt.Trace, write func(*bytes.Buffer, *tracefmt.Trace) error) {
	var buf bytes.Buffer
	for b.Loop() {
		buf.Reset()
		if err := write(&buf, t); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(buf.Len())*float64(b.N)/b.Elapsed().Seconds()/1e6, "MB/s")
	b.ReportMetric(float64(t.NumEvents())*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mevents/s")
}

func benchTsimRead(in *benchInput, b *testing.B) {
	benchRead(b, in.file(b, "tsim").main, func(d []byte) (*tracefmt.Trace, error) { return tsim.Read(bytes.NewReader(d)) })
}

func benchTsimWrite(in *benchInput, b *testing.B) {
	benchWrite(b, in.trace, func(w *bytes.Buffer, t *tracefmt.Trace) error { return tsim.Write(w, t) })
}

func benchClog2Read(in *benchInput, b *testing.B) {
	benchRead(b, in.file(b, "clog2").main, func(d []byte) (*tracefmt.Trace, error) { return clog2.Read(bytes.NewReader(d)) })
}

func benchClog2Write(in *benchInput, b *testing.B) {
	benchWrite(b, in.trace, func(w *bytes.Buffer, t *tracefmt.Trace) error { return clog2.Write(w, t) })
}

func benchGen(in *benchInput, b *testing.B) {
	o := gen.Options{Pattern: "stencil2d", Ranks: 64, Iters: 1, Compute: -1}
	c, err := gen.Expect(o)
	if err != nil {
		b.Fatal(err)
	}
	o.Iters = max(1, in.trace.NumEvents()/c.Events)
	var events int
	for b.Loop() {
		t, err := gen.Generate(o)
		if err != nil {
			b.Fatal(err)
		}
		events += t.NumEvents()
	}
	b.ReportMetric(float64(events)/b.Elapsed().Seconds()/1e6, "Mevents/s")
}

func benchReplay(mode string) func(in *benchInput, b *testing.B) {
	return func(in *benchInput, b *testing.B) {
		cfg := replay.Default()
		cfg.Model = replay.ModelPuppet // the engine's own speed, as the table says
		if err := cfg.Set("mode", mode); err != nil {
			b.Fatal(err)
		}
		var events uint64
		for b.Loop() {
			s, err := replay.New(in.trace, cfg, replay.Options{})
			if err != nil {
				b.Fatal(err)
			}
			if err := s.Run(context.Background()); err != nil {
				b.Fatal(err)
			}
			events += s.Results().TraceEvents
		}
		b.ReportMetric(float64(events)/b.Elapsed().Seconds()/1e6, "Mevents/s")
	}
}

func benchTIRead(in *benchInput, b *testing.B) {
	benchRead(b, in.file(b, "ti").main, func(d []byte) (*tracefmt.Trace, error) { return simgridti.Read(bytes.NewReader(d), nil) })
}
