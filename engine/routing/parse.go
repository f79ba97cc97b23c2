package routing

import (
	"fmt"
	"strings"

	"github.com/tracesim/tracesim/engine/topology"
)

// Info describes a routing available on a topology, for help texts and the
// TUI's routing form (which filters its choices with Available).
type Info struct {
	// Name is what Parse accepts.
	Name string
	// Summary is a one-line description.
	Summary string
	// MinVCs is the number of virtual channels the routing needs on this
	// topology.
	MinVCs int
	// DeadlockFree reports whether the literature guarantees freedom from
	// deadlock (given at least MinVCs VCs and, for bubble routings, a
	// packet model that honours the Bubble flag).
	DeadlockFree bool
}

func hasWrap(g *topology.Grid) bool {
	for d := 0; d < g.NumDims(); d++ {
		if g.Wraps(d) {
			return true
		}
	}
	return false
}

// Available lists the routings valid on t, the default first.
func Available(t topology.Topology) []Info {
	switch t := t.(type) {
	case *topology.Grid:
		wrap := hasWrap(t)
		dorVCs, valVCs := 1, 2
		if wrap {
			dorVCs, valVCs = 2, 4
		}
		dorSum := "dimension order (X, then Y, …)"
		if wrap {
			dorSum += "; dateline VCs: the lower half of the VCs until the wraparound link, the upper half after it"
		}
		out := []Info{{Name: "dor", Summary: dorSum, MinVCs: dorVCs, DeadlockFree: true}}
		if wrap {
			out = append(out,
				Info{Name: "dor:bubble", Summary: "dimension order with bubble flow control (INSEE, Blue Gene/L): entering a ring needs room for two packets", MinVCs: 1, DeadlockFree: true},
				Info{Name: "dor:none", Summary: "dimension order with no deadlock avoidance (deadlocks on tori under load; for experiments)", MinVCs: 1})
		}
		esc := "dimension order"
		if wrap {
			esc += " with bubble flow control"
		}
		out = append(out,
			Info{Name: "adaptive", Summary: "minimal adaptive: VC 0 is an escape channel (" + esc + "), the other VCs take any minimal direction (INSEE adaptive 3 VC with 3 VCs)", MinVCs: 2, DeadlockFree: true},
			Info{Name: "minimal", Summary: "any minimal direction on any VC, lowest dimension first (no deadlock guarantee)", MinVCs: 1},
			Info{Name: "minimal:random", Summary: "any minimal direction, random first choice (no deadlock guarantee)", MinVCs: 1},
			Info{Name: "minimal:rr", Summary: "any minimal direction, round-robin first choice per router (no deadlock guarantee)", MinVCs: 1},
			Info{Name: "minimal:queue", Summary: "any minimal direction, shortest queue first (no deadlock guarantee)", MinVCs: 1},
			Info{Name: "valiant", Summary: "Valiant: dimension order to a random intermediate router, then to the destination; one VC class per phase" + map[bool]string{true: ", dateline within each", false: ""}[wrap], MinVCs: valVCs, DeadlockFree: true})
		if wrap {
			out = append(out, Info{Name: "valiant:bubble", Summary: "Valiant with bubble flow control, one VC class per phase", MinVCs: 2, DeadlockFree: true})
		}
		return out
	case *topology.FatTree:
		return []Info{
			{Name: "updown", Summary: "up/down: up to a nearest common ancestor by destination-mod-k, then down", MinVCs: 1, DeadlockFree: true},
			{Name: "updown:random", Summary: "up/down with a random up port", MinVCs: 1, DeadlockFree: true},
			{Name: "updown:rr", Summary: "up/down with round-robin up ports per switch", MinVCs: 1, DeadlockFree: true},
			{Name: "updown:adaptive", Summary: "up/down with the least loaded up port", MinVCs: 1, DeadlockFree: true},
		}
	case *topology.Dragonfly:
		return []Info{
			{Name: "minimal", Summary: "minimal: local, global, local hop; VC = number of global hops taken", MinVCs: 2, DeadlockFree: true},
			{Name: "valiant", Summary: "Valiant: minimal to a random intermediate group, then minimal to the destination", MinVCs: 3, DeadlockFree: true},
			{Name: "ugal", Summary: "UGAL-L: at the source, minimal or Valiant by comparing queue length × hops", MinVCs: 3, DeadlockFree: true},
		}
	case *topology.Star:
		return []Info{{Name: "minimal", Summary: "straight to the destination's port", MinVCs: 1, DeadlockFree: true}}
	case *topology.Graph:
		return []Info{
			{Name: "updown", Summary: "up*/down* (Autonet) on a breadth-first spanning tree: shortest legal path, first port", MinVCs: 1, DeadlockFree: true},
			{Name: "updown:random", Summary: "up*/down*, random first choice among shortest legal ports", MinVCs: 1, DeadlockFree: true},
			{Name: "updown:rr", Summary: "up*/down*, round-robin among shortest legal ports", MinVCs: 1, DeadlockFree: true},
			{Name: "updown:adaptive", Summary: "up*/down*, least loaded shortest legal port", MinVCs: 1, DeadlockFree: true},
			{Name: "minimal", Summary: "shortest paths (breadth-first search), first port (no deadlock guarantee)", MinVCs: 1},
			{Name: "minimal:random", Summary: "shortest paths, random first choice (no deadlock guarantee)", MinVCs: 1},
			{Name: "minimal:rr", Summary: "shortest paths, round-robin per router (no deadlock guarantee)", MinVCs: 1},
			{Name: "minimal:queue", Summary: "shortest paths, shortest queue first (no deadlock guarantee)", MinVCs: 1},
		}
	}
	return nil
}

// Names lists the names of the routings valid on t, the default first.
func Names(t topology.Topology) []string {
	infos := Available(t)
	out := make([]string, len(infos))
	for i, in := range infos {
		out[i] = in.Name
	}
	return out
}

// Default is the first deadlock-free routing on t that works with vcs
// virtual channels ("dor:bubble" on a torus with one VC, "dor" with two).
func Default(t topology.Topology, vcs int) (string, error) {
	for _, in := range Available(t) {
		if in.DeadlockFree && in.MinVCs <= vcs {
			return in.Name, nil
		}
	}
	return "", fmt.Errorf("routing: no deadlock-free routing on %s with %d virtual channels", t.Spec(), vcs)
}

// Random reports whether the routing called name draws from its seeded
// random source (Options.Seed), so that the seed changes its routes:
// Valiant's intermediate router or group, UGAL's Valiant candidate, and
// the ":random" orders. Every other routing is the same for every seed.
func Random(name string) bool {
	base, variant, _ := strings.Cut(strings.ToLower(strings.TrimSpace(name)), ":")
	return base == "valiant" || base == "ugal" || variant == "random"
}

// Parse builds the named routing for t. Errors say which routings t
// accepts and how many virtual channels a routing needs.
func Parse(name string, t topology.Topology, opt Options) (Algorithm, error) {
	if t == nil {
		return nil, fmt.Errorf("routing %q: no topology", name)
	}
	if opt.VCs == 0 {
		opt.VCs = 1
	}
	if opt.VCs < 1 || opt.VCs > MaxVCs {
		return nil, fmt.Errorf("routing %q: %d virtual channels (expected 1 to %d)", name, opt.VCs, MaxVCs)
	}
	key := strings.ToLower(strings.TrimSpace(name))
	var info *Info
	infos := Available(t)
	for i := range infos {
		if infos[i].Name == key {
			info = &infos[i]
		}
	}
	if info == nil {
		return nil, fmt.Errorf("routing %q is not valid on %s (valid: %s)", name, t.Spec(), strings.Join(Names(t), ", "))
	}
	if opt.VCs < info.MinVCs {
		hint := ""
		if key == "dor" {
			hint = "; use dor:bubble for one VC"
		}
		return nil, fmt.Errorf("routing %q on %s needs at least %d virtual channels, have %d%s", key, t.Spec(), info.MinVCs, opt.VCs, hint)
	}
	base, variant, _ := strings.Cut(key, ":")
	switch t := t.(type) {
	case *topology.Grid:
		return newGridAlg(key, base, variant, t, opt), nil
	case *topology.FatTree:
		return newTreeAlg(key, variant, t, opt), nil
	case *topology.Dragonfly:
		return newDflyAlg(key, t, opt), nil
	case *topology.Star:
		return newStarAlg(key, t, opt), nil
	case *topology.Graph:
		return newGraphAlg(key, base, variant, t, opt), nil
	}
	return nil, fmt.Errorf("routing %q: unsupported topology %T", name, t)
}

func policyOf(variant string) policy {
	switch variant {
	case "random":
		return policyRandom
	case "rr":
		return policyRR
	case "queue", "adaptive":
		return policyQueue
	}
	return policyFirst
}
