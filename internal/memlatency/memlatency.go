// Package memlatency measures how long a load takes when its address
// depends on the load before, as the memory walked grows: the latency of
// each level of the machine's caches and of its main memory, as lmbench's
// lat_mem_rd reports it.
//
// A simulation's cost per event follows it: an event touches the state of
// a few ranks, links or messages, and once that state outgrows the last
// cache level every touch of a cold line costs a main-memory latency
// rather than a cache hit's. `tracesim bench --scale` prints the curve
// beside its per-event costs, so that a reader can tell how much of the
// growth across rank counts is the machine's.
package memlatency

import (
	"fmt"
	"math/rand/v2"
	"time"
)

// LineBytes is the cache line the walk steps between: each load reads
// the first word of a line no load has read since the whole ring was
// walked.
const LineBytes = 64

// wordsPerLine is the number of uint32 words in a line.
const wordsPerLine = LineBytes / 4

// Ring is a walk over the lines of a buffer in random order, visiting
// every line once before it comes back to the first: the first word of
// each line holds the word index of the next line's first word.
// The order is random so that the hardware's prefetchers cannot guess
// the next line, and one cycle so that a walk of any length keeps
// reading the whole buffer.
type Ring struct {
	next []uint32
}

// NewRing returns a ring over a buffer of size bytes (at least two
// lines, at most 2^32 words), its order drawn from seed.
func NewRing(size int, seed uint64) (*Ring, error) {
	n := size / LineBytes
	if n < 2 || n > (1<<32)/wordsPerLine {
		return nil, fmt.Errorf("memlatency: a ring of %d bytes: expected 2 to %d lines of %d bytes", size, (1<<32)/wordsPerLine, LineBytes)
	}
	// Sattolo's shuffle: a uniformly random permutation of one cycle.
	perm := make([]uint32, n)
	for i := range perm {
		perm[i] = uint32(i)
	}
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	for i := n - 1; i > 0; i-- {
		j := rng.IntN(i)
		perm[i], perm[j] = perm[j], perm[i]
	}
	// perm read as a cycle: line perm[k] is followed by perm[k+1].
	r := &Ring{next: make([]uint32, n*wordsPerLine)}
	for k, line := range perm {
		r.next[int(line)*wordsPerLine] = perm[(k+1)%n] * wordsPerLine
	}
	return r, nil
}

// Lines returns the number of lines of the ring.
func (r *Ring) Lines() int { return len(r.next) / wordsPerLine }

// Walk follows loads steps of the ring from word w and returns the word
// it stops at (which the caller uses, so that the loop is not removed).
func (r *Ring) Walk(w uint32, loads int) uint32 {
	next := r.next
	for range loads {
		w = next[w]
	}
	return w
}

// Point is the latency of a dependent load walking Bytes of memory.
type Point struct {
	Bytes     int
	NsPerLoad float64
}

// Measure walks a ring of size bytes once to bring it in (and its pages
// faulted), then times loads more loads and returns the time per load.
func Measure(size, loads int) (Point, error) {
	r, err := NewRing(size, 1)
	if err != nil {
		return Point{}, err
	}
	if loads < 1 {
		return Point{}, fmt.Errorf("memlatency: %d loads: expected at least 1", loads)
	}
	w := r.Walk(0, r.Lines())
	start := time.Now()
	w = r.Walk(w, loads)
	el := time.Since(start)
	// Reading w keeps the walk from being optimised away; it is always
	// a line's first word.
	if w%wordsPerLine != 0 {
		return Point{}, fmt.Errorf("memlatency: the walk reached word %d, not a line's first", w)
	}
	return Point{Bytes: size, NsPerLoad: float64(el.Nanoseconds()) / float64(loads)}, nil
}
