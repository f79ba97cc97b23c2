package main

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/tracefmt/formats"
	"github.com/tracesim/tracesim/tracefmt/units"
)

// infoCommand is `tracesim info FILE`: a summary of a trace.
func infoCommand(e *env) *cobra.Command {
	cc := newCommand("info", "summarise a trace (format, ranks, events, states, messages)", "FILE [--json] [--format NAME]",
		"Summarise a trace: format, ranks, timed or untimed, events, states (count, total time),\n"+
			"messages (matched, unmatched, wildcard receives), bytes, duration, events per rank.\n"+
			"The JSON output is documented in docs/cli.md.")
	fs := cc.Flags()
	asJSON := fs.Bool("json", false, "print JSON")
	format := readFormatFlag(cc, "read as this format instead of detecting it (see 'tracesim formats')")
	cc.Args = argCount(1, 1)
	e.runs(cc, func(pos []string) int {
		t, err := load(e, pos[0], *format)
		if err != nil {
			return fail(e, "info", err)
		}
		s := tracefmt.Summarize(t)
		if *asJSON {
			return writeJSON(e, "info", s)
		}
		printSummary(e.stdout, pos[0], s)
		return exitOK
	})
	return cc
}

// load opens a trace for a headless command.
func load(e *env, path, format string) (*tracefmt.Trace, error) {
	start := time.Now()
	prog := newTermProgress(e, "loading "+filepath.Base(path))
	t, _, err := formats.Open(e.ctx, path, format, prog.loadProgress())
	prog.finish()
	if err != nil {
		e.debug("file not loaded", "path", path, "err", err)
		return nil, err
	}
	e.debug("file loaded", "path", path, "format", t.Format, "ranks", len(t.Ranks), "elapsed", time.Since(start))
	return t, nil
}

func writeJSON(e *env, name string, v any) int {
	enc := json.NewEncoder(e.stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return fail(e, name, err)
	}
	return exitOK
}

func printSummary(w io.Writer, path string, s tracefmt.Summary) {
	timed := "timed"
	if !s.Timed {
		timed = "untimed (order and compute amounts only)"
	}
	fmt.Fprintf(w, "%s: %s trace, %d ranks, %s\n", path, s.Format, s.Ranks, timed)
	fmt.Fprintf(w, "events      %d\n", s.Events)
	if s.Timed {
		fmt.Fprintf(w, "duration    %s (from %s)\n", units.FormatDuration(s.Duration), units.FormatDuration(s.Start))
	}
	m := s.Messages
	fmt.Fprintf(w, "messages    %d matched, %d unmatched sends, %d unmatched receives, %d wildcard receives\n",
		m.Matched, m.UnmatchedSends, m.UnmatchedRecvs, m.WildcardRecvs)
	fmt.Fprintf(w, "bytes       %s point-to-point, %s in %d collective calls\n",
		units.FormatBytes(s.Bytes), units.FormatBytes(s.CollectiveBytes), s.Collectives)
	if s.CollectivesSizeUnknown > 0 {
		fmt.Fprintf(w, "warning     %s\n", tracefmt.SizeUnknownNote(s.CollectivesSizeUnknown))
	}
	if s.Compute.Bursts > 0 {
		fmt.Fprintf(w, "compute     %d bursts", s.Compute.Bursts)
		if s.Compute.Seconds > 0 {
			fmt.Fprintf(w, ", %s", units.FormatDuration(s.Compute.Seconds))
		}
		if s.Compute.Flops > 0 {
			fmt.Fprintf(w, ", %s", units.FormatFlops(s.Compute.Flops))
		}
		fmt.Fprintln(w)
	}
	if len(s.States) > 0 {
		fmt.Fprintln(w, "\nstates")
		tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "name\tcategory\tcount\ttotal\t")
		for _, st := range s.States {
			fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t\n", st.Name, st.Category, st.Count, units.FormatDuration(st.Total))
		}
		tw.Flush()
	}
	fmt.Fprintln(w, "\nevents per rank")
	if len(s.RankEvents) <= 16 {
		for r, n := range s.RankEvents {
			fmt.Fprintf(w, "  %4d %d\n", r, n)
		}
		return
	}
	// A line per rank would scroll the summary away on big runs: say how
	// the events spread, and name the extremes (--json lists every rank).
	lo, hi, sum := 0, 0, 0
	for r, n := range s.RankEvents {
		if n < s.RankEvents[lo] {
			lo = r
		}
		if n > s.RankEvents[hi] {
			hi = r
		}
		sum += n
	}
	fmt.Fprintf(w, "  min %d (rank %d), mean %.0f, max %d (rank %d); --json lists every rank\n",
		s.RankEvents[lo], lo, float64(sum)/float64(len(s.RankEvents)), s.RankEvents[hi], hi)
}
