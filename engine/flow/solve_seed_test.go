package flow

import (
	"reflect"
	"testing"
)

// TestSeedByFixedAtChangesNothing: seeding a solve with the flows fixed
// at a changed link found through fixedAt (the scan of the link stops at
// the last of them) delivers every message at the same picosecond as
// scanning every flow of the link, on the CG-like loop (star and torus),
// the drifting stencil (crossbar and torus), with and without
// crosstraffic, and on random traffic over tori, crossbars, fat trees and
// rings with SHARED and FATPIPE links, limiters, TCP bounds and factors.
// Both solve every time (no memo), so that every solve seeds.
func TestSeedByFixedAtChangesNothing(t *testing.T) {
	cases := solverCases(t, 4, 23)
	for _, c := range cases {
		want, _ := c.run("nowhole,nomemo,scanall")
		got, n := c.run("nowhole,nomemo")
		sameTimes(t, c.name, "scanning every flow of a changed link", got, want)
		if n.sys.zeroRate {
			t.Logf("%s: a flow ran at rate 0: seed scanned every flow from then on", c.name)
		}
	}
}

// TestSolverBytesPerElement: the solver's arrays that grow with the
// elements of a solve (a flow's uses of links: fLink by flow, lFlow by
// link) hold 8 bytes an element, an element's flow or link number with
// its crosstraffic bit in each list, not beside a float64 coefficient
// (24 bytes an element then: at 65,536 ranks a solve reaches a million
// elements).
func TestSolverBytesPerElement(t *testing.T) {
	runs := map[string]func() *Network{
		"stencil crossbar:256": func() *Network {
			_, n := runStencilOn(t, "crossbar:256", 16, 1, "nowhole,nomemo", 0.05)
			return n
		},
		"cg torus": func() *Network {
			_, n := runCGWith(t, "torus", 2, "nowhole,nomemo", 0.05)
			return n
		},
	}
	for name, run := range runs {
		n := run()
		s := &n.sys
		// The largest solve's: the arrays keep their capacity.
		F, L, E := cap(s.slot), cap(s.id), min(cap(s.fLink), cap(s.lFlow))
		if F < 32 || E < 2*max(F, L) {
			t.Fatalf("%s: largest solve %d flows, %d links, %d elements: want at least 32 flows and twice as many elements as flows and links", name, F, L, E)
		}
		// The arrays with room for as many elements, but for the one
		// by cached path.
		bytes := 0
		v := reflect.ValueOf(s).Elem()
		for i := range v.NumField() {
			f := v.Field(i)
			if f.Kind() == reflect.Slice && f.Cap() >= E && v.Type().Field(i).Name != "distinct" {
				bytes += f.Cap() * int(f.Type().Elem().Size())
			}
		}
		if limit := 1.25 * 8 * float64(E); float64(bytes) > limit {
			t.Errorf("%s: the arrays by element hold %d bytes for %d elements: want at most %.0f (8 an element, grow's slack)", name, bytes, E, limit)
		}
	}
}

// TestMemoRestsBySize: the systems memo rests by size class. Small
// systems that always repeat keep being looked up (and found) while
// large ones that never repeat, a fifth of the lookups, stop being
// looked up after a few windows of misses; with one window for all
// sizes the small systems' hits kept the large ones' keys being built
// and hashed at every solve.
func TestMemoRestsBySize(t *testing.T) {
	var m solveMemo
	small := []uint64{1, 2, 3}
	m.key = append(m.key[:0], small...)
	m.lookup(memoClass(4))
	m.store(nil, nil)
	const rounds, bigEvery = 4096, 4
	smallLooked, smallFound, bigLooked := 0, 0, 0
	for r := range rounds {
		if m.use(false, 4) {
			m.key = append(m.key[:0], small...)
			if m.lookup(memoClass(4)) >= 0 {
				smallFound++
			}
			smallLooked++
		}
		if r%bigEvery == 0 && m.use(false, 4096) {
			m.key = append(m.key[:0], 7, uint64(r))
			if m.lookup(memoClass(4096)) >= 0 {
				t.Fatalf("round %d: a key never stored was found", r)
			}
			bigLooked++
		}
	}
	if smallLooked != rounds || smallFound != rounds {
		t.Errorf("small systems: %d lookups, %d found of %d met: want all looked up and found", smallLooked, smallFound, rounds)
	}
	if bigs := rounds / bigEvery; bigLooked > bigs/8 {
		t.Errorf("large systems: %d of %d looked up: want at most %d (an eighth)", bigLooked, bigs, bigs/8)
	}
}
