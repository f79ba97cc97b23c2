package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracesim/tracesim/engine/preset"
	"github.com/tracesim/tracesim/engine/replay"
	"github.com/tracesim/tracesim/internal/simgrid"
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
			// any-source auto resolves to recorded: the trace records
			// its senders.
			if want.AnySource == replay.AnyAuto {
				want.AnySource = replay.AnyRecorded
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
		"--factors", "smpi", "--coll-alg", "all=smpi")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	res := decodeSim(t, out)
	if d := res.Makespan - 0.217640; d < -1e-6 || d > 1e-6 || res.Config["cpu-speed"] != "1Gf" || res.Config["latency"] != "5us" {
		t.Errorf("makespan %.9f s, cpu-speed %s, latency %s (want 0.217640 s, the platform's 1Gf and 5us)",
			res.Makespan, res.Config["cpu-speed"], res.Config["latency"])
	}
	// The platform's hosts give the CPU speed: a --cpu-speed would
	// change nothing (it once ran at the platform's 1Gf silently).
	code, _, errs = simRun(t, filepath.Join(dir, "pingpong.txt"), "--model", "simgrid", "--platform", filepath.Join(dir, "platform.xml"), "--cpu-speed", "2Gf")
	if code != exitUsage || errs != "tracesim sim: --cpu-speed: not used with a platform (its hosts give it)\n" {
		t.Errorf("cpu-speed with a platform: exit %d %q", code, errs)
	}
	code, out, errs = simRun(t, filepath.Join(dir, "pingpong.txt"), "--model", "simgrid", "--platform", filepath.Join(dir, "platform.xml"))
	if want := "platform        cluster cluster: star of 8 hosts, 1 Gb/s, 5 µs links (" + filepath.Join(dir, "platform.xml") + ")\n"; code != exitOK || !strings.Contains(out, want) {
		t.Errorf("exit %d %s\n%s\nwant a line %q", code, errs, out, want)
	}
	code, _, errs = simRun(t, filepath.Join(dir, "pingpong.txt"), "--platform", filepath.Join(dir, "platform.xml"), "--topology", "ring:8")
	if code != exitUsage || !strings.Contains(errs, `platform: cannot be combined with topology "ring:8"`) {
		t.Errorf("platform and topology: exit %d %q", code, errs)
	}
}

// simJSON is the part of `sim --json` these tests read.
type simJSON struct {
	Makespan  float64           `json:"makespan_s"`
	Config    map[string]string `json:"config"`
	AnySource string            `json:"any_source"`
	Notes     []string          `json:"notes"`
}

func decodeSim(t *testing.T, out string) simJSON {
	t.Helper()
	var res simJSON
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	return res
}

// TestSimUnrecordedSources: a TI trace whose wildcard receives record no
// sender (-555) replays with any-source free unless asked otherwise, and
// says so on stderr and in the JSON; rank 0's two receives then take the
// messages in the order they come (rank 2's at once, rank 1's after its
// 1 ms of computation) rather than the senders the reader guessed.
func TestSimUnrecordedSources(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"idx.txt": "r0.txt\nr1.txt\nr2.txt\n",
		"r0.txt":  "0 init\n0 recv -555 0 1000 6\n0 recv -555 0 1000 6\n0 finalize\n",
		"r1.txt":  "1 init\n1 compute 1000000\n1 send 0 0 1000 6\n1 finalize\n",
		"r2.txt":  "2 init\n2 send 0 0 1000 6\n2 finalize\n",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	const note = "tracesim sim: any-source free: the trace's 2 wildcard receives record no sender (SimGrid -555), so they match whichever message comes first; --any-source recorded replays the senders the reader guessed\n"
	for _, tc := range []struct {
		name     string
		args     []string
		wantAny  string
		wantNote bool
	}{
		{"auto", nil, "free", true},
		{"asked free", []string{"--any-source", "free"}, "free", false},
		{"asked recorded", []string{"--any-source", "recorded"}, "recorded", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errs := simRun(t, append([]string{filepath.Join(dir, "idx.txt"), "--json"}, tc.args...)...)
			if code != exitOK {
				t.Fatalf("exit %d: %s", code, errs)
			}
			res := decodeSim(t, out)
			if res.AnySource != tc.wantAny || res.Config["any-source"] != tc.wantAny {
				t.Errorf("any_source %q, config any-source %q, want %q", res.AnySource, res.Config["any-source"], tc.wantAny)
			}
			wantErr, wantNotes := "", 0
			if tc.wantNote {
				wantErr, wantNotes = note, 1
			}
			if errs != wantErr || len(res.Notes) != wantNotes {
				t.Errorf("stderr %q, notes %q; want %q", errs, res.Notes, wantErr)
			}
		})
	}
}

// TestSimRejectsIgnoredSettings: a flag the chosen model does not read is
// a usage error naming it and the models that read it; the packet model
// takes a given --latency as its links' latency.
func TestSimRejectsIgnoredSettings(t *testing.T) {
	path := writeTsim(t, 2, func(b *tracefmt.Builder) {
		b.Add(0, tracefmt.Send(0, 1, 0, 0, 4096))
		b.Add(1, tracefmt.Recv(0, 0, 0, 0, 4096))
	})
	dir := t.TempDir()
	platform := func(name, sharing, attrs string) string {
		p := filepath.Join(dir, name)
		c := simgrid.Cluster{Hosts: 2, Speed: 1e9, Bandwidth: 125e6, Latency: 5e-6, Sharing: sharing, Attrs: attrs}
		if err := c.SavePlatform(p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	star := platform("star.xml", "", "")
	sharedStar := platform("shared.xml", "SHARED", "")
	sharedTorus := platform("storus.xml", "SHARED", `topology="TORUS" topo_parameters="2"`)
	for _, tc := range []struct {
		name     string
		args     []string
		wantCode int
		wantErr  string
		wantLink string // link-latency in the JSON config
	}{
		// The audit of issue 12: loggops and the simgrid model took
		// distances they ignore; the simgrid model refused the
		// crosstraffic it reads on SHARED links.
		{"topology under loggops", []string{"--model", "loggops", "--topology", "ring:2"}, exitUsage,
			"tracesim sim: --topology: not used by loggops (read by puppet, packet, flow)\n", ""},
		{"bandwidth under loggops", []string{"--model", "loggops", "--bandwidth", "1Gb/s"}, exitUsage,
			"tracesim sim: --bandwidth: not used by loggops (read by puppet, simgrid, packet, flow)\n", ""},
		{"platform under loggops", []string{"--model", "loggops", "--platform", star}, exitUsage,
			"tracesim sim: --platform: not used by loggops (read by puppet, simgrid, packet, flow)\n", ""},
		{"hops under simgrid", []string{"--model", "simgrid", "--hops", "3"}, exitUsage,
			"tracesim sim: --hops: not used by simgrid (read by puppet)\n", ""},
		{"topology under simgrid", []string{"--model", "simgrid", "--topology", "ring:2"}, exitUsage,
			"tracesim sim: --topology: not used by simgrid (read by puppet, packet, flow)\n", ""},
		{"crosstraffic under simgrid", []string{"--model", "simgrid", "--crosstraffic", "0"}, exitUsage,
			"tracesim sim: --crosstraffic: not used by simgrid without a platform (read on SHARED links, limiters and SHARED backbones)\n", ""},
		{"crosstraffic under simgrid on a star", []string{"--model", "simgrid", "--platform", star, "--crosstraffic", "0"}, exitUsage,
			"tracesim sim: --crosstraffic: not used by simgrid on this platform (read on SHARED links, limiters and SHARED backbones)\n", ""},
		{"crosstraffic under simgrid on a SHARED star", []string{"--model", "simgrid", "--platform", sharedStar, "--crosstraffic", "0", "--json"}, exitOK, "", "5us"},
		{"crosstraffic under simgrid on a SHARED torus", []string{"--model", "simgrid", "--platform", sharedTorus, "--crosstraffic", "0", "--json"}, exitOK, "", "5us"},
		{"bandwidth with a platform", []string{"--platform", star, "--bandwidth", "1Gb/s"}, exitUsage,
			"tracesim sim: --bandwidth: not used with a platform (its links give it)\n", ""},
		{"vcs under flow", []string{"--model", "flow", "--vcs", "4"}, exitUsage,
			"tracesim sim: --vcs: not used by flow (read by packet)\n", ""},
		{"flit under cut-through", []string{"--model", "puppet", "--flit", "64B"}, exitUsage,
			"tracesim sim: --flit: not used by puppet's cut-through switching (read by wormhole)\n", ""},
		{"flit under wormhole", []string{"--model", "puppet", "--switching", "wormhole", "--flit", "64B", "--json"}, exitOK, "", "10ns"},
		{"routing under puppet", []string{"--model", "puppet", "--routing", "adaptive"}, exitUsage,
			"tracesim sim: --routing: not used by puppet (read by packet, flow)\n", ""},
		{"factors under loggops", []string{"--model", "loggops", "--factors", "smpi"}, exitUsage,
			"tracesim sim: --factors: not used by loggops (read by simgrid, flow)\n", ""},
		{"crosstraffic under packet", []string{"--model", "packet", "--crosstraffic", "0"}, exitUsage,
			"tracesim sim: --crosstraffic: not used by packet (read by flow, simgrid)\n", ""},
		{"latency under puppet", []string{"--model", "puppet", "--latency", "5us"}, exitUsage,
			"tracesim sim: --latency: not used by puppet (read by simgrid, flow, packet)\n", ""},
		{"packet takes --latency", []string{"--model", "packet", "--latency", "5us", "--json"}, exitOK, "", "5us"},
		{"packet default link latency", []string{"--model", "packet", "--json"}, exitOK, "", "10ns"},
		{"packet latency twice", []string{"--model", "packet", "--latency", "5us", "--link-latency", "1us"}, exitUsage,
			"tracesim sim: --latency and --link-latency: give one of them (under the packet model both are the links' latency)\n", ""},
		// A preset's setting the model ignores is no error (the preset
		// serves other models too), but the user hears of it.
		{"preset settings are not flags", []string{"--preset", "smpi", "--model", "simgrid", "--json"}, exitOK,
			"tracesim sim: note: --preset smpi sets weight-s = 8775B, not used by simgrid (read by flow)\n", "10ns"},
		{"preset settings the model reads", []string{"--preset", "smpi", "--json"}, exitOK, "", "10ns"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errs := simRun(t, append([]string{path}, tc.args...)...)
			if code != tc.wantCode || errs != tc.wantErr {
				t.Fatalf("exit %d, stderr %q; want %d, %q", code, errs, tc.wantCode, tc.wantErr)
			}
			if tc.wantLink != "" {
				if got := decodeSim(t, out).Config["link-latency"]; got != tc.wantLink {
					t.Errorf("link-latency %q, want %q", got, tc.wantLink)
				}
			}
		})
	}
}
