package timeline

import (
	"runtime"
	"sync"
	"testing"

	"github.com/tracesim/tracesim/themes"
	"github.com/tracesim/tracesim/tracefmt/gen"
	"github.com/tracesim/tracesim/views/component"
	"github.com/tracesim/tracesim/views/derived"
)

// TestSharedIndex opens one trace in two sessions with one cache: they
// read the same summary, built once, while zoom, cursor and selection
// stay each session's own. A session without the cache builds its own.
func TestSharedIndex(t *testing.T) {
	tr := genTrace(t, gen.Options{Pattern: "ring", Ranks: 4, Iters: 3, Seed: 1})
	cache := derived.New()
	m1 := New(component.New(&component.Session{Theme: themes.Mono(), Derived: cache}, 80, 20), tr)
	m2 := New(component.New(&component.Session{Theme: themes.Mono(), Derived: cache}, 60, 12), tr)
	m1.plain, m2.plain = true, true
	if m1.orig == nil || m1.orig != m2.orig {
		t.Fatalf("two sessions on one trace: summaries %p and %p, want one", m1.orig, m2.orig)
	}
	if n := cache.Builds(); n != 1 {
		t.Errorf("%d builds, want 1", n)
	}
	if m := New(component.New(&component.Session{Theme: themes.Mono()}, 80, 20), tr); m.orig == m1.orig {
		t.Errorf("a session without the cache got the shared summary")
	}

	before := m2.View()
	a2, b2 := m2.Window()
	press(m1, "+", "+", "down", "enter")
	if a1, b1 := m1.Window(); a1 == a2 && b1 == b2 {
		t.Errorf("zoom did not change session 1's window")
	}
	if m1.Selection() == "" {
		t.Errorf("session 1 selected nothing")
	}
	if a, b := m2.Window(); a != a2 || b != b2 || m2.row != 0 || m2.Selection() != "" {
		t.Errorf("session 2 followed session 1: window %v..%v, row %d, selection %q", a, b, m2.row, m2.Selection())
	}
	if after := m2.View(); after != before {
		t.Errorf("session 2's frame changed with session 1's keys:\n%s\nthen\n%s", before, after)
	}
	m1.View()
	if m1.orig != m2.orig {
		t.Errorf("a session's keys replaced the shared summary")
	}
}

// TestSharedBackgroundBuild opens a big trace (background build) in
// sessions that arrive while another session's build is in progress:
// they wait for it rather than build their own.
func TestSharedBackgroundBuild(t *testing.T) {
	tr := genTrace(t, gen.Options{Pattern: "ring", Ranks: 4, Iters: 3, Seed: 1})
	cache := derived.New()
	// The first session's build, held until the others have started.
	release := make(chan struct{})
	var first *index
	var wg sync.WaitGroup
	wg.Go(func() {
		first = derived.Get(cache, tr, indexKind, func() *index {
			<-release
			return newIndex(tr)
		})
	})
	for cache.Len() == 0 {
		runtime.Gosched() // until the first build has claimed its entry
	}
	ms := make([]*Model, 3)
	for i := range ms {
		ms[i] = newWithAsync(component.New(&component.Session{Theme: themes.Mono(), Derived: cache}, 80, 20), tr, 0)
		if ms[i].job == nil {
			t.Fatal("no background build")
		}
	}
	close(release)
	wg.Wait()
	for i, m := range ms {
		cmd := m.Init()
		if cmd == nil {
			t.Fatalf("session %d: no wait command", i)
		}
		m.Update(cmd())
		if m.job != nil || m.orig != first {
			t.Errorf("session %d: summary %p, want the first session's %p", i, m.orig, first)
		}
	}
	if n := cache.Builds(); n != 1 {
		t.Errorf("%d builds, want 1", n)
	}
}

// TestSharedGraph: the causal cone walks the graph the cache holds for
// the trace, the one the Causality tab checks with.
func TestSharedGraph(t *testing.T) {
	tr := genTrace(t, gen.Options{Pattern: "ring", Ranks: 4, Iters: 3, Seed: 1})
	cache := derived.New()
	g1 := (&graphCache{tr: tr, cache: cache}).get()
	g2 := (&graphCache{tr: tr, cache: cache}).get()
	if g1 == nil || g1 != g2 || g1 != derived.Graph(cache, tr) {
		t.Errorf("cones of one trace in two sessions use graphs %p and %p", g1, g2)
	}
	if g := (&graphCache{tr: tr}).get(); g == g1 {
		t.Errorf("a session without the cache got the shared graph")
	}
}
