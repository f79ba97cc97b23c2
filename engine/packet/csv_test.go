package packet

import (
	"bytes"
	"strings"
	"testing"

	"github.com/tracesim/tracesim/engine/des"
	"github.com/tracesim/tracesim/engine/netmodel"
	"github.com/tracesim/tracesim/engine/topology"
)

// The CSV writes the lines of what the sample's network measures, no
// more: a flow sample its links' flows and none of the packet lines, a
// packet sample its packet lines and no flows. NetworkLines counts the
// network lines either way.
func TestCSVWriterMeasures(t *testing.T) {
	topo, err := topology.Parse("ring:4")
	if err != nil {
		t.Fatal(err)
	}
	link := netmodel.LinkSample{ID: 0, Bytes: 1250, Utilisation: 1, Flows: 2}
	name := topo.Link(0).From.String() + "->" + topo.Link(0).To.String()
	for _, tc := range []struct {
		name     string
		measures netmodel.Measures
		want     string
	}{
		{"flow", netmodel.MeasureFlows, `1e-06,network,all,messages_delivered,3
1e-06,network,all,injected_bytes,2500
1e-06,network,all,utilisation,0.5
1e-06,network,all,max_utilisation,1
1e-06,network,all,message_latency_mean_s,2e-06
1e-06,network,all,message_latency_max_s,3e-06
1e-06,link,NAME,bytes,1250
1e-06,link,NAME,utilisation,1
1e-06,link,NAME,flows,2
`},
		{"packet", netmodel.MeasurePackets | netmodel.MeasureQueues, `1e-06,network,all,messages_delivered,3
1e-06,network,all,packets_delivered,10
1e-06,network,all,injected_bytes,2500
1e-06,network,all,packets_in_flight,4
1e-06,network,all,long_waits,1
1e-06,network,all,utilisation,0.5
1e-06,network,all,max_utilisation,1
1e-06,network,all,message_latency_mean_s,2e-06
1e-06,network,all,message_latency_max_s,3e-06
1e-06,network,all,packet_latency_mean_s,1e-07
1e-06,network,all,packet_latency_max_s,2e-07
1e-06,link,NAME,bytes,1250
1e-06,link,NAME,utilisation,1
`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			c := NewCSVWriter(&buf, topo)
			s := &netmodel.Sample{Measures: tc.measures, Time: des.FromSeconds(1e-6), Period: des.FromSeconds(1e-6),
				Delivered: 3, Packets: 10, InjectedBytes: 2500, PacketsInFlight: 4, LongWaits: 1,
				Utilisation: 0.5, MaxUtilisation: 1,
				MessageLatency: netmodel.LatencySummary{Count: 3, Mean: 2e-6, Max: 3e-6},
				PacketLatency:  netmodel.LatencySummary{Count: 10, Mean: 1e-7, Max: 2e-7},
				Links:          []netmodel.LinkSample{link}}
			if err := c.Write(s); err != nil {
				t.Fatal(err)
			}
			if err := c.Flush(); err != nil {
				t.Fatal(err)
			}
			want := "time_s,kind,object,metric,value\n" + strings.ReplaceAll(tc.want, "NAME", name)
			if got := buf.String(); got != want {
				t.Errorf("got\n%s\nwant\n%s", got, want)
			}
			if n, lines := NetworkLines(tc.measures), strings.Count(want, ",network,"); n != lines {
				t.Errorf("NetworkLines %d, the sample wrote %d", n, lines)
			}
		})
	}
}
