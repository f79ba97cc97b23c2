package machine

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"
	"charm.land/huh/v2"

	"github.com/tracesim/tracesim/engine/replay"
	"github.com/tracesim/tracesim/engine/routing"
	sw "github.com/tracesim/tracesim/engine/sweep"
	"github.com/tracesim/tracesim/engine/topology"
	"github.com/tracesim/tracesim/views/component"
)

// defaultSteps is the number of values a numeric sweep's form offers.
const defaultSteps = 10

// maxSteps bounds the values one form asks for; a session's budget may
// bound the points further.
const maxSteps = 1000

// sweepForm is what the sweep form of a setting's row is bound to.
type sweepForm struct {
	from, to, steps, scale string
	picked                 []string // the categorical values chosen
}

// openSweep opens the form that sweeps the selected setting: a range
// (from, to, steps, linear or log) for a numeric one, defaulting to ×0.1
// to ×10 of its value in ten log steps, or the list of its values for a
// categorical one (topology, placement, routing, model, …).
func (m *Model) openSweep() tea.Cmd {
	r := m.rows[m.cur]
	if r.set == nil {
		return nil
	}
	ed := &editor{kind: edSweep, key: r.key, sweep: &sweepForm{steps: strconv.Itoa(defaultSteps), scale: "log"}}
	f := ed.sweep
	title := "sweep " + r.key + " on the loaded trace"
	if cur, ok := sw.AxisNumber(r.key, r.set.Get(&m.cfg)); ok {
		f.from, _ = sw.Format(r.key, cur/10)
		f.to, _ = sw.Format(r.key, cur*10)
		value := func(v string) error {
			c := m.cfg
			return r.set.Set(&c, v)
		}
		return m.open(ed,
			huh.NewInput().Title(title+": from").Value(&f.from).Validate(value),
			huh.NewInput().Title("to").Value(&f.to).Validate(value),
			huh.NewInput().Title("steps").Value(&f.steps).Validate(func(v string) error {
				n, err := strconv.Atoi(strings.TrimSpace(v))
				if err != nil || n < 1 || n > maxSteps {
					return fmt.Errorf("a whole number from 1 to %d", maxSteps)
				}
				return nil
			}),
			huh.NewSelect[string]().Title("scale").Options(huh.NewOption("log", "log"), huh.NewOption("linear", "linear")).Value(&f.scale).Inline(true),
		)
	}
	vals := m.sweepChoices(r.key, r.set)
	if len(vals) < 2 {
		m.note = r.key + " has no list of values to sweep: s sweeps numeric settings and choices (topology, placement, routing, model, …)"
		m.memo.Invalidate()
		return nil
	}
	// Every value is ticked but a placeholder (file:net.txt names no
	// file of the user's): it would only refuse the sweep.
	opts := make([]huh.Option[string], len(vals))
	f.picked = nil
	for i, v := range vals {
		pick := !placeholder(r.key, v, r.set.Get(&m.cfg))
		opts[i] = huh.NewOption(v, v).Selected(pick)
		if pick {
			f.picked = append(f.picked, v)
		}
	}
	if f.picked == nil {
		f.picked = []string{}
	}
	return m.open(ed, huh.NewMultiSelect[string]().Title(title+" (space toggles, enter runs)").
		Options(opts...).Value(&f.picked).Height(min(len(opts)+2, 10)).
		Validate(func(v []string) error {
			if len(v) == 0 {
				return errors.New("pick at least one value")
			}
			return nil
		}))
}

// sweepChoices lists every value of a categorical setting: a topology of
// each kind (its example), the placements that take no file, the
// routings of the configured topology, or the setting's choices.
func (m *Model) sweepChoices(key string, set *replay.Setting) []string {
	switch key {
	case "topology":
		// The current topology first when it is not one of the examples
		// (a file of the user's, a size of their own).
		out := topology.Examples()
		if cur := set.Get(&m.cfg); cur != "" && !slices.Contains(out, cur) {
			out = append([]string{cur}, out...)
		}
		return out
	case "placement":
		return []string{"linear", "block", "roundrobin", "random:seed=1"}
	case "routing":
		t, err := m.cfg.ParseTopology()
		if err != nil || t == nil {
			return nil
		}
		var out []string
		for _, in := range routing.Available(t) {
			out = append(out, in.Name)
		}
		return out
	}
	if set.Kind == replay.KindChoice {
		return set.Choices
	}
	return nil
}

// placeholder reports whether v is a value the form offers only as an
// example that names nothing of the user's: a topology file other than
// the configured one (topology.Examples' file:net.txt).
func placeholder(key, v, cur string) bool {
	return key == "topology" && strings.HasPrefix(v, "file:") && v != cur
}

// finishSweep turns the completed form into the sweep's values and asks
// the application to run it.
func (m *Model) finishSweep(ed *editor) tea.Cmd {
	f := ed.sweep
	var vals []string
	var err error
	if f.picked != nil {
		vals, err = sw.Values(ed.key, f.picked)
	} else {
		n, _ := strconv.Atoi(strings.TrimSpace(f.steps))
		vals, err = sw.Range(ed.key, strings.TrimSpace(f.from), strings.TrimSpace(f.to), n, f.scale == "log")
	}
	if err != nil {
		m.note = "sweep not started: " + err.Error()
		return nil
	}
	// The application starts it and shows the Sweep tab, or refuses it
	// (SweepRefusedMsg), and then this note says why.
	m.note = fmt.Sprintf("sweep of %s over %d values: starting…", ed.key, len(vals))
	msg := component.SweepMsg{Key: ed.key, Values: vals}
	return func() tea.Msg { return msg }
}
