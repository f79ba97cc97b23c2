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
	"strconv"

	"github.com/parquet-go/parquet-go"

	"github.com/tracesim/tracesim/engine/replay"
	"github.com/tracesim/tracesim/engine/sweep"
	"github.com/tracesim/tracesim/internal/tabular"
)

// columnsKey is the Parquet key/value metadata entry that names the
// result's columns, in order: the file's own columns, in the same order,
// add the numbers of the axes with units (layout).
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

// column is one column of the Parquet file: a column of the result, or
// the number of a numeric axis's value (axis ≥ 0, the result's column).
type column struct {
	name string
	kind tabular.Kind
	// from is the result's column the cells come from.
	from int
	// scale turns the axis's value in its setting's base unit into the
	// column's unit; 0 for a column of the result.
	scale float64
}

// unitColumn returns the name suffix and scale of the number column
// that follows an axis of a setting with a unit: seconds, bytes, bits/s
// (as the axis writes rates: "10Gb/s" is 1e10), flop/s. ok is false for
// the other settings.
func unitColumn(key string) (suffix string, scale float64, ok bool) {
	set, found := replay.LookupSetting(key)
	if !found {
		return "", 0, false
	}
	switch set.Kind {
	case replay.KindDuration:
		return "_s", 1, true
	case replay.KindSize:
		return "_bytes", 1, true
	case replay.KindRate:
		return "_bps", 8, true
	case replay.KindSpeed:
		return "_flops", 1, true
	}
	return "", 0, false
}

// plainNumber returns the Parquet kind of an axis of a setting that is a
// plain number (vcs, seed, a factor), stored as such; ok is false for
// other settings.
func plainNumber(key string) (tabular.Kind, bool) {
	set, found := replay.LookupSetting(key)
	switch {
	case !found:
		return 0, false
	case set.Kind == replay.KindInt:
		return tabular.Int, true
	case set.Kind == replay.KindFloat:
		return tabular.Float, true
	}
	return 0, false
}

// layout returns the file's columns: the result's, in its order (point
// first, as in the CSV); an axis of a plain number as INT64 or DOUBLE
// when every value reads as one; an axis with a unit as its written
// value ("10Gb/s", as in the CSV) followed by its number in the unit its
// name says (bandwidth_bps, latency_s, buffer_bytes, cpu-speed_flops),
// for queries that compare or plot it.
func layout(t *sweep.Table) []column {
	var cols []column
	for c, name := range t.Columns {
		k := kindOf(name)
		axis := k == tabular.String && !slices.Contains([]string{"trace", "deadlock", "error", "net_busiest_group", sweep.MachineColumn}, name)
		if axis {
			if pk, ok := plainNumber(name); ok && allParse(t, c, pk) {
				k = pk
			}
		}
		cols = append(cols, column{name: name, kind: k, from: c})
		if !axis {
			continue
		}
		if suffix, scale, ok := unitColumn(name); ok && !slices.Contains(t.Columns, name+suffix) {
			cols = append(cols, column{name: name + suffix, kind: tabular.Float, from: c, scale: scale})
		}
	}
	return cols
}

// allParse reports whether every cell of column c reads as kind k.
func allParse(t *sweep.Table, c int, k tabular.Kind) bool {
	for _, r := range t.Rows {
		if _, err := tabular.Parse(k, r[c]); err != nil {
			return false
		}
	}
	return true
}

// Write writes t as a Parquet file: one row per point, typed columns in
// the result's order (and the axes' numbers, see layout), the result's
// column order in the file's metadata. Read reads it back to the same
// table.
func Write(w io.Writer, t *sweep.Table) error {
	cols := layout(t)
	names := make([]string, len(cols))
	nodes := make([]parquet.Node, len(cols))
	for i, c := range cols {
		names[i], nodes[i] = c.name, parquet.Optional(tabular.Node(c.kind))
	}
	schema := parquet.NewSchema("sweep", tabular.Group(names, nodes))
	order, err := json.Marshal(t.Columns)
	if err != nil {
		return err
	}
	pw := parquet.NewWriter(w, schema, parquet.KeyValueMetadata(columnsKey, string(order)))
	rows := make([]parquet.Row, 0, len(t.Rows))
	for _, r := range t.Rows {
		row := make(parquet.Row, len(cols))
		for i, c := range cols {
			var v parquet.Value
			if c.scale != 0 {
				v = tabular.Null()
				if n, ok := sweep.AxisNumber(t.Columns[c.from], r[c.from]); ok {
					// 15 significant digits: "500ns" is 5e-07, not the
					// 5.000000000000001e-07 of 500 × 1e-9.
					n, _ = strconv.ParseFloat(strconv.FormatFloat(n*c.scale, 'g', 15, 64), 64)
					v = tabular.FloatValue(n)
				}
			} else if v, err = tabular.Parse(c.kind, r[c.from]); err != nil {
				return fmt.Errorf("point %s: %s: %w", r[0], c.name, err)
			}
			def := 1
			if v.IsNull() {
				def = 0
			}
			row[i] = v.Level(0, def, i)
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
			// A result column of a fixed kind (a makespan, a count)
			// must read as that kind, or Write would refuse the table
			// Read returned: such a file is not one of Write's.
			if k := kindOf(t.Columns[c]); k != tabular.String && vals[c] != "" {
				if _, err := tabular.Parse(k, vals[c]); err != nil {
					return nil, fmt.Errorf("%s: row %d: %s: %q is not a value of its kind (%w)", name, i+1, t.Columns[c], vals[c], err)
				}
			}
			if tt.Columns[f].Kind != tabular.String && vals[c] != "" {
				if set, ok := replay.LookupSetting(t.Columns[c]); ok {
					// An axis stored as a number: written back as
					// the setting writes it, as the CSV has it.
					cfg := replay.Default()
					if err := set.Set(&cfg, vals[c]); err != nil {
						return nil, fmt.Errorf("%s: row %d: %s: %w", name, i+1, t.Columns[c], err)
					}
					vals[c] = set.Get(&cfg)
				}
			}
		}
		t.Rows[i] = vals
	}
	return t, nil
}
