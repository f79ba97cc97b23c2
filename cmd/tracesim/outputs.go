package main

import (
	"fmt"

	"github.com/tracesim/tracesim/internal/atomicfile"
	"github.com/tracesim/tracesim/tracefmt/formats"
)

// output is a file a command writes and the flag that names it.
type output struct{ flag, path string }

// guardOutputs refuses, before any work is done, outputs that would replace
// a file the run reads (the trace, every file a TI index lists, the extra
// inputs such as a --config file) or another output of the same run. It
// returns the inputs, for the writers to check again when they write.
func guardOutputs(trace, format string, extra []string, outs ...output) ([]string, error) {
	inputs, err := formats.InputFiles(trace, format)
	if err != nil {
		return nil, err
	}
	for _, x := range extra {
		if x != "" {
			inputs = append(inputs, x)
		}
	}
	var earlier []string
	for _, o := range outs {
		if o.path == "" {
			continue
		}
		if err := atomicfile.CheckNotInput(o.path, inputs...); err != nil {
			return nil, fmt.Errorf("%s: %w", o.flag, err)
		}
		if err := atomicfile.CheckNotInput(o.path, earlier...); err != nil {
			return nil, fmt.Errorf("%s: %w (another output of this run)", o.flag, err)
		}
		earlier = append(earlier, o.path)
	}
	return inputs, nil
}
