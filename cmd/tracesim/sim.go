package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/tracesim/tracesim/engine/export"
	"github.com/tracesim/tracesim/engine/netmodel"
	"github.com/tracesim/tracesim/engine/packet"
	"github.com/tracesim/tracesim/engine/preset"
	"github.com/tracesim/tracesim/engine/replay"
	"github.com/tracesim/tracesim/engine/topology"
	"github.com/tracesim/tracesim/internal/atomicfile"
	"github.com/tracesim/tracesim/internal/hostmem"
	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/tracefmt/formats"
	"github.com/tracesim/tracesim/tracefmt/perfetto"
	"github.com/tracesim/tracesim/tracefmt/units"
)

// simOutput is what `tracesim sim --json` prints: the file, the settings
// in force, and the engine's results (docs/sim.md).
type simOutput struct {
	File   string            `json:"file"`
	Config map[string]string `json:"config"`
	replay.Results
}

// simCommand is `tracesim sim FILE`: a replay on a simulated machine (exit 3 on a deadlock).
func simCommand(e *env) *cobra.Command {
	cc := newCommand("sim", "replay a trace on a simulated machine and predict its run time", "FILE [--config FILE] [--json] [settings]",
		"Replay a trace on a simulated machine and predict its run time.\n"+
			"Every setting is a flag and a key of the --config file (JSON or TOML); flags win over\n"+
			"the file. Values take units: sizes B KB KiB MB MiB, rates b/s Mb/s Gb/s B/s MB/s GB/s,\n"+
			"times ps ns us ms s, CPU speeds f Mf Gf. docs/sim.md documents the settings, the models\n"+
			"and the JSON output. Exit status 3 when the replay deadlocks.")
	fs := cc.Flags()
	asJSON := fs.Bool("json", false, "print the results as JSON")
	config := fs.String("config", "", "read settings from this JSON or TOML file (flags override it)")
	presetName := presetFlag(cc, "start from a Machine-tab preset ("+strings.Join(preset.Keys(), ", ")+"); --config and flags override it")
	format := readFormatFlag(cc, "read the trace as this format instead of detecting it")
	traceOut := fs.String("trace-out", "", "write the simulated run as a timed trace to this file (format from its extension, else tsim)")
	msgOut := fs.String("messages-out", "", "write one row per message (times in seconds) to this file: Parquet for a .parquet file, else CSV")
	metricsOut := fs.String("metrics-out", "", "write the packet or flow model's network metrics, sampled every --sample-period, to this file: Parquet for a .parquet file, else CSV")
	perfettoOut := fs.String("perfetto-out", "", "write the simulated run as Chrome trace event JSON for ui.perfetto.dev, with the network's utilisation as counter tracks under the packet and flow models")
	perMessage := fs.Bool("coll-per-message", false, "replay every expanded collective message by message, even those the contention-free models compute in bulk (the same results, more kernel events; docs/sim.md)")
	printConfig := fs.Bool("print-config", false, "print the settings in force as a TOML configuration file and exit")
	stream := "auto"
	fs.Var(choice{&stream, []string{"auto", "on", "off"}}, "stream", "read the trace rank by rank as the run reaches it, in memory bounded by the ranks and the messages in flight: auto (a SimGrid TI index of per-rank files, and a tsim file whose whole read would take more than half of the machine's memory), on (every trace whose format streams: TI index, tsim), off (read it whole)")
	maxOutput := fs.String("max-output", units.FormatBytes(defaultMaxOutput), "largest --metrics-out file: a --sample-period that would write more is refused before the run, and the file stops there")
	flags := addSettingFlags(cc)
	cc.Args = argCount(0, 1)
	e.runs(cc, func(pos []string) int {
		if len(pos) == 0 && !*printConfig {
			fmt.Fprintln(e.stderr, "tracesim sim: expected a trace FILE")
			usageHint(e, "sim")
			return exitUsage
		}
		cfg := replay.Default()
		if *presetName != "" {
			p, err := preset.Lookup(*presetName)
			if err == nil {
				err = p.Apply(&cfg)
			}
			if err != nil {
				fmt.Fprintf(e.stderr, "tracesim sim: --preset %v\n", err)
				return exitUsage
			}
		}
		if *config != "" {
			if err := cfg.LoadFile(*config); err != nil {
				fmt.Fprintf(e.stderr, "tracesim sim: --config %v\n", err)
				return exitUsage
			}
		}
		// What the preset and configuration file set, to tell the user of
		// the settings among them the chosen model will not read.
		fromFiles := cfg
		set := map[string]bool{}
		fs.Visit(func(f *pflag.Flag) { set[f.Name] = true })
		if set["bandwidth"] && set["per-byte"] {
			fmt.Fprintln(e.stderr, "tracesim sim: --bandwidth and --per-byte: give one of them (per-byte is 1/bandwidth)")
			return exitUsage
		}
		for _, f := range flags {
			if set[f.s.Key] {
				if err := cfg.Set(f.s.Key, f.raw); err != nil {
					fmt.Fprintf(e.stderr, "tracesim sim: --%v\n", err)
					return exitUsage
				}
			}
		}
		if cfg.Model == replay.ModelPacket && set["latency"] && set["link-latency"] {
			fmt.Fprintln(e.stderr, "tracesim sim: --latency and --link-latency: give one of them (under the packet model both are the links' latency)")
			return exitUsage
		}
		// A threshold asked for is a what-if on the protocol: it holds for
		// every send, including those the recorded run buffered; the packet
		// model's links take a given --latency.
		cfg.ByHand(func(k string) bool { return set[k] })
		// Validate first: it reads the platform, which decides whether some
		// settings are read (crosstraffic under the simgrid model).
		verr := cfg.Validate()
		for _, f := range flags {
			// A flag the model ignores is a mistake the user should hear of
			// (presets and configuration files may set them for others).
			if why := replay.Unused(&cfg, f.s.Key); set[f.s.Key] && why != "" {
				fmt.Fprintf(e.stderr, "tracesim sim: --%s: %s\n", f.s.Key, why)
				return exitUsage
			}
		}
		if verr != nil {
			fmt.Fprintf(e.stderr, "tracesim sim: invalid settings: %v\n", verr)
			return exitUsage
		}
		noteUnread(e, &cfg, &fromFiles, set, *presetName, *config)
		if *metricsOut != "" && !cfg.Model.Measured() {
			fmt.Fprintln(e.stderr, "tracesim sim: --metrics-out needs --model packet or flow (the analytic models have no links or queues to measure)")
			return exitUsage
		}
		if *printConfig {
			data, err := cfg.Encode("toml")
			if err != nil {
				return fail(e, "sim", err)
			}
			e.stdout.Write(data)
			return exitOK
		}
		inputs, err := guardOutputs(pos[0], *format, []string{*config},
			output{"--trace-out", *traceOut}, output{"--messages-out", *msgOut}, output{"--metrics-out", *metricsOut},
			output{"--perfetto-out", *perfettoOut})
		if err != nil {
			return fail(e, "sim", err)
		}
		opts := replay.Options{RecordTrace: *traceOut != "" || *perfettoOut != "", RecordMessages: *msgOut != "", PerMessageCollectives: *perMessage,
			NoNetSnapshots: true, NoRankStatus: true} // nothing here reads snapshots
		var metrics *packet.CSVWriter
		var counters *export.Counters
		runCtx, stopRun := context.WithCancel(e.ctx)
		defer stopRun()
		var metricsErr error
		var limit int64
		if *metricsOut != "" {
			if limit, err = units.ParseSize(*maxOutput); err != nil || limit <= 0 {
				fmt.Fprintf(e.stderr, "tracesim sim: --max-output %q: expected a size such as 1GiB\n", *maxOutput)
				return exitUsage
			}
		}
		if *metricsOut != "" || (*perfettoOut != "" && cfg.Model.Measured()) {
			opts.OnSample = func(smp *netmodel.Sample) {
				if metrics != nil {
					// A failed write (the limit, a full disk, a signal) stops
					// the run rather than sampling on for nothing.
					if err := metrics.Write(smp); err != nil && metricsErr == nil && e.ctx.Err() == nil {
						metricsErr = err
						stopRun()
					}
				}
				if counters != nil {
					counters.Write(smp)
				}
			}
		}
		s, t, closeSrc, err := newSim(e, pos[0], *format, stream, cfg, opts)
		if err != nil {
			return fail(e, "sim", err)
		}
		defer closeSrc()
		if *metricsOut != "" {
			var measures netmodel.Measures
			if mn, ok := s.Network().(netmodel.Measurer); ok {
				measures = mn.Measures()
			}
			if err := checkSampleOutput(t, cfg.SamplePeriod, limit, packet.NetworkLines(measures)); err != nil {
				fmt.Fprintf(e.stderr, "tracesim sim: %v\n", err)
				return exitUsage
			}
		}
		run := func() error {
			start := time.Now()
			model, _ := cfg.Get("model")
			e.debug("simulation started", "trace", pos[0], "model", model, "ranks", len(t.Ranks))
			stop := newTermProgress(e, "simulating "+filepath.Base(pos[0])).watchRun(s)
			err := s.Run(runCtx)
			stop()
			e.debug("simulation ended", "trace", pos[0], "simulated", s.Now(), "elapsed", time.Since(start), "err", err)
			if metricsErr != nil {
				return fmt.Errorf("--metrics-out %s: %w", *metricsOut, metricsErr)
			}
			if err != nil {
				if errors.Is(err, e.ctx.Err()) {
					return fmt.Errorf("interrupted at simulated time %s", s.Now())
				}
				return err
			}
			return nil
		}
		if *perfettoOut != "" {
			// The counters stream into the file as the run goes, the
			// simulated run's slices and arrows follow it.
			inner := run
			run = func() error {
				return atomicfile.WriteWith(*perfettoOut, atomicfile.Options{Inputs: inputs, Gzip: atomicfile.Gzipped(*perfettoOut)}, func(w io.Writer) error {
					pw := perfetto.NewWriter(atomicfile.Stopping(w, e.ctx.Err))
					if cfg.Model.Measured() {
						pn, ok := s.Network().(interface{ Topology() topology.Topology })
						if !ok {
							return fmt.Errorf("--perfetto-out: the network has no topology to measure")
						}
						counters = export.NewCounters(pw, pn.Topology())
					}
					if err := inner(); err != nil {
						return err
					}
					if counters != nil {
						counters.End()
					}
					out, err := s.Trace()
					if err == nil {
						err = pw.Trace(out, e.ctx.Err)
					}
					if err == nil {
						err = pw.Close()
					}
					if err != nil {
						return fmt.Errorf("--perfetto-out: %w", err)
					}
					return nil
				})
			}
		}
		if *metricsOut != "" {
			// The samples stream into the file as the run goes; it appears
			// only once the run has finished.
			inner := run
			run = func() error {
				return atomicfile.WriteWith(*metricsOut, atomicfile.Options{Inputs: inputs, Context: e.ctx, Limit: limit, Gzip: atomicfile.Gzipped(*metricsOut)}, func(w io.Writer) error {
					pn, ok := s.Network().(interface{ Topology() topology.Topology })
					if !ok {
						return fmt.Errorf("the network has no topology to measure")
					}
					w = atomicfile.Stopping(w, e.ctx.Err)
					var pq io.WriteCloser
					if export.FormatOf(*metricsOut) == export.Parquet {
						pq = export.MetricsParquet(w)
						w = pq
					}
					metrics = packet.NewCSVWriter(w, pn.Topology())
					if err := inner(); err != nil {
						if pq != nil {
							pq.Close()
						}
						return err
					}
					err := metrics.Flush()
					if pq != nil {
						err = errors.Join(err, pq.Close())
					}
					if err != nil {
						return fmt.Errorf("--metrics-out: %w", err)
					}
					return nil
				})
			}
		}
		err = run()
		if err != nil {
			return fail(e, "sim", err)
		}
		res := s.Results()
		for _, n := range res.Notes {
			// A choice the user did not make: said once, on stderr, so
			// that --json output stays one document.
			fmt.Fprintf(e.stderr, "tracesim sim: %s\n", n)
		}
		if *traceOut != "" {
			out, err := s.Trace()
			if err == nil {
				err = formats.SaveWith(*traceOut, "", out, formats.WriteOptions{Inputs: inputs, Context: e.ctx})
			}
			if err != nil {
				return fail(e, "sim", fmt.Errorf("--trace-out: %w", err))
			}
		}
		if *msgOut != "" {
			if err := atomicfile.WriteWith(*msgOut, atomicfile.Options{Inputs: inputs, Gzip: atomicfile.Gzipped(*msgOut)}, func(w io.Writer) error {
				return export.SimMessages(atomicfile.Stopping(w, e.ctx.Err), export.FormatOf(*msgOut), s.Messages())
			}); err != nil {
				return fail(e, "sim", fmt.Errorf("--messages-out: %w", err))
			}
		}
		code := exitOK
		if res.Deadlock != nil {
			code = exitFindings
		}
		if n := res.CollectivesSizeUnknown; n > 0 {
			// Once, on stderr, so that --json stays parseable.
			fmt.Fprintf(e.stderr, "tracesim sim: warning: %s\n", tracefmt.SizeUnknownNote(n))
		}
		// The settings the run used: a platform's CPU speed and links
		// replace the configured ones.
		cfg = s.Config()
		if *asJSON {
			vals := map[string]string{}
			for _, kv := range cfg.Values() {
				vals[kv[0]] = kv[1]
			}
			// Streamed: the document (megabytes at hundreds of ranks or
			// links) is never held whole, nor its indented copy.
			if err := writeJSONStream(e.stdout, simOutput{File: pos[0], Config: vals, Results: res}); err != nil {
				return fail(e, "sim", err)
			}
			return code
		}
		events := t.NumEvents()
		if events == 0 {
			// Streamed: the trace's events as the index pass counted
			// them (markers and texts included, as NumEvents counts).
			if sn := s.Snapshot(); sn != nil && sn.TotalTraceEvents > 0 {
				events = int(sn.TotalTraceEvents)
			} else {
				events = int(res.TraceEvents)
			}
		}
		printSim(e.stdout, pos[0], t.Size(), events, &cfg, &res)
		return code
	})
	return cc
}

// newSim prepares the replay of the trace at path. A trace whose layout
// lets each rank's events be read apart (a SimGrid TI index of per-rank
// files) streams, so that the run's memory does not grow with the trace,
// unless the run needs it whole (--trace-out, --any-source recorded on
// wildcard receives without recorded senders). It returns the trace, or
// for a streamed one its header (no events), and what closes the files
// the run reads. A tsim file streams under --stream auto when reading it
// whole would not fit (streamTsimAuto: its index pass and the cursors
// parse it twice), under --stream on always; --stream off reads every
// trace whole.
func newSim(e *env, path, format, stream string, cfg replay.Config, opts replay.Options) (*replay.Sim, *tracefmt.Trace, func(), error) {
	if !opts.RecordTrace && stream != "off" {
		// Under --any-source free no wildcard receive's sender is
		// looked up: the TI index's files need no scan for them.
		src, err := formats.OpenSourceWith(path, format, formats.SourceOptions{SendersUnused: cfg.AnySource == replay.AnyFree})
		if err == nil && stream == "auto" && src.Header().Format == "tsim" {
			if st, serr := os.Stat(path); serr == nil && !streamTsimAuto(st.Size(), hostmem.Total()) {
				src.Close()
				err = formats.ErrNotStreamable
			}
		}
		if ps, ok := src.(replay.Prescanner); ok && err == nil {
			// The facts of the whole trace, in one pass over the file
			// that also indexes it; its errors are the whole read's.
			stop := newTermProgress(e, "reading "+filepath.Base(path)+" ahead (index and whole-trace facts)").watchTime()
			f, ferr := replay.ScanFacts(e.ctx, ps, cfg)
			stop()
			if ferr != nil {
				src.Close()
				return nil, nil, nil, ferr
			}
			opts.Facts = f
		}
		switch {
		case err == nil:
			src = readAhead(src)
			s, err := replay.NewSource(src, cfg, opts)
			if err == nil {
				return s, src.Header(), func() { src.Close() }, nil
			}
			src.Close()
			// What needs the trace whole reads it whole below.
		case !errors.Is(err, formats.ErrNotStreamable):
			return nil, nil, nil, err
		}
	}
	t, err := load(e, path, format)
	if err != nil {
		return nil, nil, nil, err
	}
	s, err := replay.New(t, cfg, opts)
	return s, t, func() {}, err
}

// tsimWholeFactor is a whole read's peak memory per byte of a tsim file
// (843 MB for a 678 MB cg trace, 4.10 GB for 3.45 GB), rounded up.
const tsimWholeFactor = 1.3

// readAhead returns the source a streamed replay reads: a TI index's
// files are parsed on a second core while the replay runs (Prefetch); a
// tsim file is not, since its index pass parsed it on every core and a
// rank's read decodes a block for every rank at once: prefetching would
// hold two more halves of read-ahead per rank (stencil2d, 65,536 ranks,
// 2 M events, puppet: 565 against 342 MB peak, 4.65 against 3.27 s CPU);
// the tsim source reads and decodes its chunks ahead itself.
func readAhead(src tracefmt.Source) tracefmt.Source {
	h := src.Header()
	if h.Format == "tsim" {
		return src
	}
	return tracefmt.Prefetch(src, prefetchChunk(len(h.Ranks)))
}

// prefetchEvents is the events a TI index's read-ahead holds for all its
// ranks (2.5 MiB of events), shared out by prefetchChunk.
const prefetchEvents = 1 << 16

// prefetchChunk is each rank's read-ahead (Prefetch's chunk, two halves)
// for a trace of ranks ranks: prefetchEvents shared out, at least 128
// and at most 1024 events (Prefetch's own default shares 16,384). Larger
// reads let the TI reader apply more of a rank's lines from its
// templates per call (each call starts with lines it decodes in full):
// whole `sim --model simgrid` runs on the SimGrid cases (callgrind,
// GOMAXPROCS=1) cost 2,415 → 2,080 M instructions on the 256-rank stencil
// (128 → 512 events a rank, +3 MiB peak) and 2,311 → 2,230 M on the
// 64-rank CG (256 → 1024, +2 MiB; 2048 saved 28 M more for 2 MiB more),
// and the replay waits for a chunk less often (stencil: 12 times instead
// of 191 in one run under load 5). From 1,024 ranks on the chunk is
// Prefetch's 128, as before. The budget was 131,072 events (512 a rank
// at 256 ranks); halved, the 256-rank stencil's flow run peaks 1.5 MiB
// lower (its 5 MiB of read-ahead was a quarter of the heap) for 0.9 %
// more instructions (4,132 → 4,168 M, callgrind, with the rank's memo
// guesses kept between calls; see simgridti.Source.ReadRank), while
// 64 ranks still read 1,024 events ahead.
func prefetchChunk(ranks int) int {
	return min(max(prefetchEvents/max(ranks, 1), 128), 1024)
}

// tsimStreamUnknown is the file size from which --stream auto streams a
// tsim file where the machine's memory is not known.
const tsimStreamUnknown = 2 << 30

// streamTsimAuto is --stream auto's rule for a tsim file of size bytes
// on a machine whose process may use mem bytes (0: unknown): stream it
// when reading it whole would take more than half of that, the budget
// the SSH server also keeps to. Below, the whole read is the surer
// choice in time: streaming parses the file twice, the second decode on
// a goroutine of its own. At 64 ranks that now costs no more than a
// whole read (10 M-event stencil, puppet: 2.78 s CPU and 35 MB streamed
// against 3.17 s and 434 MB whole), but at many ranks each chunk holds a
// record or two per rank, every event lands in a cold queue, and a
// streamed rank's read-ahead outweighs its share of a short trace
// (7.8 M events at 65,536 ranks, packet: 22.0 s and 566 MB streamed
// against 17.2 s and 569 MB whole; flow at 4,096 ranks is also slower
// streamed). Streaming also where it would fit, from 256 KiB of records
// a rank, was tried and not kept: a tenth of the peak, but a quarter to a
// half more CPU and no surer wall time (docs/sim.md, "Streaming a trace
// rank by rank", has the tables).
func streamTsimAuto(size, mem int64) bool {
	if mem <= 0 {
		return size >= tsimStreamUnknown
	}
	return float64(size)*tsimWholeFactor > float64(mem)/2
}

// printNetwork prints the packet or flow model's measurements.
func printNetwork(w io.Writer, n *netmodel.Metrics) {
	if n.Packets > 0 {
		fmt.Fprintf(w, "packets         %d delivered over %d link hops, latency mean %s, max %s\n", n.Packets, n.Hops,
			units.FormatDuration(n.PacketLatency.Mean), units.FormatDuration(n.PacketLatency.Max))
	} else {
		fmt.Fprintf(w, "flows           %d delivered, latency mean %s, max %s\n", n.Delivered,
			units.FormatDuration(n.MessageLatency.Mean), units.FormatDuration(n.MessageLatency.Max))
	}
	var busiest *netmodel.LinkMetric
	for i := range n.Links {
		if l := &n.Links[i]; l.Class != "terminal" && (busiest == nil || l.MeanUtilisation > busiest.MeanUtilisation) {
			busiest = l
		}
	}
	if busiest != nil {
		fmt.Fprintf(w, "links           busiest router link %d (r%d → r%d, %s) %s busy over the run, %s carried\n",
			busiest.ID, busiest.From, busiest.To, busiest.Class, units.FormatPercent(busiest.MeanUtilisation, 1), units.FormatBytes(busiest.Bytes))
	}
	var groups []string
	for _, g := range n.Groups {
		if g.Links > 0 {
			groups = append(groups, g.Name+" "+units.FormatPercent(g.MeanUtilisation, 1))
		}
	}
	fmt.Fprintf(w, "link groups     mean utilisation: %s\n", strings.Join(groups, ", "))
	var fullest *netmodel.QueueMetric
	for i := range n.Queues {
		if q := &n.Queues[i]; fullest == nil || q.Mean > fullest.Mean {
			fullest = q
		}
	}
	if fullest != nil {
		fmt.Fprintf(w, "buffers         fullest r%d.p%d/vc%d: mean %.2f, max %d of %d packets; %d packets waited > %s\n",
			fullest.Router, fullest.Port, fullest.VC, fullest.Mean, fullest.Max, fullest.Capacity, n.LongWaits,
			units.FormatDuration(n.WaitThreshold))
	}
	if len(n.LevelShare) > 0 {
		parts := make([]string, len(n.LevelShare))
		for l, sh := range n.LevelShare {
			parts[l] = fmt.Sprintf("level %d %s", l, units.FormatPercent(sh, 1))
		}
		fmt.Fprintf(w, "fat-tree levels traffic turning at %s\n", strings.Join(parts, ", "))
	}
}

// printSim prints the human summary of a run.
func printSim(w io.Writer, path string, ranks, events int, cfg *replay.Config, res *replay.Results) {
	model, _ := cfg.Get("model")
	detail := ""
	switch cfg.Model {
	case replay.ModelPuppet:
		sw, _ := cfg.Get("switching")
		detail = " " + sw
	case replay.ModelFlow:
		if n := res.Network; n != nil {
			ct, _ := cfg.Get("crosstraffic")
			detail = fmt.Sprintf(" (%s, routing %s, crosstraffic %s)", n.Spec, n.Routing, ct)
		}
	case replay.ModelPacket:
		if n := res.Network; n != nil {
			vcs := "VCs"
			if n.VCs == 1 {
				vcs = "VC"
			}
			detail = fmt.Sprintf(" (%s, routing %s, %d %s of %d packets)", n.Spec, n.Routing, n.VCs, vcs, n.Buffer)
		}
	}
	fmt.Fprintf(w, "%s: %s replay on %s%s, %d ranks, %d events\n", filepath.Base(path), res.Mode, model, detail, ranks, events)
	if p, _, err := cfg.LoadPlatform(); err == nil && p != nil {
		fmt.Fprintf(w, "platform        %s (%s)\n", p.Summary, p.File)
	}
	if res.Deadlock != nil {
		// The message reads "deadlock: a cycle …; rank …": the list below
		// details the ranks.
		kind, what, _ := strings.Cut(res.Deadlock.Message, ": ")
		what, _, _ = strings.Cut(what, "; ")
		fmt.Fprintf(w, "\n%s at %s: %s\n", strings.ToUpper(kind), units.FormatDuration(res.Deadlock.Time), what)
		for _, b := range res.Deadlock.Blocked {
			waits := make([]string, len(b.WaitsFor), len(b.WaitsFor)+1)
			for i, r := range b.WaitsFor {
				waits[i] = strconv.Itoa(r)
			}
			if b.MoreWaitsFor > 0 {
				waits = append(waits, fmt.Sprintf("and %d more", b.MoreWaitsFor))
			}
			items := b.Waiting
			if b.MoreWaiting > 0 {
				items = append(items[:len(items):len(items)], fmt.Sprintf("and %d more", b.MoreWaiting))
			}
			fmt.Fprintf(w, "  rank %d in %s, waits for ranks [%s]: %s\n", b.Rank, b.Op, strings.Join(waits, " "), strings.Join(items, "; "))
		}
		if d := res.Deadlock; d.BlockedTotal > len(d.Blocked) {
			fmt.Fprintf(w, "  … %d more blocked ranks: %s\n", d.BlockedTotal-len(d.Blocked), strings.Join(d.MoreBlocked, ", "))
		}
		for _, l := range res.Deadlock.Network {
			fmt.Fprintf(w, "  network: %s\n", l)
		}
		for _, l := range res.Deadlock.Explanation {
			fmt.Fprintf(w, "  %s\n", l)
		}
		fmt.Fprintln(w)
	}
	rec := ""
	if res.Recorded > 0 {
		rec = fmt.Sprintf(" (recorded %s, %s)", units.FormatDuration(res.Recorded), units.FormatPercentSigned((res.Makespan-res.Recorded)/res.Recorded, 1))
	}
	fmt.Fprintf(w, "makespan        %s%s\n", units.FormatDuration(res.Makespan), rec)
	if p := res.RecordedParts; p != nil && p.App > 0 && p.Startup+p.Teardown > 0.05*res.Recorded {
		// Most of the recorded span is MPI start-up or teardown, which
		// the replay does not model: compare with the rest.
		fmt.Fprintf(w, "recorded parts  %s until every rank was past MPI_Init, %s replayed (%s), %s after every rank entered MPI_Finalize\n",
			units.FormatDuration(p.Startup), units.FormatDuration(p.App), units.FormatPercentSigned((res.Makespan-p.App)/p.App, 1), units.FormatDuration(p.Teardown))
	}
	fmt.Fprintf(w, "scaled speedup  %.4g\n", res.ScaledSpeedup)
	l := res.Messages.Latency
	fmt.Fprintf(w, "messages        %d (%s)", res.Messages.Count, units.FormatBytes(res.Messages.Bytes))
	if res.Messages.Arrived != res.Messages.Count {
		// The latencies below are of every message that arrived, an
		// unreceived one too: say how many they are.
		fmt.Fprintf(w, ", %d arrived", res.Messages.Arrived)
	}
	if res.Messages.Arrived > 0 {
		fmt.Fprintf(w, ", latency min %s, median %s, p99 %s, max %s", units.FormatDuration(l.Min),
			units.FormatDuration(l.P50), units.FormatDuration(l.P99), units.FormatDuration(l.Max))
	}
	fmt.Fprintln(w)
	if res.Messages.Unmatched > 0 {
		fmt.Fprintf(w, "unmatched       %d messages never received\n", res.Messages.Unmatched)
	}
	if n := len(res.Wildcards); n > 0 {
		fmt.Fprintf(w, "any-source      %d wildcard receives matched another sender than recorded; first: rank %d event %d got rank %d's message instead of %d: %s\n",
			n, res.Wildcards[0].Rank, res.Wildcards[0].Event, res.Wildcards[0].Actual, res.Wildcards[0].Recorded, res.Wildcards[0].Next)
	}
	if n := res.Network; n != nil && n.Topology != nil {
		printNetwork(w, n)
	}
	fmt.Fprintf(w, "simulation      %d trace events, %d kernel events in %s (%s trace events/s)\n",
		res.TraceEvents, res.Events, units.FormatDuration(res.Wall), units.FormatCount(res.TraceEventsPerSec))

	rows := res.Ranks
	const maxRows = 32
	title := "\nranks"
	if len(rows) > maxRows {
		title = fmt.Sprintf("\nranks (the %d that finish last of %d; --json lists all)", maxRows, len(rows))
		rows = lastToFinish(rows, maxRows)
	}
	fmt.Fprintln(w, title)
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "rank\tnode\tfinish\tcompute\tblocked\toverhead\tcpu wait\tutil\t")
	for _, r := range rows {
		fmt.Fprintf(tw, "%d\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t\n", r.Rank, r.Node, units.FormatDuration(r.Finish),
			units.FormatDuration(r.Compute), units.FormatDuration(r.Blocked), units.FormatDuration(r.Overhead),
			units.FormatDuration(r.CPUWait), units.FormatPercent(r.Utilisation, 1))
	}
	tw.Flush()
}

// lastToFinish returns the n ranks that finish last, latest first, ranks
// finishing together in their order in ranks (a stable sort's first n).
// It keeps only those n: a sorted copy of every rank's result was 6.5 MiB
// at 65,536 ranks, written at the run's peak of memory (~1,700 page
// faults).
func lastToFinish(ranks []replay.RankResult, n int) []replay.RankResult {
	if n <= 0 {
		return nil
	}
	top := make([]int, 0, n+1) // indices into ranks, latest first
	for j := range ranks {
		f := ranks[j].Finish
		if len(top) == n && f <= ranks[top[n-1]].Finish {
			continue
		}
		// After every rank finishing at f or later: those came first.
		i := len(top)
		for i > 0 && ranks[top[i-1]].Finish < f {
			i--
		}
		top = slices.Insert(top, i, j)
		if len(top) > n {
			top = top[:n]
		}
	}
	rows := make([]replay.RankResult, len(top))
	for i, j := range top {
		rows[i] = ranks[j]
	}
	return rows
}

// noteUnread tells, on stderr, of each setting the preset or the
// configuration file set (away from its default, and not given again as a
// flag) that cfg's model does not read: a preset's SMPI factors under
// --model packet are dropped, and the user should know (a flag the model
// ignores is an error instead).
func noteUnread(e *env, cfg, fromFiles *replay.Config, flags map[string]bool, presetName, config string) {
	if presetName == "" && config == "" {
		return
	}
	var from []string
	if presetName != "" {
		from = append(from, "--preset "+presetName)
	}
	if config != "" {
		from = append(from, "--config "+config)
	}
	def := replay.Default()
	for _, st := range replay.Settings() {
		k := st.Key
		if flags[k] || st.Get(fromFiles) == st.Get(&def) {
			continue
		}
		if why := replay.Unused(cfg, k); why != "" {
			fmt.Fprintf(e.stderr, "tracesim sim: note: %s sets %s = %s, %s\n", strings.Join(from, " and "), k, st.Get(fromFiles), why)
		}
	}
}
