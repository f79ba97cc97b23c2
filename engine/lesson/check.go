package lesson

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/tracesim/tracesim/engine/replay"
	"github.com/tracesim/tracesim/tracefmt"
)

// CheckOptions say what the program running the lessons offers.
type CheckOptions struct {
	// Tabs are the names of the application's tabs in order: keys 1–9
	// select them, so a step's tab must be one of them and its digit
	// keys must select one.
	Tabs []string
}

// Check validates a parsed lesson as `tracesim lesson check` does: every
// step's tab and keys exist, every machine is valid, the trace loads, and
// every answer is computable. It returns every problem found (each an
// *Error naming the line), the trace and the expected answers when
// there were none.
func Check(ctx context.Context, l *Lesson, o CheckOptions) (*tracefmt.Trace, []*Expected, []error) {
	var errs []error
	at := func(line int, format string, a ...any) {
		errs = append(errs, &Error{File: l.File, Line: line, Msg: fmt.Sprintf(format, a...)})
	}
	if cfg, err := l.Config(-1); err != nil {
		errs = append(errs, err)
	} else {
		for _, s := range l.Settings {
			if why := replay.Unused(&cfg, s.Key); why != "" {
				at(s.Line, "set %s: %s", s.Key, why)
			}
		}
	}
	for i := range l.Steps {
		st := &l.Steps[i]
		if st.Tab != "" && len(o.Tabs) > 0 && tabIndex(o.Tabs, st.Tab) < 0 {
			at(st.TabLine, "tab: no tab %q (expected one of %s)", st.Tab, strings.Join(o.Tabs, ", "))
		}
		for _, k := range st.Keys {
			if n, err := strconv.Atoi(k); err == nil && n >= 1 && len(o.Tabs) > 0 && n > len(o.Tabs) {
				at(st.KeysLine, "keys: %s selects no tab (there are %d)", k, len(o.Tabs))
			}
		}
		cfg, err := l.Config(i)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, s := range st.Settings {
			if why := replay.Unused(&cfg, s.Key); why != "" {
				at(s.Line, "set %s: %s", s.Key, why)
			}
		}
	}
	if len(errs) > 0 {
		return nil, nil, errs
	}
	tr, err := l.LoadTrace(ctx)
	if err != nil {
		return nil, nil, []error{err}
	}
	want, err := Solve(ctx, l, tr)
	if err != nil {
		return tr, nil, []error{err}
	}
	return tr, want, nil
}

func tabIndex(tabs []string, name string) int {
	for i, t := range tabs {
		if strings.EqualFold(t, name) {
			return i
		}
	}
	return -1
}
