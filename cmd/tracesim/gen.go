package main

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/tracesim/tracesim/tracefmt/formats"
	"github.com/tracesim/tracesim/tracefmt/gen"
	"github.com/tracesim/tracesim/tracefmt/units"
)

// genCommand is `tracesim gen PATTERN -o FILE`: a synthetic trace.
func genCommand(e *env) *cobra.Command {
	var names []string
	for _, p := range gen.Patterns() {
		names = append(names, p.Name)
	}
	cc := newCommand("gen", "generate a synthetic trace of a communication pattern", "PATTERN -o FILE [flags]",
		"Generate a synthetic MPI trace of a classic communication pattern, timed as a\n"+
			"real run could have been (MPI states around every call, latency-respecting\n"+
			"timestamps). The same flags and seed always give the same file.\n\n"+
			"Patterns: "+strings.Join(names, ", ")+" (tracesim gen --list for details).")
	fs := cc.Flags()
	o := gen.Options{Compute: -1}
	out := outputFlag(cc, "output file (required)")
	format := writeFormatFlag(cc, "format", "output format: "+strings.Join(formats.Names(true), ", ")+" (default: from -o's extension, else tsim)")
	list := fs.Bool("list", false, "list the patterns with their defaults and exit")
	fs.IntVar(&o.Ranks, "ranks", 0, "number of ranks (default: the pattern's)")
	fs.IntVar(&o.Iters, "iters", 0, "iterations (default: the pattern's)")
	fs.Var(sizeValue{&o.Size}, "size", "message size, e.g. 4KiB (default: the pattern's)")
	fs.Var(durationValue{&o.Compute}, "compute", "computation per iteration per rank, e.g. 1ms; 0 for none (default: the pattern's)")
	fs.Int64Var(&o.Seed, "seed", 1, "random seed")
	fs.Var(durationValue{&o.Skew}, "skew", "largest per-rank clock offset (adds offset and drift), e.g. 50us")
	fs.Var(durationValue{&o.Latency}, "latency", "network latency of the timing model, e.g. 2us")
	fs.Var(rateValue{&o.Bandwidth}, "bandwidth", "network bandwidth of the timing model, e.g. 10Gb/s")
	fs.Var(durationValue{&o.Overhead}, "overhead", "the CPU time of one MPI call, e.g. 500ns")
	fs.Float64Var(&o.Jitter, "jitter", 0, "relative spread of computation times, in [0, 1)")
	cc.Args = argCount(0, 1)
	e.runs(cc, func(pos []string) int {
		if *list {
			tw := tabwriter.NewWriter(e.stdout, 2, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "PATTERN\tRANKS\tITERS\tSIZE\tCOMPUTE\tDESCRIPTION")
			for _, p := range gen.Patterns() {
				fmt.Fprintf(tw, "%s\t%d (%s)\t%d\t%s\t%s\t%s\n", p.Name, p.DefaultRanks, p.Ranks, p.DefaultIters,
					units.FormatBytes(p.DefaultSize), units.FormatDuration(p.DefaultCompute), p.Description)
			}
			tw.Flush()
			return exitOK
		}
		if len(pos) != 1 {
			fmt.Fprintln(e.stderr, "tracesim gen: expected a PATTERN (one of "+strings.Join(names, ", ")+")")
			return exitUsage
		}
		if *out == "" {
			fmt.Fprintln(e.stderr, "tracesim gen: -o FILE is required")
			return exitUsage
		}
		if *format != "" {
			if _, err := formats.Lookup(*format); err != nil {
				fmt.Fprintf(e.stderr, "tracesim gen: --format: %v\n", err)
				return exitUsage
			}
		}
		o.Pattern = pos[0]
		if _, err := o.Normalize(); err != nil {
			fmt.Fprintf(e.stderr, "tracesim gen: %s\n", strings.TrimPrefix(err.Error(), "gen: ")) // the package names itself; the command already does
			return exitUsage
		}
		t, err := gen.GenerateContext(e.ctx, o)
		if err != nil {
			return fail(e, "gen", err)
		}
		if err := formats.SaveWith(*out, *format, t, formats.WriteOptions{Context: e.ctx}); err != nil {
			return fail(e, "gen", err)
		}
		return exitOK
	})
	return cc
}
