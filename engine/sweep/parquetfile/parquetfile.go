// Package parquetfile reads and writes sweep results (engine/sweep) as
// Parquet files. It is a package of its own so that the Parquet library
// is linked only into the programs that write results, not into every
// user of engine/sweep (the TUI).
package parquetfile

import (
	"encoding/json"
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
// errors. The file is read as a flat table by tabular.Read; the
// result's column order comes from its own metadata entry.
func Read(name string, r io.ReaderAt, size int64) (*sweep.Table, error) {
	tt, err := tabular.Read(name, r, size)
	if err != nil {
		return nil, err
	}
	t := &sweep.Table{}
	if meta, ok := tt.Meta[columnsKey]; !ok || json.Unmarshal([]byte(meta), &t.Columns) != nil {
		return nil, fmt.Errorf("%s: not a sweep result (no %s metadata)", name, columnsKey)
	}
	from := make([]int, len(t.Columns)) // t's column → tt's
	for c, cn := range t.Columns {
		from[c] = slices.IndexFunc(tt.Columns, func(col tabular.Column) bool { return col.Name == cn })
		if from[c] < 0 {
			return nil, fmt.Errorf("%s: column %s missing", name, cn)
		}
	}
	if len(t.Columns) < 2 || t.Columns[0] != "point" || t.Columns[1] != "trace" {
		return nil, fmt.Errorf("%s: not a sweep result (expected columns point, trace, …)", name)
	}
	t.Rows = make([][]string, len(tt.Rows))
	for i, row := range tt.Rows {
		vals := make([]string, len(t.Columns))
		for c, f := range from {
			vals[c] = row[f]
		}
		t.Rows[i] = vals
	}
	return t, nil
}
