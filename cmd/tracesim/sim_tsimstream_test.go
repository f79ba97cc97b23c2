package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/tracesim/tracesim/engine/replay"
	"github.com/tracesim/tracesim/tracefmt/formats"
)

// TestSimStreamsTsim: sim --stream on streams a tsim file (newSim hands
// the engine the header only) and prints what the whole read prints,
// notes and warnings included, under several models; --stream auto
// reads a small file whole; a bad record is the whole read's error,
// naming the file and line.
func TestSimStreamsTsim(t *testing.T) {
	dir := t.TempDir()
	var paths []string
	for _, g := range [][]string{
		{"cg", "--ranks", "16", "--iters", "8", "--size", "70000"},
		{"stencil2d", "--ranks", "16", "--iters", "4"},
		{"master-worker", "--ranks", "8"},
	} {
		p := filepath.Join(dir, g[0]+".tsim")
		if code, _, errs := tracesim(t, append([]string{"gen"}, append(g, "-o", p)...)...); code != exitOK {
			t.Fatalf("gen %v: exit %d: %s", g, code, errs)
		}
		paths = append(paths, p)
	}
	e := &env{ctx: context.Background(), stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}}
	for _, tc := range []struct {
		stream   string
		streamed bool
	}{{"on", true}, {"auto", false}, {"off", false}} {
		s, tr, done, err := newSim(e, paths[0], "", tc.stream, replay.Default(), replay.Options{})
		if err != nil {
			t.Fatal(err)
		}
		done()
		if got := tr.NumEvents() == 0; got != tc.streamed || s == nil {
			t.Errorf("--stream %s: streamed %v, want %v", tc.stream, got, tc.streamed)
		}
	}
	run := func(args ...string) (int, map[string]any, string) {
		t.Helper()
		code, out, errs := simRun(t, append([]string{"--json"}, args...)...)
		var m map[string]any
		if err := json.Unmarshal([]byte(out), &m); err != nil {
			t.Fatalf("sim %v: exit %d: %s\n%s", args, code, err, errs)
		}
		for _, k := range []string{"wall_s", "events_per_s", "trace_events_per_s"} {
			delete(m, k)
		}
		return code, m, errs
	}
	for _, p := range paths {
		for _, model := range [][]string{
			{"--model", "puppet"},
			{"--preset", "simgrid"},
			{"--model", "flow", "--topology", "torus:4x4"},
			{"--model", "packet", "--topology", "torus:4x4", "--routing", "adaptive"},
			{"--model", "loggops", "--cpu-from", "gaps", "--send", "auto"},
		} {
			args := append([]string{p}, model...)
			wc, whole, werrs := run(append(args, "--stream", "off")...)
			sc, streamed, serrs := run(append(args, "--stream", "on")...)
			if wc != sc || werrs != serrs || !reflect.DeepEqual(whole, streamed) {
				t.Errorf("sim %v: streamed (exit %d, %q)\n%v\ndiffers from whole (exit %d, %q)\n%v", args, sc, serrs, streamed, wc, werrs, whole)
			}
		}
	}
	text, err := os.ReadFile(paths[2])
	if err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad.tsim")
	if err := os.WriteFile(bad, append(text, "5 3 send to=99 tag=0 size=1\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, werrs := simRun(t, bad, "--stream", "off")
	code, _, serrs := simRun(t, bad, "--stream", "on")
	if code != exitFail || serrs != werrs || !strings.Contains(serrs, bad+": tsim: line ") {
		t.Errorf("bad record streamed: exit %d, %q; whole: %q", code, serrs, werrs)
	}
}

// TestStreamTsimAuto: --stream auto streams a tsim file only when reading
// it whole would take more than half of the machine's memory (from 2 GiB
// where that is not known): below, the whole read costs less CPU.
func TestStreamTsimAuto(t *testing.T) {
	const gib = 1 << 30
	for _, c := range []struct {
		size, mem int64
		want      bool
	}{
		{340 << 20, 24 * gib, false},  // 10 M events: reading whole is cheaper
		{3450 << 20, 24 * gib, false}, // 100 M events, 4.1 GB whole: fits
		{9 * gib, 24 * gib, false},    // 11.7 GB whole, under 12
		{10 * gib, 24 * gib, true},    // 13 GB whole, over 12
		{700 << 20, 1 * gib, true},    // a small cgroup
		{(2 * gib) - 1, 0, false},     // memory unknown
		{2 * gib, 0, true},
	} {
		if got := streamTsimAuto(c.size, c.mem); got != c.want {
			t.Errorf("streamTsimAuto(%d B, memory %d B) = %v, want %v", c.size, c.mem, got, c.want)
		}
	}
}

// TestReadAheadByFormat: a streamed TI index is read ahead on a second
// core (Prefetch), a streamed tsim file is read as its Source reads it,
// without two more halves of read-ahead per rank.
func TestReadAheadByFormat(t *testing.T) {
	p := filepath.Join(t.TempDir(), "s.tsim")
	if code, _, errs := tracesim(t, "gen", "stencil2d", "--ranks", "16", "--iters", "2", "-o", p); code != exitOK {
		t.Fatalf("gen: %s", errs)
	}
	for _, tc := range []struct {
		path     string
		prefetch bool
	}{
		{p, false},
		{filepath.Join("..", "..", "testdata", "simgrid", "halo.txt"), true},
	} {
		src, err := formats.OpenSource(tc.path, "")
		if err != nil {
			t.Fatal(err)
		}
		got := readAhead(src)
		if (got != src) != tc.prefetch {
			t.Errorf("%s: read through %T, prefetched %v; expected prefetched %v", tc.path, got, got != src, tc.prefetch)
		}
		got.Close()
	}
}

// TestSimStreamedReportIsTheWholeReads: sim --stream on prints the
// report the whole read prints but the simulation's own speed; its first
// line's event count is the trace's (markers included, as the whole read
// counts them), not the events replayed (29 of features.tsim's 33).
func TestSimStreamedReportIsTheWholeReads(t *testing.T) {
	p := filepath.Join(t.TempDir(), "s.tsim")
	if code, _, errs := tracesim(t, "gen", "stencil2d", "--ranks", "4", "--iters", "50", "-o", p); code != exitOK {
		t.Fatalf("gen: %s", errs)
	}
	withoutSpeed := func(out string) string {
		var keep []string
		for _, l := range strings.Split(out, "\n") {
			if !strings.HasPrefix(l, "simulation ") {
				keep = append(keep, l)
			}
		}
		return strings.Join(keep, "\n")
	}
	features := filepath.Join("..", "..", "testdata", "tsim", "features.tsim")
	for _, c := range []struct {
		path, model, events string
	}{
		{p, "puppet", ""}, {p, "flow", ""}, {p, "packet", ""},
		{features, "flow", ", 33 events"}, {features, "simgrid", ", 33 events"},
	} {
		wc, whole, werrs := simRun(t, c.path, "--model", c.model, "--stream", "off")
		sc, streamed, serrs := simRun(t, c.path, "--model", c.model, "--stream", "on")
		if sc != wc || serrs != werrs || withoutSpeed(streamed) != withoutSpeed(whole) {
			t.Errorf("%s %s: streamed (exit %d, %q):\n%s\nwhole (exit %d, %q):\n%s", filepath.Base(c.path), c.model, sc, serrs, streamed, wc, werrs, whole)
		}
		first, _, _ := strings.Cut(streamed, "\n")
		if !strings.Contains(first, " events") || !strings.HasSuffix(first, c.events) {
			t.Errorf("%s %s: streamed first line %q, want the trace's event count%s", filepath.Base(c.path), c.model, first, c.events)
		}
	}
}

// TestGeneratedCGReplaysWithLargeMessages: `tracesim gen cg` logs NAS
// CG's MPI_Irecv, MPI_Send, MPI_Wait as MPE does (the receive in the
// wait). With messages above the eager threshold the replay deadlocked
// ("DEADLOCK at 200 µs: ranks wait for each other in a cycle 0 → 1 → 0"):
// each receive was posted at its wait, after the rank's own rendezvous
// send. Posted at its MPI_Irecv, the run completes, streamed or not,
// with the same makespan.
func TestGeneratedCGReplaysWithLargeMessages(t *testing.T) {
	in := filepath.Join(t.TempDir(), "cg.tsim")
	if code, _, errs := tracesim(t, "gen", "cg", "--ranks", "16", "--iters", "5", "--size", "64KiB", "-o", in); code != exitOK {
		t.Fatalf("gen: %s", errs)
	}
	var makespans []float64
	for _, stream := range []string{"off", "on"} {
		code, out, errs := tracesim(t, "sim", in, "--stream", stream, "--json")
		if code != exitOK {
			t.Fatalf("--stream %s: exit %d\n%s%s", stream, code, errs, out)
		}
		var res struct {
			Makespan float64 `json:"makespan_s"`
			Recorded float64 `json:"recorded_s"`
			Complete bool    `json:"complete"`
		}
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatal(err)
		}
		// The generator's run sent eagerly; the replay's rendezvous
		// sends wait for their receives, so it may take a little longer
		// or shorter, but not a deadlock's 200 µs.
		if !res.Complete || res.Makespan < res.Recorded/2 {
			t.Errorf("--stream %s: complete %v, makespan %g s, recorded %g s", stream, res.Complete, res.Makespan, res.Recorded)
		}
		makespans = append(makespans, res.Makespan)
	}
	if makespans[0] != makespans[1] {
		t.Errorf("in memory %g s, streamed %g s", makespans[0], makespans[1])
	}
}
