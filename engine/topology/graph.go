package topology

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/tracesim/tracesim/internal/linefields"
	"github.com/tracesim/tracesim/tracefmt/units"
)

// Graph is a custom network read from an edge-list file (the format is in
// docs/topology.md). Routers and nodes are numbered in declaration order;
// the ports of a router are numbered in the order the file connects things
// to it. Link ids: the out channels of router r are PortBase(r)+p, then
// InjectLink(n) = (all router ports) + n.
//
// Shortest-path distances from every router to every router that hosts
// nodes are computed when the file is read (breadth-first search), so
// RouterHops is a table lookup and routing can follow shortest paths; this
// bounds custom graphs to MaxGraphRouters routers.
type Graph struct {
	name        string
	routerNames []string
	nodeNames   []string
	portBase    []int32 // len routers+1
	peer        []Peer  // per router port
	props       []LinkProps
	nodeRouter  []int32
	nodePort    []int32
	destIndex   []int32  // router → row of dist, or -1 if it hosts no node
	dist        []uint16 // [destIndex][router]
	overrides
}

// MaxGraphRouters bounds the routers of a custom graph (distances are
// kept in 16 bits).
const MaxGraphRouters = 1 << 15

// GraphError is a syntax or consistency error in a graph file.
type GraphError struct {
	File      string
	Line, Col int // 1-based; 0 when the error concerns the whole file
	Msg       string
}

func (e *GraphError) Error() string {
	if e.Line == 0 {
		return fmt.Sprintf("%s: %s", e.File, e.Msg)
	}
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg)
}

// optProps are link properties that may be unset.
type optProps struct {
	bw, lat       float64
	hasBW, hasLat bool
}

type pendingPort struct {
	peer  Peer
	props optProps
	node  bool // a terminal port
	line  int
}

type graphBuilder struct {
	file                 string
	names                map[string]int // router i → i, node i → -1-i
	routers              []string
	routerLine           []int
	nodes                []string
	ports                [][]pendingPort
	nodeRouter, nodePort []int32
	inject               []optProps
	def, defNode         optProps
	hasDef, hasDefNode   bool
	defLine, defNodeLine int
	lineNo               int
}

func (b *graphBuilder) errf(col int, format string, args ...any) error {
	return &GraphError{File: b.file, Line: b.lineNo, Col: col, Msg: fmt.Sprintf(format, args...)}
}

// expand turns "s[0-3]" into s0..s3; other names stay as they are.
func (b *graphBuilder) expand(t linefields.Field) ([]string, error) {
	open := strings.IndexByte(t.S, '[')
	if open < 0 {
		if strings.ContainsAny(t.S, "]=") {
			return nil, b.errf(t.Col, "%q is not a name (letters, digits, '_', '-', '.', or a range such as s[0-7])", t.S)
		}
		return []string{t.S}, nil
	}
	close := strings.IndexByte(t.S, ']')
	if close < open || close != len(t.S)-1 {
		return nil, b.errf(t.Col+open, "malformed range in %q (expected NAME[FIRST-LAST] at the end of the name)", t.S)
	}
	lo, hi, ok := strings.Cut(t.S[open+1:close], "-")
	a, err1 := strconv.Atoi(lo)
	z, err2 := strconv.Atoi(hi)
	if !ok || err1 != nil || err2 != nil || a < 0 || z < a {
		return nil, b.errf(t.Col+open, "malformed range %q (expected [FIRST-LAST] with 0 ≤ FIRST ≤ LAST)", t.S[open:])
	}
	if z-a >= MaxPorts {
		return nil, b.errf(t.Col+open, "range %q has more than %d names", t.S[open:], MaxPorts)
	}
	prefix := t.S[:open]
	out := make([]string, 0, z-a+1)
	for i := a; i <= z; i++ {
		out = append(out, prefix+strconv.Itoa(i))
	}
	return out, nil
}

// props parses trailing key=value tokens.
func (b *graphBuilder) props(toks []linefields.Field) (optProps, error) {
	var p optProps
	for _, t := range toks {
		k, v, ok := strings.Cut(t.S, "=")
		if !ok {
			return p, b.errf(t.Col, "unexpected %q (expected bw=RATE or lat=DURATION)", t.S)
		}
		vcol := t.Col + len(k) + 1
		switch strings.ToLower(k) {
		case "bw":
			if p.hasBW {
				return p, b.errf(t.Col, "bw given twice")
			}
			r, err := units.ParseRate(v)
			if err != nil {
				return p, b.errf(vcol, "bw: %v", err)
			}
			if !(r > 0) || math.IsInf(r, 0) {
				return p, b.errf(vcol, "bw: bandwidth must be positive and finite")
			}
			p.bw, p.hasBW = r, true
		case "lat":
			if p.hasLat {
				return p, b.errf(t.Col, "lat given twice")
			}
			d, err := units.ParseDuration(v)
			if err != nil {
				return p, b.errf(vcol, "lat: %v", err)
			}
			if d > 1e6 {
				return p, b.errf(vcol, "lat: latency above 10^6 s")
			}
			p.lat, p.hasLat = d, true
		default:
			return p, b.errf(t.Col, "unknown property %q (expected bw or lat)", k)
		}
	}
	return p, nil
}

func (b *graphBuilder) declare(t linefields.Field, name string, id int) error {
	if prev, dup := b.names[name]; dup {
		what := "router"
		if prev < 0 {
			what = "node"
		}
		return b.errf(t.Col, "%q is already declared as a %s", name, what)
	}
	if name == "" {
		return b.errf(t.Col, "empty name")
	}
	b.names[name] = id
	return nil
}

func (b *graphBuilder) router(t linefields.Field, name string) (int, error) {
	id, ok := b.names[name]
	if !ok {
		return 0, b.errf(t.Col, "unknown router %q (declare it with a router line first)", name)
	}
	if id < 0 {
		return 0, b.errf(t.Col, "%q is a node, expected a router", name)
	}
	return id, nil
}

func (b *graphBuilder) addPort(r int, pp pendingPort) (int, error) {
	if len(b.ports[r]) >= MaxPorts {
		return 0, b.errf(1, "router %q has more than %d ports", b.routers[r], MaxPorts)
	}
	b.ports[r] = append(b.ports[r], pp)
	return len(b.ports[r]) - 1, nil
}

func (b *graphBuilder) line(toks []linefields.Field) error {
	kw := strings.ToLower(toks[0].S)
	args := toks[1:]
	switch kw {
	case "default":
		node := false
		if len(args) > 0 && strings.EqualFold(args[0].S, "node") {
			node, args = true, args[1:]
		}
		if len(args) == 0 {
			return b.errf(toks[0].Col, "default: expected bw=RATE and/or lat=DURATION")
		}
		p, err := b.props(args)
		if err != nil {
			return err
		}
		if node {
			if b.hasDefNode {
				return b.errf(toks[0].Col, "second 'default node' line (the first is on line %d)", b.defNodeLine)
			}
			b.defNode, b.hasDefNode, b.defNodeLine = p, true, b.lineNo
		} else {
			if b.hasDef {
				return b.errf(toks[0].Col, "second 'default' line (the first is on line %d)", b.defLine)
			}
			b.def, b.hasDef, b.defLine = p, true, b.lineNo
		}
	case "router", "routers", "switch", "switches":
		if len(args) == 0 {
			return b.errf(toks[0].Col+len(toks[0].S), "router: expected one or more router names")
		}
		for _, t := range args {
			names, err := b.expand(t)
			if err != nil {
				return err
			}
			if len(b.routers)+len(names) > MaxGraphRouters {
				return b.errf(t.Col, "more than %d routers", MaxGraphRouters)
			}
			for _, n := range names {
				if err := b.declare(t, n, len(b.routers)); err != nil {
					return err
				}
				b.routers = append(b.routers, n)
				b.routerLine = append(b.routerLine, b.lineNo)
				b.ports = append(b.ports, nil)
			}
		}
	case "node", "nodes":
		if len(args) < 2 {
			return b.errf(toks[0].Col+len(toks[0].S), "node: expected NAME ROUTER [bw=RATE] [lat=DURATION]")
		}
		names, err := b.expand(args[0])
		if err != nil {
			return err
		}
		r, err := b.router(args[1], args[1].S)
		if err != nil {
			return err
		}
		p, err := b.props(args[2:])
		if err != nil {
			return err
		}
		if len(b.nodes)+len(names) > MaxNodes {
			return b.errf(args[0].Col, "more than %d nodes", MaxNodes)
		}
		for _, n := range names {
			if err := b.declare(args[0], n, -1-len(b.nodes)); err != nil {
				return err
			}
			id := len(b.nodes)
			port, err := b.addPort(r, pendingPort{peer: Peer{Kind: PeerNode, ID: id}, props: p, node: true, line: b.lineNo})
			if err != nil {
				return err
			}
			b.nodes = append(b.nodes, n)
			b.nodeRouter = append(b.nodeRouter, int32(r))
			b.nodePort = append(b.nodePort, int32(port))
			b.inject = append(b.inject, p)
		}
	case "link", "links":
		if len(args) < 2 {
			return b.errf(toks[0].Col+len(toks[0].S), "link: expected ROUTER ROUTER [bw=RATE] [lat=DURATION]")
		}
		left, err := b.expand(args[0])
		if err != nil {
			return err
		}
		right, err := b.expand(args[1])
		if err != nil {
			return err
		}
		if len(left) > 1 && len(right) > 1 {
			return b.errf(args[1].Col, "link: at most one side may be a range")
		}
		p, err := b.props(args[2:])
		if err != nil {
			return err
		}
		for _, ln := range left {
			a, err := b.router(args[0], ln)
			if err != nil {
				return err
			}
			for _, rn := range right {
				c, err := b.router(args[1], rn)
				if err != nil {
					return err
				}
				if a == c {
					return b.errf(args[1].Col, "link from %q to itself", ln)
				}
				pa, err := b.addPort(a, pendingPort{props: p, line: b.lineNo})
				if err != nil {
					return err
				}
				pc, err := b.addPort(c, pendingPort{props: p, line: b.lineNo})
				if err != nil {
					return err
				}
				b.ports[a][pa].peer = Peer{Kind: PeerRouter, ID: c, Port: pc}
				b.ports[c][pc].peer = Peer{Kind: PeerRouter, ID: a, Port: pa}
			}
		}
	default:
		return b.errf(toks[0].Col, "unknown keyword %q (expected default, router, node or link)", toks[0].S)
	}
	return nil
}

// ParseGraph reads a custom network from r; name is used in errors and in
// Spec ("file:NAME"). Options supply link defaults the file does not set.
func ParseGraph(r io.Reader, name string, opt Options) (*Graph, error) {
	b := &graphBuilder{file: name, names: map[string]int{}}
	br := bufio.NewReader(r)
	for {
		line, err := br.ReadString('\n')
		if len(line) > 0 {
			b.lineNo++
			if len(line) > 1<<20 {
				return nil, b.errf(1, "line longer than 1 MiB")
			}
			if toks := linefields.Split(line, ""); len(toks) > 0 {
				if e := b.line(toks); e != nil {
					return nil, e
				}
			}
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	}
	return b.finish(opt)
}

func (b *graphBuilder) resolve(p optProps, node bool, opt Options) LinkProps {
	out := DefaultLink
	if opt.Link != nil {
		out = *opt.Link
	}
	if node && opt.Terminal != nil {
		out = *opt.Terminal
	}
	layers := []optProps{b.def}
	if node {
		layers = append(layers, b.defNode)
	}
	layers = append(layers, p)
	for _, l := range layers {
		if l.hasBW {
			out.Bandwidth = l.bw
		}
		if l.hasLat {
			out.Latency = units.Picoseconds(l.lat)
		}
	}
	return out
}

func (b *graphBuilder) finish(opt Options) (*Graph, error) {
	fileErr := func(format string, args ...any) error {
		return &GraphError{File: b.file, Msg: fmt.Sprintf(format, args...)}
	}
	if len(b.routers) == 0 {
		return nil, fileErr("no routers (declare them with 'router NAME…')")
	}
	if len(b.nodes) == 0 {
		return nil, fileErr("no nodes (attach them with 'node NAME ROUTER')")
	}
	g := &Graph{name: b.file, routerNames: b.routers, nodeNames: b.nodes, nodeRouter: b.nodeRouter, nodePort: b.nodePort}
	R := len(b.routers)
	g.portBase = make([]int32, R+1)
	total := 0
	for r, ps := range b.ports {
		g.portBase[r] = int32(total)
		total += len(ps)
	}
	g.portBase[R] = int32(total)
	g.peer = make([]Peer, 0, total)
	g.props = make([]LinkProps, 0, total+len(b.nodes))
	for _, ps := range b.ports {
		for _, pp := range ps {
			g.peer = append(g.peer, pp.peer)
			g.props = append(g.props, b.resolve(pp.props, pp.node, opt))
		}
	}
	for _, p := range b.inject {
		g.props = append(g.props, b.resolve(p, true, opt))
	}
	// Connectivity: every router must be reachable from router 0.
	d0 := g.bfs(0, nil)
	for r, d := range d0 {
		if d == unreachable {
			return nil, &GraphError{File: b.file, Line: b.routerLine[r], Col: 1,
				Msg: fmt.Sprintf("router %q is not connected to router %q (every router must be reachable)", b.routers[r], b.routers[0])}
		}
	}
	g.destIndex = make([]int32, R)
	for r := range g.destIndex {
		g.destIndex[r] = -1
	}
	dests := 0
	for _, r := range b.nodeRouter {
		if g.destIndex[r] < 0 {
			g.destIndex[r] = int32(dests)
			dests++
		}
	}
	if dests*R > 1<<24 {
		return nil, fileErr("%d routers with nodes × %d routers is too large for the shortest-path table (limit %d entries)", dests, R, 1<<24)
	}
	g.dist = make([]uint16, dests*R)
	for r, i := range g.destIndex {
		if i >= 0 {
			g.bfs(r, g.dist[int(i)*R:int(i+1)*R])
		}
	}
	return g, nil
}

const unreachable = math.MaxUint16

// bfs fills dist (allocated if nil) with hop counts from router src.
func (g *Graph) bfs(src int, dist []uint16) []uint16 {
	R := len(g.routerNames)
	if dist == nil {
		dist = make([]uint16, R)
	}
	for i := range dist {
		dist[i] = unreachable
	}
	dist[src] = 0
	queue := []int32{int32(src)}
	for len(queue) > 0 {
		r := queue[0]
		queue = queue[1:]
		for _, p := range g.peer[g.portBase[r]:g.portBase[r+1]] {
			if p.Kind == PeerRouter && dist[p.ID] == unreachable {
				dist[p.ID] = dist[r] + 1
				queue = append(queue, int32(p.ID))
			}
		}
	}
	return dist
}

// Kind is KindCustom.
func (g *Graph) Kind() Kind { return KindCustom }

// Spec is "file:NAME".
func (g *Graph) Spec() string { return "file:" + g.name }

// NumNodes is the number of declared nodes.
func (g *Graph) NumNodes() int { return len(g.nodeNames) }

// NumRouters is the number of declared routers.
func (g *Graph) NumRouters() int { return len(g.routerNames) }

// RouterName is router r's name in the file.
func (g *Graph) RouterName(r int) string { return g.routerNames[r] }

// NodeName is node n's name in the file.
func (g *Graph) NodeName(n int) string { return g.nodeNames[n] }

// NumPorts is the number of links and nodes attached to router r.
func (g *Graph) NumPorts(r int) int {
	if r < 0 || r >= len(g.routerNames) {
		return 0
	}
	return int(g.portBase[r+1] - g.portBase[r])
}

// PortBase is the id of router r's first out channel.
func (g *Graph) PortBase(r int) int { return int(g.portBase[r]) }

// Peer is what port p of router r leads to.
func (g *Graph) Peer(r, p int) Peer {
	if p < 0 || p >= g.NumPorts(r) {
		return Peer{}
	}
	return g.peer[int(g.portBase[r])+p]
}

// Attach returns node n's router and port.
func (g *Graph) Attach(n int) (router, port int) { return int(g.nodeRouter[n]), int(g.nodePort[n]) }

// NumLinks is all router ports plus one injection channel per node.
func (g *Graph) NumLinks() int { return len(g.peer) + len(g.nodeNames) }

// OutLink is PortBase(r) + p.
func (g *Graph) OutLink(r, p int) LinkID {
	if p < 0 || p >= g.NumPorts(r) {
		return NoLink
	}
	return LinkID(int(g.portBase[r]) + p)
}

// InjectLink is (all router ports) + n.
func (g *Graph) InjectLink(n int) LinkID {
	if n < 0 || n >= len(g.nodeNames) {
		return NoLink
	}
	return LinkID(len(g.peer) + n)
}

// Link describes channel id.
func (g *Graph) Link(id LinkID) Link {
	i := int(id)
	if i < 0 || i >= g.NumLinks() {
		return Link{ID: id, Reverse: NoLink}
	}
	if i >= len(g.peer) {
		n := i - len(g.peer)
		r, p := g.Attach(n)
		return Link{ID: id, Valid: true, From: Peer{Kind: PeerNode, ID: n}, To: Peer{Kind: PeerRouter, ID: r, Port: p},
			Reverse: g.OutLink(r, p), Class: ClassTerminal, Props: g.apply(id, g.props[i])}
	}
	// Router of channel i: binary search over portBase.
	lo, hi := 0, len(g.routerNames)
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if int(g.portBase[mid]) <= i {
			lo = mid
		} else {
			hi = mid
		}
	}
	r, p := lo, i-int(g.portBase[lo])
	to := g.peer[i]
	l := Link{ID: id, Valid: true, From: Peer{Kind: PeerRouter, ID: r, Port: p}, To: to, Props: g.apply(id, g.props[i])}
	if to.Kind == PeerNode {
		l.Class, l.Reverse = ClassTerminal, g.InjectLink(to.ID)
	} else {
		l.Class, l.Reverse = ClassNetwork, g.OutLink(to.ID, to.Port)
	}
	return l
}

// Medium is NoLink.
func (g *Graph) Medium(int) LinkID { return NoLink }

// Distance is the number of hops from router r to router t, which must
// host at least one node; -1 otherwise.
func (g *Graph) Distance(r, t int) int {
	if t < 0 || t >= len(g.destIndex) || r < 0 || r >= len(g.destIndex) || g.destIndex[t] < 0 {
		return -1
	}
	return int(g.dist[int(g.destIndex[t])*len(g.routerNames)+r])
}

// RouterHops is the shortest-path distance between the nodes' routers.
func (g *Graph) RouterHops(a, b int) int {
	return g.Distance(int(g.nodeRouter[a]), int(g.nodeRouter[b]))
}

// Hops counts every link, terminal links included.
func (g *Graph) Hops(a, b int) int { return indirectHops(g.RouterHops(a, b), a, b) }

// Layout has no geometry.
func (g *Graph) Layout() Layout { return Layout{Style: LayoutGraph, Dims: []int{len(g.routerNames)}} }

// Coords are [router].
func (g *Graph) Coords(r int, buf []int) []int { return append(buf, r) }
