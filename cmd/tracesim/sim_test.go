package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/tracesim/tracesim/engine/replay"
	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/tracefmt/formats"
	"github.com/tracesim/tracesim/tracefmt/gen"
	"github.com/tracesim/tracesim/tracefmt/perfetto"
	"github.com/tracesim/tracesim/tracefmt/tsim"
)

// simRun runs `tracesim sim args...` and returns the exit code and
// outputs.
func simRun(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(&env{ctx: context.Background(), stdout: &out, stderr: &errb}, append([]string{"sim"}, args...))
	return code, out.String(), errb.String()
}

func TestSimSettingsFromFlagsAndFile(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "machine.toml")
	if err := os.WriteFile(cfg, []byte("model = \"loggops\"\nL = \"3us\"\nbandwidth = \"1Gb/s\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := simRun(t, "--print-config", "--config", cfg, "--L", "4us", "--mode", "causal")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{`model = "loggops"`, `L = "4us"`, `mode = "causal"`, `bandwidth = "1Gb/s"`} {
		if !strings.Contains(out, want) {
			t.Errorf("config lacks %s:\n%s", want, out)
		}
	}
}

func TestSimUsageErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"bandwith": "1Gb/s"}`), 0o644)
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"x.tsim", "--bandwidth", "10Gbs"}, "-bandwidth"},
		{[]string{"x.tsim", "--startup", "fast"}, "-startup"},
		{[]string{"x.tsim", "--mode", "turbo"}, "expected one of inject, causal, predict"},
		{[]string{"x.tsim", "--config", bad}, "bandwith: unknown setting (did you mean bandwidth?)"},
		{[]string{"x.tsim", "--bandwidth", "1Gb/s", "--per-byte", "1ns"}, "give one of them"},
		{[]string{"x.tsim", "--map", "0 1", "--ranks-per-node", "2"}, "map: cannot be combined"},
		{[]string{"x.tsim", "--coll-alg", "gather=ring"}, "gather cannot use ring"},
		{[]string{}, "expected a trace FILE"},
		{[]string{"a", "b"}, "expected 0 to 1 arguments"},
	}
	for _, tc := range tests {
		code, _, errs := simRun(t, tc.args...)
		if code != exitUsage || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 mentioning %q", tc.args, code, errs, tc.want)
		}
	}
	if code, out, _ := simRun(t, "--help"); code != exitOK || !strings.Contains(out, "--eager-threshold") {
		t.Errorf("--help: exit %d\n%s", code, out)
	}
}

// writeTsim writes an untimed trace built by fn as a .tsim file, or skips
// when the format table does not read tsim yet.
func writeTsim(t *testing.T, ranks int, fn func(b *tracefmt.Builder)) string {
	t.Helper()
	if _, err := formats.Lookup("tsim"); err != nil {
		t.Skip("tsim is not registered in tracefmt/formats yet")
	}
	b := tracefmt.NewBuilder(ranks, false, tracefmt.Second)
	fn(b)
	tr, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := tsim.Write(&buf, tr); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "trace.tsim")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestSimPingPongJSON(t *testing.T) {
	path := writeTsim(t, 2, func(b *tracefmt.Builder) {
		b.Add(0, tracefmt.ComputeTime(0, 1))
		b.Add(0, tracefmt.Send(0, 1, 0, 0, 1000))
		b.Add(0, tracefmt.Recv(0, 1, 0, 0, 1000))
		b.Add(1, tracefmt.ComputeTime(0, 0.5))
		b.Add(1, tracefmt.Recv(0, 0, 0, 0, 1000))
		b.Add(1, tracefmt.ComputeTime(0, 0.2))
		b.Add(1, tracefmt.Send(0, 0, 0, 0, 1000))
	})
	msgs := filepath.Join(t.TempDir(), "msgs.csv")
	code, out, errs := simRun(t, path, "--json", "--model", "puppet", "--switching", "store-and-forward",
		"--startup", "1449.848us", "--per-byte", "1.008644us", "--packet-size", "0", "--send", "buffered",
		"--messages-out", msgs)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var res struct {
		Makespan float64 `json:"makespan_s"`
		Ranks    []struct {
			Rank     int     `json:"rank"`
			Finish   float64 `json:"finish_s"`
			Compute  float64 `json:"compute_s"`
			Blocked  float64 `json:"blocked_s"`
			Utilised float64 `json:"utilisation"`
		} `json:"ranks"`
		Events     uint64            `json:"events"`
		Wall       *float64          `json:"wall_s"`
		EventsPerS *float64          `json:"events_per_s"`
		Deadlock   *json.RawMessage  `json:"deadlock"`
		Config     map[string]string `json:"config"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if res.Makespan != 1.204916984 || len(res.Ranks) != 2 || res.Ranks[0].Finish != 1.204916984 ||
		res.Ranks[1].Compute != 0.7 || res.Events == 0 || res.Wall == nil || res.EventsPerS == nil ||
		res.Deadlock != nil || res.Config["startup"] != "1449.848us" {
		t.Errorf("results: %s", out)
	}
	data, err := os.ReadFile(msgs)
	if err != nil || strings.Count(string(data), "\n") != 3 {
		t.Errorf("messages CSV (%v):\n%s", err, data)
	}
}

func TestSimDeadlockExitCode(t *testing.T) {
	path := writeTsim(t, 2, func(b *tracefmt.Builder) {
		for r := range 2 {
			b.Add(r, tracefmt.Send(0, 1-r, 0, 0, 100))
			b.Add(r, tracefmt.Recv(0, 1-r, 0, 0, 100))
		}
	})
	code, out, _ := simRun(t, path, "--send", "synchronous", "--json")
	if code != exitFindings {
		t.Fatalf("exit %d, want 3", code)
	}
	var res struct {
		Deadlock struct {
			Cycle   []int `json:"cycle"`
			Blocked []struct {
				Rank     int   `json:"rank"`
				WaitsFor []int `json:"waits_for"`
			} `json:"blocked"`
		} `json:"deadlock"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Deadlock.Cycle) != 3 || len(res.Deadlock.Blocked) != 2 {
		t.Errorf("deadlock: %s", out)
	}
	code, out, _ = simRun(t, path, "--send", "synchronous")
	if code != exitFindings || !strings.Contains(out, "DEADLOCK") || !strings.Contains(out, "cycle 0 → 1 → 0") {
		t.Errorf("human output (exit %d):\n%s", code, out)
	}
	code, out, _ = simRun(t, path)
	if code != exitOK || !strings.Contains(out, "makespan") || !strings.Contains(out, "rank") {
		t.Errorf("buffered run (exit %d):\n%s", code, out)
	}
}

// writeGen writes a generated trace as a .tsim file.
func writeGen(t *testing.T, o gen.Options) string {
	t.Helper()
	if _, err := formats.Lookup("tsim"); err != nil {
		t.Skip("tsim is not registered in tracefmt/formats yet")
	}
	tr, err := gen.Generate(o)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := tsim.Write(&buf, tr); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), o.Pattern+".tsim")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// The packet model runs generated traces on a torus, a fat tree and a
// dragonfly, and reports the network in --json.
func TestSimPacketModelTopologies(t *testing.T) {
	path := writeGen(t, gen.Options{Pattern: "cg", Ranks: 64, Iters: 2, Compute: -1})
	tests := []struct {
		topology, routing, wantRouting string
		levels                         int
	}{
		{"torus:8x8", "dor", "dor", 0},
		{"fattree:k=4,levels=3", "", "updown", 3},
		{"dragonfly:p=2,a=4,h=2", "", "minimal", 0},
		{"dragonfly:p=2,a=4,h=2", "ugal", "ugal", 0},
	}
	for _, tc := range tests {
		args := []string{path, "--model", "packet", "--topology", tc.topology, "--packet-size", "256B", "--json"}
		if tc.routing != "" {
			args = append(args, "--routing", tc.routing)
		}
		if tc.routing == "ugal" {
			args = append(args, "--vcs", "3")
		}
		code, out, errs := simRun(t, args...)
		if code != exitOK {
			t.Fatalf("%v: exit %d: %s", args, code, errs)
		}
		var res struct {
			Makespan float64 `json:"makespan_s"`
			Complete bool    `json:"complete"`
			Network  struct {
				Topology   string    `json:"topology"`
				Routing    string    `json:"routing"`
				Packets    uint64    `json:"packets"`
				Hops       uint64    `json:"packet_hops"`
				LevelShare []float64 `json:"level_share"`
				Links      []struct {
					Bytes       int64   `json:"bytes"`
					Utilisation float64 `json:"mean_utilisation"`
				} `json:"links"`
				Queues []struct {
					Max      int `json:"max"`
					Capacity int `json:"capacity"`
				} `json:"queues"`
			} `json:"network"`
			Config map[string]string `json:"config"`
		}
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		n := res.Network
		if !res.Complete || res.Makespan <= 0 || n.Topology != tc.topology || n.Routing != tc.wantRouting ||
			n.Packets == 0 || n.Hops <= n.Packets || len(n.Links) == 0 || len(n.Queues) == 0 || len(n.LevelShare) != tc.levels ||
			res.Config["topology"] != tc.topology {
			t.Errorf("%s: makespan %v complete %v, network %s/%s %d packets %d hops, %d links, %d queues, levels %v",
				tc.topology, res.Makespan, res.Complete, n.Topology, n.Routing, n.Packets, n.Hops, len(n.Links), len(n.Queues), n.LevelShare)
		}
		sum := 0.0
		for _, s := range n.LevelShare {
			sum += s
		}
		if tc.levels > 0 && (sum < 0.999 || sum > 1.001) {
			t.Errorf("%s: level shares %v do not add up to 1", tc.topology, n.LevelShare)
		}
		for _, q := range n.Queues {
			if q.Max < 1 || q.Max > q.Capacity {
				t.Errorf("%s: queue %+v", tc.topology, q)
			}
		}
	}
	// The human summary names the network and its busiest parts.
	code, out, _ := simRun(t, path, "--model", "packet", "--topology", "fattree:k=4,levels=3")
	for _, want := range []string{"on packet (fattree:k=4,levels=3, routing updown, 2 VCs of 4 packets)", "packets ", "busiest router link", "fat-tree levels"} {
		if code != exitOK || !strings.Contains(out, want) {
			t.Errorf("summary (exit %d) lacks %q:\n%s", code, want, out)
		}
	}
}

// metricsRows runs sim with args and --metrics-out and returns the rows
// of the CSV it wrote, its header checked.
func metricsRows(t *testing.T, args ...string) [][]string {
	t.Helper()
	csvPath := filepath.Join(t.TempDir(), "metrics.csv")
	code, _, errs := simRun(t, append(args, "--metrics-out", csvPath)...)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	f, err := os.Open(csvPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) < 2 || strings.Join(rows[0], ",") != "time_s,kind,object,metric,value" {
		t.Fatalf("header %v, %d rows", rows[0], len(rows))
	}
	return rows
}

// --metrics-out writes the samples as CSV.
func TestSimMetricsOut(t *testing.T) {
	path := writeGen(t, gen.Options{Pattern: "stencil2d", Ranks: 16, Iters: 2, Compute: -1})
	rows := metricsRows(t, path, "--model", "packet", "--topology", "torus:4x4", "--sample-period", "20us")
	csvPath := filepath.Join(t.TempDir(), "metrics.csv")
	kinds := map[string]bool{}
	times := map[string]bool{}
	var delivered int
	for _, r := range rows[1:] {
		kinds[r[1]] = true
		times[r[0]] = true
		if r[1] == "network" && r[3] == "messages_delivered" {
			n, _ := strconv.Atoi(r[4])
			delivered += n
		}
		if r[1] == "link" && r[3] == "utilisation" {
			if u, err := strconv.ParseFloat(r[4], 64); err != nil || u <= 0 || u > 1 {
				t.Errorf("link utilisation %v", r)
			}
		}
	}
	// 16 ranks on a 4×4 stencil: 48 messages per iteration, 2
	// iterations, plus the allreduces' messages.
	for _, k := range []string{"network", "group", "link", "queue"} {
		if !kinds[k] {
			t.Errorf("no %s rows", k)
		}
	}
	if delivered < 96 || len(times) < 3 {
		t.Errorf("%d messages delivered over %d samples", delivered, len(times))
	}
	// Usage errors.
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{path, "--model", "puppet", "--metrics-out", csvPath}, "--metrics-out needs --model packet"},
		{[]string{path, "--model", "packet", "--topology", "torus:0x4"}, "--topology"},
		{[]string{path, "--model", "packet", "--topology", "torus:4x4", "--routing", "updown"}, "not valid on torus:4x4"},
		{[]string{path, "--placement", "nowhere"}, "unknown placement"},
	} {
		code, _, errs := simRun(t, tc.args...)
		if code != exitUsage || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 mentioning %q", tc.args, code, errs, tc.want)
		}
	}
}

// writeIncast writes a trace of ranks 0 and 1 each sending 10 MB to
// rank 2 at once and returns its path.
func writeIncast(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "incast.tsim")
	if err := os.WriteFile(path, []byte("tsim 1\nranks 3\nunit us\n"+
		"0 0 send to=2 tag=0 size=10000000\n0 1 send to=2 tag=1 size=10000000\n"+
		"0 2 recv from=0 tag=0 size=10000000\n0 2 recv from=1 tag=1 size=10000000\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// --metrics-out writes what each model measures and nothing else: the
// flow model the flows on each link, and none of the packet model's
// packet lines (they would be zeros that look measured); the packet model
// its packet lines and no flows. Ranks 0 and 1 (nodes 0 and 1 of
// torus:4x4, dor) each send 10 MB eagerly to rank 2: both flows cross
// r1 → r2 and node 2's ejection link, which carry 2 flows in every full
// period of 1 ms while both last; r0 → r1 carries one, and the links back
// only the crosstraffic, no flow.
func TestSimMetricsOutFlows(t *testing.T) {
	path := writeIncast(t)
	packetOnly := []string{"packets_delivered", "packets_in_flight", "long_waits", "packet_latency_mean_s", "packet_latency_max_s"}
	for _, tc := range []struct {
		model string
		// network lines per sample; flows of links at 2 ms (nil: no
		// flows lines at all)
		network int
		flows   map[string]string
	}{
		{"flow", 6, map[string]string{"r1.p0->r2.p1": "2", "r2.p4->n2": "2", "r0.p0->r1.p1": "1", "n0->r0.p4": "1", "n1->r1.p4": "1", "r2.p1->r1.p0": "0"}},
		{"packet", 11, nil},
	} {
		t.Run(tc.model, func(t *testing.T) {
			rows := metricsRows(t, path, "--model", tc.model, "--topology", "torus:4x4", "--eager-threshold", "100MB", "--sample-period", "1ms")
			network := map[string]int{} // network lines per sample
			flows := map[string]string{}
			metrics := map[string]bool{}
			for _, r := range rows[1:] {
				if r[1] == "network" {
					network[r[0]]++
					metrics[r[3]] = true
				}
				if r[1] == "link" && r[3] == "flows" {
					metrics["flows"] = true
					if r[0] == "0.002" {
						flows[r[2]] = r[4]
					}
				}
			}
			if len(network) < 10 {
				t.Fatalf("%d samples, want at least 10 (16 ms in periods of 1 ms)", len(network))
			}
			for ts, n := range network {
				if n != tc.network {
					t.Errorf("sample at %s s: %d network lines, want %d", ts, n, tc.network)
				}
			}
			for _, name := range packetOnly {
				if metrics[name] != (tc.model == "packet") {
					t.Errorf("network metric %s written: %v", name, metrics[name])
				}
			}
			if metrics["flows"] != (tc.flows != nil) {
				t.Errorf("flows lines written: %v", metrics["flows"])
			}
			for link, want := range tc.flows {
				if flows[link] != want {
					t.Errorf("link %s at 2 ms: flows %q, want %q", link, flows[link], want)
				}
			}
		})
	}
}

// TestSimPerfettoOutFlows runs the incast of TestSimMetricsOutFlows with
// --perfetto-out: the flow model writes a "flows" counter per link, with
// 2 on the two links both flows share, 1 on the three links one flow
// crosses alone and 0 on the links only the crosstraffic uses (the period
// 1–2 ms, written at its start); every track ends at zero once the flows
// have finished rather than hold its last count. The packet model counts
// no flows and has no such track.
func TestSimPerfettoOutFlows(t *testing.T) {
	path := writeIncast(t)
	for _, tc := range []struct {
		model string
		// flows per link in the period from 1 ms (nil: no flows tracks);
		// the links not listed carry none
		flows map[string]float64
	}{
		{"flow", map[string]float64{"r1.p0->r2.p1": 2, "r2.p4->n2": 2, "r0.p0->r1.p1": 1, "n0->r0.p4": 1, "n1->r1.p4": 1}},
		{"packet", nil},
	} {
		t.Run(tc.model, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "run.json")
			if code, _, errs := simRun(t, path, "--model", tc.model, "--topology", "torus:4x4", "--eager-threshold", "100MB",
				"--sample-period", "1ms", "--perfetto-out", out); code != exitOK {
				t.Fatalf("exit %d: %s", code, errs)
			}
			data, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := perfetto.Check(bytes.NewReader(data)); err != nil {
				t.Fatal(err)
			}
			var doc struct {
				TraceEvents []struct {
					Ph   string         `json:"ph"`
					Name string         `json:"name"`
					TS   float64        `json:"ts"`
					Args map[string]any `json:"args"`
				} `json:"traceEvents"`
			}
			if err := json.Unmarshal(data, &doc); err != nil {
				t.Fatal(err)
			}
			type point struct{ ts, v float64 }
			tracks := map[string][]point{} // link name → its flows counter
			for _, e := range doc.TraceEvents {
				if e.Ph != "C" {
					continue
				}
				link, ok := strings.CutPrefix(e.Name, "link ")
				if !ok || e.Name == "link utilisation" {
					continue
				}
				v, ok := e.Args["flows"].(float64)
				if !ok || len(e.Args) != 1 {
					t.Fatalf("%s at %v µs: args %v, want flows alone", e.Name, e.TS, e.Args)
				}
				tracks[link] = append(tracks[link], point{e.TS, v})
			}
			if tc.flows == nil {
				if len(tracks) != 0 {
					t.Errorf("%d flows tracks, want none: %v", len(tracks), tracks)
				}
				return
			}
			for link := range tc.flows {
				if tracks[link] == nil {
					t.Errorf("link %s: no flows track", link)
				}
			}
			for link, pts := range tracks {
				at := math.NaN()
				for _, p := range pts {
					if p.ts == 1000 {
						at = p.v
					}
				}
				if want := tc.flows[link]; math.IsNaN(at) || math.Abs(at-want) > 1e-9 {
					t.Errorf("link %s from 1 ms: flows %v, want %v", link, at, want)
				}
				// A flow's link drops to zero once its flow has gone
				// (where it goes idle, or at the last sample's end).
				if end := pts[len(pts)-1]; end.v != 0 || (tc.flows[link] != 0 && (len(pts) < 2 || pts[len(pts)-2].v == 0)) {
					t.Errorf("link %s ends with flows %v at %v µs, want 0 after its last flow", link, end.v, end.ts)
				}
			}
		})
	}
}

// A network deadlock exits with status 3 and shows the cycle of buffers.
func TestSimPacketDeadlock(t *testing.T) {
	path := writeTsim(t, 8, func(b *tracefmt.Builder) {
		for r := range 8 {
			b.Add(r, tracefmt.Send(0, (r+3)%8, 0, 0, 4096))
			b.Add(r, tracefmt.Recv(0, (r+5)%8, 0, 0, 4096))
		}
	})
	args := []string{path, "--model", "packet", "--topology", "ring:8", "--vcs", "1", "--buffer", "2", "--packet-size", "64B"}
	code, out, _ := simRun(t, append(args, "--routing", "dor:none")...)
	if code != exitFindings || !strings.Contains(out, "DEADLOCK") || !strings.Contains(out, "network: deadlock: a cycle of 8 buffers") {
		t.Errorf("exit %d:\n%s", code, out)
	}
	if code, out, _ := simRun(t, append(args, "--routing", "dor:bubble")...); code != exitOK {
		t.Errorf("bubble: exit %d:\n%s", code, out)
	}
}

// A run whose simulated time would pass the end of its range stops with
// exit 1 and the error instead of printing numbers that wrapped round.
func TestSimTimeRangeErrors(t *testing.T) {
	ring := writeGen(t, gen.Options{Pattern: "ring", Compute: -1, Seed: 1})
	dir := t.TempDir()
	ti := filepath.Join(dir, "big.txt")
	if err := os.WriteFile(ti, []byte("0 init\n0 compute 1e16\n0 finalize\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gib := filepath.Join(dir, "gib.txt")
	if err := os.WriteFile(gib, []byte("0 send 1 1073741824\n1 recv 0 1073741824\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args []string
		want string
	}{
		{[]string{ring, "--cpu-scale", "1e12"}, "tracesim sim: replay: simulated time would exceed 106.75 days (9,223,372 s, 2^63 ps) at rank 0, event 1: " +
			"compute of 100 µs × cpu-scale 1e+12 lasts 100000000 s (1157 days), starting at 0 s\n"},
		{[]string{ring, "--cpu-scale", "1e9"}, "at rank 4, event 645: compute of 100 µs × cpu-scale 1e+09 lasts 100000 s (1.157 days), starting at 9200000 s (106.5 days)\n"},
		{[]string{ring, "--cpu-scale", "1e12", "--cpu-from", "gaps"}, "at rank 0, event 2: the computation before it (100 µs recorded × cpu-scale 1e+12) lasts 100000000 s (1157 days), starting at 0 s\n"},
		{[]string{ti}, "at rank 0, event 1: compute of 10000 Tf at 1 Gf/s lasts 10000000 s (115.7 days), starting at 0 s\n"},
		{[]string{gib, "--model", "packet", "--bandwidth", "1b/s"}, "in the network: the packet network cannot deliver its traffic in time (1 messages in flight, the largest 1 GiB from rank 0 to rank 1)"},
	}
	for _, tc := range tests {
		code, out, errs := simRun(t, tc.args...)
		if code != exitFail || out != "" || !strings.Contains(errs, tc.want) {
			t.Errorf("sim %v: exit %d, stdout %q, stderr\n%s\nwant exit 1 and\n%s", tc.args[1:], code, out, errs, tc.want)
		}
	}
}

// A topology far too big for its 8 ranks is refused with its memory
// estimate, before the packet network allocates it.
func TestSimRefusesTopologyAboveTheMemoryLimit(t *testing.T) {
	ring := writeGen(t, gen.Options{Pattern: "ring", Compute: -1, Seed: 1})
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	code, out, errs := simRun(t, ring, "--model", "packet", "--topology", "torus:4096x4096")
	runtime.ReadMemStats(&after)
	want := "tracesim sim: packet: torus:4096x4096 has 16,777,216 nodes, 16,777,216 routers and 100,663,296 links; " +
		"its packet network (2 VCs × 4-packet buffers) would need about 61.54 GiB, above the limit of 3.725 GiB\n"
	if code != exitFail || out != "" || errs != want {
		t.Errorf("exit %d, stdout %q, stderr\n%s\nwant exit 1 and\n%s", code, out, errs, want)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 50<<20 {
		t.Errorf("refusing the topology allocated %d MB", got>>20)
	}
}

// The deadlock report of 256 ranks each waiting for 255 receives is a
// few kilobytes, in text and in JSON (2.5 MB of JSON before the bound).
func TestSimDeadlockReportIsBounded(t *testing.T) {
	const P = 256
	path := writeTsim(t, P, func(b *tracefmt.Builder) {
		for r := range P {
			for q := range P {
				if q != r {
					e := tracefmt.Recv(0, q, 0, 0, 8)
					e.Flags |= tracefmt.FlagNonBlocking
					e.SetRequest(int64(q + 1))
					b.Add(r, e)
				}
			}
			b.Add(r, tracefmt.WaitAll(0))
		}
	})
	code, out, errs := simRun(t, path)
	if code != exitFindings {
		t.Fatalf("exit %d: %s", code, errs)
	}
	report, _, _ := strings.Cut(out, "\nmakespan")
	lines := strings.Split(strings.TrimSpace(report), "\n")
	wantFirst := "  rank 0 in MPI_Waitall (event 255), waits for ranks [1 2 3 4 5 6 7 8 and 247 more]: a message from rank 1 (tag 0); " +
		"a message from rank 2 (tag 0); a message from rank 3 (tag 0); a message from rank 4 (tag 0); a message from rank 5 (tag 0); " +
		"a message from rank 6 (tag 0); a message from rank 7 (tag 0); a message from rank 8 (tag 0); and 247 more"
	wantLast := "  … 240 more blocked ranks: 240 in MPI_Waitall"
	if len(lines) != 20 || lines[3] != wantFirst || lines[19] != wantLast || len(report) > 8<<10 {
		t.Errorf("report of %d lines, %d bytes:\n%s\nwant 20 lines, rank 0 as\n%s\nand last\n%s", len(lines), len(report), report, wantFirst, wantLast)
	}
	code, out, _ = simRun(t, path, "--json")
	var res struct {
		Deadlock json.RawMessage `json:"deadlock"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if d := res.Deadlock; code != exitFindings || len(d) > 16<<10 || !bytes.Contains(d, []byte(`"blocked_total": 256`)) {
		t.Errorf("--json: exit %d, the deadlock report is %d bytes:\n%.400s", code, len(d), d)
	}
}

// TestSimStreamsTIIndex: sim streams a SimGrid index of per-rank files
// (newSim hands the engine the trace's header only) and reads a single
// file or a run that records its output whole; both ways print the same
// results.
func TestSimStreamsTIIndex(t *testing.T) {
	index := filepath.Join("..", "..", "testdata", "simgrid", "halo.txt")
	dir := t.TempDir()
	single := filepath.Join(dir, "halo.ti")
	if code, _, errs := tracesim(t, "convert", index, "-o", single, "--to", "ti"); code != exitOK {
		t.Fatalf("convert: exit %d: %s", code, errs)
	}
	e := &env{ctx: context.Background(), stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}}
	for _, tc := range []struct {
		path     string
		record   bool
		streamed bool
	}{{index, false, true}, {index, true, false}, {single, false, false}} {
		s, tr, done, err := newSim(e, tc.path, "", "auto", replay.Default(), replay.Options{RecordTrace: tc.record})
		if err != nil {
			t.Fatal(err)
		}
		done()
		if got := tr.NumEvents() == 0; got != tc.streamed || s == nil {
			t.Errorf("%s (record %v): streamed %v, want %v", filepath.Base(tc.path), tc.record, got, tc.streamed)
		}
	}
	results := func(args ...string) map[string]any {
		t.Helper()
		code, out, errs := simRun(t, append([]string{"--json", "--preset", "simgrid"}, args...)...)
		if code != exitOK {
			t.Fatalf("sim %v: exit %d: %s", args, code, errs)
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(out), &m); err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"file", "wall_s", "events_per_s", "trace_events_per_s"} {
			delete(m, k)
		}
		return m
	}
	streamed := results(index)
	whole := results(index, "--trace-out", filepath.Join(dir, "run.tsim"))
	fromSingle := results(single)
	if !reflect.DeepEqual(streamed, whole) || !reflect.DeepEqual(streamed, fromSingle) {
		t.Errorf("streamed results\n%v\ndiffer from the trace read whole\n%v\nor from its single file\n%v", streamed, whole, fromSingle)
	}
	if streamed["makespan_s"].(float64) <= 0 {
		t.Errorf("makespan %v", streamed["makespan_s"])
	}
}

// TestSimHelpDefaults: `tracesim sim --help` (fang's help through cobra)
// gives every setting's default and what its values mean, and says what
// an empty default stands for.
func TestSimHelpDefaults(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	code, out, errs := tracesim(t, "sim", "--help")
	if code != exitOK || errs != "" {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	lines := map[string]string{}
	for _, l := range strings.Split(out, "\n") {
		f := strings.Fields(l)
		for _, w := range f {
			if strings.HasPrefix(w, "--") && len(f) > 1 {
				lines[w[2:]] = strings.TrimSpace(l)
				break
			}
		}
	}
	tests := []struct {
		flag string
		want string // the line's text after the flag's names
	}{
		{"send", "[Mpi] send completion: auto (MPI: eager below the threshold, rendezvous above, Ssend synchronous), buffered (at issue), " +
			"synchronous (when received), nospace (when arrived), recorded (auto, but sends the recorded run completed before their receive was " +
			"posted are buffered). Eager: the send completes at once, its data leaving without waiting for the receive; rendezvous: the data " +
			"moves once the receive is posted and the send completes when it has arrived (default recorded)"},
		{"eager-threshold", "[Mpi] messages of this size and more use the rendezvous protocol (B, KB, KiB, MB, MiB) (default 64KiB)"},
		{"seed", "[Replay] seed of the simulation's random choices (default 1)"},
		{"model", "(default flow)"},
		{"hops", "[Network] distance between distinct nodes in links (0: the topology's; 1 on the complete graph) (default 0)"},
		{"map", "[Cpu] PUPPET placement map P1 … Pn: rank j runs on node P[j mod n] (blank- or comma-separated; empty: none, --ranks-per-node places the ranks)"},
		{"routing", "(empty: the topology's default deadlock-free routing)"},
	}
	for _, tc := range tests {
		if l := lines[tc.flag]; !strings.HasSuffix(l, tc.want) {
			t.Errorf("--%s: help line %q, want it to end %q", tc.flag, l, tc.want)
		}
	}
	def := replay.Default()
	for _, s := range replay.Settings() {
		l, ok := lines[s.Key]
		if !ok {
			t.Errorf("--%s: not in the help", s.Key)
			continue
		}
		d := s.Get(&def)
		if want := "(default " + d + ")"; d != "" && !strings.HasSuffix(l, want) {
			t.Errorf("--%s: help line %q does not end %q", s.Key, l, want)
		}
		if d == "" && !strings.Contains(l, "empty:") {
			t.Errorf("--%s: help line %q does not say what its empty default means", s.Key, l)
		}
	}
}

// A random placement without seed= takes --seed: `--placement random
// --seed S` is `--placement random:seed=S` (seed 1 by default, as
// before), and seeds 1 and 2 place the ranks, and so time the run,
// differently.
func TestSimRandomPlacementSeed(t *testing.T) {
	tr := filepath.Join(t.TempDir(), "ring.tsim")
	if code, _, errs := tracesim(t, "gen", "ring", "--ranks", "8", "-o", tr); code != exitOK {
		t.Fatal(errs)
	}
	makespan := func(args ...string) string {
		t.Helper()
		code, out, errs := tracesim(t, append([]string{"sim", tr, "--topology", "torus:4x4", "--json"}, args...)...)
		if code != exitOK {
			t.Fatalf("sim %v: exit %d: %s", args, code, errs)
		}
		m := regexp.MustCompile(`"makespan_s": ([0-9.e-]+)`).FindStringSubmatch(out)
		if m == nil {
			t.Fatalf("sim %v: no makespan in %s", args, out)
		}
		return m[1]
	}
	one, two := makespan("--placement", "random:seed=1"), makespan("--placement", "random:seed=2")
	if one == two {
		t.Fatalf("seeds 1 and 2 give makespan %s both: the test shows nothing", one)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--placement", "random"}, one},
		{[]string{"--placement", "random", "--seed", "1"}, one},
		{[]string{"--placement", "random", "--seed", "2"}, two},
		{[]string{"--placement", "random:seed=1", "--seed", "2"}, one},
	} {
		if got := makespan(c.args...); got != c.want {
			t.Errorf("sim %v: makespan %s, want %s", c.args, got, c.want)
		}
	}
}
