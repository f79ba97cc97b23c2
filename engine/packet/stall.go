package packet

import (
	"fmt"
	"slices"
	"strings"

	"github.com/tracesim/tracesim/engine/netmodel"
	"github.com/tracesim/tracesim/engine/routing"
	"github.com/tracesim/tracesim/engine/topology"
)

// maxListed bounds the buffers a stall report lists one by one.
const maxListed = 256

// Stall describes the packets that wait for buffer space: the full
// buffers and, when the waits form one, a cycle of buffers whose head
// packets each wait for the next (a deadlock). It returns nil when no
// packet waits. It asks the routing algorithm for the choices of the
// waiting packets again, so it may consume random numbers of random
// routings: call it when the simulation has stopped.
func (n *Network) Stall() *netmodel.Stall {
	st := &netmodel.Stall{Full: []netmodel.Buffer{}, Cycle: []netmodel.Buffer{}}
	for iv := range n.ins {
		if n.ins[iv].waiting {
			st.Waiting += int(n.ins[iv].count)
		}
		if n.ins[iv].count > 0 && int32(n.ins[iv].count) == n.nb {
			st.FullCount++
			if len(st.Full) < maxListed {
				st.Full = append(st.Full, n.buffer(int32(iv)))
			}
		}
	}
	for i := range n.nics {
		if c := &n.nics[i]; c.qhead >= 0 && c.credits == 0 && c.count == 0 {
			st.Waiting += int(c.queued)
		}
	}
	if st.Waiting == 0 {
		return nil
	}
	for _, iv := range n.cycle() {
		st.Cycle = append(st.Cycle, n.buffer(iv))
	}
	return st
}

// blockedOn appends the input buffers that the head packet of waiting
// buffer iv needs room in and does not have.
func (n *Network) blockedOn(iv int32, out []int32) []int32 {
	gp := iv / n.nv
	r := n.ports[gp].router
	base := n.portBase[r]
	st := n.pk[n.front(iv)].st
	now := n.h.Now()
	n.now = now
	n.choices = n.alg.Route(int(r), int(n.ports[gp].in), int(iv-gp*n.nv), &st, n.choices[:0])
	for _, c := range n.choices {
		if c.Flags&routing.Eject != 0 {
			continue
		}
		og := base + c.Port
		ov := og*n.nv + int32(c.VC)
		need := int32(1)
		if c.Flags&routing.Bubble != 0 {
			need = 2
		}
		if n.avail(ov) < need {
			down := n.ports[og].peer*n.nv + int32(c.VC)
			if !slices.Contains(out, down) {
				out = append(out, down)
			}
		}
	}
	return out
}

// cycle finds a cycle among the waiting buffers (iv → the buffers its head
// packet waits for), starting at its lowest buffer, first repeated at the
// end; nil if there is none.
func (n *Network) cycle() []int32 {
	const (
		white = iota
		grey
		black
	)
	color := map[int32]uint8{}
	var stack []int32
	var found []int32
	var buf []int32
	var visit func(iv int32) bool
	visit = func(iv int32) bool {
		color[iv] = grey
		stack = append(stack, iv)
		next := slices.Clone(n.blockedOn(iv, buf[:0]))
		for _, w := range next {
			if !n.ins[w].waiting {
				continue
			}
			switch color[w] {
			case grey:
				i := slices.Index(stack, w)
				found = slices.Clone(stack[i:])
				return true
			case white:
				if visit(w) {
					return true
				}
			}
		}
		stack = stack[:len(stack)-1]
		color[iv] = black
		return false
	}
	for iv := range n.ins {
		if n.ins[iv].waiting && color[int32(iv)] == white && visit(int32(iv)) {
			lo := slices.Index(found, slices.Min(found))
			c := slices.Concat(found[lo:], found[:lo])
			return append(c, c[0])
		}
	}
	return nil
}

// buffer describes input buffer iv.
func (n *Network) buffer(iv int32) netmodel.Buffer {
	gp := iv / n.nv
	r := n.ports[gp].router
	p := n.ports[gp].in
	vc := iv - gp*n.nv
	if gp >= n.portBase[len(n.portBase)-1] {
		// An injection lane's buffer: named after the port it feeds, as
		// the node's lanes share the terminal port's number.
		l := ^n.ports[gp].peer
		c, out := &n.nics[l], n.laneOut[l]
		return netmodel.Buffer{Router: r, Port: p, VC: vc, Packets: int32(n.ins[iv].count), Capacity: n.nb,
			Name:  fmt.Sprintf("r%d.p%d>p%d", r, p, out),
			Where: fmt.Sprintf("router %d%s, node %d's injection lane towards port %d (%s)", r, n.at(int(r)), c.node, out, n.portLabel(int(r), int(out)))}
	}
	return netmodel.Buffer{Router: r, Port: p, VC: vc, Packets: int32(n.ins[iv].count), Capacity: n.nb,
		Name:  fmt.Sprintf("r%d.p%d/vc%d", r, p, vc),
		Where: fmt.Sprintf("router %d%s, port %d (%s), VC %d", r, n.at(int(r)), p, n.portLabel(int(r), int(p)), vc)}
}

// at renders router r's coordinates: " at (3,0)".
func (n *Network) at(r int) string {
	lay := n.Layout()
	if lay.Style == topology.LayoutStar || lay.Style == topology.LayoutGraph {
		return ""
	}
	c := lay.RouterCoords(r)
	parts := make([]string, len(c))
	for i, x := range c {
		parts[i] = fmt.Sprint(x)
	}
	switch lay.Style {
	case topology.LayoutLevels:
		return fmt.Sprintf(" (level %s, switch %s)", parts[0], parts[1])
	case topology.LayoutGroups:
		return fmt.Sprintf(" (group %s, router %s)", parts[0], parts[1])
	}
	return " at (" + strings.Join(parts, ",") + ")"
}

// portLabel says what port p of router r is ("x- side": the port towards
// the x− neighbour, whose input carries packets travelling x+) and where
// its input comes from.
func (n *Network) portLabel(r, p int) string {
	pe := n.topo.Peer(r, p)
	from := "unconnected"
	switch pe.Kind {
	case topology.PeerRouter:
		from = fmt.Sprintf("from router %d", pe.ID)
	case topology.PeerNode:
		from = fmt.Sprintf("from node %d", pe.ID)
	}
	kind := ""
	switch t := n.topo.(type) {
	case *topology.Grid:
		if d, dir, ok := t.PortDim(p); ok {
			kind = netmodel.GridGroup(d, dir) + " side, "
		}
	case *topology.FatTree:
		if p < t.K() {
			kind = "down side, "
		} else {
			kind = "up side, "
		}
	case *topology.Dragonfly:
		switch {
		case t.IsGlobalPort(p):
			kind = "global, "
		case !t.IsTerminalPort(p):
			kind = "local, "
		}
	}
	return kind + from
}

// Explain describes, one line per item, why messages in flight cannot
// progress: the waiting packets, the full buffers and their cycle.
func (n *Network) Explain() []string {
	st := n.Stall()
	if st == nil {
		if n.inFlight > 0 {
			return []string{fmt.Sprintf("%d messages are in the network and no packet waits for buffer space", n.inFlight)}
		}
		return nil
	}
	total := 0
	for iv := range n.ins {
		if n.ports[int32(iv)/n.nv].peer != noPeer {
			total++
		}
	}
	lines := []string{fmt.Sprintf("%d packets wait for buffer space; %d of %d input buffers (%d packets each) are full",
		st.Waiting, st.FullCount, total, n.nb)}
	if len(st.Cycle) > 0 {
		names := make([]string, len(st.Cycle))
		for i, b := range st.Cycle {
			names[i] = b.Name
		}
		lines = append(lines, fmt.Sprintf("deadlock: a cycle of %d buffers whose head packets wait for each other: %s",
			len(st.Cycle)-1, strings.Join(names, " → ")))
	}
	shown := 0
	var buf []int32
	for iv := range n.ins {
		if !n.ins[iv].waiting {
			continue
		}
		if shown == 8 {
			lines = append(lines, "…")
			break
		}
		shown++
		b := n.buffer(int32(iv))
		p := &n.pk[n.front(int32(iv))]
		var need []string
		for _, w := range n.blockedOn(int32(iv), buf[:0]) {
			need = append(need, fmt.Sprintf("%s (%d/%d)", n.buffer(w).Name, n.ins[w].count, n.nb))
		}
		lines = append(lines, fmt.Sprintf("%s, %s, holds %d/%d packets; its head packet (node %d → node %d) waits for room in %s",
			b.Name, b.Where, b.Packets, n.nb, p.st.Src, p.st.Dst, strings.Join(need, " or ")))
	}
	for i := range n.nics {
		c := &n.nics[i]
		if c.qhead >= 0 && c.credits == 0 && c.count == 0 {
			if shown == 16 {
				lines = append(lines, "…")
				break
			}
			shown++
			lines = append(lines, fmt.Sprintf("node %d's interface holds %d packets waiting for room in %s (%d/%d)",
				c.node, c.queued, n.buffer(c.iv).Name, n.ins[c.iv].count, n.nb))
		}
	}
	return lines
}
