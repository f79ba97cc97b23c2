package netmodel

import (
	"fmt"

	"github.com/tracesim/tracesim/engine/topology"
)

// The link groups every topology has (see Metrics.Groups): LinkGroups
// numbers them first.
const (
	GroupInject uint8 = iota
	GroupEject
)

// LinkGroups assigns every link of t a group, the aggregation of
// Metrics.Groups: names lists the groups — "inject" and "eject" (the
// terminal links) first, then the grid directions ("x+", "x-", …), the
// fat-tree levels ("up0", "down0", …), the dragonfly classes ("local",
// "global"), "backbone" (a crossbar's) or the link classes of other
// topologies — and of[id] is the
// group of link id (0 for unused ids). Every network model that measures
// links groups them the same way, so their results compare.
func LinkGroups(t topology.Topology) (names []string, of []uint8) {
	names = []string{"inject", "eject"}
	index := map[string]uint8{"inject": GroupInject, "eject": GroupEject}
	id := func(name string) uint8 {
		g, ok := index[name]
		if !ok {
			g = uint8(len(names))
			index[name] = g
			names = append(names, name)
		}
		return g
	}
	// Name the groups in a stable order first: grid directions, levels.
	switch g := t.(type) {
	case *topology.Grid:
		for p := 0; p < g.NetPorts(); p++ {
			d, dir, _ := g.PortDim(p)
			id(GridGroup(d, dir))
		}
	case *topology.FatTree:
		for l := 0; l+1 < g.Levels(); l++ {
			id(fmt.Sprintf("up%d", l))
			id(fmt.Sprintf("down%d", l))
		}
	case *topology.Dragonfly:
		id("local")
		id("global")
	}
	L := t.NumLinks()
	of = make([]uint8, L)
	grid, _ := t.(*topology.Grid)
	for i := 0; i < L; i++ {
		l := t.Link(topology.LinkID(i))
		if !l.Valid {
			continue
		}
		var g uint8
		switch {
		case l.Class == topology.ClassTerminal && l.From.Kind == topology.PeerNode:
			g = GroupInject
		case l.Class == topology.ClassTerminal:
			g = GroupEject
		case grid != nil:
			d, dir, _ := grid.PortDim(l.From.Port)
			g = id(GridGroup(d, dir))
		case l.Class == topology.ClassUp || l.Class == topology.ClassDown:
			g = id(fmt.Sprintf("%s%d", l.Class, l.Level))
		case l.Class == topology.ClassMedium && t.Kind() == topology.KindCrossbar:
			g = id("backbone")
		default:
			g = id(l.Class.String())
		}
		of[i] = g
	}
	return names, of
}

// CountGroups returns the number of valid links of each group (of from
// LinkGroups, ngroups groups) and the number of router-to-router links
// (the links a mean network utilisation is taken over).
func CountGroups(t topology.Topology, of []uint8, ngroups int) (links []int, routerLinks int) {
	links = make([]int, ngroups)
	for i := range of {
		l := t.Link(topology.LinkID(i))
		if !l.Valid {
			continue
		}
		if l.Class != topology.ClassTerminal {
			routerLinks++
		}
		links[of[i]]++
	}
	return links, routerLinks
}

var dimNames = []string{"x", "y", "z", "w"}

// GridGroup names the links of grid dimension d in direction dir (+1,
// −1, or 0 for the single link of a dimension of size 2): "x+", "y-",
// "z".
func GridGroup(d, dir int) string {
	name := fmt.Sprintf("d%d", d)
	if d < len(dimNames) {
		name = dimNames[d]
	}
	switch dir {
	case +1:
		return name + "+"
	case -1:
		return name + "-"
	}
	return name
}

// DescribeLink returns the metric of link id of t with its description
// filled in (ends, class — "backbone" for a crossbar's medium —, level,
// grid direction) and no measurement.
func DescribeLink(t topology.Topology, id topology.LinkID) LinkMetric {
	lk := t.Link(id)
	lm := LinkMetric{ID: int32(id), From: int32(lk.From.ID), To: int32(lk.To.ID),
		FromNode: lk.From.Kind == topology.PeerNode, ToNode: lk.To.Kind == topology.PeerNode,
		Class: lk.Class.String(), Level: int32(lk.Level)}
	if lk.Class == topology.ClassMedium && t.Kind() == topology.KindCrossbar {
		lm.Class = "backbone" // as its group (LinkGroups)
	}
	if grid, ok := t.(*topology.Grid); ok && lk.Class == topology.ClassNetwork {
		_, dir, _ := grid.PortDim(lk.From.Port)
		lm.Dir = int8(dir)
	}
	return lm
}

// SumGroups aggregates measured links into their groups (names and counts
// from LinkGroups and CountGroups, of the group of each link id): bytes
// add up, utilisations are averaged over each group's links.
func SumGroups(names []string, counts []int, of []uint8, links []LinkMetric) []GroupMetric {
	groups := make([]GroupMetric, len(names))
	for g := range groups {
		groups[g] = GroupMetric{Name: names[g], Links: counts[g]}
	}
	for i := range links {
		lm := &links[i]
		g := &groups[of[lm.ID]]
		g.Bytes += lm.Bytes
		g.Utilisation += lm.Utilisation
		g.MeanUtilisation += lm.MeanUtilisation
	}
	for g := range groups {
		if k := groups[g].Links; k > 0 {
			groups[g].Utilisation /= float64(k)
			groups[g].MeanUtilisation /= float64(k)
		}
	}
	return groups
}

// LinkName names link id of t as the metrics outputs do: "r2.p0->r3.p1"
// (a router port to a router port), "n5->r5.p4" (injection), "r5.p4->n5"
// (ejection), "medium" (a bus) or "backbone" (a crossbar's).
func LinkName(t topology.Topology, id topology.LinkID) string {
	l := t.Link(id)
	if l.Class == topology.ClassMedium {
		if t.Kind() == topology.KindCrossbar {
			return "backbone"
		}
		return "medium"
	}
	return l.From.String() + "->" + l.To.String()
}
