package dimemas

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/tracesim/tracesim/tracefmt"
)

// describe lists rank r's events.
func describe(tr *tracefmt.Trace, r int) string {
	var out []string
	for _, e := range tr.Ranks[r].Events {
		switch e.Kind {
		case tracefmt.KindSend, tracefmt.KindRecv:
			s := fmt.Sprintf("%s %d:%d:%d", e.Kind, e.Peer, e.Tag, e.Size)
			if e.Flags.Has(tracefmt.FlagNonBlocking) {
				s += fmt.Sprintf(" req %d", e.Request())
			}
			if e.Flags.Has(tracefmt.FlagSync) {
				s += " sync"
			}
			out = append(out, s)
		case tracefmt.KindWait:
			out = append(out, fmt.Sprintf("wait %d", e.Request()))
		case tracefmt.KindCollective:
			out = append(out, fmt.Sprintf("%s@%s root %d %d/%d", e.Op(), tr.Comms[e.Comm].Name, e.Root(), e.Size, e.RecvBytes()))
		case tracefmt.KindCompute:
			out = append(out, fmt.Sprintf("compute %gs", e.Amount()))
		case tracefmt.KindEnter, tracefmt.KindLeave:
			out = append(out, fmt.Sprintf("%s %s", e.Kind, tr.StateName(e.State())))
		case tracefmt.KindMarker:
			out = append(out, fmt.Sprintf("marker %s=%s", tr.Markers[e.Marker()].Name, tr.Text(&e)))
		}
	}
	return strings.Join(out, ", ")
}

// TestRing reads testdata/ring.dim, written from the format's definition
// (Dimemas' record layouts): every record kind, both send/receive field
// forms (with and without the peer's thread), communicators and roots.
func TestRing(t *testing.T) {
	f, err := os.Open("testdata/ring.dim")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tr, err := Read("ring.dim", f)
	if err != nil {
		t.Fatal(err)
	}
	s := tracefmt.Summarize(tr)
	if s.Ranks != 3 || s.Events != 22 || s.Messages.Matched != 3 || s.Messages.UnmatchedSends+s.Messages.UnmatchedRecvs != 0 || s.Collectives != 8 || tr.Timed {
		t.Errorf("%d ranks, %d events, %+v, %d collectives, timed %v; want 3, 22, 3 matched, 8, untimed",
			s.Ranks, s.Events, s.Messages, s.Collectives, tr.Timed)
	}
	want := []string{
		"enter MPI_Init, compute 0.0001s, leave MPI_Init, send 1:7:1024 sync, recv 2:7:1024 req 1, compute 0.00025s, wait 1, " +
			"allreduce@MPI_COMM_WORLD root -1 8/8, bcast@MPI_COMM_WORLD root 0 64/0, marker event 60000019=3",
		"recv 0:7:1024, compute 0.0002s, send 2:7:1024, allreduce@MPI_COMM_WORLD root -1 8/8, bcast@MPI_COMM_WORLD root 0 0/64, scatter@comm 5 root 1 32/0",
		"recv 1:7:1024, send 0:7:1024, compute 5e-05s, allreduce@MPI_COMM_WORLD root -1 8/8, bcast@MPI_COMM_WORLD root 0 0/64, scatter@comm 5 root 1 0/16",
	}
	for r, w := range want {
		if got := describe(tr, r); got != w {
			t.Errorf("task %d:\n%s\nwant\n%s", r, got, w)
		}
	}
	if v, _ := tr.Attr("dimemas.name"); v != "ring" || tr.Comms[0].ID != 0 || tr.Comms[1].ID != 5 {
		t.Errorf("name %q, communicators %+v", v, tr.Comms)
	}
}

// TestHeaders: the old header (unquoted name, offsets 0) reads too.
func TestHeaders(t *testing.T) {
	tr, err := Read("old.dim", strings.NewReader("#DIMEMAS:butterfly_2_8:0:2(1,1),0\n2:0:0:1:8:0:0:0\n3:1:0:0:8:0:0:0\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := describe(tr, 0) + " | " + describe(tr, 1); got != "send 1:0:8 | recv 0:0:8" {
		t.Errorf("got %s", got)
	}
}

// TestErrors: errors name the file, the line and what was expected.
func TestErrors(t *testing.T) {
	const hdr = "#DIMEMAS:\"t\":1,0:2(1,1),1\n"
	tests := []struct{ name, dim, want string }{
		{"empty", "", "t.dim:1: empty file: expected the #DIMEMAS header"},
		{"header", "#PARAVER\n", `t.dim:1: expected a header starting #DIMEMAS:, got "#PARAVER"`},
		{"tasks", "#DIMEMAS:\"t\":1,0:2(1),0\n", "t.dim:1: header declares 2 tasks but lists 1 thread counts"},
		{"sparse world", "#DIMEMAS:\"t\":1,0:70000(" + strings.Repeat("1,", 69999) + "1),0\n1:0:0:5\n",
			"t.dim:1: the header's 70000 tasks: the world has 70000 ranks but only 1 of them have events: " +
				"its 69999 empty ranks would need about 136.7 MiB of memory to check or simulate, and at most 65536 may be empty"},
		{"record", hdr + "7:0:0\n", "t.dim:2: expected a record type 0, 1, 2, 3, 10, 11 or 20, got 7"},
		{"task", hdr + "1:2:0:0.5\n", "t.dim:2: task 2 outside 0..1"},
		{"burst", hdr + "1:0:0:-1\n", `t.dim:2: expected a duration in seconds (≥ 0), got "-1"`},
		{"send fields", hdr + "2:0:0:1:8:0\n", "t.dim:2: expected 5 fields (destination:size:tag:communicator:synchronism), got 3"},
		{"send size", hdr + "2:0:0:1:x:0:0:0\n", `t.dim:2: expected size as an integer, got "x"`},
		{"peer", hdr + "3:0:0:5:8:0:0:0\n", "t.dim:2: source task 5 outside 0..1"},
		{"wait", hdr + "3:0:0:1:8:0:0:2\n", "t.dim:2: wait for a receive from task 1 with tag 0 on communicator 0, which no receive type 1 above posted"},
		{"recv type", hdr + "3:0:0:1:8:0:0:9\n", "t.dim:2: expected a receive type 0 (recv), 1 (irecv), 2 (wait) or 3 (waitall), got 9"},
		{"comm", hdr + "10:0:0:0:4:0:0:0:0:1\n", "t.dim:2: communicator 4 not defined by a d:1 line above"},
		{"comm members", hdr + "d:1:0:3:0:1\n", "t.dim:2: communicator 0 declares 3 tasks but lists 2"},
		{"not a record", hdr + "hello\n", `t.dim:2: expected a record op:task:thread:..., a d: definition or s: offsets, got "hello"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Read("t.dim", strings.NewReader(tc.dim))
			if err == nil || err.Error() != tc.want {
				t.Errorf("error %v\nwant  %s", err, tc.want)
			}
		})
	}
}
