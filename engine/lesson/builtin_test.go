package lesson

import (
	"context"
	"strconv"
	"testing"
)

// tabs are the application's tabs (tui.DefaultTabs), which the engine
// cannot import; the tui tests check that they agree.
var tabs = []string{"Timeline", "Matrix", "Sizes", "Stats", "Causality", "Machine", "Simulate"}

// TestBuiltin checks every built-in lesson as `tracesim lesson check`
// does, and that the engine's answers still teach what the lesson says:
// the expected answers are never written down, so a change in the engine
// that turned a lesson's point around fails here.
func TestBuiltin(t *testing.T) {
	all, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	// What each lesson's text claims, as conditions on its answers by
	// step (seconds for makespans).
	claims := map[string]func(a []*Expected) string{
		"ring-vs-hypercube": func(a []*Expected) string {
			if !(a[0].Value > a[1].Value && a[2].Value > 2) {
				return "the hypercube is not much faster than the ring"
			}
			return ""
		},
		"eager-rendezvous": func(a []*Expected) string {
			if !(a[0].Value > 0 && a[1].Value == 4) {
				return "the eager run does not finish, or the rendezvous run does not block all 4 ranks"
			}
			return ""
		},
		"clock-skew": func(a []*Expected) string {
			if !(a[0].Value > 0 && a[1].Value >= 0 && a[1].Value < 4 && a[2].Value > 0) {
				return "no reversal, or no rank of 4 receives the largest"
			}
			return ""
		},
		"virtual-channels": func(a []*Expected) string {
			if !(a[2].Value > 1.1) {
				return "adaptive routing with 3 VCs is not faster than one VC"
			}
			return ""
		},
		"link-speed": func(a []*Expected) string {
			if !(a[1].Value > 1 && a[1].Value < 2) {
				return "4× faster links do not give a gain well below 4×"
			}
			return ""
		},
		"fattree-placement": func(a []*Expected) string {
			if !(a[1].Value > a[0].Value && a[2].Value > 1) {
				return "scattering the ranks does not slow the stencil"
			}
			return ""
		},
		"ring-vs-torus": func(a []*Expected) string {
			if !(a[0].Value > a[1].Value && a[2].Value > 1.5) {
				return "the torus is not clearly faster than the ring"
			}
			return ""
		},
	}
	if len(all) < len(claims) {
		t.Fatalf("%d built-in lessons, want at least %d", len(all), len(claims))
	}
	for _, l := range all {
		t.Run(l.Name, func(t *testing.T) {
			_, want, errs := Check(context.Background(), l, CheckOptions{Tabs: tabs})
			if len(errs) > 0 {
				t.Fatal(errs)
			}
			questions := 0
			for i, w := range want {
				q := l.Steps[i].Question
				if (w == nil) != (q == nil) {
					t.Fatalf("step %d: question %v, answer %v", i, q, w)
				}
				if w == nil {
					continue
				}
				questions++
				if w.Kind.Selected() {
					continue
				}
				// The answer as the hint-free student types it is right.
				if ok, err := q.Check(*w, w.Format(q)); !ok || err != nil {
					t.Errorf("step %d: the expected answer %q is refused: %v", i, w.Format(q), err)
				}
				for _, a := range w.Also {
					if ok, _ := q.Check(*w, strconv.FormatFloat(a, 'f', 0, 64)); !ok {
						t.Errorf("step %d: %v ties with the answer but is refused", i, a)
					}
				}
			}
			if questions < 2 {
				t.Errorf("%d questions, want at least 2", questions)
			}
			claim, ok := claims[l.Name]
			if !ok {
				t.Fatalf("no claim checked for lesson %s", l.Name)
			}
			if why := claim(compact(want)); why != "" {
				t.Errorf("%s: %s", l.Name, why)
			}
		})
	}
}

// compact drops the steps without a question, so that claims index the
// questions in order.
func compact(a []*Expected) []*Expected {
	var out []*Expected
	for _, e := range a {
		if e != nil {
			out = append(out, e)
		}
	}
	return out
}
