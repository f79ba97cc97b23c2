package alog

import (
	"os"
	"reflect"
	"testing"

	"github.com/tracesim/tracesim/internal/testshared"
	"github.com/tracesim/tracesim/tracefmt"
)

// sharedDir holds the ALOG samples, which may not be redistributed; tests
// skip when it is absent.
var sharedDir = testshared.Dir() + "/alog/"

type sample struct {
	path       string
	ranks      int
	kinds      map[tracefmt.Kind]int
	rankEvents []int
	states     []tracefmt.StateDef
	counts     map[string]int
	markers    []tracefmt.MarkerDef
	msgs       map[[2]int64]int // sends by (tag, size)
	span       [2]float64
	attrs      []tracefmt.Attr
}

var samples = []sample{
	{
		// MPE 1.x srtest (clog2alog output): a ring of Send/Recv.
		path:  sharedDir + "srtest.alog",
		ranks: 3,
		// A collective event in each BARRIER call.
		kinds:      map[tracefmt.Kind]int{tracefmt.KindEnter: 36, tracefmt.KindLeave: 36, tracefmt.KindSend: 15, tracefmt.KindRecv: 15, tracefmt.KindCollective: 6},
		rankEvents: []int{36, 36, 36},
		states: []tracefmt.StateDef{
			{Name: "BARRIER", Color: "yellow", Category: tracefmt.CatCollective, Source: tracefmt.SourceIDs{Start: 11, End: 12}},
			{Name: "RECV", Color: "green", Category: tracefmt.CatP2P, Source: tracefmt.SourceIDs{Start: 155, End: 156}},
			{Name: "SEND", Color: "blue", Category: tracefmt.CatP2P, Source: tracefmt.SourceIDs{Start: 161, End: 162}},
		},
		counts: map[string]int{"BARRIER": 6, "RECV": 15, "SEND": 15},
		msgs:   map[[2]int64]int{{99, 12}: 15},
		span:   [2]float64{0, 412568},
		attrs:  []tracefmt.Attr{{Key: "alog.creator", Value: "Me"}},
	},
	{
		// A 1990 P4 log shipped with upshot: 16 processes, user states
		// and one point event, a 32-bit timer.
		path:       sharedDir + "sam_hyp.16.log",
		ranks:      16,
		kinds:      map[tracefmt.Kind]int{tracefmt.KindEnter: 296, tracefmt.KindLeave: 296, tracefmt.KindMarker: 1},
		rankEvents: []int{33, 24, 36, 68, 30, 50, 38, 38, 22, 58, 42, 30, 34, 32, 28, 30},
		states: []tracefmt.StateDef{
			{Name: "task_a", Color: "blue", Category: tracefmt.CatUser, Source: tracefmt.SourceIDs{Start: 1, End: 2}},
			{Name: "task_b", Color: "red", Category: tracefmt.CatUser, Source: tracefmt.SourceIDs{Start: 3, End: 4}},
			{Name: "task_c", Color: "cyan", Category: tracefmt.CatUser, Source: tracefmt.SourceIDs{Start: 5, End: 6}},
			{Name: "task_d", Color: "magenta", Category: tracefmt.CatUser, Source: tracefmt.SourceIDs{Start: 7, End: 8}},
			{Name: "task_bp", Color: "green", Category: tracefmt.CatUser, Source: tracefmt.SourceIDs{Start: 23, End: 24}},
		},
		counts:  map[string]int{"task_a": 140, "task_b": 26, "task_c": 130, "task_d": 0, "task_bp": 0},
		markers: []tracefmt.MarkerDef{{Name: "Proof", Source: tracefmt.SourceIDs{Start: 9}}},
		msgs:    map[[2]int64]int{},
		span:    [2]float64{2025436865, 2028176869},
		attrs:   []tracefmt.Attr{{Key: "alog.creator", Value: "P4 May- 9-90"}, {Key: "alog.rollover", Value: "4294967295"}},
	},
}

func readSample(t *testing.T, path string) *tracefmt.Trace {
	t.Helper()
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		t.Skipf("%s absent", path)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tr, err := Read(f)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func TestSamples(t *testing.T) {
	for _, s := range samples {
		t.Run(s.path, func(t *testing.T) {
			tr := readSample(t, s.path)
			if tr.Size() != s.ranks {
				t.Errorf("%d ranks, want %d", tr.Size(), s.ranks)
			}
			kinds := map[tracefmt.Kind]int{}
			rankEvents := make([]int, tr.Size())
			msgs := map[[2]int64]int{}
			for r := range tr.Ranks {
				ev := tr.Ranks[r].Events
				rankEvents[r] = len(ev)
				for i := range ev {
					e := &ev[i]
					kinds[e.Kind]++
					if e.Kind == tracefmt.KindSend {
						msgs[[2]int64{int64(e.Tag), e.Size}]++
					}
					if (e.Kind == tracefmt.KindEnter || e.Kind == tracefmt.KindLeave) && e.Match < 0 {
						t.Errorf("rank %d event %d: unpaired %s of %s", r, i, e.Kind, tr.StateName(e.State()))
					}
					if i > 0 && e.Time < ev[i-1].Time {
						t.Errorf("rank %d event %d: time goes back", r, i)
					}
				}
			}
			if !reflect.DeepEqual(kinds, s.kinds) {
				t.Errorf("events per kind %v, want %v", kinds, s.kinds)
			}
			if !reflect.DeepEqual(rankEvents, s.rankEvents) {
				t.Errorf("events per rank %v, want %v", rankEvents, s.rankEvents)
			}
			if !reflect.DeepEqual(msgs, s.msgs) {
				t.Errorf("sends by (tag, size) %v, want %v", msgs, s.msgs)
			}
			if c, want := tr.CountMessages(), (tracefmt.MessageCounts{Matched: s.kinds[tracefmt.KindSend]}); c != want {
				t.Errorf("messages %+v, want %+v", c, want)
			}
			if !reflect.DeepEqual(tr.States, s.states) {
				t.Errorf("states\n%+v\nwant\n%+v", tr.States, s.states)
			}
			counts := map[string]int{}
			for _, st := range tracefmt.Summarize(tr).States {
				counts[st.Name] = st.Count
			}
			if !reflect.DeepEqual(counts, s.counts) {
				t.Errorf("intervals per state %v, want %v", counts, s.counts)
			}
			if !reflect.DeepEqual(tr.Markers, s.markers) {
				t.Errorf("markers %+v, want %+v", tr.Markers, s.markers)
			}
			if a, b := tr.Span(); a != s.span[0] || b != s.span[1] {
				t.Errorf("span %v..%v, want %v..%v", a, b, s.span[0], s.span[1])
			}
			// Every rank ends with the end of a state, and the span runs
			// from the first to the last of the ranks' events: header,
			// definition and sync records are no events.
			first, last := s.span[1], s.span[0]
			for r := range tr.Ranks {
				ev := tr.Ranks[r].Events
				if e := ev[len(ev)-1]; e.Kind != tracefmt.KindLeave {
					t.Errorf("rank %d ends with a %s event, want the end of a state", r, e.Kind)
				}
				first, last = min(first, ev[0].Time), max(last, ev[len(ev)-1].Time)
			}
			if first != s.span[0] || last != s.span[1] {
				t.Errorf("ranks' events run from %v to %v, want the span %v..%v", first, last, s.span[0], s.span[1])
			}
			if !reflect.DeepEqual(tr.Attrs, s.attrs) {
				t.Errorf("attrs %v, want %v", tr.Attrs, s.attrs)
			}
		})
	}
}
