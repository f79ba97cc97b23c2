package platform

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/tracesim/tracesim/engine/topology"
	"github.com/tracesim/tracesim/tracefmt/units"
)

// radicals expands SimGrid's radical list "0-15" or "1-4,6,9-11".
func radicals(s string) ([]int, error) {
	var out []int
	for _, group := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(group, "-")
		a, err := strconv.Atoi(strings.TrimSpace(lo))
		if err != nil {
			return nil, fmt.Errorf("%q is not a number or a range FIRST-LAST", group)
		}
		z := a
		if isRange {
			if z, err = strconv.Atoi(strings.TrimSpace(hi)); err != nil {
				return nil, fmt.Errorf("%q is not a range FIRST-LAST", group)
			}
		}
		if z < a {
			return nil, fmt.Errorf("range %q ends before it starts", group)
		}
		if len(out)+z-a+1 > topology.MaxNodes {
			return nil, fmt.Errorf("more than %d hosts", topology.MaxNodes)
		}
		for i := a; i <= z; i++ {
			out = append(out, i)
		}
	}
	return out, nil
}

// positiveInts reads "4,4" or "2,4" (split on sep): SimGrid's topology
// parameter vectors.
func positiveInts(s, sep, what string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, sep) {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("%s: %q is not a whole number ≥ 1", what, f)
		}
		out = append(out, n)
	}
	return out, nil
}

func (p *parser) cluster(a *attrs, line int) error {
	bad := func(format string, args ...any) error { return p.errAt(line, "cluster", format, args...) }
	if err := p.claim(line, "cluster"); err != nil {
		return err
	}
	hr, err := p.hostRange(a, line)
	if err != nil {
		return err
	}
	id, prefix, suffix, nums, speed, link := hr.id, hr.prefix, hr.suffix, hr.nums, hr.speed, hr.link
	bw, lat := link.Bandwidth, link.Latency
	cores, err := a.cores()
	if err != nil {
		return err
	}
	pl := &Platform{File: p.file, Speed: speed, Cores: cores, Link: link, Uniform: true}
	if _, ok := a.m["sharing_policy"]; ok {
		pl.SharingLine = line
	}
	if pl.Sharing, err = a.sharing(SplitDuplex); err != nil {
		return err
	}
	if pl.Sharing == FatPipe {
		// SimGrid 3.32 builds a cluster's links as one link of the
		// default policy unless they are SPLITDUPLEX: a cluster's
		// FATPIPE links are SHARED (smpirun gives the same times).
		pl.Sharing = Shared
	}
	// A backbone is a link every message between two hosts of a FLAT
	// cluster crosses, between the sender's link and the receiver's.
	if err := clusterBackbone(a, pl, line); err != nil {
		return err
	}
	a.get("router_id") // a name only: the cluster's router is the topology's switch
	if v, ok := a.get("limiter_link"); ok && v != "" {
		if pl.Limiter, err = a.bandwidth("limiter_link"); err != nil {
			return err
		}
		pl.LimiterLine = line
	}
	lbw, hasLBW := a.get("loopback_bw")
	llat, hasLLat := a.get("loopback_lat")
	if (hasLBW && lbw != "") || (hasLLat && llat != "") {
		lp := topology.LinkProps{}
		if hasLBW && lbw != "" {
			if lp.Bandwidth, err = a.bandwidth("loopback_bw"); err != nil {
				return err
			}
		}
		if hasLLat && llat != "" {
			if lp.Latency, err = a.latency("loopback_lat"); err != nil {
				return err
			}
		}
		pl.Loopback, pl.LoopbackLine, pl.LoopbackFatPipe = &lp, line, true
	}
	kind, hasKind := a.get("topology")
	if !hasKind {
		kind = "FLAT"
	}
	params, _ := a.get("topo_parameters")
	if err := a.finish(); err != nil {
		return err
	}
	var t topology.Topology
	var shape string
	opt := topology.Options{Link: &link, Terminal: &link}
	if pl.Backbone != nil && kind != "FLAT" && kind != "STAR" {
		// smpirun 3.32 gives the same times with and without it.
		return bad("bb_bw: SimGrid 3.32 builds no backbone in a %s cluster (it ignores bb_bw and bb_lat there): remove them", kind)
	}
	switch kind {
	case "FLAT", "STAR":
		if params != "" {
			return bad("topo_parameters=%q: a FLAT cluster takes none", params)
		}
		t, err = topology.ParseWith("crossbar:"+strconv.Itoa(len(nums)), opt)
		shape = "star"
		if err == nil && pl.Backbone != nil {
			t = topology.NewCrossbar(len(nums), link, pl.Backbone)
		}
	case "TORUS":
		t, shape, err = torus(params, len(nums), link)
		if err == nil {
			dims, _ := positiveInts(params, ",", "topo_parameters")
			pl.Hops = torusHops(dims, pl.Limiter > 0)
		}
	case "FAT_TREE":
		t, shape, err = fatTree(params, len(nums), link)
	case "DRAGONFLY":
		t, shape, err = dragonfly(params, len(nums), link, p.file+"#"+id)
		if err == nil {
			// dragonfly checked the parameters: G,B;C,K;R,N;H.
			parts := strings.Split(params, ";")
			c, _ := positiveInts(parts[1], ",", "chassis")
			r, _ := positiveInts(parts[2], ",", "routers")
			n, _ := positiveInts(parts[3], ",", "hosts")
			pl.Hops = dragonflyHops(c[0], r[0], n[0], pl.Limiter > 0)
			pl.RouterLimiters = pl.Limiter > 0
		}
	default:
		return bad("topology=%q (expected FLAT, TORUS, FAT_TREE or DRAGONFLY)", kind)
	}
	if err != nil {
		return bad("%v", err)
	}
	pl.Topology = t
	pl.Hosts = make([]string, len(nums))
	for i, r := range nums {
		pl.Hosts[i] = prefix + strconv.Itoa(r) + suffix
	}
	hosts := fmt.Sprintf("%d hosts", len(nums))
	if cores > 1 {
		hosts += fmt.Sprintf(" of %d cores", cores)
	}
	pl.Summary = fmt.Sprintf("cluster %s: %s of %s, %s, %s links", id, shape, hosts, units.FormatRate(bw), units.FormatDuration(float64(lat)/1e12))
	if bb := pl.Backbone; bb != nil {
		pl.Summary += fmt.Sprintf(", a %s, %s %s backbone", units.FormatRate(bb.Bandwidth), units.FormatDuration(float64(bb.Latency)/1e12), pl.BackboneSharing)
	}
	p.network = pl
	return nil
}

// hostRange is what a <cluster> and a <cabinet> say alike: their id, the
// hosts prefix+radical+suffix, their speed and their links.
type hostRange struct {
	id, prefix, suffix string
	nums               []int
	speed              float64
	link               topology.LinkProps
}

// hostRange reads a <cluster>'s or <cabinet>'s id, prefix, suffix,
// radical, speed, bw and lat.
func (p *parser) hostRange(a *attrs, line int) (hostRange, error) {
	var hr hostRange
	var err error
	if hr.id, err = a.required("id"); err != nil {
		return hr, err
	}
	if hr.prefix, err = a.required("prefix"); err != nil {
		return hr, err
	}
	if hr.suffix, err = a.required("suffix"); err != nil {
		return hr, err
	}
	rad, err := a.required("radical")
	if err != nil {
		return hr, err
	}
	if hr.nums, err = radicals(rad); err != nil {
		return hr, p.errAt(line, a.elem, "radical: %v", err)
	}
	if hr.speed, err = a.speed("speed"); err != nil {
		return hr, err
	}
	if hr.link.Bandwidth, err = a.bandwidth("bw"); err != nil {
		return hr, err
	}
	hr.link.Latency, err = a.latency("lat")
	return hr, err
}

// clusterBackbone reads a cluster's bb_bw, bb_lat and bb_sharing_policy
// into pl.
func clusterBackbone(a *attrs, pl *Platform, line int) error {
	bw, hasBW := a.get("bb_bw")
	lat, hasLat := a.get("bb_lat")
	policy, hasPolicy := a.get("bb_sharing_policy")
	hasBW, hasLat = hasBW && bw != "", hasLat && lat != ""
	bb := topology.LinkProps{}
	var err error
	if hasLat {
		if bb.Latency, err = a.latency("bb_lat"); err != nil {
			return err
		}
	}
	if !hasBW {
		if bb.Latency > 0 {
			// SimGrid 3.32 then builds a backbone of bandwidth 0:
			// CM02 adds its latency alone, smpirun's default model
			// aborts ("The Impossible Did Happen").
			return a.p.errAt(a.line, a.elem, "bb_lat=%q without bb_bw: SimGrid 3.32 builds a backbone of no bandwidth (its SMPI model aborts on it): give bb_bw too", lat)
		}
		return nil
	}
	if bb.Bandwidth, err = a.bandwidth("bb_bw"); err != nil {
		return err
	}
	pl.BackboneSharing = Shared
	if hasPolicy {
		switch policy {
		case "SHARED":
		case "FATPIPE":
			pl.BackboneSharing = FatPipe
		default:
			return a.p.errAt(a.line, a.elem, "bb_sharing_policy=%q (expected SHARED or FATPIPE)", policy)
		}
	}
	pl.Backbone, pl.BackboneLine = &bb, line
	return nil
}

// torus maps TORUS "d1,d2,…" onto topology torus:d1xd2x…. SimGrid's hosts
// have no link of their own: each drives its torus links directly, so the
// terminal links are free (FreeBandwidth). A dimension of size 1 adds nothing; one of
// size 2 is one cable in SimGrid (the second host's link is never routed)
// as in ours.
func torus(params string, hosts int, link topology.LinkProps) (topology.Topology, string, error) {
	dims, err := positiveInts(params, ",", "topo_parameters")
	if err != nil {
		return nil, "", err
	}
	n := 1
	var keep []string
	for _, d := range dims {
		n *= d
		if n > topology.MaxNodes {
			return nil, "", fmt.Errorf("topo_parameters=%q: more than %d hosts", params, topology.MaxNodes)
		}
		if d > 1 {
			keep = append(keep, strconv.Itoa(d))
		}
	}
	if n != hosts {
		return nil, "", fmt.Errorf("TORUS %s has %d hosts, the radical gives %d", params, n, hosts)
	}
	if len(keep) == 0 {
		return nil, "", fmt.Errorf("TORUS %s has a single host", params)
	}
	spec := "torus:" + strings.Join(keep, "x")
	free := topology.LinkProps{Bandwidth: FreeBandwidth}
	t, err := topology.ParseWith(spec, topology.Options{Link: &link, Terminal: &free})
	return t, "TORUS " + params + " (" + spec + ")", err
}

// fatTree maps FAT_TREE "levels;down…;up…;count…" (SimGrid's XGFT: the
// children and parents of a switch at each level, and the parallel links
// between two switches) onto topology fattree:k=K,levels=L when the tree
// is a k-ary tree: every down count K, hosts with one parent (up[0] = 1),
// single links, and each higher level's up count at most K (fewer is our
// taperby=count).
func fatTree(params string, hosts int, link topology.LinkProps) (topology.Topology, string, error) {
	parts := strings.Split(params, ";")
	if len(parts) != 4 {
		return nil, "", fmt.Errorf("topo_parameters=%q: FAT_TREE takes LEVELS;DOWN;UP;COUNT (4 parts separated by ';')", params)
	}
	levels, err := strconv.Atoi(strings.TrimSpace(parts[0]))
	if err != nil || levels < 1 || levels > 16 {
		return nil, "", fmt.Errorf("topo_parameters=%q: levels %q is not a number from 1 to 16", params, parts[0])
	}
	var vec [3][]int
	for i, what := range []string{"down counts", "up counts", "link counts"} {
		if vec[i], err = positiveInts(parts[i+1], ",", what); err != nil {
			return nil, "", err
		}
		if len(vec[i]) != levels {
			return nil, "", fmt.Errorf("topo_parameters=%q: %d levels but %d %s", params, levels, len(vec[i]), what)
		}
	}
	down, up, count := vec[0], vec[1], vec[2]
	n := 1
	for _, d := range down {
		n *= d
		if n > topology.MaxNodes {
			return nil, "", fmt.Errorf("topo_parameters=%q: more than %d hosts", params, topology.MaxNodes)
		}
	}
	if n != hosts {
		return nil, "", fmt.Errorf("FAT_TREE %s has %d hosts, the radical gives %d", params, n, hosts)
	}
	k := down[0]
	for i := range down {
		switch {
		case down[i] != k:
			return nil, "", fmt.Errorf("FAT_TREE %s: down counts differ between levels; only k-ary trees (all down counts equal) are modelled", params)
		case count[i] != 1:
			return nil, "", fmt.Errorf("FAT_TREE %s: %d parallel links at level %d are not modelled (link counts must be 1)", params, count[i], i+1)
		case i == 0 && up[0] != 1:
			return nil, "", fmt.Errorf("FAT_TREE %s: hosts with %d parents are not modelled (the first up count must be 1)", params, up[0])
		case up[i] > k:
			return nil, "", fmt.Errorf("FAT_TREE %s: up count %d above the down count %d at level %d is not modelled", params, up[i], k, i+1)
		}
	}
	if k < 2 {
		return nil, "", fmt.Errorf("FAT_TREE %s: switches with one child are not modelled", params)
	}
	spec := fmt.Sprintf("fattree:k=%d,levels=%d", k, levels)
	var taper []string
	tapered := false
	for i := 1; i < levels; i++ {
		// Our level i-1 switches have w = round(k·f) up ports.
		taper = append(taper, strconv.FormatFloat(float64(up[i])/float64(k), 'g', -1, 64))
		if up[i] != k {
			tapered = true
		}
	}
	if tapered {
		spec += ",taper=" + strings.Join(taper, "/") + ",taperby=count"
	}
	t, err := topology.ParseWith(spec, topology.Options{Link: &link, Terminal: &link})
	return t, "FAT_TREE " + params + " (" + spec + ")", err
}

// dragonfly builds SimGrid's DRAGONFLY "G,B;C,K;R,N;H" as a custom graph:
// G groups of C chassis of R routers (blades), H hosts per router;
// routers of a chassis all-to-all ("green" links, N parallel cables, so
// N× the bandwidth), routers of the same blade index in the chassis of a
// group all-to-all ("black", K cables), and one "blue" link of B cables
// between each pair of groups i < j, from router index j of group i to
// router index i of group j (SimGrid's DragonflyZone; it routes through
// chassis 0, so it needs G ≤ R). Hosts are numbered group, chassis,
// blade, host. This is not tracesim's balanced dragonfly (whose routers
// each have h global links), hence the graph.
func dragonfly(params string, hosts int, link topology.LinkProps, name string) (topology.Topology, string, error) {
	parts := strings.Split(params, ";")
	if len(parts) != 4 {
		return nil, "", fmt.Errorf("topo_parameters=%q: DRAGONFLY takes GROUPS,LINKS;CHASSIS,LINKS;ROUTERS,LINKS;HOSTS", params)
	}
	var lv [3][]int
	for i, what := range []string{"groups", "chassis", "routers"} {
		v, err := positiveInts(parts[i], ",", what)
		if err != nil {
			return nil, "", err
		}
		if len(v) != 2 {
			return nil, "", fmt.Errorf("topo_parameters=%q: the %s level takes COUNT,LINKS", params, what)
		}
		lv[i] = v
	}
	nodes, err := positiveInts(parts[3], ",", "hosts per router")
	if err != nil || len(nodes) != 1 {
		return nil, "", fmt.Errorf("topo_parameters=%q: the last part is the number of hosts per router", params)
	}
	g, blue, c, black, r, green, n := lv[0][0], lv[0][1], lv[1][0], lv[1][1], lv[2][0], lv[2][1], nodes[0]
	routers := g * c * r
	if routers > topology.MaxGraphRouters || routers*n > topology.MaxNodes {
		return nil, "", fmt.Errorf("DRAGONFLY %s: %d routers and %d hosts, above the limits of %d and %d", params, routers, routers*n, topology.MaxGraphRouters, topology.MaxNodes)
	}
	if routers*n != hosts {
		return nil, "", fmt.Errorf("DRAGONFLY %s has %d hosts, the radical gives %d", params, routers*n, hosts)
	}
	if g > r {
		return nil, "", fmt.Errorf("DRAGONFLY %s: %d groups but %d routers per chassis: SimGrid attaches group j's blue link to router j of chassis 0 and needs groups ≤ routers", params, g, r)
	}
	bw := func(cables int) string { return strconv.FormatFloat(link.Bandwidth*float64(cables), 'g', -1, 64) }
	var b strings.Builder
	fmt.Fprintf(&b, "default bw=%s lat=%dps\n", bw(1), link.Latency)
	fmt.Fprintf(&b, "router r[0-%d]\n", routers-1)
	for i := 0; i < routers; i++ {
		fmt.Fprintf(&b, "node h[%d-%d] r%d\n", i*n, i*n+n-1, i)
	}
	at := func(grp, ch, bl int) int { return (grp*c+ch)*r + bl }
	for grp := 0; grp < g; grp++ {
		for ch := 0; ch < c; ch++ {
			for x := 0; x < r; x++ {
				for y := x + 1; y < r; y++ {
					fmt.Fprintf(&b, "link r%d r%d bw=%s\n", at(grp, ch, x), at(grp, ch, y), bw(green))
				}
			}
		}
		for x := 0; x < c; x++ {
			for y := x + 1; y < c; y++ {
				for bl := 0; bl < r; bl++ {
					fmt.Fprintf(&b, "link r%d r%d bw=%s\n", at(grp, x, bl), at(grp, y, bl), bw(black))
				}
			}
		}
	}
	for i := 0; i < g; i++ {
		for j := i + 1; j < g; j++ {
			fmt.Fprintf(&b, "link r%d r%d bw=%s\n", i*c*r+j, j*c*r+i, bw(blue))
		}
	}
	t, err := topology.ParseGraph(strings.NewReader(b.String()), name, topology.Options{Link: &link, Terminal: &link})
	if err != nil {
		return nil, "", err
	}
	return t, fmt.Sprintf("DRAGONFLY %s (a graph of %d routers)", params, routers), nil
}
