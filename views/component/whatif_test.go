package component

import (
	"testing"

	"github.com/tracesim/tracesim/engine/replay"
)

func TestWhatIf(t *testing.T) {
	a, b := NewWhatIf(), NewWhatIf()
	cfg, name := a.Config()
	if name != "default" || cfg.Model != replay.Default().Model {
		t.Fatalf("new session: %q %+v", name, cfg.Model)
	}
	next := replay.Default()
	if err := next.Set("topology", "torus:4x4"); err != nil {
		t.Fatal(err)
	}
	msg := a.SetConfig(next, "custom")
	if msg.Name != "custom" || msg.Config.Topology != "torus:4x4" {
		t.Fatalf("message %+v", msg)
	}
	if got, _ := a.Config(); got.Topology != "torus:4x4" {
		t.Fatalf("config not kept: %q", got.Topology)
	}
	// Sessions do not share state.
	if got, _ := b.Config(); got.Topology != "" {
		t.Fatalf("another session sees %q", got.Topology)
	}
}
