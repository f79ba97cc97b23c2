package flow

import (
	"sync"

	"github.com/tracesim/tracesim/engine/des"
)

// ledgerBatch is the number of link changes the simulation goroutine
// hands to the ledger's other goroutine at once: large enough that
// handing it over costs nothing beside integrating it, small enough
// (24 KiB) to stay in the cache between the two cores, and that a queue
// of ledgerDepth of them adds little to the run's peak (408 KiB at most;
// the 2,048 of before cost the same time in a queue twice that size).
const ledgerBatch = 1024

// ledgerDepth is the number of full batches that may wait for the
// ledger's goroutine before the simulation waits for it. A goroutine
// started on the simulation's core runs on the other one only once that
// core's thread wakes and takes it, which on a loaded or virtual
// machine takes longer than filling a batch (0.1–0.8 ms, at times 3 ms,
// against 0.05–0.1 ms): with one batch of slack the simulation waited
// for nearly every batch, and the ledger then ran on its core, after it.
const ledgerDepth = 16

// ledgerStart is the number of full batches queued before a goroutine
// is started to integrate them: each start wakes the other core's
// thread, which then spins a while looking for more work before it
// sleeps again, so a start per batch cost CPU time (tsim cg64 on
// torus:8x8, ~18,000 batches: +0.4 s); four batches a start keep the
// queue's slack at twelve.
const ledgerStart = 4

// ledger keeps the links' measurements — the integrals over time of
// their loads, used fractions and flows, and the lazy samples'
// snapshots — from the changes of their loads and flows, which the
// network reports to it (Network.account) before each change.
//
// Nothing in the simulation reads these integrals back: only Metrics
// and the samples do. So when no listener reads the samples at every
// tick (no Config.OnSample), the ledger collects the changes in batches
// and hands the full ones to a goroutine, which integrates them in
// order while the simulation runs on, and Metrics waits for it (settle).
// A link's changes are integrated in the order they happened, by the
// same operations as one at a time: the figures are the same to the bit.
// With a listener, every sample measures the links, so each change is
// integrated at once on the simulation goroutine.
type ledger struct {
	// acc is, per constraint, its integrals; snaps (lazy samples only)
	// its integrals at the period boundaries before its last two
	// changes. While batches are queued (q.running) only the goroutine
	// integrating them touches them.
	acc   []linkAcc
	snaps [][2]linkSnap
	// period is the sample period when the snapshots are kept (lazy
	// samples), else 0.
	period des.Time
	// buf collects the changes of the next batch, nbuf of them (kept at
	// ledgerBatch without batches, so that add takes its slow path).
	buf  *[ledgerBatch]change
	nbuf uint
	// q hands the full batches to the integrating goroutine; nil
	// without batches.
	q *ledgerQueue
}

// ledgerQueue is the full batches waiting to be integrated, in the
// order they were filled, and the emptied ones ready to be filled again.
// A goroutine, started once ledgerStart batches wait, drains it while
// running is set and exits once it is empty, so no goroutine outlives
// the batches; settle integrates those that wait without one.
type ledgerQueue struct {
	mu   sync.Mutex
	cond sync.Cond // signalled when a batch is emptied or the queue drained
	// full holds the batches to integrate from head on; free the
	// emptied ones; made counts the batches allocated (at most
	// ledgerDepth+1: the one being filled and those queued).
	full    []*[ledgerBatch]change
	head    int
	free    []*[ledgerBatch]change
	made    int
	running bool
	// waits counts the times the simulation waited for an emptied
	// batch, starts the goroutines started.
	waits, starts int
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
// lazy samples' snapshots of that period; async integrates in batches.
func (g *ledger) init(links []link, period des.Time, async bool) {
	g.acc = make([]linkAcc, len(links))
	for i := range links {
		g.acc[i].cap = links[i].cap
	}
	if period > 0 {
		g.period = period
		g.snaps = make([][2]linkSnap, len(links))
	}
	g.nbuf = ledgerBatch
	if async {
		g.nbuf = 0
		g.buf = new([ledgerBatch]change)
		g.q = &ledgerQueue{made: 1}
		g.q.cond.L = &g.q.mu
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
// be the batch's last, which addSlow writes when it hands the batch over.
func (g *ledger) room(k int) bool { return g.nbuf+uint(k) < ledgerBatch }

// addSlow integrates c at once (no batches), or appends it as the last
// change of a batch, queues the batch for the integrating goroutine
// (starting one if none runs) and takes an emptied batch to fill next,
// waiting for one only when ledgerDepth batches are queued already.
func (g *ledger) addSlow(c change) {
	q := g.q
	if q == nil {
		one := [1]change{c}
		g.applyAll(one[:])
		return
	}
	g.buf[ledgerBatch-1] = c
	q.mu.Lock()
	q.full = append(q.full, g.buf)
	if !q.running && len(q.full)-q.head >= ledgerStart {
		q.running = true
		q.starts++
		go g.drain()
	}
	if len(q.free) == 0 && q.made > ledgerDepth {
		q.waits++
		for len(q.free) == 0 {
			q.cond.Wait()
		}
	}
	if k := len(q.free); k > 0 {
		g.buf = q.free[k-1]
		q.free = q.free[:k-1]
	} else {
		g.buf = new([ledgerBatch]change)
		q.made++
	}
	q.mu.Unlock()
	g.nbuf = 0
}

// drain integrates the queued batches in order until none is left, then
// clears running and returns.
func (g *ledger) drain() {
	q := g.q
	// The integrals through a copy of the ledger's header on this
	// goroutine's stack: the simulation goroutine writes nbuf beside it
	// at every change.
	w := ledger{acc: g.acc, snaps: g.snaps, period: g.period}
	q.mu.Lock()
	for q.head < len(q.full) {
		b := q.full[q.head]
		q.full[q.head] = nil
		q.head++
		q.mu.Unlock()
		w.applyAll(b[:])
		q.mu.Lock()
		q.free = append(q.free, b)
		q.cond.Signal()
	}
	q.full, q.head = q.full[:0], 0
	q.running = false
	q.cond.Signal()
	q.mu.Unlock()
}

// settle integrates every change recorded so far: the integrals and
// snapshots are then the simulation goroutine's to read.
func (g *ledger) settle() {
	q := g.q
	if q == nil {
		return
	}
	q.mu.Lock()
	for q.running {
		q.cond.Wait()
	}
	// The batches queued too few to start a goroutine, then the batch
	// being filled.
	for _, b := range q.full[q.head:] {
		g.applyAll(b[:])
		q.free = append(q.free, b)
	}
	clear(q.full)
	q.full, q.head = q.full[:0], 0
	q.mu.Unlock()
	g.applyAll(g.buf[:g.nbuf])
	g.nbuf = 0
}

// applyAll integrates the changes of b in order, link c.l's
// measurements up to c.t at its load and flows since its last change;
// with lazy samples it first keeps its integrals at the period boundary
// at or before c.t, if it has not changed since that boundary (the last
// sample's measurement of the link needs its integrals at the last two
// boundaries, and they are straight lines between its changes). The
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
	snaps := g.snaps
	for i := range b {
		c := &b[i]
		a := &acc[c.l]
		u := a.used(c.load)
		if c.t >= a.snapNext {
			// The boundary at or before c.t: snapNext itself (a boundary)
			// when c.t is within the period after it, which spares the
			// division.
			bd := a.snapNext
			if bd <= 0 || c.t-bd >= p {
				bd = c.t - c.t%p
			}
			a.snapNext = bd + p
			a.snap ^= 1
			dt := max((bd - a.last).Seconds(), 0)
			// Field by field: a composite literal is built aside, then
			// copied.
			sn := &snaps[c.l][a.snap&1]
			sn.t, sn.bytes, sn.busy, sn.flowS = bd, a.bytes+c.load*dt, a.busy+u*dt, a.flowS+float64(c.fwd)*dt
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
		a.bytes += c.load * dt
		a.busy += u * dt
		a.flowS += float64(c.fwd) * dt
	}
	a.last = c.t
}

// at returns the link's integrals (bytes, busy seconds, flow·seconds) up
// to t, which is not before its last change, at the load and flows it
// has had since.
func (a *linkAcc) at(t des.Time, load float64, fwd int32) (bytes, busy, flowS float64) {
	dt := max((t - a.last).Seconds(), 0)
	return a.bytes + load*dt, a.busy + min(load/a.cap, 1)*dt, a.flowS + float64(fwd)*dt
}
