// Package dumpi reads SST DUMPI traces: a .meta file (key=value lines:
// numprocs, fileprefix, version, start time) and one binary file per rank,
// PREFIX-NNNN.bin, that records each profiled MPI call with its arguments
// and its wall-clock and CPU start and stop times. Integers are
// big-endian. A .bin is its magic, the calls (each a 16-bit function
// label, a mask saying which of thread, CPU times, wall times, counters
// and statuses follow, then the function's arguments) up to an
// end-of-stream label, then a trailer: header, footer (call counts),
// tables (datatype sizes, function addresses) and an index of their
// offsets. docs/formats.md says how calls become events.
package dumpi
