package main

import (
	"encoding/json"
	"math"
	"testing"
)

// TestBenchReadRows runs the OTF2 and Paraver read benchmarks on a small
// trace: each reports its input's size, its rate, CLOG2's rate measured
// in the same loop and their ratio, and the trace's resident bytes per
// event.
func TestBenchReadRows(t *testing.T) {
	if testing.Short() {
		t.Skip("runs benchmarks")
	}
	results := benchJSON(t, "--events", "3000", "--time", "10ms", "--run", "^(otf2|paraver)/read$")
	want := []string{"otf2/read", "paraver/read"}
	if len(results) != len(want) {
		t.Fatalf("ran %d benchmarks, want %v", len(results), want)
	}
	for i, res := range results {
		m := res.Metrics
		if res.Name != want[i] {
			t.Errorf("benchmark %d is %s, want %s", i, res.Name, want[i])
		}
		for _, k := range []string{"MB/s", "Mevents/s", "MB", "CLOG2-MB/s"} {
			if !(m[k] > 0) {
				t.Errorf("%s: %s = %v, want > 0", res.Name, k, m[k])
			}
		}
		if ratio := m["MB/s"] / m["CLOG2-MB/s"]; math.Abs(m["xCLOG2"]-ratio) > 1e-9*ratio {
			t.Errorf("%s: xCLOG2 %v, want MB/s ÷ CLOG2-MB/s = %v", res.Name, m["xCLOG2"], ratio)
		}
		if b := m["B/event"]; b <= 0 || b > 64 {
			t.Errorf("%s: %v B/event, want (0, 64]", res.Name, b)
		}
	}
}

// benchResult is one benchmark of `tracesim bench --json`.
type benchResult struct {
	Name    string
	Metrics map[string]float64
}

// benchJSON runs `tracesim bench --json` with args and returns its
// results.
func benchJSON(t *testing.T, args ...string) []benchResult {
	t.Helper()
	code, out, errs := tracesim(t, append([]string{"bench", "--json"}, args...)...)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var r struct{ Results []benchResult }
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	return r.Results
}
