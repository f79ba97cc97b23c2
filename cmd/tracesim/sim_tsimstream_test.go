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

// TestStreamTsimAuto: --stream auto streams a tsim file when it holds at
// least 256 KiB of records a rank (bench --scale's 10 M events at 64
// ranks), or when reading it whole would take more than half of the
// machine's memory (from 2 GiB where that is not known); a file of fewer
// records a rank that fits (10 M events at 4,096 or 65,536 ranks) is read
// whole.
func TestStreamTsimAuto(t *testing.T) {
	const gib = 1 << 30
	for _, c := range []struct {
		size  int64
		ranks int
		mem   int64
		want  bool
	}{
		{309 << 20, 64, 24 * gib, true},     // 10 M events, 64 ranks: 4.8 MB a rank
		{327 << 20, 1024, 24 * gib, true},   // 10 M events, 1,024 ranks: 319 KB a rank
		{338 << 20, 4096, 24 * gib, false},  // 10 M events, 4,096 ranks: 82 KB a rank
		{356 << 20, 65536, 24 * gib, false}, // 10 M events, 65,536 ranks: 5.4 KB a rank
		{256<<10*100 - 1, 100, 24 * gib, false},
		{256 << 10 * 100, 100, 24 * gib, true},
		{20 << 10, 4, 24 * gib, false},      // a small file read whole
		{9 * gib, 1 << 20, 24 * gib, false}, // 11.7 GB whole, under 12, 9 KB a rank
		{10 * gib, 1 << 20, 24 * gib, true}, // 13 GB whole, over 12
		{700 << 20, 1 << 20, 1 * gib, true}, // a small cgroup
		{(2 * gib) - 1, 1 << 20, 0, false},  // memory unknown
		{2 * gib, 1 << 20, 0, true},
		{1 << 20, 0, 24 * gib, false}, // no ranks
	} {
		if got := streamTsimAuto(c.size, c.ranks, c.mem); got != c.want {
			t.Errorf("streamTsimAuto(%d B, %d ranks, memory %d B) = %v, want %v", c.size, c.ranks, c.mem, got, c.want)
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

// TestSimAutoStreamsManyRecordsPerRank: under --stream auto a tsim file
// of many records a rank streams, and sim prints what the whole read
// prints but the simulation's own speed; the first line's event count is
// the trace's (markers included, as the whole read counts them), not the
// events replayed.
func TestSimAutoStreamsManyRecordsPerRank(t *testing.T) {
	p := filepath.Join(t.TempDir(), "s.tsim")
	if code, _, errs := tracesim(t, "gen", "stencil2d", "--ranks", "4", "--iters", "900", "-o", p); code != exitOK {
		t.Fatalf("gen: %s", errs)
	}
	st, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if st.Size()/4 < tsimStreamPerRank {
		t.Fatalf("the trace has %d bytes a rank, fewer than %d", st.Size()/4, tsimStreamPerRank)
	}
	e := &env{ctx: context.Background(), stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}}
	_, tr, done, err := newSim(e, p, "", "auto", replay.Default(), replay.Options{})
	if err != nil {
		t.Fatal(err)
	}
	done()
	if tr.NumEvents() != 0 {
		t.Errorf("--stream auto read %d events whole, want the file streamed", tr.NumEvents())
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
	for _, model := range []string{"puppet", "flow", "packet"} {
		wc, whole, werrs := simRun(t, p, "--model", model, "--stream", "off")
		ac, auto, aerrs := simRun(t, p, "--model", model)
		if wc != exitOK || ac != wc || aerrs != werrs || withoutSpeed(auto) != withoutSpeed(whole) {
			t.Errorf("%s: --stream auto (exit %d, %q):\n%s\nwhole (exit %d, %q):\n%s", model, ac, aerrs, auto, wc, werrs, whole)
		}
		first, _, _ := strings.Cut(whole, "\n")
		if !strings.Contains(first, " events") {
			t.Errorf("%s: first line %q names no event count", model, first)
		}
	}
	// features.tsim has 33 events, of which 4 markers the replay skips.
	features := filepath.Join("..", "..", "testdata", "tsim", "features.tsim")
	_, whole, _ := simRun(t, features, "--stream", "off")
	_, streamed, _ := simRun(t, features, "--stream", "on")
	wf, _, _ := strings.Cut(whole, "\n")
	sf, _, _ := strings.Cut(streamed, "\n")
	if !strings.HasSuffix(wf, ", 33 events") || sf != wf {
		t.Errorf("features.tsim: streamed first line %q, whole %q (33 events)", sf, wf)
	}
}
