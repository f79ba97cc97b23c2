package tsim

import (
	"bytes"
	"errors"
	"io"
	"math"
	"os"
	"slices"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/tracesim/tracesim/tracefmt"
)

func readFile(t *testing.T, name string) *tracefmt.Trace {
	t.Helper()
	data, err := os.ReadFile("../../testdata/tsim/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return mustRead(t, string(data))
}

// ev is an expected event, written the way the file spells it.
type ev struct {
	time  float64
	kind  tracefmt.Kind
	name  string // state or marker name, collective operation
	peer  int    // to=, from=, root=
	size  int64
	match int32
}

func checkEvents(t *testing.T, tr *tracefmt.Trace, r int, want []ev) {
	t.Helper()
	got := tr.Ranks[r].Events
	if len(got) != len(want) {
		t.Fatalf("rank %d: %d events, want %d", r, len(got), len(want))
	}
	for i, w := range want {
		e := &got[i]
		var name string
		peer := -1
		switch e.Kind {
		case tracefmt.KindEnter, tracefmt.KindLeave:
			name = tr.States[e.State()].Name
		case tracefmt.KindMarker:
			name = tr.Markers[e.Marker()].Name
		case tracefmt.KindCollective:
			name, peer = e.Op().String(), e.Root()
		case tracefmt.KindSend, tracefmt.KindRecv:
			peer = int(e.Peer)
		}
		if e.Time != w.time || e.Kind != w.kind || name != w.name || peer != w.peer || e.Size != w.size || e.Match != w.match {
			t.Errorf("rank %d event %d: %v %s %q peer %d size %d match %d, want %v %s %q peer %d size %d match %d",
				r, i, e.Time, e.Kind, name, peer, e.Size, e.Match, w.time, w.kind, w.name, w.peer, w.size, w.match)
		}
	}
}

const (
	enter   = tracefmt.KindEnter
	leave   = tracefmt.KindLeave
	send    = tracefmt.KindSend
	recv    = tracefmt.KindRecv
	coll    = tracefmt.KindCollective
	marker  = tracefmt.KindMarker
	compute = tracefmt.KindCompute
	wait    = tracefmt.KindWait
)

// TestReadRing3 reads the worked example of docs/tsim.md.
func TestReadRing3(t *testing.T) {
	tr := readFile(t, "ring3.tsim")
	if tr.Format != "tsim" || tr.Size() != 3 || tr.Unit != tracefmt.Microsecond || !tr.Timed {
		t.Fatalf("format %q, %d ranks, unit %s, timed %v", tr.Format, tr.Size(), tr.Unit, tr.Timed)
	}
	wantStates := []tracefmt.StateDef{
		{Name: "Compute", Category: tracefmt.CatCompute, Color: "#4caf50"},
		{Name: "MPI_Send", Category: tracefmt.CatP2P, Color: "#2196f3"},
		{Name: "MPI_Recv", Category: tracefmt.CatP2P, Color: "#f44336"},
		{Name: "MPI_Allreduce", Category: tracefmt.CatCollective, Color: "#ff9800"},
	}
	if !slices.Equal(tr.States, wantStates) {
		t.Errorf("states %+v", tr.States)
	}
	if len(tr.Markers) != 1 || tr.Markers[0].Name != "start" {
		t.Errorf("markers %+v", tr.Markers)
	}
	// Messages: 0→1 is rank 0's event 4 and rank 1's event 1; 1→2 rank
	// 1's 6 and rank 2's 1; 2→0 rank 2's 6 and rank 0's 7.
	checkEvents(t, tr, 0, []ev{
		{0, marker, "start", -1, 0, -1},
		{0, enter, "Compute", -1, 0, 2},
		{50, leave, "Compute", -1, 0, 1},
		{50, enter, "MPI_Send", -1, 0, 5},
		{51, send, "", 1, 1024, 1},
		{53, leave, "MPI_Send", -1, 0, 3},
		{53, enter, "MPI_Recv", -1, 0, 8},
		{140, recv, "", 2, 1024, 6},
		{141, leave, "MPI_Recv", -1, 0, 6},
		{141, enter, "MPI_Allreduce", -1, 0, 11},
		{141, coll, "allreduce", -1, 8, -1},
		{160, leave, "MPI_Allreduce", -1, 0, 9},
	})
	checkEvents(t, tr, 1, []ev{
		{0, enter, "MPI_Recv", -1, 0, 2},
		{54, recv, "", 0, 1024, 4},
		{55, leave, "MPI_Recv", -1, 0, 0},
		{55, enter, "Compute", -1, 0, 4},
		{95, leave, "Compute", -1, 0, 3},
		{95, enter, "MPI_Send", -1, 0, 7},
		{96, send, "", 2, 1024, 1},
		{98, leave, "MPI_Send", -1, 0, 5},
		{98, enter, "MPI_Allreduce", -1, 0, 10},
		{98, coll, "allreduce", -1, 8, -1},
		{160, leave, "MPI_Allreduce", -1, 0, 8},
	})
	if e := tr.Ranks[0].Events[0]; tr.Text(&e) != "iteration 1" {
		t.Errorf("marker text %q", tr.Text(&e))
	}
	if e := tr.Ranks[0].Events[10]; e.RecvBytes() != 8 {
		t.Errorf("allreduce receives %d bytes", e.RecvBytes())
	}
	if c := tr.CountMessages(); c != (tracefmt.MessageCounts{Matched: 3}) {
		t.Errorf("messages %+v", c)
	}
	if s := tracefmt.Summarize(tr); math.Abs(s.Duration-160e-6) > 1e-18 || s.Bytes != 3*1024 {
		t.Errorf("duration %v s, %d bytes", s.Duration, s.Bytes)
	}
}

// TestReadFeatures checks the header lines and arguments of features.tsim.
func TestReadFeatures(t *testing.T) {
	tr := readFile(t, "features.tsim")
	if tr.Size() != 4 || tr.Unit != tracefmt.Nanosecond || !tr.Timed {
		t.Fatalf("%d ranks, unit %s, timed %v", tr.Size(), tr.Unit, tr.Timed)
	}
	wantAttrs := []tracefmt.Attr{{Key: "clog2.block_size", Value: "65536"}, {Key: "source file", Value: "run 3/out.clog2"}}
	if !slices.Equal(tr.Attrs, wantAttrs) {
		t.Errorf("attrs %q", tr.Attrs)
	}
	wantComms := []tracefmt.Comm{
		{Name: "MPI_COMM_WORLD", ID: 91},
		{Name: "evens", ID: 92, Ranks: []int32{0, 2}},
		{Name: "row 0", Ranks: []int32{0, 3}},
		{Name: "", Ranks: []int32{1, 2, 3}},
	}
	if len(tr.Comms) != len(wantComms) {
		t.Fatalf("comms %+v", tr.Comms)
	}
	for i, c := range wantComms {
		g := tr.Comms[i]
		if g.Name != c.Name || g.ID != c.ID || !slices.Equal(g.Ranks, c.Ranks) {
			t.Errorf("comm %d: %+v, want %+v", i, g, c)
		}
	}
	wantStates := []tracefmt.StateDef{
		{Name: "MPI_Isend", Category: tracefmt.CatP2P, Color: "#2196f3", Source: tracefmt.SourceIDs{ID: 10, Start: 11, End: 12}},
		{Name: "MPI_Irecv", Category: tracefmt.CatP2P, Color: "255 0 0", Format: "src=%d tag=%d"},
		{Name: "MPI_Waitall", Category: tracefmt.CatWait},
		{Name: "User phase", Category: tracefmt.CatUser, Color: "ForestGreen"},
		{Name: "Work", Category: tracefmt.CatCompute},
	}
	if !slices.Equal(tr.States, wantStates) {
		t.Errorf("states\n%+v\nwant\n%+v", tr.States, wantStates)
	}
	wantMarkers := []tracefmt.MarkerDef{{Name: "checkpoint", Color: "yellow", Source: tracefmt.SourceIDs{ID: 600}}, {Format: "%s"}}
	if !slices.Equal(tr.Markers, wantMarkers) {
		t.Errorf("markers %+v", tr.Markers)
	}

	r0 := tr.Ranks[0].Events
	checks := []struct {
		name string
		ok   bool
	}{
		{"negative time", r0[0].Time == -5},
		{"enter text", tr.Text(&r0[1]) == "dst=1 tag=3"},
		{"1.5KiB, nb, req=1", r0[2].Size == 1536 && r0[2].Flags == tracefmt.FlagNonBlocking && r0[2].Request() == 1 && r0[2].Time == 1.25},
		{"wait all", r0[5].Kind == wait && r0[5].Flags == tracefmt.FlagAll && r0[5].Request() == 0},
		{"comm by name, sync, tag -1", r0[7].Comm == 1 && r0[7].Flags == tracefmt.FlagSync && r0[7].Tag == -1},
		{"2MB, quoted comm, sendrecv", r0[8].Size == 2000000 && r0[8].Comm == 2 && r0[8].Flags == tracefmt.FlagSendrecv && r0[9].Flags == tracefmt.FlagSendrecv},
		{"bcast 1MiB root 0", r0[10].Op() == tracefmt.OpBcast && r0[10].Root() == 0 && r0[10].Size == 1<<20 && r0[10].Comm == 1},
		{"dur=2.5us in ns", r0[11].Kind == compute && r0[11].Amount() == 2500 && !r0[11].Flags.Has(tracefmt.FlagWork)},
		{"flops=1.5Gf", r0[12].Amount() == 1.5e9 && r0[12].Flags == tracefmt.FlagWork},
		{"marker by index, empty text", r0[13].Marker() == 1 && r0[13].TextRef() >= 0 && tr.Text(&r0[13]) == ""},
		{"no text", r0[1].TextRef() >= 0 && r0[3].TextRef() == -1 && r0[14].TextRef() == -1},
		// pairing oldest: the leave at 15 closes the enter at 13.
		{"pairing oldest", r0[16].Match == 14 && r0[14].Match == 16 && r0[17].Match == 15},
	}
	for _, c := range checks {
		if !c.ok {
			t.Errorf("%s: wrong", c.name)
		}
	}
	r1 := tr.Ranks[1].Events
	if r1[3].Flags != tracefmt.FlagTest || r1[3].Request() != 7 || r1[4].Flags != 0 || r1[4].Request() != 7 {
		t.Errorf("test and wait: %+v %+v", r1[3], r1[4])
	}
	if r1[6].State() != 3 || r1[6].Match != 5 {
		t.Errorf("leave by index: state %d match %d", r1[6].State(), r1[6].Match)
	}
	if r1[7].Flags != tracefmt.FlagAnySource|tracefmt.FlagAnyTag || r1[7].Match != -1 {
		t.Errorf("wildcard recv %+v", r1[7])
	}
	if e := tr.Ranks[3].Events[2]; e.Op() != tracefmt.OpReduceScatter || e.Comm != 3 || e.Size != 48 || e.RecvBytes() != 16 || e.Root() != -1 {
		t.Errorf("reducescatter %+v", e)
	}
	if c := tr.CountMessages(); c != (tracefmt.MessageCounts{Matched: 4, UnmatchedRecvs: 1, WildcardRecvs: 1}) {
		t.Errorf("messages %+v", c)
	}
}

func TestReadUntimed(t *testing.T) {
	tr := readFile(t, "untimed.tsim")
	if tr.Timed || tr.Unit != tracefmt.Second || tr.Size() != 3 {
		t.Fatalf("timed %v unit %s ranks %d", tr.Timed, tr.Unit, tr.Size())
	}
	// The barriers come last in the file but keep their place in each
	// rank's order; the anysrc receives match the worker that answered.
	checkEvents(t, tr, 0, []ev{
		{0, send, "", 1, 64, 0},
		{0, send, "", 2, 64, 0},
		{0, wait, "", -1, 0, -1},
		{0, recv, "", 2, 8, 3},
		{0, recv, "", 1, 8, 2},
		{0, coll, "barrier", -1, 0, -1},
	})
	checkEvents(t, tr, 2, []ev{
		{0, recv, "", 0, 64, 1},
		{0, compute, "", -1, 0, -1},
		{0, compute, "", -1, 0, -1},
		{0, send, "", 0, 8, 3},
		{0, coll, "barrier", -1, 0, -1},
	})
	r2 := tr.Ranks[2].Events
	if r2[1].Amount() != 5e8 || !r2[1].Flags.Has(tracefmt.FlagWork) || r2[2].Amount() != 0.0015 || r2[2].Flags.Has(tracefmt.FlagWork) {
		t.Errorf("compute amounts %v %v", r2[1].Amount(), r2[2].Amount())
	}
	if a := tr.Ranks[1].Events[1].Amount(); a != 2e9 {
		t.Errorf("flops=2Gf read as %v", a)
	}
}

// TestReadOneRecord checks the spelling of single records: units, quoting,
// comments, line endings, defaults.
func TestReadOneRecord(t *testing.T) {
	const head = "tsim 1\nranks 4\nunit us\ncomm c ranks=0,1\n"
	tests := []struct {
		name, record string
		check        func(tr *tracefmt.Trace, e *tracefmt.Event) bool
	}{
		{"collective of unknown size", "1 0 coll allreduce sizeunknown", func(_ *tracefmt.Trace, e *tracefmt.Event) bool {
			return e.Kind == tracefmt.KindCollective && !e.SizeKnown() && e.Size == 0 && e.RecvBytes() == 0
		}},
		{"collective of known size", "1 0 coll allreduce sent=8 recv=8", func(_ *tracefmt.Trace, e *tracefmt.Event) bool {
			return e.SizeKnown() && e.Size == 8 && e.RecvBytes() == 8
		}},
		{"defaults of send", "1 0 send to=1", func(tr *tracefmt.Trace, e *tracefmt.Event) bool {
			return e.Kind == send && e.Peer == 1 && e.Tag == 0 && e.Size == 0 && e.Comm == 0 && e.Request() == 0 && e.Flags == 0
		}},
		{"size units", "1 0 send to=1 size=4KiB", func(_ *tracefmt.Trace, e *tracefmt.Event) bool { return e.Size == 4096 }},
		{"size in kB", "1 0 send to=1 size=4KB", func(_ *tracefmt.Trace, e *tracefmt.Event) bool { return e.Size == 4000 }},
		{"size 1e3", "1 0 send to=1 size=1e3", func(_ *tracefmt.Trace, e *tracefmt.Event) bool { return e.Size == 1000 }},
		{"huge size", "1 0 send to=1 size=9223372036854775807", func(_ *tracefmt.Trace, e *tracefmt.Event) bool { return e.Size == math.MaxInt64 }},
		{"comm by index", "1 0 recv from=1 comm=1", func(_ *tracefmt.Trace, e *tracefmt.Event) bool { return e.Comm == 1 }},
		{"comm world by name", "1 0 recv from=1 comm=MPI_COMM_WORLD", func(_ *tracefmt.Trace, e *tracefmt.Event) bool { return e.Comm == 0 }},
		{"extreme tag", "1 0 recv from=1 tag=-2147483648", func(_ *tracefmt.Trace, e *tracefmt.Event) bool { return e.Tag == math.MinInt32 }},
		{"req int64", "1 0 wait req=-9223372036854775808 test", func(_ *tracefmt.Trace, e *tracefmt.Event) bool {
			return e.Request() == math.MinInt64 && e.Flags == tracefmt.FlagTest
		}},
		{"dur bare is trace unit", "1 0 compute dur=1.5", func(_ *tracefmt.Trace, e *tracefmt.Event) bool { return e.Amount() == 1.5 }},
		{"dur in ms", "1 0 compute dur=2ms", func(_ *tracefmt.Trace, e *tracefmt.Event) bool { return e.Amount() == 2000 }},
		{"dur in s", "1 0 compute dur=1e-3s", func(_ *tracefmt.Trace, e *tracefmt.Event) bool { return e.Amount() == 1000 }},
		{"dur in ns", "1 0 compute dur=3ns", func(_ *tracefmt.Trace, e *tracefmt.Event) bool { return e.Amount() == 0.003 }},
		{"dur in µs", "1 0 compute dur=7µs", func(_ *tracefmt.Trace, e *tracefmt.Event) bool { return e.Amount() == 7 }},
		{"dur in ps", "1 0 compute dur=250ps", func(_ *tracefmt.Trace, e *tracefmt.Event) bool { return e.Amount() == 0.00025 }},
		{"flops bare", "1 0 compute flops=1e9", func(_ *tracefmt.Trace, e *tracefmt.Event) bool {
			return e.Amount() == 1e9 && e.Flags == tracefmt.FlagWork
		}},
		{"flops Mf", "1 0 compute flops=3Mf", func(_ *tracefmt.Trace, e *tracefmt.Event) bool { return e.Amount() == 3e6 }},
		{"time with exponent", "1.5e3 0 marker m", func(_ *tracefmt.Trace, e *tracefmt.Event) bool { return e.Time == 1500 }},
		{"time negative zero", "-0 0 marker m", func(_ *tracefmt.Trace, e *tracefmt.Event) bool { return math.Signbit(e.Time) && e.Time == 0 }},
		{"time with 17 digits", "0.12345678901234567 0 marker m", func(_ *tracefmt.Trace, e *tracefmt.Event) bool { return e.Time == 0.12345678901234567 }},
		{"time .5", ".5 0 marker m", func(_ *tracefmt.Trace, e *tracefmt.Event) bool { return e.Time == 0.5 }},
		{"tabs and comment", "1\t0\tenter\tMPI_Recv # waits for rank 1", func(tr *tracefmt.Trace, e *tracefmt.Event) bool {
			return e.Kind == enter && tr.States[e.State()].Name == "MPI_Recv"
		}},
		{"CRLF", "1 0 enter S\r", func(tr *tracefmt.Trace, e *tracefmt.Event) bool { return tr.States[e.State()].Name == "S" }},
		{"hash inside a field", "1 0 enter a#b", func(tr *tracefmt.Trace, e *tracefmt.Event) bool { return tr.States[e.State()].Name == "a#b" }},
		{"quoted name with escapes", `1 0 enter "a \"b\"\tc"`, func(tr *tracefmt.Trace, e *tracefmt.Event) bool {
			return tr.States[e.State()].Name == "a \"b\"\tc"
		}},
		{"quoted digits are a name", `1 0 enter "42"`, func(tr *tracefmt.Trace, e *tracefmt.Event) bool { return tr.States[e.State()].Name == "42" }},
		{"text with = and #", `1 0 marker m text=a=b#c`, func(tr *tracefmt.Trace, e *tracefmt.Event) bool { return tr.Text(e) == "a=b#c" }},
		{"text quoted with unicode", `1 0 marker m text="ünï code"`, func(tr *tracefmt.Trace, e *tracefmt.Event) bool { return tr.Text(e) == "ünï code" }},
		{"auto-defined state category", "1 0 enter MPI_Waitall", func(tr *tracefmt.Trace, e *tracefmt.Event) bool {
			return tr.States[e.State()].Category == tracefmt.CatWait
		}},
		{"auto-defined user state", "1 0 enter solver", func(tr *tracefmt.Trace, e *tracefmt.Event) bool {
			return tr.States[e.State()].Category == tracefmt.CatUser
		}},
		{"coll root and sizes", "1 0 coll gather root=2 sent=8 recv=0", func(_ *tracefmt.Trace, e *tracefmt.Event) bool {
			return e.Op() == tracefmt.OpGather && e.Root() == 2 && e.Size == 8 && e.RecvBytes() == 0
		}},
		{"coll explicit no root", "1 0 coll scatter root=-1", func(_ *tracefmt.Trace, e *tracefmt.Event) bool { return e.Root() == -1 }},
		{"flags on any kind", "1 0 marker m nb sync sendrecv anysrc anytag all test", func(_ *tracefmt.Trace, e *tracefmt.Event) bool {
			return e.Flags == tracefmt.FlagNonBlocking|tracefmt.FlagSync|tracefmt.FlagSendrecv|tracefmt.FlagAnySource|tracefmt.FlagAnyTag|tracefmt.FlagAll|tracefmt.FlagTest
		}},
		{"arguments in any order", "1 0 send size=8 nb req=3 tag=5 to=2", func(_ *tracefmt.Trace, e *tracefmt.Event) bool {
			return e.Peer == 2 && e.Tag == 5 && e.Size == 8 && e.Request() == 3 && e.Flags == tracefmt.FlagNonBlocking
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := mustRead(t, head+tt.record+"\n")
			if n := len(tr.Ranks[0].Events); n != 1 {
				t.Fatalf("%d events on rank 0", n)
			}
			if e := &tr.Ranks[0].Events[0]; !tt.check(tr, e) {
				t.Errorf("%q read as %+v", tt.record, *e)
			}
		})
	}
}

// TestReadHeaderVariants covers what a hand-written header may omit or
// reorder.
func TestReadHeaderVariants(t *testing.T) {
	tests := []struct {
		name, in string
		ranks    int
		unit     tracefmt.Unit
		timed    bool
	}{
		{"minimal", "tsim 1\nranks 2\n", 2, tracefmt.Second, true},
		{"comments and blanks first", "\n# a trace\n   \n\ttsim 1 # version\nranks 1\n", 1, tracefmt.Second, true},
		{"byte order mark", "\uFEFFtsim 1\nranks 1\n", 1, tracefmt.Second, true},
		{"no final newline", "tsim 1\nranks 3\nunit ms", 3, tracefmt.Millisecond, true},
		{"any order", "tsim 1\nuntimed\nunit ps\nranks 5\n", 5, tracefmt.Picosecond, false},
		{"µs", "tsim 1\nranks 1\nunit µs\ntimed\n", 1, tracefmt.Microsecond, true},
		{"CRLF", "tsim 1\r\nranks 2\r\nunit ns\r\n", 2, tracefmt.Nanosecond, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := mustRead(t, tt.in)
			if tr.Size() != tt.ranks || tr.Unit != tt.unit || tr.Timed != tt.timed || tr.NumEvents() != 0 {
				t.Errorf("%d ranks, unit %s, timed %v, %d events", tr.Size(), tr.Unit, tr.Timed, tr.NumEvents())
			}
			if len(tr.Comms) != 1 || tr.Comms[0].Name != "MPI_COMM_WORLD" || tr.Comms[0].Ranks != nil {
				t.Errorf("comms %+v", tr.Comms)
			}
		})
	}
}

// TestReadRankOrder: records of different ranks may interleave in any
// order; each rank keeps its records in file order, whatever their times.
func TestReadRankOrder(t *testing.T) {
	tr := mustRead(t, "tsim 1\nranks 2\n5 1 marker a\n9 0 marker b\n1 1 marker c\n3 0 marker d\n2 1 marker e\n")
	name := func(r, i int) string { return tr.Markers[tr.Ranks[r].Events[i].Marker()].Name }
	got := [][]string{{name(0, 0), name(0, 1)}, {name(1, 0), name(1, 1), name(1, 2)}}
	if !slices.Equal(got[0], []string{"b", "d"}) || !slices.Equal(got[1], []string{"a", "c", "e"}) {
		t.Errorf("per-rank order %v", got)
	}
	if m := tr.Markers; len(m) != 5 || m[0].Name != "a" || m[4].Name != "e" {
		t.Errorf("markers defined in order of first use: %+v", m)
	}
}

// TestReadMatching: messages match FIFO per (comm, source, destination,
// tag); leaves close the newest open enter of their state.
func TestReadMatching(t *testing.T) {
	tr := mustRead(t, `tsim 1
ranks 2
comm dup ranks=0,1
1 0 send to=1 tag=5 size=100
2 0 send to=1 tag=5 size=200
3 0 send to=1 tag=5 size=300 comm=dup
4 1 recv from=0 tag=5 size=300 comm=dup
5 1 recv from=0 tag=5 size=100 anysrc
6 1 recv from=0 tag=5 size=200
7 1 enter S
8 1 enter S
9 1 leave S
10 1 leave S
`)
	r1 := tr.Ranks[1].Events
	if r1[0].Match != 2 || r1[1].Match != 0 || r1[2].Match != 1 {
		t.Errorf("receives matched sends %d %d %d, want 2 0 1", r1[0].Match, r1[1].Match, r1[2].Match)
	}
	if r1[5].Match != 4 || r1[6].Match != 3 {
		t.Errorf("leaves matched %d %d, want 4 3 (newest first)", r1[5].Match, r1[6].Match)
	}
}

func TestReadIOError(t *testing.T) {
	boom := errors.New("disk on fire")
	r := io.MultiReader(strings.NewReader("tsim 1\nranks 1\n"), iotest.ErrReader(boom))
	_, err := Read(r)
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), "tsim: line 3: ") {
		t.Errorf("error %v", err)
	}
	// One byte at a time reads the same as all at once.
	data, err := os.ReadFile("../../testdata/tsim/features.tsim")
	if err != nil {
		t.Fatal(err)
	}
	slow, err := Read(iotest.OneByteReader(strings.NewReader(string(data))))
	if err != nil {
		t.Fatal(err)
	}
	if d := diffTraces(slow, mustRead(t, string(data))); d != "" {
		t.Error(d)
	}
}

// TestReadLongLine: lines longer than the read buffer are read whole.
func TestReadLongLine(t *testing.T) {
	text := strings.Repeat("x", 1<<20)
	tr := mustRead(t, "tsim 1\nranks 1\n1 0 marker m text="+text+"\n2 0 marker m\n")
	if e := tr.Ranks[0].Events; len(e) != 2 || tr.Text(&e[0]) != text {
		t.Errorf("long text lost")
	}
}

// endless is a reader of 'x' bytes without end.
type endless struct{}

func (endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'x'
	}
	return len(p), nil
}

// TestReadLineTooLong: a file without newlines fails instead of filling
// memory.
func TestReadLineTooLong(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 64 MiB")
	}
	_, err := Read(io.MultiReader(strings.NewReader("tsim 1\nranks 1\n"), endless{}))
	want := "tsim: line 3:1: expected lines of at most 64 MiB, got a longer one"
	if err == nil || err.Error() != want {
		t.Errorf("error %v, want %s", err, want)
	}
}

// TestSizeUnknownRoundTrip: a collective whose bytes the source did not
// record (MPE's MPI_Allreduce) keeps saying so through tsim.
func TestSizeUnknownRoundTrip(t *testing.T) {
	b := tracefmt.NewBuilder(2, true, tracefmt.Microsecond)
	for r := range 2 {
		e := tracefmt.Collective(1, tracefmt.OpAllreduce, -1, 0, 0, 0)
		e.Flags |= tracefmt.FlagSizeUnknown
		if _, err := b.Add(r, e); err != nil {
			t.Fatal(err)
		}
		if _, err := b.Add(r, tracefmt.Collective(2, tracefmt.OpAlltoall, -1, 0, 16, 16)); err != nil {
			t.Fatal(err)
		}
	}
	tr, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := Write(&buf, tr); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(buf.String(), "coll allreduce sizeunknown\n"); n != 2 {
		t.Errorf("%d allreduce lines saying sizeunknown, want 2:\n%s", n, buf.String())
	}
	back, err := Read(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if n := back.UnknownSizeCollectives(); n != 2 {
		t.Errorf("%d collectives of unknown size read back, want 2", n)
	}
}
