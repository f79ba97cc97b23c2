package simgrid

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

func TestWritePlatform(t *testing.T) {
	var b strings.Builder
	c := Cluster{Hosts: 4, Speed: 1e9, Bandwidth: 125e6, Latency: 5e-6}
	if err := c.WritePlatform(&b); err != nil {
		t.Fatal(err)
	}
	want := `<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <cluster id="cluster" prefix="host" suffix="" radical="0-3" speed="1e+09f"
           bw="1.25e+08Bps" lat="5e-06s" sharing_policy="SPLITDUPLEX"/>
</platform>
`
	if b.String() != want {
		t.Errorf("platform:\n%s\nwant:\n%s", b.String(), want)
	}
	b.Reset()
	torus := Cluster{Hosts: 8, Speed: 1e9, Bandwidth: 125e6, Latency: 5e-6, Sharing: "SHARED", Attrs: `topology="TORUS" topo_parameters="4,2"`}
	if err := torus.WritePlatform(&b); err != nil {
		t.Fatal(err)
	}
	if want := `bw="1.25e+08Bps" lat="5e-06s" sharing_policy="SHARED" topology="TORUS" topo_parameters="4,2"/>`; !strings.Contains(b.String(), want) {
		t.Errorf("torus platform:\n%s\nwant %s", b.String(), want)
	}
	b.Reset()
	if err := c.WriteHostfile(&b, 6); err != nil {
		t.Fatal(err)
	}
	if want := "host0\nhost1\nhost2\nhost3\nhost0\nhost1\n"; b.String() != want {
		t.Errorf("hostfile %q, want %q", b.String(), want)
	}
}

func TestClusterErrors(t *testing.T) {
	for _, c := range []struct {
		cluster Cluster
		want    string
	}{
		{Cluster{Hosts: 0, Speed: 1, Bandwidth: 1}, "at least one host"},
		{Cluster{Hosts: 1, Speed: 0, Bandwidth: 1}, "host speed 0"},
		{Cluster{Hosts: 1, Speed: 1, Bandwidth: -1}, "bandwidth -1"},
		{Cluster{Hosts: 1, Speed: 1, Bandwidth: 1, Latency: -1}, "latency -1"},
		{Cluster{Hosts: 1, Speed: 1, Bandwidth: 1, Sharing: "WIFI"}, `unknown sharing policy "WIFI"`},
	} {
		err := c.cluster.WritePlatform(&strings.Builder{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want …%s…", c.cluster, err, c.want)
		}
	}
}

func TestSafePath(t *testing.T) {
	for p, want := range map[string]bool{
		"/tmp/run-1/trace.txt": true, "a,b": false, "a b": false, "x:y": false, "tr.txt_files/r+1.txt": true,
	} {
		if safePath(p) != want {
			t.Errorf("safePath(%q) = %v", p, !want)
		}
	}
}

func needSimGrid(t *testing.T) {
	t.Helper()
	if _, err := Path(); err != nil {
		t.Skip("SimGrid's smpirun is not installed (Debian package libsimgrid-dev)")
	}
}

// TestRunPingPong replays the ping-pong of models.md: 1.200036 s.
func TestRunPingPong(t *testing.T) {
	needSimGrid(t)
	dir := t.TempDir()
	trace := "0 init\n1 init\n0 compute 1e9\n0 send 1 0 1000 6\n0 recv 1 0 1000 6\n0 finalize\n" +
		"1 compute 5e8\n1 recv 0 0 1000 6\n1 compute 2e8\n1 send 0 0 1000 6\n1 finalize\n"
	if err := os.WriteFile(filepath.Join(dir, "pp.txt"), []byte(trace), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "index"), []byte("pp.txt\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := Run(ctx, Replay{
		Index: filepath.Join(dir, "index"), Ranks: 2,
		Cluster: Cluster{Hosts: 2, Speed: 1e9, Bandwidth: 125e6, Latency: 5e-6},
		Config:  []string{"network/model:CM02"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.SimulatedTime != 1.200036 {
		t.Errorf("simulated time %v, want 1.200036", res.SimulatedTime)
	}
	if !strings.Contains(strings.Join(res.Args, " "), "-replay index") {
		t.Errorf("command %q does not replay the index", res.Args)
	}
	// The simulator is a process of several MB that smpirun waits for.
	if runtime.GOOS == "linux" && res.PeakRSS < 1<<20 {
		t.Errorf("peak RSS %d B: want that of the SimGrid process (> 1 MiB)", res.PeakRSS)
	}
	if res.Wall <= 0 || res.CPU <= 0 {
		t.Errorf("wall time %v, CPU time %v, want > 0", res.Wall, res.CPU)
	}
}

// TestRunFailures: SimGrid's errors come back with its output.
func TestRunFailures(t *testing.T) {
	needSimGrid(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "bad.txt"), []byte("0 init\n0 fly 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "index"), []byte("bad.txt\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := Cluster{Hosts: 1, Speed: 1e9, Bandwidth: 1e9}
	ctx := context.Background()
	_, err := Run(ctx, Replay{Index: filepath.Join(dir, "index"), Ranks: 1, Cluster: c})
	if err == nil || !strings.Contains(err.Error(), "action fly is unknown") {
		t.Errorf("error %v, want SimGrid's complaint about the unknown action", err)
	}
	if _, err := Run(ctx, Replay{Index: filepath.Join(dir, "index"), Ranks: 0, Cluster: c}); err == nil {
		t.Error("no error for 0 ranks")
	}
	if _, err := Run(ctx, Replay{Index: filepath.Join(dir, "a,b"), Ranks: 1, Cluster: c}); err == nil || !strings.Contains(err.Error(), "without blanks, commas") {
		t.Errorf("error %v for an index name with a comma", err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := Run(cancelled, Replay{Index: filepath.Join(dir, "index"), Ranks: 1, Cluster: c}); err == nil || !strings.Contains(err.Error(), "context canceled") {
		t.Errorf("error %v for a cancelled run", err)
	}
}
