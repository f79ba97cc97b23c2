package replay

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tracesim/tracesim/engine/netmodel"
	"github.com/tracesim/tracesim/internal/simgrid"
	"github.com/tracesim/tracesim/tracefmt"
)

// readersTrace is a trace on which every setting a model reads changes
// its answer: 8 ranks exchange 200 KB (rendezvous) with the rank 3 ahead
// and behind, so that flows cross links both ways and share them, 20 KB
// and 1000 B messages one and two ahead (between the LogGOPS and MPI
// eager limits the cases use), all sent to rank 0 at once (an incast),
// two 1000 B messages from each rank at once, and computation in flops
// between the phases.
func readersTrace(t *testing.T) *tracefmt.Trace {
	p := newProg(t, 8)
	phase := func(tag int32, bytes int64, peer func(r int) (to, from int)) {
		for r := range 8 {
			to, from := peer(r)
			p.irecv(r, from, tag, bytes)
			p.isend(r, to, tag, bytes)
			p.waitall(r)
			p.work(r, 1e5*float64(1+r%3))
		}
	}
	phase(1, 200000, func(r int) (int, int) { return (r + 3) % 8, (r + 5) % 8 })
	phase(2, 20000, func(r int) (int, int) { return (r + 1) % 8, (r + 7) % 8 })
	phase(3, 1000, func(r int) (int, int) { return (r + 2) % 8, (r + 6) % 8 })
	for r := 1; r < 8; r++ {
		p.isend(r, 0, 4, 50000)
		p.waitall(r)
		p.irecv(0, r, 4, 50000)
	}
	p.waitall(0)
	// Two messages leave each rank at once: LogGOPS's g spaces them.
	for r := range 8 {
		p.irecv(r, (r+7)%8, 5, 1000)
		p.irecv(r, (r+1)%8, 5, 1000)
		p.isend(r, (r+1)%8, 5, 1000)
		p.isend(r, (r+7)%8, 5, 1000)
		p.waitall(r)
	}
	return p.trace()
}

// readersPlatforms writes the SimGrid platforms and hostfile the cases
// use (8 hosts of 2 Gflop/s, 125 MBps, 5 µs links) and returns their
// paths by name.
func readersPlatforms(t *testing.T) map[string]string {
	dir := t.TempDir()
	out := map[string]string{}
	torus := `topology="TORUS" topo_parameters="4,2"`
	for name, c := range map[string]simgrid.Cluster{
		"star":         {},
		"star-shared":  {Sharing: "SHARED"},
		"torus":        {Attrs: torus},
		"torus-shared": {Sharing: "SHARED", Attrs: torus},
	} {
		c.Hosts, c.Speed, c.Bandwidth, c.Latency = 8, 2e9, 125e6, 5e-6
		out[name] = filepath.Join(dir, name+".xml")
		if err := c.SavePlatform(out[name]); err != nil {
			t.Fatal(err)
		}
	}
	out["hostfile"] = filepath.Join(dir, "hostfile")
	if err := os.WriteFile(out["hostfile"], []byte("host0\nhost5\nhost2\nhost7\nhost4\nhost1\nhost6\nhost3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}

// readersAnswer is everything a run gives the user but its wall time: the
// results as JSON (makespan, per-rank times, network metrics) and the
// number of metrics samples.
func readersAnswer(t *testing.T, tr *tracefmt.Trace, c Config) string {
	t.Helper()
	samples := 0
	_, res := simulate(t, tr, c, Options{OnSample: func(*netmodel.Sample) { samples++ }})
	if !res.Complete {
		t.Fatalf("incomplete: %+v", res.Deadlock)
	}
	res.Wall, res.EventsPerSec, res.TraceEventsPerSec = 0, 0, 0
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%d samples %s", samples, b)
}

// TestReadersChangeTheAnswer: for every model and every model-specific
// setting, changing the setting changes what the run gives (its makespan,
// or its network metrics) exactly when Unused says the model reads it.
// Each case sets a context (a topology on which a routing matters, a
// platform) and changes one setting from base to alt, by hand (ByHand
// applies, as on the command line). Where Unused says a setting is not
// used, the run must be the same to the bit, or the changed
// configuration refused; where it says it is used, the answer must
// differ. Once loggops ignored topology, bandwidth and hops, the simgrid
// model topology and hops, and crosstraffic was refused under the
// simgrid model that reads it on SHARED links: this test failed.
func TestReadersChangeTheAnswer(t *testing.T) {
	tr := readersTrace(t)
	plat := readersPlatforms(t)
	type tc struct {
		key, base, alt string
		ctx            []string // settings of both runs
	}
	cases := []tc{
		{key: "topology", base: "", alt: "ring:8"},
		// Every model reads a placement: ranks on one node share its
		// CPU and talk at no network cost.
		{key: "placement", base: "", alt: "block:2"},
		{key: "routing", base: "", alt: "valiant", ctx: []string{"topology", "ring:8", "vcs", "4"}},
		{key: "hops", base: "0", alt: "3"},
		{key: "hops", base: "0", alt: "3", ctx: []string{"topology", "ring:8"}},
		{key: "bandwidth", base: "10Gb/s", alt: "1Gb/s"},
		{key: "per-byte", base: "800ps", alt: "8ns"},
		{key: "latency", base: "1us", alt: "20us"},
		{key: "crosstraffic", base: "0.05", alt: "0"},
		{key: "crosstraffic", base: "0.05", alt: "0", ctx: []string{"platform", plat["star"]}},
		{key: "crosstraffic", base: "0.05", alt: "0", ctx: []string{"platform", plat["star-shared"]}},
		{key: "crosstraffic", base: "0", alt: "0.05", ctx: []string{"platform", plat["torus-shared"]}},
		{key: "vcs", base: "2", alt: "4", ctx: []string{"topology", "ring:8"}},
		{key: "vcs", base: "4", alt: "6", ctx: []string{"topology", "ring:8", "routing", "valiant"}},
		{key: "buffer", base: "4", alt: "1", ctx: []string{"topology", "ring:8"}},
		{key: "router-delay", base: "20ns", alt: "2us"},
		{key: "link-latency", base: "10ns", alt: "5us"},
		{key: "sample-period", base: "10us", alt: "0s"},
		{key: "wait-threshold", base: "1us", alt: "1ps"},
		{key: "switching", base: "cut-through", alt: "store-and-forward", ctx: []string{"topology", "ring:8"}},
		{key: "startup", base: "1us", alt: "10us"},
		{key: "packet-size", base: "0", alt: "1KiB"},
		{key: "header", base: "16B", alt: "4KiB"},
		{key: "header", base: "16B", alt: "4KiB", ctx: []string{"switching", "store-and-forward"}},
		{key: "flit", base: "8B", alt: "4KiB"},
		{key: "flit", base: "8B", alt: "4KiB", ctx: []string{"switching", "wormhole"}},
		{key: "envelope", base: "16B", alt: "100KB"},
		{key: "factors", base: "none", alt: "smpi"},
		{key: "tcp-gamma", base: "4MiB", alt: "1KiB"},
		{key: "weight-s", base: "0", alt: "1MiB", ctx: []string{"topology", "ring:8"}},
		{key: "L", base: "2.5us", alt: "50us"},
		{key: "o", base: "1.5us", alt: "10us"},
		{key: "g", base: "1us", alt: "20us"},
		{key: "G", base: "6ns", alt: "60ns"},
		{key: "O", base: "0s", alt: "5ns"},
		{key: "S", base: "0", alt: "100B"},
		{key: "eager-threshold", base: "64KiB", alt: "100B"},
		{key: "eager-threshold", base: "64KiB", alt: "100B", ctx: []string{"S", "1KiB"}},
		{key: "platform", base: "", alt: plat["star"]},
		{key: "hostfile", base: "", alt: plat["hostfile"], ctx: []string{"platform", plat["torus"]}},
		{key: "cpu-speed", base: "1Gf", alt: "3Gf"},
		{key: "cpu-speed", base: "1Gf", alt: "3Gf", ctx: []string{"platform", plat["star"]}},
		{key: "bandwidth", base: "10Gb/s", alt: "1Gb/s", ctx: []string{"platform", plat["star"]}},
		{key: "latency", base: "1us", alt: "20us", ctx: []string{"platform", plat["star"]}},
		{key: "link-latency", base: "10ns", alt: "5us", ctx: []string{"platform", plat["star"]}},
	}
	for _, c := range cases {
		name := c.key
		if len(c.ctx) > 0 {
			name += " with " + filepath.Base(c.ctx[len(c.ctx)-1])
		}
		for _, model := range []string{"puppet", "loggops", "simgrid", "packet", "flow"} {
			t.Run(name+"/"+model, func(t *testing.T) {
				given := map[string]bool{c.key: true}
				build := func(v string) (Config, error) {
					cfg := Default()
					kv := append([]string{"model", model}, c.ctx...)
					kv = append(kv, c.key, v)
					for i := 0; i < len(kv); i += 2 {
						if err := cfg.Set(kv[i], kv[i+1]); err != nil {
							t.Fatal(err)
						}
						given[kv[i]] = true
					}
					cfg.ByHand(func(k string) bool { return given[k] })
					return cfg, cfg.Validate()
				}
				base, err := build(c.base)
				alt, altErr := build(c.alt)
				why := Unused(&alt, c.key)
				if err != nil {
					if why != "" {
						// The model cannot run the context (a SHARED
						// platform under the packet model, any under
						// loggops), and would not read the setting.
						return
					}
					t.Fatalf("base configuration: %v", err)
				}
				if why != "" {
					if altErr != nil {
						if names := regexp.MustCompile(`\b` + regexp.QuoteMeta(c.key) + `\b`); names.MatchString(altErr.Error()) && !strings.Contains(altErr.Error(), "not used") {
							// Refused for its value: the
							// configuration depends on it.
							t.Errorf("%s %s → %s: Unused says %q, but the value is refused: %v", c.key, c.base, c.alt, why, altErr)
						}
						return // refused: the run cannot take the value
					}
					if a, b := readersAnswer(t, tr, base), readersAnswer(t, tr, alt); a != b {
						t.Errorf("%s %s → %s: Unused says %q, but the answer changed", c.key, c.base, c.alt, why)
					}
					return
				}
				if altErr != nil {
					if c.key == "crosstraffic" && strings.Contains(altErr.Error(), "crosstraffic 0") {
						return // read: the platform needs it 0
					}
					t.Fatalf("changed configuration: %v", altErr)
				}
				if a, b := readersAnswer(t, tr, base), readersAnswer(t, tr, alt); a == b {
					t.Errorf("%s %s → %s: Unused says it is read, but the answer is the same", c.key, c.base, c.alt)
				}
			})
		}
	}
}
