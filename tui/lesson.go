package tui

import (
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/tracesim/tracesim/engine/causality"
	"github.com/tracesim/tracesim/engine/lesson"
	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/views/component"
	"github.com/tracesim/tracesim/views/learn"
)

// LearnTab is the name of the lesson's tab; key 0 selects it.
const LearnTab = "Learn"

// lessonState is the session's lesson, when Options.Lesson gave one.
type lessonState struct {
	view *learn.Model
	tab  int // index of the Learn tab
	// pinned shows the lesson as a pane at the right of the other tabs.
	pinned bool
}

// minPaneView is the narrowest the view beside a pinned lesson may be.
const minPaneView = 58

// paneWidth returns the width of the pinned lesson's pane beside the
// active tab: 0 when the lesson is not pinned, the Learn tab is shown or
// the terminal is too narrow for both.
func (m *Model) paneWidth() int {
	if m.lesson == nil || !m.lesson.pinned || m.active == m.lesson.tab || m.tr == nil {
		return 0
	}
	pw := max(38, m.width*2/5)
	if m.width-pw-1 < minPaneView {
		return 0
	}
	return pw
}

// sizeLesson gives the Learn view the pane's size, or the whole view
// area when it is shown as a tab.
func (m *Model) sizeLesson() {
	if m.lesson == nil {
		return
	}
	w := m.width
	if pw := m.paneWidth(); pw > 0 {
		w = pw - 1 // its left column is the separator
	}
	m.lesson.view.SetSize(w, max(m.height-2, 0))
}

// pin toggles the lesson's pane beside the other tabs.
func (m *Model) pin() tea.Cmd {
	if m.lesson == nil {
		return nil
	}
	m.lesson.pinned = !m.lesson.pinned
	m.resize(m.width, m.height)
	switch {
	case !m.lesson.pinned:
		return m.setStatus("the lesson shows in its tab only (0)")
	case m.width-max(38, m.width*2/5)-1 < minPaneView:
		return m.setStatus("the lesson will show beside the tabs on a wider terminal")
	}
	return m.setStatus("lesson pinned beside the tabs (p in Learn unpins)")
}

// withPane draws the pinned lesson at the right of the view's lines.
func (m *Model) withPane(body string, pw, h int) string {
	m.sizeLesson() // a view rebuilt for another trace took the tabs' size
	sep := m.common.Theme.Styles.Dim.Render("│")
	left := strings.Split(body, "\n")
	right := strings.Split(m.lesson.view.View(), "\n")
	out := make([]string, h)
	for i := range out {
		var l, r string
		if i < len(left) {
			l = left[i]
		}
		if i < len(right) {
			r = right[i]
		}
		out[i] = l + sep + r
	}
	return strings.Join(out, "\n")
}

// setupLesson adds the Learn tab to tabs (the default ones when nil),
// starts the machine at the lesson's step and shows the Learn tab first.
// The Learn view lives as long as the session: opening another trace
// rebuilds the other views, not the student's place in the lesson.
func (m *Model) setupLesson(tabs []Tab) []Tab {
	l := m.opts.Lesson
	ls := &lessonState{}
	if tabs == nil {
		tabs = DefaultTabs()
	}
	names := make([]string, 0, len(tabs)+1)
	for _, t := range tabs {
		names = append(names, t.Name)
	}
	names = append(names, LearnTab)
	ls.view = learn.New(m.common, learn.Options{Lesson: l, Progress: m.opts.Progress, Tabs: names})
	if cfg, err := l.Config(ls.view.Step()); err == nil {
		m.common.WhatIf.SetConfig(cfg, l.MachineName(ls.view.Step()))
	}
	ls.tab = len(tabs)
	tabs = append(tabs, Tab{LearnTab, func(component.Common, *tracefmt.Trace) component.Model { return ls.view }})
	m.lesson = ls
	return tabs
}

// solveLesson computes the lesson's expected answers on the loaded trace
// in the background and hands them to the Learn tab.
func (m *Model) solveLesson() tea.Cmd {
	if m.lesson == nil || m.tr == nil {
		return nil
	}
	ctx, l, tr := m.ctx, m.opts.Lesson, m.tr
	if ans := m.opts.LessonAnswers; ans != nil && tr == m.opts.Trace {
		return func() tea.Msg { return learn.SolvedMsg{Lesson: l.Name, Answers: ans} }
	}
	return func() tea.Msg {
		ans, err := lesson.Solve(ctx, l, tr)
		return learn.SolvedMsg{Lesson: l.Name, Answers: ans, Err: err}
	}
}

// setMachine makes the lesson's step machine the session's: the Simulate
// tab runs it next, and the Machine tab is rebuilt to show it.
func (m *Model) setMachine(msg learn.MachineMsg) tea.Cmd {
	if m.lesson == nil {
		return nil
	}
	cm := m.common.WhatIf.SetConfig(msg.Config, msg.Name)
	if i := m.tabIndex("Machine"); m.tabs[i].Name == "Machine" && i != m.active {
		m.views[i] = nil
	}
	return tea.Batch(m.broadcast(cm), m.setStatus("this step's machine: "+strings.TrimPrefix(msg.Name, "lesson: ")))
}

// findingSelector is a view with a selected causality finding (the
// Causality tab): a lesson's question may be answered by selecting one.
type findingSelector interface {
	Selected() (causality.Finding, bool)
}

// learnKey reports whether msg selects the Learn tab.
func (m *Model) learnKey(msg tea.KeyPressMsg) bool {
	return m.lesson != nil && key.Matches(msg, m.keys.Learn)
}

// observe tells the Learn tab of a key the student pressed elsewhere and
// of the tab shown after it.
func (m *Model) observe(k string) tea.Cmd {
	if m.lesson == nil {
		return nil
	}
	o := learn.ObservedMsg{Key: k, Tab: m.tabs[m.active].Name}
	if s, ok := m.views[m.active].(findingSelector); ok && s != nil {
		if f, ok := s.Selected(); ok {
			o.Finding = &f
		}
	}
	nv, cmd := m.lesson.view.Update(o)
	if m.views[m.lesson.tab] != nil {
		m.views[m.lesson.tab] = nv
	}
	return cmd
}

// learnGets reports whether the Learn tab itself handles msg (it is shown
// and the key is not a global one, or its answer box is open): those keys
// are the student's answers, not steps of the lesson.
func (m *Model) learnGets(msg tea.KeyPressMsg) bool {
	if m.lesson == nil || m.active != m.lesson.tab {
		return false
	}
	if m.lesson.view.Capturing() {
		return true
	}
	return !key.Matches(msg, m.keys.global()...) && !m.learnKey(msg)
}
