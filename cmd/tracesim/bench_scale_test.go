package main

import (
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// bench --scale generates each point's trace and prints one line per
// stage with the trace's events and ranks, a rate and a peak size.
func TestBenchScale(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs ten processes")
	}
	bin := buildTracesim(t)
	out, err := exec.Command(bin, "bench", "--scale", "--points", "20k@8,20k@64").CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 11 || strings.Join(strings.Fields(lines[0]), " ") != "EVENTS RANKS STAGE WALL MEVENTS/S PEAK B/EVENT" {
		t.Fatalf("output:\n%s", out)
	}
	stages := []string{"info", "check", "sim analytic", "sim flow", "sim packet"}
	for i, l := range lines[1:] {
		f := strings.Fields(l)
		ranks := []string{"8", "64"}[i/5]
		n, _ := strconv.Atoi(f[0])
		if len(f) < 6 || f[1] != ranks || !strings.Contains(l, stages[i%5]) || n < 15000 || n > 25000 {
			t.Errorf("line %d: %q: want %s ranks, stage %s, about 20000 events", i+1, l, ranks, stages[i%5])
		}
	}
	for _, bad := range []string{"10M", "10M@1", "x@64"} {
		out, err := exec.Command(bin, "bench", "--scale", "--points", bad).CombinedOutput()
		if want := "expected EVENTS@RANKS such as 10M@4096"; err == nil || !strings.Contains(string(out), want) {
			t.Errorf("--points %s: %v %s; want %q", bad, err, out, want)
		}
	}
}
