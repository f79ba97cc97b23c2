package main

import (
	"errors"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/tracesim/tracesim/tracefmt/formats"
)

// convertCommand is `tracesim convert IN -o OUT`.
func convertCommand(e *env) *cobra.Command {
	cc := newCommand("convert", "convert a trace between formats", "IN -o OUT [--to FORMAT] [--format NAME]",
		"Convert a trace between formats. The output format is --to, else OUT's extension.\n"+
			"Run 'tracesim formats' for the list.\n"+
			"Writes are atomic: OUT is replaced only once the new file is complete.")
	fs := cc.Flags()
	out := outputFlag(cc, "output file (required)")
	to := writeFormatFlag(cc, "to", "output format (default: from OUT's extension)")
	format := readFormatFlag(cc, "input format (default: detected from content)")
	var cpu float64
	fs.Var(flopsValue{&cpu}, "cpu-speed", "the CPU speed converting work and time, e.g. 1Gf: needed to write an untimed trace\n(SimGrid TI) in a timed format; for TI output, the speed turning computation time into flops (default 1Gf)")
	cc.Args = argCount(1, 1)
	e.runs(cc, func(pos []string) int {
		if *out == "" {
			fmt.Fprintln(e.stderr, "tracesim convert: -o OUT is required")
			usageHint(e, "convert")
			return exitUsage
		}
		if *to == "" && formats.OutputFormat(*out) == nil {
			fmt.Fprintf(e.stderr, "tracesim convert: cannot tell the output format from %q: give --to (one of %s)\n",
				*out, strings.Join(formats.Names(true), ", "))
			return exitUsage
		}
		inputs, err := guardOutputs(pos[0], *format, nil, output{"-o", *out})
		if err != nil {
			return fail(e, "convert", err)
		}
		t, err := load(e, pos[0], *format)
		if err != nil {
			return fail(e, "convert", err)
		}
		if err := formats.SaveWith(*out, *to, t, formats.WriteOptions{CPUSpeed: cpu, Inputs: inputs, Context: e.ctx}); err != nil {
			if e.ctx.Err() != nil && errors.Is(err, e.ctx.Err()) {
				err = fmt.Errorf("interrupted: %w (%s not written)", err, *out)
			}
			return fail(e, "convert", err)
		}
		return exitOK
	})
	return cc
}

// formatsCommand is `tracesim formats`: the formats read and written.
func formatsCommand(e *env) *cobra.Command {
	cc := newCommand("formats", "list the trace formats tracesim reads and writes", "", "List the trace formats tracesim reads and writes.")
	cc.Args = argCount(0, 0)
	e.runs(cc, func([]string) int {
		tw := tabwriter.NewWriter(e.stdout, 2, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "NAME\tREAD\tWRITE\tEXTENSIONS\tDESCRIPTION")
		yes := func(b bool) string {
			if b {
				return "yes"
			}
			return "-"
		}
		for _, f := range formats.All() {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", f.Name, yes(f.Readable()), yes(f.Writable()), strings.Join(f.Extensions, " "), f.Description)
		}
		tw.Flush()
		fmt.Fprintln(e.stdout, "\nA gzip or bzip2 file (.gz, .bz2) is read as the trace it holds; an output named .gz is written gzipped.")
		return exitOK
	})
	return cc
}
