//go:build !linux

package simgridti

import "github.com/tracesim/tracesim/tracefmt"

// adviseHuge does nothing where huge pages are not asked for by madvise.
func adviseHuge([]tracefmt.Event) {}
