package causality

import (
	"reflect"
	"sync"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/tracesim/tracesim/themes"
	"github.com/tracesim/tracesim/views/component"
	"github.com/tracesim/tracesim/views/derived"
)

// TestSharedGraph checks one trace in several sessions at once with one
// derived-data cache: they check and correct with one graph, at the same
// time (-race), and find what a session with a graph of its own finds.
func TestSharedGraph(t *testing.T) {
	tr := skewed(t)
	own := checked(t, themes.Mono(), tr, 80, 24)
	cache := derived.New()
	ms := make([]*Model, 4)
	cmds := make([]tea.Cmd, len(ms))
	for i := range ms {
		ms[i] = New(component.New(&component.Session{Theme: themes.Mono(), Derived: cache}, 0, 0), tr)
		ms[i].SetSize(80, 24)
		cmds[i] = ms[i].Init()
	}
	// run executes every session's command at once and hands each its
	// message.
	run := func() {
		msgs := make([]tea.Msg, len(ms))
		var wg sync.WaitGroup
		for i := range ms {
			wg.Go(func() { msgs[i] = cmds[i]() })
		}
		wg.Wait()
		for i, m := range ms {
			m.Update(msgs[i])
		}
	}
	run()
	for i, m := range ms {
		if m.g == nil || m.g != ms[0].g {
			t.Fatalf("session %d checked with graph %p, session 0 with %p", i, m.g, ms[0].g)
		}
		if !reflect.DeepEqual(m.all, own.all) {
			t.Errorf("session %d: %d findings with the shared graph, %d with its own", i, len(m.all), len(own.all))
		}
	}
	if own.g == ms[0].g {
		t.Errorf("a session without the cache got the shared graph")
	}
	for i, m := range ms {
		if cmds[i] = press(m, "c"); cmds[i] == nil {
			t.Fatalf("session %d: no correction command", i)
		}
	}
	run()
	for i, m := range ms {
		if m.corr == nil || m.corrErr != nil {
			t.Errorf("session %d: correction %v, error %v", i, m.corr != nil, m.corrErr)
		}
	}
}
