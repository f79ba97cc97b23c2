// Package derived shares the data views derive from a trace (the
// Timeline's summary, the sizes index, the traffic matrix, the
// happens-before graph) between the sessions of one process. These are
// pure functions of a trace that never changes once loaded, yet each
// session of an SSH classroom would otherwise build and hold its own copy:
// thirty students on a ten-million-event trace would hold thirty Timeline
// summaries.
//
// A Cache is made by whoever owns the sessions (tui/serve makes one per
// server) and reaches the views through component.Common; a nil Cache
// builds privately, as a single local session wants.
//
// Values are shared read-only: a view must never change what Get returns.
package derived

import (
	"runtime"
	"sync"
	"weak"

	"github.com/tracesim/tracesim/engine/analysis"
	"github.com/tracesim/tracesim/engine/causality"
	"github.com/tracesim/tracesim/tracefmt"
)

// Cache deduplicates the derived data of traces: one build per trace and
// kind, however many sessions ask at once, and the same value for all of
// them while any of them holds it.
//
// A Cache holds neither traces nor values: it keeps weak pointers to
// both, so that the data of a trace no session shows any more is freed by
// the garbage collector, together with the trace once its library lets
// go of it. Holding values strongly would keep their traces alive for
// ever (most values point back at their trace), and a cache bounded by
// count would evict a summary still in use and build a second one.
//
// A Cache is safe for concurrent use. The zero value is not usable; make
// one with New.
type Cache struct {
	mu      sync.Mutex
	entries map[key]*entry
	builds  int // builds started, for tests and logs
}

// key names one derived value: the trace (weakly, so that the map does
// not keep it alive; a weak pointer is never equal to one made from
// another object, even at the same address) and the kind of data.
type key struct {
	tr   weak.Pointer[tracefmt.Trace]
	kind string
}

// entry is one value, being built until done is closed. val is then a
// weak.Pointer[T] to the value, or nil when the build failed (panicked or
// returned nil).
type entry struct {
	done chan struct{}
	val  any
}

// New returns an empty cache.
func New() *Cache {
	return &Cache{entries: make(map[key]*entry)}
}

// Builds returns the number of builds the cache has started, for tests
// and logs: with sharing, one per trace and kind in use.
func (c *Cache) Builds() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.builds
}

// Len returns the number of values the cache knows of (built, being
// built, or freed but not yet forgotten).
func (c *Cache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries)
}

// Get returns the value of the given kind derived from tr, calling build
// to make it when no session holds one: the first caller builds, callers
// arriving meanwhile wait for that build and get the same pointer. A nil
// Cache (or a nil trace) calls build every time.
//
// Kind names what build computes and must name one type T across the
// process (by convention "package.what", e.g. "timeline.index"). Build
// must be a pure function of tr, must return a pointer to memory of its
// own (not a field of a larger object, which the weak pointer would pin),
// and the value must never be changed afterwards: every session reads it.
// If build panics, the panic reaches its caller and the waiters build
// again themselves.
func Get[T any](c *Cache, tr *tracefmt.Trace, kind string, build func() *T) *T {
	if c == nil || tr == nil {
		return build()
	}
	k := key{tr: weak.Make(tr), kind: kind}
	for {
		c.mu.Lock()
		e := c.entries[k]
		if e == nil {
			e = &entry{done: make(chan struct{})}
			c.entries[k] = e
			c.builds++
			c.mu.Unlock()
			return fill(c, k, e, build)
		}
		c.mu.Unlock()
		<-e.done
		switch wp := e.val.(type) {
		case weak.Pointer[T]:
			if v := wp.Value(); v != nil {
				return v
			}
			// Freed since: its cleanup may not have run yet, so drop
			// the entry here and build again.
		case nil:
			// The build failed: try again, one caller building.
		default:
			// Kind was used with another type: a programming error,
			// but not one to fail a session over.
			return build()
		}
		c.forget(k, e)
	}
}

// fill builds e's value as the first caller and publishes it.
func fill[T any](c *Cache, k key, e *entry, build func() *T) *T {
	defer func() {
		if e.val == nil {
			// A panic or a nil value: let the waiters retry.
			c.forget(k, e)
		}
		close(e.done)
	}()
	v := build()
	if v == nil {
		return nil
	}
	e.val = weak.Make(v)
	// The entry goes when the value is collected; the cleanup refers to
	// the cache weakly so that a trace outliving its server does not keep
	// the server's cache alive.
	runtime.AddCleanup(v, func(o owner) {
		if c := o.cache.Value(); c != nil {
			c.forget(o.key, o.entry)
		}
	}, owner{weak.Make(c), k, e})
	return v
}

// owner is what a value's cleanup needs to remove its entry.
type owner struct {
	cache weak.Pointer[Cache]
	key   key
	entry *entry
}

// forget removes e from the cache if it is still k's entry (a newer
// build may have replaced it).
func (c *Cache) forget(k key, e *entry) {
	c.mu.Lock()
	if c.entries[k] == e {
		delete(c.entries, k)
	}
	c.mu.Unlock()
}

// Graph returns tr's happens-before graph, shared through c: the
// Causality tab checks with it and the Timeline's causal cone walks it.
func Graph(c *Cache, tr *tracefmt.Trace) *causality.Graph {
	return Get(c, tr, "causality.graph", func() *causality.Graph { return causality.NewGraph(tr) })
}

// Profile returns tr's whole-run profile (engine/analysis), shared
// through c: the Stats tab shows it until asked for a window.
func Profile(c *Cache, tr *tracefmt.Trace) *analysis.Profile {
	return Get(c, tr, "analysis.profile", func() *analysis.Profile {
		return analysis.ComputeProfile(tr, analysis.All(), nil)
	})
}

// Traffic returns tr's whole-run traffic matrix in rank space, shared
// through c: the Matrix tab reads it and derives node space from it.
func Traffic(c *Cache, tr *tracefmt.Trace) *analysis.Traffic {
	return Get(c, tr, "analysis.traffic", func() *analysis.Traffic {
		return analysis.ComputeTraffic(tr, analysis.All(), nil)
	})
}

// Sends returns tr's index of point-to-point sends, shared through c:
// the Sizes tab bins any rank and window from it.
func Sends(c *Cache, tr *tracefmt.Trace) *analysis.Sends {
	return Get(c, tr, "analysis.sends", func() *analysis.Sends { return analysis.IndexSends(tr) })
}

// Span is a trace's first and last timestamps (Trace.Span).
type Span struct{ Start, End float64 }

// SpanOf returns tr's span, shared through c: the status bar, Stats and
// Sizes count times from its start, and finding it reads every event.
// Callers keep the pointer as long as they show tr, which keeps it shared
// (the cache holds values weakly).
func SpanOf(c *Cache, tr *tracefmt.Trace) *Span {
	return Get(c, tr, "span", func() *Span {
		s, e := tr.Span()
		return &Span{s, e}
	})
}
