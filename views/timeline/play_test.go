package timeline

import (
	"fmt"
	"os"
	"testing"

	"github.com/tracesim/tracesim/themes"
	"github.com/tracesim/tracesim/tracefmt/gen"
	"github.com/tracesim/tracesim/views/component"
)

func TestPlay(t *testing.T) {
	if os.Getenv("PLAY") == "" {
		t.Skip()
	}
	tr, err := gen.Generate(gen.Options{Pattern: "ring", Ranks: 6, Iters: 5, Seed: 1, Compute: -1})
	if err != nil {
		t.Fatal(err)
	}
	c := &component.Common{Width: 100, Height: 24, Theme: themes.Mono()}
	m := New(c, tr)
	m.plain = true
	fmt.Println(m.View())
	for range 6 {
		m.zoom(0.5)
	}
	m.dirty = true
	fmt.Println(m.View())
}
