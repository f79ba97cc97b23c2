package routing

import (
	"fmt"
	"strings"

	"github.com/tracesim/tracesim/engine/topology"
)

// Channel is a virtual channel of a link: the resource a packet holds in a
// buffer and waits for.
type Channel struct {
	Link topology.LinkID
	VC   int
}

// Hop is one step of a route: leaving Router through Port on VC over Link.
type Hop struct {
	Router, Port, VC int
	Link             topology.LinkID
	Flags            Flags
}

// MaxCDGNodes bounds the instances DependencyGraph accepts (nodes of the
// topology); the exploration is exhaustive over source–destination pairs.
const MaxCDGNodes = 512

// CDG is a channel dependency graph (Dally and Seitz): an edge from
// channel a to channel b means a packet holding a may request b next.
// Routing is deadlock-free if the graph is acyclic.
type CDG struct {
	Channels []Channel
	Succ     [][]int32 // Succ[i]: channels that channel i depends on
	index    map[Channel]int32
}

// NumEdges is the number of dependencies.
func (g *CDG) NumEdges() int {
	n := 0
	for _, s := range g.Succ {
		n += len(s)
	}
	return n
}

func (g *CDG) node(c Channel) int32 {
	if i, ok := g.index[c]; ok {
		return i
	}
	i := int32(len(g.Channels))
	g.index[c] = i
	g.Channels = append(g.Channels, c)
	g.Succ = append(g.Succ, nil)
	return i
}

func (g *CDG) edge(a, b int32) {
	for _, s := range g.Succ[a] {
		if s == b {
			return
		}
	}
	g.Succ[a] = append(g.Succ[a], b)
}

// variantser lets an algorithm enumerate every initial State its random
// choices can produce (Valiant intermediates, UGAL decisions), so that the
// dependency graph covers all of them.
type variantser interface {
	variants(src, dst int, fn func(State))
}

func (a *gridAlg) variants(src, dst int, fn func(State)) {
	var st State
	a.Init(&st, src, dst)
	if a.mode != modeValiant || st.Inter < 0 {
		fn(st)
		return
	}
	for i := 0; i < a.routers; i++ {
		st.Inter, st.Phase = int32(i), 0
		fn(st)
	}
}

func (al *dflyAlg) variants(src, dst int, fn func(State)) {
	var st State
	al.initState(&st, src, dst)
	if al.mode == dflyMinimal || src/al.p == int(st.DstRouter) {
		fn(st)
		return
	}
	st.Flags = stateDecided
	if al.mode == dflyUGAL {
		fn(st) // decided: minimal
	}
	gs, gd := src/al.p/al.a, int(st.DstRouter)/al.a
	for g := 0; g < al.groups; g++ {
		if g != gs && g != gd {
			st.Inter = int32(g)
			fn(st)
		}
	}
}

// inLink is the channel that arrives at router r on port p.
func inLink(t topology.Topology, r, p int) topology.LinkID {
	peer := t.Peer(r, p)
	switch peer.Kind {
	case topology.PeerNode:
		return t.InjectLink(peer.ID)
	case topology.PeerRouter:
		return t.OutLink(peer.ID, peer.Port)
	}
	return topology.NoLink
}

// DependencyGraph explores every route alg can produce between every pair
// of distinct nodes (every candidate of every Route call, every Valiant
// intermediate) and records the channel dependencies. It is meant for
// small instances (at most MaxCDGNodes nodes).
func DependencyGraph(alg Algorithm) (*CDG, error) {
	t := alg.Topology()
	if t.NumNodes() > MaxCDGNodes {
		return nil, fmt.Errorf("routing: dependency graph of %s: %d nodes, at most %d supported", t.Spec(), t.NumNodes(), MaxCDGNodes)
	}
	g := &CDG{index: map[Channel]int32{}}
	type config struct {
		r, port, vc int32
		st          State
	}
	buf := make([]Choice, 0, alg.MaxChoices())
	limit := 4*t.NumRouters() + 16
	var stack []config
	seen := map[config]bool{}
	var exploreErr error
	explore := func(src, dst int, st0 State) {
		clear(seen)
		r, p := t.Attach(src)
		stack = append(stack[:0], config{int32(r), int32(p), 0, st0})
		for len(stack) > 0 && exploreErr == nil {
			c := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if seen[c] {
				continue
			}
			seen[c] = true
			if len(seen) > limit*alg.VCs()*64 {
				exploreErr = fmt.Errorf("routing %s on %s: route from %d to %d does not converge", alg.Name(), t.Spec(), src, dst)
				return
			}
			from := g.node(Channel{inLink(t, int(c.r), int(c.port)), int(c.vc)})
			st := c.st
			buf = alg.Route(int(c.r), int(c.port), int(c.vc), &st, buf[:0])
			if len(buf) == 0 {
				exploreErr = fmt.Errorf("routing %s on %s: no choice at router %d for a packet from %d to %d", alg.Name(), t.Spec(), c.r, src, dst)
				return
			}
			for _, ch := range buf {
				link := t.OutLink(int(c.r), int(ch.Port))
				if link == topology.NoLink {
					exploreErr = fmt.Errorf("routing %s on %s: router %d chose unconnected port %d", alg.Name(), t.Spec(), c.r, ch.Port)
					return
				}
				g.edge(from, g.node(Channel{link, int(ch.VC)}))
				if ch.Flags.Has(Eject) {
					continue
				}
				peer := t.Peer(int(c.r), int(ch.Port))
				stack = append(stack, config{int32(peer.ID), int32(peer.Port), int32(ch.VC), st})
			}
		}
	}
	v, hasVariants := alg.(variantser)
	for src := 0; src < t.NumNodes(); src++ {
		for dst := 0; dst < t.NumNodes(); dst++ {
			if src == dst {
				continue
			}
			if hasVariants {
				v.variants(src, dst, func(st State) { explore(src, dst, st) })
			} else {
				var st State
				alg.Init(&st, src, dst)
				explore(src, dst, st)
			}
			if exploreErr != nil {
				return nil, exploreErr
			}
		}
	}
	return g, nil
}

// Cycle returns a cycle of channel dependencies (first channel repeated at
// the end is omitted), or nil if the graph is acyclic.
func (g *CDG) Cycle() []Channel {
	const (
		white = iota
		grey
		black
	)
	color := make([]uint8, len(g.Channels))
	parent := make([]int32, len(g.Channels))
	type frame struct {
		v    int32
		next int
	}
	for s := range g.Channels {
		if color[s] != white {
			continue
		}
		stack := []frame{{int32(s), 0}}
		color[s] = grey
		parent[s] = -1
		for len(stack) > 0 {
			f := &stack[len(stack)-1]
			if f.next == len(g.Succ[f.v]) {
				color[f.v] = black
				stack = stack[:len(stack)-1]
				continue
			}
			w := g.Succ[f.v][f.next]
			f.next++
			switch color[w] {
			case white:
				color[w], parent[w] = grey, f.v
				stack = append(stack, frame{w, 0})
			case grey:
				// Back edge f.v → w: the cycle is w … f.v.
				var cyc []Channel
				for x := f.v; x != w; x = parent[x] {
					cyc = append(cyc, g.Channels[x])
				}
				cyc = append(cyc, g.Channels[w])
				for i, j := 0, len(cyc)-1; i < j; i, j = i+1, j-1 {
					cyc[i], cyc[j] = cyc[j], cyc[i]
				}
				return cyc
			}
		}
	}
	return nil
}

// FormatCycle renders a cycle as "r3.p0/vc0 → r4.p0/vc0 → …" using the
// topology's link ends.
func FormatCycle(t topology.Topology, cyc []Channel) string {
	parts := make([]string, len(cyc))
	for i, c := range cyc {
		parts[i] = fmt.Sprintf("%v/vc%d", t.Link(c.Link).From, c.VC)
	}
	return strings.Join(parts, " → ")
}

// Path follows the first choice of alg at every router from node src to
// node dst and returns the hops (the last one ejects into dst; the
// injection link is not included). It is what a packet takes in an empty
// network; analytic models can sum link latencies along it.
func Path(alg Algorithm, src, dst int) ([]Hop, error) {
	t := alg.Topology()
	if src < 0 || dst < 0 || src >= t.NumNodes() || dst >= t.NumNodes() {
		return nil, fmt.Errorf("routing: path from %d to %d: nodes are 0 to %d", src, dst, t.NumNodes()-1)
	}
	if src == dst {
		return nil, nil
	}
	var st State
	alg.Init(&st, src, dst)
	return walk(alg, st, src, dst)
}

// walk follows the first choices from an initialised State.
func walk(alg Algorithm, st State, src, dst int) ([]Hop, error) {
	t := alg.Topology()
	if src == dst {
		return nil, nil
	}
	r, port := t.Attach(src)
	vc := 0
	buf := make([]Choice, 0, alg.MaxChoices())
	var hops []Hop
	for limit := 4*t.NumRouters() + 16; limit > 0; limit-- {
		buf = alg.Route(r, port, vc, &st, buf[:0])
		if len(buf) == 0 {
			return hops, fmt.Errorf("routing %s: no choice at router %d for %d → %d", alg.Name(), r, src, dst)
		}
		c := buf[0]
		h := Hop{Router: r, Port: int(c.Port), VC: int(c.VC), Link: t.OutLink(r, int(c.Port)), Flags: c.Flags}
		hops = append(hops, h)
		if c.Flags.Has(Eject) {
			if peer := t.Peer(r, int(c.Port)); peer.Kind != topology.PeerNode || peer.ID != dst {
				return hops, fmt.Errorf("routing %s: ejected at router %d port %d to %v, not node %d", alg.Name(), r, c.Port, peer, dst)
			}
			return hops, nil
		}
		peer := t.Peer(r, int(c.Port))
		if peer.Kind != topology.PeerRouter {
			return hops, fmt.Errorf("routing %s: router %d port %d leads to %v", alg.Name(), r, c.Port, peer)
		}
		r, port, vc = peer.ID, peer.Port, int(c.VC)
	}
	return hops, fmt.Errorf("routing %s: route from %d to %d does not reach its destination", alg.Name(), src, dst)
}
