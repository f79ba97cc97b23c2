package export

import (
	"github.com/tracesim/tracesim/engine/des"
	"github.com/tracesim/tracesim/engine/netmodel"
	"github.com/tracesim/tracesim/engine/topology"
	"github.com/tracesim/tracesim/tracefmt/perfetto"
)

// Counters writes a simulated network's samples as Perfetto counter
// tracks: the links' mean and largest utilisation, each link group's
// utilisation, the packets in flight (models that count packets) and, per
// link, the flows crossing it (models that count flows: a track named
// "link r1.p0->r2.p1" with the series "flows"). A sample measures a
// period, so its values are written at the period's start and hold until
// the next.
type Counters struct {
	w      *perfetto.Writer
	topo   topology.Topology
	names  []string
	values []float64
	// links caches the flows tracks' names; on lists the links whose
	// flows track last showed a nonzero value, which must be brought back
	// to zero when the link drops out of the samples (a sample lists only
	// the links busy in its period, and a period without traffic has no
	// sample), else the track would hold the old count over idle time.
	links map[int32]string
	on    []int32
	cur   map[int32]bool
	end   des.Time // the end of the last sample's period
}

// NewCounters returns a writer of counter tracks to w for a network on t
// (which names the links).
func NewCounters(w *perfetto.Writer, t topology.Topology) *Counters {
	return &Counters{w: w, topo: t, links: map[int32]string{}, cur: map[int32]bool{}}
}

func us(t des.Time) float64 { return t.Seconds() * 1e6 }

// Write writes the counters of one sample.
func (c *Counters) Write(s *netmodel.Sample) {
	start := s.Time - s.Period
	ts := us(start)
	c.w.Counter("link utilisation", ts, []string{"mean", "max"}, []float64{s.Utilisation, s.MaxUtilisation})
	if len(s.Groups) > 0 {
		c.names, c.values = c.names[:0], c.values[:0]
		for _, g := range s.Groups {
			c.names = append(c.names, g.Name)
			c.values = append(c.values, g.Utilisation)
		}
		c.w.Counter("group utilisation", ts, c.names, c.values)
	}
	if s.Measures&netmodel.MeasurePackets != 0 {
		// Not for the flow model: it has no packets to count.
		c.w.Counter("packets in flight", ts, []string{"packets"}, []float64{float64(s.PacketsInFlight)})
	}
	if s.Measures&netmodel.MeasureFlows != 0 {
		// Not for the packet model: it does not count flows, and a track
		// of zeros per link would look measured.
		c.flows(s, start)
	}
}

// flows writes the flows track of every link in s, and zero on those
// that showed flows before and are idle now.
func (c *Counters) flows(s *netmodel.Sample, start des.Time) {
	if c.end < start {
		// The network was idle between the last sample and this one.
		c.zero(c.end)
	}
	clear(c.cur)
	for _, l := range s.Links {
		c.cur[l.ID] = true
	}
	ts := us(start)
	for _, id := range c.on {
		if !c.cur[id] {
			c.flow(id, ts, 0)
		}
	}
	c.on = c.on[:0]
	for _, l := range s.Links {
		c.flow(l.ID, ts, l.Flows)
		if l.Flows != 0 {
			c.on = append(c.on, l.ID)
		}
	}
	c.end = s.Time
}

func (c *Counters) flow(id int32, ts, v float64) {
	name, ok := c.links[id]
	if !ok {
		name = "link " + netmodel.LinkName(c.topo, topology.LinkID(id))
		c.links[id] = name
	}
	c.names, c.values = append(c.names[:0], "flows"), append(c.values[:0], v)
	c.w.Counter(name, ts, c.names, c.values)
}

// zero brings every flows track that shows flows back to zero at t.
func (c *Counters) zero(t des.Time) {
	for _, id := range c.on {
		c.flow(id, us(t), 0)
	}
	c.on = c.on[:0]
}

// End writes the close of the last sample: its period's end, after which
// the flows tracks show no flow rather than hold the last count. Call it
// once the run has ended, before closing the writer.
func (c *Counters) End() { c.zero(c.end) }
