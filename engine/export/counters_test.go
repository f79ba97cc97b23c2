package export

import (
	"bytes"
	"strings"
	"testing"

	"github.com/tracesim/tracesim/engine/des"
	"github.com/tracesim/tracesim/engine/netmodel"
	"github.com/tracesim/tracesim/tracefmt/perfetto"
)

// The counter tracks are those the network measures: a packet model's
// samples have a "packets in flight" track with their count, a flow
// model's none (it has no packets; a track of zeros would look measured).
func TestCountersPerModel(t *testing.T) {
	for _, tc := range []struct {
		name     string
		measures netmodel.Measures
		want     bool
	}{
		{"packet", netmodel.MeasurePackets | netmodel.MeasureQueues, true},
		{"flow", netmodel.MeasureFlows, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			pw := perfetto.NewWriter(&buf)
			c := NewCounters(pw)
			c.Write(&netmodel.Sample{Measures: tc.measures, Time: des.FromSeconds(2e-5), Period: des.FromSeconds(1e-5),
				Utilisation: 0.25, MaxUtilisation: 0.5, PacketsInFlight: 7})
			if err := pw.Close(); err != nil {
				t.Fatal(err)
			}
			out := buf.String()
			if !strings.Contains(out, `"link utilisation"`) {
				t.Errorf("no link utilisation track:\n%s", out)
			}
			if got := strings.Contains(out, `"packets in flight"`); got != tc.want {
				t.Errorf("packets in flight track: %v, want %v:\n%s", got, tc.want, out)
			}
			if tc.want && !strings.Contains(out, `"packets":7`) {
				t.Errorf("packets in flight: want 7:\n%s", out)
			}
		})
	}
}
