package simgridti

import "fmt"

// Datatype is an SMPI datatype id as written in TI traces: the trailing
// integer fields of send, recv and collective actions. Counts in a trace
// are in elements of the datatype; the reader multiplies them by Size.
type Datatype int

// The datatype ids of SMPI's predefined types (smpi_datatype.cpp, SimGrid
// 3.2x–3.3x). Ids 0–6 are the ones SimGrid's tracer calls "replayable" and
// the only ones SimGrid versions before 3.20 knew.
const (
	Double Datatype = 0
	Int    Datatype = 1
	Char   Datatype = 2
	Short  Datatype = 3
	Long   Datatype = 4
	Float  Datatype = 5
	Byte   Datatype = 6
)

// datatypes lists name and size in bytes (LP64, as SimGrid computes them
// with sizeof on the machine that replays) of every predefined SMPI
// datatype, indexed by id.
var datatypes = [...]struct {
	name string
	size int64
}{
	{"MPI_DOUBLE", 8}, {"MPI_INT", 4}, {"MPI_CHAR", 1}, {"MPI_SHORT", 2},
	{"MPI_LONG", 8}, {"MPI_FLOAT", 4}, {"MPI_BYTE", 1}, {"MPI_LONG_LONG", 8},
	{"MPI_SIGNED_CHAR", 1}, {"MPI_UNSIGNED_CHAR", 1}, {"MPI_UNSIGNED_SHORT", 2},
	{"MPI_UNSIGNED", 4}, {"MPI_UNSIGNED_LONG", 8}, {"MPI_UNSIGNED_LONG_LONG", 8},
	{"MPI_LONG_DOUBLE", 16}, {"MPI_WCHAR", 4}, {"MPI_C_BOOL", 1},
	{"MPI_INT8_T", 1}, {"MPI_INT16_T", 2}, {"MPI_INT32_T", 4}, {"MPI_INT64_T", 8},
	{"MPI_UINT8_T", 1}, {"MPI_UINT16_T", 2}, {"MPI_UINT32_T", 4}, {"MPI_UINT64_T", 8},
	{"MPI_C_FLOAT_COMPLEX", 8}, {"MPI_C_DOUBLE_COMPLEX", 16},
	{"MPI_C_LONG_DOUBLE_COMPLEX", 32}, {"MPI_AINT", 8}, {"MPI_OFFSET", 8},
	// Pair types used by MINLOC/MAXLOC reductions (C struct sizes).
	{"MPI_FLOAT_INT", 8}, {"MPI_LONG_INT", 16}, {"MPI_DOUBLE_INT", 16},
	{"MPI_SHORT_INT", 8}, {"MPI_2INT", 8}, {"MPI_2FLOAT", 8}, {"MPI_2DOUBLE", 16},
	{"MPI_2LONG", 16},
	// Fortran types, with the C types SMPI backs them with.
	{"MPI_REAL", 4}, {"MPI_REAL4", 4}, {"MPI_REAL8", 8}, {"MPI_REAL16", 16},
	{"MPI_COMPLEX8", 8}, {"MPI_COMPLEX16", 16}, {"MPI_COMPLEX32", 16},
	{"MPI_INTEGER1", 4}, {"MPI_INTEGER2", 2}, {"MPI_INTEGER4", 4},
	{"MPI_INTEGER8", 8}, {"MPI_INTEGER16", 16},
	{"MPI_LONG_DOUBLE_INT", 32}, {"MPI_CXX_BOOL", 1}, {"MPI_CXX_FLOAT_COMPLEX", 8},
	{"MPI_CXX_DOUBLE_COMPLEX", 16}, {"MPI_CXX_LONG_DOUBLE_COMPLEX", 32},
	{"MPI_UB", 0}, {"MPI_LB", 0}, {"MPI_PACKED", 1}, {"MPI_PTR", 8}, {"MPI_COUNT", 8},
}

// Known reports whether d is an SMPI predefined datatype id.
func (d Datatype) Known() bool { return d >= 0 && int(d) < len(datatypes) }

// Size returns the size of one element in bytes (0 for unknown ids).
func (d Datatype) Size() int64 {
	if !d.Known() {
		return 0
	}
	return datatypes[d].size
}

// String returns the MPI name of the datatype ("MPI_DOUBLE").
func (d Datatype) String() string {
	if !d.Known() {
		return fmt.Sprintf("datatype(%d)", int(d))
	}
	return datatypes[d].name
}

// Replayable reports whether SimGrid's tracer writes counts of d in
// elements (true) rather than bytes; the writer only uses these ids.
func (d Datatype) Replayable() bool { return d >= Double && d <= Byte }
