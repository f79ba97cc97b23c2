package flow

import "math"

// fill switches to steps by groups (see fillGrouped) at its step
// groupAfter when groupMin flows or more are still open: below that the
// whole fill's rescans cost less than finding the groups.
const (
	groupMin   = 256
	groupAfter = 10
)

// fillGroups is the scratch of fill's grouped steps (see
// system.fillGrouped), reused from fill to fill.
type fillGroups struct {
	// par is the union-find forest of the links that can saturate (-2:
	// a link that cannot), then each such link's group; froot is a
	// link of each flow that can saturate (-1: none).
	par, froot []int32
	// Group g's links that can still saturate are links[lOff[g]:][:ln[g]]
	// and its unfixed flows flows[fOff[g]:][:fn[g]], both in the
	// system's order; x and xb are the lowest ratio of its links and
	// the lowest bound level of its flows.
	lOff, fOff, ln, fn []int32
	links, flows       []int32
	x, xb              []float64
	// lab is each link's group number while the groups are made.
	lab []int32
	// off makes fill always fill the system whole; minOpen and after,
	// when positive, replace groupMin and groupAfter+1 (tests).
	off            bool
	minOpen, after int
}

// switchAt tells whether fill switches to groups at step (from 0), with
// at most open flows not fixed.
func (g *fillGroups) switchAt(step, open int) bool {
	after, least := groupAfter, groupMin
	if g.after > 0 {
		after = g.after - 1
	}
	if g.minOpen > 0 {
		least = g.minOpen
	}
	return step == after && open >= least && !g.off
}

// find is the root of link j in the forest par, halving the path.
func find(par []int32, j int32) int32 {
	for par[j] != j {
		par[j] = par[par[j]]
		j = par[j]
	}
	return j
}

// fillGrouped finishes fill by groups of the open flows and the live
// links (those that can still saturate), each group a union of connected
// components (a flow's live links are all in its group), and reports
// whether it did; false when they are one group (fill then goes on
// whole).
//
// Its steps are the whole fill's, level by level, in the same order and
// to the bit: each step's level is the lowest over all the groups (the
// lowest of each group is kept, and changes only by that group's own
// fixes), and a step fixes, group by group, what the whole fill fixes in
// that group — the links within levelTol of the level, in the system's
// order, at the same rates x·w, or the flows within boundTol of the
// lowest bound level. Groups share no link that can saturate, so the
// order in which the groups are visited changes nothing: each link's
// remaining capacity and usage take the same subtractions in the same
// order. What changes is the work: a step rescans only the groups it
// fixes flows in, not every link and flow left in the system.
func (s *system) fillGrouped(live, open []int32) bool {
	G := s.makeGroups(live, open)
	if G <= 1 {
		return false
	}
	s.fillSteps(G)
	return true
}

// makeGroups splits the system into groups for fillGrouped and returns
// their number; 1 or less when it is one group (then the groups are not
// made).
func (s *system) makeGroups(live, open []int32) int32 {
	g := &s.groups
	L, F := len(s.id), len(s.slot)
	ratio, fixed := s.ratio[:L], s.fixed[:F]
	fOff, fLink := s.fOff[:F+1], s.fLink
	par, lab := grow(g.par, L), grow(g.lab, L)
	g.par, g.lab = par, lab
	for j := range par {
		par[j] = -2
	}
	for _, j := range live {
		if !math.IsInf(ratio[j], 1) {
			par[j] = j
		}
	}
	// Union the links each flow can saturate; a root is the lowest link
	// of its tree (the higher root goes under the lower), so that the
	// links in order meet each root before the rest of its tree.
	froot := grow(g.froot, F)
	g.froot = froot
	for _, i := range open {
		if fixed[i] {
			continue
		}
		r := int32(-1)
		for _, x := range fLink[fOff[i]:fOff[i+1]] {
			j := x & math.MaxInt32
			if par[j] == -2 {
				continue
			}
			if r < 0 {
				r = j
				continue
			}
			if a, b := find(par, r), find(par, j); a < b {
				par[b] = a
			} else if b < a {
				par[a] = b
			}
		}
		froot[i] = r
	}
	// Number the groups in the order of their roots, and count their
	// links; lab[j] is link j's group.
	gl := g.ln[:0]
	for _, j := range live {
		p := par[j]
		if p == -2 {
			continue
		}
		if p == j {
			lab[j] = int32(len(gl))
			gl = append(gl, 1)
			continue
		}
		k := lab[find(par, j)]
		lab[j] = k
		gl[k]++
	}
	G := int32(len(gl))
	g.ln = gl
	if G <= 1 {
		return G
	}
	// The flows with no link that can saturate make one more group
	// (they are fixed at their bounds, or at 0 at the end).
	gf := grow(g.fn, int(G)+1)
	g.fn = gf
	clear(gf)
	bg := G
	for _, i := range open {
		if fixed[i] {
			continue
		}
		k := bg
		if r := froot[i]; r >= 0 {
			k = lab[r]
		}
		froot[i] = k // from here on, flow i's group
		gf[k]++
	}
	if gf[bg] > 0 {
		G++
		g.ln = append(gl, 0)
		gl = g.ln
	}
	// The groups' links and flows in the system's order (a counting
	// sort), and their lowest levels.
	lo, fo := grow(g.lOff, int(G)+1), grow(g.fOff, int(G)+1)
	g.lOff, g.fOff = lo, fo
	lo[0], fo[0] = 0, 0
	for k := range G {
		lo[k+1], fo[k+1] = lo[k]+gl[k], fo[k]+gf[k]
		gl[k], gf[k] = 0, 0
	}
	links, flows := grow(g.links, int(lo[G])), grow(g.flows, int(fo[G]))
	g.links, g.flows = links, flows
	x, xb := grow(g.x, int(G)), grow(g.xb, int(G))
	g.x, g.xb = x, xb
	for k := range G {
		x[k], xb[k] = math.Inf(1), math.Inf(1)
	}
	for _, j := range live {
		if par[j] == -2 {
			continue
		}
		k := lab[j]
		links[lo[k]+gl[k]] = j
		gl[k]++
		x[k] = fmin(x[k], ratio[j])
	}
	level := s.level[:F]
	for _, i := range open {
		if fixed[i] {
			continue
		}
		k := froot[i]
		flows[fo[k]+gf[k]] = i
		gf[k]++
		xb[k] = fmin(xb[k], level[i])
	}
	return G
}

// fillSteps runs fill's steps over the G groups fillGrouped has made
// (see there).
func (s *system) fillSteps(G int32) {
	g := &s.groups
	F := len(s.slot)
	ratio, fixed, level, w, bound := s.ratio[:len(s.id)], s.fixed[:F], s.level[:F], s.w[:F], s.bound[:F]
	lOff, lFlow := s.lOff, s.lFlow
	lo, fo, gl, gf, links, flows := g.lOff, g.fOff, g.ln, g.fn, g.links, g.flows
	x, xb := g.x[:G], g.xb[:G]
	open := int(fo[G])
	for open > 0 {
		lx, lb := math.Inf(1), math.Inf(1)
		for k := range G {
			lx, lb = fmin(lx, x[k]), fmin(lb, xb[k])
		}
		if lb < lx || math.IsInf(lx, 1) {
			if math.IsInf(lb, 1) {
				// Neither a link nor a bound limits what is left
				// (see fill).
				for k := range G {
					for _, i := range flows[fo[k]:][:gf[k]] {
						if !fixed[i] {
							s.fix(int(i), 0, -1)
						}
					}
				}
				return
			}
			thr := lb * (1 + boundTol)
			for k := range G {
				if xb[k] > thr {
					continue
				}
				for _, i := range flows[fo[k]:][:gf[k]] {
					if !fixed[i] && level[i] <= thr {
						s.fix(int(i), bound[i], -1)
						open--
					}
				}
				s.groupLevels(k)
			}
			continue
		}
		thr := lx * (1 + levelTol)
		for k := range G {
			if x[k] > thr {
				continue
			}
			for _, j := range links[lo[k]:][:gl[k]] {
				if ratio[j] > thr {
					continue
				}
				for _, e := range lFlow[lOff[j]:lOff[j+1]] {
					if i := e & math.MaxInt32; !fixed[i] {
						s.fix(int(i), lx*w[i], j)
						open--
					}
				}
			}
			s.groupLevels(k)
		}
	}
}

// groupLevels drops from group k the links that can no longer saturate
// and the flows fixed, and works out its lowest levels again.
func (s *system) groupLevels(k int32) {
	g := &s.groups
	ratio, fixed, level := s.ratio, s.fixed, s.level
	lx, lb := math.Inf(1), math.Inf(1)
	ls := g.links[g.lOff[k]:][:g.ln[k]]
	n := 0
	for _, j := range ls {
		if r := ratio[j]; !math.IsInf(r, 1) {
			ls[n] = j
			n++
			lx = fmin(lx, r)
		}
	}
	g.ln[k] = int32(n)
	fs := g.flows[g.fOff[k]:][:g.fn[k]]
	n = 0
	for _, i := range fs {
		if !fixed[i] {
			fs[n] = i
			n++
			lb = fmin(lb, level[i])
		}
	}
	g.fn[k] = int32(n)
	g.x[k], g.xb[k] = lx, lb
}
