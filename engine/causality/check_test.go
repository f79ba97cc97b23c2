package causality

import (
	"context"
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/tracesim/tracesim/engine/replay"
	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/tracefmt/gen"
	"github.com/tracesim/tracesim/tracefmt/tsim"
)

// parse reads a tsim trace written in a test.
func parse(t *testing.T, text string) *tracefmt.Trace {
	t.Helper()
	tr, err := tsim.Read(strings.NewReader(text))
	if err != nil {
		t.Fatalf("test trace: %v", err)
	}
	return tr
}

func check(t *testing.T, tr *tracefmt.Trace, o Options) *Report {
	t.Helper()
	rep, err := Check(context.Background(), tr, o)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// counts turns a report's counts into a map of the non-zero ones.
func counts(rep *Report) map[Kind]int {
	m := map[Kind]int{}
	for k, n := range rep.Counts {
		if n > 0 {
			m[Kind(k)] = n
		}
	}
	return m
}

func ref(r, i int32) tracefmt.EventRef { return tracefmt.EventRef{Rank: r, Index: i} }

// TestCheckKinds builds a trace with one case of each kind and checks
// that each is found with its events and amount.
func TestCheckKinds(t *testing.T) {
	const text = `tsim 1
ranks 3
unit us
# 0: send 0->1 at 10, received at 8: a 2 us reversal.
10 0 send to=1 tag=1 size=8
8  1 recv from=0 tag=1 size=8
# 1: send 1->0 at 20, received at 20.5: fine with l_min 0, 0.5 us short of l_min 1 us.
20 1 send to=0 tag=2 size=8
20.5 0 recv from=1 tag=2 size=16 anysrc
# 2: rank 2's clock runs backwards by 3 us.
30 2 marker tick
27 2 marker tick
# 3: unmatched send, unmatched receive, tag mismatch.
40 2 send to=0 tag=9 size=4
41 0 recv from=2 tag=8 size=4
42 1 send to=2 tag=5 size=4
43 0 recv from=1 tag=6 size=4
# 4: a test call and a wait flagged test.
50 2 enter MPI_Test
50 2 wait req=3 test
51 2 leave MPI_Test
52 2 wait req=4 test
53 2 enter MPI_Iprobe
54 2 leave MPI_Iprobe
`
	tr := parse(t, text)
	rep := check(t, tr, Options{Replay: ReplayOff})
	want := map[Kind]int{
		KindReversal: 1, KindBackwards: 1, KindUnmatchedSend: 1, KindUnmatchedRecv: 1,
		KindTagMismatch: 1, KindSizeMismatch: 1, KindWildcard: 1, KindNondeterministic: 3,
	}
	if got := counts(rep); !reflect.DeepEqual(got, want) {
		t.Fatalf("counts = %v, want %v", got, want)
	}
	if rep.Messages != 2 || rep.Violations() != 6 || rep.ClockViolations() != 2 {
		t.Errorf("messages %d violations %d clock %d, want 2 6 2", rep.Messages, rep.Violations(), rep.ClockViolations())
	}
	byKind := map[Kind]Finding{}
	for _, f := range rep.Findings() {
		if _, ok := byKind[f.Kind]; !ok {
			byKind[f.Kind] = f
		}
	}
	tests := []struct {
		kind   Kind
		events [2]tracefmt.EventRef
		amount float64
		detail string
	}{
		{KindReversal, [2]tracefmt.EventRef{ref(0, 0), ref(1, 0)}, 2e-6, ""},
		{KindBackwards, [2]tracefmt.EventRef{ref(2, 0), ref(2, 1)}, 3e-6, ""},
		{KindSizeMismatch, [2]tracefmt.EventRef{ref(1, 1), ref(0, 1)}, 8, "8 B sent, 16 B received"},
		{KindUnmatchedSend, [2]tracefmt.EventRef{ref(1, 2), NoEvent}, 0, "send to rank 2, tag 5"},
		{KindUnmatchedRecv, [2]tracefmt.EventRef{ref(0, 3), NoEvent}, 0, "receive from rank 1, tag 6"},
		{KindTagMismatch, [2]tracefmt.EventRef{ref(2, 2), ref(0, 2)}, 0, "sent with tag 9, received with tag 8"},
		{KindWildcard, [2]tracefmt.EventRef{ref(0, 1), NoEvent}, 0, "MPI_ANY_SOURCE matched rank 1"},
		{KindNondeterministic, [2]tracefmt.EventRef{ref(2, 3), NoEvent}, 0, "MPI_Test"},
	}
	for _, tt := range tests {
		f := byKind[tt.kind]
		if f.Events != tt.events {
			t.Errorf("%s: events %v, want %v", tt.kind, f.Events, tt.events)
		}
		if math.Abs(f.Amount-tt.amount) > 1e-12 {
			t.Errorf("%s: amount %g, want %g", tt.kind, f.Amount, tt.amount)
		}
		if d := rep.Detail(&f); !strings.Contains(d, tt.detail) {
			t.Errorf("%s: detail %q, want it to contain %q", tt.kind, d, tt.detail)
		}
	}
	if got := rep.Involving(ref(0, 1)); len(got) != 2 || got[0].Kind != KindSizeMismatch || got[1].Kind != KindWildcard {
		t.Errorf("Involving(0:1) = %v", got)
	}
	if got := rep.Involving(ref(1, 9)); got != nil {
		t.Errorf("Involving(1:9) = %v", got)
	}
	// With l_min = 1 us the second message is 0.5 us short.
	rep = check(t, tr, Options{LMin: 1e-6, Replay: ReplayOff})
	if rep.Counts[KindLatency] != 1 || rep.Counts[KindReversal] != 1 {
		t.Fatalf("l_min 1us: counts %v", counts(rep))
	}
	for _, f := range rep.Findings() {
		if f.Kind == KindLatency && (math.Abs(f.Amount-0.5e-6) > 1e-12 || f.Events != [2]tracefmt.EventRef{ref(1, 1), ref(0, 1)}) {
			t.Errorf("latency finding %+v", f)
		}
		if f.Kind == KindReversal && math.Abs(f.Amount-3e-6) > 1e-12 {
			t.Errorf("reversal with l_min: amount %g, want 3e-6", f.Amount)
		}
	}
}

// TestCheckCollectives checks the three shapes of collective edges.
func TestCheckCollectives(t *testing.T) {
	// Each rank enters at its own time; exits are given per case.
	head := "tsim 1\nranks 3\nunit us\n"
	call := func(op string, root int, exits [3]float64) string {
		var b strings.Builder
		b.WriteString(head)
		enters := [3]float64{10, 20, 30}
		for r := range 3 {
			name := map[string]string{"allreduce": "MPI_Allreduce", "bcast": "MPI_Bcast", "reduce": "MPI_Reduce"}[op]
			rootArg := ""
			if root >= 0 {
				rootArg = " root=" + string(rune('0'+root))
			}
			b.WriteString(fmtLine(enters[r], r, "enter "+name))
			b.WriteString(fmtLine(enters[r], r, "coll "+op+rootArg))
			b.WriteString(fmtLine(exits[r], r, "leave "+name))
		}
		return b.String()
	}
	tests := []struct {
		name   string
		text   string
		lmin   float64
		want   int
		sinks  []int32 // ranks whose exit is reported
		amount float64 // of the first finding
	}{
		{"allreduce ok", call("allreduce", -1, [3]float64{31, 31, 31}), 0, 0, nil, 0},
		{"allreduce early exits", call("allreduce", -1, [3]float64{25, 28, 31}), 0, 2, []int32{0, 1}, 5e-6},
		{"allreduce l_min", call("allreduce", -1, [3]float64{31, 31, 31}), 2e-6, 3, []int32{0, 1, 2}, 1e-6},
		{"bcast ok", call("bcast", 2, [3]float64{30, 30, 31}), 0, 0, nil, 0},
		{"bcast before root", call("bcast", 2, [3]float64{11, 30, 31}), 0, 1, []int32{0}, 19e-6},
		{"bcast root 0 fine", call("bcast", 0, [3]float64{11, 21, 31}), 0, 0, nil, 0},
		{"reduce root leaves early", call("reduce", 0, [3]float64{29, 21, 31}), 0, 1, []int32{0}, 1e-6},
		{"reduce non-root early is fine", call("reduce", 0, [3]float64{31, 21, 31}), 0, 0, nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep := check(t, parse(t, tt.text), Options{LMin: tt.lmin, Replay: ReplayOff})
			if got := rep.Counts[KindCollective]; got != tt.want {
				t.Fatalf("collective findings = %d, want %d (%v)", got, tt.want, rep.Findings())
			}
			if rep.Violations() != tt.want {
				t.Errorf("violations %d, want %d", rep.Violations(), tt.want)
			}
			for i, f := range rep.Findings() {
				if f.Events[1].Rank != tt.sinks[i] {
					t.Errorf("finding %d: exit on rank %d, want %d", i, f.Events[1].Rank, tt.sinks[i])
				}
			}
			if tt.want > 0 && math.Abs(rep.Findings()[0].Amount-tt.amount) > 1e-12 {
				t.Errorf("amount %g, want %g", rep.Findings()[0].Amount, tt.amount)
			}
		})
	}
}

func fmtLine(at float64, r int, rest string) string {
	return strings.Join([]string{ftoa(at), itoa(r), rest}, " ") + "\n"
}

func ftoa(x float64) string { b, _ := json.Marshal(x); return string(b) }
func itoa(x int) string     { b, _ := json.Marshal(x); return string(b) }

// TestCollectiveMismatch checks calls the members disagree on.
func TestCollectiveMismatch(t *testing.T) {
	tests := []struct {
		name, text, detail string
	}{
		{"other op", `tsim 1
ranks 2
10 0 coll barrier
10 1 coll allreduce
`, "rank 1 calls allreduce"},
		{"missing call", `tsim 1
ranks 2
10 0 coll barrier
11 0 coll barrier
10 1 coll barrier
`, "rank 1 makes 1 collective calls"},
		{"other root", `tsim 1
ranks 2
10 0 coll bcast root=0
10 1 coll bcast root=1
`, "root 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep := check(t, parse(t, tt.text), Options{Replay: ReplayOff})
			if rep.Counts[KindCollectiveMismatch] != 1 || len(rep.Findings()) != 1 {
				t.Fatalf("findings %v", rep.Findings())
			}
			if d := rep.Detail(&rep.Findings()[0]); !strings.Contains(d, tt.detail) {
				t.Errorf("detail %q, want %q", d, tt.detail)
			}
		})
	}
}

// headToHead is two ranks that each receive before sending: the
// messages match, but no run could have recorded this.
const headToHead = `tsim 1
ranks 2
unit us
0 0 enter MPI_Recv
1 0 recv from=1 tag=0 size=8
2 0 leave MPI_Recv
3 0 enter MPI_Send
3 0 send to=1 tag=0 size=8
4 0 leave MPI_Send
0 1 enter MPI_Recv
1 1 recv from=0 tag=0 size=8
2 1 leave MPI_Recv
3 1 enter MPI_Send
3 1 send to=0 tag=0 size=8
4 1 leave MPI_Send
`

func TestCheckDeadlock(t *testing.T) {
	tr := parse(t, headToHead)
	tests := []struct {
		name     string
		o        Options
		replayed bool
	}{
		{"on", Options{Replay: ReplayOn}, true},
		{"auto", Options{}, true},
		{"off", Options{Replay: ReplayOff}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep := check(t, tr, tt.o)
			if rep.Replayed != tt.replayed {
				t.Fatalf("replayed %v, want %v (%s)", rep.Replayed, tt.replayed, rep.ReplayError)
			}
			if !tt.replayed {
				if rep.Counts[KindDeadlock] != 0 {
					t.Errorf("deadlock without replay")
				}
				return
			}
			if rep.Counts[KindDeadlock] != 1 || rep.Deadlock == nil {
				t.Fatalf("counts %v, deadlock %v", counts(rep), rep.Deadlock)
			}
			var f Finding
			for _, x := range rep.Findings() {
				if x.Kind == KindDeadlock {
					f = x
				}
			}
			if !reflect.DeepEqual(rep.Deadlock.Cycle, []int{0, 1, 0}) || !reflect.DeepEqual(f.Ranks(), []int{0, 1}) {
				t.Errorf("cycle %v ranks %v", rep.Deadlock.Cycle, f.Ranks())
			}
			if f.Events != [2]tracefmt.EventRef{ref(0, 1), ref(1, 1)} {
				t.Errorf("events %v, want the two receives", f.Events)
			}
			if d := rep.Detail(&f); !strings.Contains(d, "cycle 0 → 1 → 0") {
				t.Errorf("detail %q", d)
			}
			// Both messages are also reversed: each receive is stamped
			// before its send.
			if rep.Counts[KindReversal] != 2 {
				t.Errorf("reversals %d, want 2", rep.Counts[KindReversal])
			}
		})
	}
	// A cancelled context stops the replay.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Check(ctx, tr, Options{Replay: ReplayOn}); err == nil {
		t.Error("cancelled check returned no error")
	}
	// A configuration the replay refuses is reported, not fatal.
	bad := replay.Default()
	bad.CPUSpeed = -1
	rep := check(t, tr, Options{Replay: ReplayOn, ReplayConfig: &bad})
	if rep.Replayed || rep.ReplayError == "" {
		t.Errorf("bad replay config: replayed %v error %q", rep.Replayed, rep.ReplayError)
	}
}

func TestCheckBadOptions(t *testing.T) {
	tr := parse(t, headToHead)
	for _, l := range []float64{-1, math.NaN(), math.Inf(1)} {
		if _, err := Check(context.Background(), tr, Options{LMin: l}); err == nil {
			t.Errorf("l_min %v accepted", l)
		}
	}
}

// TestGenClean: generated traces without skew respect latency, so
// nothing but their wildcard receives is reported, even with l_min below
// the model's latency.
func TestGenClean(t *testing.T) {
	for _, p := range gen.PatternNames() {
		t.Run(p, func(t *testing.T) {
			o := gen.Options{Pattern: p, Iters: 5, Compute: -1, Seed: 1}
			tr, err := gen.Generate(o)
			if err != nil {
				t.Fatal(err)
			}
			want, _ := gen.Expect(o)
			rep := check(t, tr, Options{LMin: 1e-6})
			if rep.Violations() != 0 {
				t.Fatalf("violations in a clean trace: %v", counts(rep))
			}
			if !rep.Replayed || rep.Deadlock != nil {
				t.Errorf("replay: %v %v %s", rep.Replayed, rep.Deadlock, rep.ReplayError)
			}
			if rep.Counts[KindWildcard] != want.WildcardRecvs || rep.Messages != want.Messages {
				t.Errorf("wildcards %d messages %d, want %d %d", rep.Counts[KindWildcard], rep.Messages, want.WildcardRecvs, want.Messages)
			}
		})
	}
}

// TestGenSkew: skewed generated traces have violations of the kinds
// their patterns make possible.
func TestGenSkew(t *testing.T) {
	tests := []struct {
		pattern   string
		reversals bool
		colls     bool
	}{
		{"ring", true, false},
		{"pingpong", true, false},
		{"stencil2d", true, true},
		{"alltoall", false, true},
		{"master-worker", true, false},
		{"bcast-tree", true, false},
		{"cg", true, true},
		{"random-pairs", true, false},
	}
	for _, tt := range tests {
		t.Run(tt.pattern, func(t *testing.T) {
			tr, err := gen.Generate(gen.Options{Pattern: tt.pattern, Iters: 20, Compute: -1, Seed: 2, Skew: 200e-6})
			if err != nil {
				t.Fatal(err)
			}
			rep := check(t, tr, Options{Replay: ReplayOff})
			if (rep.Counts[KindReversal] > 0) != tt.reversals || (rep.Counts[KindCollective] > 0) != tt.colls {
				t.Errorf("counts %v: want reversals %v, collectives %v", counts(rep), tt.reversals, tt.colls)
			}
			if rep.ClockViolations() == 0 {
				t.Error("no clock violations")
			}
			for _, f := range rep.Findings() {
				if f.Kind.Class() == ClassClock && !(f.Amount > 0) {
					t.Errorf("finding %+v: amount not positive", f)
				}
			}
		})
	}
}

func TestTop(t *testing.T) {
	rep := &Report{}
	for _, f := range []Finding{
		{Kind: KindWildcard},
		{Kind: KindReversal, Amount: 1},
		{Kind: KindUnmatchedSend},
		{Kind: KindCollective, Amount: 3},
		{Kind: KindReversal, Amount: 2},
	} {
		rep.ByKind[f.Kind] = append(rep.ByKind[f.Kind], f)
	}
	amounts := func(fs []Finding) []float64 {
		var out []float64
		for _, f := range fs {
			out = append(out, f.Amount)
		}
		return out
	}
	if got := amounts(rep.Top(2, nil)); !reflect.DeepEqual(got, []float64{3, 2}) {
		t.Errorf("Top(2) = %v", got)
	}
	all := rep.Top(0, nil)
	if len(all) != 5 || all[3].Kind != KindUnmatchedSend || all[4].Kind != KindWildcard {
		t.Errorf("Top(0) = %v", all)
	}
	notes := rep.Top(0, func(f *Finding) bool { return !f.Kind.Violation() })
	if len(notes) != 1 || notes[0].Kind != KindWildcard {
		t.Errorf("notes = %v", notes)
	}
}

func TestKindNamesAndJSON(t *testing.T) {
	for k := range NumKinds {
		got, ok := ParseKind(k.String())
		if !ok || got != k {
			t.Errorf("ParseKind(%q) = %v %v", k, got, ok)
		}
	}
	rep := check(t, parse(t, "tsim 1\nranks 3\n1 0 send to=2 tag=4 size=8\n0.5 2 recv from=0 tag=4 size=8\n"), Options{Replay: ReplayOff})
	f := rep.ByKind[KindReversal][0]
	b, err := json.Marshal(rep.JSON(&f))
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"kind":"reversal","class":"clock","ranks":[0,2],"events":[{"rank":0,"index":0,"time_s":1},{"rank":2,"index":0,"time_s":0.5}],"amount":0.5,"unit":"s","detail":"message 0 → 2, tag 4, 8 B"}`
	if string(b) != want {
		t.Errorf("JSON\n got %s\nwant %s", b, want)
	}
	var k Kind
	if err := k.UnmarshalText([]byte("deadlock")); err != nil || k != KindDeadlock {
		t.Errorf("UnmarshalText: %v %v", k, err)
	}
	if err := k.UnmarshalText([]byte("nope")); err == nil {
		t.Error("unknown kind accepted")
	}
}

// TestSubCommunicator: collectives on a communicator of some ranks, in
// another order than the world's, pair their members' calls and map the
// root by world rank.
func TestSubCommunicator(t *testing.T) {
	const text = `tsim 1
ranks 4
unit us
comm odd ranks=3,1
10 1 enter MPI_Bcast
10 1 coll bcast root=1 comm=odd
12 1 leave MPI_Bcast
5 3 enter MPI_Bcast
5 3 coll bcast root=1 comm=odd
8 3 leave MPI_Bcast
20 1 enter MPI_Barrier
20 1 coll barrier comm=odd
21 1 leave MPI_Barrier
30 3 enter MPI_Barrier
30 3 coll barrier comm=odd
31 3 leave MPI_Barrier
40 2 coll barrier comm=odd
`
	rep := check(t, parse(t, text), Options{Replay: ReplayOff})
	want := map[Kind]int{KindCollective: 2, KindCollectiveMismatch: 1}
	if got := counts(rep); !reflect.DeepEqual(got, want) {
		t.Fatalf("counts %v, want %v", got, want)
	}
	fs := rep.ByKind[KindCollective]
	// The bcast: rank 3 leaves at 8, before root 1 entered at 10.
	if fs[0].Events != [2]tracefmt.EventRef{ref(1, 1), ref(3, 2)} || math.Abs(fs[0].Amount-2e-6) > 1e-12 {
		t.Errorf("bcast finding %+v", fs[0])
	}
	// The barrier: rank 1 leaves at 21, before rank 3 entered at 30.
	if fs[1].Events != [2]tracefmt.EventRef{ref(3, 4), ref(1, 5)} || math.Abs(fs[1].Amount-9e-6) > 1e-12 {
		t.Errorf("barrier finding %+v", fs[1])
	}
	if d := rep.Detail(&rep.ByKind[KindCollectiveMismatch][0]); !strings.Contains(d, "not a member") {
		t.Errorf("mismatch detail %q", d)
	}
	c := correct(t, parse(t, text), CorrectOptions{})
	if c.ViolationsAfter() != 0 {
		t.Errorf("violations after correction: %v", c.After)
	}
}
