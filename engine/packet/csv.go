package packet

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"

	"github.com/tracesim/tracesim/engine/netmodel"
	"github.com/tracesim/tracesim/engine/topology"
)

// CSVWriter writes metrics samples as CSV in long ("tidy") form, one
// measurement per line:
//
//	time_s,kind,object,metric,value
//
// time_s is the end of the sample period. kind and object say what is
// measured:
//
//   - network, "all": messages_delivered, packets_delivered,
//     injected_bytes, packets_in_flight, long_waits, utilisation (mean of
//     the router-to-router links), max_utilisation,
//     message_latency_mean_s, message_latency_max_s,
//     packet_latency_mean_s, packet_latency_max_s;
//   - level, "level0" …: share (fat trees: share of the bytes delivered in
//     the period whose route climbed to that level);
//   - group, "x+", "up0", "global", "inject" …: bytes, utilisation;
//   - link, "r2.p0->r3.p1" (a router port to a router port), "n5->r5.p4"
//     (injection), "r5.p4->n5" (ejection), "medium" (a bus) or
//     "backbone" (a crossbar's): bytes, utilisation, flows (the time mean
//     of the flows on the link over the period) — only links busy during
//     the period;
//   - queue, "r3.p1/vc0": cur, max, mean (packets) — only buffers that
//     held a packet during the period.
//
// A sample writes only what its network measures (Sample.Measures): the
// packet metrics (packets_delivered, packets_in_flight, long_waits,
// packet_latency_*) and queues for the packet model, a link's flows for
// the flow model; a metric a model does not measure is left out, not
// written as zero. Periods in which the network carried no traffic have
// no lines.
type CSVWriter struct {
	w     *csv.Writer
	topo  topology.Topology
	names map[int32]string
	rec   [5]string
	err   error
}

// NewCSVWriter writes the header line to w and returns a writer for the
// samples of a network on t.
func NewCSVWriter(w io.Writer, t topology.Topology) *CSVWriter {
	c := &CSVWriter{w: csv.NewWriter(w), topo: t, names: map[int32]string{}}
	c.err = c.w.Write([]string{"time_s", "kind", "object", "metric", "value"})
	return c
}

func (c *CSVWriter) row(kind, object, metric, value string) {
	if c.err != nil {
		return
	}
	c.rec[1], c.rec[2], c.rec[3], c.rec[4] = kind, object, metric, value
	c.err = c.w.Write(c.rec[:])
}

func fnum(v float64) string { return strconv.FormatFloat(v, 'g', 9, 64) }
func unum(v uint64) string  { return strconv.FormatUint(v, 10) }
func inum(v int64) string   { return strconv.FormatInt(v, 10) }

// NetworkLines returns the number of network lines a sample of a network
// that measures m writes: the least a sample writes, before any group,
// link or queue line.
func NetworkLines(m netmodel.Measures) int {
	if m&netmodel.MeasurePackets != 0 {
		return 11
	}
	return 6
}

// Write writes the lines of one sample.
func (c *CSVWriter) Write(s *netmodel.Sample) error {
	c.rec[0] = fnum(s.Time.Seconds())
	// The packet lines only where the model counts packets: in the
	// flow model they would be zeros that look measured.
	pk := s.Measures&netmodel.MeasurePackets != 0
	c.row("network", "all", "messages_delivered", unum(s.Delivered))
	if pk {
		c.row("network", "all", "packets_delivered", unum(s.Packets))
	}
	c.row("network", "all", "injected_bytes", inum(s.InjectedBytes))
	if pk {
		c.row("network", "all", "packets_in_flight", strconv.Itoa(s.PacketsInFlight))
		c.row("network", "all", "long_waits", unum(s.LongWaits))
	}
	c.row("network", "all", "utilisation", fnum(s.Utilisation))
	c.row("network", "all", "max_utilisation", fnum(s.MaxUtilisation))
	c.row("network", "all", "message_latency_mean_s", fnum(s.MessageLatency.Mean))
	c.row("network", "all", "message_latency_max_s", fnum(s.MessageLatency.Max))
	if pk {
		c.row("network", "all", "packet_latency_mean_s", fnum(s.PacketLatency.Mean))
		c.row("network", "all", "packet_latency_max_s", fnum(s.PacketLatency.Max))
	}
	for l, share := range s.LevelShare {
		c.row("level", "level"+strconv.Itoa(l), "share", fnum(share))
	}
	for _, g := range s.Groups {
		c.row("group", g.Name, "bytes", inum(g.Bytes))
		c.row("group", g.Name, "utilisation", fnum(g.Utilisation))
	}
	flows := s.Measures&netmodel.MeasureFlows != 0
	for _, l := range s.Links {
		name := c.linkName(l.ID)
		c.row("link", name, "bytes", inum(l.Bytes))
		c.row("link", name, "utilisation", fnum(l.Utilisation))
		if flows {
			c.row("link", name, "flows", fnum(l.Flows))
		}
	}
	for _, q := range s.Queues {
		name := fmt.Sprintf("r%d.p%d/vc%d", q.Router, q.Port, q.VC)
		c.row("queue", name, "cur", inum(int64(q.Cur)))
		c.row("queue", name, "max", inum(int64(q.Max)))
		c.row("queue", name, "mean", fnum(q.Mean))
	}
	return c.err
}

func (c *CSVWriter) linkName(id int32) string {
	if s, ok := c.names[id]; ok {
		return s
	}
	s := netmodel.LinkName(c.topo, topology.LinkID(id))
	c.names[id] = s
	return s
}

// Flush writes out what is buffered and returns the first error.
func (c *CSVWriter) Flush() error {
	c.w.Flush()
	if c.err != nil {
		return c.err
	}
	return c.w.Error()
}
