package alog

import (
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/tracesim/tracesim/tracefmt"
)

// describe renders an event with every field the ALOG reader sets.
func describe(t *tracefmt.Trace, e *tracefmt.Event) string {
	var s string
	switch e.Kind {
	case tracefmt.KindEnter:
		s = "enter " + t.StateName(e.State())
	case tracefmt.KindLeave:
		s = "leave " + t.StateName(e.State())
	case tracefmt.KindSend:
		s = fmt.Sprintf("send>%d t%d %dB", e.Peer, e.Tag, e.Size)
	case tracefmt.KindRecv:
		s = fmt.Sprintf("recv<%d t%d %dB", e.Peer, e.Tag, e.Size)
	case tracefmt.KindMarker:
		s = "marker " + t.Markers[e.Marker()].Name
	default:
		s = e.Kind.String()
	}
	if txt := t.Text(e); txt != "" {
		s += fmt.Sprintf(" %q", txt)
	}
	return fmt.Sprintf("%.0f %s", e.Time, s)
}

func describeRanks(t *tracefmt.Trace) [][]string {
	out := make([][]string, t.Size())
	for r := range t.Ranks {
		out[r] = []string{}
		for i := range t.Ranks[r].Events {
			out[r] = append(out[r], describe(t, &t.Ranks[r].Events[i]))
		}
	}
	return out
}

func mustRead(t *testing.T, s string) *tracefmt.Trace {
	t.Helper()
	tr, err := Read(strings.NewReader(s))
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func TestReadSynthetic(t *testing.T) {
	tests := []struct {
		name  string
		in    string
		ranks [][]string
		attrs map[string]string
	}{
		{
			name: "headers, states defined after use, messages, named point events",
			in: `-1 0 0 0 0 0 Me
-3 0 0 2 0 0
-9 0 0 7 0 0 Checkpoint
-10 0 0 7 0 0 step %d
# a comment line

10 0 0 1 0 100 start of work
-101 0 0 1 0 150 99 12
-102 1 0 0 0 180 99 12
11 0 0 2 0 200
7 1 0 0 0 250 ck 1
8 1 0 0 0 260
-13 0 10 11 0 0 red:vlines3 Work
`,
			ranks: [][]string{
				{`100 enter Work "start of work"`, "150 send>1 t99 12B", "200 leave Work"},
				{"180 recv<0 t99 12B", `250 marker Checkpoint "ck 1"`, "260 marker event 8"},
			},
			attrs: map[string]string{"alog.creator": "Me"},
		},
		{
			name: "roll-over: cycle × (R+1) + timestamp",
			in: `-11 0 0 0 0 999
1 0 0 0 0 900
1 0 0 0 1 5
1 0 0 0 3 999
`,
			ranks: [][]string{{"900 marker event 1", "1005 marker event 1", "3999 marker event 1"}},
			attrs: map[string]string{"alog.rollover": "999"},
		},
		{
			name:  "a decreasing timestamp without a new cycle is kept",
			in:    "-11 0 0 0 0 4294967295\n1 0 0 0 0 4294967000\n1 0 0 0 0 20\n",
			ranks: [][]string{{"4294967000 marker event 1", "20 marker event 1"}},
		},
		{
			name:  "world from the largest process without -3",
			in:    "5 2 0 0 0 1\n",
			ranks: [][]string{{}, {}, {"1 marker event 5"}},
		},
		{
			name:  "-3 larger than the processes seen (clog2alog counts those that logged)",
			in:    "-3 0 0 3 0 0\n5 0 0 0 0 1\n",
			ranks: [][]string{{"1 marker event 5"}, {}, {}},
		},
		{
			name: "unknown headers and sync skipped, types below -102 are point events",
			in: `-12 0 0 0 0 0
-14 0 0 0 0 0 msg def
-15 1 0 0 0 0 worker
-50 0 0 0 0 0
-100 0 0 0 0 77
-103 0 0 4 0 10 pair
`,
			ranks: [][]string{{`10 marker event -103 "pair"`}},
		},
		{
			name: "first definition of an event type wins; start==end and colour without bitmap",
			in: `-13 0 1 2 0 0 blue:gray A
-13 0 1 4 0 0 green:gray B
-13 0 5 5 0 0 gray:gray C
-13 0 6 7 0 0 red Busy State
1 0 0 0 0 1
2 0 0 0 0 2
4 0 0 0 0 3
5 0 0 0 0 4
6 0 0 0 0 5
7 0 0 0 0 6
`,
			ranks: [][]string{{"1 enter A", "2 leave A", "3 marker event 4", "4 marker event 5", "5 enter Busy State", "6 leave Busy State"}},
		},
		{
			name:  "CRLF line ends, tabs and signs",
			in:    "-3 0 0 +1 0 0\r\n\t1\t0 0 0 0 +7  note \r\n",
			ranks: [][]string{{`7 marker event 1 "note"`}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tr := mustRead(t, tc.in)
			if tr.Format != "alog" || tr.Unit != tracefmt.Microsecond || !tr.Timed {
				t.Errorf("format %q unit %v timed %v", tr.Format, tr.Unit, tr.Timed)
			}
			if got := describeRanks(tr); !reflect.DeepEqual(got, tc.ranks) {
				t.Errorf("got %q\nwant %q", got, tc.ranks)
			}
			for k, want := range tc.attrs {
				if got, _ := tr.Attr(k); got != want {
					t.Errorf("attr %s = %q, want %q", k, got, want)
				}
			}
		})
	}
}

func TestReadDefinitions(t *testing.T) {
	tr := mustRead(t, `-9 0 0 3 0 0 Proof
-10 0 0 3 0 0 value %d
-13 0 11 12 0 0 yellow:dimple3 BARRIER
-13 0 1 2 0 0 blue:gray task_a
3 0 0 0 0 1
`)
	wantStates := []tracefmt.StateDef{
		{Name: "BARRIER", Color: "yellow", Category: tracefmt.CatCollective, Source: tracefmt.SourceIDs{Start: 11, End: 12}},
		{Name: "task_a", Color: "blue", Category: tracefmt.CatUser, Source: tracefmt.SourceIDs{Start: 1, End: 2}},
	}
	if !reflect.DeepEqual(tr.States, wantStates) {
		t.Errorf("states %+v, want %+v", tr.States, wantStates)
	}
	wantMarkers := []tracefmt.MarkerDef{{Name: "Proof", Format: "value %d", Source: tracefmt.SourceIDs{Start: 3}}}
	if !reflect.DeepEqual(tr.Markers, wantMarkers) {
		t.Errorf("markers %+v, want %+v", tr.Markers, wantMarkers)
	}
}

// TestPairOldest: an end closes the oldest open start of its state.
func TestPairOldest(t *testing.T) {
	tr := mustRead(t, "-13 0 1 2 0 0 red:gray S\n1 0 0 0 0 1\n1 0 0 0 0 2\n2 0 0 0 0 3\n2 0 0 0 0 4\n")
	ev := tr.Ranks[0].Events
	if ev[0].Match != 2 || ev[1].Match != 3 {
		t.Errorf("matches %d, %d; want 2, 3 (oldest first)", ev[0].Match, ev[1].Match)
	}
}

func TestParseStateDef(t *testing.T) {
	tests := []struct {
		in, color, name string
		ok              bool
	}{
		{"yellow:dimple3 BARRIER", "yellow", "BARRIER", true},
		{"green:light_gray RECV", "green", "RECV", true},
		{"red Busy State", "red", "Busy State", true},
		{"red\tTabbed", "red", "Tabbed", true},
		{"magenta:2x2 task_d", "magenta", "task_d", true},
		{"blue:gray", "blue", "", false},
		{"", "", "", false},
	}
	for _, tc := range tests {
		color, name, ok := parseStateDef(tc.in)
		if color != tc.color || name != tc.name || ok != tc.ok {
			t.Errorf("parseStateDef(%q) = %q, %q, %v; want %q, %q, %v", tc.in, color, name, ok, tc.color, tc.name, tc.ok)
		}
	}
}

func TestParseNumbers(t *testing.T) {
	ints := []struct {
		in   string
		want int32
		ok   bool
	}{
		{"0", 0, true}, {"-101", -101, true}, {"+5", 5, true}, {"2147483647", 2147483647, true},
		{"-2147483648", -2147483648, true}, {"2147483648", 0, false}, {"-2147483649", 0, false},
		{"", 0, false}, {"-", 0, false}, {"1e3", 0, false}, {"12.5", 0, false},
	}
	for _, tc := range ints {
		if got, ok := parseInt([]byte(tc.in)); got != tc.want || ok != tc.ok {
			t.Errorf("parseInt(%q) = %d, %v; want %d, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
	uints := []struct {
		in   string
		want uint64
		ok   bool
	}{
		{"0", 0, true}, {"4294967295", 4294967295, true}, {"18446744073709551615", 1<<64 - 1, true},
		{"18446744073709551616", 0, false}, {"-1", 0, false}, {"", 0, false}, {"+", 0, false},
	}
	for _, tc := range uints {
		if got, ok := parseUint([]byte(tc.in)); got != tc.want || ok != tc.ok {
			t.Errorf("parseUint(%q) = %d, %v; want %d, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

// TestReadSmallReads: the result does not depend on how the reader
// delivers the bytes.
func TestReadSmallReads(t *testing.T) {
	in := "-1 0 0 0 0 0 Me\n-13 0 1 2 0 0 red:gray S\n1 0 0 0 0 1 a\n-101 0 0 1 0 2 5 8\n-102 1 0 0 0 3 5 8\n2 0 0 0 0 4"
	want := mustRead(t, in)
	for name, r := range map[string]io.Reader{
		"one byte": iotest.OneByteReader(strings.NewReader(in)),
		"half":     iotest.HalfReader(strings.NewReader(in)),
		"data+EOF": iotest.DataErrReader(strings.NewReader(in)),
	} {
		got, err := Read(r)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: a different trace", name)
		}
	}
	if c := want.CountMessages(); c.Matched != 1 || want.Ranks[0].Events[2].Match != 0 {
		t.Errorf("messages %+v, state match %d", c, want.Ranks[0].Events[2].Match)
	}
}
