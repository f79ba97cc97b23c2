package topology

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/tracesim/tracesim/internal/userfile"
	"github.com/tracesim/tracesim/tracefmt/units"
)

// Options are defaults that Parse applies where the spec string is silent.
// A nil field falls back to the next default (see docs/topology.md).
type Options struct {
	// Link sets the bandwidth and latency of router-to-router links
	// (nil: DefaultLink).
	Link *LinkProps
	// Terminal sets the links between nodes and routers (nil: Link).
	Terminal *LinkProps
	// Open opens the graph file of a "file:" spec (nil: userfile.OS, by
	// path from the working directory). A server passes one confined to
	// its library. Whatever opens it, the file must be a regular file of
	// at most userfile.TopologyLimit bytes.
	Open userfile.Opener
}

// Limits on the size of a topology built from a spec. They keep a typo
// ("torus:640x320x320") from exhausting memory; the 64×32×32 torus of the
// NSIM paper is far below them.
const (
	MaxNodes   = 1 << 24
	MaxRouters = 1 << 24
	MaxPorts   = 1 << 20 // per router
)

// Parse builds a topology from a spec with default Options.
func Parse(spec string) (Topology, error) { return ParseWith(spec, Options{}) }

// ParseWith builds a topology from a spec such as "torus:8x8,bw=1Gb/s",
// "fattree:k=4,levels=3,taper=0.5" or "file:net.txt". Errors name the byte
// offset in the spec and what was expected there.
func ParseWith(spec string, opt Options) (Topology, error) {
	kindStr, body, ok := strings.Cut(spec, ":")
	kindStr = strings.TrimSpace(kindStr)
	kind, known := kindByName(kindStr)
	if !known {
		if kindStr == "" {
			return nil, specErr(spec, 0, "expected a topology kind (%s)", kindList())
		}
		return nil, specErr(spec, 0, "unknown topology kind %q (expected one of %s)", kindStr, kindList())
	}
	if !ok {
		return nil, specErr(spec, len(spec), "expected ':' and the parameters of %s (for example %s)", kind, example(kind))
	}
	base := strings.Index(spec, ":") + 1
	if kind == KindCustom {
		path := strings.TrimSpace(body)
		if path == "" {
			return nil, specErr(spec, base, "expected a file name after file:")
		}
		f, err := userfile.Open(opt.Open, "topology", path, userfile.TopologyLimit)
		if err != nil {
			return nil, err // "topology file PATH: …"
		}
		defer f.Close()
		g, err := ParseGraph(f, path, opt)
		if err != nil {
			var le *userfile.LimitError
			if errors.As(err, &le) {
				return nil, le
			}
			return nil, fmt.Errorf("topology %q: %w", spec, err)
		}
		return g, nil
	}
	items, err := splitItems(spec, base)
	if err != nil {
		return nil, err
	}
	p := &specParser{spec: spec, kind: kind, items: items}
	t, err := p.build(opt)
	if err != nil {
		return nil, err
	}
	return t, nil
}

func kindByName(s string) (Kind, bool) {
	for i, n := range kindNames {
		if strings.EqualFold(s, n) {
			return Kind(i), true
		}
	}
	if strings.EqualFold(s, "custom") {
		return KindCustom, true
	}
	return 0, false
}

func kindList() string {
	return strings.Join(kindNames[:], ", ")
}

// Examples returns a valid example spec for every kind, for help texts.
func Examples() []string {
	out := make([]string, 0, len(kindNames))
	for _, k := range Kinds() {
		out = append(out, example(k))
	}
	return out
}

func example(k Kind) string {
	switch k {
	case KindRing:
		return "ring:16"
	case KindMesh:
		return "mesh:4x4x4"
	case KindTorus:
		return "torus:8x8"
	case KindHypercube:
		return "hypercube:6"
	case KindCrossbar:
		return "crossbar:64"
	case KindBus:
		return "bus:8"
	case KindFatTree:
		return "fattree:k=4,levels=3,taper=0.5"
	case KindDragonfly:
		return "dragonfly:p=2,a=4,h=2"
	}
	return "file:net.txt"
}

// SpecError is a malformed topology spec.
type SpecError struct {
	Spec   string
	Offset int // byte offset in Spec
	Msg    string
}

func (e *SpecError) Error() string {
	return fmt.Sprintf("topology %q: at offset %d: %s", e.Spec, e.Offset, e.Msg)
}

func specErr(spec string, off int, format string, args ...any) error {
	return &SpecError{Spec: spec, Offset: off, Msg: fmt.Sprintf(format, args...)}
}

// item is one comma-separated element of a spec body: "8x8" or "k=4".
type item struct {
	key, val string
	off      int // offset of the item
	voff     int // offset of the value
	used     bool
}

func splitItems(spec string, base int) ([]item, error) {
	body := spec[base:]
	var items []item
	off := base
	for _, part := range strings.Split(body, ",") {
		trimmed := strings.TrimSpace(part)
		lead := strings.Index(part, trimmed)
		if trimmed == "" {
			return nil, specErr(spec, off, "empty parameter (expected a value between commas)")
		}
		it := item{off: off + lead}
		if k, v, ok := strings.Cut(trimmed, "="); ok {
			it.key = strings.ToLower(strings.TrimSpace(k))
			it.val = strings.TrimSpace(v)
			it.voff = it.off + strings.Index(trimmed, "=") + 1
			if it.key == "" {
				return nil, specErr(spec, it.off, "expected a parameter name before '='")
			}
			if it.val == "" {
				return nil, specErr(spec, it.voff, "expected a value after %q", it.key+"=")
			}
		} else {
			it.val = trimmed
			it.voff = it.off
		}
		items = append(items, it)
		off += len(part) + 1
	}
	return items, nil
}

type specParser struct {
	spec  string
	kind  Kind
	items []item
}

func (p *specParser) errAt(off int, format string, args ...any) error {
	return specErr(p.spec, off, format, args...)
}

// positional returns the first item if it has no key.
func (p *specParser) positional(what string) (*item, error) {
	if len(p.items) == 0 || p.items[0].key != "" {
		off := len(p.spec)
		if len(p.items) > 0 {
			off = p.items[0].off
		}
		return nil, p.errAt(off, "expected %s first (for example %s)", what, example(p.kind))
	}
	p.items[0].used = true
	return &p.items[0], nil
}

func (p *specParser) lookup(key string) (*item, error) {
	var found *item
	for i := range p.items {
		if p.items[i].key == key {
			if found != nil {
				return nil, p.errAt(p.items[i].off, "parameter %q given twice", key)
			}
			found = &p.items[i]
		}
	}
	if found != nil {
		found.used = true
	}
	return found, nil
}

func (p *specParser) intParam(key string, min, max int, required bool) (int, bool, error) {
	it, err := p.lookup(key)
	if err != nil || it == nil {
		if err == nil && required {
			err = p.errAt(len(p.spec), "missing parameter %s=N (for example %s)", key, example(p.kind))
		}
		return 0, false, err
	}
	v, err := p.parseInt(it.val, it.voff, key, min, max)
	return v, true, err
}

func (p *specParser) parseInt(s string, off int, what string, min, max int) (int, error) {
	v, err := strconv.Atoi(s)
	if err != nil {
		return 0, p.errAt(off, "%s: %q is not an integer", what, s)
	}
	if v < min || v > max {
		if max >= 1<<20 {
			return 0, p.errAt(off, "%s is %d, expected an integer ≥ %d", what, v, min)
		}
		return 0, p.errAt(off, "%s is %d, expected an integer from %d to %d", what, v, min, max)
	}
	return v, nil
}

func (p *specParser) rate(key string) (float64, bool, error) {
	it, err := p.lookup(key)
	if err != nil || it == nil {
		return 0, false, err
	}
	v, err := units.ParseRate(it.val)
	if err != nil {
		return 0, false, p.errAt(it.voff, "%s: %v", key, err)
	}
	if !(v > 0) || math.IsInf(v, 0) {
		return 0, false, p.errAt(it.voff, "%s: bandwidth must be positive and finite", key)
	}
	return v, true, nil
}

func (p *specParser) duration(key string) (int64, bool, error) {
	it, err := p.lookup(key)
	if err != nil || it == nil {
		return 0, false, err
	}
	v, err := units.ParseDuration(it.val)
	if err != nil {
		return 0, false, p.errAt(it.voff, "%s: %v", key, err)
	}
	if v > 1e6 {
		return 0, false, p.errAt(it.voff, "%s: latency above 10^6 s", key)
	}
	return units.Picoseconds(v), true, nil
}

// props resolves a class's properties from spec keys and fallbacks.
func (p *specParser) props(bwKey, latKey string, fallback LinkProps) (LinkProps, error) {
	out := fallback
	if bw, ok, err := p.rate(bwKey); err != nil {
		return out, err
	} else if ok {
		out.Bandwidth = bw
	}
	if lat, ok, err := p.duration(latKey); err != nil {
		return out, err
	} else if ok {
		out.Latency = lat
	}
	return out, nil
}

// checkUsed reports the first parameter the kind does not understand.
func (p *specParser) checkUsed(valid string) error {
	for _, it := range p.items {
		if !it.used {
			if it.key == "" {
				return p.errAt(it.off, "unexpected value %q (expected one of %s)", it.val, valid)
			}
			return p.errAt(it.off, "unknown parameter %q for %s (expected one of %s)", it.key, p.kind, valid)
		}
	}
	return nil
}

// linkDefaults resolves the network and terminal link properties.
func (p *specParser) linkDefaults(opt Options) (network, terminal LinkProps, err error) {
	base := DefaultLink
	if opt.Link != nil {
		base = *opt.Link
	}
	network, err = p.props("bw", "lat", base)
	if err != nil {
		return
	}
	tbase := network
	if opt.Terminal != nil {
		tbase = *opt.Terminal
	}
	terminal, err = p.props("nbw", "nlat", tbase)
	return
}

func (p *specParser) build(opt Options) (Topology, error) {
	switch p.kind {
	case KindRing, KindMesh, KindTorus, KindHypercube:
		return p.grid(opt)
	case KindCrossbar, KindBus:
		return p.star(opt)
	case KindFatTree:
		return p.fatTree(opt)
	case KindDragonfly:
		return p.dragonfly(opt)
	}
	return nil, p.errAt(0, "unsupported kind %s", p.kind)
}

const linkKeys = "bw, lat, nbw, nlat"

func (p *specParser) grid(opt Options) (Topology, error) {
	first, err := p.positional(map[Kind]string{KindRing: "the number of routers", KindMesh: "the dimensions", KindTorus: "the dimensions", KindHypercube: "the number of dimensions"}[p.kind])
	if err != nil {
		return nil, err
	}
	var dims []int
	switch p.kind {
	case KindRing:
		k, err := p.parseInt(first.val, first.voff, "ring size", 2, MaxRouters)
		if err != nil {
			return nil, err
		}
		dims = []int{k}
	case KindHypercube:
		n, err := p.parseInt(first.val, first.voff, "hypercube dimension", 1, 24)
		if err != nil {
			return nil, err
		}
		dims = make([]int, n)
		for i := range dims {
			dims[i] = 2
		}
	default:
		dims, err = p.dims(first)
		if err != nil {
			return nil, err
		}
	}
	c, _, err := p.intParam("c", 1, 1024, false)
	if err != nil {
		return nil, err
	}
	if c == 0 {
		c = 1
	}
	network, terminal, err := p.linkDefaults(opt)
	if err != nil {
		return nil, err
	}
	if err := p.checkUsed("c, " + linkKeys); err != nil {
		return nil, err
	}
	routers := 1
	for _, k := range dims {
		routers *= k
		if routers > MaxRouters {
			return nil, p.errAt(first.voff, "%d routers or more, above the limit of %d", routers, MaxRouters)
		}
	}
	if routers*c > MaxNodes {
		return nil, p.errAt(first.voff, "%d nodes, above the limit of %d", routers*c, MaxNodes)
	}
	return newGrid(p.kind, dims, c, network, terminal), nil
}

// dims parses "8x8x4"; each size must be ≥ 2.
func (p *specParser) dims(it *item) ([]int, error) {
	var dims []int
	off := it.voff
	for i, part := range strings.Split(it.val, "x") {
		if part == "" {
			return nil, p.errAt(off, "empty dimension %d (expected sizes separated by 'x', for example 8x8x4)", i+1)
		}
		k, err := p.parseInt(part, off, fmt.Sprintf("dimension %d", i+1), 2, MaxRouters)
		if err != nil {
			return nil, err
		}
		dims = append(dims, k)
		off += len(part) + 1
	}
	if len(dims) > 32 {
		return nil, p.errAt(it.voff, "%d dimensions, at most 32 are supported", len(dims))
	}
	return dims, nil
}

func (p *specParser) star(opt Options) (Topology, error) {
	first, err := p.positional("the number of nodes")
	if err != nil {
		return nil, err
	}
	n, err := p.parseInt(first.val, first.voff, p.kind.String()+" size", 1, MaxPorts)
	if err != nil {
		return nil, err
	}
	base := DefaultLink
	if opt.Link != nil {
		base = *opt.Link
	}
	if opt.Terminal != nil {
		base = *opt.Terminal
	}
	props, err := p.props("bw", "lat", base)
	if err != nil {
		return nil, err
	}
	if p.kind == KindBus {
		if err := p.checkUsed("bw, lat"); err != nil {
			return nil, err
		}
		return newBus(n, props), nil
	}
	// A backbone when either of its keys is given: of the terminal
	// links' bandwidth and no latency unless they say otherwise.
	var backbone *LinkProps
	bw, err := p.lookup("bbbw")
	if err != nil {
		return nil, err
	}
	lat, err := p.lookup("bblat")
	if err != nil {
		return nil, err
	}
	if bw != nil || lat != nil {
		bb, err := p.props("bbbw", "bblat", LinkProps{Bandwidth: props.Bandwidth})
		if err != nil {
			return nil, err
		}
		backbone = &bb
	}
	if err := p.checkUsed("bw, lat, bbbw, bblat"); err != nil {
		return nil, err
	}
	return newCrossbar(n, props, backbone), nil
}

func (p *specParser) fatTree(opt Options) (Topology, error) {
	k, _, err := p.intParam("k", 2, 1024, true)
	if err != nil {
		return nil, err
	}
	levels, _, err := p.intParam("levels", 1, 16, true)
	if err != nil {
		return nil, err
	}
	taper := make([]float64, levels-1)
	for i := range taper {
		taper[i] = 1
	}
	if it, err := p.lookup("taper"); err != nil {
		return nil, err
	} else if it != nil {
		parts := strings.Split(it.val, "/")
		if len(parts) != 1 && len(parts) != levels-1 {
			return nil, p.errAt(it.voff, "taper: %d factors for %d level boundaries (give one factor, or one per boundary separated by '/')", len(parts), levels-1)
		}
		off := it.voff
		for i, s := range parts {
			f, err := strconv.ParseFloat(s, 64)
			if err != nil || !(f > 0 && f <= 1) {
				return nil, p.errAt(off, "taper: %q is not a factor in (0, 1]", s)
			}
			if len(parts) == 1 {
				for j := range taper {
					taper[j] = f
				}
			} else {
				taper[i] = f
			}
			off += len(s) + 1
		}
	}
	byCount := false
	if it, err := p.lookup("taperby"); err != nil {
		return nil, err
	} else if it != nil {
		switch strings.ToLower(it.val) {
		case "bw", "bandwidth":
		case "count", "links":
			byCount = true
		default:
			return nil, p.errAt(it.voff, "taperby: %q (expected bw or count)", it.val)
		}
	}
	network, terminal, err := p.linkDefaults(opt)
	if err != nil {
		return nil, err
	}
	if err := p.checkUsed("k, levels, taper, taperby, " + linkKeys); err != nil {
		return nil, err
	}
	ft, err := newFatTree(k, levels, taper, byCount, network, terminal)
	if err != nil {
		return nil, p.errAt(0, "%v", err)
	}
	return ft, nil
}

func (p *specParser) dragonfly(opt Options) (Topology, error) {
	pp, _, err := p.intParam("p", 1, 1024, true)
	if err != nil {
		return nil, err
	}
	a, _, err := p.intParam("a", 1, 1024, true)
	if err != nil {
		return nil, err
	}
	h, _, err := p.intParam("h", 1, 1024, true)
	if err != nil {
		return nil, err
	}
	network, terminal, err := p.linkDefaults(opt)
	if err != nil {
		return nil, err
	}
	global, err := p.props("gbw", "glat", network)
	if err != nil {
		return nil, err
	}
	if err := p.checkUsed("p, a, h, gbw, glat, " + linkKeys); err != nil {
		return nil, err
	}
	groups := a*h + 1
	if a*groups > MaxRouters || a*groups*pp > MaxNodes {
		return nil, p.errAt(0, "dragonfly with %d routers and %d nodes is above the limits (%d routers, %d nodes)", a*groups, a*groups*pp, MaxRouters, MaxNodes)
	}
	return newDragonfly(pp, a, h, network, terminal, global), nil
}

// formatProps renders non-default link properties as spec parameters.
func formatProps(bwKey, latKey string, p, def LinkProps) string {
	var b strings.Builder
	if p.Bandwidth != def.Bandwidth {
		fmt.Fprintf(&b, ",%s=%s", bwKey, units.FormatRateExact(p.Bandwidth))
	}
	if p.Latency != def.Latency {
		fmt.Fprintf(&b, ",%s=%s", latKey, units.FormatPicoseconds(p.Latency))
	}
	return b.String()
}
