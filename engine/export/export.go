// Package export writes a trace's items — states, messages, collectives —
// and a simulation's predicted messages and network metrics as tables,
// one row per item, in CSV or Parquet (internal/tabular), for pandas,
// polars and DuckDB. docs/formats.md documents the columns.
package export

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/tracesim/tracesim/engine/replay"
	"github.com/tracesim/tracesim/internal/atomicfile"
	"github.com/tracesim/tracesim/internal/tabular"
	"github.com/tracesim/tracesim/tracefmt"
)

// Table kinds for --what.
const (
	States      = "states"
	Messages    = "messages"
	Collectives = "collectives"
	Sim         = "sim"
)

// Whats lists the tables Export writes, and sim's.
func Whats() []string { return []string{States, Messages, Collectives, Sim} }

// Formats of the tables.
const (
	CSV     = "csv"
	Parquet = "parquet"
)

// FormatOf returns the table format of an output path: parquet for a
// .parquet file (or .parquet.gz), else csv.
func FormatOf(path string) string {
	if atomicfile.Gzipped(path) {
		// Written gzipped: the format is the name's under the suffix.
		path = path[:len(path)-len(filepath.Ext(path))]
	}
	if strings.EqualFold(filepath.Ext(path), ".parquet") {
		return Parquet
	}
	return CSV
}

var (
	stateCols = []tabular.Column{
		{Name: "rank", Kind: tabular.Int}, {Name: "name", Kind: tabular.String}, {Name: "category", Kind: tabular.String},
		{Name: "start_s", Kind: tabular.Float}, {Name: "end_s", Kind: tabular.Float}, {Name: "duration_s", Kind: tabular.Float},
		{Name: "unclosed", Kind: tabular.Bool}, {Name: "info", Kind: tabular.String},
	}
	messageCols = []tabular.Column{
		{Name: "src", Kind: tabular.Int}, {Name: "dst", Kind: tabular.Int}, {Name: "tag", Kind: tabular.Int},
		{Name: "comm", Kind: tabular.Int}, {Name: "bytes", Kind: tabular.Int},
		{Name: "send_s", Kind: tabular.Float}, {Name: "recv_s", Kind: tabular.Float},
		{Name: "send_event", Kind: tabular.Int}, {Name: "recv_event", Kind: tabular.Int},
		{Name: "send_physical_s", Kind: tabular.Float}, {Name: "recv_posted_s", Kind: tabular.Float},
	}
	collectiveCols = []tabular.Column{
		{Name: "rank", Kind: tabular.Int}, {Name: "op", Kind: tabular.String}, {Name: "comm", Kind: tabular.Int},
		{Name: "seq", Kind: tabular.Int}, {Name: "root", Kind: tabular.Int, Optional: true},
		{Name: "sent_bytes", Kind: tabular.Int}, {Name: "recv_bytes", Kind: tabular.Int},
		{Name: "time_s", Kind: tabular.Float}, {Name: "event", Kind: tabular.Int},
	}
	simCols = []tabular.Column{
		{Name: "src", Kind: tabular.Int}, {Name: "dst", Kind: tabular.Int}, {Name: "tag", Kind: tabular.Int},
		{Name: "bytes", Kind: tabular.Int}, {Name: "collective", Kind: tabular.Bool},
		{Name: "send_event", Kind: tabular.Int}, {Name: "recv_event", Kind: tabular.Int},
		{Name: "sent_s", Kind: tabular.Float}, {Name: "matched_s", Kind: tabular.Float},
		{Name: "delivered_s", Kind: tabular.Float}, {Name: "completed_s", Kind: tabular.Float},
	}
	metricCols = []tabular.Column{
		{Name: "time_s", Kind: tabular.Float}, {Name: "kind", Kind: tabular.String}, {Name: "object", Kind: tabular.String},
		{Name: "metric", Kind: tabular.String}, {Name: "value", Kind: tabular.Float},
	}
)

// Columns returns the columns of a table kind.
func Columns(what string) ([]tabular.Column, error) {
	switch what {
	case States:
		return stateCols, nil
	case Messages:
		return messageCols, nil
	case Collectives:
		return collectiveCols, nil
	case Sim:
		return simCols, nil
	}
	return nil, fmt.Errorf("unknown table %q (known: %s)", what, strings.Join(Whats(), ", "))
}

// NewWriter returns a table writer of the given columns in format (csv
// or parquet) to w; name names the Parquet schema.
func NewWriter(w io.Writer, format, name string, cols []tabular.Column) (*tabular.Writer, error) {
	switch format {
	case CSV:
		return tabular.NewCSV(w, cols)
	case Parquet:
		return tabular.NewParquet(w, name, cols)
	}
	return nil, fmt.Errorf("unknown table format %q (known: csv, parquet)", format)
}

// Trace writes the table what (states, messages or collectives) of t to
// w in format. stop, when not nil, is asked every few thousand rows
// whether to give up; its error is returned. t must be timed.
func Trace(w io.Writer, format, what string, t *tracefmt.Trace, stop func() error) error {
	if !t.Timed {
		return errors.New("the trace is untimed: its items have no times (give a CPU speed to assign them)")
	}
	cols, err := Columns(what)
	if err != nil {
		return err
	}
	if what == Sim {
		return errors.New("the sim table comes from a simulation (tracesim sim --messages-out)")
	}
	tw, err := NewWriter(w, format, what, cols)
	if err != nil {
		return err
	}
	sec := t.Unit.Seconds()
	rows := 0
	row := func(vals ...tabular.Value) error {
		rows++
		if stop != nil && rows&0xfff == 0 {
			if err := stop(); err != nil {
				return err
			}
		}
		return tw.Row(vals...)
	}
	I, F, S := tabular.IntValue, tabular.FloatValue, tabular.StringValue
	for r := range t.Ranks {
		ev := t.Ranks[r].Events
		var seq map[uint16]int64
		last := 0.0
		if what == States {
			for i := range ev {
				last = max(last, ev[i].Time)
			}
		}
		for i := range ev {
			e := &ev[i]
			var err error
			switch {
			case what == States && e.Kind == tracefmt.KindEnter:
				end, open := last, true
				if m := int(e.Match); m > i && m < len(ev) {
					end, open = ev[m].Time, false
				}
				cat := "other"
				if s := int(e.State()); s >= 0 && s < len(t.States) {
					cat = t.States[s].Category.String()
				}
				err = row(I(int64(r)), S(t.StateName(e.State())), S(cat), F(e.Time*sec), F(end*sec), F((end-e.Time)*sec),
					tabular.BoolValue(open), S(t.Text(e)))
			case what == Messages && e.Kind == tracefmt.KindSend && e.Match >= 0:
				re := &t.Ranks[e.Peer].Events[e.Match]
				send, recv := tracefmt.EventRef{Rank: int32(r), Index: int32(i)}, tracefmt.EventRef{Rank: e.Peer, Index: e.Match}
				err = row(I(int64(r)), I(int64(e.Peer)), I(int64(e.Tag)), I(int64(e.Comm)), I(e.Size),
					F(e.Time*sec), F(re.Time*sec), I(int64(i)), I(int64(e.Match)),
					F(t.PhysicalSend(send)*sec), F(t.PostedAt(recv)*sec))
			case what == Collectives && e.Kind == tracefmt.KindCollective:
				if seq == nil {
					seq = map[uint16]int64{}
				}
				root := tabular.Null()
				if e.Op().Rooted() {
					root = I(int64(e.Root()))
				}
				err = row(I(int64(r)), S(e.Op().String()), I(int64(e.Comm)), I(seq[e.Comm]), root,
					I(e.Size), I(e.RecvBytes()), F(e.Time*sec), I(int64(i)))
				seq[e.Comm]++
			}
			if err != nil {
				return err
			}
		}
	}
	return tw.Close()
}

// SimMessages writes a simulation's message records (the sim table) to w
// in format.
func SimMessages(w io.Writer, format string, recs []replay.MessageRecord) error {
	tw, err := NewWriter(w, format, Sim, simCols)
	if err != nil {
		return err
	}
	I, F, B := tabular.IntValue, tabular.FloatValue, tabular.BoolValue
	for _, m := range recs {
		if err := tw.Row(I(int64(m.Src)), I(int64(m.Dst)), I(int64(m.Tag)), I(m.Bytes), B(m.Collective),
			I(int64(m.SendEvent)), I(int64(m.RecvEvent)), F(m.Sent), F(m.Matched), F(m.Delivered), F(m.Completed)); err != nil {
			return err
		}
	}
	return tw.Close()
}

// MetricsParquet returns a writer that takes the network metrics CSV of
// engine/packet's CSVWriter (time_s,kind,object,metric,value) and writes
// it to w as Parquet as it comes, with typed columns. Close finishes the
// file and returns the first error.
func MetricsParquet(w io.Writer) io.WriteCloser {
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := metricsToParquet(pr, w)
		pr.CloseWithError(err) // a failed conversion fails the writer's next Write
		done <- err
	}()
	return &metricsWriter{pw: pw, done: done}
}

type metricsWriter struct {
	pw   *io.PipeWriter
	done chan error
}

func (m *metricsWriter) Write(p []byte) (int, error) { return m.pw.Write(p) }

func (m *metricsWriter) Close() error {
	m.pw.Close()
	return <-m.done
}

func metricsToParquet(r io.Reader, w io.Writer) error {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = len(metricCols)
	cr.ReuseRecord = true
	if _, err := cr.Read(); err != nil { // the header
		if errors.Is(err, io.EOF) {
			return errors.New("no metrics header")
		}
		return err
	}
	tw, err := tabular.NewParquet(w, "metrics", metricCols)
	if err != nil {
		return err
	}
	for line := 2; ; line++ {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		ts, err1 := strconv.ParseFloat(rec[0], 64)
		v, err2 := strconv.ParseFloat(rec[4], 64)
		if err := errors.Join(err1, err2); err != nil {
			return fmt.Errorf("metrics line %d: %w", line, err)
		}
		if err := tw.Row(tabular.FloatValue(ts), tabular.StringValue(rec[1]), tabular.StringValue(rec[2]),
			tabular.StringValue(rec[3]), tabular.FloatValue(v)); err != nil {
			return err
		}
	}
	return tw.Close()
}
