// Package parquetfile reads and writes sweep results (engine/sweep) as
// Parquet files. It is a package of its own so that the Parquet library
// is linked only into the programs that write results, not into every
// user of engine/sweep (the TUI).
package parquetfile

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/parquet-go/parquet-go"

	"github.com/tracesim/tracesim/engine/sweep"
	"github.com/tracesim/tracesim/internal/tabular"
)

// columnsKey is the Parquet key/value metadata entry that keeps the
// result's column order (a Parquet group orders its fields by name).
const columnsKey = "tracesim.sweep.columns"

// kindOf returns the Parquet type of a result column: whole numbers as
// INT64, measurements as DOUBLE, complete as BOOLEAN, the rest (the
// trace, the axes' values with their units, messages) as strings. Every
// column is optional: a point that failed has no makespan.
func kindOf(col string) tabular.Kind {
	switch col {
	case "point", "rep", "seed", "ranks", "messages", "bytes", "unmatched", "net_long_waits", "events":
		return tabular.Int
	case "complete":
		return tabular.Bool
	case "trace", "deadlock", "error", "net_busiest_group", sweep.MachineColumn:
		return tabular.String
	}
	if slices.Contains(sweep.MetricColumns(), col) {
		return tabular.Float
	}
	return tabular.String // an axis
}

// Write writes t as a Parquet file: one row per point, typed columns,
// the column order in the file's metadata. Read reads it back to the
// same table.
func Write(w io.Writer, t *sweep.Table) error {
	group := parquet.Group{}
	for _, c := range t.Columns {
		group[c] = parquet.Optional(tabular.Node(kindOf(c)))
	}
	schema := parquet.NewSchema("sweep", group)
	leaf := make([]int, len(t.Columns)) // t's column → the schema's
	for i, path := range schema.Columns() {
		leaf[slices.Index(t.Columns, path[0])] = i
	}
	order, err := json.Marshal(t.Columns)
	if err != nil {
		return err
	}
	pw := parquet.NewWriter(w, schema, parquet.KeyValueMetadata(columnsKey, string(order)))
	rows := make([]parquet.Row, 0, len(t.Rows))
	for _, r := range t.Rows {
		row := make(parquet.Row, len(t.Columns))
		for c, s := range r {
			v, err := tabular.Parse(kindOf(t.Columns[c]), s)
			if err != nil {
				return fmt.Errorf("point %s: %s: %w", r[0], t.Columns[c], err)
			}
			def := 1
			if v.IsNull() {
				def = 0
			}
			row[leaf[c]] = v.Level(0, def, leaf[c])
		}
		rows = append(rows, row)
	}
	if _, err := pw.WriteRows(rows); err != nil {
		return err
	}
	return pw.Close()
}

// Read reads a result written by Write. name is the file's name for
// errors.
func Read(name string, r io.ReaderAt, size int64) (t *sweep.Table, err error) {
	defer func() {
		// The decoder panics on some corrupt pages: a bad file is an
		// error, not a crash.
		if p := recover(); p != nil {
			t, err = nil, fmt.Errorf("%s: corrupt Parquet file: %v", name, p)
		}
	}()
	f, err := parquet.OpenFile(r, size)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	meta, ok := f.Lookup(columnsKey)
	t = &sweep.Table{}
	if !ok || json.Unmarshal([]byte(meta), &t.Columns) != nil {
		return nil, fmt.Errorf("%s: not a sweep result (no %s metadata)", name, columnsKey)
	}
	col := map[int]int{} // the schema's leaf → t's column
	paths := f.Schema().Columns()
	for c, cn := range t.Columns {
		l := slices.IndexFunc(paths, func(p []string) bool { return len(p) == 1 && p[0] == cn })
		if l < 0 {
			return nil, fmt.Errorf("%s: column %s missing", name, cn)
		}
		col[l] = c
	}
	if len(t.Columns) < 2 || t.Columns[0] != "point" || t.Columns[1] != "trace" {
		return nil, fmt.Errorf("%s: not a sweep result (expected columns point, trace, …)", name)
	}
	pr := parquet.NewReader(f)
	defer pr.Close()
	buf := make([]parquet.Row, 64)
	for {
		n, err := pr.ReadRows(buf)
		for _, row := range buf[:n] {
			vals := make([]string, len(t.Columns))
			for _, v := range row {
				if c, ok := col[v.Column()]; ok {
					vals[c] = tabular.Format(kindOf(t.Columns[c]), v)
				}
			}
			t.Rows = append(t.Rows, vals)
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	}
	return t, nil
}
