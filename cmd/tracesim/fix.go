package main

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tracesim/tracesim/engine/causality"
	"github.com/tracesim/tracesim/tracefmt/formats"
	"github.com/tracesim/tracesim/tracefmt/units"
)

// methodValue is the --method flag.
type methodValue struct{ v *causality.Method }

func (m methodValue) String() string {
	if m.v == nil {
		return ""
	}
	return m.v.String()
}

// Type names the value in pflag's usage.
func (methodValue) Type() string { return "string" }

// values lists the methods, for completions.
func (methodValue) values() []string { return []string{"offsets", "clc", "both"} }

func (m methodValue) Set(s string) error {
	x, err := causality.ParseMethod(s)
	if err != nil {
		return errors.New("want offsets, clc or both")
	}
	*m.v = x
	return nil
}

// fixJSON is the output of `tracesim fix --json` (docs/causality.md).
type fixJSON struct {
	File             string         `json:"file"`
	Output           string         `json:"output"`
	OutputFormat     string         `json:"output_format"`
	Method           string         `json:"method"`
	LMin             float64        `json:"lmin_s"`
	ViolationsBefore int            `json:"violations_before"`
	ViolationsAfter  int            `json:"violations_after"`
	Before           map[string]int `json:"before"`
	After            map[string]int `json:"after"`
	Offsets          []float64      `json:"offsets_s"`
	NegativeCycle    []int          `json:"negative_cycle"`
	Passes           int            `json:"passes"`
	Jumps            int            `json:"jumps"`
	MaxShift         float64        `json:"max_shift_s"`
	MaxShiftAt       *eventRefJSON  `json:"max_shift_at"`
	Broken           int            `json:"broken_edges"`
}

// eventRefJSON is a tracefmt.EventRef in JSON.
type eventRefJSON struct {
	Rank  int32 `json:"rank"`
	Index int32 `json:"index"`
}

// fixCommand is `tracesim fix FILE -o OUT`: timestamps corrected.
func fixCommand(e *env) *cobra.Command {
	cc := newCommand("fix", "correct timestamps so that every message is received after it was sent", "FILE -o OUT [--method offsets|clc|both] [--lmin DUR] [--format NAME] [--to FORMAT] [--json]",
		"Correct the timestamps of a trace so that every message is received after it was sent\n"+
			"(plus --lmin) and every collective is left after the ranks it waits for entered, and\n"+
			"write the corrected trace to OUT: in the input's format when tracesim writes it, else\n"+
			"in tsim (--to overrides). Methods: offsets (constant per-rank clock offsets, when they\n"+
			"exist), clc (the controlled logical clock, which keeps local intervals within\n"+
			"[0.99999, 1.01] of their length), both (offsets, then the CLC; the default).\n"+
			"Exit status 0 when no violation is left, 3 when some are (causal cycles), 1 on errors.\n"+
			"See docs/causality.md.")
	fs := cc.Flags()
	out := outputFlag(cc, "output file (required)")
	format := readFormatFlag(cc, "input format (default: detected from content)")
	to := writeFormatFlag(cc, "to", "output format (default: the input's when writable, else tsim)")
	asJSON := fs.Bool("json", false, "print a JSON summary")
	var o causality.CorrectOptions
	fs.Var(methodValue{&o.Method}, "method", "correction method: offsets, clc or both")
	fs.Var(durationValue{&o.LMin}, "lmin", "minimum message latency every corrected message respects, e.g. 1us")
	cc.Args = argCount(1, 1)
	e.runs(cc, func(pos []string) int {
		if *out == "" {
			fmt.Fprintln(e.stderr, "tracesim fix: -o OUT is required")
			usageHint(e, "fix")
			return exitUsage
		}
		if *to != "" {
			f, err := formats.Lookup(*to)
			if err == nil && !f.Writable() {
				err = fmt.Errorf("tracesim cannot write %s (writable: %s)", f.Name, strings.Join(formats.Names(true), ", "))
			}
			if err != nil {
				fmt.Fprintf(e.stderr, "tracesim fix: --to: %v\n", err)
				return exitUsage
			}
		}
		inputs, err := guardOutputs(pos[0], *format, nil, output{"-o", *out})
		if err != nil {
			return fail(e, "fix", err)
		}
		prog := newTermProgress(e, "loading "+filepath.Base(pos[0]))
		t, fm, err := formats.Open(e.ctx, pos[0], *format, prog.loadProgress())
		prog.finish()
		if err != nil {
			return fail(e, "fix", err)
		}
		c, err := causality.Correct(e.ctx, t, o)
		if err != nil {
			return fail(e, "fix", fmt.Errorf("%s: %w", pos[0], err))
		}
		outFormat := *to
		if outFormat == "" {
			outFormat = "tsim"
			if fm.Writable() {
				outFormat = fm.Name
			}
		}
		if err := formats.SaveWith(*out, outFormat, c.Trace, formats.WriteOptions{Inputs: inputs, Context: e.ctx}); err != nil {
			return fail(e, "fix", err)
		}
		if *asJSON {
			j := fixJSON{
				File: pos[0], Output: *out, OutputFormat: outFormat, Method: c.Method.String(), LMin: c.LMin,
				ViolationsBefore: c.ViolationsBefore(), ViolationsAfter: c.ViolationsAfter(),
				Before: clockCounts(&c.Before), After: clockCounts(&c.After),
				Offsets: c.Offsets, NegativeCycle: c.NegativeCycle, Passes: c.Passes, Jumps: c.Jumps,
				MaxShift: c.MaxShift, Broken: len(c.Broken),
			}
			if c.MaxShift > 0 {
				j.MaxShiftAt = &eventRefJSON{c.MaxShiftAt.Rank, c.MaxShiftAt.Index}
			}
			if j.NegativeCycle == nil {
				j.NegativeCycle = []int{}
			}
			if code := writeJSON(e, "fix", j); code != exitOK {
				return code
			}
		} else {
			printFix(e.stdout, pos[0], *out, outFormat, c)
		}
		if c.ViolationsAfter() > 0 {
			return exitFindings
		}
		return exitOK
	})
	return cc
}

// clockCounts returns the counts of the clock kinds by name.
func clockCounts(a *[causality.NumKinds]int) map[string]int {
	m := map[string]int{}
	for k := range causality.NumKinds {
		if k.Class() == causality.ClassClock {
			m[k.String()] = a[k]
		}
	}
	return m
}

func printFix(w io.Writer, in, out, format string, c *causality.Correction) {
	fmt.Fprintf(w, "%s: %d clock violations before, %d after (method %s, l_min %s)\n",
		in, c.ViolationsBefore(), c.ViolationsAfter(), c.Method, units.FormatDuration(c.LMin))
	switch {
	case c.Offsets != nil:
		lo, hi := c.Offsets[0], c.Offsets[0]
		for _, x := range c.Offsets {
			lo, hi = min(lo, x), max(hi, x)
		}
		fmt.Fprintf(w, "offsets:    %d ranks shifted by %s to %s", len(c.Offsets), signed(lo), signed(hi))
		if len(c.Offsets) <= 8 {
			parts := make([]string, len(c.Offsets))
			for r, x := range c.Offsets {
				parts[r] = signed(x)
			}
			fmt.Fprintf(w, " (%s)", strings.Join(parts, ", "))
		}
		fmt.Fprintln(w)
	case c.Method != causality.MethodCLC:
		fmt.Fprintf(w, "offsets:    none exist (negative cycle through ranks %v: the clocks drift)\n", c.NegativeCycle)
	}
	switch {
	case c.Method == causality.MethodOffsets:
	case c.Passes == 0:
		fmt.Fprintln(w, "clc:        not needed")
	default:
		fmt.Fprintf(w, "clc:        %d pass(es), %d receives and collective exits moved later\n", c.Passes, c.Jumps)
	}
	if c.MaxShift > 0 {
		fmt.Fprintf(w, "max shift:  %s (rank %d event %d)\n", units.FormatDuration(c.MaxShift), c.MaxShiftAt.Rank, c.MaxShiftAt.Index)
	} else {
		fmt.Fprintln(w, "max shift:  0 (nothing to correct)")
	}
	if len(c.Broken) > 0 {
		fmt.Fprintf(w, "warning:    %d messages or collectives close causal cycles and were left as they are\n", len(c.Broken))
	}
	fmt.Fprintf(w, "wrote %s (%s)\n", out, format)
}

// signed formats a duration with its sign.
func signed(x float64) string {
	if x < 0 {
		return "-" + units.FormatDuration(-x)
	}
	return "+" + units.FormatDuration(x)
}
