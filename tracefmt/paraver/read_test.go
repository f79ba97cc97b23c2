package paraver

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/tracesim/tracesim/tracefmt"
)

// describe lists each rank's events as "kind name@time".
func describe(tr *tracefmt.Trace) string {
	var b strings.Builder
	for r := range tr.Ranks {
		fmt.Fprintf(&b, "r%d:", r)
		for _, e := range tr.Ranks[r].Events {
			switch e.Kind {
			case tracefmt.KindEnter, tracefmt.KindLeave:
				fmt.Fprintf(&b, " %s %s@%g", e.Kind, tr.StateName(e.State()), e.Time)
			case tracefmt.KindSend, tracefmt.KindRecv:
				fmt.Fprintf(&b, " %s %d:%d:%d@%g", e.Kind, e.Peer, e.Tag, e.Size, e.Time)
			case tracefmt.KindCollective:
				fmt.Fprintf(&b, " coll %s root %d %d/%d@%g", e.Op(), e.Root(), e.Size, e.RecvBytes(), e.Time)
			case tracefmt.KindMarker:
				fmt.Fprintf(&b, " marker %s=%s@%g", tr.Markers[e.Marker()].Name, tr.Text(&e), e.Time)
			}
		}
		b.WriteString("\n")
	}
	return b.String()
}

const testPCF = `STATES
0    Idle
1    Running
3    Waiting a message

STATES_COLOR
1    {0,0,255}

EVENT_TYPE
9   50000001    MPI Point-to-point
VALUES
2   MPI_Recv
1   MPI_Send
0   End

EVENT_TYPE
0  42000050 Instructions completed
`

// TestHeaders reads the header variants: old (node count only, ",comms"
// after the tasks), current (_ns, CPUs per node), several applications,
// several threads per task.
func TestHeaders(t *testing.T) {
	tests := []struct {
		name, prv string
		unit      tracefmt.Unit
		want      string
	}{
		{"old", "#Paraver (26/01/04 at 16:35):200:2:1:2(1:1,1:2),1\nc:1:7:2:1:2\n" +
			"1:1:1:1:1:0:100:1\n2:1:1:1:1:100:50000001:1\n3:1:1:1:1:100:110:2:1:2:1:105:150:64:7\n" +
			"1:2:1:2:1:0:105:1\n1:2:1:2:1:105:150:3\n2:1:1:1:1:120:50000001:0:42000050:99\n4:1:1:1:1:160:7:8:0:1:0\n4:2:1:2:1:160:7:0:8:1:0\n",
			tracefmt.Microsecond,
			"r0: enter Running@0 leave Running@100 enter MPI_Send@100 send 1:7:64@100 leave MPI_Send@120 marker Instructions completed=99@120 coll bcast root 0 8/0@160\n" +
				"r1: enter Running@0 leave Running@105 enter Waiting a message@105 recv 0:7:64@150 leave Waiting a message@150 coll bcast root 0 0/8@160\n"},
		{"current", "#Paraver (01/02/2024 at 10:00):1000_ns:2(2,2):1:2(1:1,1:2),1\nc:1:1:2:1:2\n" +
			"2:1:1:1:1:5:50000001:2\n2:1:1:1:1:9:50000001:0\n", tracefmt.Nanosecond,
			"r0: enter MPI_Recv@5 leave MPI_Recv@9\nr1:\n"},
		{"applications and threads", "#Paraver (01/02/2024 at 10:00):1000_us:1(4):2:2(2:1,1:1):1(1:1)\n" +
			"1:1:1:1:1:0:30:1\n1:1:1:1:2:10:20:1\n3:1:1:2:1:12:12:3:2:1:1:25:25:4:0\n1:3:2:1:1:0:30:1\n", tracefmt.Microsecond,
			"r0: enter Running@0 enter Running (thread 2)@10 leave Running (thread 2)@20 leave Running@30\n" +
				"r1: send 2:0:4@12\n" +
				"r2: enter Running@0 recv 1:0:4@25 leave Running@30\n"},
		{"Extrae MPI values the .pcf does not name", "#Paraver (x):50_ns:1:1:1(1:1)\n2:1:1:1:1:10:50000001:3\n2:1:1:1:1:20:50000001:0:50000002:8\n2:1:1:1:1:30:50000002:0\n", tracefmt.Nanosecond,
			"r0: enter MPI_Isend@10 leave MPI_Isend@20 enter MPI_Barrier@20 leave MPI_Barrier@30\n"},
		{"open state and multiple pairs", "#Paraver (x):50_ns:1:1:1(1:1)\n1:1:1:1:1:10:-1:1\n2:1:1:1:1:20:50000001:1:50000001:2:77:3\n", tracefmt.Nanosecond,
			"r0: enter Running@10 enter MPI_Send@20 enter MPI_Recv@20 marker event 77=3@20 leave Running@50\n"},
		// MPITrace on an MPI whose collectives call MPI_Reduce, MPI_Bcast,
		// MPI_Send and MPI_Recv: the calls nest, 0 leaves the innermost,
		// and MPI_Reduce's exit repeats its value.
		{"nested MPI calls", "#Paraver (x):200_ns:1:1:1(1:1)\n2:1:1:1:1:10:50000002:10\n2:1:1:1:1:12:50000002:9\n2:1:1:1:1:14:50000001:1\n" +
			"2:1:1:1:1:20:50000001:0\n2:1:1:1:1:22:50000002:9\n2:1:1:1:1:23:50000002:7\n2:1:1:1:1:25:50000001:2\n2:1:1:1:1:30:50000001:0\n" +
			"2:1:1:1:1:31:50000002:0\n2:1:1:1:1:32:50000002:0\n2:1:1:1:1:40:50000002:9\n2:1:1:1:1:45:50000002:9\n2:1:1:1:1:46:50000002:0\n", tracefmt.Nanosecond,
			"r0: enter MPI_Allreduce@10 enter MPI_Reduce@12 enter MPI_Send@14 leave MPI_Send@20 leave MPI_Reduce@22 enter MPI_Bcast@23 enter MPI_Recv@25 " +
				"leave MPI_Recv@30 leave MPI_Bcast@31 leave MPI_Allreduce@32 enter MPI_Reduce@40 leave MPI_Reduce@45\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := files{"out.prv": []byte(tc.prv), "out.pcf": []byte(testPCF)}
			tr := f.read(t)
			if got := describe(tr); got != tc.want || tr.Unit != tc.unit {
				t.Errorf("unit %v, events\n%s\nwant unit %v,\n%s", tr.Unit, got, tc.unit, tc.want)
			}
		})
	}
}

// TestErrors: a rejected .prv names the file, the line and what was
// expected there.
func TestErrors(t *testing.T) {
	const hdr = "#Paraver (01/02/2024 at 10:00):1000_ns:1(2):1:2(1:1,1:1),1\n"
	tests := []struct{ name, prv, want string }{
		{"empty", "", "out.prv:1: expected the #Paraver header, got an empty file"},
		{"not paraver", "hello\n", `out.prv:1: expected a header starting "#Paraver ", got "hello"`},
		{"ftime", "#Paraver (d):12x:1:1:1(1:1)\n", `out.prv:1: expected the final time (an integer, optionally _ns or _us), got "12x"`},
		{"applications", "#Paraver (d):12:1:2:1(1:1)\n", "out.prv:1: header declares 2 applications but lists 1"},
		{"tasks", "#Paraver (d):12:1:1:2(1:1)\n", "out.prv:1: application 1: declares 2 tasks but lists 1"},
		{"record type", hdr + "7:1:1:1:1:0\n", `out.prv:2: expected a record 1: (state), 2: (event), 3: (communication), 4: (global operation) or c: (communicator), got "7:1:1:1:1:0"`},
		{"field", hdr + "1:1:1:1:1:0:x:1\n", `out.prv:2: record 1: expected field 6 (end time) as an integer, got "1:1:1:1:1:0:x:1"`},
		{"task", hdr + "\n1:1:1:3:1:0:5:1\n", "out.prv:3: task 3 outside application 1's 1..2"},
		{"thread", hdr + "1:1:1:1:2:0:5:1\n", "out.prv:2: thread 2 outside task 1's 1..1"},
		{"backwards state", hdr + "1:1:1:1:1:9:5:1\n", "out.prv:2: state from 9 to 5: expected 0 ≤ begin ≤ end"},
		{"event value", hdr + "2:1:1:1:1:9:5:1:6\n", `out.prv:2: expected an event value after type 6, got ""`},
		{"comm", hdr + "4:1:1:1:1:9:5:1:1:0:0\n", "out.prv:2: communicator 5 not defined by a c: line"},
		{"trailing", hdr + "3:1:1:1:1:0:0:1:1:2:1:3:3:4:0:9\n", `out.prv:2: expected the end of the communication record, got "9"`},
		{"comm tasks", hdr + "c:1:5:3:1:2\n", `out.prv:2: communicator 5: expected 3 tasks, got "1:5:3:1:2"`},
		{"sparse world", "#Paraver (d):12:1:1:70000(" + strings.Repeat("1:1,", 69999) + "1:1)\n1:1:1:1:1:0:5:1\n",
			"out.prv:1: the header's 70000 tasks: the world has 70000 ranks but only 1 of them have events: " +
				"its 69999 empty ranks would need about 136.7 MiB of memory to check or simulate, and at most 65536 may be empty"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := files{"out.prv": []byte(tc.prv)}
			_, err := Read("out.prv", strings.NewReader(tc.prv), f.open)
			if err == nil || err.Error() != tc.want {
				t.Errorf("error %v\nwant  %s", err, tc.want)
			}
		})
	}
	t.Run("pcf", func(t *testing.T) {
		f := files{"out.prv": []byte(hdr), "out.pcf": []byte("STATES\n0 Idle\nx Running\n")}
		_, err := Read("out.prv", strings.NewReader(hdr), f.open)
		want := `out.pcf:3: expected a state value then its name in STATES, got "x Running"`
		if err == nil || err.Error() != want {
			t.Errorf("error %v\nwant  %s", err, want)
		}
	})
}

// TestFieldsInt pins the integer fields a record is cut into: every
// value int64 holds, with or without leading zeros, and nothing beyond.
func TestFieldsInt(t *testing.T) {
	tests := []struct {
		in   string
		want []int64 // the fields read before the first failure
		ok   bool    // whether the whole input was read
	}{
		{"0", []int64{0}, true},
		{"1:22:333", []int64{1, 22, 333}, true},
		{"-5:7", []int64{-5, 7}, true},
		{"9223372036854775807", []int64{9223372036854775807}, true},
		{"-9223372036854775807", []int64{-9223372036854775807}, true},
		{"000000000000000000000000042", []int64{42}, true},
		{"123456789012345678:1234567890123456789", []int64{123456789012345678, 1234567890123456789}, true},
		{"9223372036854775808", nil, false},
		{"99999999999999999999", nil, false},
		{"12a", nil, false},
		{"4:-", []int64{4}, false},
		{"", nil, false},
		{"7::8", []int64{7}, false},
	}
	for _, tt := range tests {
		f := &fields{s: []byte(tt.in)}
		var got []int64
		ok := true
		for ok && f.more() {
			var v int64
			if v, ok = f.int(); ok {
				got = append(got, v)
			}
		}
		if tt.in == "" {
			_, ok = f.int()
		}
		if ok != tt.ok || !slices.Equal(got, tt.want) {
			t.Errorf("%q: read %v (all: %v), want %v (all: %v)", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}
