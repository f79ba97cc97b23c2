package sweep

import (
	"context"
	"os"
	"slices"
	"testing"

	"github.com/tracesim/tracesim/engine/replay"
	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/tracefmt/tsim"
)

// TestEagerThresholdAxisVariesProtocol: a sweep over eager thresholds
// varies the protocol of every send, as `tracesim sim --eager-threshold`
// does, also of the sends the recorded run buffered. On the unsafe
// exchange (1 MiB and 512 KiB sent both ways before either receive),
// 600KiB makes the 1 MiB send a rendezvous (881.3 µs) and 1025KiB makes
// both eager (861.8 µs); with the send mode given as `recorded` both
// points replay the recorded buffering alike.
func TestEagerThresholdAxisVariesProtocol(t *testing.T) {
	f, err := os.Open("../../testdata/tsim/unsafe-exchange.tsim")
	if err != nil {
		t.Fatal(err)
	}
	tr, err := tsim.Read(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	const axis = "[axes]\neager-threshold = [\"600KiB\", \"1025KiB\"]\n"
	tests := []struct {
		name     string
		spec     func(t *testing.T) *Spec
		machine  string
		makespan []string
	}{
		{"axis", func(t *testing.T) *Spec {
			return mustParse(t, "traces = [\"x.tsim\"]\n"+axis)
		}, "send=auto", []string{"0.000881345761", "0.000861845761"}},
		{"axis with send recorded", func(t *testing.T) *Spec {
			return mustParse(t, "traces = [\"x.tsim\"]\nsend = \"recorded\"\n"+axis)
		}, "", []string{"0.000861845761", "0.000861845761"}},
		{"machine tab's one axis", func(t *testing.T) *Spec {
			return OneAxis("x.tsim", replay.Default(), "eager-threshold", []string{"600KiB", "1025KiB"})
		}, "send=auto", []string{"0.000881345761", "0.000861845761"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := tt.spec(t)
			if got := s.Machine(); got != tt.machine {
				t.Errorf("machine %q, want %q", got, tt.machine)
			}
			pts, err := s.Expand()
			if err != nil {
				t.Fatal(err)
			}
			col := slices.Index(s.Columns(), "makespan_s")
			var got []string
			load := func(context.Context, TraceRef) (*tracefmt.Trace, error) { return tr, nil }
			err = s.Run(context.Background(), pts, Options{Jobs: 1, Load: load}, func(p *Point, row []string) error {
				got = append(got, row[col])
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tt.makespan) {
				t.Errorf("makespans %q, want %q", got, tt.makespan)
			}
		})
	}
}
