package component

import (
	"fmt"
	"testing"

	"github.com/tracesim/tracesim/themes"
)

// TestMemo: a frame is drawn again exactly when the view invalidated it,
// its size changed or the session's theme did.
func TestMemo(t *testing.T) {
	s := &Session{Theme: themes.Dark()}
	c := New(s, 10, 2)
	var memo Memo
	n := 0
	draw := func(w, h int) string { n++; return fmt.Sprintf("%d×%d #%d", w, h, n) }
	steps := []struct {
		name   string
		change func()
		want   string
	}{
		{"first", func() {}, "10×2 #1"},
		{"nothing changed", func() {}, "10×2 #1"},
		{"invalidated", memo.Invalidate, "10×2 #2"},
		{"resized", func() { c.SetSize(12, 3) }, "12×3 #3"},
		{"same size again", func() { c.SetSize(12, 3) }, "12×3 #3"},
		{"theme", func() { s.Theme = themes.Mono() }, "12×3 #4"},
		{"negative size draws 0×0", func() { c.SetSize(-1, -5) }, "0×0 #5"},
	}
	for _, st := range steps {
		st.change()
		if got := memo.View(c, draw); got != st.want {
			t.Errorf("%s: View = %q, want %q", st.name, got, st.want)
		}
	}
	if memo.Renders() != 5 {
		t.Errorf("Renders = %d, want 5", memo.Renders())
	}
}

func TestSetSizeReportsChange(t *testing.T) {
	c := New(nil, 80, 24)
	for _, s := range []struct {
		w, h int
		want bool
	}{{80, 24, false}, {81, 24, true}, {81, 24, false}, {81, 25, true}} {
		if got := c.SetSize(s.w, s.h); got != s.want {
			t.Errorf("SetSize(%d, %d) = %v, want %v", s.w, s.h, got, s.want)
		}
	}
	if c.Theme == nil || c.Cache() != nil || WhatIfOf(c) == nil {
		t.Errorf("a session of its own: theme %v, cache %v", c.Theme, c.Cache())
	}
}
