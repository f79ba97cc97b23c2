package simulate

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// shownRanks returns the ranks of the per-rank table rows the results
// pane draws, top to bottom.
func shownRanks(t *testing.T, frame string) []int {
	t.Helper()
	var ranks []int
	table := false
	for _, l := range strings.Split(ansi.Strip(frame), "\n") {
		f := strings.Fields(l)
		if len(f) > 1 && f[0] == "rank" && f[1] == "node" {
			table = true
			continue
		}
		if !table || len(f) == 0 {
			continue
		}
		r, err := strconv.Atoi(f[0])
		if err != nil {
			t.Fatalf("table row %q does not start with a rank", l)
		}
		ranks = append(ranks, r)
	}
	return ranks
}

// TestResultsListKeys presses the list keys on the results pane of a
// 64-rank run at 100×24, where the table shows 15 ranks a page: before,
// G and pgdn did nothing and ranks past the 15th were reachable only by
// ↓, one at a time.
func TestResultsListKeys(t *testing.T) {
	tr := stencil(t, 64)
	m := newModel(t, tr, packetConfig(t, "torus:8x8"), 100, 24)
	drive(t, m, press(m, "r"))
	if m.pane != PaneResults {
		t.Fatalf("pane %v, want results (status %v, err %q)", m.pane, m.Status(), m.err)
	}
	if got := shownRanks(t, m.View()); len(got) != 15 || got[0] != 0 || got[14] != 14 {
		t.Fatalf("first frame shows ranks %v, want 0–14", got)
	}
	for _, c := range []struct {
		keys        []string
		first, last int
	}{
		{[]string{"G"}, 49, 63},
		{[]string{"end"}, 49, 63},
		{[]string{"pgdown"}, 15, 29},
		{[]string{"ctrl+d"}, 15, 29},
		{[]string{"pgdown", "pgdown"}, 30, 44},
		{[]string{"pgdown", "pgdown", "pgdown", "pgdown"}, 49, 63}, // stops where 63 is the last row
		{[]string{"j"}, 1, 15},
		{[]string{"down", "down"}, 2, 16},
		{[]string{"G", "g"}, 0, 14},
		{[]string{"G", "home"}, 0, 14},
		{[]string{"G", "k"}, 48, 62},
		{[]string{"G", "pgup"}, 34, 48},
		{[]string{"G", "ctrl+u"}, 34, 48},
		{[]string{"j", "j", "pgup"}, 0, 14},
		{[]string{"G", "G", "up"}, 48, 62}, // end twice does not run past the end
		{[]string{"g", "up"}, 0, 14},
	} {
		t.Run(strings.Join(c.keys, ","), func(t *testing.T) {
			pressDrawn(m, append([]string{"home"}, c.keys...)...)
			got := shownRanks(t, m.View())
			if len(got) != 15 || got[0] != c.first || got[len(got)-1] != c.last {
				t.Errorf("after %v the table shows ranks %v, want %d–%d", c.keys, got, c.first, c.last)
			}
		})
	}
}

// historyRow is a row of the run list: the base mark, the selection
// mark, the run's number.
var historyRow = regexp.MustCompile(`^([B ])([▸ ])#(\d+) +\d`)

// pressDrawn presses keys one at a time, drawing a frame after each, as
// the terminal does: a page is the rows the last frame showed.
func pressDrawn(m *Model, keys ...string) {
	for _, k := range keys {
		press(m, k)
		m.View()
	}
}

// selectedRun returns the number of the run the history marks with ▸,
// and the numbers of the runs it lists.
func selectedRun(t *testing.T, frame string) (sel int, listed []int) {
	t.Helper()
	sel = -1
	for _, l := range strings.Split(ansi.Strip(frame), "\n") {
		g := historyRow.FindStringSubmatch(l)
		if g == nil {
			continue
		}
		n, err := strconv.Atoi(g[3])
		if err != nil {
			t.Fatal(err)
		}
		listed = append(listed, n)
		if g[2] == "▸" {
			sel = n
		}
	}
	return sel, listed
}

// TestHistoryListKeys presses the list keys on a history of 8 runs at
// 100×24, where the list shows 7: G selects #8, pgup/pgdn move by 7.
func TestHistoryListKeys(t *testing.T) {
	tr := stencil(t, 16)
	m := newModel(t, tr, packetConfig(t, "torus:4x4"), 100, 24)
	drive(t, m, press(m, "r"))
	// Seven more runs: copies of the first, numbered on, are as good as
	// simulated ones for the list and cost no simulation.
	for n := 2; n <= 8; n++ {
		r := m.runs[0]
		r.N = n
		m.runs = append(m.runs, r)
	}
	m.sel = len(m.runs) - 1
	drive(t, m, press(m, "v"))
	if m.pane != PaneHistory {
		t.Fatalf("pane %v, want history", m.pane)
	}
	sel, listed := selectedRun(t, m.View())
	if sel != 8 || fmt.Sprint(listed) != "[2 3 4 5 6 7 8]" {
		t.Fatalf("first frame: run #%d selected, %v listed; want #8 of 2–8\n%s", sel, listed, ansi.Strip(m.View()))
	}
	for _, c := range []struct {
		keys   []string
		sel    int
		listed string
	}{
		{[]string{"g"}, 1, "[1 2 3 4 5 6 7]"},
		{[]string{"home"}, 1, "[1 2 3 4 5 6 7]"},
		{[]string{"g", "G"}, 8, "[2 3 4 5 6 7 8]"},
		{[]string{"g", "end"}, 8, "[2 3 4 5 6 7 8]"},
		{[]string{"g", "pgdown"}, 8, "[2 3 4 5 6 7 8]"},
		{[]string{"g", "ctrl+d"}, 8, "[2 3 4 5 6 7 8]"},
		{[]string{"pgup"}, 1, "[1 2 3 4 5 6 7]"},
		{[]string{"ctrl+u"}, 1, "[1 2 3 4 5 6 7]"},
		{[]string{"k"}, 7, "[1 2 3 4 5 6 7]"}, // the list keeps the selected row at its bottom
		{[]string{"g", "j"}, 2, "[1 2 3 4 5 6 7]"},
	} {
		t.Run(strings.Join(c.keys, ","), func(t *testing.T) {
			pressDrawn(m, append([]string{"end"}, c.keys...)...)
			sel, listed := selectedRun(t, m.View())
			if sel != c.sel || fmt.Sprint(listed) != c.listed {
				t.Errorf("after %v: run #%d selected, %v listed; want #%d of %s", c.keys, sel, listed, c.sel, c.listed)
			}
		})
	}
}
