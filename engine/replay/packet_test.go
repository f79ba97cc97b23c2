package replay

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracesim/tracesim/engine/des"
	"github.com/tracesim/tracesim/engine/netmodel"
)

// A message through the packet model takes the zero-load latency of
// engine/packet, and the run reports the network's measurements.
func TestPacketModelPingPong(t *testing.T) {
	p := newProg(t, 2)
	p.send(0, 1, 0, 1000).recv(0, 1, 0, 1000)
	p.recv(1, 0, 0, 1000).send(1, 0, 0, 1000)
	tr := p.trace()
	// Ranks 0 and 1 on nodes 0 and 27 of an 8×8 torus: 3 + 3 router
	// hops, 8 links, 7 routers. 1000 B in 48-byte packets: 21 packets,
	// 1336 wire bytes at 800 ps/B; 10 ns links, 20 ns routers.
	cfg := cfgWith(t, "model", "packet", "topology", "torus:8x8", "placement", "map:0,27", "packet-size", "48B", "header", "16B",
		"router-delay", "20ns", "link-latency", "10ns", "bandwidth", "10Gb/s", "mode", "causal")
	_, res := simulate(t, tr, cfg, Options{})
	oneWay := des.Time(1336*800) + 8*10*des.Nanosecond + 7*20*des.Nanosecond
	if !near(res.Makespan, (2*oneWay).Seconds()) || !res.Complete {
		t.Fatalf("makespan %v, want 2 × %v", res.Makespan, oneWay)
	}
	n := res.Network
	if n == nil || n.Spec != "torus:8x8" || n.Routing != "dor" || n.Packets != 42 || n.Hops != 42*8 || n.Delivered != 2 ||
		n.Topology == nil || n.Layout == nil || len(n.Links) != 2*8 || n.VCs != 2 || n.Buffer != 4 {
		t.Fatalf("network results: %+v", n)
	}
	if res.Ranks[1].Node != 27 {
		t.Errorf("rank 1 on node %d, want 27", res.Ranks[1].Node)
	}
}

// The analytic models take their distances from the topology.
func TestTopologyDistanceForAnalyticModels(t *testing.T) {
	p := newProg(t, 2)
	p.send(0, 1, 0, 1000).recv(1, 0, 0, 1000)
	tr := p.trace()
	base := []string{"switching", "store-and-forward", "startup", "10us", "per-byte", "0.1us", "mode", "causal"}
	for _, tc := range []struct {
		kv   []string
		hops int
	}{
		{nil, 1},
		{[]string{"topology", "torus:8x8", "placement", "map:0,27"}, 6},
		{[]string{"topology", "torus:8x8", "placement", "map:0,27", "hops", "2"}, 2},
		{[]string{"topology", "fattree:k=4,levels=3", "placement", "map:0,63"}, 6},
		{[]string{"topology", "ring:8", "ranks-per-node", "2"}, 0}, // one node: no network
	} {
		_, res := simulate(t, tr, cfgWith(t, append(append([]string{}, base...), tc.kv...)...), Options{})
		if want := float64(tc.hops) * 110e-6; !near(res.Makespan, want) {
			t.Errorf("%v: makespan %v, want %v", tc.kv, res.Makespan, want)
		}
	}
}

// A torus with one VC and plain dimension order deadlocks under an
// adversarial pattern; the replay reports the cycle of full buffers. Bubble
// flow control completes it.
func TestPacketNetworkDeadlockReported(t *testing.T) {
	// Every rank of one row of an 8×8 torus sends 2 KiB to the rank 3
	// to its right, all at once: every x+ buffer of the row fills.
	p := newProg(t, 8)
	for r := 0; r < 8; r++ {
		p.isend(r, (r+3)%8, 0, 2048)
		p.irecv(r, (r+5)%8, 0, 2048)
		p.waitall(r)
	}
	tr := p.trace()
	kv := []string{"model", "packet", "topology", "torus:8x8", "vcs", "1", "buffer", "2", "packet-size", "64B", "mode", "causal"}
	_, res := simulate(t, tr, cfgWith(t, append(kv, "routing", "dor:none")...), Options{})
	d := res.Deadlock
	if res.Complete || d == nil || d.NetworkStall == nil {
		t.Fatalf("no network deadlock reported: %+v", d)
	}
	st := d.NetworkStall
	if len(st.Cycle) != 9 || st.Waiting == 0 || st.FullCount < 8 {
		t.Fatalf("stall %+v", st)
	}
	for _, b := range st.Cycle {
		if b.Port != 1 || b.Packets != b.Capacity || !strings.Contains(b.Where, "x- side") {
			t.Errorf("cycle buffer %+v is not a full input of x+ traffic", b)
		}
	}
	if !strings.HasPrefix(d.Message, "deadlock: network packets wait for each other in a cycle of 8 full buffers") ||
		!strings.Contains(d.Message, "8 messages stuck in the network") || len(d.Network) < 2 || len(d.Blocked) != 8 {
		t.Errorf("report: %s\n%s", d.Message, strings.Join(d.Network, "\n"))
	}
	_, res = simulate(t, tr, cfgWith(t, append(kv, "routing", "dor:bubble")...), Options{})
	if !res.Complete || res.Deadlock != nil || res.Network.Delivered != 8 {
		t.Fatalf("bubble flow control: complete %v, deadlock %+v", res.Complete, res.Deadlock)
	}
}

// Messages stuck in the network are reported even when every rank has
// finished (inject mode ends a rank once its sends have left it).
func TestPacketStallAfterRanksFinish(t *testing.T) {
	p := newProg(t, 8)
	for r := 0; r < 8; r++ {
		p.send(r, (r+3)%8, 0, 2048)
	}
	tr := p.trace()
	cfg := cfgWith(t, "model", "packet", "topology", "ring:8", "routing", "dor:none", "vcs", "1", "buffer", "4",
		"packet-size", "64B", "mode", "inject")
	_, res := simulate(t, tr, cfg, Options{})
	if res.Deadlock == nil || res.Deadlock.NetworkStall == nil || res.Complete {
		t.Fatalf("stall not reported: complete %v, %+v", res.Complete, res.Deadlock)
	}
}

// Samples reach Options.OnSample and the snapshot carries the network's
// links and buffers with the topology to draw them.
func TestPacketSamplesAndSnapshot(t *testing.T) {
	p := newProg(t, 16)
	for r := 0; r < 16; r++ {
		p.send(r, (r+5)%16, 0, 10000)
		p.recv(r, (r+11)%16, 0, 10000)
	}
	tr := p.trace()
	cfg := cfgWith(t, "model", "packet", "topology", "torus:4x4", "packet-size", "256B", "sample-period", "100ns", "mode", "causal")
	var samples int
	var bytes int64
	s, err := New(tr, cfg, Options{OnSample: func(sm *netmodel.Sample) {
		samples++
		for _, g := range sm.Groups {
			if g.Name == "eject" {
				bytes += g.Bytes
			}
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	for s.Step() {
	}
	sn := s.Snapshot()
	n := sn.Net
	if n.Topology == nil || n.Layout == nil || n.Layout.Stride != 2 || len(n.Layout.Coords) != 32 ||
		len(n.Queues) != 16*5*2 || len(n.NICs) != 16 || n.Delivered != 16 {
		t.Fatalf("snapshot network: topology %v layout %+v, %d queues, %d NICs, %d delivered",
			n.Topology, n.Layout, len(n.Queues), len(n.NICs), n.Delivered)
	}
	if c := n.Layout.RouterCoords(6); c[0] != 2 || c[1] != 1 {
		t.Errorf("router 6 at %v, want (2,1)", c)
	}
	var linkBytes int64
	for _, l := range n.Links {
		if l.ToNode {
			linkBytes += l.Bytes
		}
	}
	// 16 messages of 10000 B in 40 packets of ≤ 256 B, 16-byte headers.
	if want := int64(16 * (10000 + 40*16)); linkBytes != want || bytes != want || samples < 10 {
		t.Errorf("ejected %d B in the snapshot, %d B in %d samples; want %d", linkBytes, bytes, samples, want)
	}
}

// Configuration files carry the machine; relative file: specs are read
// from the file's directory.
func TestMachineSettingsInConfigFiles(t *testing.T) {
	dir := t.TempDir()
	net := "router a\nrouter b\nlink a b\nnode n0 a\nnode n1 b\n"
	if err := os.WriteFile(filepath.Join(dir, "net.txt"), []byte(net), 0o644); err != nil {
		t.Fatal(err)
	}
	conf := filepath.Join(dir, "machine.toml")
	toml := "model = \"packet\"\n[network]\ntopology = \"file:net.txt\"\nrouting = \"minimal\"\n[packet]\nvcs = 1\nbuffer = 8\nrouter-delay = \"5ns\"\n"
	if err := os.WriteFile(conf, []byte(toml), 0o644); err != nil {
		t.Fatal(err)
	}
	c := Default()
	if err := c.LoadFile(conf); err != nil {
		t.Fatal(err)
	}
	if c.Topology != "file:"+filepath.Join(dir, "net.txt") || c.Buffer != 8 || c.VCs != 1 || c.RouterDelay != 5*des.Nanosecond {
		t.Fatalf("loaded %+v", c)
	}
	p := newProg(t, 2)
	p.send(0, 1, 0, 100).recv(1, 0, 0, 100)
	_, res := simulate(t, p.trace(), c, Options{})
	if !res.Complete || res.Network.Hops != 3 {
		t.Errorf("custom graph run: complete %v, %d hops", res.Complete, res.Network.Hops)
	}
}

func TestMachineSettingErrors(t *testing.T) {
	tests := []struct {
		kv   []string
		want string
	}{
		{[]string{"topology", "torus:0x8"}, "dimension 1 is 0"},
		{[]string{"placement", "scatter"}, "unknown placement"},
		{[]string{"model", "packet", "vcs", "0"}, "vcs: 0 virtual channels"},
		{[]string{"model", "packet", "buffer", "0"}, "buffer: 0 packets"},
		{[]string{"placement", "block:2", "ranks-per-node", "2"}, "placement: cannot be combined with ranks-per-node"},
		{[]string{"model", "packet", "topology", "torus:4x4", "routing", "updown"}, "routing \"updown\" is not valid on torus:4x4"},
		{[]string{"model", "packet", "topology", "torus:4x4", "vcs", "1", "routing", "dor"}, "needs at least 2 virtual channels"},
		{[]string{"model", "packet", "bandwidth", "inf"}, "packet model needs a finite bandwidth"},
	}
	for _, tc := range tests {
		c := Default()
		var err error
		for i := 0; i+1 < len(tc.kv) && err == nil; i += 2 {
			err = c.Set(tc.kv[i], tc.kv[i+1])
		}
		if err == nil {
			err = c.Validate()
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want %q", tc.kv, err, tc.want)
		}
	}
	// Placements that do not fit the topology fail when the run starts.
	p := newProg(t, 20)
	for r := range 20 {
		p.compute(r, 1)
	}
	if _, err := New(p.trace(), cfgWith(t, "topology", "torus:4x4"), Options{}); err == nil || !strings.Contains(err.Error(), "placement") {
		t.Errorf("20 ranks on 16 nodes: %v", err)
	}
}

// A UI goroutine reads snapshots of a packet-model run while it runs
// (go test -race checks that they share nothing mutable).
func TestPacketSnapshotsWhileRunning(t *testing.T) {
	p := newProg(t, 16)
	for r := 0; r < 16; r++ {
		for i := 0; i < 20; i++ {
			p.send(r, (r+5+i)%16, 0, 4000)
			p.recv(r, (r+11-i+32)%16, 0, 4000)
		}
	}
	cfg := cfgWith(t, "model", "packet", "topology", "torus:4x4", "packet-size", "256B", "sample-period", "1us", "mode", "causal")
	s, err := New(p.trace(), cfg, Options{CheckEvery: 64})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	seen := make(chan int)
	started := make(chan struct{})
	go func() {
		n := 0
		close(started)
		for {
			// One snapshot at least, however late the scheduler runs
			// this goroutine on a loaded machine.
			if n > 0 {
				select {
				case <-done:
					seen <- n
					return
				default:
				}
			}
			sn := s.Snapshot()
			var busy float64
			for _, l := range sn.Net.Links {
				busy += l.Busy + l.Utilisation
			}
			for _, q := range sn.Net.Queues {
				if q.Cur > q.Capacity {
					t.Errorf("queue %+v over capacity", q)
				}
			}
			_ = sn.Net.Layout.RouterCoords(5)
			_ = sn.Net.Topology.Link(0)
			n++
		}
	}()
	<-started
	if err := s.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	close(done)
	<-seen // the reader has stopped: its errors are reported before the test ends
	if res := s.Results(); !res.Complete {
		t.Fatalf("incomplete: %+v", res.Deadlock)
	}
}
