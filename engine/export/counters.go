package export

import (
	"github.com/tracesim/tracesim/engine/netmodel"
	"github.com/tracesim/tracesim/tracefmt/perfetto"
)

// Counters writes a simulated network's samples as Perfetto counter
// tracks: the links' mean and largest utilisation, each link group's
// utilisation, and the packets in flight (models that count packets). A
// sample measures a period, so its values are written at the period's
// start and hold until the next.
type Counters struct {
	w      *perfetto.Writer
	names  []string
	values []float64
}

// NewCounters returns a writer of counter tracks to w.
func NewCounters(w *perfetto.Writer) *Counters { return &Counters{w: w} }

// Write writes the counters of one sample.
func (c *Counters) Write(s *netmodel.Sample) {
	ts := (s.Time - s.Period).Seconds() * 1e6
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
}
