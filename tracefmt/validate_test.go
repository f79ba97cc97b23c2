package tracefmt

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// TestValidateLargeReportsFirstError: a trace large enough to be checked
// on several goroutines still reports the first broken event in rank
// order.
func TestValidateLargeReportsFirstError(t *testing.T) {
	const ranks = 8
	n := parallelEvents/ranks + 10
	tr := &Trace{Ranks: make([]Rank, ranks), Comms: []Comm{{Name: "MPI_COMM_WORLD"}}}
	for r := range tr.Ranks {
		ev := make([]Event, n)
		for i := range ev {
			ev[i] = Collective(float64(i), OpBarrier, -1, 0, 0, 0)
		}
		tr.Ranks[r].Events = ev
	}
	if err := tr.Validate(); err != nil {
		t.Fatalf("valid trace: %v", err)
	}
	tr.Ranks[6].Events[3] = Send(0, 99, 0, 0, 1)
	tr.Ranks[2].Events[n-1] = Send(0, 0, 0, 0, -1)
	tr.Ranks[2].Events[n-2] = Send(0, 0, 0, 7, 1)
	for _, match := range []bool{false, true} {
		err := tr.validate(match)
		if err == nil || !strings.HasPrefix(err.Error(), "rank 2 event "+strconv.Itoa(n-2)+" ") {
			t.Fatalf("validate(%v) = %v, want the error of rank 2 event %d", match, err, n-2)
		}
	}
}

// TestValidateAndMatch: Builder.Finish's single walk (validate(true))
// leaves every Match as Validate followed by MatchMessages does (the
// plain reference), on random traffic with one and several workers, and
// on sends that came with matches of their own (a recorded pairing that
// is not first with first): those are discarded, also when the send is
// left without a partner.
func TestValidateAndMatch(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	check := func(t *testing.T, got *Trace) {
		t.Helper()
		want := cloneTrace(got)
		if err := got.validate(true); err != nil {
			t.Fatal(err)
		}
		matchReference(want)
		for r := range want.Ranks {
			for i, w := range want.Ranks[r].Events {
				if g := got.Ranks[r].Events[i]; g.Match != w.Match {
					t.Fatalf("rank %d event %d (%s): Match = %d, want %d", r, i, w.Kind, g.Match, w.Match)
				}
			}
		}
	}
	for _, tc := range []struct {
		name     string
		ranks, n int
	}{{"serial", 5, 60}, {"parallel", 16, parallelEvents/16 + 100}} {
		t.Run("random "+tc.name, func(t *testing.T) {
			tr := randomTrace(rng, tc.ranks, tc.n)
			for r := range tr.Ranks {
				for i := range tr.Ranks[r].Events {
					tr.Ranks[r].Events[i].Match = -1
				}
			}
			check(t, tr)
		})
		t.Run("recorded "+tc.name, func(t *testing.T) {
			// Rank 0 sends twice to rank 1 on one channel, rank 1
			// receives once; the recorded pairing is the second send's.
			tr := &Trace{Ranks: make([]Rank, 2), Comms: []Comm{{Name: "MPI_COMM_WORLD"}}}
			pad := make([]Event, tc.n)
			for i := range pad {
				pad[i] = Collective(0, OpBarrier, -1, 0, 0, 0)
			}
			s0, s1, rv := Send(0, 1, 3, 0, 8), Send(0, 1, 3, 0, 8), Recv(0, 0, 3, 0, 8)
			s1.Match, rv.Match = int32(tc.n+1), int32(tc.n+1)
			tr.Ranks[0].Events = append(append([]Event{}, pad...), s0, s1)
			tr.Ranks[1].Events = append(append([]Event{}, pad...), WaitAll(0), rv)
			check(t, tr)
			if m := tr.Ranks[0].Events[tc.n+1].Match; m != -1 {
				t.Errorf("the second send kept its recorded match %d", m)
			}
		})
	}
}

// TestValidateErrors: every check of Validate on a two-rank trace, the
// exact error each broken event gives (or none for the edge values that
// are valid), so that a faster loop keeps every message and every
// boundary.
func TestValidateErrors(t *testing.T) {
	enter := func(s StateID, text int) Event { e := Enter(0, s); e.SetTextRef(text); return e }
	withAux := func(e Event, aux int64) Event { e.aux = aux; return e }
	marker := func(m int32, text int) Event {
		e := Event{Kind: KindMarker, Peer: m, Match: -1}
		e.SetTextRef(text)
		return e
	}
	pair := func(a, b Event, ma, mb int32) []Event { a.Match, b.Match = ma, mb; return []Event{a, b} }
	tests := []struct {
		name string
		ev   []Event // rank 0's events after a valid wait
		want string  // "" when valid
	}{
		{"comm", []Event{Send(0, 1, 0, 2, 1)}, "rank 0 event 1 (send): communicator 2 not defined"},
		{"unknown kind 0", []Event{{Match: -1}}, "rank 0 event 1 (kind(0)): unknown kind"},
		{"unknown kind 9", []Event{{Kind: 9, Match: -1}}, "rank 0 event 1 (kind(9)): unknown kind"},
		{"state below", []Event{Enter(0, -1)}, "rank 0 event 1 (enter): state -1 not defined"},
		{"state above", []Event{Leave(0, 2)}, "rank 0 event 1 (leave): state 2 not defined"},
		{"enter text", []Event{enter(1, 3)}, "rank 0 event 1 (enter): text 3 not defined"},
		{"enter last text", []Event{enter(1, 2)}, ""},
		{"enter negative text", []Event{withAux(Enter(0, 1), -7)}, ""},
		{"enter lowest aux", []Event{withAux(Enter(0, 1), math.MinInt64)}, "rank 0 event 1 (enter): text 9223372036854775807 not defined"},
		{"leave ignores text", []Event{withAux(Leave(0, 1), 99)}, ""},
		{"pair", pair(enter(1, 0), Leave(0, 1), 2, 1), ""},
		{"pair beyond", pair(enter(1, 0), Leave(0, 1), 9, 1), "rank 0 event 1 (enter): state pairing broken"},
		{"pair not back", pair(enter(1, 0), Leave(0, 1), 2, 0), "rank 0 event 1 (enter): state pairing broken"},
		{"pair other state", pair(enter(1, 0), Leave(0, 0), 2, 1), "rank 0 event 1 (enter): state pairing broken"},
		{"leave not back", pair(enter(1, 0), Leave(0, 1), -1, 1), "rank 0 event 2 (leave): state pairing broken"},
		{"leave comm", []Event{{Kind: KindEnter, Peer: 1, Match: 2}, {Kind: KindLeave, Peer: 1, Match: 1, Comm: 5}}, "rank 0 event 2 (leave): communicator 5 not defined"},
		{"nested", []Event{{Kind: KindEnter, Peer: 0, Match: 4}, {Kind: KindEnter, Peer: 1, Match: 3}, {Kind: KindLeave, Peer: 1, Match: 2}, {Kind: KindLeave, Peer: 0, Match: 1}}, ""},
		{"nested outer broken", []Event{{Kind: KindEnter, Peer: 0, Match: -1}, {Kind: KindEnter, Peer: 1, Match: 3}, {Kind: KindLeave, Peer: 1, Match: 2}, {Kind: KindLeave, Peer: 0, Match: 1}}, "rank 0 event 4 (leave): state pairing broken"},
		{"leave of other enter", []Event{{Kind: KindEnter, Peer: 1, Match: 3}, {Kind: KindLeave, Peer: 1, Match: 1}, {Kind: KindLeave, Peer: 1, Match: 1}}, "rank 0 event 2 (leave): state pairing broken"},
		{"send peer", []Event{Send(0, 2, 0, 0, 1)}, "rank 0 event 1 (send): peer 2 outside 0..1"},
		{"recv peer", []Event{Recv(0, -1, 0, 0, 1)}, "rank 0 event 1 (recv): peer -1 outside 0..1"},
		{"send size", []Event{Send(0, 1, 0, 0, -3)}, "rank 0 event 1 (send): negative size -3"},
		{"recv size", []Event{Recv(0, 1, 0, 0, -4)}, "rank 0 event 1 (recv): negative size -4"},
		{"send match beyond", []Event{{Kind: KindSend, Peer: 1, Match: 5}}, "rank 0 event 1 (send): message match broken"},
		{"recv match not back", []Event{{Kind: KindRecv, Peer: 1, Match: 0}}, "rank 0 event 1 (recv): message match broken"},
		{"send matched", []Event{{Kind: KindSend, Peer: 1, Match: 1}}, ""},
		{"root none", []Event{Collective(0, OpBarrier, -1, 0, 0, 0)}, ""},
		{"root last", []Event{Collective(0, OpBcast, 1, 0, 0, 0)}, ""},
		{"root below", []Event{Collective(0, OpBcast, -2, 0, 0, 0)}, "rank 0 event 1 (coll): root -2 outside 0..1"},
		{"root above", []Event{Collective(0, OpBcast, 2, 0, 0, 0)}, "rank 0 event 1 (coll): root 2 outside 0..1"},
		{"coll sent", []Event{Collective(0, OpBcast, 0, 0, -1, 0)}, "rank 0 event 1 (coll): negative size"},
		{"coll received", []Event{Collective(0, OpBcast, 0, 0, 0, -1)}, "rank 0 event 1 (coll): negative size"},
		{"compute zero", []Event{ComputeTime(0, 0)}, ""},
		{"compute minus zero", []Event{ComputeTime(0, math.Copysign(0, -1))}, ""},
		{"compute largest", []Event{ComputeTime(0, math.MaxFloat64)}, ""},
		{"compute negative", []Event{ComputeTime(0, -1)}, "rank 0 event 1 (compute): compute amount -1"},
		{"compute +inf", []Event{ComputeWork(0, math.Inf(1))}, "rank 0 event 1 (compute): compute amount +Inf"},
		{"compute -inf", []Event{ComputeTime(0, math.Inf(-1))}, "rank 0 event 1 (compute): compute amount -Inf"},
		{"compute nan", []Event{ComputeTime(0, math.NaN())}, "rank 0 event 1 (compute): compute amount NaN"},
		{"marker", []Event{marker(0, 2)}, ""},
		{"marker below", []Event{marker(-1, 0)}, "rank 0 event 1 (marker): marker -1 not defined"},
		{"marker above", []Event{marker(1, 0)}, "rank 0 event 1 (marker): marker 1 not defined"},
		{"marker text", []Event{marker(0, 3)}, "rank 0 event 1 (marker): text 3 not defined"},
		{"first of two", []Event{ComputeTime(0, -1), Send(0, 5, 0, 0, 1)}, "rank 0 event 1 (compute): compute amount -1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tr := &Trace{
				Ranks:   make([]Rank, 2),
				Comms:   []Comm{{Name: "MPI_COMM_WORLD"}, {Name: "sub", Ranks: []int32{1, 0}}},
				States:  []StateDef{{Name: "a"}, {Name: "b"}},
				Markers: []MarkerDef{{Name: "m"}},
				Texts:   []string{"x", "y", "z"},
			}
			tr.Ranks[0].Events = append([]Event{WaitAll(0)}, tc.ev...)
			// Rank 1's receive answers the "send matched" case.
			recv := Recv(0, 0, 0, 0, 1)
			if tc.name == "send matched" {
				recv.Match = 1
			}
			tr.Ranks[1].Events = []Event{WaitAll(0), recv}
			got := ""
			if err := tr.Validate(); err != nil {
				got = err.Error()
			}
			if got != tc.want {
				t.Errorf("Validate() = %q, want %q", got, tc.want)
			}
			// Builder.Finish's walk, which matches the messages as it
			// checks them, reports the same.
			got = ""
			if err := tr.validate(true); err != nil {
				got = err.Error()
			}
			if got != tc.want {
				t.Errorf("validate(true) = %q, want %q", got, tc.want)
			}
		})
	}
}
