package packet

import (
	"slices"

	"github.com/tracesim/tracesim/engine/des"
	"github.com/tracesim/tracesim/engine/routing"
)

// front returns the packet at the front of input buffer iv.
func (n *Network) front(iv int32) int32 {
	return n.ins[iv].front
}

// push appends packet id to input buffer iv of port gp (its slot was
// reserved by a credit) and schedules its routing when it is at the
// front.
func (n *Network) push(iv, gp, id int32, now des.Time) {
	q := &n.ins[iv]
	n.pk[id].next = -1
	if q.count == 0 {
		q.front = id
	} else {
		n.pk[q.back].next = id
	}
	q.back = id
	if n.smp.lazy { // beforeBuf's own test, which does not inline
		n.smp.beforeBuf(iv)
	}
	q.occupancy(now, +1)
	n.smp.touch(n.smp.bufOn, iv)
	if q.count == 1 {
		n.scheduleRoute(max(des.Add(n.pk[id].headArr, n.delay), q.readFree), iv, gp)
	}
}

// pop removes the front packet of input buffer q.
func (n *Network) pop(q *inBuf, now des.Time) {
	q.front = n.pk[q.front].next
	q.occupancy(now, -1)
}

// occupancy records a change of the buffer's occupancy by d at now.
func (q *inBuf) occupancy(now des.Time, d int) {
	c := q.count
	q.area += float64(float64(c) * float64(now-q.last))
	q.last = now
	c = uint16(int(c) + d)
	q.count = c
	q.max = max(q.max, c)
	q.pmax = max(q.pmax, c)
}

// avail returns the credits of output VC ov at now, collecting those that
// have come back.
func (n *Network) avail(ov int32) int32 {
	o := &n.outs[ov]
	if o.next <= n.now {
		n.collect(o, ov)
	}
	return o.credits
}

// collect takes the credits of output VC ov (o) that have come back by
// n.now, at least its front one.
func (n *Network) collect(o *outVC, ov int32) {
	for {
		o.head++
		if int32(o.head) == n.nb {
			o.head = 0
		}
		o.count--
		o.credits++
		if o.count == 0 {
			o.next = des.Never
			return
		}
		if o.next = *n.pendAt(o, ov, int32(o.head)); o.next > n.now {
			return
		}
	}
}

// pendAt returns the slot of output VC ov's (o's) ring of pending
// credits.
func (n *Network) pendAt(o *outVC, ov, slot int32) *des.Time {
	if n.pend == nil {
		return &o.ring[slot&(outRing-1)]
	}
	return &n.pend[ov*n.nb+slot]
}

// giveCredit returns one credit to output VC ov, of output port og, at
// time at.
func (n *Network) giveCredit(og, ov int32, at des.Time) {
	o := &n.outs[ov]
	slot := int32(o.head) + int32(o.count)
	if slot >= n.nb {
		slot -= n.nb
	}
	*n.pendAt(o, ov, slot) = at
	if o.count == 0 {
		o.next = at
	}
	o.count++
	if n.waited[og>>6]&(1<<uint(og&63)) != 0 {
		n.wakePort(og, at)
	}
}

// wakePort makes the waiters of output port og retry at time at.
func (n *Network) wakePort(og int32, at des.Time) {
	// wakeAt holds one more than the time (0: none, des.Never), so that
	// the table needs no initialisation.
	cur := des.Never
	if w := n.wakeAt[og]; w != 0 {
		cur = w - 1
	}
	if at < cur {
		n.wakeAt[og] = at + 1
		n.schedule(at, evWake, og)
	}
}

// armPort schedules a retry of og's waiters when its next credit comes
// back, if one is on its way.
func (n *Network) armPort(og int32, now des.Time) {
	next := des.Never
	for ov := og * n.nv; ov < (og+1)*n.nv; ov++ {
		o := &n.outs[ov]
		if o.next <= now {
			n.collect(o, ov)
		}
		next = min(next, o.next)
	}
	if next != des.Never {
		n.wakePort(og, next)
	}
}

// scheduleRoute schedules the routing of input buffer iv's front packet
// at time at; gp is the buffer's port, iv / VCs, carried in the event's
// argument so that the routing needs no division (the argument plays no
// part in the order of events).
func (n *Network) scheduleRoute(at des.Time, iv, gp int32) {
	n.h.Schedule(at, evRoute, iv, int64(gp))
}

// route handles the routing event of input buffer iv's (port gp's)
// front packet.
func (n *Network) route(iv, gp int32) {
	if !n.try(iv, gp) {
		n.wait(iv)
	}
}

// try routes the front packet of input buffer iv, of port gp, and sends
// it on if one of its choices has room. It leaves the choices in
// n.choices.
func (n *Network) try(iv, gp int32) bool {
	n.tries++
	now := n.now
	vc := iv - gp*n.nv
	pt := &n.ports[gp]
	base := n.portBase[pt.router]
	id := n.front(iv)
	p := &n.pk[id]
	if n.compact != nil && n.compact.RouteCompact(int(pt.router), int(pt.in), int(vc), &p.st, &n.hop) {
		return n.tryCompact(iv, gp, id, base, now)
	}
	n.choices, n.fromHop = n.alg.Route(int(pt.router), int(pt.in), int(vc), &p.st, n.choices[:0]), false
	if n.pickMost {
		// The first with the most credits leads, and it can leave if it
		// has one.
		if i, most := n.mostRoom(base); most > 0 {
			c := n.choices[i]
			og := base + c.Port
			n.depart(iv, gp, id, og, og*n.nv+int32(c.VC), now)
			return true
		}
	}
	for _, c := range n.choices {
		if n.take(iv, gp, id, base, c, now) {
			return true
		}
	}
	return false
}

// take sends input buffer iv's (port gp's) front packet id by choice c if
// c has the credits it needs (one, two for a bubble hop; an ejection
// always can), and reports whether it did. base is the router's first
// global port.
func (n *Network) take(iv, gp, id, base int32, c routing.Choice, now des.Time) bool {
	og := base + c.Port
	if c.Flags&routing.Eject != 0 {
		n.depart(iv, gp, id, og, -1, now)
		return true
	}
	ov := og*n.nv + int32(c.VC)
	need := int32(1)
	if c.Flags&routing.Bubble != 0 {
		need = 2
	}
	o := &n.outs[ov]
	if o.next <= now {
		n.collect(o, ov)
	}
	if o.credits >= need {
		n.depart(iv, gp, id, og, ov, now)
		return true
	}
	return false
}

// tryCompact is try for a routing that gave the hop in compact form
// (n.hop): the same choice as try over the expanded list — the first, in
// static order, of the adaptive choices with the most credits, else the
// last choice (escape or ejection) if it has the credits it needs — found
// without building the list: a packet that must wait is registered from
// n.hop (fromHop).
func (n *Network) tryCompact(iv, gp, id, base int32, now des.Time) bool {
	h := &n.hop
	best, bestOg, most := int32(-1), int32(-1), int32(0)
	lo, hi := int32(h.VCLo), int32(h.VCHi)
	for _, port := range h.Ports {
		og := base + port
		ov0 := og * n.nv
		for ov := ov0 + lo; ov < ov0+hi; ov++ {
			o := &n.outs[ov]
			if o.next <= now {
				n.collect(o, ov)
			}
			if o.credits > most {
				best, bestOg, most = ov, og, o.credits
			}
		}
	}
	if most > 0 {
		// The port kept beside the VC: no division on every hop.
		n.depart(iv, gp, id, bestOg, best, now)
		return true
	}
	if n.take(iv, gp, id, base, h.Last, now) {
		return true
	}
	n.fromHop = true
	return false
}

// mostRoom returns the index in n.choices of the first choice before the
// escape with the most credits, and its credits (0, index −1: none has
// one, or there are no such choices): the choice the occupancy order
// (nb − credits, least first, stable) would put first when the routing
// defers it (pickMost). base is the router's first global port.
func (n *Network) mostRoom(base int32) (int, int32) {
	best, most := -1, int32(0)
	for i, c := range n.choices {
		if c.Flags&(routing.Escape|routing.Eject) != 0 {
			break
		}
		ov := (base+c.Port)*n.nv + int32(c.VC)
		o := &n.outs[ov]
		if o.next <= n.now {
			n.collect(o, ov)
		}
		if o.credits > most {
			best, most = i, o.credits
		}
	}
	return best, most
}

// wait registers input buffer iv's front packet with the output ports of
// its choices (n.choices, as try left them).
func (n *Network) wait(iv int32) {
	now := n.now
	n.ins[iv].waiting = true
	n.ins[iv].gen++
	base := n.portBase[n.ports[iv/n.nv].router]
	if n.repeatable {
		n.hold(iv, base)
	}
	// The choices' distinct ports in order of first appearance, each
	// with the VCs the packet may take there, in one pass.
	ports := n.waitPorts[:0]
	if n.fromHop {
		// The hop's ports are distinct, each on the adaptive VCs; the
		// last choice's port is usually one of them.
		h := &n.hop
		if m := n.hopVCs(); m != 0 {
			for _, p := range h.Ports {
				ports = append(ports, portVCs{port: p, vcs: m})
			}
		}
		ports = addPortVC(ports, h.Last)
	} else {
		for _, c := range n.choices {
			ports = addPortVC(ports, c)
		}
	}
	gen := n.ins[iv].gen
	for _, pm := range ports {
		og := base + pm.port
		n.waiters[og] = append(n.waiters[og], waiter{iv: iv, gen: gen, vcs: pm.vcs})
		n.waited[og>>6] |= 1 << uint(og&63)
		n.armPort(og, now)
	}
	n.waitPorts = ports
}

// addPortVC adds choice c's port and VC to ports.
func addPortVC(ports []portVCs, c routing.Choice) []portVCs {
	k := 0
	for k < len(ports) && ports[k].port != c.Port {
		k++
	}
	if k == len(ports) {
		ports = append(ports, portVCs{port: c.Port})
	}
	ports[k].vcs |= 1 << uint(c.VC)
	return ports
}

// hopVCs returns n.hop's adaptive VCs as a set (bit v for VC v).
func (n *Network) hopVCs() uint64 {
	// A shift by 64 gives 0: all 64 VCs.
	return (uint64(1)<<n.hop.VCHi - 1) &^ (uint64(1)<<n.hop.VCLo - 1)
}

// portVCs is a port and a set of its virtual channels (bit v for VC v).
type portVCs struct {
	port int32
	vcs  uint64
}

// hold records n.choices (which try left, none of them an ejection, as
// the try failed) as the held choices of input buffer iv's waiting
// packet; base is the router's first global port.
func (n *Network) hold(iv, base int32) {
	q := &n.ins[iv]
	count := int32(len(n.choices))
	h := &n.hop
	if n.fromHop {
		count = int32(len(h.Ports))*int32(h.VCHi-h.VCLo) + 1
	}
	if count >= n.holdStride {
		// More than MaxChoices: not held, routed again at every wake-up.
		if q.hold != 0 {
			n.heldFree = append(n.heldFree, q.hold)
			q.hold = 0
		}
		return
	}
	if q.hold == 0 {
		if k := len(n.heldFree); k > 0 {
			q.hold = n.heldFree[k-1]
			n.heldFree = n.heldFree[:k-1]
		} else {
			n.held = append(n.held, make([]int32, n.holdStride)...)
			q.hold = int32(len(n.held)) / n.holdStride
		}
	}
	rec := n.held[(q.hold-1)*n.holdStride : q.hold*n.holdStride]
	rec[0] = count
	if !n.fromHop {
		for i, c := range n.choices {
			rec[1+i] = n.heldChoice(base, c)
		}
		return
	}
	i := 1
	for _, p := range h.Ports {
		ov := (base + p) * n.nv
		for v := int32(h.VCLo); v < int32(h.VCHi); v++ {
			rec[i] = (ov + v) << 2
			i++
		}
	}
	rec[i] = n.heldChoice(base, h.Last)
}

// heldChoice encodes choice c at the router whose first global port is
// base as a held choice: output VC, then heldBubble and heldEscape.
func (n *Network) heldChoice(base int32, c routing.Choice) int32 {
	x := ((base+c.Port)*n.nv + int32(c.VC)) << 2
	if c.Flags&routing.Bubble != 0 {
		x |= heldBubble
	}
	if c.Flags&routing.Escape != 0 {
		x |= heldEscape
	}
	return x
}

// Bits of a held choice, below its output VC.
const (
	heldBubble = 1 // a bubble hop: needs two credits
	heldEscape = 2 // the escape, where mostRoom stops
)

// pickHeld returns the output VC that try would give the waiting packet
// of held choices h at now — under pickMost the first choice before the
// escape with the most credits, if it has one, else (and without
// pickMost) the first with the credits it needs, one or two for a bubble
// hop — or −1 when none has room. A repeatable routing gives the packet
// the same choices again, so that this is try without routing it anew.
func (n *Network) pickHeld(h int32, now des.Time) int32 {
	rec := n.held[(h-1)*n.holdStride : h*n.holdStride]
	best, most := int32(-1), int32(0)
	for _, x := range rec[1 : 1+rec[0]] {
		ov := x >> 2
		o := &n.outs[ov]
		if o.next <= now {
			n.collect(o, ov)
		}
		if n.pickMost && x&heldEscape == 0 {
			if o.credits > most {
				best, most = ov, o.credits
			}
			continue
		}
		// Past the choices before the escape (none of which has a
		// credit when most is 0), or without pickMost: the first with
		// the credits it needs.
		if most > 0 {
			return best
		}
		if o.credits >= 1+x&heldBubble {
			return ov
		}
	}
	if most > 0 {
		return best
	}
	return -1
}

// portVCs returns the virtual channels of port p among n.choices.
func (n *Network) portVCs(p int32) uint64 {
	var m uint64
	if n.fromHop {
		h := &n.hop
		if slices.Contains(h.Ports, p) {
			m = n.hopVCs()
		}
		if h.Last.Port == p {
			m |= 1 << uint(h.Last.VC)
		}
		return m
	}
	for _, c := range n.choices {
		if c.Port == p {
			m |= 1 << uint(c.VC)
		}
	}
	return m
}

// creditVCs returns the virtual channels of output port og that have a
// credit at now.
func (n *Network) creditVCs(og int32, now des.Time) uint64 {
	var m uint64
	ov := og * n.nv
	for v := int32(0); v < n.nv; v++ {
		o := &n.outs[ov+v]
		if o.next <= now {
			n.collect(o, ov+v)
		}
		if o.credits > 0 {
			m |= 1 << uint(v)
		}
	}
	return m
}

// wake lets the packets waiting for output port og retry, in the order
// they started waiting. Only those that may take a VC with a credit are
// tried; the others keep their place. A packet that still cannot leave
// keeps its place at its other ports and waits at og again (registering
// anew at every port would put it behind every later waiter and fill
// the lists with stale entries).
func (n *Network) wake(og int32) {
	now := n.now
	if uint64(n.wakeAt[og]-1) <= uint64(now) { // 0 (none) wraps to the largest
		n.wakeAt[og] = 0
	}
	list := n.waiters[og]
	k := len(list)
	credit := n.creditVCs(og, now)
	kept := 0
	for i := 0; i < k; i++ {
		w := list[i]
		in := &n.ins[w.iv]
		if !in.waiting || in.gen != w.gen {
			continue // left by another port, or waiting anew
		}
		if credit&w.vcs == 0 {
			list[kept] = w
			kept++
			continue
		}
		if in.hold != 0 {
			// Routing it again would give the same choices: take the
			// one try would, or keep it waiting when none has room (the
			// try would fail and change nothing).
			ov := n.pickHeld(in.hold, now)
			if ov < 0 {
				list[kept] = w
				kept++
				continue
			}
			in.waiting = false
			n.tries++
			gp := w.iv / n.nv
			n.depart(w.iv, gp, n.front(w.iv), ov/n.nv, ov, now)
			credit = n.creditVCs(og, now)
			continue
		}
		in.waiting = false
		if n.try(w.iv, w.iv/n.nv) {
			credit = n.creditVCs(og, now)
			continue
		}
		in.waiting = true
		w.vcs = n.portVCs(og - n.portBase[n.ports[w.iv/n.nv].router])
		list[kept] = w
		kept++
	}
	if rest := n.waiters[og][k:]; len(rest) > 0 {
		// Waiters registered during the wake-up follow.
		n.waiters[og] = append(list[:kept], rest...)
	} else {
		n.waiters[og] = list[:kept]
	}
	if len(n.waiters[og]) > 0 {
		n.armPort(og, now)
	} else {
		n.waited[og>>6] &^= 1 << uint(og&63)
	}
}

// depart sends input buffer iv's (port gp's) front packet id out of port
// og, into output VC ov (-1 when it leaves the network to its destination
// node).
func (n *Network) depart(iv, gp, id, og, ov int32, now des.Time) {
	p := &n.pk[id]
	// The link leaving by og: og itself when links are numbered by port
	// (linkByPort), so that an ejection does not read the destination's
	// port record, a cache line a message on a large network.
	ol := og
	if !n.linkByPort {
		ol = n.ports[og].link
	}
	lk := &n.links[ol]
	s := max(now, lk.free)
	lat := lk.lat
	// Times add with des.Add: at a tiny bandwidth a packet can take
	// longer than simulated time lasts, and the kernel then refuses the
	// event at des.Never instead of the time wrapping into the past.
	e := max(des.Add(s, n.ser(p.bytes, lk)), p.tailArr)
	if n.medium != nil && n.medium[n.ports[og].router] >= 0 {
		// A bus: the packet also holds the shared medium.
		ml := n.medium[n.ports[og].router]
		m := &n.links[ml]
		s = max(s, m.free)
		em := des.Add(s, n.ser(p.bytes, m))
		e = max(e, em, des.Add(s, n.ser(p.bytes, lk)))
		n.smp.beforeLink(ml)
		m.free = em
		m.busy += em - s
		n.smp.touch(n.smp.linkOn, ml)
		m.bytes += p.bytes
		m.packets++
		lat = des.Add(lat, m.lat)
	}
	n.smp.beforeLink(ol)
	lk.free = e
	lk.busy += e - s
	n.smp.touch(n.smp.linkOn, ol)
	lk.bytes += p.bytes
	lk.packets++
	n.hops++

	// Leave the input buffer: the slot is free once the tail has left,
	// and the upstream router learns it one link latency later.
	q := &n.ins[iv]
	if w := s - p.headArr - n.delay; w > n.cfg.WaitThreshold {
		q.long++
		n.longWaits++
		n.smp.longWaits++
	}
	if n.smp.lazy {
		n.smp.beforeBuf(iv)
	}
	n.pop(q, now)
	n.smp.touch(n.smp.bufOn, iv)
	q.readFree = e
	if q.hold != 0 {
		n.heldFree = append(n.heldFree, q.hold)
		q.hold = 0
	}
	in := &n.ports[gp]
	cl := n.sameLat
	if cl < 0 {
		cl = n.links[in.link].lat
	}
	back := des.Add(e, cl)
	if up := in.peer; up >= 0 {
		n.giveCredit(up, up*n.nv+(iv-gp*n.nv), back)
	} else {
		n.nicCredit(^up, back)
	}
	if q.count > 0 {
		next := &n.pk[n.front(iv)]
		n.scheduleRoute(max(e, des.Add(next.headArr, n.delay)), iv, gp)
	}

	if ov < 0 {
		// Ejection: the destination's interface takes the packet.
		arr := des.Add(e, lat)
		n.pktLat.Add(arr - p.born)
		n.smp.pktLat.Add(arr - p.born)
		n.packets++
		n.pktInFlight--
		n.smp.packets++
		if p.whole {
			// Its arrival is the message's (arr is after the send: the
			// record's arrival, which starts there, would be arr).
			n.schedule(arr, evDeliver, p.msg)
		} else if g := &n.msgs[p.msg]; n.arrived(g, arr) {
			n.schedule(g.arrival, evDeliver, p.msg)
		}
		n.freePkt(id)
		return
	}
	n.outs[ov].credits--
	p.headArr = des.Add(s, lat)
	p.tailArr = des.Add(e, lat)
	down := n.ports[og].peer
	n.push(down*n.nv+(ov-og*n.nv), down, id, now)
}

// arrived records the arrival at arr of one of message g's packets and
// reports whether it was the last.
func (n *Network) arrived(g *msg, arr des.Time) bool {
	g.arrival = max(g.arrival, arr)
	g.toArr--
	return g.toArr == 0
}

// pump injects the packets of the messages queued on injection lane ln
// while its buffer at the router has room.
func (n *Network) pump(ln int32) {
	now := n.now
	c := &n.nics[ln]
	var nq *nodeQueue
	if n.nq != nil {
		nq = &n.nq[c.node]
	}
	for c.qhead >= 0 && n.nicAvail(ln, now) > 0 {
		slot := c.qhead
		g := &n.msgs[slot]
		payload := n.payload(g)
		id := n.allocPkt()
		p := &n.pk[id]
		*p = pkt{msg: slot, next: -1, bytes: payload + n.cfg.Header, born: now,
			whole: n.cfg.PacketSize <= 0 || g.bytes <= n.cfg.PacketSize}
		n.alg.Init(&p.st, int(g.src), int(g.dst))
		s, e, lat := n.inject(c, p.bytes, now)
		n.hops++
		p.headArr = des.Add(s, lat)
		p.tailArr = des.Add(e, lat)
		c.credits--
		n.pktInFlight++
		n.smp.injected += payload
		g.toEmit--
		c.queued--
		if nq != nil {
			nq.queued--
		}
		if g.toEmit == 0 {
			c.qhead = g.next
			if c.qhead < 0 {
				c.qtail = -1
			}
			if g.notify {
				n.schedule(e, evInjected, slot)
			}
		}
		n.push(c.iv, c.iv/n.nv, id, now)
	}
	if c.qhead >= 0 && c.count > 0 {
		n.nicWake(ln, *n.lanePendAt(c, ln, int32(c.head)))
	}
}

// inject sends a packet of b wire bytes over lane c's injection link
// at now and returns when it starts and ends on the link, and the
// link's latency.
func (n *Network) inject(c *nic, b int64, now des.Time) (s, e, lat des.Time) {
	s = max(now, c.free)
	if n.laneLinks {
		// The lane is the link's only user: the link is free when the
		// lane is (c.free), and busy from s to e.
		e = des.Add(s, n.serAt(b, n.injPS))
		if n.smp.lazy {
			n.smp.beforeLane(c)
		}
		c.free = e
		c.busy += e - s
		c.bytes += b
		c.packets++
		return s, e, n.injLat
	}
	// The lane has the injection link to itself; the link's busy
	// time counts the union of its lanes' transmissions.
	lk := &n.links[c.inject]
	e = des.Add(s, n.ser(b, lk))
	c.free = e
	n.smp.beforeLink(c.inject)
	if e > lk.free {
		lk.busy += e - max(s, lk.free)
		lk.free = e
	}
	lk.bytes += b
	lk.packets++
	n.smp.touch(n.smp.linkOn, c.inject)
	return s, e, lk.lat
}

// payload returns the payload of message g's next packet: PacketSize
// for every packet but the last, which carries the rest, (bytes − 1) mod
// PacketSize + 1 (0 for an empty message); the whole message when it is
// sent as one packet.
func (n *Network) payload(g *msg) int64 {
	ps := n.cfg.PacketSize
	switch {
	case ps <= 0 || g.bytes <= 0:
		return g.bytes
	case g.toEmit > 1:
		return ps
	}
	return (g.bytes-1)%ps + 1
}

// nicAvail returns lane ln's credits at now, taking those that have come
// back.
func (n *Network) nicAvail(ln int32, now des.Time) int32 {
	c := &n.nics[ln]
	for c.count > 0 && *n.lanePendAt(c, ln, int32(c.head)) <= now {
		c.head++
		if int32(c.head) == n.nb {
			c.head = 0
		}
		c.count--
		c.credits++
	}
	return c.credits
}

// lanePendAt returns the slot of lane ln's (c's) ring of pending credits.
func (n *Network) lanePendAt(c *nic, ln, slot int32) *des.Time {
	if n.lanePend == nil {
		return &c.ring[slot&(outRing-1)]
	}
	return &n.lanePend[ln*n.nb+slot]
}

// nicCredit returns a credit to lane ln at time at.
func (n *Network) nicCredit(ln int32, at des.Time) {
	c := &n.nics[ln]
	slot := int32(c.head) + int32(c.count)
	if slot >= n.nb {
		slot -= n.nb
	}
	*n.lanePendAt(c, ln, slot) = at
	c.count++
	if c.qhead >= 0 {
		n.nicWake(ln, at)
	}
}

func (n *Network) nicWake(node int32, at des.Time) {
	c := &n.nics[node]
	if at < c.at {
		c.at = at
		n.schedule(at, evNIC, node)
	}
}

// Occupancy implements routing.Queues: the packets in, or committed to,
// the buffer downstream of router r's port p, VC vc.
func (n *Network) Occupancy(r, p, vc int) int {
	og := n.portBase[r] + int32(p)
	if n.ports[og].peer < 0 {
		return 0
	}
	ov := og*n.nv + int32(vc)
	n.now = n.h.Now()
	return int(n.nb - n.avail(ov))
}

// liveQueues is the network as the routing sees it (routing.Queues):
// Occupancy at the clock of the event being handled, which the network
// has read once.
type liveQueues Network

// Occupancy implements routing.Queues.
func (q *liveQueues) Occupancy(r, p, vc int) int {
	n := (*Network)(q)
	og := n.portBase[r] + int32(p)
	if n.ports[og].peer < 0 {
		return 0
	}
	ov := og*n.nv + int32(vc)
	o := &n.outs[ov]
	if o.next <= n.now { // avail, written out: it is the routing's hot path
		n.collect(o, ov)
	}
	return int(n.nb - o.credits)
}

// Occupancies implements routing.BatchQueues.
func (q *liveQueues) Occupancies(r int, cands []routing.Choice, keys []int32) {
	n := (*Network)(q)
	base := n.portBase[r]
	keys = keys[:len(cands)]
	for i, c := range cands {
		// The routing orders only ports towards other routers: a port
		// towards a node (or nowhere) has no downstream buffer, and its
		// output VCs are not set (Network.outs); Occupancy says 0 for
		// it.
		ov := (base+c.Port)*n.nv + int32(c.VC)
		o := &n.outs[ov]
		if o.next <= n.now {
			n.collect(o, ov)
		}
		keys[i] = n.nb - o.credits
	}
}
