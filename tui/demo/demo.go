// Package demo makes the trace tracesim opens when it is started without
// a file: a 16-rank NAS CG-like run, rich enough to show every view
// (point-to-point messages of several partners, collectives, computation
// and a little clock skew for the causality checker). It is generated,
// not stored: the generator is deterministic and makes its 4,608 events in
// about a millisecond. The same trace as a file:
//
//	tracesim gen cg --ranks 16 --iters 8 --jitter 0.2 --skew 3us -o demo.tsim
package demo

import (
	"fmt"

	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/tracefmt/gen"
)

// Name is the name the status bar shows for the demo trace.
const Name = "demo (cg, 16 ranks)"

// Trace generates the demo trace. Every call returns a fresh trace, so
// sessions never share one.
func Trace() (*tracefmt.Trace, error) {
	t, err := gen.Generate(gen.Options{Pattern: "cg", Ranks: 16, Iters: 8, Size: 8192, Compute: 200e-6, Jitter: 0.2, Skew: 3e-6, Seed: 1})
	if err != nil {
		return nil, fmt.Errorf("demo trace: %w", err)
	}
	return t, nil
}
