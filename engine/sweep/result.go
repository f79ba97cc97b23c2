package sweep

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/tracesim/tracesim/engine/replay"
)

// MetricColumns returns the result columns that every sweep has after
// the point's own (point, trace, the axes, rep and seed), in order.
// docs/sweep.md explains each.
func MetricColumns() []string {
	return []string{
		"makespan_s", "recorded_s", "ranks",
		"finish_min_s", "finish_mean_s", "finish_max_s",
		"compute_mean_s", "comm_mean_s", "blocked_mean_s", "blocked_max_s", "cpu_wait_mean_s", "utilisation_mean",
		"messages", "bytes", "latency_mean_s", "latency_p99_s", "latency_max_s", "unmatched",
		"net_link_util_mean", "net_group_util_max", "net_busiest_group", "net_long_waits",
		"complete", "deadlock", "events", "wall_s", "error",
	}
}

// firstMetric is the first of MetricColumns: where the point's own
// columns end.
const firstMetric = "makespan_s"

// Table is a sweep result: a header and one row of strings per point.
type Table struct {
	Columns []string
	Rows    [][]string
}

// Columns returns the result columns of the spec: point, trace, one per
// axis, rep and seed when the spec repeats, then MetricColumns, then
// MachineColumn.
func (s *Spec) Columns() []string {
	cols := []string{"point", "trace"}
	for _, a := range s.Axes {
		cols = append(cols, a.Key)
	}
	if s.Reps {
		cols = append(cols, "rep", "seed")
	}
	cols = append(cols, MetricColumns()...)
	return append(cols, MachineColumn)
}

// keyColumns are the columns that identify a point independently of its
// index: the trace, the axes' values and the repetition.
func keyColumns(cols []string) []int {
	end := slices.Index(cols, firstMetric)
	if end < 0 {
		end = len(cols)
	}
	var out []int
	for i := 1; i < end; i++ {
		if cols[i] != "seed" {
			out = append(out, i)
		}
	}
	return out
}

// Key returns the identity of a row of t (see keyColumns).
func (t *Table) Key(row []string) string {
	var b strings.Builder
	for _, i := range keyColumns(t.Columns) {
		b.WriteString(row[i])
		b.WriteByte(0)
	}
	return b.String()
}

// PointKey returns the identity of a point, as Key returns it for the
// point's row.
func (s *Spec) PointKey(p *Point) string {
	var b strings.Builder
	b.WriteString(s.Traces[p.Trace].Name)
	b.WriteByte(0)
	for _, v := range p.Values {
		b.WriteString(v)
		b.WriteByte(0)
	}
	if s.Reps {
		b.WriteString(strconv.Itoa(p.Rep))
		b.WriteByte(0)
	}
	return b.String()
}

func formatFloat(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// Row is the result row of point p: its columns (Spec.Columns) from the
// run's results, the host time it took, and the error that stopped it
// (nil when it ran). Wall time is the only column that differs between
// two runs of the same spec.
func (s *Spec) Row(p *Point, res *replay.Results, wall float64, runErr error) []string {
	row := []string{strconv.Itoa(p.Index), s.Traces[p.Trace].Name}
	row = append(row, p.Values...)
	if s.Reps {
		row = append(row, strconv.Itoa(p.Rep), strconv.FormatUint(p.Seed, 10))
	}
	cols := MetricColumns()
	m := make(map[string]string, len(cols))
	if res != nil {
		metrics(m, res)
	}
	m["wall_s"] = formatFloat(wall)
	if runErr != nil {
		m["error"] = runErr.Error()
	}
	for _, c := range cols {
		row = append(row, m[c])
	}
	return append(row, s.Machine())
}

// metrics fills the result columns from a run's results.
func metrics(m map[string]string, res *replay.Results) {
	f := formatFloat
	m["makespan_s"] = f(res.Makespan)
	m["recorded_s"] = f(res.Recorded)
	m["ranks"] = strconv.Itoa(len(res.Ranks))
	if n := len(res.Ranks); n > 0 {
		fmin, fmax := math.Inf(1), math.Inf(-1)
		var fsum, comp, comm, blk, bmax, wait, util float64
		for _, r := range res.Ranks {
			fmin, fmax = min(fmin, r.Finish), max(fmax, r.Finish)
			fsum += r.Finish
			comp += r.Compute
			comm += r.Communication
			blk += r.Blocked
			bmax = max(bmax, r.Blocked)
			wait += r.CPUWait
			util += r.Utilisation
		}
		k := float64(n)
		m["finish_min_s"], m["finish_mean_s"], m["finish_max_s"] = f(fmin), f(fsum/k), f(fmax)
		m["compute_mean_s"], m["comm_mean_s"] = f(comp/k), f(comm/k)
		m["blocked_mean_s"], m["blocked_max_s"] = f(blk/k), f(bmax)
		m["cpu_wait_mean_s"], m["utilisation_mean"] = f(wait/k), f(util/k)
	}
	m["messages"] = strconv.FormatUint(res.Messages.Count, 10)
	m["bytes"] = strconv.FormatInt(res.Messages.Bytes, 10)
	m["latency_mean_s"] = f(res.Messages.Latency.Mean)
	m["latency_p99_s"] = f(res.Messages.Latency.P99)
	m["latency_max_s"] = f(res.Messages.Latency.Max)
	m["unmatched"] = strconv.Itoa(res.Messages.Unmatched)
	if n := res.Network; n != nil {
		// Router links only: terminal links measure the nodes, not the
		// network's shape.
		var links int
		var sum float64
		for _, g := range n.Groups {
			if g.Name != "inject" && g.Name != "eject" {
				links += g.Links
				sum += float64(g.MeanUtilisation * float64(g.Links))
			}
		}
		if links > 0 {
			m["net_link_util_mean"] = f(sum / float64(links))
		}
		busiest := -1
		for i, g := range n.Groups {
			if g.Name != "inject" && g.Name != "eject" && g.Links > 0 && (busiest < 0 || g.MeanUtilisation > n.Groups[busiest].MeanUtilisation) {
				busiest = i
			}
		}
		if busiest >= 0 {
			m["net_group_util_max"] = f(n.Groups[busiest].MeanUtilisation)
			m["net_busiest_group"] = n.Groups[busiest].Name
		}
		m["net_long_waits"] = strconv.FormatUint(n.LongWaits, 10)
	}
	m["complete"] = strconv.FormatBool(res.Complete)
	if res.Deadlock != nil {
		m["deadlock"] = res.Deadlock.Message
	}
	m["events"] = strconv.FormatUint(res.Events, 10)
}

// WriteCSV writes t as CSV: the header, then the rows.
func (t *Table) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	cw.Write(t.Columns)
	for _, r := range t.Rows {
		cw.Write(r)
	}
	cw.Flush()
	return cw.Error()
}

// ReadCSV reads a result written by WriteCSV or appended to by a
// Journal. A last line cut short (a run killed while writing it) is
// dropped: its point runs again. name is the file's name for errors.
func ReadCSV(name string, data []byte) (*Table, error) {
	if len(data) > 0 && data[len(data)-1] != '\n' {
		if i := bytes.LastIndexByte(data, '\n'); i >= 0 {
			data = data[:i+1]
		} else {
			data = nil
		}
	}
	t := &Table{}
	if len(data) == 0 {
		return t, nil
	}
	cr := csv.NewReader(bytes.NewReader(data))
	cr.ReuseRecord = false
	head, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("%s: line 1: %w", name, err)
	}
	if len(head) < 2 || head[0] != "point" || head[1] != "trace" || !slices.Contains(head, "makespan_s") {
		return nil, fmt.Errorf("%s: line 1: not a sweep result (expected columns point, trace, …, makespan_s, …)", name)
	}
	t.Columns = head
	cr.FieldsPerRecord = len(head)
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		if _, err := strconv.Atoi(rec[0]); err != nil {
			line, _ := cr.FieldPos(0)
			return nil, fmt.Errorf("%s: line %d: point %q: expected a whole number", name, line, rec[0])
		}
		t.Rows = append(t.Rows, rec)
	}
	return t, nil
}

// Sort orders the rows by point index.
func (t *Table) Sort() {
	slices.SortStableFunc(t.Rows, func(a, b []string) int {
		x, _ := strconv.Atoi(a[0])
		y, _ := strconv.Atoi(b[0])
		return x - y
	})
}

// Merge appends the rows of o to t. Both must have the same columns; a
// point present in both must be the same point (same key), and every
// row the same machine column. A point in both is kept once. A table
// written before the machine column existed merges with one that has
// it: its rows take the other's machine, as the points of one spec have
// one (see AddMachine).
func (t *Table) Merge(name string, o *Table) error {
	if len(o.Columns) == 0 {
		return nil
	}
	if len(t.Columns) == 0 {
		t.Columns = slices.Clone(o.Columns)
	}
	if m := t.Column(MachineColumn); m >= 0 && o.Column(MachineColumn) < 0 && len(t.Rows) > 0 {
		o.AddMachine(t.Rows[0][m])
	} else if m := o.Column(MachineColumn); m >= 0 && t.Column(MachineColumn) < 0 && len(o.Rows) > 0 {
		t.AddMachine(o.Rows[0][m])
	}
	if !slices.Equal(t.Columns, o.Columns) {
		return fmt.Errorf("%s: columns %s differ from %s", name, strings.Join(o.Columns, ","), strings.Join(t.Columns, ","))
	}
	have := make(map[string]string, len(t.Rows))
	for _, r := range t.Rows {
		have[r[0]] = t.Key(r)
	}
	if m := t.Column(MachineColumn); m >= 0 {
		want := ""
		if len(t.Rows) > 0 {
			want = t.Rows[0][m]
		} else if len(o.Rows) > 0 {
			want = o.Rows[0][m]
		}
		for _, r := range o.Rows {
			if r[m] != want {
				return fmt.Errorf("%s: point %s: machine %q differs from %q in the files before it (another spec?)", name, r[0], r[m], want)
			}
		}
	}
	for _, r := range o.Rows {
		k, dup := have[r[0]]
		if dup {
			if k != t.Key(r) {
				return fmt.Errorf("%s: point %s is another point than in the files before it (another spec?)", name, r[0])
			}
			continue
		}
		have[r[0]] = t.Key(r)
		t.Rows = append(t.Rows, r)
	}
	return nil
}

// Journal appends rows to a CSV file as points finish, one write per
// row, so that a run killed at any moment leaves every finished point
// on disk (and at most a cut-short last line, which ReadCSV drops).
type Journal struct {
	w  io.Writer
	bw *bytes.Buffer
	cw *csv.Writer
}

// NewJournal returns a journal appending to w; header is written first
// when non-nil (a new file).
func NewJournal(w io.Writer, header []string) (*Journal, error) {
	j := &Journal{w: w, bw: &bytes.Buffer{}}
	j.cw = csv.NewWriter(j.bw)
	if header != nil {
		if err := j.Append(header); err != nil {
			return nil, err
		}
	}
	return j, nil
}

// Append writes one row.
func (j *Journal) Append(row []string) error {
	j.bw.Reset()
	j.cw.Write(row)
	j.cw.Flush()
	if err := j.cw.Error(); err != nil {
		return err
	}
	_, err := j.w.Write(j.bw.Bytes())
	return err
}

// AddMachine gives a table written before the machine column existed
// that column, machine in every row: the machine its points ran on, as
// the caller knows it (the spec that resumes them, or the other shards
// of the sweep). A table that has the column is left as it is.
func (t *Table) AddMachine(machine string) {
	if len(t.Columns) == 0 || t.Column(MachineColumn) >= 0 {
		return
	}
	t.Columns = append(t.Columns, MachineColumn)
	for i, r := range t.Rows {
		t.Rows[i] = append(r, machine)
	}
}

// Column returns the index of the column named name, or -1.
func (t *Table) Column(name string) int { return slices.Index(t.Columns, name) }

// AxisColumns returns the names of the axis columns of t: those between
// trace and rep/seed or the metrics.
func (t *Table) AxisColumns() []string {
	end := slices.Index(t.Columns, firstMetric)
	if end < 0 {
		return nil
	}
	var out []string
	for _, c := range t.Columns[2:end] {
		if c != "rep" && c != "seed" {
			out = append(out, c)
		}
	}
	return out
}
