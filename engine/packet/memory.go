package packet

import (
	"fmt"
	"strconv"
	"unsafe"

	"github.com/tracesim/tracesim/engine/des"
	"github.com/tracesim/tracesim/engine/topology"
	"github.com/tracesim/tracesim/tracefmt/units"
)

// DefaultMemoryLimit is the largest memory estimate (MemoryEstimate) of a
// network New builds when Config.MemoryLimit is 0: 4 GB, well above the
// 65,536-node torus of the project's benchmarks (about 0.24 GB) and below
// what a mistyped size (torus:4096x4096, 16.7 M routers) would take.
const DefaultMemoryLimit = 4e9

// MemoryEstimate returns about how many bytes New allocates for a network
// on t with vcs virtual channels per port and buffers of buffer packets,
// sampling or not, before any traffic: its ports, links, buffers, network
// interfaces and routing tables. It walks the routers once and allocates
// nothing, so a size can be refused before the network exists. The
// buffers' packets take room only as traffic fills them (a record per
// packet in flight).
func MemoryEstimate(t topology.Topology, vcs, buffer int, sampling bool) int64 {
	R := int64(t.NumRouters())
	L := int64(t.NumLinks())
	N := int64(t.NumNodes())
	// Injection lanes (nic): one per node, plus one per port towards a
	// router for nodes alone on their router — taken here as every node
	// when there are as many nodes as routers (direct networks).
	lanes := N
	ports := int64(0)
	for r := 0; r < int(R); r++ {
		ports += int64(t.NumPorts(r))
		if N == R {
			if k := routerPorts(t, r); k > 1 {
				lanes += int64(k)
			}
		}
	}
	rports := ports    // the routers' ports, the only outputs
	ports += lanes - N // every lane but a node's first has a buffer of its own
	V := int64(max(vcs, 1))
	ivs := ports * V
	const time = int64(unsafe.Sizeof(des.Time(0)))
	bytes := (R+1)*4 + // portBase
		ports*int64(unsafe.Sizeof(port{})) + // ports
		rports*(int64(unsafe.Sizeof([]waiter(nil)))+time+V*int64(unsafe.Sizeof(outVC{}))) + // waiters, wakeAt, outs
		(rports+63)/64*8 + // waited
		L*(int64(unsafe.Sizeof(link{}))+1) + // links, linkGroup
		ivs*int64(unsafe.Sizeof(inBuf{})) + // ins
		lanes*int64(unsafe.Sizeof(nic{})) + // nics
		(N+1)*4 // nodeLane
	if lanes != N {
		bytes += N*int64(unsafe.Sizeof(nodeQueue{})) + lanes*4 // nq, laneOut
	}
	if B := int64(max(buffer, 1)); B > outRing {
		bytes += (rports*V + lanes) * B * time // pend, lanePend
	}
	if sampling {
		// Samples nobody reads (no OnSample) keep two state copies per
		// link and router buffer, more than the marks of samples read period
		// by period (L*(2*time+4) + ivs*(8+4+2)).
		bytes += L*int64(unsafe.Sizeof([2]linkSnap{})) + rports*V*int64(unsafe.Sizeof([2]bufSnap{}))
	}
	if _, ok := t.(*topology.Graph); ok {
		// Routing on a graph keeps two 16-bit distances per router and
		// destination router (engine/routing); at most every router has
		// nodes.
		bytes += 4 * R * min(R, N)
	}
	return bytes
}

// checkMemory refuses a network whose estimate is above the limit.
func checkMemory(cfg *Config) error {
	limit := cfg.MemoryLimit
	if limit == 0 {
		limit = DefaultMemoryLimit
	}
	est := MemoryEstimate(cfg.Topology, cfg.VCs, cfg.Buffer, cfg.SamplePeriod > 0)
	if est <= limit {
		return nil
	}
	t := cfg.Topology
	return fmt.Errorf("packet: %s has %s nodes, %s routers and %s links; its packet network (%d VCs × %d-packet buffers) would need about %s, above the limit of %s",
		t.Spec(), thousands(int64(t.NumNodes())), thousands(int64(t.NumRouters())), thousands(int64(t.NumLinks())),
		cfg.VCs, cfg.Buffer, units.FormatBytes(est), units.FormatBytes(limit))
}

// thousands writes n with commas between groups of three digits.
func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
