package component

import (
	"math"
	"testing"

	tea "charm.land/bubbletea/v2"
)

func TestListKeysMove(t *testing.T) {
	k := DefaultListKeys("row")
	for _, c := range []struct {
		key  tea.KeyPressMsg
		want int
		ok   bool
	}{
		{tea.KeyPressMsg{Code: tea.KeyUp}, -1, true},
		{tea.KeyPressMsg{Code: 'j', Text: "j"}, 1, true},
		{tea.KeyPressMsg{Code: tea.KeyPgDown}, 10, true},
		{tea.KeyPressMsg{Code: 'd', Mod: tea.ModCtrl}, 10, true},
		{tea.KeyPressMsg{Code: 'u', Mod: tea.ModCtrl}, -10, true},
		{tea.KeyPressMsg{Code: tea.KeyHome}, math.MinInt / 2, true},
		{tea.KeyPressMsg{Code: 'G', Text: "G"}, math.MaxInt / 2, true},
		{tea.KeyPressMsg{Code: tea.KeySpace, Text: " "}, 0, false}, // not page down: Stats' old binding
		{tea.KeyPressMsg{Code: 's', Text: "s"}, 0, false},
	} {
		if got, ok := k.Move(c.key, 10); got != c.want || ok != c.ok {
			t.Errorf("Move(%s) = %d, %v; want %d, %v", c.key, got, ok, c.want, c.ok)
		}
	}
	if d, _ := k.Move(tea.KeyPressMsg{Code: tea.KeyPgUp}, 0); d != -1 {
		t.Errorf("a page of no rows moves %d, want -1", d)
	}
}
