package causality

import (
	"context"
	"fmt"
	"math"

	"github.com/tracesim/tracesim/tracefmt"
)

// offsetResult is the solution of the difference-constraint system.
type offsetResult struct {
	// theta holds the per-rank offsets in trace units; nil when none
	// exist.
	theta []float64
	// cycle lists the ranks of a negative cycle, the first repeated at
	// the end, when no constant offsets exist.
	cycle []int
}

// offsets finds constant per-rank clock offsets θ that make every
// message and collective edge of t satisfy the clock condition:
// t(recv) + θ_q ≥ t(send) + θ_p + l_min, i.e. θ_p − θ_q ≤ t(recv) −
// t(send) − l_min, a system of difference constraints that Bellman–Ford
// solves, or proves infeasible with a negative cycle. Each collective
// becomes one extra node v (the corrected time of its latest source), so
// that an N×N call costs 2N constraints, not N².
//
// The constraints are tightened by a few units in the last place of the
// trace's largest time, so that the corrected times satisfy them after
// rounding; when that makes the system infeasible the exact system is
// tried.
func (g *Graph) offsets(ctx context.Context, lmin float64) (offsetResult, error) {
	t := g.t
	P := t.Size()
	// Message constraints, the tightest per ordered pair of ranks.
	type pair struct{ q, p int32 }
	tight := map[pair]float64{}
	maxAbs := 0.0
	for r := range t.Ranks {
		ev := t.Ranks[r].Events
		for i := range ev {
			e := &ev[i]
			maxAbs = max(maxAbs, math.Abs(e.Time))
			if e.Kind != tracefmt.KindSend || e.Match < 0 {
				continue
			}
			w := t.Ranks[e.Peer].Events[e.Match].Time - t.PhysicalSend(tracefmt.EventRef{Rank: int32(r), Index: int32(i)}) - lmin
			k := pair{e.Peer, int32(r)}
			if old, ok := tight[k]; !ok || w < old {
				tight[k] = w
			}
		}
		if err := ctx.Err(); err != nil {
			return offsetResult{}, err
		}
	}
	var from, to []int32
	var weight []float64
	add := func(a, b int32, w float64) { from, to, weight = append(from, a), append(to, b), append(weight, w) }
	for k, w := range tight {
		if k.q == k.p {
			continue // a message to itself: offsets cannot help
		}
		add(k.q, k.p, w) // θ_p ≤ θ_q + w
	}
	n := int32(P)
	for id := range g.colls {
		in := &g.colls[id]
		if len(in.sinks) == 0 {
			continue
		}
		v := n
		n++
		for _, s := range in.sources {
			add(v, s.Rank, -t.Event(s).Time) // θ_k + E_k ≤ v
		}
		for _, x := range in.sinks {
			add(x.Rank, v, t.Event(x).Time-lmin) // v + l_min ≤ X_j + θ_j
		}
	}
	eps := 8 * (math.Nextafter(maxAbs+math.Abs(lmin), math.Inf(1)) - (maxAbs + math.Abs(lmin)))
	res, err := bellmanFord(ctx, int(n), P, from, to, weight, eps)
	if err != nil || res.theta != nil {
		return res, err
	}
	exact, err := bellmanFord(ctx, int(n), P, from, to, weight, 0)
	if err != nil || exact.theta != nil {
		return exact, err
	}
	return res, nil
}

// bellmanFord solves dist[to] ≤ dist[from] + weight − eps for nodes
// 0..n−1, of which the first P are ranks (the others start unbounded, as
// free variables). It returns the ranks' values, or a negative cycle.
func bellmanFord(ctx context.Context, n, P int, from, to []int32, weight []float64, eps float64) (offsetResult, error) {
	dist := make([]float64, n)
	pred := make([]int32, n)
	for i := range dist {
		pred[i] = -1
		if i >= P {
			dist[i] = math.Inf(1)
		}
	}
	// A cycle in the predecessor graph is a negative cycle: looking for
	// one after every round stops an infeasible system after a few
	// rounds instead of n, which would make the work quadratic in the
	// number of collectives.
	stamp := make([]int32, n)
	x := int32(-1)
	for iter := 0; iter <= n && x < 0; iter++ {
		if err := ctx.Err(); err != nil {
			return offsetResult{}, err
		}
		changed := false
		for k := range from {
			a, b := from[k], to[k]
			if d := dist[a] + weight[k] - eps; d < dist[b] {
				dist[b] = d
				pred[b] = a
				changed = true
			}
		}
		if !changed {
			return offsetResult{theta: dist[:P:P]}, nil
		}
		x = predCycle(pred, stamp, int32(iter+1))
	}
	if x < 0 {
		return offsetResult{}, fmt.Errorf("causality: offsets did not converge") // unreachable: n rounds leave a cycle
	}
	var nodes []int32
	for y := x; y >= 0; y = pred[y] {
		nodes = append(nodes, y)
		if len(nodes) > 1 && y == x {
			break
		}
	}
	// Predecessors run against the constraints' direction; reverse, keep
	// the ranks (collective nodes are not ranks) and close the cycle.
	var cycle []int
	for i := len(nodes) - 1; i >= 0; i-- {
		if y := int(nodes[i]); y < P && (len(cycle) == 0 || cycle[len(cycle)-1] != y) {
			cycle = append(cycle, y)
		}
	}
	if len(cycle) > 1 && cycle[0] == cycle[len(cycle)-1] {
		cycle = cycle[:len(cycle)-1]
	}
	if len(cycle) > 0 {
		cycle = append(cycle, cycle[0])
	}
	return offsetResult{cycle: cycle}, nil
}

// predCycle returns a node on a cycle of the predecessor graph, or −1.
// stamp is scratch space of the graph's size; round must differ from
// the values it holds (the round number does).
func predCycle(pred, stamp []int32, round int32) int32 {
	for v := range pred {
		if stamp[v] == round || stamp[v] == -round {
			continue
		}
		// Walk back from v, marking the path with −round; meeting the
		// path again closes a cycle.
		u := int32(v)
		for u >= 0 && stamp[u] != round && stamp[u] != -round {
			stamp[u] = -round
			u = pred[u]
		}
		found := u >= 0 && stamp[u] == -round
		for w := int32(v); w >= 0 && stamp[w] == -round; w = pred[w] {
			stamp[w] = round
		}
		if found {
			return u
		}
	}
	return -1
}
