package replay

import (
	"bufio"
	"errors"
	"fmt"
	"strings"

	"github.com/tracesim/tracesim/engine/des"
	"github.com/tracesim/tracesim/engine/flow"
	"github.com/tracesim/tracesim/engine/netmodel"
	"github.com/tracesim/tracesim/engine/platform"
	"github.com/tracesim/tracesim/engine/topology"
	"github.com/tracesim/tracesim/internal/userfile"
	"github.com/tracesim/tracesim/tracefmt/units"
)

// platformSettings are the settings of SimGrid platforms, hostfiles and
// SMPI's correction factors, kept apart from the others so that the
// settings of each model stay together.
func platformSettings() []Setting {
	path := func(key, help string, p func(*Config) *string) Setting {
		return Setting{Key: key, Group: "simgrid", Kind: KindSpec, Help: help,
			get: func(c *Config) string { return *p(c) },
			set: func(c *Config, v string) error { *p(c) = v; return nil }}
	}
	return []Setting{
		path("platform", "SimGrid platform file (XML, version 4.1): its cluster or star zone gives the topology, the links and the CPU speed (docs/platform.md); empty: none",
			func(c *Config) *string { return &c.Platform }),
		path("hostfile", "smpirun hostfile placing the ranks on the platform's hosts (HOST or HOST:SLOTS a line; rank r on slot r mod slots); empty: the hosts sorted by name",
			func(c *Config) *string { return &c.Hostfile }),
		{Key: "factors", Group: "simgrid", Kind: KindSpec,
			Help: "size-dependent bandwidth and latency factors of the simgrid model: none, smpi (SimGrid 3.32's SMPI defaults) or a file of bw-factor and lat-factor lines",
			get:  func(c *Config) string { return c.Factors },
			set: func(c *Config, v string) error {
				// A file is read by Validate, once a configuration
				// file's path has been resolved against its directory.
				if v == "" {
					v = "none"
				}
				c.Factors = v
				return nil
			}},
		{Key: "tcp-gamma", Group: "simgrid", Kind: KindSize,
			Help: "SimGrid's network/TCP-gamma: the simgrid model bounds a message's rate by this window over twice its route latency (B, KiB, MiB; 0: no bound)",
			get:  func(c *Config) string { return FormatSize(c.TCPGamma) },
			set: func(c *Config, v string) error {
				n, err := units.ParseSize(v)
				if err == nil {
					c.TCPGamma = n
				}
				return err
			}},
		{Key: "weight-s", Group: "simgrid", Kind: KindSize,
			Help: "SimGrid's network/weight-S: the flow model adds this over each route link's bandwidth to a message's sharing penalty (SMPI's model 8775 B, CM02 0)",
			get:  func(c *Config) string { return FormatSize(c.WeightS) },
			set: func(c *Config, v string) error {
				n, err := units.ParseSize(v)
				if err == nil {
					c.WeightS = n
				}
				return err
			}},
	}
}

// LoadPlatform reads the platform file and the hostfile (nil slots
// without one). It returns nil when no platform is set.
func (c *Config) LoadPlatform() (*platform.Platform, []string, error) {
	if c.Platform == "" {
		if c.Hostfile != "" {
			return nil, nil, fmt.Errorf("hostfile: needs a platform (the hostfile names its hosts)")
		}
		return nil, nil, nil
	}
	// Through c.Open, as every file a configuration names: a served
	// session's opener keeps them inside its library.
	f, err := userfile.Open(c.Open, "platform", c.Platform, userfile.PlatformLimit)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	p, err := platform.Parse(f, c.Platform)
	if err != nil {
		return nil, nil, fmt.Errorf("platform: %w", err)
	}
	if c.Hostfile == "" {
		return p, nil, nil
	}
	h, err := userfile.Open(c.Open, "hostfile", c.Hostfile, userfile.PlacementLimit)
	if err != nil {
		return nil, nil, err
	}
	defer h.Close()
	slots, err := platform.ParseHostfile(h, c.Hostfile)
	if err != nil {
		return nil, nil, fmt.Errorf("hostfile: %w", err)
	}
	if _, err := p.Place(slots, 1); err != nil {
		return nil, nil, err
	}
	return p, slots, nil
}

// validatePlatform checks the platform against the other settings.
func (c *Config) validatePlatform() error {
	p, _, err := c.LoadPlatform()
	if err != nil || p == nil {
		return err
	}
	c.recordUsage(p)
	switch {
	case c.Model == ModelLogGOPS:
		// Its L, o, g, G and O are the whole network: it would take
		// only the hosts' speed and cores, and silently drop the links.
		return fmt.Errorf("platform: not used by loggops (its L, o, g, G, O replace the platform's links; give the hosts' cpu-speed and cores instead)")
	case strings.TrimSpace(c.Topology) != "":
		return fmt.Errorf("platform: cannot be combined with topology %q: the platform gives the network", c.Topology)
	case c.Placement != "" || len(c.Map) > 0 || c.RanksPerNode != 1:
		return fmt.Errorf("platform: cannot be combined with placement, map or ranks-per-node: place ranks with a hostfile")
	case c.Hops > 0:
		return fmt.Errorf("platform: cannot be combined with hops: the platform's routes give the distances")
	}
	line := func(l int) string {
		if l == 0 {
			return ""
		}
		return fmt.Sprintf(" (%s:%d)", p.File, l)
	}
	if p.Routes != nil && c.Model == ModelPacket {
		return fmt.Errorf("platform: %s: the packet model's packets follow a topology's routing, not a list of links per pair of hosts (use --model flow)", p.Summary)
	}
	if p.Routes != nil && p.Routes.Shared && c.Model == ModelSimGrid && c.CrossTraffic > 0 {
		return fmt.Errorf("platform: %s: the simgrid model does not follow the crosstraffic of a message over SHARED links its way back may or may not cross (use --model flow, or crosstraffic 0)", p.Summary)
	}
	if c.Model == ModelPacket {
		switch {
		case p.Sharing != platform.SplitDuplex:
			return fmt.Errorf("platform: sharing_policy %s%s: the packet model's links have one channel per direction (SPLITDUPLEX)", p.Sharing, line(p.SharingLine))
		case p.Limiter > 0:
			return fmt.Errorf("platform: limiter_link%s is not modelled by the packet model", line(p.LimiterLine))
		case p.Backbone != nil && p.BackboneSharing == platform.FatPipe:
			return fmt.Errorf("platform: bb_sharing_policy FATPIPE%s: the packet model's backbone carries one packet at a time (SHARED)", line(p.BackboneLine))
		}
		return nil
	}
	if c.Model == ModelSimGrid && p.Sharing == platform.Shared && p.Topology.Kind() != topology.KindCrossbar && c.CrossTraffic > 0 {
		// On a star a message's way back crosses the same two links;
		// on a TORUS or DRAGONFLY it may cross others.
		return fmt.Errorf("platform: sharing_policy SHARED%s on %s: the simgrid model does not follow the crosstraffic of a message over links its way back may or may not cross (use --model flow, or crosstraffic 0)", line(p.SharingLine), p.Summary)
	}
	if c.Model != ModelFlow && c.Model != ModelSimGrid {
		switch {
		case p.Backbone != nil:
			return fmt.Errorf("platform: the cluster's backbone%s is modelled by the flow, packet and simgrid models, not by the %s model", line(p.BackboneLine), c.modelName())
		case p.Limiter > 0:
			return fmt.Errorf("platform: limiter_link%s is modelled by the flow and simgrid models, not by the %s model", line(p.LimiterLine), c.modelName())
		}
	}
	if c.Model == ModelFlow && p.Hops != nil && c.Routing != "" {
		return fmt.Errorf("platform: routing %q: the flow model follows SimGrid's own routes on %s (leave routing empty)", c.Routing, p.Summary)
	}
	if !p.Uniform && c.Model != ModelFlow {
		if p.Routes != nil {
			return fmt.Errorf("platform: its links differ in bandwidth or latency; the %s model has one link kind (use --model flow)", c.modelName())
		}
		return fmt.Errorf("platform: its host links differ in bandwidth or latency; the %s model has one link kind (use --model flow or packet)", c.modelName())
	}
	return nil
}

func (c *Config) modelName() string {
	if s, ok := LookupSetting("model"); ok {
		return s.Get(c)
	}
	return "selected"
}

// Resolve returns the configuration a run uses: with a platform, its
// hosts' CPU speed (each node's when they differ) and cores and, for the analytic models, its links' latency and
// bandwidth replace cpu-speed, latency, link-latency and bandwidth.
func (c Config) Resolve() (Config, error) {
	p, _, err := c.LoadPlatform()
	if err != nil || p == nil {
		return c, err
	}
	c.CPUSpeed = p.Speed
	c.nodeSpeeds = p.Speeds
	c.Cores = max(p.Cores, 1)
	if p.Uniform {
		c.Latency = des.Time(p.Link.Latency)
		c.LinkLatency = des.Time(p.Link.Latency)
		c.PerByte = 1e12 / p.Link.Bandwidth
	}
	c.platformLinks = cm02Links{shared: p.Sharing == platform.Shared && p.Topology.Kind() == topology.KindCrossbar}
	if p.Limiter > 0 {
		c.platformLinks.limiterPerByte = 1e12 / p.Limiter
	}
	if bb := p.Backbone; bb != nil {
		c.platformLinks.backbone = &netmodel.Backbone{Latency: des.Time(bb.Latency), PerByte: 1e12 / bb.Bandwidth, Shared: p.BackboneSharing == platform.Shared}
	}
	return c, nil
}

// cm02Links is what the simgrid model needs of a platform's links beyond
// one bandwidth and latency: whether the hosts' links are one link both
// ways (SHARED), which a message's crosstraffic then loads too, the
// backbone and the hosts' limiter links (1/bandwidth, 0 for none).
type cm02Links struct {
	shared         bool
	backbone       *netmodel.Backbone
	limiterPerByte float64
}

// SizeFactors returns the bandwidth and latency factors of the factors
// setting (nil, nil for none).
func (c *Config) SizeFactors() (bw, lat netmodel.SizeFactors, err error) {
	switch c.Factors {
	case "", "none":
		return nil, nil, nil
	case "smpi":
		bw, _ = netmodel.ParseSizeFactors(netmodel.SMPIBandwidthFactors)
		lat, _ = netmodel.ParseSizeFactors(netmodel.SMPILatencyFactors)
		return bw, lat, nil
	}
	return readFactors(c.Open, c.Factors)
}

// readFactors reads a factors file: "bw-factor VALUES" and "lat-factor
// VALUES" lines (also smpi/bw-factor, with '=' or ':' after the key) in
// SimGrid's SIZE:FACTOR;… syntax; '#' starts a comment. A missing line
// leaves that factor at 1.
func readFactors(open userfile.Opener, path string) (bw, lat netmodel.SizeFactors, err error) {
	f, err := userfile.Open(open, "factors", path, userfile.ConfigLimit)
	if err != nil {
		return nil, nil, fmt.Errorf("%w (expected none, smpi or a file)", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	seen := false
	for sc.Scan() {
		n++
		s := sc.Text()
		if i := strings.IndexByte(s, '#'); i >= 0 {
			s = s[:i]
		}
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		// The key is a word of letters, '-' and '/'; then '=' or ':'
		// or blanks, then the values.
		end := strings.IndexFunc(s, func(r rune) bool { return !(r >= 'a' && r <= 'z' || r == '-' || r == '/') })
		if end <= 0 {
			return nil, nil, fmt.Errorf("factors: %s:%d: expected bw-factor or lat-factor and SIZE:FACTOR;… values", path, n)
		}
		key := strings.TrimPrefix(s[:end], "smpi/")
		val := strings.TrimSpace(s[end:])
		val = strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(val, "="), ":"))
		v, err := netmodel.ParseSizeFactors(val)
		if err != nil {
			return nil, nil, fmt.Errorf("factors: %s:%d: %s: %v", path, n, key, err)
		}
		switch key {
		case "bw-factor":
			bw = v
		case "lat-factor":
			lat = v
		default:
			return nil, nil, fmt.Errorf("factors: %s:%d: unknown key %q (expected bw-factor or lat-factor)", path, n, key)
		}
		seen = true
	}
	if err := sc.Err(); err != nil {
		return nil, nil, fmt.Errorf("factors: %s: %w", path, err)
	}
	if !seen {
		return nil, nil, errors.New("factors: " + path + ": no bw-factor or lat-factor line")
	}
	return bw, lat, nil
}

// starRoutes are the distances of a SimGrid star without loopback links:
// a message between two ranks of one host goes up the host's link and
// down again, two links like any other; one when the host's link is one
// link both ways (oneLink: SHARED, and FATPIPE, which SimGrid 3.32 builds
// as SHARED), which SimGrid's star puts in a route once.
type starRoutes struct {
	t       topology.Topology
	oneLink bool
}

func (s starRoutes) Hops(a, b int) int {
	if a == b {
		if s.oneLink {
			return 1
		}
		return 2
	}
	return s.t.Hops(a, b)
}

// explicitRoutes are the distances of an explicit zone's routes: their
// numbers of links.
type explicitRoutes struct{ r *platform.Routes }

func (e explicitRoutes) Hops(a, b int) int { return e.r.Len(a, b) }

// sharedHosts rejects placements that put two ranks on one host where the
// engine cannot follow SimGrid: SimGrid sends their messages through the
// host's loopback link when the platform has one, and over no link at all
// on a torus, fat tree or dragonfly; on a star without loopback they go up
// the host's link and down again, which the simgrid model follows
// (starRoutes) and the packet model, which delivers within a node at
// once, does not.
func sharedHosts(p *platform.Platform, nodeOf []int, model ModelKind) error {
	first := map[int]int{}
	for r, n := range nodeOf {
		f, seen := first[n]
		if !seen {
			first[n] = r
			continue
		}
		switch {
		case model == ModelFlow && p.Routes != nil:
			// The zone's route from the host to itself.
		case model == ModelFlow && p.Loopback != nil && p.LoopbackFatPipe:
			// flow.Config.Loopback: the cluster's loopback links.
		case p.Loopback != nil && p.LoopbackLine == 0:
			return fmt.Errorf("hostfile: ranks %d and %d share host %s: messages over SimGrid's implicit loopback link are modelled by the flow model only", f, r, p.Hosts[n])
		case p.Loopback != nil:
			return fmt.Errorf("hostfile: ranks %d and %d share host %s: messages over a loopback link (%s:%d) are not modelled", f, r, p.Hosts[n], p.File, p.LoopbackLine)
		case p.Topology.Kind() != topology.KindCrossbar:
			return fmt.Errorf("hostfile: ranks %d and %d share host %s: messages within a host of %s are not modelled (give each rank its own host)", f, r, p.Hosts[n], p.Summary)
		case model == ModelPacket:
			return fmt.Errorf("hostfile: ranks %d and %d share host %s: the packet model delivers messages within a host at once, SimGrid sends them up and down its link (use --model flow or simgrid, or one rank per host)", f, r, p.Hosts[n])
		}
	}
	return nil
}

// platformFlow gives the flow model the platform's link sharing, limiter,
// backbone and loopback links: SimGrid's cluster routes (the backbone is
// the topology's medium). Between two ranks of one
// host a message crosses the host's loopback link, or on a star without
// one the host's link up and down again (sharedHosts rejects the rest).
func platformFlow(fc *flow.Config, p *platform.Platform) {
	switch p.Sharing {
	case platform.Shared:
		fc.Sharing = flow.Shared
	case platform.FatPipe:
		fc.Sharing = flow.FatPipe
	}
	if r := p.Routes; r != nil {
		// Each SHARED or FATPIPE link is one channel of the graph,
		// used both ways; a SPLITDUPLEX link's directions are its two.
		fc.Sharing = flow.SplitDuplex
		fc.FatPipes = r.FatPipes
	}
	fc.Limiter = p.Limiter
	fc.MediumFatPipe = p.Backbone != nil && p.BackboneSharing == platform.FatPipe
	if p.Loopback != nil && p.LoopbackFatPipe {
		lb := *p.Loopback
		fc.Loopback = &lb
	}
	// An explicit zone's routes include each host's to itself.
	fc.SelfRoute = p.Topology.Kind() == topology.KindCrossbar || p.Routes != nil
	fc.Hops, fc.RouterLimiters = p.Hops, p.RouterLimiters
	// SimGrid's hosts have one link, whatever their router.
	fc.OneInjectionLink = true
}
