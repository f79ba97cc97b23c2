package flow

import "github.com/tracesim/tracesim/engine/des"

// ledgerBatch is the number of link changes the ledger collects before
// integrating them in one loop: 24 KiB, in the cache while it fills.
const ledgerBatch = 1024

// ledger keeps the links' measurements — the integrals over time of
// their loads, used fractions and flows, and the lazy samples'
// snapshots — from the changes of their loads and flows, which the
// network reports to it (Network.account) before each change.
//
// Nothing in the simulation reads these integrals back: only Metrics
// and the samples do. So when no listener reads the samples at every
// tick (no Config.OnSample), the ledger collects the changes in a batch
// and integrates a full one in one loop, and Metrics integrates the
// part batch first (settle). A link's changes are integrated in the
// order they happened, by the same operations as one at a time: the
// figures are the same to the bit. With a listener, every sample
// measures the links, so each change is integrated at once.
//
// The batches were once handed to a goroutine integrating them on the
// other core while the simulation ran on. On the project's two cores
// that cost more than it saved: the changes (24 B each, 8.7 M on the
// CG-like torus) crossed between the cores and each hand-over woke the
// other core's thread. Integrated where they are collected, the CG-like
// 64-rank replays on SimGrid's torus and star platforms took 0.49 and
// 0.41 s of wall against 0.63 and 0.49 s (medians of five paired runs),
// and a 94 MB tsim CG on torus:8x8 1.21 s against 1.72 s.
type ledger struct {
	// acc is, per constraint, its integrals; snaps (lazy samples only)
	// its state at its first changes after the period boundaries
	// before its last two changes, from which its integrals at those
	// boundaries are worked out when read (linkSnap.integrals).
	acc   []linkAcc
	snaps [][2]linkSnap
	// period is the sample period when the snapshots are kept (lazy
	// samples), else 0.
	period des.Time
	// buf collects the changes of the next batch, nbuf of them (kept at
	// ledgerBatch without batches, so that add takes its slow path).
	buf  *[ledgerBatch]change
	nbuf uint
}

// linkAcc is a link's measurements, integrated up to last.
type linkAcc struct {
	cap      float64 // bytes per second, as the link's
	bytes    float64
	busy     float64 // seconds at full bandwidth
	flowS    float64 // flow·seconds
	last     des.Time
	snapNext des.Time // end of the period of its latest snapshot
	// snap is the index in the link's snaps of its latest snapshot; the
	// other is the one before (a new one overwrites that one, rather
	// than the latest moving over it).
	snap uint8
}

// change is link l's state — its load in bytes per second and its
// flows — from its previous change up to t, when it changes again.
type change struct {
	t    des.Time
	load float64
	l    int32
	fwd  int32
}

// init sizes the ledger for the network's links; period > 0 keeps the
// lazy samples' snapshots of that period; batched integrates the
// changes a batch at a time, else each at once.
func (g *ledger) init(links []link, period des.Time, batched bool) {
	g.acc = make([]linkAcc, len(links))
	for i := range links {
		g.acc[i].cap = links[i].cap
	}
	if period > 0 {
		g.period = period
		g.snaps = make([][2]linkSnap, len(links))
	}
	g.nbuf = ledgerBatch
	if batched {
		g.nbuf = 0
		g.buf = new([ledgerBatch]change)
	}
}

// add records a change: integrated now, or in the next batch. Its
// common case is push, which Network.account calls inlined.
func (g *ledger) add(c change) {
	if !g.push(c) {
		g.addSlow(c)
	}
}

// push appends c to the batch and reports whether it did: not when c
// would fill the batch (or there are no batches), which addSlow does.
func (g *ledger) push(c change) bool {
	k := g.nbuf
	if k >= ledgerBatch-1 {
		return false
	}
	g.buf[k] = c
	g.nbuf = k + 1
	return true
}

// room reports whether the batch can take k more changes written into
// buf from nbuf on (nbuf then advanced by the writer): not without
// batches (nbuf is kept at ledgerBatch then), nor when one of them would
// be the batch's last, which addSlow writes before it integrates the batch.
func (g *ledger) room(k int) bool { return g.nbuf+uint(k) < ledgerBatch }

// addSlow integrates c at once (no batches), or appends it as the last
// change of the batch and integrates the batch.
func (g *ledger) addSlow(c change) {
	if g.buf == nil {
		one := [1]change{c}
		g.applyAll(one[:])
		return
	}
	g.buf[ledgerBatch-1] = c
	g.applyAll(g.buf[:])
	g.nbuf = 0
}

// settle integrates every change recorded so far: the integrals and
// snapshots are then up to date.
func (g *ledger) settle() {
	if g.buf == nil {
		return
	}
	g.applyAll(g.buf[:g.nbuf])
	g.nbuf = 0
}

// applyAll integrates the changes of b in order, link c.l's
// measurements up to c.t at its load and flows since its last change;
// with lazy samples it first keeps its state (for its integrals at the
// period boundary at or before c.t), if it has not changed since that
// boundary (the last sample's measurement of the link needs its
// integrals at the last two boundaries, and they are straight lines
// between its changes). The
// work of a change is inlined in the loop, the ledger's fields read once
// (a call a change was a sixth of the ledger's instructions on a torus,
// whose flows change eight links each).
func (g *ledger) applyAll(b []change) {
	acc := g.acc
	p := g.period
	if p <= 0 {
		for i := range b {
			c := &b[i]
			a := &acc[c.l]
			a.integrate(c, a.used(c.load))
		}
		return
	}
	// As long as acc: a link found in acc is in snaps, unchecked.
	snaps := g.snaps[:len(acc)]
	for i := range b {
		c := &b[i]
		l := c.l
		a := &acc[l]
		u := a.used(c.load)
		if c.t >= a.snapNext {
			// The boundary at or before c.t: snapNext itself (a boundary)
			// when c.t is within the period after it, which spares the
			// division (unsigned: times and the period are not negative,
			// and Go checks a signed divisor for -1).
			bd := a.snapNext
			if bd <= 0 || c.t-bd >= p {
				bd = c.t - des.Time(uint64(c.t)%uint64(p))
			}
			a.snapNext = bd + p
			a.snap ^= 1
			// The link's state before c, kept as it is: the integrals at
			// bd are worked out from it when read (linkSnap.integrals),
			// by the same operations, rarely (Metrics) rather than at
			// every boundary a link crosses. Field by field: a composite
			// literal is built aside, then copied.
			sn := &snaps[l][a.snap&1]
			sn.t, sn.last, sn.bytes, sn.busy, sn.flowS = bd, a.last, a.bytes, a.busy, a.flowS
			sn.load, sn.fwd = c.load, c.fwd
		}
		a.integrate(c, u)
	}
}

// used is the fraction of the link's bandwidth a load uses, divided
// once for the snapshot and the integrals (fmin and at's min agree on
// numbers that are not NaN); an idle link's is 0 without dividing (0/cap
// is 0 for any positive bandwidth).
func (a *linkAcc) used(load float64) float64 {
	if load != 0 || !(a.cap > 0) {
		return fmin(load/a.cap, 1)
	}
	return 0
}

// integrate brings the link's integrals up to c.t at the load, used
// fraction u and flows it has had since its last change.
func (a *linkAcc) integrate(c *change, u float64) {
	if dt := (c.t - a.last).Seconds(); dt > 0 {
		a.bytes += float64(c.load * dt)
		a.busy += float64(u * dt)
		a.flowS += float64(float64(c.fwd) * dt)
	}
	a.last = c.t
}

// at returns the link's integrals (bytes, busy seconds, flow·seconds) up
// to t, which is not before its last change, at the load and flows it
// has had since.
func (a *linkAcc) at(t des.Time, load float64, fwd int32) (bytes, busy, flowS float64) {
	dt := max((t - a.last).Seconds(), 0)
	return a.bytes + float64(load*dt), a.busy + float64(min(load/a.cap, 1)*dt), a.flowS + float64(float64(fwd)*dt)
}
