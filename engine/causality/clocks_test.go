package causality

import (
	"context"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/tracesim/tracesim/tracefmt"
)

// ring is a token going round 3 ranks, then an allreduce.
const ring = `tsim 1
ranks 3
unit us
0 0 send to=1
5 0 recv from=2
6 0 enter MPI_Allreduce
6 0 coll allreduce
9 0 leave MPI_Allreduce
1 1 recv from=0
2 1 send to=2
3 1 enter MPI_Allreduce
3 1 coll allreduce
9 1 leave MPI_Allreduce
3 2 recv from=1
4 2 send to=0
4 2 enter MPI_Allreduce
4 2 coll allreduce
9 2 leave MPI_Allreduce
`

func TestLamport(t *testing.T) {
	g := NewGraph(parse(t, ring))
	l, err := g.Lamport(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := [][]uint64{
		// The token: 0's send 1, 1's receive 2 and send 3, 2's
		// receive 4 and send 5, 0's receive 6. The collective events
		// have clocks 8, 5 and 7; every leave is max(prev, 8) + 1.
		{1, 6, 7, 8, 9},
		{2, 3, 4, 5, 9},
		{4, 5, 6, 7, 9},
	}
	if !reflect.DeepEqual(l.Clock, want) {
		t.Errorf("Lamport clocks\n got %v\nwant %v", l.Clock, want)
	}
	if len(l.Broken) != 0 || l.Of(ref(2, 1)) != 5 {
		t.Errorf("broken %v, Of = %d", l.Broken, l.Of(ref(2, 1)))
	}
	if g.Collectives() != 1 || g.Trace() == nil {
		t.Errorf("collectives %d", g.Collectives())
	}
	// A causal cycle is broken once and reported.
	l, err = NewGraph(parse(t, headToHead)).Lamport(context.Background())
	if err != nil || len(l.Broken) != 1 {
		t.Fatalf("head to head: %v, broken %v", err, l.Broken)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	big := randomTrace(rand.New(rand.NewPCG(1, 1)))
	for len(big.Ranks[0].Events) < 1<<17 {
		big.Ranks[0].Events = append(big.Ranks[0].Events, tracefmt.Mark(0, 0))
	}
	big.Markers = append(big.Markers, tracefmt.MarkerDef{Name: "m"})
	if _, err := NewGraph(big).Lamport(ctx); err == nil {
		t.Error("cancelled Lamport returned no error")
	}
}

func TestConeRing(t *testing.T) {
	g := NewGraph(parse(t, ring))
	tests := []struct {
		event        tracefmt.EventRef
		past, future []int32
	}{
		// Rank 1's receive: after rank 0's send, before everything from
		// rank 1's send on, the allreduce exits included.
		{ref(1, 0), []int32{0, 0, -1}, []int32{1, 0, 0}},
		// Rank 0's collective enter: every exit follows it; its past
		// is the whole token ring.
		{ref(0, 3), []int32{3, 0 + 1, 1}, []int32{3, 4, 4}},
		// Rank 2's exit: after every enter.
		{ref(2, 4), []int32{3, 3, 4}, []int32{-1, -1, 4}},
	}
	for _, tt := range tests {
		c, err := g.Cone(tt.event)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(c.Past, tt.past) || !reflect.DeepEqual(c.Future, tt.future) {
			t.Errorf("cone of %v: past %v future %v, want %v %v", tt.event, c.Past, c.Future, tt.past, tt.future)
		}
	}
	c, _ := g.Cone(ref(1, 0))
	rels := map[tracefmt.EventRef]Relation{
		ref(1, 0): Same, ref(0, 0): Before, ref(0, 1): After, ref(2, 0): After, ref(0, 4): After,
	}
	for e, want := range rels {
		if got := c.Relation(e); got != want {
			t.Errorf("relation of %v: %v, want %v", e, got, want)
		}
	}
	if got := c.VectorClock(); !reflect.DeepEqual(got, []int64{1, 1, 0}) {
		t.Errorf("vector clock %v", got)
	}
	// Concurrent: rank 0's receive and rank 1's... none; use a fresh
	// pair of independent ranks.
	two := NewGraph(parse(t, "tsim 1\nranks 2\n1 0 marker a\n2 1 marker b\n"))
	c2, _ := two.Cone(ref(0, 0))
	if c2.Relation(ref(1, 0)) != Concurrent || Concurrent.String() != "concurrent" {
		t.Error("independent events are not concurrent")
	}
	for _, bad := range []tracefmt.EventRef{ref(-1, 0), ref(3, 0), ref(0, 9), ref(0, -1)} {
		if _, err := g.Cone(bad); err == nil {
			t.Errorf("cone of %v: no error", bad)
		}
	}
}

// vectorClocks computes every event's vector clock by brute force:
// sweeps until nothing changes, independent of the graph's walk.
func vectorClocks(g *Graph) [][][]int64 {
	t := g.t
	P := t.Size()
	v := make([][][]int64, P)
	for r := range P {
		v[r] = make([][]int64, len(t.Ranks[r].Events))
		for i := range v[r] {
			v[r][i] = make([]int64, P)
		}
	}
	sinkSources := map[tracefmt.EventRef][]tracefmt.EventRef{}
	for _, in := range g.colls {
		for _, x := range in.sinks {
			sinkSources[x] = in.sources
		}
	}
	for changed := true; changed; {
		changed = false
		for r := range P {
			ev := t.Ranks[r].Events
			for i := range ev {
				next := make([]int64, P)
				if i > 0 {
					copy(next, v[r][i-1])
				}
				join := func(w []int64) {
					for q := range w {
						next[q] = max(next[q], w[q])
					}
				}
				if e := &ev[i]; e.Kind == tracefmt.KindRecv && e.Match >= 0 {
					join(v[e.Peer][e.Match])
				}
				for _, s := range sinkSources[ref(int32(r), int32(i))] {
					join(v[s.Rank][s.Index])
				}
				next[r] = int64(i) + 1
				if !reflect.DeepEqual(next, v[r][i]) {
					v[r][i] = next
					changed = true
				}
			}
		}
	}
	return v
}

// TestConeRandom compares Cone with brute-force vector clocks on random
// traces, and Lamport with the clock condition it must satisfy.
func TestConeRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	for range 20 {
		tr := randomTrace(rng)
		g := NewGraph(tr)
		v := vectorClocks(g)
		l, err := g.Lamport(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		P := tr.Size()
		for k := 0; k < 10; k++ {
			r := rng.IntN(P)
			if len(tr.Ranks[r].Events) == 0 {
				continue
			}
			e := ref(int32(r), int32(rng.IntN(len(tr.Ranks[r].Events))))
			c, err := g.Cone(e)
			if err != nil {
				t.Fatal(err)
			}
			ve := v[e.Rank][e.Index]
			if got := c.VectorClock(); !reflect.DeepEqual(got, ve) {
				t.Fatalf("vector clock of %v: %v, want %v", e, got, ve)
			}
			for q := range P {
				want := int32(-1)
				for i := range v[q] {
					if v[q][i][e.Rank] > int64(e.Index) {
						want = int32(i)
						break
					}
				}
				if c.Future[q] != want {
					t.Fatalf("future of %v on rank %d: %d, want %d", e, q, c.Future[q], want)
				}
				// Lamport clocks respect happens-before.
				if c.Past[q] >= 0 && (q != r || c.Past[q] != e.Index) && l.Of(ref(int32(q), c.Past[q])) >= l.Of(e) {
					t.Fatalf("Lamport: %v before %v but L %d ≥ %d", ref(int32(q), c.Past[q]), e, l.Of(ref(int32(q), c.Past[q])), l.Of(e))
				}
			}
		}
	}
}

// TestEmptyRank: a rank without events neither blocks a walk nor a
// correction.
func TestEmptyRank(t *testing.T) {
	tr := parse(t, "tsim 1\nranks 3\nunit us\n5 0 send to=1\n2 1 recv from=0\n")
	g := NewGraph(tr)
	l, err := g.Lamport(context.Background())
	if err != nil || !reflect.DeepEqual(l.Clock, [][]uint64{{1}, {2}, {}}) {
		t.Fatalf("Lamport %v %v", l, err)
	}
	c, err := g.Correct(context.Background(), CorrectOptions{Method: MethodCLC})
	if err != nil || c.ViolationsAfter() != 0 || c.Trace.Ranks[1].Events[0].Time != 5 {
		t.Fatalf("correct: %v %+v", err, c)
	}
	cone, err := g.Cone(ref(0, 0))
	if err != nil || !reflect.DeepEqual(cone.Future, []int32{0, 0, -1}) || !reflect.DeepEqual(cone.Past, []int32{0, -1, -1}) {
		t.Fatalf("cone %+v %v", cone, err)
	}
}
