// Package platform reads SimGrid platform files (version 4.1 XML) into the
// simulator's machine: a topology (engine/topology) with the links'
// bandwidths and latencies, the hosts' names in node order, and the CPU
// speed. It covers what SMPI studies use: one <cluster> (STAR, TORUS,
// FAT_TREE as a k-ary tree, DRAGONFLY as a custom graph; a STAR's
// backbone), one routing="Cluster" zone of <cabinet>s and a <backbone>,
// or one zone of
// explicit <host>, <router>, <link> and <route> elements, possibly inside
// <zone> elements: a star (each host a private link, every route the
// source's link then the destination's) becomes a crossbar, any other
// shape SimGrid's own routes (Full, Floyd, Dijkstra) over a graph of the
// links (general.go).
//
// Anything else a file uses — a fat tree that is not k-ary,
// routes between zones, properties, traces, several clusters — is an
// error that names the element and its line: a platform is never read
// partially.
// docs/platform.md has the support table.
package platform

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/tracesim/tracesim/engine/topology"
)

// Sharing is a SimGrid link sharing policy.
type Sharing uint8

// Sharing policies.
const (
	// SplitDuplex links have an independent capacity in each direction
	// (the cluster default), as the topology's directed channels do.
	SplitDuplex Sharing = iota
	// Shared links have one capacity for both directions (the default
	// of an explicit <link>).
	Shared
	// FatPipe links bound each flow to their bandwidth but do not share
	// it.
	FatPipe
)

// String returns SimGrid's name of the policy.
func (s Sharing) String() string {
	switch s {
	case Shared:
		return "SHARED"
	case FatPipe:
		return "FATPIPE"
	}
	return "SPLITDUPLEX"
}

// Platform is the machine a platform file describes.
type Platform struct {
	// File is the name the file was read under.
	File string
	// Topology is the network: node n is host Hosts[n].
	Topology topology.Topology
	// Hosts are the host names in node order.
	Hosts []string
	// Speed is every host's CPU speed in flop/s (of each core), Cores
	// every host's number of cores.
	Speed float64
	Cores int
	// Speeds is every host's speed in node order when they differ (an
	// explicit zone's hosts, cabinets), nil when all run at Speed (then
	// Speed is the first host's).
	Speeds []float64
	// Link is the bandwidth (bytes/s) and latency (ps) of the network's
	// links when they are all alike, for the models that see one link
	// kind; Uniform reports whether they are.
	Link    topology.LinkProps
	Uniform bool
	// Sharing is the links' sharing policy and SharingLine the line that
	// sets it (0: the default).
	Sharing     Sharing
	SharingLine int
	// Limiter is the bandwidth of each host's limiter link (bytes/s,
	// shared by what the host sends and receives), 0 for none.
	Limiter     float64
	LimiterLine int
	// Loopback is the link a host's messages to itself cross, nil when
	// the file sets none.
	Loopback     *topology.LinkProps
	LoopbackLine int
	// LoopbackFatPipe reports that each host has its own loopback link
	// and that it is not shared (a cluster's loopback_bw: FATPIPE);
	// an explicit zone's loopback is a link of its own policy.
	LoopbackFatPipe bool
	// Backbone is the link of a FLAT cluster that every message between
	// two of its hosts crosses (bb_bw, bb_lat), nil when there is none;
	// the topology is then a crossbar with that backbone.
	// BackboneSharing is its policy: Shared (the default) or FatPipe.
	Backbone        *topology.LinkProps
	BackboneSharing Sharing
	BackboneLine    int
	// Hops, when set, gives SimGrid's route from host src to host dst
	// where the topology's routing would not: the router-to-router links
	// after src's link and before dst's, appended to buf as (from, to)
	// router pairs, not always a path, and the limiters it crosses
	// besides its source's and destination's as (HostLimiter, host) and
	// (RouterLimiter, router) pairs (routes.go). Nil on a star and a
	// FAT_TREE, whose shortest paths are SimGrid's routes.
	Hops func(src, dst int, buf []int) []int
	// Routes, when set, are an explicit zone's routes that are not a
	// star's (general.go): Hops follows them over a graph of the zone's
	// links, whose FATPIPE channels Routes lists. Sharing is then the
	// links' one policy, SPLITDUPLEX when they mix policies.
	Routes *Routes
	// RouterLimiters: every router has a limiter link of bandwidth
	// Limiter too (SimGrid 3.32's DRAGONFLY).
	RouterLimiters bool
	// Summary describes what was read in one line.
	Summary string
}

// HostIndex returns the node of the named host.
func (p *Platform) HostIndex(name string) (int, bool) {
	for i, h := range p.Hosts {
		if h == name {
			return i, true
		}
	}
	return 0, false
}

// Error is a platform file that cannot be read or uses something the
// simulator does not model.
type Error struct {
	File    string
	Line    int
	Element string // without brackets; empty for the whole file
	Msg     string
}

func (e *Error) Error() string {
	switch {
	case e.Line == 0:
		return fmt.Sprintf("%s: %s", e.File, e.Msg)
	case e.Element == "":
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s:%d: <%s>: %s", e.File, e.Line, e.Element, e.Msg)
}

// MaxFileSize bounds a platform file: the largest real ones are a few
// megabytes of explicit routes.
const MaxFileSize = 256 << 20

// FreeBandwidth is the bandwidth of a link that costs nothing: the
// terminal links of a TORUS cluster, whose hosts drive their torus links
// directly in SimGrid, have no latency and 10^30 B/s, at which a petabyte
// takes less than the engine's picosecond — finite, so that no model
// meets an infinity.
const FreeBandwidth = 1e30

type frame struct {
	name string
	line int
}

type hostDecl struct {
	name  string
	speed float64
	cores int
	line  int
}

// pointDecl is a host or a <router> of an explicit zone.
type pointDecl struct {
	name   string
	router bool
	line   int
	host   int // the host's index in zoneDecl.hosts; -1 for a router
}

type linkDecl struct {
	props   topology.LinkProps
	sharing Sharing
	line    int
}

type hop struct {
	link string
	dir  string // "", "UP" or "DOWN"
}

type routeDecl struct {
	src, dst string
	links    []hop
	sym      bool
	line     int
}

// zoneDecl collects an explicit zone's declarations until it closes.
type zoneDecl struct {
	id, routing string
	line        int
	depth       int // its place on the element stack
	hosts       []hostDecl
	// points are the zone's hosts and routers in declaration order:
	// SimGrid numbers them so (its Floyd tables), routers after the
	// hosts only where the file declares them after.
	points []pointDecl
	links  map[string]linkDecl
	routes []routeDecl
	// cabinets and backbone: a routing="Cluster" zone's (cabinet.go).
	cabinets     []cabinetDecl
	backbone     *topology.LinkProps
	backboneLine int
}

type parser struct {
	file     string
	newlines []int
	stack    []frame
	version  bool
	network  *Platform
	netLine  int
	zone     *zoneDecl // the innermost open explicit zone
	route    *routeDecl
}

func (p *parser) lineOf(off int64) int {
	return sort.SearchInts(p.newlines, int(off)) + 1
}

func (p *parser) errAt(line int, elem, format string, args ...any) error {
	return &Error{File: p.file, Line: line, Element: elem, Msg: fmt.Sprintf(format, args...)}
}

// Parse reads a platform file; name is used in errors and in Platform.File.
func Parse(r io.Reader, name string) (*Platform, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(data) > MaxFileSize {
		return nil, &Error{File: name, Msg: fmt.Sprintf("larger than %d MiB", MaxFileSize>>20)}
	}
	p := &parser{file: name}
	for i, b := range data {
		if b == '\n' {
			p.newlines = append(p.newlines, i)
		}
	}
	dec := xml.NewDecoder(bytes.NewReader(data))
	for {
		off := dec.InputOffset()
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			var se *xml.SyntaxError
			if errors.As(err, &se) {
				return nil, &Error{File: name, Line: se.Line, Msg: "malformed XML: " + se.Msg}
			}
			return nil, &Error{File: name, Line: p.lineOf(dec.InputOffset()), Msg: "malformed XML: " + err.Error()}
		}
		// The token starts after any blank text the decoder skipped
		// into it; count the line of its first non-blank byte.
		start := int(off)
		for start < len(data) && (data[start] == ' ' || data[start] == '\t' || data[start] == '\n' || data[start] == '\r') {
			start++
		}
		line := p.lineOf(int64(start))
		switch t := tok.(type) {
		case xml.StartElement:
			if err := p.start(t, line); err != nil {
				return nil, err
			}
		case xml.EndElement:
			if err := p.end(t.Name.Local); err != nil {
				return nil, err
			}
			p.stack = p.stack[:len(p.stack)-1]
		case xml.CharData:
			if len(bytes.TrimSpace(t)) > 0 {
				where := "outside any element"
				if len(p.stack) > 0 {
					where = "inside <" + p.stack[len(p.stack)-1].name + ">"
				}
				return nil, p.errAt(line, "", "unexpected text %q %s", truncate(string(bytes.TrimSpace(t))), where)
			}
		}
	}
	if p.network == nil {
		return nil, &Error{File: name, Msg: "no network: expected a <cluster> or a <zone> of <host>, <link> and <route> elements"}
	}
	return p.network, nil
}

func truncate(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

// attrs gives an element's attributes by name and remembers which were
// read, so that the rest can be reported.
type attrs struct {
	p    *parser
	elem string
	line int
	m    map[string]string
	used map[string]bool
}

func (p *parser) attrsOf(t xml.StartElement, line int) (*attrs, error) {
	a := &attrs{p: p, elem: t.Name.Local, line: line, m: map[string]string{}, used: map[string]bool{}}
	for _, at := range t.Attr {
		if _, dup := a.m[at.Name.Local]; dup {
			return nil, p.errAt(line, a.elem, "attribute %s given twice", at.Name.Local)
		}
		a.m[at.Name.Local] = at.Value
	}
	return a, nil
}

func (a *attrs) get(name string) (string, bool) {
	v, ok := a.m[name]
	a.used[name] = true
	return v, ok
}

func (a *attrs) required(name string) (string, error) {
	v, ok := a.get(name)
	if !ok {
		return "", a.p.errAt(a.line, a.elem, "missing attribute %s", name)
	}
	return v, nil
}

// defaulted accepts an attribute only at its DTD default value: the
// simulator does not model the others.
func (a *attrs) defaulted(name, why string, defaults ...string) error {
	v, ok := a.get(name)
	if !ok {
		return nil
	}
	for _, d := range defaults {
		if v == d {
			return nil
		}
	}
	return a.p.errAt(a.line, a.elem, "%s=%q is not modelled (%s)", name, v, why)
}

// finish reports the first attribute nothing read.
func (a *attrs) finish() error {
	var names []string
	for k := range a.m {
		if !a.used[k] {
			names = append(names, k)
		}
	}
	if len(names) == 0 {
		return nil
	}
	sort.Strings(names)
	return a.p.errAt(a.line, a.elem, "attribute %s is not supported by tracesim", names[0])
}

func (a *attrs) value(name string, parse func(string) (float64, error)) (float64, error) {
	v, err := a.required(name)
	if err != nil {
		return 0, err
	}
	f, err := parse(v)
	if err != nil {
		return 0, a.p.errAt(a.line, a.elem, "%s: %v", name, err)
	}
	return f, nil
}

func (a *attrs) bandwidth(name string) (float64, error) {
	bw, err := a.value(name, ParseBandwidth)
	if err == nil && !(bw > 0) {
		err = a.p.errAt(a.line, a.elem, "%s: bandwidth must be positive", name)
	}
	return bw, err
}

func (a *attrs) latency(name string) (int64, error) {
	s, err := a.value(name, ParseTime)
	if err != nil {
		return 0, err
	}
	if s < 0 || s > 1e6 {
		return 0, a.p.errAt(a.line, a.elem, "%s: latency must be between 0 and 10^6 s", name)
	}
	return int64(math.Round(s * 1e12)), nil
}

func (a *attrs) speed(name string) (float64, error) {
	v, err := a.required(name)
	if err != nil {
		return 0, err
	}
	if strings.Contains(v, ",") {
		return 0, a.p.errAt(a.line, a.elem, "%s=%q: several power states are not modelled (give one speed)", name, v)
	}
	f, err := ParseSpeed(strings.TrimSpace(v))
	if err != nil {
		return 0, a.p.errAt(a.line, a.elem, "%s: %v", name, err)
	}
	if !(f > 0) {
		return 0, a.p.errAt(a.line, a.elem, "%s: speed must be positive", name)
	}
	return f, nil
}

// cores reads a host's or cluster's core attribute: its number of
// cores, 1 when absent.
func (a *attrs) cores() (int, error) {
	v, ok := a.get("core")
	if !ok {
		return 1, nil
	}
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n < 1 || n > 1<<20 {
		return 0, a.p.errAt(a.line, a.elem, "core=%q: expected a number of cores from 1 to %d", v, 1<<20)
	}
	return n, nil
}

func (a *attrs) sharing(def Sharing) (Sharing, error) {
	v, ok := a.get("sharing_policy")
	if !ok {
		return def, nil
	}
	var s Sharing
	switch v {
	case "SPLITDUPLEX", "FULLDUPLEX":
		s = SplitDuplex
	case "SHARED":
		s = Shared
	case "FATPIPE":
		s = FatPipe
	default:
		return 0, a.p.errAt(a.line, a.elem, "sharing_policy=%q is not modelled (expected SHARED, SPLITDUPLEX or FATPIPE)", v)
	}
	return s, nil
}

func (p *parser) parent() string {
	if len(p.stack) == 0 {
		return ""
	}
	return p.stack[len(p.stack)-1].name
}

func (p *parser) start(t xml.StartElement, line int) error {
	name := t.Name.Local
	parent := p.parent()
	p.stack = append(p.stack, frame{name: name, line: line})
	a, err := p.attrsOf(t, line)
	if err != nil {
		return err
	}
	inZone := parent == "zone" || parent == "AS"
	switch {
	case name == "platform" && parent == "":
		v, err := a.required("version")
		if err != nil {
			return err
		}
		if v != "4" && v != "4.0" && v != "4.1" {
			return p.errAt(line, name, "version %q is not supported (expected 4.1, SimGrid 3.32's format)", v)
		}
		p.version = true
		return a.finish()
	case parent == "":
		return p.errAt(line, name, "expected <platform version=\"4.1\"> as the root element")
	case (name == "zone" || name == "AS") && (parent == "platform" || inZone):
		return p.startZone(a, line)
	case name == "cluster" && (parent == "platform" || inZone):
		return p.cluster(a, line)
	case name == "host" && inZone && p.zone != nil:
		return p.host(a, line)
	case name == "link" && inZone && p.zone != nil:
		return p.link(a, line)
	case name == "router" && inZone && p.zone != nil:
		return p.router(a, line)
	case name == "route" && inZone && p.zone != nil:
		return p.startRoute(a, line)
	case name == "link_ctn" && parent == "route":
		return p.linkCtn(a, line)
	case name == "cabinet" && inZone && p.zone != nil:
		return p.cabinet(a, line)
	case name == "backbone" && inZone && p.zone != nil:
		return p.zoneBackbone(a, line)
	}
	switch name {
	case "prop":
		return p.errAt(line, name, "properties are not modelled (inside <%s>)", parent)
	case "zone", "AS", "cluster", "host", "link", "route", "link_ctn", "platform", "cabinet", "backbone", "router":
		return p.errAt(line, name, "not expected inside <%s>", parent)
	}
	return p.errAt(line, name, "element not supported by tracesim (docs/platform.md lists what is)")
}

func (p *parser) end(name string) error {
	switch name {
	case "zone", "AS":
		if p.zone != nil && len(p.stack) == p.zone.depth {
			z := p.zone
			p.zone = nil
			return p.explicit(z)
		}
	case "route":
		if p.route != nil {
			p.zone.routes = append(p.zone.routes, *p.route)
			p.route = nil
		}
	}
	return nil
}

func (p *parser) claim(line int, elem string) error {
	if p.network != nil || p.netLine != 0 {
		return p.errAt(line, elem, "a second network (the first is on line %d): several clusters or zones of hosts joined by zone routes are not modelled", p.netLine)
	}
	p.netLine = line
	return nil
}

func (p *parser) startZone(a *attrs, line int) error {
	id, err := a.required("id")
	if err != nil {
		return err
	}
	routing, err := a.required("routing")
	if err != nil {
		return err
	}
	if err := a.finish(); err != nil {
		return err
	}
	switch routing {
	case "Full", "Floyd", "Dijkstra", "DijkstraCache", "Cluster", "None", "Star":
	default:
		return p.errAt(line, "zone", "routing=%q is not modelled (expected Full, Floyd, Dijkstra, DijkstraCache, Cluster, Star or None)", routing)
	}
	if p.zone != nil {
		// Hosts of an outer zone and an inner one would need zone routes.
		if len(p.zone.points) > 0 || len(p.zone.links) > 0 {
			return p.errAt(line, "zone", "zones nested inside a zone with hosts or links need zone routes, which are not modelled")
		}
	}
	p.zone = &zoneDecl{id: id, routing: routing, line: line, depth: len(p.stack), links: map[string]linkDecl{}}
	return nil
}

func (p *parser) host(a *attrs, line int) error {
	id, err := a.required("id")
	if err != nil {
		return err
	}
	speed, err := a.speed("speed")
	if err != nil {
		return err
	}
	cores, err := a.cores()
	if err != nil {
		return err
	}
	if err := a.defaulted("pstate", "one power state", "0", "0.0"); err != nil {
		return err
	}
	if err := a.defaulted("coordinates", "Vivaldi coordinates", ""); err != nil {
		return err
	}
	if err := a.finish(); err != nil {
		return err
	}
	z := p.zone
	if len(z.hosts) == 0 {
		if err := p.claim(line, "host"); err != nil {
			return err
		}
	}
	for _, h := range z.hosts {
		if h.name == id {
			return p.errAt(line, "host", "host %q is already declared on line %d", id, h.line)
		}
	}
	for _, pt := range z.points {
		if pt.router && pt.name == id {
			return p.errAt(line, "host", "%q is already declared as a router on line %d", id, pt.line)
		}
	}
	z.points = append(z.points, pointDecl{name: id, line: line, host: len(z.hosts)})
	z.hosts = append(z.hosts, hostDecl{name: id, speed: speed, cores: cores, line: line})
	return nil
}

// router reads a <router id> of an explicit zone: a point of its routes
// that runs nothing.
func (p *parser) router(a *attrs, line int) error {
	id, err := a.required("id")
	if err != nil {
		return err
	}
	if err := a.defaulted("coordinates", "Vivaldi coordinates", ""); err != nil {
		return err
	}
	if err := a.finish(); err != nil {
		return err
	}
	for _, pt := range p.zone.points {
		if pt.name == id {
			return p.errAt(line, "router", "%q is already declared on line %d", id, pt.line)
		}
	}
	p.zone.points = append(p.zone.points, pointDecl{name: id, router: true, line: line, host: -1})
	return nil
}

func (p *parser) link(a *attrs, line int) error {
	id, err := a.required("id")
	if err != nil {
		return err
	}
	bw, err := a.bandwidth("bandwidth")
	if err != nil {
		return err
	}
	lat := int64(0)
	if _, ok := a.m["latency"]; ok {
		if lat, err = a.latency("latency"); err != nil {
			return err
		}
	}
	sh, err := a.sharing(Shared)
	if err != nil {
		return err
	}
	if err := a.finish(); err != nil {
		return err
	}
	if prev, dup := p.zone.links[id]; dup {
		return p.errAt(line, "link", "link %q is already declared on line %d", id, prev.line)
	}
	p.zone.links[id] = linkDecl{props: topology.LinkProps{Bandwidth: bw, Latency: lat}, sharing: sh, line: line}
	return nil
}

func (p *parser) startRoute(a *attrs, line int) error {
	src, err := a.required("src")
	if err != nil {
		return err
	}
	dst, err := a.required("dst")
	if err != nil {
		return err
	}
	sym := true
	if v, ok := a.get("symmetrical"); ok {
		switch v {
		case "YES", "yes":
		case "NO", "no":
			sym = false
		default:
			return p.errAt(line, "route", "symmetrical=%q (expected YES or NO)", v)
		}
	}
	if err := a.finish(); err != nil {
		return err
	}
	p.route = &routeDecl{src: src, dst: dst, sym: sym, line: line}
	return nil
}
