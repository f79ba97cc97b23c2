package main

import (
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/tracesim/tracesim/themes"
	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/views/component"
	"github.com/tracesim/tracesim/views/timeline"
)

// benchTimelineFrame renders full 200×60 Timeline frames of the input
// trace, alternately zoomed in and out so that every frame is drawn anew
// (an unchanged frame would come from the view's cache). The summary the
// frames read is built once, before the clock starts.
func benchTimelineFrame(in *benchInput, b *testing.B) {
	c := component.New(&component.Session{Theme: themes.Dark()}, 200, 60)
	m := timeline.New(c, in.trace)
	// Focus waits for the background build of a large trace's summary.
	m.Focus(tracefmt.EventRef{})
	m.Update(tea.KeyPressMsg{Code: tea.KeyEscape})
	m.View()
	keys := []tea.KeyPressMsg{{Code: '+', Text: "+"}, {Code: '-', Text: "-"}}
	b.ResetTimer()
	i := 0
	for b.Loop() {
		m.Update(keys[i%2])
		m.View()
		i++
	}
	b.ReportMetric(b.Elapsed().Seconds()*1e3/float64(i), "ms/frame")
}
