package tui

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	sw "github.com/tracesim/tracesim/engine/sweep"
	"github.com/tracesim/tracesim/internal/classdb"
	"github.com/tracesim/tracesim/views/class"
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
// SweepTabs, the Learn tab a lesson adds and the Class tab a teacher's
// session adds (tui/serve), on a class of students at every stage.
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
	t.Run("Class", func(t *testing.T) {
		now := time.Date(2026, 11, 26, 10, 30, 0, 0, time.UTC)
		var st []classdb.Student
		for i := range 40 {
			st = append(st, classdb.Student{Key: fmt.Sprintf("SHA256:key%02d", i), Name: fmt.Sprintf("student %02d", i),
				Lesson: "eager-rendezvous", Step: i % 4, Steps: 3, StepSince: now.Add(-time.Duration(i) * time.Minute), Right: i % 3, Wrong: i % 2})
		}
		viewtest.SweepThemes(t, func(c component.Common) component.Model {
			m := class.New(c, class.Options{
				Source: func(context.Context) ([]classdb.Student, error) { return st, nil },
				Online: func() map[string]bool { return map[string]bool{st[1].Key: true} },
				Now:    func() time.Time { return now },
			})
			m.Update(m.Init()()) // the class read, as the application runs it
			if v := ansi.Strip(m.View()); !strings.Contains(v, "student 00") {
				t.Fatalf("the Class tab shows no student:\n%s", v)
			}
			return m
		})
	})
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
