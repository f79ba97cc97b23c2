package packet

import (
	"math/bits"

	"github.com/tracesim/tracesim/engine/des"
	"github.com/tracesim/tracesim/engine/netmodel"
	"github.com/tracesim/tracesim/engine/topology"
)

// Link groups of every topology.
const (
	groupInject = netmodel.GroupInject
	groupEject  = netmodel.GroupEject
)

// groups assigns every link a group (see netmodel.Metrics.Groups).
func (n *Network) groups() {
	t := n.topo
	n.groupNames, n.linkGroup = netmodel.LinkGroups(t)
	n.groupLinks, n.routerLinks = netmodel.CountGroups(t, n.linkGroup, len(n.groupNames))
}

// busyAt is the link's transmission time up to time t. Reservations made
// up to t that end after it form one contiguous block ending at its free
// time, because a link is reserved from the later of now and its free
// time.
func (l *link) busyAt(t des.Time) des.Time { return busyAt(l.busy, l.free, t) }

// areaAt is the buffer's occupancy integral up to time t.
func (q *inBuf) areaAt(t des.Time) float64 { return areaAt(q.area, q.count, q.last, t) }

// busyAt is the transmission time up to t of a link that has been busy
// for busy in all and is reserved until free.
func busyAt(busy, free, t des.Time) des.Time { return busy - max(0, free-t) }

// areaAt is the occupancy integral up to t of a buffer whose integral was
// area at last, holding count packets since.
func areaAt(area float64, count uint16, last, t des.Time) float64 {
	return area + float64(float64(count)*float64(t-last))
}

// linkSnap is a link's state (see link) as it was at the end of sample
// tick-1 (0: none), taken at its first change after that sample.
type linkSnap struct {
	busy, free des.Time
	tick       uint64
}

// bufSnap is an input buffer's state (see inBuf) as it was at the end of
// sample tick-1 (0: none), taken at its first change after that sample.
type bufSnap struct {
	area        float64
	last        des.Time
	tick        uint64
	count, pmax uint16
}

// sampler measures the network every period in which it carries traffic.
// It needs no events of its own: the network's state only changes at its
// events, so the sample of a period that ended at T can be taken at the
// next event after T (flush), from the state the network was in at T —
// links busy up to T, buffers' occupancy integrals up to T, the counters
// of the events up to T.
type sampler struct {
	n    *Network
	clk  netmodel.SampleClock
	last des.Time // end of the last period measured
	// marked is the end of the period the last event marked active
	// (des.Never without samples; 0 after a flush): the clock then has
	// nothing to flush before it (it ends every period it flushes at the
	// first multiple of its period after the flush's time) and the
	// period stays marked, so an event before it skips the clock — one
	// compare per event instead of a call.
	marked des.Time
	// Marks at the end of the last period.
	busyMark  []des.Time
	bytesMark []int64
	lastUtil  []float32
	areaMark  []float64
	lastMean  []float32
	lastMax   []uint16
	// linkOn and bufOn have bit l (iv) set for the links (buffers) a
	// sample must look at: those that changed in the period, and those
	// whose last figures are not all zero or that keep changing without
	// an event (a link reserved past the sample, a buffer holding
	// packets). Every other one would give zeros again and list nothing,
	// so Tick skips it: on a large network most of them are idle in
	// most periods.
	linkOn, bufOn []uint64
	// Accumulated during the current period.
	delivered uint64
	packets   uint64
	injected  int64
	longWaits uint64
	msgLat    netmodel.LatencyAcc
	pktLat    netmodel.LatencyAcc
	sample    netmodel.Sample
	groupBusy []des.Time
	// routerBufs is the number of the routers' input buffers; the
	// lanes' follow.
	routerBufs int32

	// lazy is set when no one reads the samples (no OnSample): only the
	// last sample's figures of each link and buffer are ever seen (in
	// Metrics), so a tick only counts itself and records its end and
	// length, and Metrics works them out from the state each link and
	// buffer was in at the last two samples. That state is the present
	// one unless the link or buffer changed since, and before its first
	// change after a sample it keeps a copy (beforeLink, beforeBuf): the
	// copies of its last two changed periods are enough, since a change
	// in the period between them would have left a copy of its own.
	// Sampling then costs one compare per change instead of a look at
	// every busy link and buffer every period, and every figure is the
	// same expression of the same state as the eager sample's.
	lazy bool
	// ticks is the number of samples taken; prev is the end of the one
	// before the last (0: none), lastPeriod the length the last used.
	ticks      uint64
	prev       des.Time
	lastPeriod des.Time
	// linkSnaps[l] and bufSnaps[iv] are the copies, the latest first.
	linkSnaps [][2]linkSnap
	bufSnaps  [][2]bufSnap
}

func (s *sampler) init(n *Network) {
	s.n = n
	s.clk = netmodel.NewSampleClock(n.cfg.SamplePeriod)
	if s.clk.Period <= 0 {
		return
	}
	L := len(n.links)
	s.routerBufs = n.portBase[len(n.portBase)-1] * n.nv
	if n.cfg.OnSample == nil {
		s.lazy = true
		s.linkSnaps = make([][2]linkSnap, L)
		// Metrics reads the last samples of the routers' buffers only,
		// not of the lanes'.
		s.bufSnaps = make([][2]bufSnap, s.routerBufs)
		return
	}
	s.busyMark = make([]des.Time, L)
	s.bytesMark = make([]int64, L)
	s.lastUtil = make([]float32, L)
	s.areaMark = make([]float64, len(n.ins))
	s.lastMean = make([]float32, len(n.ins))
	s.lastMax = make([]uint16, len(n.ins))
	s.linkOn = make([]uint64, (L+63)/64)
	s.bufOn = make([]uint64, (len(n.ins)+63)/64)
	s.groupBusy = make([]des.Time, len(n.groupNames))
	s.sample.Groups = make([]netmodel.GroupSample, len(n.groupNames))
	s.sample.Measures = n.Measures()
}

// Measures implements netmodel.Measurer: packets and router buffers; a
// packet model has no flows.
func (n *Network) Measures() netmodel.Measures {
	return netmodel.MeasurePackets | netmodel.MeasureQueues
}

// touch marks element i of set (linkOn or bufOn; nil when not sampling)
// as changed.
func (s *sampler) touch(set []uint64, i int32) {
	if set != nil {
		set[i>>6] |= 1 << uint(i&63)
	}
}

// beforeLink keeps, in lazy mode, link l's state at the last sample
// before its first change since: the caller is about to change it.
func (s *sampler) beforeLink(l int32) {
	if !s.lazy {
		return
	}
	// The link's copy of its latest snapshot's tick saves a look at
	// linkSnaps on every change but a period's first.
	lk := &s.n.links[l]
	if lk.snap != s.ticks+1 {
		lk.snap = s.ticks + 1
		sn := &s.linkSnaps[l]
		sn[1] = sn[0]
		sn[0] = linkSnap{busy: lk.busy, free: lk.free, tick: s.ticks + 1}
	}
}

// beforeLane is beforeLink for lane c's injection link under
// Network.laneLinks, whose state the lane keeps.
func (s *sampler) beforeLane(c *nic) {
	if c.snap != s.ticks+1 {
		c.snap = s.ticks + 1
		sn := &s.linkSnaps[c.inject]
		sn[1] = sn[0]
		sn[0] = linkSnap{busy: c.busy, free: c.free, tick: s.ticks + 1}
	}
}

// beforeBuf keeps, in lazy mode, input buffer iv's state at the last
// sample before its first change since, and starts its maximum of the
// period (pmax) there as the eager sample would have: the caller is about
// to change it. A lane's buffer, whose samples no one reads, keeps none.
func (s *sampler) beforeBuf(iv int32) {
	if !s.lazy || iv >= s.routerBufs {
		return
	}
	q := &s.n.ins[iv]
	if q.snap != s.ticks+1 {
		q.snap = s.ticks + 1
		sn := &s.bufSnaps[iv]
		sn[1] = sn[0]
		sn[0] = bufSnap{area: q.area, last: q.last, tick: s.ticks + 1, count: q.count, pmax: q.pmax}
		q.pmax = q.count
	}
}

// flush measures every period that ended at or before now.
func (s *sampler) flush(now des.Time) {
	s.clk.Flush(now, s.n.inFlight > 0, s)
	s.marked = 0 // the flush may have started a period not marked active
}

// event flushes the finished periods and marks the current one active.
// An event before marked needs neither: the last call marked the period
// that is still current (see marked).
func (s *sampler) event(now des.Time) {
	if now >= s.marked {
		s.mark(now)
	}
}

// mark is event past the marked period.
func (s *sampler) mark(now des.Time) {
	s.clk.Event(now, s.n.inFlight > 0, s)
	s.marked = des.Never
	if p := s.clk.Period; p > 0 {
		s.marked = (now/p + 1) * p
	}
}

// finish measures the last period once the simulation has ended at now.
func (s *sampler) finish(now des.Time) {
	s.clk.Finish(now, s.n.inFlight > 0, s)
	s.marked = 0
}

// Tick measures the period ending at t; span measures everything since
// the last sample instead (a quiet stretch: see netmodel.SampleClock).
func (s *sampler) Tick(t des.Time, span bool) {
	n := s.n
	period := t - s.last
	if !span && (s.last == 0 || period > s.clk.Period) {
		period = s.clk.Period
	}
	if s.lazy {
		s.prev, s.last, s.lastPeriod = s.last, t, period
		s.ticks++
		return
	}
	sm := &s.sample
	sm.Time, sm.Period = t, period
	sm.Delivered, sm.Packets, sm.InjectedBytes, sm.LongWaits = s.delivered, s.packets, s.injected, s.longWaits
	sm.MessageLatency, sm.PacketLatency = s.msgLat.Summary(), s.pktLat.Summary()
	sm.PacketsInFlight = n.pktInFlight
	sm.Links = sm.Links[:0]
	sm.Queues = sm.Queues[:0]
	for g := range s.groupBusy {
		s.groupBusy[g] = 0
		sm.Groups[g] = netmodel.GroupSample{Name: n.groupNames[g]}
	}
	sm.LevelShare = n.levelShare(sm.LevelShare[:0], func(l int) int64 { return n.links[l].bytes - s.bytesMark[l] })
	var routerBusy des.Time
	sm.MaxUtilisation = 0
	for w, word := range s.linkOn {
		for ; word != 0; word &= word - 1 {
			l := w<<6 + bits.TrailingZeros64(word)
			s.tickLink(l, t, period, &routerBusy)
			if s.lastUtil[l] == 0 && n.links[l].free <= t {
				s.linkOn[w] &^= 1 << uint(l&63)
			}
		}
	}
	for g := range s.groupBusy {
		if k := n.groupLinks[g]; k > 0 {
			sm.Groups[g].Utilisation = float64(s.groupBusy[g]) / float64(period) / float64(k)
		}
	}
	sm.Utilisation = 0
	if n.routerLinks > 0 {
		sm.Utilisation = float64(routerBusy) / float64(period) / float64(n.routerLinks)
	}
	for w, word := range s.bufOn {
		for ; word != 0; word &= word - 1 {
			iv := w<<6 + bits.TrailingZeros64(word)
			s.tickBuf(iv, t, period)
			if n.ins[iv].count == 0 && s.lastMean[iv] == 0 && s.lastMax[iv] == 0 {
				s.bufOn[w] &^= 1 << uint(iv&63)
			}
		}
	}
	s.delivered, s.packets, s.injected, s.longWaits = 0, 0, 0, 0
	s.msgLat, s.pktLat = netmodel.LatencyAcc{}, netmodel.LatencyAcc{}
	s.last = t
	if n.cfg.OnSample != nil {
		n.cfg.OnSample(sm)
	}
}

// tickLink measures link l for the sample ending at t.
func (s *sampler) tickLink(l int, t, period des.Time, routerBusy *des.Time) {
	n, sm := s.n, &s.sample
	lk := &n.links[l]
	if lk.ps == 0 {
		return
	}
	b := lk.busyAt(t)
	busy, bytes := &s.busyMark[l], &s.bytesMark[l]
	db := b - *busy
	dbytes := lk.bytes - *bytes
	*busy, *bytes = b, lk.bytes
	u := min(float64(db)/float64(period), 1)
	s.lastUtil[l] = float32(u)
	if db == 0 && dbytes == 0 {
		return
	}
	g := n.linkGroup[l]
	s.groupBusy[g] += db
	sm.Groups[g].Bytes += dbytes
	if g != groupInject && g != groupEject {
		*routerBusy += db
	}
	sm.MaxUtilisation = max(sm.MaxUtilisation, u)
	sm.Links = append(sm.Links, netmodel.LinkSample{ID: int32(l), Bytes: dbytes, Utilisation: u})
}

// tickBuf measures input buffer iv for the sample ending at t.
func (s *sampler) tickBuf(iv int, t, period des.Time) {
	n, sm := s.n, &s.sample
	q := &n.ins[iv]
	a := q.areaAt(t)
	mark := &s.areaMark[iv]
	mean := (a - *mark) / float64(period)
	*mark = a
	s.lastMean[iv], s.lastMax[iv] = float32(mean), q.pmax
	// Lanes' buffers (after the routers' ports) are the nodes'
	// injection queues, reported with the NICs.
	if q.pmax > 0 && int32(iv) < s.routerBufs {
		gp := int32(iv) / n.nv
		pt := &n.ports[gp]
		sm.Queues = append(sm.Queues, netmodel.QueueSample{Router: pt.router, Port: pt.in, VC: int32(iv) - gp*n.nv,
			Cur: int32(q.count), Max: int32(q.pmax), Mean: mean})
	}
	q.pmax = q.count
}

// linkUtil is link l's utilisation in the last sample.
func (s *sampler) linkUtil(l int) float32 {
	if !s.lazy {
		return s.lastUtil[l]
	}
	sn := &s.linkSnaps[l]
	lk := &s.n.links[l]
	at := func(k uint64) des.Time { // busy up to sample k's end
		t := s.last
		if k < s.ticks {
			t = s.prev
		}
		switch i := snapAt(sn[0].tick, sn[1].tick, k); i {
		case -1:
			return lk.busyAt(t)
		default:
			return busyAt(sn[i].busy, sn[i].free, t)
		}
	}
	db := at(s.ticks) - at(s.ticks-1)
	return float32(min(float64(db)/float64(s.lastPeriod), 1))
}

// bufLast is input buffer iv's mean and maximum occupancy in the last
// sample.
func (s *sampler) bufLast(iv int) (float32, uint16) {
	if !s.lazy {
		return s.lastMean[iv], s.lastMax[iv]
	}
	sn := &s.bufSnaps[iv]
	q := &s.n.ins[iv]
	i := snapAt(sn[0].tick, sn[1].tick, s.ticks)
	a, count, pmax := q.areaAt(s.last), q.count, q.pmax
	if i >= 0 {
		a, count, pmax = areaAt(sn[i].area, sn[i].count, sn[i].last, s.last), sn[i].count, sn[i].pmax
	}
	mark := q.areaAt(s.prev)
	if j := snapAt(sn[0].tick, sn[1].tick, s.ticks-1); j >= 0 {
		mark = areaAt(sn[j].area, sn[j].count, sn[j].last, s.prev)
	}
	// The period's maximum counts from its start only if the buffer
	// changed in it (a copy of the state at its start exists);
	// otherwise it held count throughout.
	if sn[0].tick != s.ticks && sn[1].tick != s.ticks {
		pmax = count
	}
	return float32((a - mark) / float64(s.lastPeriod)), pmax
}

// snapAt says which of an element's two copies, tagged t0 (the latest)
// and t1 (sample number + 1, 0: none), holds its state at the end of
// sample k (0: the start), one of the last two samples — -1 for its
// present state. A copy tagged k+1
// was taken at the first change after sample k. Without one, the state
// at k is the present one if the element has not changed since
// (t0 <= k), else the state before its next change, the copy t0: no
// change came between k and that copy's sample, or it would have left a
// copy tagged k+1.
func snapAt(t0, t1, k uint64) int {
	switch {
	case t0 == k+1:
		return 0
	case t1 == k+1:
		return 1
	case t0 <= k:
		return -1
	}
	return 0
}

// levelShare appends, for a fat tree, the share of traffic per highest
// level reached, from the bytes bytes(l) of every link l; nil otherwise.
func (n *Network) levelShare(out []float64, bytes func(l int) int64) []float64 {
	ft, ok := n.topo.(*topology.FatTree)
	if !ok {
		return nil
	}
	L := ft.Levels()
	up := make([]int64, L+1) // up[0]: injected; up[l+1]: climbed above level l
	for l := range n.links {
		if n.links[l].ps == 0 {
			continue
		}
		switch n.linkGroup[l] {
		case groupInject:
			up[0] += bytes(l)
		default:
			lk := n.topo.Link(topology.LinkID(l))
			if lk.Class == topology.ClassUp {
				up[lk.Level+1] += bytes(l)
			}
		}
	}
	for l := 0; l < L; l++ {
		share := 0.0
		if up[0] > 0 {
			share = float64(up[l]-up[l+1]) / float64(up[0])
		}
		out = append(out, max(share, 0))
	}
	return out
}

// Metrics reports the network's counters, every link, buffer and network
// interface, and the link groups (see netmodel.Metrics).
func (n *Network) Metrics(m *netmodel.Metrics) {
	now := n.h.Now()
	n.smp.flush(now)
	n.syncLanes()
	t := n.topo
	m.Delivered, m.Bytes, m.InFlight, m.BytesInFlight = n.delivered, n.bytes, n.inFlight, n.flying
	m.Topology, m.Layout = t, n.Layout()
	m.Spec, m.Routing, m.VCs, m.Buffer = t.Spec(), n.alg.Name(), int(n.nv), int(n.nb)
	m.Time = now.Seconds()
	m.SamplePeriod = n.smp.clk.Period.Seconds()
	m.LastSample = n.smp.last.Seconds()
	m.Packets, m.PacketsInFlight, m.Hops = n.packets, n.pktInFlight, n.hops
	m.PacketLatency, m.MessageLatency = n.pktLat.Summary(), n.msgLat.Summary()
	m.WaitThreshold, m.LongWaits = n.cfg.WaitThreshold.Seconds(), n.longWaits
	m.LevelShare = n.levelShare(nil, func(l int) int64 { return n.links[l].bytes })
	sampled := n.smp.clk.Period > 0 && n.smp.last > 0

	// The lists are allocated at their length: at 65,536 nodes they are
	// tens of megabytes, each page of which the first write faults in,
	// and the replay asks for them more than once.
	m.Links = make([]netmodel.LinkMetric, 0, n.measuredLinks)
	for l := range n.links {
		if n.links[l].ps == 0 {
			continue
		}
		busy := n.links[l].busyAt(now)
		lm := netmodel.DescribeLink(t, topology.LinkID(l))
		lm.Bytes, lm.Packets, lm.Busy = n.links[l].bytes, n.links[l].packets, busy.Seconds()
		if now > 0 {
			lm.MeanUtilisation = min(float64(busy)/float64(now), 1)
		}
		lm.Utilisation = lm.MeanUtilisation
		if sampled {
			lm.Utilisation = float64(n.smp.linkUtil(l))
		}
		m.Links = append(m.Links, lm)
	}
	m.Groups = netmodel.SumGroups(n.groupNames, n.groupLinks, n.linkGroup, m.Links)

	// The routers' input buffers, not the lanes' (which follow them).
	m.Queues = make([]netmodel.QueueMetric, 0, n.measuredQueues)
	for gp := range n.portBase[len(n.portBase)-1] {
		pt := &n.ports[gp]
		if pt.peer == noPeer {
			continue
		}
		for vc := range n.nv {
			iv := gp*n.nv + vc
			q := &n.ins[iv]
			qm := netmodel.QueueMetric{Router: pt.router, Port: pt.in, VC: vc, Capacity: n.nb,
				Cur: int32(q.count), Max: int32(q.max), LongWaits: uint64(q.long)}
			if now > 0 {
				qm.Mean = q.areaAt(now) / float64(now)
			}
			qm.SampleMean, qm.SampleMax = qm.Mean, qm.Max
			if sampled {
				mean, mx := n.smp.bufLast(int(iv))
				qm.SampleMean, qm.SampleMax = float64(mean), int32(mx)
			}
			m.Queues = append(m.Queues, qm)
		}
	}
	nodes := len(n.nodeLane) - 1
	m.NICs = make([]netmodel.NICMetric, nodes)
	for i := range nodes {
		nm := netmodel.NICMetric{Node: int32(i)}
		for l := n.nodeLane[i]; l < n.nodeLane[i+1]; l++ {
			c := &n.nics[l]
			nm.Queued += c.queued
			nm.Max = max(nm.Max, c.maxQueued)
			for slot := c.qhead; slot >= 0; slot = n.msgs[slot].next {
				nm.QueuedBytes += n.unsent(&n.msgs[slot])
			}
		}
		if n.nq != nil {
			nm.Max = n.nq[i].maxQueued
		}
		m.NICs[i] = nm
	}
}

// unsent returns the payload of queued message g not yet packetised:
// every packet but the last carries PacketSize bytes (see payload), so
// after k of its P packets bytes − k·PacketSize are left.
func (n *Network) unsent(g *msg) int64 {
	ps := n.cfg.PacketSize
	if ps <= 0 || g.bytes <= 0 {
		return g.bytes
	}
	packets := (g.bytes + ps - 1) / ps
	return g.bytes - (packets-g.toEmit)*ps
}

// Layout returns the drawing geometry of the routers (computed once).
func (n *Network) Layout() *netmodel.Layout {
	if n.layout == nil {
		n.layout = netmodel.NewLayout(n.topo)
	}
	return n.layout
}
