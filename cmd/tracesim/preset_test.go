package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracesim/tracesim/engine/preset"
	"github.com/tracesim/tracesim/tracefmt"
)

// TestSimPresets: `sim --preset KEY` runs a small trace for every preset
// of the Machine tab, with the preset's settings in force.
func TestSimPresets(t *testing.T) {
	path := writeTsim(t, 4, func(b *tracefmt.Builder) {
		for r := 0; r < 4; r++ {
			b.Add(r, tracefmt.ComputeTime(0, 0.001))
			b.Add(r, tracefmt.Send(0, (r+1)%4, 0, 0, 4096))
			b.Add(r, tracefmt.Recv(0, (r+3)%4, 0, 0, 4096))
		}
	})
	for _, p := range preset.All() {
		t.Run(p.Key, func(t *testing.T) {
			code, out, errs := simRun(t, path, "--preset", p.Key, "--json")
			if code != exitOK {
				t.Fatalf("exit %d: %s", code, errs)
			}
			res := decodeSim(t, out)
			want, err := p.Config()
			if err != nil {
				t.Fatal(err)
			}
			for _, kv := range want.Values() {
				if res.Config[kv[0]] != kv[1] {
					t.Errorf("%s = %q, the preset gives %q", kv[0], res.Config[kv[0]], kv[1])
				}
			}
			if !(res.Makespan > 0.001) {
				t.Errorf("makespan %g s", res.Makespan)
			}
		})
	}
	code, _, errs := simRun(t, path, "--preset", "cray")
	if code != exitUsage || !strings.Contains(errs, `unknown preset "cray" (expected one of default, insee-torus,`) {
		t.Errorf("unknown preset: exit %d, %q", code, errs)
	}
	// Flags win over the preset.
	code, out, errs := simRun(t, "--print-config", "--preset", "torus-4x4", "--vcs", "3")
	if code != exitOK || !strings.Contains(out, `vcs = "3"`) || !strings.Contains(out, `topology = "torus:4x4"`) {
		t.Errorf("preset then flag: exit %d %s\n%s", code, errs, out)
	}
}

// TestSimPlatform replays SimGrid's ping-pong trace on its platform file
// and hostfile with SMPI's factors and collectives: the makespan smpirun
// -replay gives under its default model (0.217640 s).
func TestSimPlatform(t *testing.T) {
	dir := filepath.Join("..", "..", "testdata", "simgrid")
	code, out, errs := simRun(t, filepath.Join(dir, "pingpong.txt"), "--json", "--model", "simgrid",
		"--platform", filepath.Join(dir, "platform.xml"), "--hostfile", filepath.Join(dir, "hostfile"),
		"--factors", "smpi", "--coll-alg", "all=smpi", "--cpu-speed", "2Gf")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	res := decodeSim(t, out)
	if d := res.Makespan - 0.217640; d < -1e-6 || d > 1e-6 || res.Config["cpu-speed"] != "1Gf" || res.Config["latency"] != "5us" {
		t.Errorf("makespan %.9f s, cpu-speed %s, latency %s (want 0.217640 s, the platform's 1Gf and 5us)",
			res.Makespan, res.Config["cpu-speed"], res.Config["latency"])
	}
	code, out, errs = simRun(t, filepath.Join(dir, "pingpong.txt"), "--model", "simgrid", "--platform", filepath.Join(dir, "platform.xml"))
	if want := "platform        cluster cluster: star of 8 hosts, 125MBps, 5us links (" + filepath.Join(dir, "platform.xml") + ")\n"; code != exitOK || !strings.Contains(out, want) {
		t.Errorf("exit %d %s\n%s\nwant a line %q", code, errs, out, want)
	}
	code, _, errs = simRun(t, filepath.Join(dir, "pingpong.txt"), "--platform", filepath.Join(dir, "platform.xml"), "--topology", "ring:8")
	if code != exitUsage || !strings.Contains(errs, `platform: cannot be combined with topology "ring:8"`) {
		t.Errorf("platform and topology: exit %d %q", code, errs)
	}
}

// simJSON is the part of `sim --json` these tests read.
type simJSON struct {
	Makespan float64           `json:"makespan_s"`
	Config   map[string]string `json:"config"`
}

func decodeSim(t *testing.T, out string) simJSON {
	t.Helper()
	var res simJSON
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	return res
}
