package flow

import (
	"math/rand/v2"
	"testing"

	"github.com/tracesim/tracesim/engine/des"
)

// TestLedgerBatches: the integrals and lazy snapshots a ledger works out
// batch by batch are the same to the bit as those of a ledger
// integrating each change at once, settled mid-batch or not, with and
// without snapshots; and a full batch is integrated when it fills, so
// the batched ledger is never more than a batch behind.
func TestLedgerBatches(t *testing.T) {
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
		var once, batched ledger
		once.init(links, tc.period, false)
		batched.init(links, tc.period, true)
		rng := rand.New(rand.NewPCG(7, 11))
		now := des.Time(0)
		for i := range tc.changes {
			now += des.Time(rng.IntN(4000)) * des.Nanosecond
			c := change{t: now, load: rng.Float64() * 3e8, l: rng.Int32N(int32(len(links))), fwd: rng.Int32N(9)}
			once.add(c)
			batched.add(c)
			if i == tc.changes/2 {
				batched.settle() // Metrics in the middle of a run
			}
			if batched.nbuf >= ledgerBatch {
				t.Fatalf("%s: change %d: %d changes wait in the batch", tc.name, i, batched.nbuf)
			}
		}
		if tc.changes >= ledgerBatch && batched.nbuf == uint(tc.changes) {
			t.Fatalf("%s: %d changes and no batch integrated", tc.name, tc.changes)
		}
		batched.settle()
		for l := range links {
			if a, b := batched.acc[l], once.acc[l]; a != b {
				t.Fatalf("%s: link %d integrated in batches %+v, at once %+v", tc.name, l, a, b)
			}
			if tc.period > 0 && batched.snaps[l] != once.snaps[l] {
				t.Fatalf("%s: link %d snapshots in batches %+v, at once %+v", tc.name, l, batched.snaps[l], once.snaps[l])
			}
			if once.acc[l].busy <= 0 {
				t.Fatalf("%s: link %d was never busy: the comparison shows little", tc.name, l)
			}
		}
	}
}

// snapAt is a link's integrals at a period boundary t and its load and
// flows then, as the ledger once kept its snapshots (worked out at the
// change that crossed the boundary).
type snapAt struct {
	t                  des.Time
	bytes, busy, flowS float64
	load               float64
	fwd                int32
}

// valueAt is what snapshot s gives for a link of bandwidth cap.
func valueAt(s *linkSnap, cap float64) snapAt {
	b, busy, f := s.integrals(cap)
	return snapAt{t: s.t, bytes: b, busy: busy, flowS: f, load: s.load, fwd: s.fwd}
}

// refApply is the ledger's integration as it was before apply spared
// divisions: the used fraction always divided, the boundary always
// found by a remainder, the latest snapshot always first (the previous
// one moved behind it).
func refApply(acc []linkAcc, snaps [][2]snapAt, period des.Time, c change) {
	a := &acc[c.l]
	u := fmin(c.load/a.cap, 1)
	if period > 0 && c.t >= a.snapNext {
		b := c.t - c.t%period
		a.snapNext = b + period
		sn := &snaps[c.l]
		sn[1] = sn[0]
		dt := max((b - a.last).Seconds(), 0)
		sn[0] = snapAt{t: b, bytes: a.bytes + c.load*dt, busy: a.busy + u*dt, flowS: a.flowS + float64(c.fwd)*dt, load: c.load, fwd: c.fwd}
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
	refSnaps := make([][2]snapAt, len(links))
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
		if sn := g.snaps[c.l]; valueAt(&sn[a.snap], a.cap) != refSnaps[c.l][0] || valueAt(&sn[a.snap^1], a.cap) != refSnaps[c.l][1] {
			t.Fatalf("change %d (%+v): snapshots latest %+v, before %+v; want %+v, %+v", i, c, valueAt(&sn[a.snap], a.cap), valueAt(&sn[a.snap^1], a.cap), refSnaps[c.l][0], refSnaps[c.l][1])
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
