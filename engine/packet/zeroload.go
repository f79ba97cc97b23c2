package packet

import (
	"fmt"
	"math"

	"github.com/tracesim/tracesim/engine/des"
	"github.com/tracesim/tracesim/engine/routing"
	"github.com/tracesim/tracesim/engine/topology"
)

// ZeroLoad is the analytic latency of a message of the given payload from
// node src to node dst through an empty network, over the route alg takes
// there (routing.Path): the cut-through zero-load latency of Dally and
// Towles,
//
//	T0 = Σ_k p_k / b + Σ_links latency + R · routerDelay
//
// where p_k are the wire sizes of the message's packets (payload of at
// most packetSize, 0 meaning one packet, plus header), b the bandwidth of
// the slowest link of the route, and R the number of routers crossed. The
// packet model gives exactly T0 when the route's links share one bandwidth
// and the buffers stream ((buffer − 1)·p/b ≥ 2·latency + routerDelay), and
// for a single packet whenever routerDelay is 0.
func ZeroLoad(alg routing.Algorithm, src, dst int, bytes, packetSize, header int64, routerDelay des.Time) (des.Time, error) {
	if src == dst {
		return 0, nil
	}
	t := alg.Topology()
	hops, err := routing.Path(alg, src, dst)
	if err != nil {
		return 0, err
	}
	links := []topology.LinkID{t.InjectLink(src)}
	for _, h := range hops {
		links = append(links, h.Link)
		if m := t.Medium(h.Router); m != topology.NoLink {
			links = append(links, m)
		}
	}
	var lat des.Time
	bw := math.Inf(1)
	for _, id := range links {
		l := t.Link(id)
		if !l.Valid {
			return 0, fmt.Errorf("packet: route from node %d to node %d uses link %d, which does not exist", src, dst, id)
		}
		lat += des.Time(l.Props.Latency)
		bw = min(bw, l.Props.Bandwidth)
	}
	wire := bytes
	packets := int64(1)
	if packetSize > 0 && bytes > 0 {
		packets = (bytes + packetSize - 1) / packetSize
	}
	wire += packets * header
	routers := des.Time(len(hops))
	return des.Time(math.Round(float64(wire)*1e12/bw)) + lat + routers*routerDelay, nil
}

// Estimate is the zero-load latency of a message of the given size between
// nodes 0 and 1 (neighbours in most numberings), for the analytic
// collective model (netmodel.Estimator).
func (n *Network) Estimate(bytes int64) des.Time {
	if n.topo.NumNodes() < 2 {
		return 0
	}
	t, err := ZeroLoad(n.alg, 0, 1, bytes, n.cfg.PacketSize, n.cfg.Header, n.delay)
	if err != nil {
		return 0
	}
	return t
}
