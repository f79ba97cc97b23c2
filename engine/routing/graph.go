package routing

import (
	"github.com/tracesim/tracesim/engine/topology"
)

// starAlg routes on a crossbar or a bus: straight to the destination.
type starAlg struct{ base }

func newStarAlg(name string, t *topology.Star, opt Options) *starAlg {
	a := &starAlg{base: newBase(name, t, opt, 1)}
	a.max = 1
	return a
}

// Init fills st.
func (a *starAlg) Init(st *State, src, dst int) { a.initState(st, src, dst) }

// Route returns the destination's port.
func (a *starAlg) Route(r, inPort, inVC int, st *State, out []Choice) []Choice {
	return append(out, Choice{Port: st.Dst, Flags: Eject})
}

// graphAlg routes on a custom graph, along shortest paths ("minimal") or
// along shortest legal up*/down* paths ("updown").
//
// up*/down* (Schroeder et al., Autonet): a breadth-first spanning tree is
// grown from the root, the router with the most router links (lowest
// number on ties). A link is "up" if it leads to a router nearer the root,
// or as near with a lower number; a legal path takes zero or more up links
// and then only down links. No cycle of channel dependencies can close, so
// the routing is deadlock-free on any connected graph, at the price of
// some paths longer than the shortest.
type graphAlg struct {
	base
	g      *topology.Graph
	updown bool
	pol    policy
	R      int
	up     []bool   // per router port (indexed by PortBase(r)+p): the link goes up
	dest   []int32  // router → row of the up*/down* tables, -1 if it hosts no node
	dUp    []uint16 // [dest][router]: legal hops from router, up links still allowed
	dDown  []uint16 // [dest][router]: legal hops using only down links
	root   int
	levels []int32
}

func newGraphAlg(name, baseName, variant string, g *topology.Graph, opt Options) *graphAlg {
	a := &graphAlg{g: g, R: g.NumRouters(), updown: baseName == "updown", pol: policyOf(variant)}
	a.base = newBase(name, g, opt, 1)
	maxPorts := 1
	for r := 0; r < a.R; r++ {
		maxPorts = max(maxPorts, g.NumPorts(r))
	}
	a.max = maxPorts * opt.VCs
	if a.pol == policyRR {
		a.rr = make([]uint32, a.R)
	}
	if a.updown {
		a.buildUpDown()
	}
	return a
}

// Init fills st.
func (a *graphAlg) Init(st *State, src, dst int) { a.initState(st, src, dst) }

func (a *graphAlg) buildUpDown() {
	g := a.g
	// Root: most router links, lowest number on ties.
	best := -1
	for r := 0; r < a.R; r++ {
		deg := 0
		for p := 0; p < g.NumPorts(r); p++ {
			if g.Peer(r, p).Kind == topology.PeerRouter {
				deg++
			}
		}
		if deg > best {
			best, a.root = deg, r
		}
	}
	a.levels = make([]int32, a.R)
	for i := range a.levels {
		a.levels[i] = -1
	}
	a.levels[a.root] = 0
	queue := []int{a.root}
	for len(queue) > 0 {
		r := queue[0]
		queue = queue[1:]
		for p := 0; p < g.NumPorts(r); p++ {
			if q := g.Peer(r, p); q.Kind == topology.PeerRouter && a.levels[q.ID] < 0 {
				a.levels[q.ID] = a.levels[r] + 1
				queue = append(queue, q.ID)
			}
		}
	}
	total := g.PortBase(a.R-1) + g.NumPorts(a.R-1)
	a.up = make([]bool, total)
	for r := 0; r < a.R; r++ {
		for p := 0; p < g.NumPorts(r); p++ {
			if q := g.Peer(r, p); q.Kind == topology.PeerRouter {
				a.up[g.PortBase(r)+p] = a.isUp(r, q.ID)
			}
		}
	}
	a.dest = make([]int32, a.R)
	for i := range a.dest {
		a.dest[i] = -1
	}
	dests := 0
	for n := 0; n < g.NumNodes(); n++ {
		if r, _ := g.Attach(n); a.dest[r] < 0 {
			a.dest[r] = int32(dests)
			dests++
		}
	}
	a.dUp = make([]uint16, dests*a.R)
	a.dDown = make([]uint16, dests*a.R)
	for t, i := range a.dest {
		if i >= 0 {
			a.legalBFS(t, a.dUp[int(i)*a.R:int(i+1)*a.R], a.dDown[int(i)*a.R:int(i+1)*a.R])
		}
	}
}

func (a *graphAlg) isUp(r, q int) bool {
	return a.levels[q] < a.levels[r] || (a.levels[q] == a.levels[r] && q < r)
}

const far = ^uint16(0)

// legalBFS computes, for destination router t, the length of the shortest
// legal path from every router in the up phase (dUp) and in the down
// phase (dDown), by a backward breadth-first search over (router, phase).
func (a *graphAlg) legalBFS(t int, dUp, dDown []uint16) {
	for i := range dUp {
		dUp[i], dDown[i] = far, far
	}
	type st struct {
		r    int32
		down bool
	}
	dUp[t], dDown[t] = 0, 0
	queue := []st{{int32(t), false}, {int32(t), true}}
	g := a.g
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		q := int(s.r)
		d := dDown[q]
		if !s.down {
			d = dUp[q]
		}
		// Predecessors r with a link r→q.
		for p := 0; p < g.NumPorts(q); p++ {
			peer := g.Peer(q, p)
			if peer.Kind != topology.PeerRouter {
				continue
			}
			r := peer.ID
			rq := a.isUp(r, q)
			if s.down {
				// (r, up) --down link--> (q, down) and (r, down) --down--> (q, down).
				if !rq {
					if dDown[r] == far {
						dDown[r] = d + 1
						queue = append(queue, st{int32(r), true})
					}
					if dUp[r] == far {
						dUp[r] = d + 1
						queue = append(queue, st{int32(r), false})
					}
				}
			} else if rq && dUp[r] == far {
				// (r, up) --up link--> (q, up).
				dUp[r] = d + 1
				queue = append(queue, st{int32(r), false})
			}
		}
	}
}

// Route implements Algorithm.
func (a *graphAlg) Route(r, inPort, inVC int, st *State, out []Choice) []Choice {
	t := int(st.DstRouter)
	g := a.g
	if r == t {
		_, port := g.Attach(int(st.Dst))
		return append(out, Choice{Port: int32(port), Flags: Eject})
	}
	start := len(out)
	base := g.PortBase(r)
	np := g.NumPorts(r)
	if !a.updown {
		want := g.Distance(r, t) - 1
		for p := 0; p < np; p++ {
			if q := g.Peer(r, p); q.Kind == topology.PeerRouter && g.Distance(q.ID, t) == want {
				out = a.appendVCs(out, p, 0, 0)
			}
		}
		a.order(a.pol, r, out[start:], a.vcs)
		return out
	}
	row := int(a.dest[t]) * a.R
	// Down phase if the packet arrived over a down link.
	down := false
	if in := g.Peer(r, inPort); in.Kind == topology.PeerRouter {
		down = !a.isUp(in.ID, r)
	}
	var cur uint16
	if down {
		cur = a.dDown[row+r]
	} else {
		cur = a.dUp[row+r]
	}
	for p := 0; p < np; p++ {
		q := g.Peer(r, p)
		if q.Kind != topology.PeerRouter {
			continue
		}
		var next uint16
		switch {
		case a.up[base+p] && !down:
			next = a.dUp[row+q.ID]
		case !a.up[base+p]:
			next = a.dDown[row+q.ID]
		default:
			continue
		}
		if next != far && next+1 == cur {
			out = a.appendVCs(out, p, 0, 0)
		}
	}
	a.order(a.pol, r, out[start:], a.vcs)
	return out
}
