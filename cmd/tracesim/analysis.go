package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/tracesim/tracesim/engine/analysis"
	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/tracefmt/units"
)

// The stats, matrix and sizes commands print what the Stats, Matrix and
// Sizes tabs show, computed by the same engine/analysis functions.

// scope is the part of a trace an analysis command looks at: the flags
// every one of them takes, and what they resolve to once the trace is
// read.
type scope struct {
	window, ranks, format string
	asJSON                bool

	win      analysis.Window
	rankList []int // nil: every rank
	// jsonWindow is the window as given, in seconds from the trace's
	// start, for the JSON output; nil for the whole run.
	jsonWindow *windowJSON
}

// windowJSON is a window in seconds from the trace's first timestamp, as
// the Timeline's ruler counts.
type windowJSON struct {
	Start float64 `json:"start_s"`
	End   float64 `json:"end_s"`
}

// addScopeFlags declares the flags every analysis command takes.
func addScopeFlags(cc *cobra.Command) *scope {
	s := &scope{}
	fs := cc.Flags()
	fs.StringVar(&s.window, "window", "", "only the window `START:END`: durations from the trace's start, as the Timeline's\nruler shows them (1ms:2.5ms; either side may be empty)")
	fs.StringVar(&s.ranks, "ranks", "", "only these ranks: a `LIST` of ranks and ranges (0-3,8,12-)")
	fs.BoolVar(&s.asJSON, "json", false, "print JSON")
	readFormatVar(cc, &s.format, "read as this format instead of detecting it (see 'tracesim formats')")
	return s
}

// resolve reads the window and the ranks against the trace; errors name
// the flag and what was expected.
func (s *scope) resolve(tr *tracefmt.Trace, path string) error {
	s.win = analysis.All()
	if s.window != "" {
		if !tr.Timed {
			return fmt.Errorf("--window: %s is untimed: it records no times to window by", path)
		}
		start, end := tr.Span()
		w, err := analysis.ParseWindow(s.window, start, tr.Unit.Seconds())
		if err != nil {
			return fmt.Errorf("--window: %w", err)
		}
		s.win = w
		sec := tr.Unit.Seconds()
		s.jsonWindow = &windowJSON{Start: (max(w.Start, start) - start) * sec, End: (min(w.End, end) - start) * sec}
	}
	if s.ranks != "" {
		r, err := analysis.ParseRanks(s.ranks, tr.Size())
		if err != nil {
			return fmt.Errorf("--ranks: %w", err)
		}
		s.rankList = r
	}
	return nil
}

// describe says in words what part of the trace the output covers.
func (s *scope) describe() string {
	who := "all ranks"
	if s.rankList != nil {
		who = "ranks " + s.ranks
	}
	when := "whole run"
	if w := s.jsonWindow; w != nil {
		when = "window " + units.FormatDuration(w.Start) + "–" + units.FormatDuration(w.End)
	}
	return who + " · " + when
}

// loadScoped reads the trace of command name and resolves its scope;
// code ≥ 0 means return it.
func loadScoped(e *env, name string, s *scope, pos []string) (*tracefmt.Trace, string, int) {
	tr, err := load(e, pos[0], s.format)
	if err != nil {
		return nil, "", fail(e, name, err)
	}
	if err := s.resolve(tr, pos[0]); err != nil {
		fmt.Fprintf(e.stderr, "tracesim %s: %v\n", name, err)
		usageHint(e, name)
		return nil, "", exitUsage
	}
	return tr, pos[0], -1
}

// choice is a flag value that must be one of a few words.
type choice struct {
	v       *string
	allowed []string
}

func (c choice) String() string {
	if c.v == nil {
		return ""
	}
	return *c.v
}

// Type names the value in pflag's usage.
func (c choice) Type() string { return "string" }

// values lists the words, for completions.
func (c choice) values() []string { return c.allowed }

func (c choice) Set(v string) error {
	for _, a := range c.allowed {
		if v == a {
			*c.v = v
			return nil
		}
	}
	return fmt.Errorf("%q: expected %s", v, strings.Join(c.allowed, ", "))
}

// StatsJSON is the output of `tracesim stats --json`.
type StatsJSON struct {
	File   string      `json:"file"`
	Timed  bool        `json:"timed"`
	Window *windowJSON `json:"window,omitempty"`
	// Ranks lists the per-rank profile, in the order of --sort.
	Ranks []RankJSON `json:"ranks"`
	// Functions lists the functions called, in the order of --sort.
	Functions []FuncJSON `json:"functions"`
}

// RankJSON is one row of the per-rank profile; times in seconds.
type RankJSON struct {
	Rank    int     `json:"rank"`
	Compute float64 `json:"compute_s"`
	User    float64 `json:"user_s"`
	MPI     float64 `json:"mpi_s"`
	Waiting float64 `json:"waiting_s"`
	IO      float64 `json:"io_s"`
	Span    float64 `json:"span_s"`
	Burst   float64 `json:"burst_s"`
	Work    float64 `json:"work_flops"`
	Sends   int64   `json:"sends"`
	Bytes   int64   `json:"bytes"`
}

// FuncJSON is one row of the function summary; times in seconds, Percent
// of the ranks' summed spans (the tab's % column).
type FuncJSON struct {
	Name     string  `json:"name"`
	Category string  `json:"category"`
	Calls    int     `json:"calls"`
	Total    float64 `json:"total_s"`
	Mean     float64 `json:"mean_s"`
	Max      float64 `json:"max_s"`
	Percent  float64 `json:"percent"`
}

// statsSortKey is a --sort name: a table (0 ranks, 1 functions) and a
// column of it (analysis.RankColumns, analysis.FuncColumns).
type statsSortKey struct {
	name  string
	table int
	col   int
	timed int // 1: timed traces only, 2: untimed only, 0: both
}

func statsSortKeys() []statsSortKey {
	return []statsSortKey{
		{"rank", 0, 0, 0}, {"compute", 0, 1, 0}, {"user", 0, 2, 1}, {"mpi", 0, 3, 1}, {"waiting", 0, 4, 1}, {"io", 0, 5, 1},
		{"work", 0, 2, 2}, {"sends", 0, 3, 2}, {"bytes", 0, 4, 2},
		{"name", 1, 0, 0}, {"calls", 1, 1, 0}, {"total", 1, 2, 0}, {"mean", 1, 3, 0}, {"max", 1, 4, 0},
	}
}

func statsSortNames() []string {
	var n []string
	for _, k := range statsSortKeys() {
		n = append(n, k.name)
	}
	return n
}

// statsCommand is `tracesim stats FILE`: the Stats tab headless.
func statsCommand(e *env) *cobra.Command {
	cc := newCommand("stats", "print the Stats tab: per-rank profile and MPI function summary", "FILE [--window START:END] [--ranks LIST] [--sort COLUMN] [--reverse] [--json]",
		"Print the Stats tab: the per-rank profile (time computing, in user states, in MPI calls,\n"+
			"waiting, in I/O; for untimed traces compute amounts, sends and bytes) and the summary of\n"+
			"the functions called (calls, total, mean, max, share of all ranks' time).\n"+
			"The JSON output is documented in docs/cli.md.")
	fs := cc.Flags()
	s := addScopeFlags(cc)
	sortBy := "rank"
	fs.Var(choice{&sortBy, statsSortNames()}, "sort", "sort by `COLUMN`: of the rank table rank, compute, user, mpi, waiting, io (untimed: work,\nsends, bytes), or of the function table name, calls, total, mean, max; names ascending,\nquantities descending")
	reverse := fs.Bool("reverse", false, "reverse the sort order")
	cc.Args = argCount(1, 1)
	e.runs(cc, func(pos []string) int {
		tr, path, code := loadScoped(e, "stats", s, pos)
		if code >= 0 {
			return code
		}
		rankCol, funcCol := 0, 2 // the tab's defaults: by rank, functions by total
		rankDesc, funcDesc := false, true
		for _, k := range statsSortKeys() {
			if k.name != sortBy {
				continue
			}
			if k.timed == 1 && !tr.Timed || k.timed == 2 && tr.Timed {
				fmt.Fprintf(e.stderr, "tracesim stats: --sort: %q is not a column of this %s trace\n", sortBy, map[bool]string{true: "timed", false: "untimed"}[tr.Timed])
				usageHint(e, "stats")
				return exitUsage
			}
			if k.table == 0 {
				rankCol, rankDesc = k.col, k.col != 0
			} else {
				funcCol, funcDesc = k.col, k.col != 0
			}
		}
		if *reverse {
			rankDesc, funcDesc = !rankDesc, !funcDesc
		}
		p := analysis.ComputeProfile(tr, s.win, s.rankList)
		out := statsJSON(path, p, rankCol, rankDesc, funcCol, funcDesc)
		out.Window = s.jsonWindow
		if s.asJSON {
			return writeJSON(e, "stats", out)
		}
		printStats(e.stdout, out, s.describe())
		return exitOK
	})
	return cc
}

// statsJSON lays a profile out as the tab's two tables, sorted.
func statsJSON(path string, p *analysis.Profile, rankCol int, rankDesc bool, funcCol int, funcDesc bool) StatsJSON {
	out := StatsJSON{File: path, Timed: p.Timed, Ranks: []RankJSON{}, Functions: []FuncJSON{}}
	for _, i := range p.RankOrder(rankCol, rankDesc) {
		r := &p.Ranks[i]
		out.Ranks = append(out.Ranks, RankJSON{Rank: r.Rank,
			Compute: r.Time[analysis.Compute], User: r.Time[analysis.User], MPI: r.Time[analysis.MPI],
			Waiting: r.Time[analysis.Waiting], IO: r.Time[analysis.IO],
			Span: r.Span, Burst: r.Burst, Work: r.Work, Sends: r.Sends, Bytes: r.Bytes})
	}
	all := p.AllTime()
	for _, i := range p.FuncOrder(funcCol, funcDesc) {
		f := &p.Funcs[i]
		pct := 0.0
		if all > 0 {
			pct = 100 * f.Total / all
		}
		out.Functions = append(out.Functions, FuncJSON{Name: f.Name, Category: f.Category.String(), Calls: f.Calls,
			Total: f.Total, Mean: f.Mean(), Max: f.Max, Percent: pct})
	}
	return out
}

func printStats(w io.Writer, s StatsJSON, scope string) {
	fmt.Fprintf(w, "%s: per-rank profile · %s\n", s.File, scope)
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', tabwriter.AlignRight)
	if s.Timed {
		fmt.Fprintln(tw, "rank\tcompute\tuser\tMPI\twaiting\tI/O\t")
		for _, r := range s.Ranks {
			fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t\n", r.Rank, units.FormatDuration(r.Compute), units.FormatDuration(r.User),
				units.FormatDuration(r.MPI), units.FormatDuration(r.Waiting), units.FormatDuration(r.IO))
		}
	} else {
		fmt.Fprintln(tw, "rank\tcompute\twork\tsends\tbytes\t")
		for _, r := range s.Ranks {
			fmt.Fprintf(tw, "%d\t%s\t%s\t%d\t%s\t\n", r.Rank, units.FormatDuration(r.Burst), units.FormatFlops(r.Work), r.Sends, units.FormatBytes(r.Bytes))
		}
	}
	tw.Flush()
	fmt.Fprintln(w, "\nfunctions")
	if len(s.Functions) == 0 {
		fmt.Fprintln(w, "  none called here")
		return
	}
	tw = tabwriter.NewWriter(w, 2, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "function\tcalls\ttotal\tmean\tmax\t%\t")
	for _, f := range s.Functions {
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%.1f\t\n", f.Name, f.Calls, units.FormatDuration(f.Total),
			units.FormatDuration(f.Mean), units.FormatDuration(f.Max), f.Percent)
	}
	tw.Flush()
}

// MatrixJSON is the output of `tracesim matrix --json`.
type MatrixJSON struct {
	File string `json:"file"`
	// Ranks is the world size; Selected the ranks of --ranks (absent:
	// every rank), whose messages among themselves are counted.
	Ranks    int         `json:"ranks"`
	Selected []int       `json:"selected,omitempty"`
	Window   *windowJSON `json:"window,omitempty"`
	Space    string      `json:"space"`
	Metric   string      `json:"metric"`
	// Group is the number of consecutive ranks per row and column: the
	// ranks per node in node space, or the folding of traces with more
	// than 1024 ranks.
	Group int `json:"group"`
	// Matrix[i][j] is what group i sent to group j, in the metric.
	Matrix          [][]int64 `json:"matrix"`
	Collectives     int64     `json:"collectives"`
	CollectiveBytes int64     `json:"collective_bytes"`
}

// matrixCommand is `tracesim matrix FILE`: the Matrix tab headless.
func matrixCommand(e *env) *cobra.Command {
	cc := newCommand("matrix", "print the Matrix tab: point-to-point traffic by sender and receiver", "FILE [--window START:END] [--ranks LIST] [--metric bytes|messages] [--space rank|node] [--json]",
		"Print the Matrix tab: point-to-point traffic by sender (rows) and receiver (columns), in\n"+
			"bytes or messages, between ranks or between nodes of --ranks-per-node consecutive ranks.\n"+
			"With --ranks, only messages between the listed ranks count.\n"+
			"The JSON output is documented in docs/cli.md.")
	fs := cc.Flags()
	s := addScopeFlags(cc)
	metric, space := "bytes", "rank"
	fs.Var(choice{&metric, []string{"bytes", "messages"}}, "metric", "count `METRIC` in each cell: bytes or messages")
	fs.Var(choice{&space, []string{"rank", "node"}}, "space", "one row per rank or per node of --ranks-per-node ranks (`SPACE`: rank or node)")
	perNode := fs.Int("ranks-per-node", 2, "ranks per node in node space (placement block:K, as the tab's n key)")
	cc.Args = argCount(1, 1)
	e.runs(cc, func(pos []string) int {
		tr, path, code := loadScoped(e, "matrix", s, pos)
		if code >= 0 {
			return code
		}
		t := analysis.ComputeTraffic(tr, s.win, s.rankList)
		if space == "node" {
			if t.Scale > 1 {
				return fail(e, "matrix", fmt.Errorf("--space node: %s has %d ranks; node space needs at most %d", path, t.Ranks, analysis.MaxResolution))
			}
			n := t.Nodes(*perNode)
			if *perNode < 2 || *perNode > t.Ranks/2 || n == nil {
				fmt.Fprintf(e.stderr, "tracesim matrix: --ranks-per-node: expected 2 to %d (two nodes or more of %d ranks), got %d\n", t.Ranks/2, t.Ranks, *perNode)
				usageHint(e, "matrix")
				return exitUsage
			}
			t = n
		}
		out := matrixJSON(path, t, space, metric)
		out.Selected, out.Window = s.rankList, s.jsonWindow
		if s.asJSON {
			return writeJSON(e, "matrix", out)
		}
		printMatrix(e.stdout, out, s.describe())
		return exitOK
	})
	return cc
}

func matrixJSON(path string, t *analysis.Traffic, space, metric string) MatrixJSON {
	m := t.Bytes
	if metric == "messages" {
		m = t.Count
	}
	return MatrixJSON{File: path, Ranks: t.Ranks, Space: space, Metric: metric, Group: t.Scale,
		Matrix: m, Collectives: t.Collectives, CollectiveBytes: t.CollectiveBytes}
}

func printMatrix(w io.Writer, m MatrixJSON, scope string) {
	unit := "rank"
	if m.Space == "node" {
		unit = "node"
	}
	fmt.Fprintf(w, "%s: %s sent, %s × %s (rows send, columns receive) · %s\n", m.File, m.Metric, unit, unit, scope)
	if m.Group > 1 {
		if m.Space == "node" {
			fmt.Fprintf(w, "%d consecutive ranks per node\n", m.Group)
		} else {
			fmt.Fprintf(w, "%d consecutive ranks per row and column\n", m.Group)
		}
	}
	// Rows and columns of ranks outside --ranks are empty: leave them out.
	show := make([]int, 0, len(m.Matrix))
	sel := map[int]bool{}
	for _, r := range m.Selected {
		sel[r] = true
	}
	for i := range m.Matrix {
		if m.Selected == nil || m.Space == "node" || m.Group > 1 || sel[i] {
			show = append(show, i)
		}
	}
	cell := func(v int64) string {
		if m.Metric == "bytes" {
			return units.FormatBytes(v)
		}
		return strconv.FormatInt(v, 10)
	}
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "\t")
	for _, j := range show {
		fmt.Fprintf(tw, "%d\t", j)
	}
	fmt.Fprintln(tw, "total\t")
	cols := make([]int64, len(m.Matrix))
	var all int64
	for _, i := range show {
		fmt.Fprintf(tw, "%d\t", i)
		var row int64
		for _, j := range show {
			v := m.Matrix[i][j]
			row += v
			cols[j] += v
			fmt.Fprintf(tw, "%s\t", cell(v))
		}
		all += row
		fmt.Fprintf(tw, "%s\t\n", cell(row))
	}
	fmt.Fprint(tw, "total\t")
	for _, j := range show {
		fmt.Fprintf(tw, "%s\t", cell(cols[j]))
	}
	fmt.Fprintf(tw, "%s\t\n", cell(all))
	tw.Flush()
	if m.Collectives > 0 {
		fmt.Fprintf(w, "\n%d collective calls (%s) are not expanded into messages.\n", m.Collectives, units.FormatBytes(m.CollectiveBytes))
	}
}

// SizesJSON is the output of `tracesim sizes --json`.
type SizesJSON struct {
	File     string      `json:"file"`
	Selected []int       `json:"selected,omitempty"`
	Window   *windowJSON `json:"window,omitempty"`
	By       string      `json:"by"`
	// Bins lists the non-empty log2 bins, smallest sizes first.
	Bins     []BinJSON `json:"bins"`
	Messages int64     `json:"messages"`
	Bytes    int64     `json:"bytes"`
	// Collectives counts the trace's collective calls, not messages here.
	Collectives int64 `json:"collectives"`
}

// BinJSON is one bin of the size histogram: sizes Min to Max bytes.
type BinJSON struct {
	Bin      int    `json:"bin"`
	Label    string `json:"label"`
	Min      int64  `json:"min"`
	Max      int64  `json:"max"`
	Messages int64  `json:"messages"`
	Bytes    int64  `json:"bytes"`
}

// sizesCommand is `tracesim sizes FILE`: the Sizes tab headless.
func sizesCommand(e *env) *cobra.Command {
	cc := newCommand("sizes", "print the Sizes tab: histogram of message sizes", "FILE [--window START:END] [--ranks LIST] [--by messages|bytes] [--json]",
		"Print the Sizes tab: point-to-point messages in log2 size bins, counted and summed, for the\n"+
			"messages the listed ranks sent (all ranks by default).\n"+
			"The JSON output is documented in docs/cli.md.")
	fs := cc.Flags()
	s := addScopeFlags(cc)
	by := "messages"
	fs.Var(choice{&by, []string{"messages", "bytes"}}, "by", "the `MEASURE` of the table's bars: messages or bytes")
	cc.Args = argCount(1, 1)
	e.runs(cc, func(pos []string) int {
		tr, path, code := loadScoped(e, "sizes", s, pos)
		if code >= 0 {
			return code
		}
		idx := analysis.IndexSends(tr)
		out := sizesJSON(path, idx.Histogram(s.rankList, s.win), by)
		out.Selected, out.Window, out.Collectives = s.rankList, s.jsonWindow, idx.Collectives
		if s.asJSON {
			return writeJSON(e, "sizes", out)
		}
		printSizes(e.stdout, out, s.describe())
		return exitOK
	})
	return cc
}

func sizesJSON(path string, h analysis.Histogram, by string) SizesJSON {
	out := SizesJSON{File: path, By: by, Bins: []BinJSON{}}
	out.Messages, out.Bytes = h.Total()
	for k := range h.Count {
		if h.Count[k] == 0 {
			continue
		}
		lo, hi := analysis.BinRange(k)
		out.Bins = append(out.Bins, BinJSON{Bin: k, Label: analysis.BinLabel(k), Min: lo, Max: hi, Messages: h.Count[k], Bytes: h.Bytes[k]})
	}
	return out
}

func printSizes(w io.Writer, s SizesJSON, scope string) {
	fmt.Fprintf(w, "%s: message sizes · %s · by %s\n", s.File, scope, s.By)
	if len(s.Bins) == 0 {
		fmt.Fprintln(w, "no point-to-point messages here")
	} else {
		value := func(b BinJSON) int64 {
			if s.By == "bytes" {
				return b.Bytes
			}
			return b.Messages
		}
		var top int64
		for _, b := range s.Bins {
			top = max(top, value(b))
		}
		const barW = 40
		tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "size\tmessages\tbytes\t")
		for _, b := range s.Bins {
			n := 0
			if top > 0 {
				n = int(float64(value(b)) / float64(top) * barW)
			}
			fmt.Fprintf(tw, "%s\t%d\t%s\t%s\n", b.Label, b.Messages, units.FormatBytes(b.Bytes), strings.Repeat("█", n))
		}
		fmt.Fprintf(tw, "total\t%d\t%s\t\n", s.Messages, units.FormatBytes(s.Bytes))
		tw.Flush()
	}
	if s.Collectives > 0 {
		fmt.Fprintf(w, "\n%d collective calls in the trace are not expanded into messages.\n", s.Collectives)
	}
}
