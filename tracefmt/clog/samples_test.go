package clog

import (
	"os"
	"reflect"
	"testing"

	"github.com/tracesim/tracesim/internal/testshared"
	"github.com/tracesim/tracesim/tracefmt"
)

// sharedDir holds the samples that may not be redistributed; tests that
// need them skip when it is absent.
var sharedDir = testshared.Dir() + "/clog/"

// sample is what a real file is pinned to.
type sample struct {
	path       string
	ranks      int
	blocks     string
	kinds      map[tracefmt.Kind]int
	rankEvents []int
	states     []tracefmt.StateDef
	counts     map[string]int // intervals per state
	msgs       map[[2]int64]int
	span       [2]float64
	texts      []string
}

var (
	fpilog = sample{
		path:   "testdata/fpilog.clog",
		ranks:  4,
		blocks: "1",
		// MPICH-1's BARRIER, BCAST and REDUCE calls hold the messages
		// of their implementation: no collective event is added.
		kinds:      map[tracefmt.Kind]int{tracefmt.KindEnter: 114, tracefmt.KindLeave: 114, tracefmt.KindSend: 39, tracefmt.KindRecv: 39},
		rankEvents: []int{84, 69, 84, 69},
		states: []tracefmt.StateDef{
			{Name: "User_Broadcast", Color: "red", Category: tracefmt.CatUser, Source: tracefmt.SourceIDs{ID: 200, Start: 500, End: 501}},
			{Name: "User_Barrier", Color: "blue", Category: tracefmt.CatUser, Source: tracefmt.SourceIDs{ID: 201, Start: 502, End: 503}},
			{Name: "User_Compute", Color: "orange", Category: tracefmt.CatUser, Source: tracefmt.SourceIDs{ID: 202, Start: 504, End: 505}},
			{Name: "User_Reduce", Color: "green", Category: tracefmt.CatUser, Source: tracefmt.SourceIDs{ID: 203, Start: 506, End: 507}},
			{Name: "BARRIER", Color: "yellow", Category: tracefmt.CatCollective, Source: tracefmt.SourceIDs{ID: 204, Start: 11, End: 12}},
			{Name: "BCAST", Color: "cyan", Category: tracefmt.CatCollective, Source: tracefmt.SourceIDs{ID: 205, Start: 13, End: 14}},
			{Name: "REDUCE", Color: "purple", Category: tracefmt.CatCollective, Source: tracefmt.SourceIDs{ID: 206, Start: 25, End: 26}},
			{Name: "RECV", Color: "green", Category: tracefmt.CatP2P, Source: tracefmt.SourceIDs{ID: 207, Start: 155, End: 156}},
			{Name: "SEND", Color: "blue", Category: tracefmt.CatP2P, Source: tracefmt.SourceIDs{ID: 208, Start: 161, End: 162}},
			{Name: "SENDRECV", Color: "seagreen", Category: tracefmt.CatP2P, Source: tracefmt.SourceIDs{ID: 209, Start: 163, End: 164}},
		},
		counts: map[string]int{
			"User_Broadcast": 8, "User_Barrier": 8, "User_Compute": 8, "User_Reduce": 8,
			"BARRIER": 12, "BCAST": 8, "REDUCE": 8, "RECV": 15, "SEND": 15, "SENDRECV": 24,
		},
		// (tag, size) of the sends: MPICH-1's barrier, bcast and reduce
		// over point-to-point messages.
		msgs:  map[[2]int64]int{{1, 0}: 24, {2, 4}: 6, {11, 8}: 6, {11, 512}: 3},
		span:  [2]float64{0.002090999999381893, 0.15782399999989138},
		texts: []string{"start broadcast", "start barrier", "start compute", "Start Reduce"},
	}
	pmandel = sample{
		path:       sharedDir + "pmandel.clog",
		ranks:      4,
		blocks:     "10",
		kinds:      map[tracefmt.Kind]int{tracefmt.KindEnter: 3818, tracefmt.KindLeave: 3818, tracefmt.KindSend: 1473, tracefmt.KindRecv: 1473},
		rankEvents: []int{5998, 1442, 1472, 1670},
		states: []tracefmt.StateDef{
			{Name: "ALLREDUCE", Color: "purple", Category: tracefmt.CatCollective, Source: tracefmt.SourceIDs{ID: 200, Start: 5, End: 6}},
			{Name: "BARRIER", Color: "yellow", Category: tracefmt.CatCollective, Source: tracefmt.SourceIDs{ID: 201, Start: 11, End: 12}},
			{Name: "BCAST", Color: "cyan", Category: tracefmt.CatCollective, Source: tracefmt.SourceIDs{ID: 202, Start: 13, End: 14}},
			{Name: "REDUCE", Color: "purple", Category: tracefmt.CatCollective, Source: tracefmt.SourceIDs{ID: 203, Start: 25, End: 26}},
			{Name: "PROBE", Color: "seagreen", Category: tracefmt.CatWait, Source: tracefmt.SourceIDs{ID: 204, Start: 153, End: 154}},
			{Name: "RECV", Color: "green", Category: tracefmt.CatP2P, Source: tracefmt.SourceIDs{ID: 205, Start: 155, End: 156}},
			{Name: "SEND", Color: "blue", Category: tracefmt.CatP2P, Source: tracefmt.SourceIDs{ID: 206, Start: 161, End: 162}},
			{Name: "SENDRECV", Color: "seagreen", Category: tracefmt.CatP2P, Source: tracefmt.SourceIDs{ID: 207, Start: 163, End: 164}},
		},
		counts: map[string]int{
			"ALLREDUCE": 4, "BARRIER": 20, "BCAST": 52, "REDUCE": 4, "PROBE": 832, "RECV": 1433, "SEND": 1433, "SENDRECV": 40,
		},
		msgs: map[[2]int64]int{
			{1, 0}: 40, {2, 4}: 18, {2, 12}: 9, {2, 23}: 3, {2, 24}: 3, {2, 104}: 6, {11, 4}: 3, {11, 512}: 3,
			{42, 0}: 3, {43, 0}: 553, {44, 40}: 276, {46, 20}: 553, {47, 20}: 3,
		},
		span: [2]float64{0.0015059999991535733, 11.718794999999773},
	}
)

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
	for _, s := range []sample{fpilog, pmandel} {
		t.Run(s.path, func(t *testing.T) {
			tr := readSample(t, s.path)
			if tr.Size() != s.ranks {
				t.Errorf("%d ranks, want %d", tr.Size(), s.ranks)
			}
			if got, _ := tr.Attr("clog.blocks"); got != s.blocks {
				t.Errorf("%s blocks, want %s", got, s.blocks)
			}
			kinds := map[tracefmt.Kind]int{}
			rankEvents := make([]int, tr.Size())
			msgs := map[[2]int64]int{}
			for r := range tr.Ranks {
				ev := tr.Ranks[r].Events
				rankEvents[r] = len(ev)
				for i := range ev {
					kinds[ev[i].Kind]++
					if ev[i].Kind == tracefmt.KindSend {
						msgs[[2]int64{int64(ev[i].Tag), ev[i].Size}]++
					}
					if i > 0 && ev[i].Time < ev[i-1].Time {
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
			c := tr.CountMessages()
			if want := (tracefmt.MessageCounts{Matched: s.kinds[tracefmt.KindSend]}); c != want {
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
			for r := range tr.Ranks {
				for i, e := range tr.Ranks[r].Events {
					if (e.Kind == tracefmt.KindEnter || e.Kind == tracefmt.KindLeave) && e.Match < 0 {
						t.Errorf("rank %d event %d: unpaired %s of %s", r, i, e.Kind, tr.StateName(e.State()))
					}
				}
			}
			if a, b := tr.Span(); a != s.span[0] || b != s.span[1] {
				t.Errorf("span %v..%v, want %v..%v", a, b, s.span[0], s.span[1])
			}
			// Every rank ends with the end of an MPI call, and the span
			// runs from the first to the last of the ranks' events: no
			// definition, shift or ENDLOG record is an event.
			first, last := s.span[1], s.span[0]
			for r := range tr.Ranks {
				ev := tr.Ranks[r].Events
				e := ev[len(ev)-1]
				if e.Kind != tracefmt.KindLeave || !tr.States[e.State()].Category.IsMPI() {
					t.Errorf("rank %d ends with a %s event, want the end of an MPI call", r, e.Kind)
				}
				first, last = min(first, ev[0].Time), max(last, e.Time)
			}
			if first != s.span[0] || last != s.span[1] {
				t.Errorf("ranks' events run from %v to %v, want the span %v..%v", first, last, s.span[0], s.span[1])
			}
			if s.texts != nil && !reflect.DeepEqual(tr.Texts, s.texts) {
				t.Errorf("texts %q, want %q", tr.Texts, s.texts)
			}
		})
	}
}

// TestSamplesPairingRule: no rank of the samples ever has two intervals of
// the same state open at once, so closing the oldest open start (MPE's
// rule, used by Read) and closing the newest give the same intervals.
func TestSamplesPairingRule(t *testing.T) {
	for _, s := range []sample{fpilog, pmandel} {
		t.Run(s.path, func(t *testing.T) {
			tr := readSample(t, s.path)
			for r := range tr.Ranks {
				open := map[tracefmt.StateID]int{}
				for i, e := range tr.Ranks[r].Events {
					switch e.Kind {
					case tracefmt.KindEnter:
						if open[e.State()]++; open[e.State()] > 1 {
							t.Errorf("rank %d event %d: %s entered while open", r, i, tr.StateName(e.State()))
						}
					case tracefmt.KindLeave:
						open[e.State()]--
					}
				}
			}
		})
	}
}
