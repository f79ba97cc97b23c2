package sweep

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

func mustParse(t *testing.T, src string) *Spec {
	t.Helper()
	s, err := ParseFile("spec.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestParseErrors(t *testing.T) {
	for _, c := range []struct {
		name, src, want string
	}{
		{"syntax", "traces = [\"a\"\nx", "spec.toml: line 2, column 15: expected a comma"},
		{"no traces", "[axes]\nbandwidth = [\"1Gb/s\"]\n", "spec.toml: traces: missing"},
		{"traces not a list", "traces = \"a.tsim\"\n", "spec.toml: line 1: traces: expected a list"},
		{"trace twice", "traces = [\"a.tsim\", \"a.tsim\"]\n", `traces[1]: "a.tsim" listed twice`},
		{"gen without pattern", "traces = [\"gen\"]\n", `spec.toml: line 1: traces: "gen": gen needs a pattern`},
		{"gen with a wrong flag", "traces = [\"a\",\n  \"gen ring --ranks x\"]\n", `spec.toml: line 2: traces: "gen ring --ranks x": gen: flag --ranks x:`},
		{"gen with too few ranks", "traces = [\"gen stencil2d --ranks 3\"]\n", `spec.toml: line 1: traces: "gen stencil2d --ranks 3": gen`},
		{"unknown key", "traces = [\"a\"]\n\nbandwith = \"1Gb/s\"\n", "spec.toml: line 3: bandwith: not a sim setting nor a sweep key"},
		{"bad setting", "traces = [\"a\"]\nlatency = \"fast\"\n", "spec.toml: line 2: latency:"},
		{"bad preset", "traces = [\"a\"]\npreset = \"cray\"\n", `spec.toml: line 2: preset: unknown preset "cray"`},
		{"unknown table", "traces = [\"a\"]\n[network]\nbandwidth = \"1Gb/s\"\n", "line 3: network.bandwidth: the spec has no table [network]"},
		{"unknown axis", "traces = [\"a\"]\n[axes]\nbandwith = [1]\n", "spec.toml: line 3: axes.bandwith: not a sim setting"},
		{"bad axis value", "traces = [\"a\"]\n[axes]\nbandwidth = [\"1Gb/s\", \"fast\"]\n", "line 3: axes.bandwidth: value 2 (fast):"},
		{"repeated axis value", "traces = [\"a\"]\n[axes]\nbandwidth = [\"1Gb/s\", \"125MB/s\"]\n", "value 2 (125MB/s): listed twice"},
		{"range without bound", "traces = [\"a\"]\n[axes]\nbandwidth = {from = \"1Gb/s\", step = \"1Gb/s\"}\n", "line 3: axes.bandwidth: range: needs from and to"},
		{"range wrong way", "traces = [\"a\"]\n[axes]\nlatency = {from = \"2us\", to = \"1us\", step = \"1us\"}\n", "range: step 1e-06 does not lead from 2e-06 to 1e-06"},
		{"range two steps", "traces = [\"a\"]\n[axes]\nlatency = {from = \"1us\", to = \"2us\", step = \"1us\", count = 3}\n", "give exactly one of step, factor and count"},
		{"range on a choice", "traces = [\"a\"]\n[axes]\nmodel = {from = 1, to = 2, step = 1}\n", "a range needs a numeric setting; list the values of model instead"},
		{"range too long", "traces = [\"a\"]\n[axes]\nlatency = {from = \"1ns\", to = \"1s\", step = \"1ns\"}\n", "range: more than 10000 values"},
		{"log range from zero", "traces = [\"a\"]\n[axes]\nlatency = {from = 0, to = \"1us\", count = 3, log = true}\n", "a log range needs positive from and to"},
		{"zip unknown", "traces = [\"a\"]\nzip = [\"latency\", \"x\"]\n[axes]\nlatency = [\"1us\", \"2us\"]\n", `spec.toml: line 2: zip: "x" is not an axis`},
		{"zip lengths", "traces = [\"a\"]\nzip = true\n[axes]\nlatency = [\"1us\", \"2us\"]\nbandwidth = [\"1Gb/s\"]\n", "zip: zipped axes need as many values: latency has 2, bandwidth has 1"},
		{"reps and seeds", "traces = [\"a\"]\nrepetitions = 2\nseeds = [1, 2]\n", "give repetitions or seeds, not both"},
		{"seed axis and reps", "traces = [\"a\"]\nrepetitions = 2\n[axes]\nseed = [1, 2]\n", "line 4: axes.seed: seed is both an axis and set by repetitions/seeds"},
		{"bad topology", "traces = [\"a\"]\nmodel = \"packet\"\n[axes]\ntopology = [\"torus:4x4\", \"torus:0x4\"]\n", "line 4: axes.topology: value 2 (torus:0x4): topology \"torus:0x4\": at offset 6: dimension 1 is 0"},
		{"invalid point", "traces = [\"a\"]\nmodel = \"packet\"\n[axes]\ntopology = [\"torus:4x4\", \"fattree:k=4,levels=2\"]\nrouting = [\"updown\"]\n", `spec.toml: line 4: axes.topology: point topology=torus:4x4 routing=updown: routing "updown" is not valid on torus:4x4`},
		// The line is the axis another of whose values makes the point
		// valid.
		{"invalid point of the base", "traces = [\"a\"]\nmodel = \"packet\"\nrouting = \"updown\"\n[axes]\nbandwidth = [\"1Gb/s\"]\ntopology = [\"fattree:k=4,levels=2\", \"torus:4x4\"]\n", `spec.toml: line 6: axes.topology: point bandwidth=1Gb/s topology=torus:4x4: routing "updown" is not valid on torus:4x4`},
		{"invalid point, routing to change", "traces = [\"a\"]\nmodel = \"packet\"\n[axes]\ntopology = [\"torus:4x4\"]\nrouting = [\"dor\", \"updown\"]\n", `spec.toml: line 5: axes.routing: point topology=torus:4x4 routing=updown: routing "updown" is not valid`},
		{"repetitions of nothing random", "traces = [\"a\"]\nrepetitions = 3\n[axes]\nbandwidth = [\"1Gb/s\", \"2Gb/s\"]\n", "spec.toml: line 2: repetitions: every repetition would give the same row: nothing in this machine is random"},
		{"seeds of a seeded placement", "traces = [\"a\"]\nplacement = \"random:seed=4\"\nseeds = [3, 7]\n", "spec.toml: line 3: seeds: every repetition would give the same row"},
		{"seeds of valiant under puppet", "traces = [\"a\"]\nmodel = \"puppet\"\ntopology = \"torus:4x4\"\nrouting = \"valiant\"\nseeds = [3, 7]\n", "spec.toml: line 5: seeds: every repetition would give the same row"},
		{"seed axis of nothing random", "traces = [\"a\"]\nmodel = \"packet\"\n[axes]\nseed = [1, 2]\n", "spec.toml: line 4: axis seed: nothing in this machine is random"},
		{"unused axis", "traces = [\"a\"]\nmodel = \"flow\"\n[axes]\nbuffer = [1, 2]\n", "spec.toml: line 4: axis buffer: not used by flow (read by packet)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseFile("spec.toml", []byte(c.src))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want it to contain %q", err, c.want)
			}
		})
	}
}

func TestAxisValues(t *testing.T) {
	for _, c := range []struct {
		axis string
		want string
	}{
		{`bandwidth = ["1Gb/s", "100MB/s", 2e9]`, "1Gb/s 800Mb/s 16Gb/s"},
		{`bandwidth = {from = "1Gb/s", to = "400Gb/s", count = 6, log = true}`, "1Gb/s 3.314Gb/s 10.99Gb/s 36.41Gb/s 120.7Gb/s 400Gb/s"},
		{`bandwidth = {from = "10Gb/s", to = "40Gb/s", step = "10Gb/s"}`, "10Gb/s 20Gb/s 30Gb/s 40Gb/s"},
		{`latency = {from = "1us", to = "8us", factor = 2}`, "1us 2us 4us 8us"},
		{`latency = {from = "100ns", to = "1.5us", count = 3}`, "100ns 800ns 1.5us"},
		{`eager-threshold = {from = "1KiB", to = "64KiB", factor = 4}`, "1KiB 4KiB 16KiB 64KiB"},
		{`ranks-per-node = {from = 1, to = 4, step = 1}`, "1 2 3 4"},
		{`cpu-scale = {from = 0.25, to = 1, step = 0.25}`, "0.25 0.5 0.75 1"},
		{`cpu-speed = {from = "1Gf", to = "4Gf", factor = 2}`, "1Gf 2Gf 4Gf"},
		{`topology = ["torus:4x4", "fattree:k=4,levels=2"]`, "torus:4x4 fattree:k=4,levels=2"},
		{`placement = "random"`, "random"},
	} {
		t.Run(c.axis, func(t *testing.T) {
			src := "traces = [\"a\"]\n[axes]\n" + c.axis + "\n"
			s := mustParse(t, src)
			if got := strings.Join(s.Axes[0].Values, " "); got != c.want {
				t.Errorf("values %q, want %q", got, c.want)
			}
		})
	}
}

// TestExpand checks the points' order (traces, then the axes with the
// last fastest, then repetitions), zipping, seeds and the machines.
func TestExpand(t *testing.T) {
	for _, c := range []struct {
		name  string
		src   string
		count int
		first []string
	}{
		{"crossed", `traces = ["a", "b"]
[axes]
topology = ["torus:4x4", "torus:8x8"]
latency = ["1us", "2us", "3us"]
`, 12, []string{
			"a torus:4x4,1us seed 1", "a torus:4x4,2us seed 1", "a torus:4x4,3us seed 1",
			"a torus:8x8,1us seed 1", "a torus:8x8,2us seed 1",
		}},
		{"zipped", `traces = ["a"]
zip = ["latency", "bandwidth"]
[axes]
latency = ["1us", "2us", "3us"]
topology = ["torus:4x4", "torus:8x8"]
bandwidth = ["1Gb/s", "10Gb/s", "100Gb/s"]
`, 6, []string{
			"a 1us,torus:4x4,1Gb/s seed 1", "a 1us,torus:8x8,1Gb/s seed 1", "a 2us,torus:4x4,10Gb/s seed 1",
			"a 2us,torus:8x8,10Gb/s seed 1", "a 3us,torus:4x4,100Gb/s seed 1",
		}},
		{"repetitions", `traces = ["a"]
seed = 7
repetitions = 3
[axes]
placement = ["random", "block"]
`, 6, []string{"a random seed 7", "a random seed 8", "a random seed 9", "a block seed 7"}},
		{"seeds", `traces = ["a"]
placement = "random"
seeds = [42, 5]
`, 2, []string{"a  seed 42", "a  seed 5"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := mustParse(t, c.src)
			pts, err := s.Expand()
			if err != nil {
				t.Fatal(err)
			}
			if len(pts) != c.count {
				t.Fatalf("%d points, want %d", len(pts), c.count)
			}
			for i, want := range c.first {
				p := pts[i]
				got := fmt.Sprintf("%s %s seed %d", s.Traces[p.Trace].Name, strings.Join(p.Values, ","), p.Seed)
				if got != want {
					t.Errorf("point %d: %q, want %q", i, got, want)
				}
				if p.Index != i || p.Config.Seed != p.Seed {
					t.Errorf("point %d: index %d, config seed %d", i, p.Index, p.Config.Seed)
				}
				// The machine has the point's values.
				for a, ax := range s.Axes {
					if v, _ := p.Config.Get(ax.Key); v != p.Values[a] {
						t.Errorf("point %d: config %s = %s, want %s", i, ax.Key, v, p.Values[a])
					}
				}
			}
		})
	}
}

// TestBase checks the base machine: defaults, the preset, then
// top-level settings in that order.
func TestBase(t *testing.T) {
	s := mustParse(t, `traces = ["a"]
preset = "torus-4x4"
packet-size = "512B"
latency = 2e-6
`)
	for key, want := range map[string]string{"model": "packet", "topology": "torus:4x4", "packet-size": "512B", "latency": "2us"} {
		if got, _ := s.Base.Get(key); got != want {
			t.Errorf("%s = %s, want %s", key, got, want)
		}
	}
	if s.Preset != "torus-4x4" || len(s.Settings) != 2 {
		t.Errorf("preset %q, settings %v", s.Preset, s.Settings)
	}
}

// TestRelativeFiles: files the spec names are found beside it.
func TestRelativeFiles(t *testing.T) {
	s, err := ParseFile("studies/spec.toml", []byte(`traces = ["run.tsim", "gen ring", "/abs/run.tsim"]`))
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, tr := range s.Traces {
		paths = append(paths, tr.Path)
	}
	if got := strings.Join(paths, " "); got != "studies/run.tsim  /abs/run.tsim" {
		t.Errorf("trace paths %q", got)
	}
	for _, c := range []struct{ key, v, dir, want string }{
		{"topology", "file:graph.txt", "studies", "file:studies/graph.txt"},
		{"topology", "file:/abs/graph.txt", "studies", "file:/abs/graph.txt"},
		{"topology", "torus:4x4", "studies", "torus:4x4"},
		{"placement", "file:map.txt", "studies", "file:studies/map.txt"},
		{"placement", "file:map.txt", ".", "file:map.txt"},
		{"platform", "cluster.xml", "studies", "studies/cluster.xml"},
		{"factors", "smpi", "studies", "smpi"},
		{"hostfile", "", "studies", ""},
		{"bandwidth", "10Gb/s", "studies", "10Gb/s"},
	} {
		if got := resolvePath(c.key, c.v, c.dir); got != c.want {
			t.Errorf("resolvePath(%s, %s, %s) = %s, want %s", c.key, c.v, c.dir, got, c.want)
		}
	}
}

func TestShard(t *testing.T) {
	s := mustParse(t, "traces = [\"a\"]\n[axes]\nlatency = {from = \"1us\", to = \"10us\", step = \"1us\"}\n")
	pts, _ := s.Expand()
	seen := map[int]int{}
	for i := range 3 {
		for _, p := range Shard(pts, i, 3) {
			seen[p.Index]++
			if p.Index%3 != i {
				t.Errorf("point %d in shard %d", p.Index, i)
			}
		}
	}
	if len(seen) != 10 {
		t.Errorf("shards cover %d of 10 points", len(seen))
	}
	for _, c := range []struct {
		in   string
		i, n int
		ok   bool
	}{{"0/4", 0, 4, true}, {"3/4", 3, 4, true}, {"4/4", 0, 0, false}, {"-1/4", 0, 0, false}, {"1", 0, 0, false}, {"a/b", 0, 0, false}, {"1x/4", 0, 0, false}, {"1/4x", 0, 0, false}} {
		i, n, err := ParseShard(c.in)
		if (err == nil) != c.ok || i != c.i || n != c.n {
			t.Errorf("ParseShard(%q) = %d, %d, %v", c.in, i, n, err)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte("traces = [\"a\"]\n[axes]\nbandwidth = {from = \"1Gb/s\", to = \"400Gb/s\", count = 6, log = true}\n"))
	f.Add([]byte("traces = [\"gen ring\"]\nzip = true\nrepetitions = 2\n[axes]\nlatency = [\"1us\", \"2us\"]\nplacement = [\"block\", \"random\"]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ParseFile("f.toml", data)
		if err != nil {
			return
		}
		if _, err := s.Expand(); err != nil {
			t.Fatalf("parsed but does not expand: %v", err)
		}
	})
}

// The Machine tab's sweeps: a range written as a spec's, a list checked
// and written back, and errors that name the setting.
func TestRangeAndValues(t *testing.T) {
	tests := []struct {
		name    string
		got     func() ([]string, error)
		want    []string
		wantErr string
	}{
		{"log bandwidth", func() ([]string, error) { return Range("bandwidth", "1Gb/s", "400Gb/s", 6, true) },
			[]string{"1Gb/s", "3.314Gb/s", "10.99Gb/s", "36.41Gb/s", "120.7Gb/s", "400Gb/s"}, ""},
		{"linear latency", func() ([]string, error) { return Range("latency", "100ns", "1.5us", 3, false) },
			[]string{"100ns", "800ns", "1.5us"}, ""},
		{"log from zero", func() ([]string, error) { return Range("latency", "0s", "1us", 3, true) },
			nil, "latency: range: a log range needs positive from and to"},
		{"categorical range", func() ([]string, error) { return Range("model", "a", "b", 2, false) },
			nil, "model: a range needs a numeric setting"},
		{"list", func() ([]string, error) { return Values("model", []string{"flow", "packet"}) },
			[]string{"flow", "packet"}, ""},
		{"list twice", func() ([]string, error) { return Values("model", []string{"flow", "flow"}) },
			nil, "model: value 2 (flow): listed twice"},
		{"unknown", func() ([]string, error) { return Values("nope", []string{"1"}) },
			nil, `unknown setting "nope"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.got()
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("values %q, want %q", got, tc.want)
			}
		})
	}
}
