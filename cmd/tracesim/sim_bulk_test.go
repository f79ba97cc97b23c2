package main

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"testing"
)

// TestSimCollPerMessage runs sim --json on generated all-to-all traces
// with the collectives computed in bulk and, with --coll-per-message,
// message by message: everything but the wall time, the kernel events and
// their rates must be the same, and the bulk run must take fewer events.
func TestSimCollPerMessage(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ ranks, size, model string }{
		{"64", "64", "puppet"},     // Bruck
		{"40", "4KiB", "puppet"},   // MPICH's scattered linear, 2 rounds of 32
		{"24", "40KiB", "simgrid"}, // pairwise, rendezvous for SimGrid
	} {
		in := filepath.Join(dir, "a2a-"+tc.ranks+"-"+tc.size+".tsim")
		if code, _, errs := tracesim(t, "gen", "alltoall", "--ranks", tc.ranks, "--iters", "3", "--size", tc.size, "--skew", "20us", "-o", in); code != exitOK {
			t.Fatalf("gen: exit %d: %s", code, errs)
		}
		var docs [2]map[string]any
		var events [2]float64
		for i, extra := range [][]string{nil, {"--coll-per-message"}} {
			code, out, errs := tracesim(t, append([]string{"sim", in, "--model", tc.model, "--json"}, extra...)...)
			if code != exitOK {
				t.Fatalf("sim %v: exit %d: %s", extra, code, errs)
			}
			if err := json.Unmarshal([]byte(out), &docs[i]); err != nil {
				t.Fatal(err)
			}
			events[i] = docs[i]["events"].(float64)
			for _, k := range []string{"wall_s", "events", "events_per_s", "trace_events_per_s"} {
				delete(docs[i], k)
			}
		}
		if !reflect.DeepEqual(docs[0], docs[1]) {
			t.Errorf("%s ranks, %s: sim --json differs with --coll-per-message:\n%v\n%v", tc.ranks, tc.size, docs[0], docs[1])
		}
		if events[0] >= events[1] {
			t.Errorf("%s ranks, %s: %g kernel events in bulk, %g per message: want fewer", tc.ranks, tc.size, events[0], events[1])
		}
		if docs[0]["makespan_s"].(float64) <= 0 {
			t.Errorf("%s ranks, %s: makespan %v", tc.ranks, tc.size, docs[0]["makespan_s"])
		}
	}
}
