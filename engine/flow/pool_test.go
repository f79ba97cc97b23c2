package flow

import (
	"reflect"
	"testing"

	"github.com/tracesim/tracesim/engine/des"
	"github.com/tracesim/tracesim/engine/netmodel"
)

// hasPointers tells whether values of type t hold a pointer the
// collector would scan.
func hasPointers(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Map, reflect.Chan, reflect.Func,
		reflect.Interface, reflect.String, reflect.UnsafePointer:
		return true
	case reflect.Array:
		return t.Len() > 0 && hasPointers(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if hasPointers(t.Field(i).Type) {
				return true
			}
		}
	}
	return false
}

// TestRecordsHoldNoPointer: the flow slots, the link records and the
// pools' elements hold no pointer, so that the collector does not scan
// the quarter of a million slots a 65,536-rank run keeps, nor their
// blocks and the links' lists (1.5 M small objects when each was a slice
// of its own).
func TestRecordsHoldNoPointer(t *testing.T) {
	for _, c := range []struct {
		name string
		t    reflect.Type
	}{
		{"flowRec", reflect.TypeFor[flowRec]()},
		{"link", reflect.TypeFor[link]()},
		{"elem", reflect.TypeFor[elem]()},
	} {
		if hasPointers(c.t) {
			t.Errorf("%s holds a pointer", c.name)
		}
	}
}

// TestPoolReuse: a range given back is handed out again, in its class,
// before the array grows; ranges are of whole powers of two.
func TestPoolReuse(t *testing.T) {
	var p pool[int32]
	a, b := p.get(3), p.get(2)
	if a != 0 || b != 8 || len(p.buf) != 12 {
		t.Fatalf("first ranges at %d and %d, %d elements in use; want 0, 8, 12", a, b, len(p.buf))
	}
	p.put(a, 3)
	if c := p.get(2); c != 12 {
		t.Fatalf("a class-2 range at %d, want 12 (the class-3 range is not split)", c)
	}
	if c := p.get(3); c != a {
		t.Fatalf("a class-3 range at %d, want the one given back, %d", c, a)
	}
	if len(p.buf) != 16 {
		t.Fatalf("%d elements in use, want 16", len(p.buf))
	}
	for _, c := range []struct{ k, want int }{{0, 0}, {1, 0}, {2, 1}, {3, 2}, {4, 2}, {5, 3}, {8, 3}, {9, 4}, {1 << 20, 20}, {1<<20 + 1, 21}} {
		if got := class(c.k); got != c.want {
			t.Errorf("class(%d) = %d, want %d", c.k, got, c.want)
		}
	}
}

// TestPoolsStopGrowing: rounds of the same flows, on a network without
// cached paths (whose slots take their blocks from the pool), reuse the
// slots' blocks and the links' lists: after the first round neither
// pool grows, and every flow arrives.
func TestPoolsStopGrowing(t *testing.T) {
	const nodes, flows = 2048, 4096
	n, err := New(Config{Topology: star(t, nodes), CrossTraffic: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	h := &host{k: des.NewKernel(1), n: n, delivered: map[int32]des.Time{}, injected: map[int32]des.Time{}}
	n.Attach(h)
	var blk, elp int
	for round := range int32(4) {
		for i := range int32(flows) {
			n.Send(netmodel.Message{ID: round*flows + i, Src: i % nodes, Dst: (i + 1 + i/nodes + round) % nodes, Bytes: 1000})
		}
		for {
			e, ok := h.k.Next()
			if !ok {
				break
			}
			n.Handle(e)
		}
		if got := len(h.delivered); got != int(round+1)*flows || n.InFlight() != 0 {
			t.Fatalf("round %d: %d flows delivered, %d in flight", round, got, n.InFlight())
		}
		if round == 0 {
			blk, elp = len(n.blk.buf), len(n.elp.buf)
			if blk != flows*8 {
				t.Fatalf("%d block elements for %d flows of 4 links, want %d", blk, flows, flows*8)
			}
			continue
		}
		if len(n.blk.buf) != blk || len(n.elp.buf) != elp {
			t.Fatalf("round %d: pools of %d and %d elements, %d and %d after the first round",
				round, len(n.blk.buf), len(n.elp.buf), blk, elp)
		}
	}
}
