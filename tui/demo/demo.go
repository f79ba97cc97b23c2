// Package demo holds the trace tracesim opens when it is started without a
// file: a 16-rank NAS CG-like run, small enough to embed (about 140 KB)
// and rich enough to show every view (point-to-point messages of several
// partners, collectives, computation and a little clock skew for the
// causality checker).
//
// It was generated with
//
//	tracesim gen cg --ranks 16 --iters 8 --jitter 0.2 --skew 3us -o tui/demo/demo.tsim
package demo

import (
	"bytes"
	_ "embed"
	"fmt"

	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/tracefmt/tsim"
)

//go:embed demo.tsim
var source []byte

// Name is the name the status bar shows for the demo trace.
const Name = "demo (cg, 16 ranks)"

// Trace parses the embedded demo trace. Every call returns a fresh trace,
// so sessions never share one.
func Trace() (*tracefmt.Trace, error) {
	t, err := tsim.Read(bytes.NewReader(source))
	if err != nil {
		return nil, fmt.Errorf("demo trace: %w", err)
	}
	if t.Format == "" {
		t.Format = "tsim"
	}
	return t, nil
}
