package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tracesim/tracesim/engine/export"
	"github.com/tracesim/tracesim/engine/preset"
	"github.com/tracesim/tracesim/engine/replay"
	"github.com/tracesim/tracesim/internal/atomicfile"
	"github.com/tracesim/tracesim/tracefmt"
)

// exportCommand is `tracesim export FILE --what …`: a trace's tables as CSV or Parquet.
func exportCommand(e *env) *cobra.Command {
	cc := newCommand("export", "write a trace's states, messages or collectives as a CSV or Parquet table", "FILE --what states|messages|collectives|sim [--to csv|parquet] [-o OUT]",
		"Write a trace's states, messages or collectives, or a simulation's predicted messages\n"+
			"(--what sim, with the machine of --preset and --config), as a table: one row per item,\n"+
			"CSV or Parquet, for pandas, polars or DuckDB. docs/formats.md lists the columns.\n"+
			"Without -o, CSV goes to standard output. Writes are atomic and stop on ctrl+c.")
	fs := cc.Flags()
	what := fs.String("what", "", "the table: "+strings.Join(export.Whats(), ", ")+" (required)")
	to := fs.String("to", "", "table format: csv or parquet (default: from OUT's extension, else csv)")
	complete(cc, "to", func() []string { return []string{"csv", "parquet"} })
	out := outputFlag(cc, "output file (default: standard output, CSV only)")
	format := readFormatFlag(cc, "input format (default: detected from content)")
	presetName := presetFlag(cc, "with --what sim: start from a Machine-tab preset ("+strings.Join(preset.Keys(), ", ")+")")
	config := fs.String("config", "", "with --what sim: read the machine's settings from this JSON or TOML file")
	var cpu float64
	fs.Var(flopsValue{&cpu}, "cpu-speed", "the CPU speed giving an untimed trace (SimGrid TI) times, e.g. 1Gf")
	cc.Args = argCount(1, 1)
	e.runs(cc, func(pos []string) int {
		if _, err := export.Columns(*what); err != nil {
			fmt.Fprintf(e.stderr, "tracesim export: --what: %v\n", err)
			usageHint(e, "export")
			return exitUsage
		}
		table := *to
		if table == "" {
			table = export.FormatOf(*out)
		}
		if table != export.CSV && table != export.Parquet {
			fmt.Fprintf(e.stderr, "tracesim export: --to %q: expected csv or parquet\n", table)
			return exitUsage
		}
		if table == export.Parquet && *out == "" {
			fmt.Fprintln(e.stderr, "tracesim export: Parquet needs an output file: give -o OUT.parquet")
			return exitUsage
		}
		if *what != export.Sim && (*presetName != "" || *config != "") {
			fmt.Fprintln(e.stderr, "tracesim export: --preset and --config choose the machine of --what sim")
			return exitUsage
		}
		inputs, err := guardOutputs(pos[0], *format, []string{*config}, output{"-o", *out})
		if err != nil {
			return fail(e, "export", err)
		}
		t, err := load(e, pos[0], *format)
		if err != nil {
			return fail(e, "export", err)
		}
		write := func(w io.Writer) error { return export.Trace(w, table, *what, t, e.ctx.Err) }
		if *what == export.Sim {
			recs, err := simulate(e, t, *presetName, *config)
			if err != nil {
				return fail(e, "export", err)
			}
			write = func(w io.Writer) error { return export.SimMessages(w, table, recs) }
		} else if !t.Timed {
			if cpu <= 0 {
				return fail(e, "export", fmt.Errorf("%s: the trace is untimed: give --cpu-speed (e.g. 1Gf) to turn its compute amounts into times", pos[0]))
			}
			if t, err = tracefmt.AssignTimes(t, cpu); err != nil {
				return fail(e, "export", fmt.Errorf("%s: assigning times: %w", pos[0], err))
			}
		}
		if *out == "" {
			err = write(e.stdout)
		} else {
			err = atomicfile.WriteWith(*out, atomicfile.Options{Inputs: inputs, Gzip: atomicfile.Gzipped(*out)}, func(w io.Writer) error {
				return write(atomicfile.Stopping(w, e.ctx.Err))
			})
		}
		if err != nil {
			if e.ctx.Err() != nil && errors.Is(err, e.ctx.Err()) {
				err = fmt.Errorf("interrupted: %w (no output written)", err)
			}
			return fail(e, "export", err)
		}
		return exitOK
	})
	return cc
}

// simulate replays t on the machine of a preset and a configuration file
// and returns the messages it predicts.
func simulate(e *env, t *tracefmt.Trace, presetName, config string) ([]replay.MessageRecord, error) {
	cfg := replay.Default()
	if presetName != "" {
		p, err := preset.Lookup(presetName)
		if err == nil {
			err = p.Apply(&cfg)
		}
		if err != nil {
			return nil, fmt.Errorf("--preset %w", err)
		}
	}
	if config != "" {
		if err := cfg.LoadFile(config); err != nil {
			return nil, fmt.Errorf("--config %w", err)
		}
	}
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("invalid settings: %w", err)
	}
	s, err := replay.New(t, cfg, replay.Options{RecordMessages: true})
	if err != nil {
		return nil, err
	}
	if err := s.Run(e.ctx); err != nil {
		return nil, err
	}
	return s.Messages(), nil
}
