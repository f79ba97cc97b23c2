package preset

import (
	"strings"
	"testing"

	"github.com/tracesim/tracesim/engine/replay"
)

// TestPresets: every preset gives a valid configuration whose settings
// read back as the preset wrote them.
func TestPresets(t *testing.T) {
	keys := map[string]bool{}
	for _, p := range All() {
		if keys[p.Key] || p.Key == "" || strings.ContainsAny(p.Key, " ,") {
			t.Errorf("%q: keys must be unique single words", p.Key)
		}
		keys[p.Key] = true
		c, err := p.Config()
		if err != nil {
			t.Errorf("%s: %v", p.Key, err)
			continue
		}
		for _, kv := range p.Settings {
			one := replay.Default()
			if err := one.Set(kv[0], kv[1]); err != nil {
				t.Fatal(err)
			}
			got, _ := c.Get(kv[0])
			want, _ := one.Get(kv[0])
			if got != want {
				t.Errorf("%s: %s = %q, want %q", p.Key, kv[0], got, want)
			}
		}
	}
}

// TestSimGridPresetsWithoutFlow: everything the SimGrid presets set
// besides the flow model is valid on the contention-free simgrid model.
func TestSimGridPresetsWithoutFlow(t *testing.T) {
	for _, key := range []string{"simgrid", "smpi"} {
		p, err := Lookup(key)
		if err != nil {
			t.Fatal(err)
		}
		c := replay.Default()
		for _, kv := range p.Settings {
			if kv[0] == "model" || kv[0] == "crosstraffic" {
				continue
			}
			if err := c.Set(kv[0], kv[1]); err != nil {
				t.Fatalf("%s: %v", key, err)
			}
		}
		c.Model = replay.ModelSimGrid
		if err := c.Validate(); err != nil {
			t.Fatalf("%s: %v", key, err)
		}
		wantFactors := map[string]string{"simgrid": "none", "smpi": "smpi"}[key]
		for k, want := range map[string]string{"any-source": "free", "eager-start": "match", "eager-threshold": "64KiB",
			"handshake": "none", "factors": wantFactors, "tcp-gamma": "4MiB"} {
			if got, _ := c.Get(k); got != want {
				t.Errorf("%s: %s = %q, want %q", key, k, got, want)
			}
		}
		if got, _ := c.Get("coll-alg"); !strings.Contains(got, "allreduce=smpi") || !strings.Contains(got, "barrier=smpi") {
			t.Errorf("%s: coll-alg %q", key, got)
		}
	}
}

func TestLookup(t *testing.T) {
	for _, name := range []string{"insee-torus", "INSEE-TORUS", "INSEE 8×8 torus, 3 VC adaptive"} {
		if p, err := Lookup(name); err != nil || p.Key != "insee-torus" {
			t.Errorf("Lookup(%q) = %q, %v", name, p.Key, err)
		}
	}
	_, err := Lookup("cray")
	if err == nil || err.Error() != `unknown preset "cray" (expected one of default, insee-torus, torus-8x8, torus-4x4, fattree-k4, dragonfly, ethernet-1996, simgrid-cluster, simgrid, smpi)` {
		t.Errorf("unknown: %v", err)
	}
}
