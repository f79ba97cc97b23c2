package perfetto

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
)

// Stats counts what Check found in a trace event file.
type Stats struct {
	Events, Slices, Instants, Counters, Metadata int
	// Slices counts complete events and begin/end pairs. Flows counts
	// complete arrows (a start and a finish with one id);
	// Unbound counts arrow ends with no slice around them on their
	// thread, which a viewer drops.
	Flows, Unbound int
	// Threads counts the named threads.
	Threads int
}

// event is one trace event as Check reads it.
type event struct {
	Ph   string          `json:"ph"`
	Name *string         `json:"name"`
	Cat  string          `json:"cat"`
	Pid  *float64        `json:"pid"`
	Tid  *float64        `json:"tid"`
	Ts   *float64        `json:"ts"`
	Dur  *float64        `json:"dur"`
	ID   json.RawMessage `json:"id"`
	S    string          `json:"s"`
	Args map[string]any  `json:"args"`
}

type track struct{ pid, tid float64 }

type span struct{ start, end float64 }

// Check reads a JSON trace event file (the object form, {"traceEvents":
// [...]}) and verifies the rules of the format a viewer relies on:
//
//   - every event has a phase, a name, a pid and a tid, and every event
//     but metadata a finite timestamp;
//   - complete ("X") events have a non-negative duration and nest on
//     their thread: a slice that starts inside another ends inside it;
//   - begin/end ("B"/"E") events pair up on their thread, in
//     non-decreasing time (so that they nest);
//   - flow events ("s", "t", "f") with one id and category form one
//     arrow: one start, then one finish, not before the start's thread
//     has a slice to bind to;
//   - counters ("C") carry numeric values, in non-decreasing time per
//     counter;
//   - every process and thread with events is named by "process_name"
//     and "thread_name" metadata.
//
// It returns what it counted, and an error naming the first broken rule
// with the event's position in the array.
func Check(r io.Reader) (Stats, error) {
	var doc struct {
		TraceEvents []event `json:"traceEvents"`
	}
	var st Stats
	if err := json.NewDecoder(r).Decode(&doc); err != nil {
		return st, fmt.Errorf("not a JSON trace event object: %w", err)
	}
	if doc.TraceEvents == nil {
		return st, errors.New("no traceEvents array")
	}
	procNamed := map[float64]bool{}
	threadNamed := map[track]bool{}
	used := map[track]int{} // → first event using it
	slicesOf := map[track][]span{}
	type begun struct {
		name string
		ts   float64
	}
	open := map[track][]begun{}
	lastB := map[track]float64{}
	lastC := map[string]float64{}
	type flowEnds struct {
		start, finish int
		sTrack        track
		sTs           float64
		fTrack        track
		fTs           float64
	}
	flows := map[string]*flowEnds{}
	for i, e := range doc.TraceEvents {
		st.Events++
		at := func(format string, a ...any) error {
			return fmt.Errorf("traceEvents[%d] (ph %q): %s", i, e.Ph, fmt.Sprintf(format, a...))
		}
		if e.Ph == "" || e.Name == nil || e.Pid == nil || e.Tid == nil {
			return st, at("missing ph, name, pid or tid")
		}
		tr := track{*e.Pid, *e.Tid}
		if e.Ph == "M" {
			st.Metadata++
			switch *e.Name {
			case "process_name":
				if _, ok := e.Args["name"].(string); !ok {
					return st, at("process_name without a name")
				}
				procNamed[tr.pid] = true
			case "thread_name":
				if _, ok := e.Args["name"].(string); !ok {
					return st, at("thread_name without a name")
				}
				threadNamed[tr] = true
			}
			continue
		}
		if e.Ts == nil || math.IsNaN(*e.Ts) || math.IsInf(*e.Ts, 0) {
			return st, at("no timestamp")
		}
		ts := *e.Ts
		if _, ok := used[tr]; !ok {
			used[tr] = i // a counter's needs its process named only
		}
		switch e.Ph {
		case "X":
			if e.Dur == nil || *e.Dur < 0 || math.IsNaN(*e.Dur) {
				return st, at("complete event without a non-negative dur")
			}
			st.Slices++
			slicesOf[tr] = append(slicesOf[tr], span{ts, ts + *e.Dur})
		case "B":
			if l, ok := lastB[tr]; ok && ts < l {
				return st, at("ts %v before the thread's previous %v", ts, l)
			}
			lastB[tr] = ts
			open[tr] = append(open[tr], begun{*e.Name, ts})
		case "E":
			if l, ok := lastB[tr]; ok && ts < l {
				return st, at("ts %v before the thread's previous %v", ts, l)
			}
			lastB[tr] = ts
			if len(open[tr]) == 0 {
				return st, at("end without a begin on pid %v tid %v", tr.pid, tr.tid)
			}
			b := open[tr][len(open[tr])-1]
			open[tr] = open[tr][:len(open[tr])-1]
			st.Slices++
			slicesOf[tr] = append(slicesOf[tr], span{b.ts, ts})
		case "i", "I":
			if e.S != "" && e.S != "t" && e.S != "p" && e.S != "g" {
				return st, at("instant scope %q", e.S)
			}
			st.Instants++
		case "C":
			if len(e.Args) == 0 {
				return st, at("counter without values")
			}
			for k, v := range e.Args {
				if _, ok := v.(float64); !ok {
					return st, at("counter %s value %v is not a number", k, v)
				}
			}
			key := fmt.Sprint(tr.pid, "/", *e.Name)
			if l, ok := lastC[key]; ok && ts < l {
				return st, at("counter %s at %v before its previous value at %v", *e.Name, ts, l)
			}
			lastC[key] = ts
			st.Counters++
		case "s", "t", "f":
			if len(e.ID) == 0 {
				return st, at("flow event without an id")
			}
			key := e.Cat + "\x00" + string(e.ID)
			f := flows[key]
			if f == nil {
				f = &flowEnds{}
				flows[key] = f
			}
			switch e.Ph {
			case "s":
				if f.start > 0 {
					return st, at("flow id %s started twice", e.ID)
				}
				f.start, f.sTrack, f.sTs = i+1, tr, ts
			case "f":
				if f.finish > 0 {
					return st, at("flow id %s finished twice", e.ID)
				}
				f.finish, f.fTrack, f.fTs = i+1, tr, ts
			}
		default:
			return st, at("unknown phase")
		}
	}
	for tr, ss := range slicesOf {
		slices.SortStableFunc(ss, func(a, b span) int {
			if c := cmp.Compare(a.start, b.start); c != 0 {
				return c
			}
			return cmp.Compare(b.end, a.end)
		})
		var stack []span
		for _, s := range ss {
			for len(stack) > 0 && stack[len(stack)-1].end <= s.start {
				stack = stack[:len(stack)-1]
			}
			if n := len(stack); n > 0 && s.end > stack[n-1].end {
				return st, fmt.Errorf("pid %v tid %v: slice [%v, %v] overlaps [%v, %v] without nesting in it", tr.pid, tr.tid, s.start, s.end, stack[n-1].start, stack[n-1].end)
			}
			stack = append(stack, s)
		}
	}
	for tr, o := range open {
		if len(o) > 0 {
			return st, fmt.Errorf("pid %v tid %v: %q begun and never ended", tr.pid, tr.tid, o[len(o)-1].name)
		}
	}
	enclosed := func(tr track, ts float64) bool {
		ss := slicesOf[tr]
		// Sorted by start: any slice starting at or before ts may hold it.
		n, _ := slices.BinarySearchFunc(ss, ts, func(s span, t float64) int {
			if s.start <= t {
				return -1
			}
			return 1
		})
		for _, s := range ss[:n] {
			if s.end >= ts {
				return true
			}
		}
		return false
	}
	keys := make([]string, 0, len(flows))
	for k := range flows {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		f := flows[k]
		if f.start == 0 || f.finish == 0 {
			return st, fmt.Errorf("flow %q has a start at event %d and a finish at event %d (0: none)", k, f.start-1, f.finish-1)
		}
		st.Flows++
		if !enclosed(f.sTrack, f.sTs) {
			st.Unbound++
		}
		if !enclosed(f.fTrack, f.fTs) {
			st.Unbound++
		}
	}
	for tr, i := range used {
		if !procNamed[tr.pid] {
			return st, fmt.Errorf("pid %v (first used by traceEvents[%d]) has no process_name", tr.pid, i)
		}
		if !threadNamed[tr] && doc.TraceEvents[i].Ph != "C" {
			return st, fmt.Errorf("pid %v tid %v (first used by traceEvents[%d]) has no thread_name", tr.pid, tr.tid, i)
		}
	}
	st.Threads = len(threadNamed)
	return st, nil
}
