package flow

import (
	"slices"

	"github.com/tracesim/tracesim/engine/des"
	"github.com/tracesim/tracesim/engine/netmodel"
	"github.com/tracesim/tracesim/engine/topology"
)

// sampler measures the network every period in which it carries traffic.
// Like the packet model's, it needs no events: link loads only change at
// the network's events, so the sample of a period that ended at T is
// taken at the next event after T from the state the network was in at T.
type sampler struct {
	n    *Network
	clk  netmodel.SampleClock
	last des.Time
	// Marks at the end of the last period, per link.
	busyMark  []float64
	bytesMark []float64
	flowMark  []float64
	lastUtil  []float32
	lastFlows []float32
	// Accumulated during the current period.
	delivered uint64
	injected  int64
	msgLat    netmodel.LatencyAcc
	sample    netmodel.Sample
	groupBusy []float64
	// active lists the links a sample must measure: those whose load
	// changed since the last sample (Network.account adds them, marking
	// them with epoch) and those still carrying or just left by traffic
	// at the last one. Every other link measured nothing in the last
	// period and its last sample already says so. spare is the other
	// buffer.
	active, spare []int32
	epoch         uint32
	// lazy is set when no one reads the samples (no OnSample): a tick
	// then only records its end and its length (lastPeriod), and Metrics
	// works out the last period's utilisation and flows of every link
	// from the two period-boundary snapshots each link keeps (the
	// ledger's snaps: per link, its integrals at the period boundaries at
	// or before its last two changes, the latest at linkAcc.snap), rather than
	// every tick measuring every active link.
	lazy       bool
	lastPeriod des.Time
	// eager is set when samples are taken and read (a period and an
	// OnSample): every link change then lists its link (activateLink).
	eager bool
}

// linkSnap is a link's state at its first change after a period
// boundary t (a multiple of the sample period): its integrals up to its
// change before (at last), and its load and flows since, the slope of
// its integrals through t. integrals works out those at t.
type linkSnap struct {
	t, last            des.Time
	bytes, busy, flowS float64
	load               float64
	fwd                int32
}

// integrals returns the link's integrals (bytes, busy seconds,
// flow·seconds) at the boundary s.t, for a link of bandwidth cap: the
// same operations, on the same values, as the ledger's integration up to
// s.t would have done (used, linkAcc.integrate).
func (s *linkSnap) integrals(cap float64) (bytes, busy, flowS float64) {
	a := linkAcc{cap: cap}
	u := a.used(s.load)
	dt := max((s.t - s.last).Seconds(), 0)
	return s.bytes + float64(s.load*dt), s.busy + float64(u*dt), s.flowS + float64(float64(s.fwd)*dt)
}

func (s *sampler) init(n *Network) {
	s.n = n
	s.epoch = 1
	s.clk = netmodel.NewSampleClock(n.cfg.SamplePeriod)
	if s.clk.Period <= 0 {
		return
	}
	if n.cfg.OnSample == nil {
		s.lazy = true
		return
	}
	s.eager = true
	L := len(n.links)
	s.busyMark = make([]float64, L)
	s.bytesMark = make([]float64, L)
	s.flowMark = make([]float64, L)
	s.lastUtil = make([]float32, L)
	s.lastFlows = make([]float32, L)
	s.groupBusy = make([]float64, len(n.groupNames))
	s.sample.Groups = make([]netmodel.GroupSample, len(n.groupNames))
	s.sample.Measures = n.Measures()
}

// Measures implements netmodel.Measurer: the flows on each link; the flow
// model has no packets or buffers.
func (n *Network) Measures() netmodel.Measures { return netmodel.MeasureFlows }

// SampleUntil measures the periods that ended by t, when the engine stops
// at t with no event since the network's last (netmodel.Idler): the
// flows' rates have not changed since.
func (n *Network) SampleUntil(t des.Time) {
	if t > n.h.Now() {
		n.smp.flush(t)
	}
}

// activate lists link l for the next sample, once per period.
func (s *sampler) activate(l int32) {
	lk := &s.n.links[l]
	if lk.tick != s.epoch {
		lk.tick = s.epoch
		s.active = append(s.active, l)
	}
}

// activateLink lists constraint l for the next sample, and with it the
// injection link a lane's load shows on (linkAt).
func (s *sampler) activateLink(l int32) {
	s.activate(l)
	n := s.n
	if i := int(l) - n.topoLinks; i >= 0 && i < len(n.laneOf) && n.laneOf[i] >= 0 {
		s.activate(n.laneOf[i])
	}
}

// flush measures every period that ended at or before now.
func (s *sampler) flush(now des.Time) { s.clk.Flush(now, s.n.inFlight > 0, s) }

// event flushes the finished periods and marks the current one active.
// Without samples (period 0) it is a test of the period, inlined at
// every send and network event.
func (s *sampler) event(now des.Time) {
	if s.clk.Period > 0 {
		s.tick(now)
	}
}

// tick is event's work with samples: kept out of line so that event
// stays small enough to inline.
//
//go:noinline
func (s *sampler) tick(now des.Time) { s.clk.Event(now, s.n.inFlight > 0, s) }

// finish measures the last period once the simulation has ended at now.
func (s *sampler) finish(now des.Time) { s.clk.Finish(now, s.n.inFlight > 0, s) }

// at returns constraint l's integrals (bytes, busy seconds,
// flow·seconds) up to t, which is not before its last change; the ledger
// must be settled.
func (n *Network) at(l int32, t des.Time) (bytes, busy, flowS float64) {
	lk := &n.links[l]
	return n.led.acc[l].at(t, lk.load, lk.fwd)
}

// linkAt returns topology link l's integrals up to t (see Network.at),
// its flows and whether it carried any; a node's injection link adds
// those of its injection lanes (Config.OneInjectionLink), so that it
// shows the node's injection as the packet model's does, its busy time
// the sum of the lanes'.
func (n *Network) linkAt(l int, t des.Time) (bytes, busy, flowS float64, fwd int32, used bool) {
	lk := &n.links[l]
	bytes, busy, flowS = n.at(int32(l), t)
	fwd, used = lk.fwd, lk.used
	if n.injNode == nil || n.injNode[l] < 0 {
		return
	}
	i := n.injNode[l]
	for k := n.nodeLane[i]; k < n.nodeLane[i+1]; k++ {
		ln := &n.links[n.lanes+k]
		b, bu, fs := n.at(n.lanes+k, t)
		bytes, busy, flowS = bytes+b, busy+bu, flowS+fs
		fwd += ln.fwd
		used = used || ln.used
	}
	return
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
		// No one reads the samples: Metrics works the last one out.
		s.last, s.lastPeriod = t, period
		s.delivered, s.injected = 0, 0
		s.msgLat = netmodel.LatencyAcc{}
		return
	}
	ps := period.Seconds()
	sm := &s.sample
	sm.Time, sm.Period = t, period
	sm.Delivered, sm.InjectedBytes = s.delivered, s.injected
	sm.MessageLatency = s.msgLat.Summary()
	sm.Links = sm.Links[:0]
	for g := range s.groupBusy {
		s.groupBusy[g] = 0
		sm.Groups[g] = netmodel.GroupSample{Name: n.groupNames[g]}
	}
	var routerBusy, allBusy float64
	sm.MaxUtilisation = 0
	// In link order, as the samples list them.
	slices.Sort(s.active)
	s.epoch++
	keep := s.spare[:0]
	for _, l := range s.active {
		db, dbusy, dfs, ok := s.measure(l, t, ps, &keep)
		if !ok || (dbusy <= 0 && dfs <= 0) {
			continue
		}
		u := min(dbusy/ps, 1)
		g := n.linkGroup[l]
		// A node's injection lanes together may be busier than one link
		// (see linkAt); the groups count its link as full at most.
		dbusy = min(dbusy, ps)
		s.groupBusy[g] += dbusy
		allBusy += dbusy
		sm.Groups[g].Bytes += int64(db + 0.5)
		if g != netmodel.GroupInject && g != netmodel.GroupEject {
			routerBusy += dbusy
		}
		sm.MaxUtilisation = max(sm.MaxUtilisation, u)
		sm.Links = append(sm.Links, netmodel.LinkSample{ID: int32(l), Bytes: int64(db + 0.5), Utilisation: u, Flows: dfs / ps})
	}
	for g := range s.groupBusy {
		if k := n.groupLinks[g]; k > 0 {
			sm.Groups[g].Utilisation = s.groupBusy[g] / ps / float64(k)
		}
	}
	sm.Utilisation = 0
	if n.routerLinks > 0 {
		sm.Utilisation = routerBusy / ps / float64(n.routerLinks)
	} else if all := n.groupLinks[netmodel.GroupInject] + n.groupLinks[netmodel.GroupEject]; all > 0 {
		// A star (SimGrid's cluster, the default network) has only
		// node links: they are the network.
		sm.Utilisation = allBusy / ps / float64(all)
	}
	s.active, s.spare = keep, s.active[:0]
	s.delivered, s.injected = 0, 0
	s.msgLat = netmodel.LatencyAcc{}
	s.last = t
	if n.cfg.OnSample != nil {
		n.cfg.OnSample(sm)
	}
}

// measure takes active link l's measurements of the period of ps seconds
// ending at t: its bytes, busy seconds and flow·seconds in the period,
// kept as its last utilisation and flows. It appends l to keep when the
// next sample must measure it too (it is not idle yet, or its next
// sample must say that it now is). ok is false for a link that carried
// nothing ever and for a lane, whose node's injection link is listed too.
func (s *sampler) measure(l int32, t des.Time, ps float64, keep *[]int32) (db, dbusy, dfs float64, ok bool) {
	n := s.n
	if int(l) >= n.topoLinks {
		return 0, 0, 0, false
	}
	lk := &n.links[l]
	b, busy, fs, fwd, used := n.linkAt(int(l), t)
	if !used {
		return 0, 0, 0, false
	}
	db, dbusy, dfs = b-s.bytesMark[l], busy-s.busyMark[l], fs-s.flowMark[l]
	s.bytesMark[l], s.busyMark[l], s.flowMark[l] = b, busy, fs
	s.lastUtil[l], s.lastFlows[l] = float32(min(dbusy/ps, 1)), float32(dfs/ps)
	if dbusy > 0 || dfs > 0 || lk.load > 0 || fwd > 0 {
		lk.tick = s.epoch
		*keep = append(*keep, l)
	}
	return db, dbusy, dfs, true
}

// integralsAt returns constraint l's integrals (see Network.at) at the
// period boundary t, which may be before its last change (lazy samples):
// from its current state when t is not before its last change, else from
// the snapshot at t or the line back from the snapshot after t (the link
// did not change between the two). The ledger must be settled.
func (n *Network) integralsAt(l int32, t des.Time) (bytes, busy, flowS float64) {
	if t >= n.led.acc[l].last {
		return n.at(l, t)
	}
	snaps, k := &n.led.snaps[l], n.led.acc[l].snap
	sn := &snaps[k]
	if t < sn.t && t <= snaps[k^1].t {
		sn = &snaps[k^1]
	}
	cap := n.led.acc[l].cap
	sb, sbusy, sf := sn.integrals(cap)
	dt := (sn.t - t).Seconds()
	return sb - float64(sn.load*dt), sbusy - float64(min(sn.load/cap, 1)*dt), sf - float64(float64(sn.fwd)*dt)
}

// lazyLast returns topology link l's utilisation and flows over the last
// sample period, as the sample would have measured them (lazy samples),
// its node's injection lanes included (see linkAt).
func (n *Network) lazyLast(l int) (util, flows float64) {
	t2 := n.smp.last
	t1 := t2 - n.smp.lastPeriod
	var busy, flowS float64
	add := func(c int32) {
		lk := &n.links[c]
		if !lk.used {
			return
		}
		_, b2, f2 := n.integralsAt(c, t2)
		_, b1, f1 := n.integralsAt(c, t1)
		busy += b2 - b1
		flowS += f2 - f1
	}
	add(int32(l))
	if n.injNode != nil && n.injNode[l] >= 0 {
		i := n.injNode[l]
		for k := n.nodeLane[i]; k < n.nodeLane[i+1]; k++ {
			add(n.lanes + k)
		}
	}
	ps := n.smp.lastPeriod.Seconds()
	return float64(float32(min(busy/ps, 1))), float64(float32(flowS / ps))
}

// Metrics reports the network's counters, every link that carried a flow
// and the link groups (see netmodel.Metrics).
func (n *Network) Metrics(m *netmodel.Metrics) {
	now := n.h.Now()
	n.smp.flush(now)
	n.led.settle()
	t := n.topo
	m.Delivered, m.Bytes, m.InFlight, m.BytesInFlight = n.delivered, n.bytes, n.inFlight, n.flying
	m.Topology, m.Layout = t, n.Layout()
	m.Spec, m.Routing = t.Spec(), n.alg.Name()
	if n.cfg.Hops != nil {
		// A platform's own routes replace the routing algorithm: naming
		// the unused default would mislead.
		m.Routing = "platform"
	}
	m.Time = now.Seconds()
	m.SamplePeriod = n.smp.clk.Period.Seconds()
	m.LastSample = n.smp.last.Seconds()
	m.MessageLatency = n.msgLat.Summary()
	sampled := n.smp.clk.Period > 0 && n.smp.last > 0
	m.Links = make([]netmodel.LinkMetric, 0, len(n.links))
	for l := range n.links[:n.topoLinks] {
		if !t.Link(topology.LinkID(l)).Valid {
			continue
		}
		bytes, busy, fs, fwd, _ := n.linkAt(l, now)
		lm := netmodel.DescribeLink(t, topology.LinkID(l))
		lm.Bytes, lm.Busy, lm.Flows = int64(bytes+0.5), min(busy, now.Seconds()), fwd
		if s := now.Seconds(); s > 0 {
			lm.MeanUtilisation = min(busy/s, 1)
			lm.MeanFlows = fs / s
		}
		lm.Utilisation = lm.MeanUtilisation
		switch {
		case sampled && n.smp.lazy:
			lm.Utilisation, lm.MeanFlows = n.lazyLast(l)
		case sampled:
			lm.Utilisation, lm.MeanFlows = float64(n.smp.lastUtil[l]), float64(n.smp.lastFlows[l])
		}
		m.Links = append(m.Links, lm)
	}
	m.Groups = netmodel.SumGroups(n.groupNames, n.groupLinks, n.linkGroup, m.Links)
}

// Layout returns the drawing geometry of the routers (computed once).
func (n *Network) Layout() *netmodel.Layout {
	if n.layout == nil {
		n.layout = netmodel.NewLayout(n.topo)
	}
	return n.layout
}
