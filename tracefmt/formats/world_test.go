package formats

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestClaimedWorldCostsLittle: a file of a few bytes that declares a
// world of 2^20 ranks is refused quickly, with the memory the empty ranks
// would need, and reading it allocates a few MiB, not the gigabytes the
// claim would cost (issue 20). A world of 70,000 ranks that all have
// events still loads.
func TestClaimedWorldCostsLittle(t *testing.T) {
	many := func(line func(r int) string, header string) string {
		var b strings.Builder
		b.WriteString(header)
		for r := range 70000 {
			b.WriteString(line(r))
		}
		return b.String()
	}
	tests := []struct {
		name, file, content string
		wantErr             string // empty: loads with wantRanks ranks
		wantRanks           int
	}{
		{"tsim", "big.tsim", "tsim 1\nranks 1048576\nunit us\n0 0 enter A\n1 0 leave A\n2 1 enter A\n3 1 leave A\n",
			"big.tsim: tsim: line 2:1: ranks 1048576: the world has 1048576 ranks but only 2 of them have events: its 1048574 empty ranks would need about 2 GiB of memory", 0},
		{"alog", "big.alog", "-3 0 0 1048576 0 0\n1 0 0 0 0 1\n2 0 0 0 0 2\n",
			"big.alog: alog: 1:8: number of processes 1048576: the world has 1048576 ranks but only 1 of them have events: its 1048575 empty ranks would need about 2 GiB", 0},
		{"ti comm_size", "big.txt", "0 init\n0 comm_size 1048576\n0 finalize\n",
			"big.txt:2:13: the world has 1048576 ranks but only 1 of them have events", 0},
		{"ti high rank", "high.txt", "0 init\n1048575 init\n0 finalize\n",
			"high.txt:2:1: the world has 1048576 ranks but only 2 of them have events", 0},
		{"tsim 70000 ranks with events", "wide.tsim",
			many(func(r int) string { return fmt.Sprintf("0 %d compute dur=1\n", r) }, "tsim 1\nranks 70000\nunit us\n"), "", 70000},
		{"ti 70000 ranks with events", "wide.txt",
			many(func(r int) string { return fmt.Sprintf("%d compute 1\n", r) }, ""), "", 70000},
		{"tsim 65536 empty ranks", "sparse.tsim", "tsim 1\nranks 65537\nunit us\n0 0 compute dur=1\n", "", 65537},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), tt.file)
			if err := os.WriteFile(path, []byte(tt.content), 0o644); err != nil {
				t.Fatal(err)
			}
			runtime.GC()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			tr, _, err := Open(context.Background(), path, "", nil)
			runtime.ReadMemStats(&after)
			alloc := after.TotalAlloc - before.TotalAlloc
			t.Logf("read allocated %.1f MiB", float64(alloc)/(1<<20))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tt.wantErr)
				}
				if alloc > 50<<20 {
					t.Errorf("refusing the claim allocated %d MiB, want under 50 MiB", alloc>>20)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tr.Size() != tt.wantRanks {
				t.Errorf("world of %d ranks, want %d", tr.Size(), tt.wantRanks)
			}
		})
	}
}
