package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tracesim/tracesim/internal/simgrid"
)

// TestMain lets the bench test start this test binary as `tracesim sim`
// (TRACESIM_TEST_CHILD=1), as `tracesim bench --simgrid` starts its own
// executable.
func TestMain(m *testing.M) {
	if os.Getenv("TRACESIM_TEST_CHILD") == "1" {
		os.Exit(run(&env{ctx: context.Background(), stdout: os.Stdout, stderr: os.Stderr}, os.Args[1:]))
	}
	os.Exit(m.Run())
}

// TestBenchSimGrid runs `bench --simgrid` on a small 64-rank ring
// written where record.sh would record the CG-like trace: smpirun and
// the flow model print the same makespan, and the table reports both
// processes' wall times, peaks and ratios.
func TestBenchSimGrid(t *testing.T) {
	if _, err := simgrid.Path(); err != nil {
		t.Skip("smpirun not installed")
	}
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "cg64"), 0o755); err != nil {
		t.Fatal(err)
	}
	ring := func(r int) []string {
		return []string{
			fmt.Sprintf("compute %d", 1000000*(1+r%3)),
			fmt.Sprintf("isend %d 0 100000 6", (r+1)%64),
			fmt.Sprintf("recv %d 0 100000 6", (r+63)%64),
		}
	}
	if _, err := simgrid.WriteRanks(filepath.Join(dir, "cg64"), "cg", 64, ring); err != nil {
		t.Fatal(err)
	}
	c := simgrid.Cluster{Hosts: 64, Speed: 1e9, Bandwidth: 125e6, Latency: 5e-6}
	for name, write := range map[string]func(*bytes.Buffer) error{
		"star64.xml": func(b *bytes.Buffer) error { return c.WritePlatform(b) },
		"hosts64":    func(b *bytes.Buffer) error { return c.WriteHostfile(b, 64) },
	} {
		var b bytes.Buffer
		if err := write(&b); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var out, errOut bytes.Buffer
	e := &env{ctx: context.Background(), stdout: &out, stderr: &errOut}
	child := simChild{path: os.Args[0], env: []string{"TRACESIM_TEST_CHILD=1"}}
	if code := benchSimGrid(e, child, dir, "cg64/star", 1, true); code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	var res struct {
		SimGrid []simgridResult `json:"simgrid"`
	}
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatal(err)
	}
	if len(res.SimGrid) != 1 {
		t.Fatalf("%d cases, want 1 (cg64/star; the torus platform is absent): %s", len(res.SimGrid), out.String())
	}
	r := res.SimGrid[0]
	// init, three actions, finalize per rank.
	if r.Case != "cg64/star" || r.Actions != 5*64 || r.Ranks != 64 {
		t.Errorf("case %q, %d actions, %d ranks; want cg64/star, 320, 64", r.Case, r.Actions, r.Ranks)
	}
	sg, fl := r.SimGrid[0], r.Flow[0]
	if math.Abs(sg.Makespan-fl.Makespan) > 1e-9*sg.Makespan || sg.Makespan < 0.003 {
		t.Errorf("makespans: smpirun %.12f s, flow %.12f s; want equal, ≥ 3 ms", sg.Makespan, fl.Makespan)
	}
	for what, v := range map[string]float64{"smpirun wall": sg.Wall, "flow wall": fl.Wall, "flow ratio": r.FlowWallRatio,
		"smpirun CPU": sg.CPU, "flow CPU": fl.CPU, "flow CPU ratio": r.FlowCPURatio,
		"flow memory ratio": r.FlowMemRatio, "analytic ratio": r.AnalyticWallRatio} {
		if !(v > 0) {
			t.Errorf("%s = %v, want > 0", what, v)
		}
	}
	if sg.PeakRSS < 1<<20 || fl.PeakRSS < 1<<20 {
		t.Errorf("peaks %d and %d B, want those of real processes (> 1 MiB)", sg.PeakRSS, fl.PeakRSS)
	}
	// Without --json: one table row.
	out.Reset()
	if code := benchSimGrid(e, child, dir, "cg64/star", 1, false); code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	if rows := strings.Count(out.String(), "\ncg64/star "); rows != 1 {
		t.Errorf("table has %d cg64/star rows, want 1:\n%s", rows, out.String())
	}
	if code := benchSimGrid(e, child, t.TempDir(), "", 1, false); code != exitFail || !strings.Contains(errOut.String(), "record.sh") {
		t.Errorf("empty directory: exit %d, stderr %q; want %d and a hint to record.sh", code, errOut.String(), exitFail)
	}
}

// TestPrintColumns: rows printed one at a time, as bench --simgrid's
// cases finish, start each cell at the same column as the header's,
// whatever the values' widths (a flushed tabwriter aligned each row
// only with itself).
func TestPrintColumns(t *testing.T) {
	header := []string{"CASE", "WALL ×", "MAKESPAN SMPIRUN", "FLOW"}
	widths := []int{16, 9, 16, 12}
	rows := [][]string{
		{"cg64/star", "18.5", "1.334244352", "1.334244353"},
		{"stencil256/torus", "103.1", "0.896030680", "0.896030680"},
		{"x", "7", "1", "2"},
	}
	var b bytes.Buffer
	printColumns(&b, widths, header)
	for _, r := range rows {
		printColumns(&b, widths, r)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != 1+len(rows) {
		t.Fatalf("%d lines, want %d:\n%s", len(lines), 1+len(rows), b.String())
	}
	cellStarts := func(line string) []int {
		var starts []int
		runes := []rune(line)
		for i, r := range runes {
			if r != ' ' && (i == 0 || i >= 2 && runes[i-1] == ' ' && runes[i-2] == ' ') {
				starts = append(starts, i)
			}
		}
		return starts
	}
	want := cellStarts(lines[0])
	if !slices.Equal(want, []int{0, 18, 29, 47}) {
		t.Fatalf("header cells start at %v, want [0 18 29 47]: %q", want, lines[0])
	}
	for _, l := range lines[1:] {
		if got := cellStarts(l); !slices.Equal(got, want) {
			t.Errorf("row cells start at %v, header's at %v:\n%s\n%s", got, want, lines[0], l)
		}
		if strings.HasSuffix(l, " ") {
			t.Errorf("row %q ends in spaces", l)
		}
	}
}
