package tracefmt

import (
	"math"
	"sort"
)

// Summary describes a trace in numbers: what `tracesim info` prints.
type Summary struct {
	Format          string `json:"format"`
	Ranks           int    `json:"ranks"`
	Timed           bool   `json:"timed"`
	Unit            string `json:"unit"`
	Events          int    `json:"events"`
	Bytes           int64  `json:"bytes"`
	CollectiveBytes int64  `json:"collective_bytes"`
	Collectives     int    `json:"collectives"`
	// CollectivesSizeUnknown counts the collective calls whose bytes the
	// trace does not record (counted as 0 in CollectiveBytes).
	CollectivesSizeUnknown int            `json:"collectives_size_unknown"`
	Start                  float64        `json:"start_s"`
	Duration               float64        `json:"duration_s"`
	States                 []StateSummary `json:"states"`
	Messages               MessageCounts  `json:"messages"`
	RankEvents             []int          `json:"rank_events"`
	Compute                ComputeSummary `json:"compute"`
}

// StateSummary counts the intervals of one state.
type StateSummary struct {
	Name     string  `json:"name"`
	Category string  `json:"category"`
	Count    int     `json:"count"`
	Total    float64 `json:"total_s"`
}

// ComputeSummary totals the compute bursts of a trace.
type ComputeSummary struct {
	Bursts  int     `json:"bursts"`
	Seconds float64 `json:"seconds"`
	Flops   float64 `json:"flops"`
}

// Summarize computes the summary of a trace in one pass over its events
// (the span, the message counts and the totals together: each pass over a
// trace of millions of events reads it all from memory again). States are
// listed by decreasing total time, then by name.
func Summarize(t *Trace) Summary {
	s := Summary{
		Format:     t.Format,
		Ranks:      t.Size(),
		Timed:      t.Timed,
		Unit:       t.Unit.String(),
		Events:     t.NumEvents(),
		RankEvents: make([]int, t.Size()),
	}
	states := make([]StateSummary, len(t.States))
	for i, d := range t.States {
		states[i] = StateSummary{Name: d.Name, Category: d.Category.String()}
	}
	sec := t.Unit.Seconds()
	// The span as Span computes it, over every event (clocks may run
	// backwards in broken traces).
	start, end := math.Inf(1), math.Inf(-1)
	var c MessageCounts
	for r := range t.Ranks {
		ev := t.Ranks[r].Events
		s.RankEvents[r] = len(ev)
		for i := range ev {
			e := &ev[i]
			if x := e.Time; x < start {
				start = x
			}
			if x := e.Time; x > end {
				end = x
			}
			switch e.Kind {
			case KindEnter:
				st := &states[e.State()]
				st.Count++
				if e.Match >= 0 {
					st.Total += float64((ev[e.Match].Time - e.Time) * sec)
				}
			case KindSend:
				s.Bytes += e.Size
				c.addSend(e)
			case KindRecv:
				c.addRecv(e)
			case KindCollective:
				s.Collectives++
				s.CollectiveBytes += e.Size
				if !e.SizeKnown() {
					s.CollectivesSizeUnknown++
				}
			case KindCompute:
				s.Compute.Bursts++
				if e.Flags.Has(FlagWork) {
					s.Compute.Flops += e.Amount()
				} else {
					s.Compute.Seconds += float64(e.Amount() * sec)
				}
			}
		}
	}
	s.Messages = c
	if !t.Timed || start > end {
		start, end = 0, 0
	}
	s.Start, s.Duration = start*sec, (end-start)*sec
	sort.SliceStable(states, func(i, j int) bool {
		if states[i].Total != states[j].Total {
			return states[i].Total > states[j].Total
		}
		return states[i].Name < states[j].Name
	})
	s.States = states
	return s
}
