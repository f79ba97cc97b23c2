package replay

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracesim/tracesim/engine/collective"
	"github.com/tracesim/tracesim/engine/des"
	"github.com/tracesim/tracesim/engine/netmodel"
	"github.com/tracesim/tracesim/tracefmt"
)

func TestSettingsParseUnits(t *testing.T) {
	tests := []struct {
		key, value string
		check      func(c *Config) bool
	}{
		{"bandwidth", "10Gb/s", func(c *Config) bool { return c.PerByte == 800 }},
		{"bandwidth", "125MB/s", func(c *Config) bool { return c.PerByte == 8000 }},
		{"bandwidth", "1e9", func(c *Config) bool { return c.PerByte == 1000 }},
		{"per-byte", "1.008644us", func(c *Config) bool { return c.PerByte == 1008644 }},
		{"startup", "1449.848us", func(c *Config) bool { return c.Startup == 1449848*des.Nanosecond }},
		{"startup", "2", func(c *Config) bool { return c.Startup == 2*des.Second }},
		{"latency", "500ns", func(c *Config) bool { return c.Latency == 500*des.Nanosecond }},
		{"eager-threshold", "64KiB", func(c *Config) bool { return c.EagerThreshold == 65536 }},
		{"eager-threshold", "1MB", func(c *Config) bool { return c.EagerThreshold == 1e6 }},
		{"packet-size", "0", func(c *Config) bool { return c.PacketSize == 0 }},
		{"cpu-speed", "2.5Gf", func(c *Config) bool { return c.CPUSpeed == 2.5e9 }},
		{"cpu-scale", "0", func(c *Config) bool { return c.CPUScale == 0 }},
		{"mode", "inject", func(c *Config) bool { return c.Mode == Inject }},
		{"send", "nospace", func(c *Config) bool { return c.Send == SendNoSpace }},
		{"switching", "wormhole", func(c *Config) bool { return c.Switching == netmodel.Wormhole }},
		{"switching", "saf", func(c *Config) bool { return c.Switching == netmodel.StoreAndForward }},
		{"map", "0, 1 2", func(c *Config) bool { return len(c.Map) == 3 && c.Map[2] == 2 }},
		{"coll-alg", "bcast=linear,allreduce=ring", func(c *Config) bool {
			return c.CollAlg[tracefmt.OpBcast] == collective.Linear && c.CollAlg[tracefmt.OpAllreduce] == collective.Ring
		}},
		{"coll-alg", "all=linear", func(c *Config) bool { return c.CollAlg[tracefmt.OpScan] == collective.Linear }},
		{"coll-factor", "log2p", func(c *Config) bool { return c.CollFactor == collective.FactorLog2P }},
		{"G", "6ns", func(c *Config) bool { return c.G == 6000 }},
		{"g", "1us", func(c *Config) bool { return c.Gap == des.Microsecond }},
		{"S", "32KiB", func(c *Config) bool { return c.S == 32768 && c.Threshold() == 64<<10 }},
		{"seed", "18446744073709551615", func(c *Config) bool { return c.Seed == 1<<64-1 }},
	}
	for _, tc := range tests {
		c := Default()
		if err := c.Set(tc.key, tc.value); err != nil {
			t.Errorf("Set(%s, %q): %v", tc.key, tc.value, err)
			continue
		}
		if !tc.check(&c) {
			t.Errorf("Set(%s, %q) stored the wrong value", tc.key, tc.value)
		}
		// Get writes a value Set reads back to the same config.
		v, _ := c.Get(tc.key)
		d := Default()
		if err := d.Set(tc.key, v); err != nil {
			t.Errorf("%s: Get gave %q, which Set rejects: %v", tc.key, v, err)
		} else if !tc.check(&d) {
			t.Errorf("%s: %q did not round-trip through Get (%q)", tc.key, tc.value, v)
		}
	}
}

func TestSettingsErrorsNameTheSetting(t *testing.T) {
	tests := []struct {
		key, value, want string
	}{
		{"bandwidth", "10Gbs", "unknown rate unit"},
		{"bandwidth", "0", "must be positive"},
		{"startup", "-1us", "must not be negative"},
		{"startup", "1 fortnight", "unknown time unit"},
		{"eager-threshold", "64 KiBB", "unknown size unit"},
		{"mode", "fast", "expected one of inject, causal, predict"},
		{"switching", "teleport", "unknown switching"},
		{"coll-alg", "gather=ring", "gather cannot use ring"},
		{"coll-alg", "bcast", "expected op=algorithm"},
		{"coll-alg", "shuffle=linear", "unknown operation"},
		{"coll-factor", "2", "expected 0, 1, log2p or p"},
		{"map", "0 x", `"x" is not a node number`},
		{"ranks-per-node", "two", "expected a whole number"},
		{"cpu-scale", "-1", "expected a number ≥ 0"},
		{"bandwith", "1Gb/s", "did you mean bandwidth"},
	}
	for _, tc := range tests {
		c := Default()
		err := c.Set(tc.key, tc.value)
		if err == nil {
			t.Errorf("Set(%s, %q) accepted", tc.key, tc.value)
			continue
		}
		if !strings.HasPrefix(err.Error(), tc.key+":") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Set(%s, %q): %q, want %q naming the setting", tc.key, tc.value, err, tc.want)
		}
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name string
		edit func(c *Config)
		want string
	}{
		{"map with ranks per node", func(c *Config) { c.Map = []int{0, 1}; c.RanksPerNode = 2 }, "map:"},
		{"wormhole without flit", func(c *Config) { c.Model = ModelPuppet; c.Switching = netmodel.Wormhole; c.Flit = 0 }, "flit:"},
		{"flow without bandwidth", func(c *Config) { c.PerByte = 0 }, "bandwidth:"},
		{"simgrid without bandwidth", func(c *Config) { c.Model = ModelSimGrid; c.PerByte = 0 }, "bandwidth:"},
		{"zero ranks per node", func(c *Config) { c.RanksPerNode = 0 }, "ranks-per-node:"},
		{"bad algorithm", func(c *Config) { c.CollAlg[tracefmt.OpGather] = collective.Pairwise }, "coll-alg:"},
	}
	for _, tc := range tests {
		c := Default()
		tc.edit(&c)
		err := c.Validate()
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error starting %q", tc.name, err, tc.want)
		}
	}
	d := Default()
	if err := d.Validate(); err != nil {
		t.Errorf("default config invalid: %v", err)
	}
}

func TestConfigFiles(t *testing.T) {
	tests := []struct {
		name, format, text string
		check              func(c *Config) bool
		wantErr            string
	}{
		{"toml flat", "toml", "model = \"loggops\"\nL = \"3us\"\nbandwidth = 1e9\n", func(c *Config) bool {
			return c.Model == ModelLogGOPS && c.L == 3*des.Microsecond && c.PerByte == 1000
		}, ""},
		{"toml tables", "toml", "[network]\nswitching = \"circuit\"\nheader = \"32B\"\n[cpu]\nmap = [0, 1, 2]\n[coll-alg]\nbcast = \"linear\"\n", func(c *Config) bool {
			return c.Switching == netmodel.Circuit && c.Header == 32 && len(c.Map) == 3 && c.CollAlg[tracefmt.OpBcast] == collective.Linear
		}, ""},
		{"json", "json", `{"mode": "causal", "eager-threshold": "1MiB", "hops": 3}`, func(c *Config) bool {
			return c.Mode == Causal && c.EagerThreshold == 1<<20 && c.Hops == 3
		}, ""},
		{"sniffed json", "", ` {"send": "synchronous"}`, func(c *Config) bool { return c.Send == SendSynchronous }, ""},
		{"unknown key", "toml", "bandwith = \"1Gb/s\"\n", nil, "bandwith: unknown setting (did you mean bandwidth?)"},
		{"unknown key in table", "toml", "[network]\nlatncy = \"1us\"\n", nil, "network: latncy: unknown setting"},
		{"bad value names the key", "json", `{"startup": "fast"}`, nil, "startup:"},
		{"bad value in table names the path", "toml", "[net]\nstartup = \"fast\"\n", nil, "net.startup:"},
		{"both bandwidth and per-byte", "toml", "bandwidth = \"1Gb/s\"\nper-byte = \"1ns\"\n", nil, "give one of them"},
		{"toml syntax", "toml", "model = \n", nil, "toml: line 1"},
		{"json syntax", "json", "{\n  \"mode\": causal\n}", nil, "json: line 2, column"},
		{"json not an object", "json", `[1, 2]`, nil, "must be an object"},
		{"bool", "toml", "mode = true\n", nil, "mode: expected a number or a string"},
		{"setting as table", "toml", "[mode]\nx = 1\n", nil, "mode: expected a value, not a table"},
	}
	for _, tc := range tests {
		c := Default()
		err := c.Decode([]byte(tc.text), tc.format)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%s: error %v, want %q", tc.name, err, tc.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if !tc.check(&c) {
			t.Errorf("%s: settings not applied", tc.name)
		}
	}
}

// Encode writes every setting; Decode reads it back to the same Config.
func TestConfigRoundTrip(t *testing.T) {
	c := cfgWith(t, "mode", "causal", "model", "loggops", "startup", "1449.848us", "per-byte", "1.008644us",
		"map", "0 1 2", "coll-alg", "bcast=ring,alltoall=pairwise", "eager-threshold", "1000B", "cpu-speed", "1.5Gf",
		"any-source", "free", "handshake", "rts-cts", "S", "4KiB", "O", "2ns", "cpu-scale", "0.25")
	dir := t.TempDir()
	for _, format := range []string{"json", "toml"} {
		data, err := c.Encode(format)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, "machine."+format)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		d := Default()
		if err := d.LoadFile(path); err != nil {
			t.Fatalf("%s: %v\n%s", format, err, data)
		}
		for _, kv := range c.Values() {
			if got, _ := d.Get(kv[0]); got != kv[1] {
				t.Errorf("%s: %s = %q after the round trip, want %q", format, kv[0], got, kv[1])
			}
		}
	}
	// Every setting has help and a unique key.
	seen := map[string]bool{}
	for _, s := range Settings() {
		if s.Help == "" || seen[s.Key] || s.Group == "" {
			t.Errorf("setting %q: help %q, duplicate %v", s.Key, s.Help, seen[s.Key])
		}
		seen[s.Key] = true
		if s.Kind == KindChoice && len(s.Choices) == 0 {
			t.Errorf("setting %q has no choices", s.Key)
		}
	}
	if err := (&c).LoadFile(filepath.Join(dir, "missing.toml")); err == nil {
		t.Error("LoadFile of a missing file succeeded")
	}
}

func TestFormatting(t *testing.T) {
	tests := []struct{ got, want string }{
		{FormatTime(1449848 * des.Nanosecond), "1449.848us"},
		{FormatTime(5 * des.Second), "5s"},
		{FormatTime(800), "800ps"},
		{FormatTime(1500 * des.Millisecond), "1.5s"},
		{FormatTime(1), "1ps"},
		{FormatTime(9e6 * des.Second), "9000000s"}, // t×1000 would wrap
		{FormatTime(9e6*des.Second + des.Millisecond), "9000000.001s"},
		{FormatSize(65536), "64KiB"},
		{FormatSize(1000), "1000B"},
		{FormatSpeed(2.5e9), "2.5Gf"},
		{formatBandwidth(800), "10Gb/s"},
		{formatBandwidth(8000), "1Gb/s"},
		{formatBandwidth(0), "inf"},
	}
	for _, tc := range tests {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
	// A per-byte time with no round bandwidth is written as per-byte.
	c := cfgWith(t, "per-byte", "1.008644us")
	data, err := c.Encode("toml")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `per-byte = "1008.644ns"`) || strings.Contains(string(data), "\nbandwidth =") {
		t.Errorf("encoded config:\n%s", data)
	}
}

// A configuration written to a directory names its files relative to it,
// so that LoadFile, which reads them from the file's directory, finds the
// same files.
func TestRelocated(t *testing.T) {
	cases := []struct {
		dir, spec, written string
	}{
		{"saved/alice", "file:net.txt", "file:../../net.txt"},
		{"saved/alice", "file:nets/a.txt", "file:../../nets/a.txt"},
		{"nets", "file:nets/a.txt", "file:a.txt"},
		{".", "file:net.txt", "file:net.txt"},
		{"saved", "file:/srv/net.txt", "file:/srv/net.txt"},
		{"saved", "torus:4x4", "torus:4x4"},
	}
	for _, c := range cases {
		cfg := Default()
		cfg.Topology, cfg.Placement = c.spec, c.spec
		got := cfg.Relocated(c.dir)
		if got.Topology != c.written || got.Placement != c.written {
			t.Errorf("Relocated(%q) of %q = %q, %q; want %q", c.dir, c.spec, got.Topology, got.Placement, c.written)
		}
		if back := relativeTo(c.dir, got.Topology); back != c.spec && c.dir != "." {
			t.Errorf("%q read back from %s as %q, want %q", c.written, c.dir, back, c.spec)
		}
	}
}

// TestLinkBandwidthAsTyped: the topology's links get the bandwidth the
// user typed, not 1e12 over the rounded per-byte time, so the spec a run
// prints says it (sim printed bw=11.999999994Gb/s for --bandwidth 1.5GB/s).
func TestLinkBandwidthAsTyped(t *testing.T) {
	for _, tc := range []struct {
		typed string
		bps   float64 // bytes per second
		spec  string
	}{
		{"1.5GB/s", 1.5e9, "bw=12Gb/s"},
		{"3.3Gb/s", 3.3e9 / 8, "bw=3.3Gb/s"},
		{"1.23456GB/s", 1.23456e9, "bw=9.87648Gb/s"},
		{"125MB/s", 1.25e8, "bw=1Gb/s"},
	} {
		c := Default()
		if err := c.Set("topology", "ring:4"); err != nil {
			t.Fatal(err)
		}
		if err := c.Set("bandwidth", tc.typed); err != nil {
			t.Fatal(err)
		}
		if got := linkBandwidth(c.PerByte); got != tc.bps {
			t.Errorf("%s: link bandwidth %v B/s, want %v", tc.typed, got, tc.bps)
		}
		top, err := c.ParseTopology()
		if err != nil {
			t.Fatal(err)
		}
		if spec := top.Spec(); !strings.Contains(spec, tc.spec) {
			t.Errorf("%s: topology %q, want %s in it", tc.typed, spec, tc.spec)
		}
	}
}
