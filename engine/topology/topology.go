// Package topology describes interconnection networks for the simulator:
// which routers exist, which ports connect them, where the nodes (the
// endpoints on which MPI ranks run) attach, and the bandwidth and latency of
// every link. It runs no simulation; the routing package, the packet-level
// and analytic network models, the node-space traffic matrix and the TUI's
// link heatmaps are built on it.
//
// # Model
//
// A network has routers 0..NumRouters()-1 and nodes 0..NumNodes()-1. Router
// r has ports 0..NumPorts(r)-1; each port leads to another router's port, to
// a node, or nowhere (the boundary of a mesh). Every node attaches to exactly
// one port of one router (Attach). Direct networks (ring, mesh, torus,
// hypercube, dragonfly) have nodes on every router; indirect ones (crossbar,
// fat tree) attach nodes to the switches of the lowest level only; custom
// graphs attach them wherever the file says. A bus is a single router whose
// whole traffic crosses one shared channel (see Medium).
//
// Links are directed channels, numbered 0..NumLinks()-1 in a stable order:
// OutLink(r, p) is the channel leaving router r through port p (towards a
// router or, for a terminal port, towards a node), InjectLink(n) the channel
// from node n into its router. Link(id) describes a channel: its ends, its
// reverse channel, its class and its properties. Some ids may be unused
// (the missing boundary links of a mesh); Link reports them with Valid false
// so that per-link arrays can be indexed by id without translation.
//
// Regular topologies are implicit: coordinates and neighbours are computed
// arithmetically, so a 64×32×32 torus costs a few hundred bytes however many
// links it has. Fat trees and custom graphs keep one table entry per port.
//
// # Specs
//
// Parse builds a topology from a spec string such as "torus:8x8",
// "fattree:k=4,levels=3,taper=0.5", "dragonfly:p=2,a=4,h=2" or
// "file:net.txt"; docs/topology.md describes every kind, its options and the
// custom graph file format.
package topology

import (
	"fmt"
	"strings"
)

// Kind identifies a family of topologies.
type Kind uint8

// The topology kinds.
const (
	KindRing Kind = iota
	KindMesh
	KindTorus
	KindHypercube
	KindCrossbar
	KindBus
	KindFatTree
	KindDragonfly
	KindCustom
)

var kindNames = [...]string{"ring", "mesh", "torus", "hypercube", "crossbar", "bus", "fattree", "dragonfly", "file"}

// String returns the spec keyword of the kind ("torus", "fattree", "file").
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", k)
}

// Kinds returns every kind in the order the documentation lists them.
func Kinds() []Kind {
	return []Kind{KindRing, KindMesh, KindTorus, KindHypercube, KindCrossbar, KindBus, KindFatTree, KindDragonfly, KindCustom}
}

// Direct reports whether nodes are part of their router, as in PUPPET's
// processor networks: the terminal link is inside the box and does not
// count as a hop (see Topology.Hops).
func (k Kind) Direct() bool {
	switch k {
	case KindRing, KindMesh, KindTorus, KindHypercube, KindDragonfly:
		return true
	}
	return false
}

// PeerKind says what is at the other end of a port.
type PeerKind uint8

// Peer kinds.
const (
	// PeerNone: the port is not connected (mesh boundary, top of a fat tree).
	PeerNone PeerKind = iota
	// PeerRouter: the port connects to Peer.Port of router Peer.ID.
	PeerRouter
	// PeerNode: the port is a terminal port to node Peer.ID.
	PeerNode
)

// String names the peer kind.
func (k PeerKind) String() string {
	switch k {
	case PeerRouter:
		return "router"
	case PeerNode:
		return "node"
	}
	return "none"
}

// Peer is one end of a link: a router port or a node.
type Peer struct {
	Kind PeerKind
	ID   int // router or node number
	Port int // the router's port (0 for a node)
}

// String renders the endpoint as "r12.p3" or "n5".
func (p Peer) String() string {
	switch p.Kind {
	case PeerRouter:
		return fmt.Sprintf("r%d.p%d", p.ID, p.Port)
	case PeerNode:
		return fmt.Sprintf("n%d", p.ID)
	}
	return "-"
}

// LinkID numbers a directed channel; see the package documentation.
type LinkID int32

// NoLink is returned for ports that lead nowhere.
const NoLink LinkID = -1

// LinkProps are the physical properties of a channel.
type LinkProps struct {
	// Bandwidth in bytes per second.
	Bandwidth float64
	// Latency (propagation delay) in picoseconds.
	Latency int64
}

// DefaultLink is the property of links that neither the spec nor the
// options set: 10 Gb/s and 10 ns.
var DefaultLink = LinkProps{Bandwidth: 1.25e9, Latency: 10_000}

// LinkClass groups links that share default properties and drawing.
type LinkClass uint8

// Link classes.
const (
	// ClassNone marks an unused link id.
	ClassNone LinkClass = iota
	// ClassTerminal: between a node and its router, either direction.
	ClassTerminal
	// ClassNetwork: between two routers of a ring, mesh, torus, hypercube
	// or custom graph.
	ClassNetwork
	// ClassUp: fat tree, from a switch to one of its parents.
	ClassUp
	// ClassDown: fat tree, from a switch to one of its children.
	ClassDown
	// ClassLocal: dragonfly, between two routers of a group.
	ClassLocal
	// ClassGlobal: dragonfly, between two groups.
	ClassGlobal
	// ClassMedium: the shared channel of a bus, or a crossbar's backbone.
	ClassMedium
)

var classNames = [...]string{"none", "terminal", "network", "up", "down", "local", "global", "medium"}

// String names the class.
func (c LinkClass) String() string {
	if int(c) < len(classNames) {
		return classNames[c]
	}
	return fmt.Sprintf("LinkClass(%d)", c)
}

// Link describes a directed channel.
type Link struct {
	ID    LinkID
	Valid bool // false for unused ids (e.g. the missing edges of a mesh)
	From  Peer
	To    Peer
	// Reverse is the channel in the opposite direction (NoLink for a bus
	// medium, which has no direction).
	Reverse LinkID
	Class   LinkClass
	// Level is the fat-tree level of the lower end for ClassUp/ClassDown
	// (0 = between leaf switches and level-1 switches), the dimension for
	// grid network links, and 0 otherwise.
	Level int
	Props LinkProps
}

// LayoutStyle tells the TUI how to draw a topology.
type LayoutStyle uint8

// Layout styles.
const (
	// LayoutGrid: routers sit on a k0×k1×… grid (ring, mesh, torus,
	// hypercube); Coords gives one coordinate per dimension.
	LayoutGrid LayoutStyle = iota
	// LayoutLevels: switches stand in levels (fat tree); Coords gives
	// [level, index within level], level 0 holding the leaf switches.
	LayoutLevels
	// LayoutGroups: routers belong to groups (dragonfly); Coords gives
	// [group, index within group].
	LayoutGroups
	// LayoutStar: a single router (crossbar, bus); Coords gives [0].
	LayoutStar
	// LayoutGraph: no geometry (custom graph); Coords gives [router].
	LayoutGraph
)

// Layout is the drawing geometry of a topology.
type Layout struct {
	Style LayoutStyle
	// Dims are the grid sizes (LayoutGrid), the number of switches per
	// level from the leaves up (LayoutLevels), [groups, routers per group]
	// (LayoutGroups), or [routers] otherwise.
	Dims []int
	// Wrap[d] reports whether grid dimension d has wraparound links.
	Wrap []bool
}

// Topology is an interconnection network. Implementations are immutable and
// safe for concurrent use.
type Topology interface {
	// Kind is the family of the topology.
	Kind() Kind
	// Spec is a canonical spec string that Parse turns back into an equal
	// topology ("file:PATH" for custom graphs).
	Spec() string

	// NumNodes is the number of endpoints.
	NumNodes() int
	// NumRouters is the number of routers or switches.
	NumRouters() int
	// NumPorts is the number of ports of router r, terminal ports included.
	NumPorts(r int) int
	// Peer is what port p of router r leads to.
	Peer(r, p int) Peer
	// Attach returns the router and port node n is connected to.
	Attach(n int) (router, port int)

	// NumLinks is the size of the link id space.
	NumLinks() int
	// OutLink is the channel leaving router r through port p, or NoLink.
	OutLink(r, p int) LinkID
	// InjectLink is the channel from node n into its router.
	InjectLink(n int) LinkID
	// Link describes channel id (Valid false for unused or out-of-range ids).
	Link(id LinkID) Link
	// Medium returns the shared channel all traffic through router r must
	// also cross (a bus), or NoLink for ordinary routers.
	Medium(r int) LinkID

	// RouterHops is the number of router-to-router links on a shortest
	// path between the routers of nodes a and b (0 when they share a
	// router). A packet from a to b crosses RouterHops+2 links (injection
	// and ejection included) and RouterHops+1 routers.
	RouterHops(a, b int) int
	// Hops is the distance d of the analytic models between nodes a and b:
	// 0 for a == b; for direct networks the router-to-router hops (at least
	// 1: two nodes on one router talk through it); for indirect networks
	// every link including the two terminal links; 1 on a bus.
	Hops(a, b int) int

	// Layout is the drawing geometry.
	Layout() Layout
	// Coords appends the drawing coordinates of router r to buf (see
	// LayoutStyle) and returns the extended slice.
	Coords(r int, buf []int) []int
}

// The concrete topologies.
var (
	_ Topology = (*Grid)(nil)
	_ Topology = (*Star)(nil)
	_ Topology = (*FatTree)(nil)
	_ Topology = (*Dragonfly)(nil)
	_ Topology = (*Graph)(nil)
)

// PathLinks is the number of links a packet from node a to node b crosses,
// terminal links included: 0 for a == b, else RouterHops+2.
func PathLinks(t Topology, a, b int) int {
	if a == b {
		return 0
	}
	return t.RouterHops(a, b) + 2
}

// directHops implements Hops for direct networks.
func directHops(routerHops int, a, b int) int {
	if a == b {
		return 0
	}
	if routerHops == 0 {
		return 1
	}
	return routerHops
}

// indirectHops implements Hops for indirect networks.
func indirectHops(routerHops int, a, b int) int {
	if a == b {
		return 0
	}
	return routerHops + 2
}

// Summary describes t in one line for listings: "torus 8×8: 64 routers,
// 64 nodes, 128 links".
func Summary(t Topology) string {
	undirected := 0
	for id := 0; id < t.NumLinks(); id++ {
		l := t.Link(LinkID(id))
		if l.Valid && l.From.Kind == PeerRouter && l.To.Kind == PeerRouter && l.Class != ClassMedium && l.ID < l.Reverse {
			undirected++
		}
	}
	shape := t.Spec()
	if lay := t.Layout(); lay.Style == LayoutGrid && t.Kind() != KindHypercube {
		parts := make([]string, len(lay.Dims))
		for i, k := range lay.Dims {
			parts[i] = fmt.Sprint(k)
		}
		shape = t.Kind().String() + " " + strings.Join(parts, "×")
	}
	return fmt.Sprintf("%s: %s, %s, %s", shape, plural(t.NumRouters(), "router"), plural(t.NumNodes(), "node"), plural(undirected, "router link"))
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
