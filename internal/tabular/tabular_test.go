package tabular

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
)

// A table written as Parquet reads back with the same columns (kinds,
// optional, order) and the same rows, over several row batches; the
// same rows written as CSV give the text Read returns.
func TestWriteReadParquet(t *testing.T) {
	cols := []Column{{"rank", Int, false}, {"name", String, false}, {"start_s", Float, false}, {"end_s", Float, true}, {"ok", Bool, false}, {"a,b", String, false}}
	var want [][]string
	var pq, cv bytes.Buffer
	pw, err := NewParquet(&pq, "test", cols, [2]string{"k", "v"})
	if err != nil {
		t.Fatal(err)
	}
	cw, err := NewCSV(&cv, cols)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2500 { // more than one batch of rows
		end := FloatValue(float64(i) + 0.1)
		endS := Format(Float, end)
		if i%7 == 0 {
			end, endS = Null(), ""
		}
		row := []string{itoa(i), "MPI_Send", Format(Float, FloatValue(float64(i)*1e-7)), endS, "true", "x\"y"}
		want = append(want, row)
		vals := []Value{IntValue(int64(i)), StringValue("MPI_Send"), FloatValue(float64(i) * 1e-7), end, BoolValue(true), StringValue("x\"y")}
		for _, w := range []*Writer{pw, cw} {
			if err := w.Row(vals...); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, w := range []*Writer{pw, cw} {
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
	back, err := Read("t.parquet", bytes.NewReader(pq.Bytes()), int64(pq.Len()))
	if err != nil {
		t.Fatal(err)
	}
	if len(back.Columns) != len(cols) {
		t.Fatalf("columns %v, want %v", back.Columns, cols)
	}
	for i := range cols {
		if back.Columns[i] != cols[i] {
			t.Errorf("column %d: %+v, want %+v", i, back.Columns[i], cols[i])
		}
	}
	if back.Meta["k"] != "v" {
		t.Errorf("metadata k = %q, want v", back.Meta["k"])
	}
	if len(back.Rows) != len(want) {
		t.Fatalf("%d rows, want %d", len(back.Rows), len(want))
	}
	csvLines := strings.Split(strings.TrimSpace(cv.String()), "\n")
	if csvLines[0] != `rank,name,start_s,end_s,ok,"a,b"` {
		t.Errorf("CSV header %q", csvLines[0])
	}
	for i := range want {
		if g, w := strings.Join(back.Rows[i], "|"), strings.Join(want[i], "|"); g != w {
			t.Fatalf("row %d: got %s, want %s", i, g, w)
		}
	}
	if csvLines[8] != `7,MPI_Send,7e-07,,true,"x""y"` {
		t.Errorf("CSV row 7: %q", csvLines[8])
	}
	// A null in a required column and a short row are errors, not panics.
	w, _ := NewParquet(&bytes.Buffer{}, "t", cols)
	if err := w.Row(Null(), StringValue(""), FloatValue(0), Null(), BoolValue(false), StringValue("")); err == nil || !strings.Contains(err.Error(), "column rank: null") {
		t.Errorf("null in rank: %v", err)
	}
	if err := w.Row(IntValue(1)); err == nil || !strings.Contains(err.Error(), "row of 1 values for 6 columns") {
		t.Errorf("short row: %v", err)
	}
	for _, bad := range []string{"", "PAR1garbage"} {
		if _, err := Read("bad.parquet", strings.NewReader(bad), int64(len(bad))); err == nil || !strings.HasPrefix(err.Error(), "bad.parquet: ") {
			t.Errorf("Read(%q): %v", bad, err)
		}
	}
}

func itoa(i int) string { return Format(Int, IntValue(int64(i))) }

// A Parquet file's columns are in the table's order, not sorted by name:
// what DuckDB or pandas show.
func TestParquetColumnOrder(t *testing.T) {
	cols := []Column{{Name: "point", Kind: Int}, {Name: "zeta", Kind: String}, {Name: "alpha", Kind: Float, Optional: true}, {Name: "mid", Kind: Bool}}
	var buf bytes.Buffer
	w, err := NewParquet(&buf, "t", cols)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Row(IntValue(1), StringValue("z"), Null(), BoolValue(true)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := parquet.OpenFile(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, path := range f.Schema().Columns() {
		got = append(got, path[0])
	}
	if want := []string{"point", "zeta", "alpha", "mid"}; !slices.Equal(got, want) {
		t.Errorf("file's columns %v, want %v", got, want)
	}
	back, err := Read("t.parquet", bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	if want := [][]string{{"1", "z", "", "true"}}; !slices.EqualFunc(back.Rows, want, slices.Equal) {
		t.Errorf("rows %v, want %v", back.Rows, want)
	}
}
