package derived

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"weak"

	"github.com/tracesim/tracesim/tracefmt"
)

// summary stands for a view's derived data; like the Timeline's index it
// points back at its trace.
type summary struct {
	tr     *tracefmt.Trace
	events int
}

func newTrace() *tracefmt.Trace {
	return &tracefmt.Trace{Ranks: []tracefmt.Rank{{Events: make([]tracefmt.Event, 10)}}}
}

func summarize(tr *tracefmt.Trace, builds *atomic.Int32) func() *summary {
	return func() *summary {
		builds.Add(1)
		return &summary{tr: tr, events: tr.NumEvents()}
	}
}

// eventually collects garbage until cond holds (cleanups run in their own
// goroutine after a collection), failing after a few seconds.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: still not the case after 5 s", what)
		}
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
}

// TestConcurrentGetBuildsOnce has many sessions ask for the same value
// while it is being built: one build, one pointer for all.
func TestConcurrentGetBuildsOnce(t *testing.T) {
	c := New()
	tr := newTrace()
	const n = 32
	var builds atomic.Int32
	started := make(chan struct{})
	release := make(chan struct{})
	build := func() *summary {
		if builds.Add(1) == 1 {
			close(started)
		}
		<-release // hold the build until every caller waits on it
		return &summary{tr: tr, events: tr.NumEvents()}
	}
	got := make([]*summary, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { got[i] = Get(c, tr, "test.summary", build) })
	}
	<-started
	time.Sleep(20 * time.Millisecond) // let the others reach the wait
	close(release)
	wg.Wait()
	if b := builds.Load(); b != 1 {
		t.Errorf("%d builds for %d concurrent callers, want 1", b, n)
	}
	for i, v := range got {
		if v != got[0] {
			t.Fatalf("caller %d got %p, caller 0 %p: not shared", i, v, got[0])
		}
	}
	if got[0].events != 10 {
		t.Errorf("value %+v", *got[0])
	}
	// Later callers get it too, while it is held.
	if v := Get(c, tr, "test.summary", build); v != got[0] {
		t.Errorf("later Get returned another value")
	}
	if c.Builds() != 1 || builds.Load() != 1 {
		t.Errorf("%d builds after a later Get, want 1", c.Builds())
	}
	runtime.KeepAlive(got)
}

// TestKeys checks that values are per trace and per kind.
func TestKeys(t *testing.T) {
	c := New()
	a, b := newTrace(), newTrace()
	var builds atomic.Int32
	va := Get(c, a, "test.summary", summarize(a, &builds))
	vb := Get(c, b, "test.summary", summarize(b, &builds))
	va2 := Get(c, a, "test.other", summarize(a, &builds))
	if va == vb || va == va2 || va.tr != a || vb.tr != b {
		t.Errorf("values mixed up between traces or kinds")
	}
	if builds.Load() != 3 || c.Len() != 3 {
		t.Errorf("%d builds, %d entries; want 3 and 3", builds.Load(), c.Len())
	}
	runtime.KeepAlive([]*summary{va, vb, va2})
}

// TestNilCacheBuildsPrivately: without a cache every caller builds its
// own, as a view outside a server does.
func TestNilCacheBuildsPrivately(t *testing.T) {
	tr := newTrace()
	var builds atomic.Int32
	v1 := Get(nil, tr, "test.summary", summarize(tr, &builds))
	v2 := Get(nil, tr, "test.summary", summarize(tr, &builds))
	if v1 == v2 || builds.Load() != 2 {
		t.Errorf("nil cache: %d builds, same pointer %v; want 2 builds, distinct", builds.Load(), v1 == v2)
	}
	if v := Get(New(), nil, "test.summary", func() *summary { return &summary{} }); v == nil {
		t.Errorf("nil trace: no value")
	}
}

// TestFreedWhenUnreachable drops every session's reference: the value
// and its entry go, and so does the trace, although the value points at
// it and the cache was keyed by it.
func TestFreedWhenUnreachable(t *testing.T) {
	c := New()
	var builds atomic.Int32
	traceGone := weak.Pointer[tracefmt.Trace]{}
	func() {
		tr := newTrace()
		traceGone = weak.Make(tr)
		v := Get(c, tr, "test.summary", summarize(tr, &builds))
		if c.Len() != 1 {
			t.Fatalf("%d entries after a Get, want 1", c.Len())
		}
		runtime.KeepAlive(v)
	}()
	eventually(t, "entry removed once the value is unreachable", func() bool { return c.Len() == 0 })
	eventually(t, "trace collected", func() bool { return traceGone.Value() == nil })
}

// TestRebuildAfterFree: a trace still loaded (the library holds it) whose
// value no session holds any more gets a fresh build on the next Get.
func TestRebuildAfterFree(t *testing.T) {
	c := New()
	tr := newTrace()
	var builds atomic.Int32
	func() {
		v := Get(c, tr, "test.summary", summarize(tr, &builds))
		runtime.KeepAlive(v)
	}()
	eventually(t, "entry removed", func() bool { return c.Len() == 0 })
	v := Get(c, tr, "test.summary", summarize(tr, &builds))
	if v == nil || v.tr != tr || builds.Load() != 2 {
		t.Errorf("after a free: %d builds, value %v; want a second build", builds.Load(), v)
	}
	runtime.KeepAlive(v)
}

// TestBuildPanics: a build that panics fails its caller only; the next
// caller builds again.
func TestBuildPanics(t *testing.T) {
	c := New()
	tr := newTrace()
	func() {
		defer func() {
			if recover() == nil {
				t.Errorf("the panic did not reach the caller")
			}
		}()
		Get(c, tr, "test.summary", func() *summary { panic("boom") })
	}()
	if c.Len() != 0 {
		t.Errorf("%d entries after a failed build, want 0", c.Len())
	}
	var builds atomic.Int32
	if v := Get(c, tr, "test.summary", summarize(tr, &builds)); v == nil || builds.Load() != 1 {
		t.Errorf("no rebuild after a failed build")
	}
}

// TestWaitersRetryAfterPanic: callers waiting on a build that panics
// build the value themselves, once between them.
func TestWaitersRetryAfterPanic(t *testing.T) {
	c := New()
	tr := newTrace()
	started, release := make(chan struct{}), make(chan struct{})
	go func() {
		defer func() { _ = recover() }()
		Get(c, tr, "test.summary", func() *summary {
			close(started)
			<-release
			panic("boom")
		})
	}()
	<-started
	var builds atomic.Int32
	const n = 8
	got := make([]*summary, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { got[i] = Get(c, tr, "test.summary", summarize(tr, &builds)) })
	}
	time.Sleep(20 * time.Millisecond)
	close(release)
	wg.Wait()
	if builds.Load() != 1 {
		t.Errorf("%d builds after the failed one, want 1", builds.Load())
	}
	for i := range got {
		if got[i] == nil || got[i] != got[0] {
			t.Fatalf("caller %d: %p, caller 0: %p", i, got[i], got[0])
		}
	}
}

// TestKindWithAnotherType builds privately rather than fail.
func TestKindWithAnotherType(t *testing.T) {
	c := New()
	tr := newTrace()
	var builds atomic.Int32
	s := Get(c, tr, "test.kind", summarize(tr, &builds))
	n := Get(c, tr, "test.kind", func() *int { v := 7; return &v })
	if n == nil || *n != 7 {
		t.Errorf("got %v", n)
	}
	runtime.KeepAlive(s)
}
