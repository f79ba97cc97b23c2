package flow

import (
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/tracesim/tracesim/engine/des"
)

// TestLedgerAsync: the integrals and lazy snapshots a ledger works out
// on other goroutines, batch by batch, are the same to the bit as those
// of a ledger integrating each change at once, settled mid-batch or not,
// with and without snapshots.
func TestLedgerAsync(t *testing.T) {
	links := make([]link, 40)
	for i := range links {
		links[i].cap = 125e6 * float64(1+i%3)
	}
	for _, tc := range []struct {
		name    string
		period  des.Time
		changes int
	}{
		{"no samples, 3 batches and a part", 0, 3*ledgerBatch + 117},
		{"lazy samples, 5 batches exactly", 10 * des.Microsecond, 5 * ledgerBatch},
		{"lazy samples, less than a batch", 10 * des.Microsecond, ledgerBatch / 3},
	} {
		var sync, async ledger
		sync.init(links, tc.period, false)
		async.init(links, tc.period, true)
		rng := rand.New(rand.NewPCG(7, 11))
		now := des.Time(0)
		for i := range tc.changes {
			now += des.Time(rng.IntN(4000)) * des.Nanosecond
			c := change{t: now, load: rng.Float64() * 3e8, l: rng.Int32N(int32(len(links))), fwd: rng.Int32N(9)}
			sync.add(c)
			async.add(c)
			if i == tc.changes/2 {
				async.settle() // Metrics in the middle of a run
			}
		}
		async.settle()
		for l := range links {
			if a, b := async.acc[l], sync.acc[l]; a != b {
				t.Fatalf("%s: link %d integrated in batches %+v, at once %+v", tc.name, l, a, b)
			}
			if tc.period > 0 && async.snaps[l] != sync.snaps[l] {
				t.Fatalf("%s: link %d snapshots in batches %+v, at once %+v", tc.name, l, async.snaps[l], sync.snaps[l])
			}
			if sync.acc[l].busy <= 0 {
				t.Fatalf("%s: link %d was never busy: the comparison shows little", tc.name, l)
			}
		}
	}
}

// refApply is the ledger's integration as it was before apply spared
// divisions: the used fraction always divided, the boundary always
// found by a remainder, the latest snapshot always first (the previous
// one moved behind it).
func refApply(acc []linkAcc, snaps [][2]linkSnap, period des.Time, c change) {
	a := &acc[c.l]
	u := fmin(c.load/a.cap, 1)
	if period > 0 && c.t >= a.snapNext {
		b := c.t - c.t%period
		a.snapNext = b + period
		sn := &snaps[c.l]
		sn[1] = sn[0]
		dt := max((b - a.last).Seconds(), 0)
		sn[0] = linkSnap{t: b, bytes: a.bytes + c.load*dt, busy: a.busy + u*dt, flowS: a.flowS + float64(c.fwd)*dt, load: c.load, fwd: c.fwd}
	}
	if dt := (c.t - a.last).Seconds(); dt > 0 {
		a.bytes += c.load * dt
		a.busy += u * dt
		a.flowS += float64(c.fwd) * dt
	}
	a.last = c.t
}

// TestLedgerApplyAsBefore: the integrals and the two snapshots of every
// link are those of the plain integration (refApply) to the bit, and
// what Metrics reads of them (integralsAt) too, on changes that stay
// within a period, cross one boundary or many, land on boundaries, and
// leave links idle (load 0) or overloaded.
func TestLedgerApplyAsBefore(t *testing.T) {
	const period = 10 * des.Microsecond
	links := make([]link, 12)
	for i := range links {
		links[i].cap = 125e6 * float64(1+i%3)
	}
	var g ledger
	g.init(links, period, false)
	refAcc := make([]linkAcc, len(links))
	for i := range refAcc {
		refAcc[i].cap = links[i].cap
	}
	refSnaps := make([][2]linkSnap, len(links))
	rng := rand.New(rand.NewPCG(3, 5))
	now := des.Time(0)
	for i := range 20000 {
		switch rng.IntN(5) {
		case 0: // on a boundary
			now = (now/period + 1) * period
		case 1: // several periods later
			now += des.Time(rng.IntN(40)) * period / 3
		default: // within the period, often at the same instant
			now += des.Time(rng.IntN(3)) * des.Time(rng.IntN(3000)) * des.Nanosecond
		}
		load := 0.0
		if rng.IntN(3) > 0 {
			load = rng.Float64() * 5e8 // up to twice a link's bandwidth
		}
		c := change{t: now, load: load, l: rng.Int32N(int32(len(links))), fwd: rng.Int32N(5)}
		g.add(c)
		refApply(refAcc, refSnaps, period, c)
		a, r := g.acc[c.l], refAcc[c.l]
		if a.bytes != r.bytes || a.busy != r.busy || a.flowS != r.flowS || a.last != r.last || a.snapNext != r.snapNext {
			t.Fatalf("change %d (%+v): integrals %+v, want %+v", i, c, a, r)
		}
		if sn := g.snaps[c.l]; sn[a.snap] != refSnaps[c.l][0] || sn[a.snap^1] != refSnaps[c.l][1] {
			t.Fatalf("change %d (%+v): snapshots latest %+v, before %+v; want %+v, %+v", i, c, sn[a.snap], sn[a.snap^1], refSnaps[c.l][0], refSnaps[c.l][1])
		}
	}
	// What Metrics reads: each link's integrals at the boundaries around
	// its last changes, from the snapshots.
	n := &Network{links: links, led: g}
	for l := range links {
		r, sn := refAcc[l], refSnaps[l]
		for _, at := range []des.Time{sn[0].t, sn[1].t, sn[0].t - period, (sn[1].t + sn[0].t) / 2 / period * period} {
			if at < 0 || at >= r.last {
				continue
			}
			s := &sn[0]
			if at < s.t && at <= sn[1].t {
				s = &sn[1]
			}
			dt := (s.t - at).Seconds()
			wb, wbusy, wf := s.bytes-s.load*dt, s.busy-min(s.load/r.cap, 1)*dt, s.flowS-float64(s.fwd)*dt
			if b, busy, f := n.integralsAt(int32(l), at); b != wb || busy != wbusy || f != wf {
				t.Fatalf("link %d at %v: integrals %v %v %v, want %v %v %v", l, at, b, busy, f, wb, wbusy, wf)
			}
		}
	}
}

// TestLedgerQueuesBatches: full batches wait in the queue for the
// integrating goroutine rather than the simulation waiting for each
// one, and a goroutine is started only once a few batches wait. With
// one processor that goroutine runs only when the simulation waits, so
// the simulation must fill four batches without waiting (the old
// hand-over, one batch at a time, waited at the second); past the
// queue's depth it waits, and settle then brings every link to the
// integrals of a ledger integrating each change at once.
func TestLedgerQueuesBatches(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	links := make([]link, 16)
	for i := range links {
		links[i].cap = 125e6
	}
	var sync, async ledger
	sync.init(links, 0, false)
	async.init(links, 0, true)
	now := des.Time(0)
	add := func(n int) {
		for i := range n {
			now += des.Nanosecond * des.Time(1+i%7)
			c := change{t: now, load: 1e8 * float64(1+i%3), l: int32(i % len(links)), fwd: int32(1 + i%4)}
			sync.add(c)
			async.add(c)
		}
	}
	waits := func() (waits, made int) {
		q := async.q
		q.mu.Lock()
		defer q.mu.Unlock()
		return q.waits, q.made
	}
	starts := func() int {
		q := async.q
		q.mu.Lock()
		defer q.mu.Unlock()
		return q.starts
	}
	add(3 * ledgerBatch)
	// Each start wakes the other core, whose thread then spins a while:
	// the first batches wait for more (the old hand-over started a
	// goroutine at every batch).
	if n := starts(); n != 0 {
		t.Fatalf("%d goroutines started for 3 full batches, want none yet", n)
	}
	add(ledgerBatch)
	if w, _ := waits(); w != 0 {
		t.Fatalf("the simulation waited %d times for the ledger while filling 4 batches", w)
	}
	add((ledgerDepth+3)*ledgerBatch + 5) // past the depth: it waits, then goes on
	if _, made := waits(); made > ledgerDepth+1 {
		t.Fatalf("%d batches allocated for a queue of %d: not bounded", made, ledgerDepth)
	}
	if n, full := starts(), ledgerDepth+7; n == 0 || n > full/ledgerStart {
		t.Fatalf("%d goroutines started for %d full batches: want 1 to one per %d", n, full, ledgerStart)
	}
	async.settle()
	for l := range links {
		if a, b := async.acc[l], sync.acc[l]; a != b {
			t.Fatalf("link %d: queued %+v, at once %+v", l, a, b)
		}
	}
}
