package main

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"runtime"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/tracesim/tracesim/engine/causality"
	"github.com/tracesim/tracesim/engine/replay"
	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/tracefmt/formats"
	"github.com/tracesim/tracesim/tracefmt/units"
)

// defaultCheckLimit is how many findings the check table lists.
const defaultCheckLimit = 20

// replayPolicyValue is the --replay flag: auto, on or off.
type replayPolicyValue struct{ v *causality.ReplayPolicy }

func (r replayPolicyValue) String() string {
	if r.v == nil {
		return ""
	}
	return [...]string{"auto", "off", "on"}[*r.v]
}

// Type names the value in pflag's usage.
func (replayPolicyValue) Type() string { return "string" }

// values lists the policies, for completions.
func (replayPolicyValue) values() []string { return []string{"auto", "on", "off"} }

func (r replayPolicyValue) Set(s string) error {
	switch s {
	case "auto":
		*r.v = causality.ReplayAuto
	case "on", "true":
		*r.v = causality.ReplayOn
	case "off", "false":
		*r.v = causality.ReplayOff
	default:
		return fmt.Errorf("want auto, on or off, got %q", s)
	}
	return nil
}

// checkJSON is the output of `tracesim check --json` (docs/causality.md).
type checkJSON struct {
	File        string         `json:"file"`
	Format      string         `json:"format"`
	Ranks       int            `json:"ranks"`
	Timed       bool           `json:"timed"`
	Events      int            `json:"events"`
	Messages    int            `json:"messages"`
	Collectives int            `json:"collectives"`
	LMin        float64        `json:"lmin_s"`
	Counts      map[string]int `json:"counts"`
	// ViolationCount counts every violation; Violations lists them
	// (the largest clock violations first), at most --limit of them, the
	// rest counted in Omitted.
	ViolationCount int                     `json:"violation_count"`
	Violations     []causality.FindingJSON `json:"violations"`
	Omitted        int                     `json:"omitted"`
	Notes          []causality.FindingJSON `json:"notes"`
	Replayed       bool                    `json:"replayed"`
	ReplayError    string                  `json:"replay_error,omitempty"`
	Deadlock       *replay.Deadlock        `json:"deadlock"`
	// ReplayNotes are the choices the causal replay made for the trace.
	ReplayNotes []string `json:"replay_notes"`
}

// checkCommand is `tracesim check FILE`: causality and deadlock checks (exit 3 on findings).
func checkCommand(e *env) *cobra.Command {
	cc := newCommand("check", "check causality: reversed messages, clock skew, unmatched messages, deadlocks", "FILE [--json] [--lmin DUR] [--format NAME] [--replay auto|on|off] [--limit N]",
		"Check the causality of a trace: messages received before they were sent (or sooner than\n"+
			"--lmin after), collectives left before the ranks they wait for entered, clocks running\n"+
			"backwards, unmatched or mismatched messages and collectives, wildcard receives,\n"+
			"non-deterministic calls, and deadlocks of a causal replay.\n"+
			"Exit status 0 when the trace is clean, 3 when it has violations (notes alone do not\n"+
			"count). 'tracesim fix' corrects the clock violations. See docs/causality.md.")
	fs := cc.Flags()
	asJSON := fs.Bool("json", false, "print JSON")
	format := readFormatFlag(cc, "read as this format instead of detecting it (see 'tracesim formats')")
	var o causality.Options
	fs.Var(durationValue{&o.LMin}, "lmin", "minimum message latency, e.g. 1us: also report messages faster than it; 0 reports only reversals")
	fs.Var(replayPolicyValue{&o.Replay}, "replay", fmt.Sprintf("replay the trace causally to find deadlocks: auto (traces up to %d events), on, off", causality.AutoReplayEvents))
	limit := fs.Int("limit", -1, fmt.Sprintf("list at most N violations, 0 for all (default %d in the table, all in JSON)", defaultCheckLimit))
	cc.Args = argCount(1, 1)
	e.runs(cc, func(pos []string) int {
		prog := newTermProgress(e, "loading "+filepath.Base(pos[0]))
		t, fm, err := formats.Open(e.ctx, pos[0], *format, prog.loadProgress())
		prog.finish()
		if err != nil {
			return fail(e, "check", err)
		}
		// The load's garbage (read buffers, per-rank decoding state: 40 MiB
		// of a 10 M-event trace at 65,536 ranks) is collected before the
		// check allocates, so that its graph reuses those pages instead of
		// raising the peak: the heap's next collection would come only at
		// twice the trace.
		runtime.GC()
		rep, err := causality.Check(e.ctx, t, o)
		if err != nil {
			return fail(e, "check", fmt.Errorf("%s: %w", pos[0], err))
		}
		n := *limit
		if n < 0 {
			n = defaultCheckLimit
			if *asJSON {
				n = 0
			}
		}
		violation := func(f *causality.Finding) bool { return f.Kind.Violation() }
		top := rep.Top(n, violation)
		if *asJSON {
			out := checkJSON{
				File: pos[0], Format: fm.Name, Ranks: t.Size(), Timed: t.Timed, Events: rep.Events,
				Messages: rep.Messages, Collectives: rep.Collectives, LMin: o.LMin, Counts: rep.CountMap(),
				ViolationCount: rep.Violations(), Violations: []causality.FindingJSON{}, Notes: []causality.FindingJSON{},
				Replayed: rep.Replayed, ReplayError: rep.ReplayError, Deadlock: rep.Deadlock,
				ReplayNotes: append([]string{}, rep.ReplayNotes...),
			}
			for i := range top {
				out.Violations = append(out.Violations, rep.JSON(&top[i]))
			}
			out.Omitted = out.ViolationCount - len(top)
			for _, f := range rep.Top(n, func(f *causality.Finding) bool { return !f.Kind.Violation() }) {
				out.Notes = append(out.Notes, rep.JSON(&f))
			}
			if c := writeJSON(e, "check", out); c != exitOK {
				return c
			}
		} else {
			printCheck(e.stdout, pos[0], fm.Name, t, rep, top)
		}
		if rep.Violations() > 0 {
			return exitFindings
		}
		return exitOK
	})
	return cc
}

// printCheck writes the human-readable report: a summary, the counts by
// kind, then the largest violations.
func printCheck(w io.Writer, path, format string, t *tracefmt.Trace, rep *causality.Report, top []causality.Finding) {
	fmt.Fprintf(w, "%s: %s trace, %d ranks, %d events, %d messages, %d collective calls", path, format, t.Size(), rep.Events, rep.Messages, rep.Collectives)
	if t.Timed {
		fmt.Fprintf(w, ", l_min %s\n", units.FormatDuration(rep.LMin))
	} else {
		fmt.Fprintln(w, ", untimed (no clock checks)")
	}
	switch {
	case rep.Replayed && rep.Deadlock == nil:
		fmt.Fprintln(w, "causal replay: ran to the end")
		for _, n := range rep.ReplayNotes {
			fmt.Fprintf(w, "  note: %s\n", n)
		}
	case rep.Replayed:
		fmt.Fprintf(w, "causal replay: %s\n", rep.Deadlock.Message)
	case rep.ReplayError != "":
		fmt.Fprintf(w, "causal replay: could not run: %s\n", rep.ReplayError)
	default:
		fmt.Fprintln(w, "causal replay: not run (--replay on to run it)")
	}
	notes := rep.Total() - rep.Violations()
	if rep.Violations() == 0 {
		fmt.Fprintf(w, "\nno violations")
		if notes > 0 {
			fmt.Fprintf(w, "; %d notes", notes)
		}
		fmt.Fprintln(w)
	} else {
		fmt.Fprintf(w, "\n%d violations (%d clock, %d defects), %d notes\n", rep.Violations(), rep.ClockViolations(), rep.Violations()-rep.ClockViolations(), notes)
	}
	if rep.Total() > 0 {
		fmt.Fprintln(w)
		tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "KIND\tCLASS\tCOUNT\tLARGEST")
		for k := range causality.NumKinds {
			fs := rep.ByKind[k]
			if len(fs) == 0 {
				continue
			}
			largest := "-"
			if k.Class() == causality.ClassClock {
				m := 0.0
				for i := range fs {
					m = max(m, fs[i].Amount)
				}
				largest = units.FormatDuration(m)
			}
			fmt.Fprintf(tw, "%s\t%s\t%d\t%s\n", k, k.Class(), len(fs), largest)
		}
		tw.Flush()
	}
	if len(top) == 0 {
		return
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "KIND\tEVENTS (RANK:INDEX)\tTIMES\tAMOUNT\tDETAIL")
	for i := range top {
		f := &top[i]
		var evs, times []string
		// Precise enough that the finding's times differ in print
		// (a µs-sized reversal late in a run).
		res := 0.0
		for j := 1; j < len(f.Times); j++ {
			if d := math.Abs(f.Times[j] - f.Times[j-1]); d > 0 && (res == 0 || d/10 < res) {
				res = d / 10
			}
		}
		for j, ref := range f.Events {
			if ref.Rank < 0 {
				continue
			}
			evs = append(evs, fmt.Sprintf("%d:%d", ref.Rank, ref.Index))
			if t.Timed {
				times = append(times, units.FormatDurationRes(f.Times[j], res))
			}
		}
		amount := "-"
		switch f.Kind.AmountUnit() {
		case "s":
			amount = units.FormatDuration(f.Amount)
		case "B":
			amount = signedBytes(f.Amount)
		}
		tm := strings.Join(times, " → ")
		if tm == "" {
			tm = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", f.Kind, strings.Join(evs, " → "), tm, amount, rep.Detail(f))
	}
	tw.Flush()
	if rest := rep.Violations() - len(top); rest > 0 {
		fmt.Fprintf(w, "… and %d more violations (--limit N to list more, --limit 0 or --json for all)\n", rest)
	}
}

// signedBytes writes a byte difference with its sign: "+1.5 KiB", "-12 B".
func signedBytes(b float64) string {
	s := units.FormatBytes(int64(math.Round(b)))
	if b > 0 {
		s = "+" + s
	}
	return s
}
