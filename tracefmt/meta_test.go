package tracefmt

import (
	"fmt"
	"strings"
	"testing"
)

// metaTrace builds a two-rank trace with bookkeeping markers at the start,
// between a message's send and receive, and after the last event.
func metaTrace(t *testing.T) *Trace {
	t.Helper()
	b := NewBuilder(2, true, Second)
	def := b.DefineMarker(MarkerDef{Name: "X STATEDEF"})
	user := b.DefineMarker(MarkerDef{Name: "checkpoint"})
	st := b.State("MPI_Send")
	add := func(r int, e Event, text string) {
		if text != "" {
			e.SetTextRef(b.Text(text))
		}
		mustAdd(t, b, r, e)
	}
	add(0, Mark(0, def), "id=1")
	add(0, Enter(1, st), "")
	add(0, Send(1.5, 1, 7, 0, 64), "")
	add(0, Leave(2, st), "")
	add(0, Mark(2.5, user), "")
	add(0, Mark(9, def), "id=2")
	add(1, Mark(0, def), "id=3")
	add(1, Recv(3, 0, 7, 0, 64), "")
	add(1, Mark(9, def), "")
	tr, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// describe lists a trace's events as the user sees them.
func describe(tr *Trace) string {
	var s []string
	for r := range tr.Ranks {
		for i, e := range tr.Ranks[r].Events {
			x := fmt.Sprintf("%d/%d %s t=%g m=%d", r, i, e.Kind, e.Time, e.Match)
			if e.Kind == KindMarker {
				x += " " + tr.Markers[e.Marker()].Name + " " + tr.Text(&e)
			}
			s = append(s, x)
		}
	}
	return strings.Join(s, "\n")
}

func TestMoveToMetaAndBack(t *testing.T) {
	tr := metaTrace(t)
	orig := describe(tr)
	tr.MoveToMeta(func(m *MarkerDef) bool { return strings.HasPrefix(m.Name, "X ") })
	want := strings.Join([]string{
		"0/0 enter t=1 m=2",
		"0/1 send t=1.5 m=0",
		"0/2 leave t=2 m=0",
		"0/3 marker t=2.5 m=-1 checkpoint ",
		"1/0 recv t=3 m=1",
	}, "\n")
	if got := describe(tr); got != want {
		t.Errorf("after MoveToMeta:\n%s\nwant\n%s", got, want)
	}
	if err := tr.Validate(); err != nil {
		t.Errorf("Validate: %v", err)
	}
	if start, end := tr.Span(); start != 1 || end != 3 {
		t.Errorf("span [%v, %v], want [1, 3]: the records at 0 and 9 are no events", start, end)
	}
	if len(tr.Markers) != 1 || tr.Markers[0].Name != "checkpoint" {
		t.Errorf("markers %v, want only the user's", tr.Markers)
	}
	def := MarkerDef{Name: "X STATEDEF"}
	wantMeta := []MetaRecord{
		{Rank: 0, Before: 0, Time: 0, Name: "X STATEDEF", Def: def, Text: "id=1"},
		{Rank: 0, Before: 4, Time: 9, Name: "X STATEDEF", Def: def, Text: "id=2"},
		{Rank: 1, Before: 0, Time: 0, Name: "X STATEDEF", Def: def, Text: "id=3"},
		{Rank: 1, Before: 1, Time: 9, Name: "X STATEDEF", Def: def},
	}
	if fmt.Sprint(tr.Meta) != fmt.Sprint(wantMeta) {
		t.Errorf("meta %v, want %v", tr.Meta, wantMeta)
	}
	back := tr.WithMeta()
	// The marker definitions come back in another order; what each event
	// is does not change.
	if got := describe(back); got != orig {
		t.Errorf("WithMeta:\n%s\nwant the original\n%s", got, orig)
	}
	if err := back.Validate(); err != nil {
		t.Errorf("Validate after WithMeta: %v", err)
	}
	if describe(tr) != want {
		t.Error("WithMeta changed its receiver")
	}
}

func TestCollOpOfState(t *testing.T) {
	tests := []struct {
		name string
		op   CollOp
		nb   bool
		ok   bool
	}{
		{"MPI_Allreduce", OpAllreduce, false, true},
		{"MPI_Alltoall", OpAlltoall, false, true},
		{"MPI_Alltoallv", OpAlltoallv, false, true},
		{"MPI_Bcast", OpBcast, false, true},
		{"MPI_Reduce_scatter", OpReduceScatter, false, true},
		{"MPI_Iallreduce", OpAllreduce, true, true},
		{"MPI_Ibarrier", OpBarrier, true, true},
		{"mpi_gatherv", OpGatherv, false, true},
		{"MPI_Send", 0, false, false},
		{"MPI_Irecv", 0, false, false},
		{"BCAST", OpBcast, false, true},
		{"compute", 0, false, false},
		{"MPI_Other", 0, false, false},
	}
	for _, tc := range tests {
		op, nb, ok := CollOpOfState(tc.name)
		if op != tc.op || nb != tc.nb || ok != tc.ok {
			t.Errorf("CollOpOfState(%q) = %v, %v, %v; want %v, %v, %v", tc.name, op, nb, ok, tc.op, tc.nb, tc.ok)
		}
	}
}

func TestDeriveCollectives(t *testing.T) {
	b := NewBuilder(2, true, Second)
	ar := b.DefineState(StateDef{Name: "MPI_Allreduce", Category: CatCollective})
	a2a := b.DefineState(StateDef{Name: "MPI_Alltoall", Category: CatCollective})
	bar := b.DefineState(StateDef{Name: "MPI_Barrier", Category: CatCollective})
	bc := b.DefineState(StateDef{Name: "MPI_Bcast", Category: CatCollective})
	user := b.DefineState(StateDef{Name: "Allreduce", Category: CatUser})
	for r := range 2 {
		mustAdd(t, b, r, Enter(1, ar))
		mustAdd(t, b, r, Leave(2, ar))
		mustAdd(t, b, r, Enter(3, a2a))
		mustAdd(t, b, r, Leave(4, a2a))
		// A broadcast logged with the messages of its implementation
		// (MPE 1.x on MPICH-1) is those messages.
		mustAdd(t, b, r, Enter(4.2, bc))
		mustAdd(t, b, r, Send(4.5, 1-r, 0, 0, 8))
		mustAdd(t, b, r, Recv(4.6, 1-r, 0, 0, 8))
		mustAdd(t, b, r, Leave(4.8, bc))
		mustAdd(t, b, r, Enter(5, bar))
		mustAdd(t, b, r, Collective(5, OpBarrier, -1, 0, 0, 0))
		mustAdd(t, b, r, Leave(6, bar))
		mustAdd(t, b, r, Enter(7, user))
		mustAdd(t, b, r, Leave(8, user))
	}
	tr, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	sizes := func(r, enter, leave int) (int64, int64, bool) {
		if tr.Ranks[r].Events[enter].State() == a2a {
			return 100 + int64(r), 200, true
		}
		return 0, 0, false
	}
	if n := tr.DeriveCollectives(sizes); n != 4 {
		t.Errorf("DeriveCollectives added %d events, want 4 (allreduce and alltoall on 2 ranks; the barrier has one, the broadcast its messages)", n)
	}
	if err := tr.Validate(); err != nil {
		t.Fatalf("Validate: %v", err)
	}
	var got []string
	for r := range tr.Ranks {
		for i, e := range tr.Ranks[r].Events {
			if e.Kind == KindCollective {
				got = append(got, fmt.Sprintf("%d/%d %s t=%g sent=%d recvd=%d known=%v", r, i, e.Op(), e.Time, e.Size, e.RecvBytes(), e.SizeKnown()))
			}
		}
	}
	want := []string{
		"0/1 allreduce t=1 sent=0 recvd=0 known=false",
		"0/4 alltoall t=3 sent=100 recvd=200 known=true",
		"0/11 barrier t=5 sent=0 recvd=0 known=true",
		"1/1 allreduce t=1 sent=0 recvd=0 known=false",
		"1/4 alltoall t=3 sent=101 recvd=200 known=true",
		"1/11 barrier t=5 sent=0 recvd=0 known=true",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("collectives:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if m := tr.CountMessages(); m.Matched != 2 {
		t.Errorf("%d matched messages after the insertion, want 2", m.Matched)
	}
	if n := tr.UnknownSizeCollectives(); n != 2 {
		t.Errorf("UnknownSizeCollectives = %d, want 2", n)
	}
}

// TestMoveToMetaLarge runs MoveToMeta and WithMeta on a trace large enough
// for Remove to take the ranks in parallel (run with -race).
func TestMoveToMetaLarge(t *testing.T) {
	const ranks, pairs = 4, parallelEvents / 4
	b := NewBuilder(ranks, true, Second)
	def := b.DefineMarker(MarkerDef{Name: "X COMMEVT"})
	for r := range ranks {
		b.Grow(r, 3*pairs+1)
		mustAdd(t, b, r, Mark(0, def))
		for i := range pairs {
			tm := float64(i + 1)
			mustAdd(t, b, r, Send(tm, (r+1)%ranks, 0, 0, 8))
			mustAdd(t, b, r, Recv(tm+0.5, (r+ranks-1)%ranks, 0, 0, 8))
			if i%100 == 0 {
				mustAdd(t, b, r, Mark(tm+0.7, def))
			}
		}
	}
	tr, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	want := describe(tr)
	tr.MoveToMeta(func(m *MarkerDef) bool { return m.Name == "X COMMEVT" })
	if err := tr.Validate(); err != nil {
		t.Fatal(err)
	}
	if c := tr.CountMessages(); c.Matched != ranks*pairs {
		t.Errorf("%d matched messages, want %d", c.Matched, ranks*pairs)
	}
	if n := ranks * (1 + (pairs+99)/100); len(tr.Meta) != n {
		t.Errorf("%d records in Meta, want %d", len(tr.Meta), n)
	}
	if got := describe(tr.WithMeta()); got != want {
		t.Error("WithMeta does not give the original streams back")
	}
}

// TestRemoveRenumbers: Remove renumbers the state pairs of the rank that
// lost events and the messages pointing into it from ranks that lost
// none; a match to a removed event becomes -1.
func TestRemoveRenumbers(t *testing.T) {
	tests := []struct {
		name string
		drop func(r int, e *Event) bool
		want string
	}{
		{"markers", func(_ int, e *Event) bool { return e.Kind == KindMarker }, strings.Join([]string{
			"0/0 enter t=1 m=2",
			"0/1 send t=1.5 m=0",
			"0/2 leave t=2 m=0",
			"1/0 recv t=3 m=1",
		}, "\n")},
		{"the receive", func(r int, e *Event) bool { return r == 1 && e.Kind == KindRecv }, strings.Join([]string{
			"0/0 marker t=0 m=-1 X STATEDEF id=1",
			"0/1 enter t=1 m=3",
			"0/2 send t=1.5 m=-1",
			"0/3 leave t=2 m=1",
			"0/4 marker t=2.5 m=-1 checkpoint ",
			"0/5 marker t=9 m=-1 X STATEDEF id=2",
			"1/0 marker t=0 m=-1 X STATEDEF id=3",
			"1/1 marker t=9 m=-1 X STATEDEF ",
		}, "\n")},
		{"rank 0's first marker only", func(r int, e *Event) bool { return r == 0 && e.Time == 0 }, strings.Join([]string{
			"0/0 enter t=1 m=2",
			"0/1 send t=1.5 m=1",
			"0/2 leave t=2 m=0",
			"0/3 marker t=2.5 m=-1 checkpoint ",
			"0/4 marker t=9 m=-1 X STATEDEF id=2",
			"1/0 marker t=0 m=-1 X STATEDEF id=3",
			"1/1 recv t=3 m=1",
			"1/2 marker t=9 m=-1 X STATEDEF ",
		}, "\n")},
		{"nothing", func(int, *Event) bool { return false }, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := metaTrace(t)
			want := tt.want
			if want == "" {
				want = describe(tr)
			}
			tr.Remove(tt.drop)
			if got := describe(tr); got != want {
				t.Errorf("after Remove:\n%s\nwant\n%s", got, want)
			}
			if err := tr.Validate(); err != nil {
				t.Error(err)
			}
		})
	}
}

// TestInsertMovesMeta: a Meta record keeps its place before the event it
// preceded, after the events inserted there, as it would in the stream.
func TestInsertMovesMeta(t *testing.T) {
	// After MoveToMeta, rank 0 is enter, send, leave, checkpoint with
	// records before the enter (id=1) and at the end (id=2); rank 1 is
	// its receive, with records before it (id=3) and at the end.
	tests := []struct {
		name string
		rank int
		pos  int32
		want string
	}{
		{"before the first event", 0, 0, "0:1 id=1, 0:5 id=2, 1:0 id=3, 1:1 "},
		{"after the first event", 0, 1, "0:0 id=1, 0:5 id=2, 1:0 id=3, 1:1 "},
		{"at the end", 0, 4, "0:0 id=1, 0:5 id=2, 1:0 id=3, 1:1 "},
		{"on the other rank, at its end", 1, 1, "0:0 id=1, 0:4 id=2, 1:0 id=3, 1:2 "},
		{"on the other rank, first", 1, 0, "0:0 id=1, 0:4 id=2, 1:1 id=3, 1:2 "},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tr := metaTrace(t)
			tr.MoveToMeta(func(m *MarkerDef) bool { return strings.HasPrefix(m.Name, "X ") })
			ins := make([][]Insertion, 2)
			ins[tc.rank] = []Insertion{{Pos: tc.pos, Event: Mark(5, 0)}}
			tr.Insert(ins)
			var got []string
			for _, m := range tr.Meta {
				got = append(got, fmt.Sprintf("%d:%d %s", m.Rank, m.Before, m.Text))
			}
			if s := strings.Join(got, ", "); s != tc.want {
				t.Errorf("Meta places %q, want %q", s, tc.want)
			}
			// WithMeta puts each record back before the event it preceded.
			back := describe(tr.WithMeta())
			if tc.rank == 0 && tc.pos == 1 && !strings.Contains(back, "0/0 marker t=0 m=-1 X STATEDEF id=1\n0/1 enter") {
				t.Errorf("WithMeta after Insert:\n%s", back)
			}
		})
	}
}
