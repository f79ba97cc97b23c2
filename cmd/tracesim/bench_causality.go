package main

import (
	"context"
	"slices"
	"testing"

	"github.com/tracesim/tracesim/engine/causality"
	"github.com/tracesim/tracesim/tracefmt"
)

// skewed returns a copy of t whose rank clocks are offset by up to
// 120 µs, so that many of its messages and collectives are reversed: the
// work check reports and fix corrects.
func skewed(t *tracefmt.Trace) *tracefmt.Trace {
	u := *t
	u.Ranks = make([]tracefmt.Rank, len(t.Ranks))
	step := 20e-6 / t.Unit.Seconds()
	for r := range t.Ranks {
		ev := slices.Clone(t.Ranks[r].Events)
		off := float64(r%7) * step
		for i := range ev {
			ev[i].Time += off
		}
		u.Ranks[r].Events = ev
	}
	return &u
}

// benchCausalityCheck measures causality.Check without the replay on the
// skewed benchmark trace, the graph built once as the TUI does.
func benchCausalityCheck(in *benchInput, b *testing.B) {
	t := skewed(in.trace)
	g := causality.NewGraph(t)
	var msgs int
	b.ResetTimer()
	for b.Loop() {
		rep, err := g.Check(context.Background(), causality.Options{Replay: causality.ReplayOff})
		if err != nil {
			b.Fatal(err)
		}
		msgs += rep.Messages
	}
	b.ReportMetric(float64(msgs)/b.Elapsed().Seconds()/1e6, "Mmsgs/s")
	b.ReportMetric(float64(t.NumEvents())*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mevents/s")
}

// benchCausalityFix measures causality.Correct (offsets, then the CLC)
// on the skewed benchmark trace.
func benchCausalityFix(in *benchInput, b *testing.B) {
	t := skewed(in.trace)
	b.ResetTimer()
	for b.Loop() {
		c, err := causality.Correct(context.Background(), t, causality.CorrectOptions{})
		if err != nil {
			b.Fatal(err)
		}
		if c.ViolationsAfter() != 0 {
			b.Fatalf("%d violations left", c.ViolationsAfter())
		}
	}
	n := float64(t.NumEvents()) * float64(b.N)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/n, "ns/event")
	b.ReportMetric(n/b.Elapsed().Seconds()/1e6, "Mevents/s")
}
