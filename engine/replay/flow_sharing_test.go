package replay

import (
	"math"
	"testing"
)

// TestDefaultModelPlacementRoutingSharing: under the default model (the
// flow model), placement and routing change the answer exactly where they
// change link sharing. Ranks 0 and 1 send 1 MB to ranks 2 and 3 at once.
// Where the two flows share a link the later of them ends one transfer
// time, (1 MB + envelope) / bandwidth, after a flow alone would; where
// they share none each ends as if alone; and a placement or routing that
// leaves the sharing as it was leaves the makespan as it was.
func TestDefaultModelPlacementRoutingSharing(t *testing.T) {
	if Default().Model != ModelFlow {
		t.Fatalf("default model %v, want flow", Default().Model)
	}
	const size = 1 << 20
	makespan := func(t *testing.T, pairs int, kv ...string) float64 {
		t.Helper()
		p := newProg(t, 4)
		for r := range pairs {
			p.send(r, r+2, 0, size)
			p.recv(r+2, r, 0, size)
		}
		cfg := Default()
		for i := 0; i+1 < len(kv); i += 2 {
			if err := cfg.Set(kv[i], kv[i+1]); err != nil {
				t.Fatal(err)
			}
		}
		_, res := simulate(t, p.trace(), cfg, Options{})
		if !res.Complete {
			t.Fatalf("%v: incomplete: %+v", kv, res.Deadlock)
		}
		return res.Makespan
	}
	// One transfer at the default 10 Gb/s with the default 16 B envelope.
	transfer := float64(size+16) / 1.25e9
	tests := []struct {
		name   string
		kv     []string // the case
		alone  []string // ranks 0 → 2 alone, on the same route
		shared bool     // the two flows share a link
	}{
		// On an 8×8 torus, nodes 0 → 2 and 1 → 3 both cross the link
		// 1 → 2; 0 → 2 and 8 → 10 run on two rows.
		{"torus:8x8 placement map:0,1,2,3", []string{"topology", "torus:8x8", "placement", "map:0,1,2,3"},
			[]string{"topology", "torus:8x8", "placement", "map:0,1,2,3"}, true},
		{"torus:8x8 placement map:0,8,2,10", []string{"topology", "torus:8x8", "placement", "map:0,8,2,10"},
			[]string{"topology", "torus:8x8", "placement", "map:0,8,2,10"}, false},
		// A translation of the torus changes no sharing.
		{"torus:8x8 placement map:9,17,11,19", []string{"topology", "torus:8x8", "placement", "map:9,17,11,19"},
			[]string{"topology", "torus:8x8", "placement", "map:0,8,2,10"}, false},
		// A crossbar shares nothing but the node links, whatever the
		// placement.
		{"crossbar:4 placement map:3,2,1,0", []string{"topology", "crossbar:4", "placement", "map:3,2,1,0"},
			[]string{"topology", "crossbar:4"}, false},
		// On a 3-level fat tree nodes 0 and 1 share a leaf switch; up/down
		// routing picks the up port by destination, so flows to nodes 16
		// and 48 climb the same links, while the adaptive up/down routing
		// sends the second flow up the other, idle port.
		{"fattree updown", []string{"topology", "fattree:k=4,levels=3", "routing", "updown", "placement", "map:0,1,16,48"},
			[]string{"topology", "fattree:k=4,levels=3", "routing", "updown", "placement", "map:0,1,16,48"}, true},
		{"fattree updown:adaptive", []string{"topology", "fattree:k=4,levels=3", "routing", "updown:adaptive", "placement", "map:0,1,16,48"},
			[]string{"topology", "fattree:k=4,levels=3", "routing", "updown", "placement", "map:0,1,16,48"}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, alone := makespan(t, 2, tc.kv...), makespan(t, 1, tc.alone...)
			want := alone
			if tc.shared {
				want += transfer
			}
			if math.Abs(got-want) > 2e-12 {
				t.Errorf("makespan %.12f s, want %.12f s (alone %.12f s, shared link %v)", got, want, alone, tc.shared)
			}
		})
	}
}
