// Package tabular writes tables of typed columns, one row at a time, as
// CSV or Parquet, and reads a Parquet table back. It is what the exports
// (engine/export) and the sweep results (engine/sweep/parquetfile) share:
// the Parquet types of a column kind, the conversion of a cell between
// its text and its Parquet value, and a writer that streams rows out in
// row groups instead of holding the table.
package tabular

import (
	"encoding/binary"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/parquet-go/parquet-go"
)

// Kind is how a column is stored: its Parquet type, and how its cells
// are written in CSV.
type Kind uint8

// Column kinds.
const (
	String Kind = iota
	Int         // INT64
	Float       // DOUBLE
	Bool        // BOOLEAN
)

// Column is one column of a table.
type Column struct {
	Name string
	Kind Kind
	// Optional columns may hold nulls (an empty CSV cell).
	Optional bool
}

// orderedGroup is a Parquet group whose fields keep the order of names:
// a parquet.Group orders its fields by name, and a reader (DuckDB,
// pandas) shows the columns in the file's order.
type orderedGroup struct {
	parquet.Group
	names []string
}

// Group returns a Parquet group of the named nodes, its fields in the
// order of names.
func Group(names []string, nodes []parquet.Node) parquet.Node {
	g := orderedGroup{Group: parquet.Group{}, names: names}
	for i, n := range names {
		g.Group[n] = nodes[i]
	}
	return g
}

// Fields returns the group's fields in the order of its names.
func (g orderedGroup) Fields() []parquet.Field {
	sorted := g.Group.Fields()
	out := make([]parquet.Field, len(g.names))
	for i, n := range g.names {
		out[i] = sorted[slices.IndexFunc(sorted, func(f parquet.Field) bool { return f.Name() == n })]
	}
	return out
}

// GoType returns a struct of the fields in the group's order.
func (g orderedGroup) GoType() reflect.Type {
	fields := g.Fields()
	sf := make([]reflect.StructField, len(fields))
	for i, f := range fields {
		sf[i] = reflect.StructField{Name: fmt.Sprintf("F%d", i), Type: f.GoType(), Tag: reflect.StructTag(`parquet:` + strconv.Quote(f.Name()))}
	}
	return reflect.StructOf(sf)
}

// Node returns the Parquet node of a column of kind k (required).
func Node(k Kind) parquet.Node {
	switch k {
	case Int:
		return parquet.Int(64)
	case Float:
		return parquet.Leaf(parquet.DoubleType)
	case Bool:
		return parquet.Leaf(parquet.BooleanType)
	}
	return parquet.String()
}

// Parse returns the Parquet value of the text s in a column of kind k;
// an empty s is null in a column that is not a string.
func Parse(k Kind, s string) (parquet.Value, error) {
	if s == "" && k != String {
		return parquet.NullValue(), nil
	}
	switch k {
	case Int:
		n, err := strconv.ParseInt(s, 10, 64)
		return parquet.Int64Value(n), err
	case Float:
		f, err := strconv.ParseFloat(s, 64)
		return parquet.DoubleValue(f), err
	case Bool:
		b, err := strconv.ParseBool(s)
		return parquet.BooleanValue(b), err
	}
	return parquet.ByteArrayValue([]byte(s)), nil
}

// Format returns the text of a Parquet value of kind k: what Parse reads
// back to the same value ("" for null). Floats are written in the
// shortest form that reads back exactly.
func Format(k Kind, v parquet.Value) string {
	if v.IsNull() {
		return ""
	}
	switch k {
	case Int:
		return strconv.FormatInt(v.Int64(), 10)
	case Float:
		return strconv.FormatFloat(v.Double(), 'g', -1, 64)
	case Bool:
		return strconv.FormatBool(v.Boolean())
	}
	return string(v.ByteArray())
}

// Value is one cell of a row.
type Value = parquet.Value

// Null returns an empty cell, for an optional column.
func Null() Value { return parquet.NullValue() }

// IntValue, FloatValue, StringValue and BoolValue make the cells of
// Writer.Row.
func IntValue(n int64) parquet.Value     { return parquet.Int64Value(n) }
func FloatValue(f float64) parquet.Value { return parquet.DoubleValue(f) }
func StringValue(s string) parquet.Value { return parquet.ByteArrayValue([]byte(s)) }
func BoolValue(b bool) parquet.Value     { return parquet.BooleanValue(b) }

// Writer writes the rows of a table to a CSV or a Parquet stream.
type Writer struct {
	cols []Column
	// CSV
	cw  *csv.Writer
	rec []string
	// Parquet
	pw   *parquet.GenericWriter[any]
	leaf []int // column → the schema's leaf (the same since Group keeps the order)
	rows []parquet.Row
	n    int
}

// rowGroup is how many rows a Parquet writer buffers before it writes
// them out as a row group: the memory a long export holds stays bounded.
const rowGroup = 64 << 10

// batch is how many rows Row collects before it hands them to the
// Parquet writer.
const batch = 1024

// ColumnsKey is the Parquet key/value metadata entry that names the
// table's columns in order. The file's columns are in that order too
// (Group); files written before were sorted by name, and Read restores
// the order of those.
const ColumnsKey = "tracesim.columns"

// NewCSV returns a writer of CSV to w; it writes the header line.
func NewCSV(w io.Writer, cols []Column) (*Writer, error) {
	t := &Writer{cols: cols, cw: csv.NewWriter(w), rec: make([]string, len(cols))}
	for i, c := range cols {
		t.rec[i] = c.Name
	}
	return t, t.cw.Write(t.rec)
}

// NewParquet returns a writer of a Parquet file named name (the schema's
// name) to w, with the key/value metadata given in pairs.
func NewParquet(w io.Writer, name string, cols []Column, meta ...[2]string) (*Writer, error) {
	names := make([]string, len(cols))
	nodes := make([]parquet.Node, len(cols))
	for i, c := range cols {
		if slices.Contains(names[:i], c.Name) {
			return nil, fmt.Errorf("column %s twice", c.Name)
		}
		n := Node(c.Kind)
		if c.Optional {
			n = parquet.Optional(n)
		}
		nodes[i] = n
		names[i] = c.Name
	}
	schema := parquet.NewSchema(name, Group(names, nodes))
	t := &Writer{cols: cols, leaf: make([]int, len(cols))}
	for i, path := range schema.Columns() {
		t.leaf[slices.Index(names, path[0])] = i
	}
	opts := []parquet.WriterOption{schema, parquet.MaxRowsPerRowGroup(rowGroup), parquet.KeyValueMetadata(ColumnsKey, joinNames(names))}
	for _, kv := range meta {
		opts = append(opts, parquet.KeyValueMetadata(kv[0], kv[1]))
	}
	t.pw = parquet.NewGenericWriter[any](w, opts...)
	return t, nil
}

// joinNames writes column names as a CSV line: names with commas or
// quotes survive.
func joinNames(names []string) string {
	var b strings.Builder
	cw := csv.NewWriter(&b)
	cw.Write(names)
	cw.Flush()
	return strings.TrimRight(b.String(), "\r\n")
}

// Columns returns the writer's columns.
func (t *Writer) Columns() []Column { return t.cols }

// Row writes one row: one value per column, in the columns' order, of
// the column's kind (Null in an optional column).
func (t *Writer) Row(vals ...parquet.Value) error {
	if len(vals) != len(t.cols) {
		return fmt.Errorf("row of %d values for %d columns", len(vals), len(t.cols))
	}
	if t.cw != nil {
		for i, v := range vals {
			t.rec[i] = Format(t.cols[i].Kind, v)
		}
		return t.cw.Write(t.rec)
	}
	if t.n == len(t.rows) {
		if t.n == batch {
			if err := t.flushRows(); err != nil {
				return err
			}
		} else {
			t.rows = append(t.rows, make(parquet.Row, len(t.cols)))
		}
	}
	row := t.rows[t.n]
	for i, v := range vals {
		def := 0
		switch {
		case t.cols[i].Optional && !v.IsNull():
			def = 1
		case v.IsNull() && !t.cols[i].Optional:
			return fmt.Errorf("column %s: null in a required column", t.cols[i].Name)
		}
		row[t.leaf[i]] = v.Level(0, def, t.leaf[i])
	}
	t.n++
	return nil
}

func (t *Writer) flushRows() error {
	if t.n == 0 {
		return nil
	}
	_, err := t.pw.WriteRows(t.rows[:t.n])
	t.n = 0
	return err
}

// Close writes what is buffered and the Parquet footer; it does not
// close the underlying writer.
func (t *Writer) Close() error {
	if t.cw != nil {
		t.cw.Flush()
		return t.cw.Error()
	}
	if err := t.flushRows(); err != nil {
		return err
	}
	return t.pw.Close()
}

// Table is a table read back: its columns and its rows as text (Format's
// spelling of each cell).
type Table struct {
	Columns []Column
	Rows    [][]string
	// Meta is the file's key/value metadata.
	Meta map[string]string
}

// checkFooter checks the frame of a Parquet file of size bytes: "PAR1",
// then the footer, its length as 4 bytes little-endian, and "PAR1". The
// decoder allocates the footer by the length the file claims before it
// reads it, so a few corrupt bytes would cost gigabytes: a length the
// file cannot hold is an error that says so.
func checkFooter(r io.ReaderAt, size int64) error {
	const frame = 4 + 4 + 4 // both magics and the footer's length
	if size < frame {
		return fmt.Errorf("%d B: too short for a Parquet file (expected PAR1, a footer, its length and PAR1: %d B at least)", size, frame)
	}
	var tail [8]byte
	if _, err := r.ReadAt(tail[:], size-8); err != nil {
		return fmt.Errorf("reading the footer's length at offset %d: %w", size-8, err)
	}
	if string(tail[4:]) != "PAR1" {
		return fmt.Errorf("offset %d: %q where a Parquet file ends with \"PAR1\"", size-4, tail[4:])
	}
	if n := int64(binary.LittleEndian.Uint32(tail[:4])); n > size-frame {
		return fmt.Errorf("offset %d: footer of %d B claimed, but the file has %d B before it", size-8, n, size-frame)
	}
	return nil
}

// Read reads a Parquet table written by a Writer (or any Parquet file of
// flat columns of the four kinds). name is the file's name for errors.
func Read(name string, r io.ReaderAt, size int64) (t *Table, err error) {
	defer func() {
		// The decoder panics on some corrupt pages: a bad file is an
		// error, not a crash.
		if p := recover(); p != nil {
			t, err = nil, fmt.Errorf("%s: corrupt Parquet file: %v", name, p)
		}
	}()
	if err := checkFooter(r, size); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	// Rows need neither the page index nor the bloom filters, and the
	// decoder allocates both by the lengths the file claims.
	f, err := parquet.OpenFile(r, size, parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	t = &Table{Meta: map[string]string{}}
	for _, kv := range f.Metadata().KeyValueMetadata {
		t.Meta[kv.Key] = kv.Value
	}
	fields := f.Schema().Fields()
	names := make([]string, len(fields))
	for i, fl := range fields {
		names[i] = fl.Name()
	}
	if order, ok := t.Meta[ColumnsKey]; ok {
		rec, err := csv.NewReader(strings.NewReader(order)).Read()
		if err != nil || len(rec) != len(names) {
			return nil, fmt.Errorf("%s: metadata %s: %q does not name the file's %d columns", name, ColumnsKey, order, len(names))
		}
		names = rec
	}
	leafOf := map[string]int{}
	for i, path := range f.Schema().Columns() {
		if len(path) != 1 {
			return nil, fmt.Errorf("%s: column %v is nested: not a flat table", name, path)
		}
		leafOf[path[0]] = i
	}
	col := make(map[int]int, len(names)) // leaf → column
	for c, n := range names {
		l, ok := leafOf[n]
		if !ok {
			return nil, fmt.Errorf("%s: column %s missing", name, n)
		}
		col[l] = c
		fl := fields[slices.IndexFunc(fields, func(f parquet.Field) bool { return f.Name() == n })]
		t.Columns = append(t.Columns, Column{Name: n, Kind: kindOfType(fl.Type()), Optional: fl.Optional()})
	}
	pr := parquet.NewReader(f)
	defer pr.Close()
	buf := make([]parquet.Row, 256)
	for {
		n, err := pr.ReadRows(buf)
		for _, row := range buf[:n] {
			vals := make([]string, len(t.Columns))
			for _, v := range row {
				if c, ok := col[v.Column()]; ok {
					vals[c] = Format(t.Columns[c].Kind, v)
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

func kindOfType(tp parquet.Type) Kind {
	switch tp.Kind() {
	case parquet.Int64, parquet.Int32:
		return Int
	case parquet.Double, parquet.Float:
		return Float
	case parquet.Boolean:
		return Bool
	}
	return String
}
