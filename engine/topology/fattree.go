package topology

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// FatTree is a k-ary n-tree (Petrini and Vanneschi), built as the extended
// generalized fat tree XGFT(n; k,…,k; 1,w2,…,wn) so that it can be tapered.
// Nodes are the k^n leaves; switches stand in n levels, level 0 holding the
// leaf switches (k nodes each). A switch at level l has k down ports
// (0..k-1) and, below the top, w up ports (k..k+w-1); an untapered tree has
// w = k and k^(n-1) switches per level, a full-bisection folded Clos.
//
// Labels: node d has base-k digits d_0 (least significant) … d_(n-1); the
// switches at level l that are its ancestors are those whose "x part" is
// d / k^(l+1) (the digits above l), and each ancestor's down port towards d
// is digit d_l. Going up, any up port leads to an ancestor of the same
// subtree, which is why up/down routing may choose freely (or by
// destination-mod-k) on the way up and has a single way down.
//
// Tapering: with "taperby=bw" (the default) every level keeps w = k up
// ports but the links between level l and l+1 have the bandwidth
// multiplied by f_0·…·f_l; with "taperby=count" level l has w = max(1,
// round(k·f_l)) up ports, so fewer switches stand above it, and links keep
// their bandwidth. Either way a taper of 0.5 halves the aggregate
// bandwidth from one level to the next.
//
// Router numbering: level 0 first, then level 1, …; within a level by
// index. Link ids: the out channels of router r are linkBase(r)+p in
// router order, then InjectLink(n) = (all out channels) + n.
type FatTree struct {
	k, levels int
	taper     []float64 // per boundary l → l+1
	byCount   bool
	w         []int       // up ports of a level-l switch (0 at the top)
	wprod     []int       // W[l] = Π w of the levels below l (the "y" radix)
	kpow      []int       // k^l, l = 0..levels
	count     []int       // switches per level
	offset    []int       // first router of each level
	linkBase  []int       // first out-channel id of each level
	upProps   []LinkProps // links between level l and l+1
	network   LinkProps
	terminal  LinkProps
	routers   int
	outLinks  int
	overrides
}

func newFatTree(k, levels int, taper []float64, byCount bool, network, terminal LinkProps) (*FatTree, error) {
	t := &FatTree{k: k, levels: levels, taper: append([]float64(nil), taper...), byCount: byCount, network: network, terminal: terminal}
	t.kpow = make([]int, levels+1)
	t.kpow[0] = 1
	for l := 1; l <= levels; l++ {
		if t.kpow[l-1] > MaxNodes/k {
			return nil, fmt.Errorf("fattree: k=%d, levels=%d has more than %d nodes", k, levels, MaxNodes)
		}
		t.kpow[l] = t.kpow[l-1] * k
	}
	t.w = make([]int, levels)
	t.wprod = make([]int, levels)
	t.count = make([]int, levels)
	t.offset = make([]int, levels)
	t.linkBase = make([]int, levels)
	t.upProps = make([]LinkProps, max(levels-1, 0))
	bwScale := 1.0
	wp := 1
	for l := 0; l < levels; l++ {
		t.wprod[l] = wp
		t.count[l] = t.kpow[levels-1-l] * wp
		if l < levels-1 {
			if byCount {
				t.w[l] = max(1, int(math.Round(float64(k)*taper[l])))
			} else {
				t.w[l] = k
				bwScale *= taper[l]
			}
			t.upProps[l] = LinkProps{Bandwidth: network.Bandwidth * bwScale, Latency: network.Latency}
			if wp > MaxRouters/t.w[l] {
				return nil, fmt.Errorf("fattree: k=%d, levels=%d has more than %d switches", k, levels, MaxRouters)
			}
			wp *= t.w[l]
		}
		t.offset[l] = t.routers
		t.linkBase[l] = t.outLinks
		t.routers += t.count[l]
		t.outLinks += t.count[l] * (k + t.w[l])
		if t.routers > MaxRouters {
			return nil, fmt.Errorf("fattree: k=%d, levels=%d has more than %d switches", k, levels, MaxRouters)
		}
	}
	return t, nil
}

// Kind is KindFatTree.
func (t *FatTree) Kind() Kind { return KindFatTree }

// Spec returns the canonical spec.
func (t *FatTree) Spec() string {
	var b strings.Builder
	fmt.Fprintf(&b, "fattree:k=%d,levels=%d", t.k, t.levels)
	same, tapered := true, false
	for _, f := range t.taper {
		if f != t.taper[0] {
			same = false
		}
		if f != 1 {
			tapered = true
		}
	}
	if tapered {
		b.WriteString(",taper=")
		if same {
			b.WriteString(strconv.FormatFloat(t.taper[0], 'g', -1, 64))
		} else {
			for i, f := range t.taper {
				if i > 0 {
					b.WriteByte('/')
				}
				b.WriteString(strconv.FormatFloat(f, 'g', -1, 64))
			}
		}
		if t.byCount {
			b.WriteString(",taperby=count")
		}
	}
	b.WriteString(formatProps("bw", "lat", t.network, DefaultLink))
	b.WriteString(formatProps("nbw", "nlat", t.terminal, t.network))
	return b.String()
}

// K is the arity: down ports per switch and nodes per leaf switch.
func (t *FatTree) K() int { return t.k }

// Levels is the number of switch levels.
func (t *FatTree) Levels() int { return t.levels }

// NumNodes is k^levels.
func (t *FatTree) NumNodes() int { return t.kpow[t.levels] }

// NumRouters is the number of switches.
func (t *FatTree) NumRouters() int { return t.routers }

// Level is the level of switch r (0 = leaves) and its index in the level.
func (t *FatTree) Level(r int) (level, index int) {
	for l := t.levels - 1; l >= 0; l-- {
		if r >= t.offset[l] {
			return l, r - t.offset[l]
		}
	}
	return 0, r
}

// SwitchesAt is the number of switches at level l.
func (t *FatTree) SwitchesAt(l int) int { return t.count[l] }

// Switch is the router number of switch index i at level l.
func (t *FatTree) Switch(l, i int) int { return t.offset[l] + i }

// NumUp is the number of up ports of a switch at level l (0 at the top).
func (t *FatTree) NumUp(l int) int { return t.w[l] }

// NumPorts is k down ports plus the up ports of r's level.
func (t *FatTree) NumPorts(r int) int {
	l, _ := t.Level(r)
	return t.k + t.w[l]
}

// IsAncestor reports whether switch r lies above node d (its subtree
// contains d).
func (t *FatTree) IsAncestor(r, d int) bool {
	l, i := t.Level(r)
	return i/t.wprod[l] == d/t.kpow[l+1]
}

// DownPort is the port of switch r at level l that leads towards node d,
// valid when r is an ancestor of d: digit l of d in base k.
func (t *FatTree) DownPort(l, d int) int { return (d / t.kpow[l]) % t.k }

// Peer is what port p of switch r leads to.
func (t *FatTree) Peer(r, p int) Peer {
	if r < 0 || r >= t.routers || p < 0 {
		return Peer{}
	}
	l, i := t.Level(r)
	if p >= t.k+t.w[l] {
		return Peer{}
	}
	x, y := i/t.wprod[l], i%t.wprod[l]
	if p < t.k {
		if l == 0 {
			return Peer{Kind: PeerNode, ID: x*t.k + p}
		}
		// Child at level l-1: position l becomes the x digit p; the y digit
		// removed is the child's up port.
		cw := t.wprod[l-1]
		cy, yl := y%cw, y/cw
		cx := p + t.k*x
		return Peer{Kind: PeerRouter, ID: t.offset[l-1] + cy + cw*cx, Port: t.k + yl}
	}
	j := p - t.k
	py := y + j*t.wprod[l]
	px := x / t.k
	return Peer{Kind: PeerRouter, ID: t.offset[l+1] + py + t.wprod[l+1]*px, Port: x % t.k}
}

// Attach returns node n's leaf switch and port.
func (t *FatTree) Attach(n int) (router, port int) { return n / t.k, n % t.k }

// NumLinks is the number of switch out channels plus one injection channel
// per node.
func (t *FatTree) NumLinks() int { return t.outLinks + t.NumNodes() }

func (t *FatTree) linkOf(r, p int) int {
	l, i := t.Level(r)
	return t.linkBase[l] + i*(t.k+t.w[l]) + p
}

// OutLink is the channel leaving switch r through port p.
func (t *FatTree) OutLink(r, p int) LinkID {
	if t.Peer(r, p).Kind == PeerNone {
		return NoLink
	}
	return LinkID(t.linkOf(r, p))
}

// InjectLink is the channel from node n to its leaf switch.
func (t *FatTree) InjectLink(n int) LinkID {
	if n < 0 || n >= t.NumNodes() {
		return NoLink
	}
	return LinkID(t.outLinks + n)
}

// Link describes channel id.
func (t *FatTree) Link(id LinkID) Link {
	i := int(id)
	if i < 0 || i >= t.NumLinks() {
		return Link{ID: id, Reverse: NoLink}
	}
	if i >= t.outLinks {
		n := i - t.outLinks
		r, p := t.Attach(n)
		return Link{ID: id, Valid: true, From: Peer{Kind: PeerNode, ID: n}, To: Peer{Kind: PeerRouter, ID: r, Port: p},
			Reverse: LinkID(t.linkOf(r, p)), Class: ClassTerminal, Props: t.apply(id, t.terminal)}
	}
	l := t.levels - 1
	for l > 0 && i < t.linkBase[l] {
		l--
	}
	np := t.k + t.w[l]
	r := t.offset[l] + (i-t.linkBase[l])/np
	p := (i - t.linkBase[l]) % np
	to := t.Peer(r, p)
	out := Link{ID: id, Valid: true, From: Peer{Kind: PeerRouter, ID: r, Port: p}, To: to}
	switch {
	case to.Kind == PeerNode:
		out.Class, out.Reverse, out.Props = ClassTerminal, LinkID(t.outLinks+to.ID), t.apply(id, t.terminal)
	case p < t.k:
		out.Class, out.Level, out.Props = ClassDown, l-1, t.apply(id, t.upProps[l-1])
		out.Reverse = LinkID(t.linkOf(to.ID, to.Port))
	default:
		out.Class, out.Level, out.Props = ClassUp, l, t.apply(id, t.upProps[l])
		out.Reverse = LinkID(t.linkOf(to.ID, to.Port))
	}
	return out
}

// Medium is NoLink.
func (t *FatTree) Medium(int) LinkID { return NoLink }

// CommonLevel is the lowest switch level whose subtrees contain both nodes
// (0 when they share a leaf switch).
func (t *FatTree) CommonLevel(a, b int) int {
	for l := 0; l < t.levels; l++ {
		if a/t.kpow[l+1] == b/t.kpow[l+1] {
			return l
		}
	}
	return t.levels - 1
}

// RouterHops is twice the common level: up to the nearest common ancestor
// and down again.
func (t *FatTree) RouterHops(a, b int) int { return 2 * t.CommonLevel(a, b) }

// Hops counts every link, terminal links included.
func (t *FatTree) Hops(a, b int) int { return indirectHops(t.RouterHops(a, b), a, b) }

// Layout stands the switches in levels.
func (t *FatTree) Layout() Layout {
	return Layout{Style: LayoutLevels, Dims: append([]int(nil), t.count...)}
}

// Coords are [level, index].
func (t *FatTree) Coords(r int, buf []int) []int {
	l, i := t.Level(r)
	return append(buf, l, i)
}
