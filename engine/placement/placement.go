// Package placement maps MPI ranks to the nodes of a simulated machine:
// which node each rank runs on (several ranks may share a node and its
// CPU). It also carries the rank-space traffic matrix into node space.
//
// Strategies (spec strings for Parse): "linear" (rank i on node i),
// "block:K" (K consecutive ranks per node), "roundrobin" (rank i on node
// i mod nodes), "random:seed=S,per=K" (a seeded random choice of
// distinct slots, both parameters optional; without seed= the
// simulation's seed, Options.Seed), "map:P1,P2,…" (PUPPET's wrap map: rank j on node
// P[j mod n]) and "file:PATH" (an explicit map file, format in
// docs/topology.md).
package placement

import (
	"fmt"
	"math/bits"
	"math/rand/v2"
	"strconv"
	"strings"
)

// Placement assigns every rank a node. It is immutable and safe for
// concurrent use.
type Placement struct {
	spec  string
	nodes int
	node  []int32 // rank → node
}

// Spec is the canonical spec string the placement was made from.
func (p *Placement) Spec() string { return p.spec }

// Ranks is the number of ranks placed.
func (p *Placement) Ranks() int { return len(p.node) }

// Nodes is the number of nodes of the machine.
func (p *Placement) Nodes() int { return p.nodes }

// Node is the node rank runs on.
func (p *Placement) Node(rank int) int { return int(p.node[rank]) }

// NodeOf returns a copy of the rank → node table.
func (p *Placement) NodeOf() []int {
	out := make([]int, len(p.node))
	for i, n := range p.node {
		out[i] = int(n)
	}
	return out
}

// Load returns the number of ranks on every node.
func (p *Placement) Load() []int {
	out := make([]int, p.nodes)
	for _, n := range p.node {
		out[n]++
	}
	return out
}

// RanksOn lists the ranks on every node, in rank order.
func (p *Placement) RanksOn() [][]int {
	out := make([][]int, p.nodes)
	for r, n := range p.node {
		out[n] = append(out[n], r)
	}
	return out
}

// MaxPerNode is the largest number of ranks sharing a node.
func (p *Placement) MaxPerNode() int {
	m := 0
	for _, l := range p.Load() {
		m = max(m, l)
	}
	return m
}

// String renders the mapping as "0→0 1→1 …" (at most 16 ranks, then "…").
func (p *Placement) String() string {
	var b strings.Builder
	b.WriteString(p.spec)
	b.WriteString(":")
	for r, n := range p.node {
		if r == 16 {
			b.WriteString(" …")
			break
		}
		fmt.Fprintf(&b, " %d→%d", r, n)
	}
	return b.String()
}

func check(ranks, nodes int) error {
	if ranks < 1 {
		return fmt.Errorf("placement: %d ranks (expected at least 1)", ranks)
	}
	if nodes < 1 {
		return fmt.Errorf("placement: %d nodes (expected at least 1)", nodes)
	}
	if ranks > 1<<26 || nodes > 1<<26 {
		return fmt.Errorf("placement: %d ranks on %d nodes is too large", ranks, nodes)
	}
	return nil
}

func build(spec string, ranks, nodes int, f func(rank int) int) *Placement {
	p := &Placement{spec: spec, nodes: nodes, node: make([]int32, ranks)}
	for r := range p.node {
		p.node[r] = int32(f(r))
	}
	return p
}

// Linear puts rank i on node i; it needs ranks ≤ nodes.
func Linear(ranks, nodes int) (*Placement, error) {
	if err := check(ranks, nodes); err != nil {
		return nil, err
	}
	if ranks > nodes {
		return nil, fmt.Errorf("placement linear: %d ranks do not fit on %d nodes one per node (use block:%d, roundrobin or random)", ranks, nodes, ceilDiv(ranks, nodes))
	}
	return build("linear", ranks, nodes, func(r int) int { return r }), nil
}

// Block puts k consecutive ranks on each node: rank i on node i / k; k ≤ 0
// chooses the smallest k that fits, ⌈ranks / nodes⌉.
func Block(ranks, nodes, k int) (*Placement, error) {
	if err := check(ranks, nodes); err != nil {
		return nil, err
	}
	spec := "block:" + strconv.Itoa(k)
	if k <= 0 {
		k = ceilDiv(ranks, nodes)
		spec = "block"
	}
	if need := ceilDiv(ranks, k); need > nodes {
		return nil, fmt.Errorf("placement block:%d: %d ranks need %d nodes, the machine has %d (use block:%d)", k, ranks, need, nodes, ceilDiv(ranks, nodes))
	}
	return build(spec, ranks, nodes, func(r int) int { return r / k }), nil
}

// RoundRobin puts rank i on node i mod nodes.
func RoundRobin(ranks, nodes int) (*Placement, error) {
	if err := check(ranks, nodes); err != nil {
		return nil, err
	}
	return build("roundrobin", ranks, nodes, func(r int) int { return r % nodes }), nil
}

// Map is PUPPET's wrap map "map P1 … Pn": rank j on node procs[j mod n].
func Map(ranks, nodes int, procs []int) (*Placement, error) {
	if err := check(ranks, nodes); err != nil {
		return nil, err
	}
	if len(procs) == 0 {
		return nil, fmt.Errorf("placement map: expected at least one node")
	}
	parts := make([]string, len(procs))
	for i, n := range procs {
		if n < 0 || n >= nodes {
			return nil, fmt.Errorf("placement map: entry %d is node %d, the machine has nodes 0 to %d", i+1, n, nodes-1)
		}
		parts[i] = strconv.Itoa(n)
	}
	return build("map:"+strings.Join(parts, ","), ranks, nodes, func(r int) int { return procs[r%len(procs)] }), nil
}

// Random places the ranks on distinct random slots, perNode slots per node
// (perNode ≤ 0: the smallest that fits, ⌈ranks / nodes⌉). The choice
// depends only on seed: slots are numbered node·perNode+j and shuffled by
// a partial Fisher–Yates pass driven by math/rand/v2's PCG seeded with
// (seed, 0x7ac0), with Lemire's bounded integers, so the same seed gives
// the same placement on every platform and Go version.
func Random(ranks, nodes int, seed uint64, perNode int) (*Placement, error) {
	if err := check(ranks, nodes); err != nil {
		return nil, err
	}
	spec := "random:seed=" + strconv.FormatUint(seed, 10)
	if perNode <= 0 {
		perNode = ceilDiv(ranks, nodes)
	} else {
		spec += ",per=" + strconv.Itoa(perNode)
	}
	slots := nodes * perNode
	if ranks > slots {
		return nil, fmt.Errorf("placement %s: %d ranks do not fit in %d nodes × %d per node", spec, ranks, nodes, perNode)
	}
	if slots > 1<<26 {
		return nil, fmt.Errorf("placement %s: %d slots is too large", spec, slots)
	}
	pcg := rand.NewPCG(seed, 0x7ac0)
	perm := make([]int32, slots)
	for i := range perm {
		perm[i] = int32(i)
	}
	for i := 0; i < ranks; i++ {
		j := i + bounded(pcg, slots-i)
		perm[i], perm[j] = perm[j], perm[i]
	}
	return build(spec, ranks, nodes, func(r int) int { return int(perm[r]) / perNode }), nil
}

// bounded returns a uniform integer in [0, n) (Lemire's method).
func bounded(pcg *rand.PCG, n int) int {
	un := uint64(n)
	hi, lo := bits.Mul64(pcg.Uint64(), un)
	if lo < un {
		thresh := -un % un
		for lo < thresh {
			hi, lo = bits.Mul64(pcg.Uint64(), un)
		}
	}
	return int(hi)
}

// Explicit places rank i on nodeOf[i].
func Explicit(spec string, nodes int, nodeOf []int) (*Placement, error) {
	if err := check(len(nodeOf), nodes); err != nil {
		return nil, err
	}
	for r, n := range nodeOf {
		if n < 0 || n >= nodes {
			return nil, fmt.Errorf("placement: rank %d on node %d, the machine has nodes 0 to %d", r, n, nodes-1)
		}
	}
	return build(spec, len(nodeOf), nodes, func(r int) int { return nodeOf[r] }), nil
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }

// NodeMatrix carries a rank-space traffic matrix (m[i][j]: what rank i
// sent to rank j) into node space: entry [a][b] sums the traffic from
// ranks on node a to ranks on node b. Traffic between ranks of one node
// lands on the diagonal.
func (p *Placement) NodeMatrix(m [][]int64) ([][]int64, error) {
	if len(m) != len(p.node) {
		return nil, fmt.Errorf("placement: traffic matrix has %d rows for %d ranks", len(m), len(p.node))
	}
	out := make([][]int64, p.nodes)
	cells := make([]int64, p.nodes*p.nodes)
	for a := range out {
		out[a] = cells[a*p.nodes : (a+1)*p.nodes : (a+1)*p.nodes]
	}
	for i, row := range m {
		if len(row) != len(p.node) {
			return nil, fmt.Errorf("placement: traffic matrix row %d has %d columns for %d ranks", i, len(row), len(p.node))
		}
		dst := out[p.node[i]]
		for j, v := range row {
			dst[p.node[j]] += v
		}
	}
	return out, nil
}
