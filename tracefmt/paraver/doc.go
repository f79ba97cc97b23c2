// Package paraver reads and writes Paraver traces (BSC's .prv with its
// .pcf configuration and .row names), as Extrae writes them.
//
// A .prv is a header line, "c:" communicator lines, then one record per
// line, sorted by time: states "1:cpu:appl:task:thread:begin:end:state",
// events "2:cpu:appl:task:thread:time:type:value[:type:value...]",
// communications "3:cpu:appl:task:thread:lsend:psend:cpu:appl:task:thread:lrecv:precv:size:tag"
// and, in old traces, global operations
// "4:cpu:appl:task:thread:time:comm:sent:received:op:root". The .pcf names
// the state values, the event types and their values; the .row names the
// tasks. Each task of each application is a rank; a task's threads are
// merged by time into its stream (docs/formats.md says how each record
// becomes events).
package paraver
