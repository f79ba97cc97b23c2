package causality

import (
	"context"
	"os"
	"reflect"
	"testing"

	"github.com/tracesim/tracesim/internal/testshared"
	"github.com/tracesim/tracesim/tracefmt/formats"
)

// sharedDir holds the MPE samples that may not be redistributed; tests
// that need them skip when it is absent.
var sharedDir = testshared.Dir() + "/"

// TestSamples pins the findings on real MPE traces, and checks that
// correcting them leaves no clock violation. The samples are clean: MPE
// synchronised their clocks and their networks took at least 170 µs
// (pmandel), 208 µs (fpilog) and 1.4 ms (srtest) per message; cpilog and
// sam_hyp have no messages, no collective events and no
// non-deterministic calls (pmandel's PROBE is a blocking MPI_Probe).
func TestSamples(t *testing.T) {
	tests := []struct {
		path string
		lmin float64
		want map[Kind]int
	}{
		{"clog/fpilog.clog", 0, map[Kind]int{}},
		{"clog/pmandel.clog", 0, map[Kind]int{}},
		{"clog2/cpilog.clog2", 0, map[Kind]int{}},
		{"alog/srtest.alog", 0, map[Kind]int{}},
		{"alog/sam_hyp.16.log", 0, map[Kind]int{}},
		{"clog/fpilog.clog", 1e-6, map[Kind]int{}},
		{"clog/pmandel.clog", 1e-6, map[Kind]int{}},
		{"alog/srtest.alog", 1e-6, map[Kind]int{}},
		// Their networks were slow: a minimum latency near the fastest
		// transit shows the messages that come close to it.
		{"clog/fpilog.clog", 250e-6, map[Kind]int{KindLatency: 9}},
		{"clog/pmandel.clog", 250e-6, map[Kind]int{KindLatency: 908}},
		{"alog/srtest.alog", 2e-3, map[Kind]int{KindLatency: 12}},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			path := sharedDir + tt.path
			if _, err := os.Stat(path); os.IsNotExist(err) {
				t.Skipf("%s absent", path)
			}
			tr, _, err := formats.Open(context.Background(), path, "", nil)
			if err != nil {
				t.Fatal(err)
			}
			rep := check(t, tr, Options{LMin: tt.lmin})
			if !rep.Replayed {
				t.Errorf("not replayed: %s", rep.ReplayError)
			}
			if got := counts(rep); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("lmin %g: counts = %v, want %v\n%v", tt.lmin, got, tt.want, rep.Top(5, nil))
			}
			c := correct(t, tr, CorrectOptions{LMin: tt.lmin})
			if c.ViolationsAfter() != 0 || c.ViolationsBefore() != rep.ClockViolations() {
				t.Errorf("correction: before %d after %d, check found %d", c.ViolationsBefore(), c.ViolationsAfter(), rep.ClockViolations())
			}
			t.Logf("%s lmin %g: before %d, after %d, offsets %v, cycle %v, passes %d, jumps %d, max shift %g s",
				tt.path, tt.lmin, c.ViolationsBefore(), c.ViolationsAfter(), c.Offsets != nil, c.NegativeCycle, c.Passes, c.Jumps, c.MaxShift)
		})
	}
}
