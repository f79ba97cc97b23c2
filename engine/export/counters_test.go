package export

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/tracesim/tracesim/engine/des"
	"github.com/tracesim/tracesim/engine/netmodel"
	"github.com/tracesim/tracesim/engine/topology"
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
			c := NewCounters(pw, torus(t))
			c.Write(&netmodel.Sample{Measures: tc.measures, Time: des.FromSeconds(2e-5), Period: des.FromSeconds(1e-5),
				Utilisation: 0.25, MaxUtilisation: 0.5, PacketsInFlight: 7, Links: []netmodel.LinkSample{{ID: 0, Flows: 2}}})
			c.End()
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
			// Flows per link the other way round: the flow model's only.
			if got := strings.Contains(out, `"flows":2`); got == tc.want {
				t.Errorf("flows track: %v, want %v:\n%s", got, !tc.want, out)
			}
		})
	}
}

func torus(t *testing.T) topology.Topology {
	t.Helper()
	topo, err := topology.Parse("torus:4x4")
	if err != nil {
		t.Fatal(err)
	}
	return topo
}

// A link's flows track shows each sample's count from the period's start
// and goes back to zero where the link drops out of the samples: idle in
// the next period, no sample at all (an idle network), or the run's end;
// without the zeros the track would hold the last count over idle time.
func TestCountersFlowsPerLink(t *testing.T) {
	topo := torus(t)
	var buf bytes.Buffer
	pw := perfetto.NewWriter(&buf)
	c := NewCounters(pw, topo)
	ms := des.FromSeconds(1e-3)
	for _, s := range []netmodel.Sample{
		{Time: ms, Links: []netmodel.LinkSample{{ID: 0, Flows: 2}, {ID: 1, Flows: 1}}},
		{Time: 2 * ms, Links: []netmodel.LinkSample{{ID: 0, Flows: 1}}},
		// Idle from 2 ms to 4 ms: no sample.
		{Time: 5 * ms, Links: []netmodel.LinkSample{{ID: 1, Flows: 3}}},
	} {
		s.Measures, s.Period = netmodel.MeasureFlows, ms
		c.Write(&s)
	}
	c.End()
	if err := pw.Close(); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		TraceEvents []struct {
			Ph, Name string
			TS       float64
			Args     map[string]any
		}
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	got := map[string][][2]float64{}
	for _, e := range doc.TraceEvents {
		if e.Ph == "C" && strings.HasPrefix(e.Name, "link ") && e.Name != "link utilisation" {
			got[e.Name] = append(got[e.Name], [2]float64{e.TS, e.Args["flows"].(float64)})
		}
	}
	l0 := "link " + netmodel.LinkName(topo, 0)
	l1 := "link " + netmodel.LinkName(topo, 1)
	want := map[string][][2]float64{
		l0: {{0, 2}, {1000, 1}, {2000, 0}},
		l1: {{0, 1}, {1000, 0}, {4000, 3}, {5000, 0}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("flows tracks (µs, flows):\n got %v\nwant %v", got, want)
	}
	if l0 != "link r0.p0->r1.p1" {
		t.Errorf("link 0 named %q, want the metrics CSV's r0.p0->r1.p1", l0)
	}
}
