package parquetfile

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tracesim/tracesim/engine/sweep"
	"github.com/tracesim/tracesim/internal/duckdbtest"
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

// maxFuzzEdits bounds the edits of a FuzzRead input.
const maxFuzzEdits = 32

// corrupt applies the edits of b to a copy of one of seeds: b[0] picks the
// seed, then every 3 bytes are an edit: a 15-bit offset (little-endian;
// modulo the file's length) and a byte to set there, or, with the
// offset's top bit, to delete the byte there. Edits past maxFuzzEdits are
// ignored.
func corrupt(seeds [][]byte, b []byte) []byte {
	if len(b) == 0 {
		return seeds[0]
	}
	file := slices.Clone(seeds[int(b[0])%len(seeds)])
	for e := b[1:]; len(e) >= 3 && len(file) > 0 && len(b)-len(e) < 1+3*maxFuzzEdits; e = e[3:] {
		off := int(e[0]) | int(e[1]&0x7f)<<8
		i := off % len(file)
		if e[1]&0x80 != 0 {
			file = slices.Delete(file, i, i+1)
		} else {
			file[i] = e[2]
		}
	}
	return file
}

// FuzzRead: Read never panics, every refusal names the file and what was
// wrong, and a table it accepts writes and reads back to itself.
//
// The fuzzed input is a list of edits to a result Write wrote (corrupt),
// not a whole file. The go command minimizes every input that reaches new
// code before it fuzzes on (for up to -fuzzminimizetime, 60 s by
// default), and a Parquet file hardly shrinks: its footer's offsets break
// when a byte goes, so the minimizer tries every subset of its bytes,
// quadratic in the size. With whole files as inputs (a 32-column result of
// 8.8 KB), `go test -fuzz FuzzRead` spent its time minimizing, at about 30
// executions in 90 s; a list of at most 32 edits minimizes in
// milliseconds, and the edits reach the same decoder code.
func FuzzRead(f *testing.F) {
	var seeds [][]byte
	for _, tb := range []*sweep.Table{
		{Columns: []string{"point", "trace"}, Rows: [][]string{{"0", "gen ring --ranks 8"}}},
		{Columns: []string{"point", "trace", "makespan_s", "messages", "complete", "error"},
			Rows: [][]string{{"0", "ring.tsim", "0.25", "160", "true", ""}, {"1", "ring.tsim", "", "", "", "deadlock"}}},
	} {
		var buf bytes.Buffer
		if err := Write(&buf, tb); err != nil {
			f.Fatal(err)
		}
		seeds = append(seeds, buf.Bytes())
	}
	for i, seed := range seeds {
		footer := len(seed) - 20                                           // inside the footer's metadata
		f.Add([]byte{byte(i)})                                             // the file as written
		f.Add([]byte{byte(i), 8, 0, 0})                                    // byte 8, in the first page's header, set to 0
		f.Add([]byte{byte(i), byte(footer), byte(footer>>8) & 0x7f, 0xff}) // a footer byte set to 0xff
		f.Add([]byte{byte(i), 64, 0x80, 0})                                // byte 64 deleted
	}
	f.Fuzz(func(t *testing.T, edits []byte) {
		b := corrupt(seeds, edits)
		tb, err := Read("f.parquet", bytes.NewReader(b), int64(len(b)))
		if err != nil {
			if msg := err.Error(); !strings.HasPrefix(msg, "f.parquet: ") || len(msg) == len("f.parquet: ") {
				t.Fatalf("refusal %q does not name the file and what was wrong", msg)
			}
			return
		}
		var buf bytes.Buffer
		if err := Write(&buf, tb); err != nil {
			// A cell Write refuses (an INT64 column holding text, say)
			// was accepted by Read: only Write's own files are results.
			t.Fatalf("Read accepted a table Write refuses: %v", err)
		}
		back, err := Read("f.parquet", bytes.NewReader(buf.Bytes()), int64(buf.Len()))
		if err != nil {
			t.Fatalf("rewritten: %v", err)
		}
		if g, w := fmt.Sprint(back.Columns, back.Rows), fmt.Sprint(tb.Columns, tb.Rows); g != w {
			t.Fatalf("rewritten reads back as %s, want %s", g, w)
		}
	})
}

// TestReadRefusals: a file that is no sweep result is refused with its
// name, the offset and what was expected, before the decoder allocates
// what a corrupt footer claims.
func TestReadRefusals(t *testing.T) {
	var buf bytes.Buffer
	if err := Write(&buf, &sweep.Table{Columns: []string{"point", "trace"}, Rows: [][]string{{"0", "ring.tsim"}}}); err != nil {
		t.Fatal(err)
	}
	good := buf.Bytes()
	n := len(good)
	edit := func(fn func(b []byte)) string {
		b := slices.Clone(good)
		fn(b)
		return string(b)
	}
	tests := []struct {
		name, data, want string
	}{
		{"empty", "", "bad.parquet: 0 B: too short for a Parquet file (expected PAR1, a footer, its length and PAR1: 12 B at least)"},
		{"short", "PAR1garbage", "bad.parquet: 11 B: too short for a Parquet file (expected PAR1, a footer, its length and PAR1: 12 B at least)"},
		{"no end magic", edit(func(b []byte) { b[n-1] = '2' }), fmt.Sprintf(`bad.parquet: offset %d: "PAR2" where a Parquet file ends with "PAR1"`, n-4)},
		{"footer longer than the file", edit(func(b []byte) { copy(b[n-8:], []byte{0xff, 0xff, 0xff, 0xff}) }),
			fmt.Sprintf("bad.parquet: offset %d: footer of 4294967295 B claimed, but the file has %d B before it", n-8, n-12)},
	}
	for _, tc := range tests {
		_, err := Read("bad.parquet", strings.NewReader(tc.data), int64(len(tc.data)))
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}

// TestDuckDB: what an analyst sees of a Parquet result in DuckDB. The
// columns are in the CSV's order (point first, not alphabetical); an
// axis with a unit is its written value ("10Gb/s") followed by its
// number (bandwidth_bps, latency_s) as a DOUBLE; an axis of plain
// numbers (vcs, cpu-scale) is a number itself; the measurements are
// numbers. The file reads back to the CSV's table.
func TestDuckDB(t *testing.T) {
	s, err := sweep.ParseFile("spec.toml", []byte(`traces = ["gen ring --ranks 8"]
model = "packet"
topology = "torus:2x4"
[axes]
bandwidth = ["10Gb/s", "400Gb/s"]
latency = ["500ns", "2us"]
vcs = [2, 4]
cpu-scale = [0.5, 1.25]
`))
	if err != nil {
		t.Fatal(err)
	}
	pts, err := s.Expand()
	if err != nil {
		t.Fatal(err)
	}
	tb := &sweep.Table{Columns: s.Columns()}
	for i := range pts {
		row := s.Row(&pts[i], nil, 0.25, nil)
		row[tb.Column("makespan_s")] = fmt.Sprint(1e-3 * float64(i+1))
		tb.Rows = append(tb.Rows, row)
	}
	path := filepath.Join(t.TempDir(), "r.parquet")
	var buf bytes.Buffer
	if err := Write(&buf, tb); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	back, err := Read(path, bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(back.Columns, tb.Columns) || !slices.EqualFunc(back.Rows, tb.Rows, slices.Equal) {
		t.Fatalf("read back:\n%v\n%v\nwant\n%v\n%v", back.Columns, back.Rows[:2], tb.Columns, tb.Rows[:2])
	}

	res := duckdbtest.Query(t,
		"SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM '"+path+"')",
		"SELECT point, bandwidth, bandwidth_bps, latency, latency_s, vcs, \"cpu-scale\", makespan_s FROM '"+path+"' WHERE vcs = 4 AND bandwidth_bps > 1e11 AND latency_s < 1e-6 ORDER BY point")
	var got []string
	for _, r := range res[0] {
		got = append(got, fmt.Sprintf("%s %s", r["column_name"], r["column_type"]))
	}
	want := []string{"point BIGINT", "trace VARCHAR", "bandwidth VARCHAR", "bandwidth_bps DOUBLE", "latency VARCHAR", "latency_s DOUBLE",
		"vcs BIGINT", "cpu-scale DOUBLE", "makespan_s DOUBLE"}
	if len(got) < len(want) || !slices.Equal(got[:len(want)], want) {
		t.Errorf("DuckDB's columns start\n%v\nwant\n%v", got[:min(len(got), len(want))], want)
	}
	if i := slices.Index(got, "machine VARCHAR"); i != len(got)-1 {
		t.Errorf("machine is column %d of %d, want the last (as in the CSV): %v", i, len(got), got)
	}
	// Points 8 to 15 have 400Gb/s; of them, 500ns; of them, 4 VCs: 10
	// and 11 (the cpu-scale turns fastest).
	var rows []string
	for _, r := range res[1] {
		rows = append(rows, fmt.Sprint(r["point"], " ", r["bandwidth"], " ", r["bandwidth_bps"], " ", r["latency"], " ", r["latency_s"], " ", r["vcs"], " ", r["cpu-scale"], " ", r["makespan_s"]))
	}
	wantRows := []string{"10 400Gb/s 4e+11 500ns 5e-07 4 0.5 0.011", "11 400Gb/s 4e+11 500ns 5e-07 4 1.25 0.012"}
	if !slices.Equal(rows, wantRows) {
		t.Errorf("DuckDB's rows:\n%v\nwant\n%v", rows, wantRows)
	}
}
