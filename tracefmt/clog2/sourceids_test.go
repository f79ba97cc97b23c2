package clog2

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/tracesim/tracesim/tracefmt"
)

// TestDuplicateSourceIDs: states and markers that share a source id (ALOG
// has no state ids and gives them all 0) stay distinct when written as
// CLOG2: each gets its own STATEDEF id, so none is merged into another
// when read back.
func TestDuplicateSourceIDs(t *testing.T) {
	b := tracefmt.NewBuilder(1, true, tracefmt.Second)
	states := []tracefmt.StateDef{
		{Name: "task_a", Color: "blue", Category: tracefmt.CatUser, Source: tracefmt.SourceIDs{Start: 1, End: 2}},
		{Name: "task_b", Color: "red", Category: tracefmt.CatUser, Source: tracefmt.SourceIDs{Start: 3, End: 4}},
		{Name: "task_c", Color: "cyan", Category: tracefmt.CatUser, Source: tracefmt.SourceIDs{Start: 5, End: 6}},
	}
	tm := 0.0
	add := func(e tracefmt.Event) {
		if _, err := b.Add(0, e); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range states {
		id := b.DefineState(d)
		tm++
		add(tracefmt.Enter(tm, id))
		tm++
		add(tracefmt.Leave(tm, id))
	}
	for _, name := range []string{"first", "second"} {
		m := b.DefineMarker(tracefmt.MarkerDef{Name: name, Source: tracefmt.SourceIDs{ID: 6000}})
		tm++
		add(tracefmt.Mark(tm, m))
	}
	tr, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := Write(&buf, tr); err != nil {
		t.Fatal(err)
	}
	back, err := Read(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range back.Ranks[0].Events {
		switch e.Kind {
		case tracefmt.KindEnter:
			d := back.States[e.State()]
			got = append(got, fmt.Sprintf("enter %s %s", d.Name, d.Color))
		case tracefmt.KindMarker:
			// The reader's markers of CLOG2's own records are not ours.
			if name := back.Markers[e.Marker()].Name; !strings.HasPrefix(name, "CLOG2 ") {
				got = append(got, "marker "+name)
			}
		}
	}
	want := []string{"enter task_a blue", "enter task_b red", "enter task_c cyan", "marker first", "marker second"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("read back %q, want %q", got, want)
	}
}

// TestStateDefsKeptWhenWritten: the states of a file's STATEDEF records
// come back as they were read when written, with no STATEDEF added, and
// the file is rewritten byte for byte:
//   - a STATEDEF giving MPE's state id 80 (MPI_Send) other event types than
//     MPE's, with events of MPE's types of id 80 too, reads as two states
//     of id 80; the second must not get a STATEDEF of a new id, which would
//     take over the first one's start event when read back;
//   - a STATEDEF of id 0 with start and end 0 gives a Source of zeros,
//     which the model reads as none; it must not get a new id either.
func TestStateDefsKeptWhenWritten(t *testing.T) {
	enter, leave := tracefmt.KindEnter, tracefmt.KindLeave
	for _, c := range []struct {
		name  string
		def   []any
		types []int32 // BAREEVT event types, at times 1, 2, ...
		want  []string
	}{
		{
			name:  "STATEDEF and MPE's range share id 80",
			def:   statedef(80, 160, 14906, "blue", "MPI_Send"),
			types: []int32{160, 161},
			want: []string{
				fmt.Sprintf("%v MPI_Send \"blue\" %v", enter, tracefmt.CatP2P),
				fmt.Sprintf("%v MPI_Send (state 80) \"\" %v", leave, tracefmt.CatP2P),
			},
		},
		{
			name:  "STATEDEF of id 0, start 0, end 0",
			def:   statedef(0, 0, 0, "red", "phase"),
			types: []int32{0, 0},
			want: []string{
				fmt.Sprintf("%v phase \"red\" %v", leave, tracefmt.CatUser),
				fmt.Sprintf("%v phase \"red\" %v", leave, tracefmt.CatUser),
			},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			cr := newCraft(true, 1, 256)
			cr.auto = true
			cr.worldCommEvts(1, 0)
			cr.rec(0.5, 0, 0, recStateDef, c.def...)
			for i, et := range c.types {
				cr.rec(float64(i+1), 0, 0, recBareEvt, bare(et)...)
			}
			file := cr.end(recEndLog, float64(len(c.types))).worldTable(1).bytes()
			checkRewrite(t, file, describeStates, c.want)
		})
	}
}

// describeStates lists rank 0's enter and leave events with their state's
// name, colour and category.
func describeStates(tr *tracefmt.Trace) []string {
	var got []string
	for _, e := range tr.Ranks[0].Events {
		if e.Kind == tracefmt.KindEnter || e.Kind == tracefmt.KindLeave {
			d := tr.States[e.State()]
			got = append(got, fmt.Sprintf("%v %s %q %v", e.Kind, d.Name, d.Color, d.Category))
		}
	}
	return got
}

// TestEventDefsKeptWhenWritten: an EVENTDEF record of event type 0 gives
// its marker a Source of zeros, which the model reads as none; written, the
// marker must keep event type 0 and get no EVENTDEF of a new type, which
// read back would be a second marker ("checkpoint (event 5000)") and grow
// the file at each write (found by FuzzRead).
func TestEventDefsKeptWhenWritten(t *testing.T) {
	eventdef := func(etype int32, color, name, format string) []any {
		return []any{i32(etype), i32(0), str{color, colorLen}, str{name, nameLen}, str{format, formatLen}}
	}
	for _, c := range []struct {
		name string
		defs [][]any
		want []string
	}{
		{
			name: "EVENTDEF of event type 0",
			defs: [][]any{eventdef(0, "white", "checkpoint", "n=%d")},
			want: []string{`checkpoint "white" "n=%d" 0`},
		},
		{
			name: "EVENTDEFs of event types 0 and 5000",
			defs: [][]any{eventdef(0, "white", "checkpoint", "n=%d"), eventdef(5000, "red", "restart", "")},
			want: []string{`checkpoint "white" "n=%d" 0`, `restart "red" "" 5000`},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			cr := newCraft(true, 1, 256)
			cr.auto = true
			cr.worldCommEvts(1, 0)
			for _, d := range c.defs {
				cr.rec(0.5, 0, 0, recEventDef, d...)
			}
			cr.rec(1, 0, 0, recBareEvt, bare(5001)...)
			file := cr.end(recEndLog, 1).worldTable(1).bytes()
			checkRewrite(t, file, describeMarkers, append(c.want, `event 5001 "" "" 5001`))
		})
	}
}

// describeMarkers lists the trace's marker definitions other than the
// reader's bookkeeping ones: name, colour, format and source event type.
func describeMarkers(tr *tracefmt.Trace) []string {
	var got []string
	for _, d := range tr.Markers {
		if !strings.HasPrefix(d.Name, "CLOG2 ") {
			got = append(got, fmt.Sprintf("%s %q %q %d", d.Name, d.Color, d.Format, d.Source.ID))
		}
	}
	return got
}

// checkRewrite reads file, writes it and reads that back: describe must
// give want for both traces, and the rewrite must be the file byte for byte.
func checkRewrite(t *testing.T, file []byte, describe func(*tracefmt.Trace) []string, want []string) {
	t.Helper()
	tr := readBytes(t, file)
	written := writeBytes(t, tr)
	back := readBytes(t, written)
	for _, r := range []struct {
		name string
		tr   *tracefmt.Trace
	}{{"read", tr}, {"written and read back", back}} {
		if got := describe(r.tr); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: %q, want %q", r.name, got, want)
		}
	}
	if !bytes.Equal(written, file) {
		t.Errorf("rewrite differs from the file: %s", firstDiff(file, written))
	}
}
