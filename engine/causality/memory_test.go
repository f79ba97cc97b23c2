package causality

import (
	"context"
	"runtime"
	"testing"

	"github.com/tracesim/tracesim/tracefmt/gen"
)

// TestCheckBytesPerEvent bounds what building a graph and checking a
// trace allocate beyond the trace, per event, at few and many ranks:
// issue #19 wants `check` within 48 bytes per event resident, of which
// the trace's events take 40. Messages must take no room (their ends
// are linked by the trace's Match), collective calls two references per
// member, ranks a few words each; the check's findings are few here
// (the trace is not skewed).
func TestCheckBytesPerEvent(t *testing.T) {
	for _, tc := range []struct {
		ranks, iters int
		max          float64 // bytes per event
	}{
		{64, 150, 2},
		{4096, 2, 3},
	} {
		tr, err := gen.Generate(gen.Options{Pattern: "stencil2d", Ranks: tc.ranks, Iters: tc.iters, Compute: -1})
		if err != nil {
			t.Fatal(err)
		}
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		rep, err := NewGraph(tr).Check(context.Background(), Options{Replay: ReplayOff})
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Messages == 0 || rep.Collectives == 0 || rep.Violations() != 0 {
			t.Fatalf("%d ranks: %d messages, %d collectives, %d violations: want a clean trace with both", tc.ranks, rep.Messages, rep.Collectives, rep.Violations())
		}
		per := float64(after.TotalAlloc-before.TotalAlloc) / float64(rep.Events)
		t.Logf("%d ranks, %d events, %d messages: %.2f B allocated per event", tc.ranks, rep.Events, rep.Messages, per)
		if per > tc.max {
			t.Errorf("%d ranks: the check allocated %.2f B per event, want at most %.0f", tc.ranks, per, tc.max)
		}
	}
}
