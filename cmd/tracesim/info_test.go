package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// On big runs `info` summarises the events per rank instead of printing
// a line for each; small runs keep the list.
func TestInfoEventsPerRank(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		ranks string
		want  string
		lines int // lines after "events per rank"
	}{
		{"4", "     3 ", 4},
		{"64", "min ", 1},
	} {
		path := filepath.Join(dir, "ring"+tc.ranks+".tsim")
		if code, _, errs := tracesim(t, "gen", "ring", "--ranks", tc.ranks, "--iters", "2", "-o", path); code != exitOK {
			t.Fatalf("gen: %d %s", code, errs)
		}
		code, out, errs := tracesim(t, "info", path)
		if code != exitOK {
			t.Fatalf("info: %d %s", code, errs)
		}
		_, list, ok := strings.Cut(out, "events per rank\n")
		if !ok || !strings.Contains(list, tc.want) {
			t.Errorf("%s ranks: events per rank %q, want %q in it", tc.ranks, list, tc.want)
		}
		if n := strings.Count(strings.TrimRight(list, "\n"), "\n") + 1; n != tc.lines {
			t.Errorf("%s ranks: %d lines of events per rank, want %d", tc.ranks, n, tc.lines)
		}
	}
}
