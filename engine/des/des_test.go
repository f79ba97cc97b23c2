package des

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"unsafe"
)

func TestQueueOrdersByTimeThenSequence(t *testing.T) {
	for _, n := range []int{0, 1, 2, 5, 17, 1000} {
		rng := rand.New(rand.NewPCG(uint64(n), 1))
		var q Queue
		type rec struct {
			at  Time
			ord int64
		}
		var want []rec
		for i := range n {
			at := Time(rng.IntN(10)) // many ties
			q.Push(at, uint8(i%7), int32(i), int64(i))
			want = append(want, rec{at, int64(i)})
		}
		slices.SortStableFunc(want, func(a, b rec) int { return cmp.Compare(a.at, b.at) })
		for i, w := range want {
			e, ok := q.Pop()
			if !ok {
				t.Fatalf("n=%d: queue empty after %d pops", n, i)
			}
			if e.At != w.at || e.Arg != w.ord || e.Obj != int32(w.ord) || e.Kind != uint8(w.ord%7) {
				t.Fatalf("n=%d pop %d: got (at %d, arg %d), want (at %d, arg %d)", n, i, e.At, e.Arg, w.at, w.ord)
			}
		}
		if _, ok := q.Pop(); ok || q.Len() != 0 {
			t.Fatalf("n=%d: queue not empty at the end", n)
		}
	}
}

func TestQueueInterleavedPushPop(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	var q Queue
	var ref []entry // reference: sorted slice
	seq := uint64(0)
	for step := range 20000 {
		if rng.IntN(3) > 0 || len(ref) == 0 {
			at := Time(rng.IntN(100))
			q.Push(at, 0, 0, int64(step))
			seq++
			ref = append(ref, entry{Event{At: at, Arg: int64(step)}, seq})
			continue
		}
		slices.SortFunc(ref, func(a, b entry) int {
			if before(&a, &b) {
				return -1
			}
			return 1
		})
		e, _ := q.Pop()
		if e.Arg != ref[0].e.Arg || e.At != ref[0].e.At {
			t.Fatalf("step %d: popped (%d, %d), want (%d, %d)", step, e.At, e.Arg, ref[0].e.At, ref[0].e.Arg)
		}
		ref = ref[1:]
	}
}

func TestKernelClockAndLateEvents(t *testing.T) {
	k := NewKernel(1)
	k.Schedule(10, 1, 0, 0)
	k.Schedule(5, 2, 0, 0)
	if got := k.NextTime(); got != 5 {
		t.Fatalf("NextTime = %d, want 5", got)
	}
	e, _ := k.Next()
	if e.Kind != 2 || k.Now() != 5 {
		t.Fatalf("first event kind %d at %d, want kind 2 at 5", e.Kind, k.Now())
	}
	k.Schedule(3, 3, 0, 0) // in the past: moved to now
	e, _ = k.Next()
	if e.Kind != 3 || e.At != 5 || k.Late() != 1 {
		t.Fatalf("late event: kind %d at %d, late %d; want kind 3 at 5, late 1", e.Kind, e.At, k.Late())
	}
	e, _ = k.Next()
	if e.Kind != 1 || k.Now() != 10 || k.Events() != 3 {
		t.Fatalf("got kind %d now %d events %d", e.Kind, k.Now(), k.Events())
	}
	if _, ok := k.Next(); ok || k.NextTime() != Never || k.Pending() != 0 {
		t.Fatal("kernel should be empty")
	}
}

func TestKernelRandIsSeeded(t *testing.T) {
	a, b, c := NewKernel(42), NewKernel(42), NewKernel(43)
	same, diff := true, false
	for range 100 {
		x, y, z := a.Rand().Uint64(), b.Rand().Uint64(), c.Rand().Uint64()
		same = same && x == y
		diff = diff || x != z
	}
	if !same || !diff {
		t.Fatalf("same seed same numbers: %v; other seed other numbers: %v", same, diff)
	}
}

func TestTimeConversions(t *testing.T) {
	tests := []struct {
		sec  float64
		want Time
		str  string
	}{
		{0, 0, "0s"},
		{1.204916984, 1204916984000, "1.204916984s"},
		{1e-12, 1, "0.000000000001s"},
		{-2.5e-6, -2500000, "-0.0000025s"},
		{3, 3 * Second, "3s"},
		{1e30, Never, "never"},
		{math.NaN(), 0, "0s"},
	}
	for _, tc := range tests {
		got := FromSeconds(tc.sec)
		if got != tc.want {
			t.Errorf("FromSeconds(%v) = %d, want %d", tc.sec, got, tc.want)
		}
		if s := got.String(); s != tc.str {
			t.Errorf("Time(%d).String() = %q, want %q", got, s, tc.str)
		}
	}
	if got := (1500 * Millisecond).Seconds(); got != 1.5 {
		t.Errorf("Seconds = %v, want 1.5", got)
	}
}

// BenchmarkQueue measures a hold model: the queue keeps n events, and each
// iteration pops the earliest and pushes one a little later, as a replay
// does with one pending event per rank and message.
func BenchmarkQueue(b *testing.B) {
	for _, n := range []int{64, 4096, 65536} {
		b.Run(itoa(n), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 2))
			var q Queue
			for i := range n {
				q.Push(Time(rng.IntN(1000)), 0, int32(i), 0)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				e, _ := q.Pop()
				q.Push(e.At+Time(1+rng.IntN(1000)), e.Kind, e.Obj, e.Arg)
			}
		})
	}
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}

// TestCalQueueMatchesQueue runs the kernel's calendar queue and the 4-ary
// heap side by side on pushes that never lie before the last event taken
// out, as the kernel guarantees: many equal times, times within one
// bucket pushed out of order, fixed delays (a network's hops), gaps
// across the whole ring and beyond its window (the far heap), and peeks
// in between. Both must give every event in the same order, and Peek
// must show the event Pop then takes.
func TestCalQueueMatchesQueue(t *testing.T) {
	const window = calSlots << calShift
	tests := []struct {
		name   string
		spread int64 // times are now + rand(spread) …
		fixed  int64 // … or, one push in two, now + fixed
		pushes int   // pushes per pop, on average ×2
	}{
		{"ties", 3, 0, 1},
		{"in-bucket", 1 << calShift, 0, 2},
		{"near", 1000, 0, 1},
		{"hops", 1 << 14, 30000, 2},
		{"window-edge", window + 3000, window - 1, 1},
		{"ring-and-far", 3 * window, 52451600, 2},
		{"wide", 1 << 40, 0, 1},
		{"burst", 100, 0, 4},
		{"many", 20000, 0, 8},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cq := newCalQueue(0)
			far, ring := matchQueue(t, &cq, tc.spread, tc.fixed, 0, tc.pushes)
			// Both parts were used where the times ask for them.
			if ring == 0 || (tc.spread+tc.fixed > window && far == 0) {
				t.Errorf("the ring held up to %d events, the far heap %d", ring, far)
			}
		})
	}
}

// matchQueue pushes into cq and a heap, side by side, times now + base +
// rand(spread) (or, one push in two when fixed > 0, now + fixed), about
// pushes per pop, and pops both: 25,000 steps, then until both are
// empty. Every pop and peek must agree. It returns the most events the
// far heap and the ring held.
func matchQueue(t *testing.T, cq *calQueue, spread, fixed, base int64, pushes int) (far, ring int) {
	t.Helper()
	rng := rand.New(rand.NewPCG(uint64(spread), 9))
	var ref Queue
	now := Time(0)
	popped, n := 0, 0
	for step := 0; step < 25000 || ref.Len() > 0; step++ {
		if step < 25000 {
			for range rng.IntN(2*pushes + 1) {
				at := now + Time(base+rng.Int64N(spread))
				if fixed > 0 && rng.IntN(2) == 0 {
					at = now + Time(fixed)
				}
				// Arg numbers the pushes: equal times must leave in
				// push order.
				n++
				ref.Push(at, uint8(step), int32(step), int64(n))
				cq.Push(at, uint8(step), int32(step), int64(n))
			}
		}
		if cq.Len() != ref.Len() {
			t.Fatalf("step %d: calendar holds %d events, heap %d", step, cq.Len(), ref.Len())
		}
		far, ring = max(far, cq.far.Len()), max(ring, cq.ring)
		pe, pok := cq.Peek()
		want, wok := ref.Pop()
		got, gok := cq.Pop()
		if gok != wok || pok != wok {
			t.Fatalf("step %d: calendar ok %v (peek %v), heap ok %v", step, gok, pok, wok)
		}
		if !wok {
			continue
		}
		if got != want || pe != want {
			t.Fatalf("step %d: calendar popped %+v (peeked %+v), heap %+v", step, got, pe, want)
		}
		now = got.At
		popped++
	}
	if popped < 20000 || cq.Len() != 0 {
		t.Fatalf("%d events popped, %d left", popped, cq.Len())
	}
	return far, ring
}

// TestCalQueueTunesBuckets checks the width tune chooses after the
// first events, and that the order stays the heap's across the move of
// the ring's events into the new buckets (tuned after 3,000 events here,
// the ring then holding hundreds of events, some beyond the new window
// or in the far heap): sparse events pushed microseconds ahead (a flow
// model) get wide buckets, and a ring as much shorter; a packet model's
// hops 30 ns ahead, and events pushed far ahead but taken out densely,
// keep calShift's.
func TestCalQueueTunes(t *testing.T) {
	tests := []struct {
		name         string
		spread, base int64
		fixed        int64
		pushes       int
		shift        uint
		window       int64 // ps
	}{
		// 8–33 µs ahead, about one push per pop: a bucket of 2^16 ps.
		{"flow-like", 25_000_000, 8_000_000, 0, 1, 16, calSlots << calShift},
		// Half of them at 30 ns, the others within 16 ns.
		{"hops", 16_000, 0, 30_000, 1, calShift, calSlots << calShift},
		// 1–2 µs ahead, but eight pushes a pop: the clock advances
		// ~100 ps an event.
		{"dense", 1_000_000, 1_000_000, 0, 8, calShift, calSlots << calShift},
		// 2–4 ns ahead: 2^(12-7) is below calShift.
		{"near", 2_000, 2_000, 0, 1, calShift, calSlots << calShift},
		// Up to 1 s ahead: wide, bounded by calMaxShift, and the ring
		// all calSlots of them (17 ms).
		{"wide", 1_000_000_000_000, 0, 0, 1, calMaxShift, calSlots << calMaxShift},
		// 134–268 µs ahead (ranks computing between messages): the
		// ring widens to hold them, 2^28 ps.
		{"compute", 134_000_000, 134_000_000, 0, 1, calMaxShift, 1 << 28},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cq := newCalQueue(0)
			cq.tuneAt = 3000
			matchQueue(t, &cq, tc.spread, tc.fixed, tc.base, tc.pushes)
			if cq.tuning || cq.sh != tc.shift {
				t.Errorf("buckets of 2^%d ps (still tuning: %v), want 2^%d", cq.sh, cq.tuning, tc.shift)
			}
			// The ring keeps at least its window of 2^18 buckets of
			// 256 ps, wider when 99 % of the pushes need it.
			if w := (cq.mask + 1) << cq.sh; w != tc.window {
				t.Errorf("a ring of %d slots of 2^%d ps: a window of %d ps, want %d", cq.mask+1, cq.sh, w, tc.window)
			}
		})
	}
}

// TestCalQueueWindowHoldsComputeBursts checks that a tuned ring holds
// events pushed hundreds of microseconds ahead (ranks computing between
// messages, the SimGrid stencil256 case), which calShift's 67-µs window
// sent to the far heap one by one: after the tuning period, no push goes
// to the heap, and the order is still the heap's.
func TestCalQueueWindowHoldsComputeBursts(t *testing.T) {
	tests := []struct {
		name         string
		spread, base int64
		farAfterTune bool
	}{
		// 134–268 µs ahead, one push a pop: inside the widened window.
		{"compute-bursts", 134_000_000, 134_000_000, false},
		// 0.5–1 s ahead: beyond the widest window (2^18 buckets of
		// 2^16 ps, 17 ms), so the heap keeps them.
		{"beyond-any-window", 500_000_000_000, 500_000_000_000, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cq := newCalQueue(0)
			cq.tuneAt = 3000
			var ref Queue
			rng := rand.New(rand.NewPCG(3, 4))
			now, n := Time(0), 0
			farPushes := 0
			for step := range 20000 {
				if step < 15000 {
					n++
					at := now + Time(tc.base+rng.Int64N(tc.spread))
					before := cq.far.Len()
					cq.Push(at, 1, int32(n), int64(n))
					ref.Push(at, 1, int32(n), int64(n))
					if !cq.tuning && cq.far.Len() > before {
						farPushes++
					}
				}
				want, wok := ref.Pop()
				got, gok := cq.Pop()
				if gok != wok || got != want {
					t.Fatalf("step %d: calendar popped %+v (%v), heap %+v (%v)", step, got, gok, want, wok)
				}
				if !wok {
					break
				}
				now = got.At
			}
			if cq.tuning {
				t.Fatal("still tuning after 3,000 events")
			}
			if (farPushes > 0) != tc.farAfterTune {
				t.Errorf("%d pushes went to the far heap after tuning (window %d ps), want some: %v",
					farPushes, (cq.mask+1)<<cq.sh, tc.farAfterTune)
			}
		})
	}
}

// TestCalNodeSize holds the calendar's node at half a cache line: a
// 65,536-rank stencil keeps ~261,000 arrivals in the ring at once (40
// bytes a node before, the kind and the link beside the entry).
func TestCalNodeSize(t *testing.T) {
	if got := unsafe.Sizeof(calNode{}); got > 32 {
		t.Errorf("a calendar node takes %d bytes, want at most 32", got)
	}
}

// TestCalQueueGrowKeepsEvents checks that Grow, which moves the nodes to
// a new array, keeps the queued events, their links and the free list:
// events pushed before and after it come out as from the heap.
func TestCalQueueGrowKeepsEvents(t *testing.T) {
	cq := newCalQueue(0)
	var ref Queue
	n := 0
	push := func(at Time) {
		n++
		cq.Push(at, uint8(n), int32(n), int64(n))
		ref.Push(at, uint8(n), int32(n), int64(n))
	}
	for i := range 300 {
		push(Time(i % 7 * 100))
	}
	for range 50 { // free nodes for the list to keep
		cq.Pop()
		ref.Pop()
	}
	cq.Grow(5000)
	if room := cap(cq.nodes) - len(cq.nodes); room < 5000 {
		t.Fatalf("Grow(5000) left room for %d nodes", room)
	}
	for i := range 300 {
		push(Time(600 + i%5*100))
	}
	for ref.Len() > 0 {
		want, _ := ref.Pop()
		got, ok := cq.Pop()
		if !ok || got != want {
			t.Fatalf("after Grow: calendar popped %+v (%v), heap %+v", got, ok, want)
		}
	}
	if cq.Len() != 0 {
		t.Fatalf("%d events left in the calendar", cq.Len())
	}
}
