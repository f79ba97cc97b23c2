package tui

import (
	"testing"

	sw "github.com/tracesim/tracesim/engine/sweep"
	"github.com/tracesim/tracesim/views/component"
	"github.com/tracesim/tracesim/views/component/viewtest"
)

// sweepResult is a small sweep result: makespan over bandwidth, a line
// per topology.
const sweepResult = `point,trace,topology,bandwidth,makespan_s,complete
0,gen ring --ranks 8,torus:2x4,1Gb/s,0.002834690456,true
1,gen ring --ranks 8,torus:2x4,10Gb/s,0.002300646631,true
2,gen ring --ranks 8,ring:8,1Gb/s,0.003021279505,true
3,gen ring --ranks 8,ring:8,10Gb/s,0.002355496608,true
`

// TestSweepTabs draws every tab at every size from 40×12 to 300×100, in
// colour and in monochrome: each frame fills exactly its area. A tab added
// to DefaultTabs is swept without a line more; so are the Sweep tab of
// SweepTabs and the Learn tab a lesson adds.
func TestSweepTabs(t *testing.T) {
	tr := viewtest.Trace(t)
	res, err := sw.ReadCSV("result.csv", []byte(sweepResult))
	if err != nil {
		t.Fatal(err)
	}
	tabs := append(DefaultTabs(), SweepTabs(res, "result.csv", nil)[0])
	for _, tab := range tabs {
		t.Run(tab.Name, func(t *testing.T) {
			viewtest.SweepThemes(t, func(c component.Common) component.Model {
				c.WhatIf = component.NewWhatIf()
				return tab.New(c, tr)
			})
		})
	}
	// The Learn tab lives as long as its session, which it shares: the
	// session gets the theme the sweep asks for.
	l, ltr := wiring(t)
	t.Run(LearnTab, func(t *testing.T) {
		viewtest.SweepThemes(t, func(c component.Common) component.Model {
			m := New(Options{Trace: ltr, Path: "wiring", Lesson: l})
			m.common.Theme = c.Theme
			i := m.tabIndex(LearnTab)
			if m.tabs[i].Name != LearnTab {
				t.Fatalf("tabs %v: no Learn tab", m.TabNames())
			}
			v := m.tabs[i].New(c, ltr)
			v.SetSize(c.Width, c.Height)
			return v
		})
	})
}
