package parquetfile

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/tracesim/tracesim/engine/sweep"
	"github.com/tracesim/tracesim/internal/tabular"
)

// TestParquetRoundTrip: a result written as Parquet reads back to the
// same table, empty cells (a failed point's) included, with typed
// columns.
func TestParquetRoundTrip(t *testing.T) {
	data, err := os.ReadFile("../../../views/sweep/testdata/study.csv")
	if err != nil {
		t.Fatal(err)
	}
	tb, err := sweep.ReadCSV("study.csv", data)
	if err != nil {
		t.Fatal(err)
	}
	// A failed point: no results, an error.
	failed := make([]string, len(tb.Columns))
	copy(failed, tb.Rows[0][:5])
	failed[0] = "72"
	failed[tb.Column("error")] = `routing "updown" is not valid on torus:2x4`
	failed[tb.Column("wall_s")] = "1e-06"
	tb.Rows = append(tb.Rows, failed)

	var buf bytes.Buffer
	if err := Write(&buf, tb); err != nil {
		t.Fatal(err)
	}
	back, err := Read("study.parquet", bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(back.Columns, ",") != strings.Join(tb.Columns, ",") {
		t.Fatalf("columns %v, want %v", back.Columns, tb.Columns)
	}
	if len(back.Rows) != len(tb.Rows) {
		t.Fatalf("%d rows, want %d", len(back.Rows), len(tb.Rows))
	}
	for i := range tb.Rows {
		if g, w := strings.Join(back.Rows[i], ","), strings.Join(tb.Rows[i], ","); g != w {
			t.Errorf("row %d:\n got %s\nwant %s", i, g, w)
		}
	}
	for _, c := range []struct {
		col  string
		kind tabular.Kind
	}{{"point", tabular.Int}, {"trace", tabular.String}, {"bandwidth", tabular.String}, {"makespan_s", tabular.Float}, {"complete", tabular.Bool}, {"messages", tabular.Int}} {
		if k := kindOf(c.col); k != c.kind {
			t.Errorf("%s stored as %d, want %d", c.col, k, c.kind)
		}
	}

	for _, bad := range []struct{ data, want string }{
		{"PAR1garbage", "bad.parquet: "},
		{"", "bad.parquet: "},
	} {
		if _, err := Read("bad.parquet", strings.NewReader(bad.data), int64(len(bad.data))); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("Read(%q): %v", bad.data, err)
		}
	}
}

func FuzzRead(f *testing.F) {
	data, err := os.ReadFile("../../../views/sweep/testdata/study.csv")
	if err != nil {
		f.Fatal(err)
	}
	tb, err := sweep.ReadCSV("study.csv", data)
	if err != nil {
		f.Fatal(err)
	}
	tb.Rows = tb.Rows[:3]
	var buf bytes.Buffer
	if err := Write(&buf, tb); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())
	f.Fuzz(func(t *testing.T, b []byte) {
		Read("f.parquet", bytes.NewReader(b), int64(len(b)))
	})
}
