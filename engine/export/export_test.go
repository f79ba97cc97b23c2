package export

import (
	"bytes"
	"context"
	"encoding/csv"
	"strings"
	"testing"

	"github.com/tracesim/tracesim/internal/tabular"
	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/tracefmt/formats"
)

// Each table of a trace, written as Parquet, reads back with the same
// rows as its CSV, one row per state entered, matched message and
// collective call.
func TestTablesReadBack(t *testing.T) {
	tr, _, err := formats.Open(context.Background(), "../../testdata/mpe/masterworker.clog2", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	colls, _, err := formats.Open(context.Background(), "../../testdata/mpe/colls.clog2", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	count := func(tr *tracefmt.Trace, keep func(e *tracefmt.Event) bool) int {
		n := 0
		for r := range tr.Ranks {
			for i := range tr.Ranks[r].Events {
				if keep(&tr.Ranks[r].Events[i]) {
					n++
				}
			}
		}
		return n
	}
	for _, c := range []struct {
		what string
		tr   *tracefmt.Trace
		rows int
	}{
		{States, tr, count(tr, func(e *tracefmt.Event) bool { return e.Kind == tracefmt.KindEnter })},
		{Messages, tr, tr.CountMessages().Matched},
		{Collectives, colls, count(colls, func(e *tracefmt.Event) bool { return e.Kind == tracefmt.KindCollective })},
	} {
		t.Run(c.what, func(t *testing.T) {
			var cv, pq bytes.Buffer
			if err := Trace(&cv, CSV, c.what, c.tr, nil); err != nil {
				t.Fatal(err)
			}
			if err := Trace(&pq, Parquet, c.what, c.tr, nil); err != nil {
				t.Fatal(err)
			}
			recs, err := csv.NewReader(&cv).ReadAll()
			if err != nil {
				t.Fatal(err)
			}
			back, err := tabular.Read(c.what+".parquet", bytes.NewReader(pq.Bytes()), int64(pq.Len()))
			if err != nil {
				t.Fatal(err)
			}
			cols, _ := Columns(c.what)
			var names []string
			for i, col := range back.Columns {
				names = append(names, col.Name)
				if col != cols[i] {
					t.Errorf("column %d: %+v, want %+v", i, col, cols[i])
				}
			}
			if got := strings.Join(names, ","); got != strings.Join(recs[0], ",") {
				t.Errorf("Parquet columns %s, CSV header %s", got, strings.Join(recs[0], ","))
			}
			if len(back.Rows) != c.rows || len(recs)-1 != c.rows {
				t.Fatalf("%d Parquet rows, %d CSV rows, want %d", len(back.Rows), len(recs)-1, c.rows)
			}
			for i, row := range back.Rows {
				if g, w := strings.Join(row, ","), strings.Join(recs[i+1], ","); g != w {
					t.Fatalf("row %d: Parquet %s, CSV %s", i, g, w)
				}
			}
			t.Logf("%s: %d rows; first %v", c.what, c.rows, recs[1])
		})
	}
}

// The network metrics CSV becomes a typed Parquet table with the same
// rows; a line that is not a metric fails the write.
func TestMetricsParquet(t *testing.T) {
	in := "time_s,kind,object,metric,value\n1e-06,network,all,utilisation,0.25\n2e-06,link,r0.p1->r1.p0,bytes,4096\n"
	var out bytes.Buffer
	w := MetricsParquet(&out)
	if _, err := w.Write([]byte(in)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	back, err := tabular.Read("m.parquet", bytes.NewReader(out.Bytes()), int64(out.Len()))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range back.Rows {
		got = append(got, strings.Join(r, ","))
	}
	if want := "1e-06,network,all,utilisation,0.25|2e-06,link,r0.p1->r1.p0,bytes,4096"; strings.Join(got, "|") != want {
		t.Errorf("rows %s, want %s", strings.Join(got, "|"), want)
	}
	w = MetricsParquet(&bytes.Buffer{})
	w.Write([]byte("time_s,kind,object,metric,value\nsoon,network,all,utilisation,0.25\n"))
	if err := w.Close(); err == nil || !strings.Contains(err.Error(), "metrics line 2") {
		t.Errorf("bad line: %v", err)
	}
}

// The messages table carries all four times of a message whose format
// recorded them (Paraver): the call and the arrival, when the data left
// and when the receive was posted.
func TestMessageFourTimes(t *testing.T) {
	tests := []struct {
		name   string
		times  []tracefmt.MessageTime
		physic string // send_physical_s,recv_posted_s
	}{
		{"one time per event", nil, "10,40"},
		{"physical send and posted receive", []tracefmt.MessageTime{
			{Event: tracefmt.EventRef{Rank: 0, Index: 0}, Delta: 8},
			{Event: tracefmt.EventRef{Rank: 1, Index: 0}, Delta: -35},
		}, "18,5"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := tracefmt.NewBuilder(2, true, tracefmt.Second)
			if _, err := b.Add(0, tracefmt.Send(10, 1, 7, 0, 64)); err != nil {
				t.Fatal(err)
			}
			if _, err := b.Add(1, tracefmt.Recv(40, 0, 7, 0, 64)); err != nil {
				t.Fatal(err)
			}
			tr, err := b.Finish()
			if err != nil {
				t.Fatal(err)
			}
			tr.SetMessageTimes(tc.times)
			var out bytes.Buffer
			if err := Trace(&out, CSV, Messages, tr, nil); err != nil {
				t.Fatal(err)
			}
			want := "src,dst,tag,comm,bytes,send_s,recv_s,send_event,recv_event,send_physical_s,recv_posted_s\n" +
				"0,1,7,0,64,10,40,0,0," + tc.physic + "\n"
			if out.String() != want {
				t.Errorf("table\n%s\nwant\n%s", out.String(), want)
			}
		})
	}
}

// The table format is the name's, under a .gz suffix (the file is then
// written gzipped).
func TestFormatOf(t *testing.T) {
	for name, want := range map[string]string{
		"m.parquet": Parquet, "m.PARQUET": Parquet, "m.parquet.gz": Parquet, "m.parquet.GZ": Parquet,
		"m.csv": CSV, "m.csv.gz": CSV, "m": CSV, "m.gz": CSV,
	} {
		if got := FormatOf(name); got != want {
			t.Errorf("FormatOf(%q) = %s, want %s", name, got, want)
		}
	}
}
