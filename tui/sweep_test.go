package tui

import (
	"testing"

	"github.com/tracesim/tracesim/views/component"
	"github.com/tracesim/tracesim/views/component/viewtest"
)

// TestSweepTabs draws every tab at every size from 40×12 to 300×100, in
// colour and in monochrome: each frame fills exactly its area. A tab added
// to DefaultTabs is swept without a line more.
func TestSweepTabs(t *testing.T) {
	tr := viewtest.Trace(t)
	for _, tab := range DefaultTabs() {
		t.Run(tab.Name, func(t *testing.T) {
			viewtest.SweepThemes(t, func(c component.Common) component.Model {
				c.WhatIf = component.NewWhatIf()
				return tab.New(c, tr)
			})
		})
	}
}
