package platform

import (
	"container/heap"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/tracesim/tracesim/engine/topology"
	"github.com/tracesim/tracesim/tracefmt/units"
)

// An explicit zone whose routes are not a star's keeps SimGrid's routes
// as they are: every pair of hosts gets the list of links SimGrid 3.32's
// FullZone, FloydZone or DijkstraZone gives it, and the engine's flow
// model follows those lists (Platform.Hops) over a graph that holds each
// link once.

// LoopbackBandwidth is the bandwidth of SimGrid's implicit loopback link
// (network/loopback-bw, 10 GBps; no latency, FATPIPE), the route from a
// host to itself in a Full, Floyd or Dijkstra zone that declares none.
const LoopbackBandwidth = 10e9

// loopbackLink names SimGrid's implicit loopback link in hops.
const loopbackLink = "__loopback__"

// maxRoutedPoints bounds the hosts and routers of a zone whose routes
// are not a star's: Floyd's tables are quadratic in them and its
// computation cubic (a second at 1,024), and the routes of every pair of
// hosts are kept.
const maxRoutedPoints = 1024

// Routes are an explicit zone's routes where they are not a star's.
type Routes struct {
	// Routing is the zone's routing: Full, Floyd, Dijkstra or
	// DijkstraCache.
	Routing string
	// Routers is the number of <router>s the zone declares.
	Routers int
	// Links is the number of link resources the zone's routes name, a
	// SPLITDUPLEX link's two directions as two, SimGrid's implicit
	// loopback link not counted.
	Links int
	// FatPipes are the topology's channels of FATPIPE links (SimGrid's
	// loopback link included): they bound each flow without sharing.
	FatPipes []topology.LinkID
	// Shared reports that some route crosses a SHARED link, which its
	// way back may cross too.
	Shared bool
	n      int
	off    []int32    // per pair src*n+dst: its resources are res[off[i]:off[i+1]]
	res    []int32    // resource numbers
	ends   [][2]int32 // per resource: the graph's (from, to) routers
	names  []string   // per resource: SimGrid's name of it
}

// Len is the number of links of the route from host src to host dst.
func (r *Routes) Len(src, dst int) int {
	i := src*r.n + dst
	return int(r.off[i+1] - r.off[i])
}

// Names returns SimGrid's names of the links of the route from host src
// to host dst (a SPLITDUPLEX link's direction as its _UP or _DOWN link).
func (r *Routes) Names(src, dst int) []string {
	i := src*r.n + dst
	var out []string
	for _, k := range r.res[r.off[i]:r.off[i+1]] {
		out = append(out, r.names[k])
	}
	return out
}

// hops is Platform.Hops: each link of the route as the (from, to) pair
// of the graph's routers its channel joins.
func (r *Routes) hops(src, dst int, buf []int) []int {
	i := src*r.n + dst
	for _, k := range r.res[r.off[i]:r.off[i+1]] {
		buf = append(buf, int(r.ends[k][0]), int(r.ends[k][1]))
	}
	return buf
}

// edge is a declared route between two points, one direction of it.
type edge struct {
	src, dst int
	links    []hop
	line     int
}

// general reads zone z of hosts, routers, links and routes whose routes
// are not a star's: SimGrid's routes between its hosts, over a graph of
// its links.
func (p *parser) general(z *zoneDecl) error {
	bad := p.errAt
	index := map[string]int{}
	for i, pt := range z.points {
		index[pt.name] = i
	}
	for _, h := range z.hosts {
		if h.cores != z.hosts[0].cores {
			return bad(h.line, "host", "host %q has core=%d, host %q core=%d: hosts of different core counts are not modelled", h.name, h.cores, z.hosts[0].name, z.hosts[0].cores)
		}
	}
	n, V := len(z.hosts), len(z.points)
	if n == 1 {
		return bad(z.hosts[0].line, "host", "a platform of one host has no network to simulate")
	}
	full := z.routing == "Full"
	if V > maxRoutedPoints {
		return bad(z.line, "zone", "routing=%s over %d hosts and routers, not a star: more than %d are not modelled", z.routing, V, maxRoutedPoints)
	}
	// The edges in SimGrid's order of creation: each route, then its
	// reverse when symmetrical.
	var edges []edge
	at := map[[2]int]int{}
	add := func(src, dst int, links []hop, line int) error {
		key := [2]int{src, dst}
		if prev, dup := at[key]; dup {
			if src == dst && edges[prev].line == line {
				return bad(line, "route", "the route from %q to itself is symmetrical: under routing=%s SimGrid 3.32 adds its reverse and aborts on the duplicate (give symmetrical=\"NO\")", z.points[src].name, z.routing)
			}
			return bad(line, "route", "the route from %q to %q already exists (line %d; routes are symmetrical by default)", z.points[src].name, z.points[dst].name, edges[prev].line)
		}
		at[key] = len(edges)
		edges = append(edges, edge{src: src, dst: dst, links: links, line: line})
		return nil
	}
	for _, r := range z.routes {
		src, ok := index[r.src]
		if !ok {
			return bad(r.line, "route", "%q is neither a host nor a router of zone %q (routes between zones are not modelled)", r.src, z.id)
		}
		dst, ok := index[r.dst]
		if !ok {
			return bad(r.line, "route", "%q is neither a host nor a router of zone %q (routes between zones are not modelled)", r.dst, z.id)
		}
		if len(r.links) == 0 {
			return bad(r.line, "route", "the route from %q to %q has no link", r.src, r.dst)
		}
		if err := add(src, dst, r.links, r.line); err != nil {
			return err
		}
		// FullZone adds no reverse of a route to itself; Floyd and
		// Dijkstra do, and abort on it.
		if r.sym && (src != dst || !full) {
			if err := add(dst, src, reverseHops(r.links), r.line); err != nil {
				return err
			}
		}
	}
	hostPoint := make([]int, n)
	for i, pt := range z.points {
		if !pt.router {
			hostPoint[pt.host] = i
		}
	}
	// Each pair's route as the edges it follows; edge len(edges) is
	// SimGrid's loopback link.
	loop := []int32{int32(len(edges))}
	routes := make([][]int32, n*n)
	var err error
	switch z.routing {
	case "Full":
		for s := 0; s < n; s++ {
			for d := 0; d < n; d++ {
				e, ok := at[[2]int{hostPoint[s], hostPoint[d]}]
				switch {
				case ok:
					routes[s*n+d] = []int32{int32(e)}
				case s == d:
					routes[s*n+d] = loop
				default:
					return bad(z.line, "zone", "no route from %q to %q: routing=Full needs a route for every pair of hosts", z.hosts[s].name, z.hosts[d].name)
				}
			}
		}
	case "Floyd":
		err = p.floyd(z, edges, at, hostPoint, routes)
	default: // Dijkstra, DijkstraCache: the same routes
		err = p.dijkstra(z, edges, at, hostPoint, routes)
	}
	if err != nil {
		return err
	}
	return p.routedPlatform(z, edges, hostPoint, routes)
}

// reverseHops is a symmetrical route's way back: its links in reverse
// order, a SPLITDUPLEX link's other direction.
func reverseHops(links []hop) []hop {
	rev := make([]hop, len(links))
	for i, h := range links {
		switch h.dir {
		case "UP":
			h.dir = "DOWN"
		case "DOWN":
			h.dir = "UP"
		}
		rev[len(links)-1-i] = h
	}
	return rev
}

// floyd fills routes as SimGrid 3.32's FloydZone: a route's cost is its
// number of links, every point without a route to itself gets the
// loopback link, and the all-pairs loop (intermediate point outermost,
// points in declaration order) takes a path through c only when strictly
// shorter, the first found among equals.
func (p *parser) floyd(z *zoneDecl, edges []edge, at map[[2]int]int, hostPoint []int, routes [][]int32) error {
	V, n := len(z.points), len(hostPoint)
	const inf = math.MaxUint64
	cost := make([]uint64, V*V)
	pred := make([]int32, V*V)
	for i := range cost {
		cost[i], pred[i] = inf, -1
	}
	for _, e := range edges {
		cost[e.src*V+e.dst] = uint64(len(e.links))
		pred[e.src*V+e.dst] = int32(e.src)
	}
	for i := 0; i < V; i++ {
		if _, ok := at[[2]int{i, i}]; !ok {
			cost[i*V+i], pred[i*V+i] = 1, int32(i)
		}
	}
	for c := 0; c < V; c++ {
		for a := 0; a < V; a++ {
			ac := cost[a*V+c]
			if ac == inf {
				continue
			}
			for b := 0; b < V; b++ {
				cb := cost[c*V+b]
				if cb < inf && (cost[a*V+b] == inf || ac+cb < cost[a*V+b]) {
					cost[a*V+b] = ac + cb
					pred[a*V+b] = pred[c*V+b]
				}
			}
		}
	}
	for s := 0; s < n; s++ {
		for d := 0; d < n; d++ {
			src, dst := hostPoint[s], hostPoint[d]
			var stack []int32
			cur := dst
			for {
				pr := int(pred[src*V+cur])
				if pr < 0 || len(stack) > V {
					return p.errAt(z.line, "zone", "no route from %q to %q under routing=Floyd", z.hosts[s].name, z.hosts[d].name)
				}
				stack = append(stack, edgeAt(edges, at, pr, cur))
				cur = pr
				if cur == src {
					break
				}
			}
			slices.Reverse(stack)
			routes[s*n+d] = stack
		}
	}
	return nil
}

// edgeAt returns the route from point a to point b: a declared one, else
// SimGrid's loopback link (edge len(edges)).
func edgeAt(edges []edge, at map[[2]int]int, a, b int) int32 {
	if e, ok := at[[2]int{a, b}]; ok {
		return int32(e)
	}
	return int32(len(edges))
}

// dijkstra fills routes as SimGrid 3.32's DijkstraZone: the graph's
// points are numbered in the order routes first name them (a route's
// source, then its destination), each point's routes leave it in the
// order they were declared, the loopback link is a route of every point
// to itself unless declared, and a route's cost is its number of links.
// A point's predecessor changes only on a strictly shorter path; the
// queue takes the lowest cost first, then the lowest number; costs are
// unsigned and wrap as SimGrid's do.
func (p *parser) dijkstra(z *zoneDecl, edges []edge, at map[[2]int]int, hostPoint []int, routes [][]int32) error {
	gid := make([]int, len(z.points))
	for i := range gid {
		gid[i] = -1
	}
	var points []int // graph id → point
	node := func(pt int) {
		if gid[pt] < 0 {
			gid[pt] = len(points)
			points = append(points, pt)
		}
	}
	for _, e := range edges {
		node(e.src)
		node(e.dst)
	}
	out := make([][]int, len(points))
	for i, e := range edges {
		out[gid[e.src]] = append(out[gid[e.src]], i)
	}
	n, V := len(hostPoint), len(points)
	for s := 0; s < n; s++ {
		if gid[hostPoint[s]] < 0 {
			return p.errAt(z.hosts[s].line, "host", "host %q is in no route: SimGrid's %s routing cannot reach it", z.hosts[s].name, z.routing)
		}
	}
	cost := make([]uint64, V)
	pred := make([]int, V)
	for s := 0; s < n; s++ {
		src := gid[hostPoint[s]]
		q := &pqueue{}
		for i := range V {
			cost[i], pred[i] = math.MaxUint64, 0
			if i == src {
				cost[i] = 0
			}
			q.items = append(q.items, qelt{float64(cost[i]), i})
		}
		heap.Init(q)
		for q.Len() > 0 {
			v := heap.Pop(q).(qelt).id
			for _, ei := range out[v] {
				u := gid[edges[ei].dst]
				if w := uint64(len(edges[ei].links)); w+cost[v] < cost[u] {
					pred[u], cost[u] = v, w+cost[v]
					heap.Push(q, qelt{float64(cost[u]), u})
				}
			}
		}
		for d := 0; d < n; d++ {
			dst := gid[hostPoint[d]]
			if dst == src {
				routes[s*n+d] = []int32{edgeAt(edges, at, hostPoint[s], hostPoint[s])}
				continue
			}
			var r []int32
			steps := 0
			for v := dst; v != src; v = pred[v] {
				e, ok := at[[2]int{points[pred[v]], points[v]}]
				if !ok || steps > V {
					return p.errAt(z.line, "zone", "no route from %q to %q under routing=%s", z.hosts[s].name, z.hosts[d].name, z.routing)
				}
				steps++
				r = append(r, int32(e))
			}
			slices.Reverse(r)
			routes[s*n+d] = r
		}
	}
	return nil
}

// qelt is an entry of SimGrid's Dijkstra queue: a cost (a double there)
// and a graph id.
type qelt struct {
	cost float64
	id   int
}

// pqueue is a min-heap of qelts by cost, then id, as
// std::priority_queue<pair<double, unsigned long>, …, greater<>>.
type pqueue struct{ items []qelt }

func (q *pqueue) Len() int { return len(q.items) }
func (q *pqueue) Less(i, j int) bool {
	a, b := q.items[i], q.items[j]
	return a.cost < b.cost || a.cost == b.cost && a.id < b.id
}
func (q *pqueue) Swap(i, j int) { q.items[i], q.items[j] = q.items[j], q.items[i] }
func (q *pqueue) Push(x any)    { q.items = append(q.items, x.(qelt)) }
func (q *pqueue) Pop() any {
	x := q.items[len(q.items)-1]
	q.items = q.items[:len(q.items)-1]
	return x
}

// routedPlatform builds the platform of zone z from each pair of hosts'
// links: a graph with a router per host and router of the zone, each
// host on its own with a link that costs nothing (FreeBandwidth, no
// latency), and each link between the two points a one-link route
// joins (the first declared), else between two routers of its own; the
// parts the links leave apart are joined by links that cost nothing
// either and that no route crosses. A SPLITDUPLEX link's two directions
// are the graph link's two channels, a SHARED or FATPIPE link one of
// them both ways.
func (p *parser) routedPlatform(z *zoneDecl, edges []edge, hostPoint []int, routes [][]int32) error {
	n, V := len(z.hosts), len(z.points)
	type placed struct{ a, b int }
	ends := map[string]placed{}
	var order []string
	used := map[[2]int]bool{}
	routers := V
	// Where a one-link route between two points shows a link's ends.
	for _, e := range edges {
		if len(e.links) != 1 || e.src == e.dst {
			continue
		}
		h := e.links[0]
		pair := [2]int{min(e.src, e.dst), max(e.src, e.dst)}
		if _, ok := ends[h.link]; ok || used[pair] {
			continue
		}
		a, b := e.src, e.dst
		if h.dir == "DOWN" {
			a, b = b, a
		}
		ends[h.link], used[pair] = placed{a, b}, true
		order = append(order, h.link)
	}
	// Resources in the order the edges name them, each edge's worked
	// out once; the loopback link after them.
	resOf := map[hop]int32{}
	var resHops []hop
	shared := false
	edgeRes := make([][]int32, len(edges)+1)
	for e := range edgeRes {
		links := []hop{{link: loopbackLink}}
		if e < len(edges) {
			links = edges[e].links
		}
		for _, h := range links {
			if h.link != loopbackLink && z.links[h.link].sharing != SplitDuplex {
				h.dir = ""
				shared = shared || z.links[h.link].sharing == Shared
			}
			k, ok := resOf[h]
			if !ok {
				k = int32(len(resHops))
				resOf[h] = k
				resHops = append(resHops, h)
				if _, placedAlready := ends[h.link]; !placedAlready {
					ends[h.link] = placed{routers, routers + 1}
					routers += 2
					order = append(order, h.link)
				}
			}
			edgeRes[e] = append(edgeRes[e], k)
		}
	}
	off := make([]int32, 1, n*n+1)
	var res []int32
	stamp := make([]int32, len(resHops)) // the last pair (plus one) to cross each
	for i, r := range routes {
		for _, e := range r {
			for _, k := range edgeRes[e] {
				if stamp[k] == int32(i+1) {
					return p.errAt(z.line, "zone", "the route from %q to %q crosses link %s twice: not modelled", z.hosts[i/n].name, z.hosts[i%n].name, resourceName(resHops[k]))
				}
				stamp[k] = int32(i + 1)
				res = append(res, k)
			}
		}
		off = append(off, int32(len(res)))
	}
	if routers > topology.MaxGraphRouters {
		return p.errAt(z.line, "zone", "%d links and %d hosts and routers: more than the %d routers of a graph", len(order), V, topology.MaxGraphRouters)
	}
	// The graph: routers p0… (points, then links' own), nodes n0… on
	// their hosts' routers.
	props := func(link string) topology.LinkProps {
		if link == loopbackLink {
			return topology.LinkProps{Bandwidth: LoopbackBandwidth}
		}
		return z.links[link].props
	}
	var b strings.Builder
	fmt.Fprintf(&b, "default bw=%s lat=0ps\nrouter p[0-%d]\n", strconv.FormatFloat(FreeBandwidth, 'g', -1, 64), routers-1)
	for h := 0; h < n; h++ {
		fmt.Fprintf(&b, "node n%d p%d\n", h, hostPoint[h])
	}
	parent := make([]int, routers)
	for i := range parent {
		parent[i] = i
	}
	find := func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	for _, l := range order {
		e, pr := ends[l], props(l)
		fmt.Fprintf(&b, "link p%d p%d bw=%s lat=%dps\n", e.a, e.b, strconv.FormatFloat(pr.Bandwidth, 'g', -1, 64), pr.Latency)
		parent[find(e.a)] = find(e.b)
	}
	for r := 1; r < routers; r++ {
		if find(r) != find(0) {
			fmt.Fprintf(&b, "link p0 p%d\n", r)
			parent[find(r)] = find(0)
		}
	}
	g, err := topology.ParseGraph(strings.NewReader(b.String()), p.file+"#"+z.id, topology.Options{})
	if err != nil {
		return p.errAt(z.line, "zone", "%v", err)
	}
	channel := func(a, b int) topology.LinkID {
		for port := 0; port < g.NumPorts(a); port++ {
			if pr := g.Peer(a, port); pr.Kind == topology.PeerRouter && pr.ID == b {
				return g.OutLink(a, port)
			}
		}
		return topology.NoLink
	}
	rt := &Routes{Routing: z.routing, Shared: shared, n: n, off: off, res: res}
	for _, pt := range z.points {
		if pt.router {
			rt.Routers++
		}
	}
	pl := &Platform{File: p.file, Topology: g, Speed: z.hosts[0].speed, Cores: z.hosts[0].cores, Hosts: make([]string, n), Uniform: true, Routes: rt}
	first := true
	sharing := map[Sharing]bool{}
	for _, h := range resHops {
		e := ends[h.link]
		a, b := e.a, e.b
		if h.dir == "DOWN" {
			a, b = b, a
		}
		rt.ends = append(rt.ends, [2]int32{int32(a), int32(b)})
		rt.names = append(rt.names, resourceName(h))
		if h.link == loopbackLink {
			rt.FatPipes = append(rt.FatPipes, channel(a, b))
			continue
		}
		rt.Links++
		l := z.links[h.link]
		sharing[l.sharing] = true
		if l.sharing == FatPipe {
			rt.FatPipes = append(rt.FatPipes, channel(a, b))
		}
		if first {
			pl.Link, pl.Sharing, first = l.props, l.sharing, false
		} else if l.props != pl.Link {
			pl.Uniform = false
		}
	}
	if len(sharing) > 1 {
		pl.Sharing = SplitDuplex
	}
	if !pl.Uniform {
		pl.Link = topology.LinkProps{}
	}
	slices.Sort(rt.FatPipes)
	rt.FatPipes = slices.Compact(rt.FatPipes)
	for i, h := range z.hosts {
		pl.Hosts[i] = h.name
	}
	pl.Speeds = hostSpeeds(z.hosts)
	pl.Hops = rt.hops
	pl.Summary = fmt.Sprintf("zone %s: %d hosts", z.id, n)
	if c := z.hosts[0].cores; c > 1 {
		pl.Summary += fmt.Sprintf(" of %d cores", c)
	}
	switch rt.Routers {
	case 0:
	case 1:
		pl.Summary += ", 1 router"
	default:
		pl.Summary += fmt.Sprintf(", %d routers", rt.Routers)
	}
	links := "links"
	if rt.Links == 1 {
		links = "link"
	}
	pl.Summary += fmt.Sprintf(", %d %s on routing=%s routes", rt.Links, links, z.routing)
	if pl.Uniform {
		pl.Summary += fmt.Sprintf(" of %s, %s", units.FormatRate(pl.Link.Bandwidth), units.FormatDuration(float64(pl.Link.Latency)/1e12))
	}
	pl.Summary += speedRange(pl.Speeds)
	p.network = pl
	return nil
}

// resourceName is SimGrid's name of a link of a route: a SPLITDUPLEX
// link's direction is its link ID_UP or ID_DOWN.
func resourceName(h hop) string {
	if h.dir != "" {
		return h.link + "_" + h.dir
	}
	return h.link
}
