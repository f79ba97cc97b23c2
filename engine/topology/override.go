package topology

import (
	"fmt"
	"math"
	"sort"
)

// overrides holds per-link property overrides; it is embedded by every
// topology so that Link can consult it.
type overrides struct {
	over map[LinkID]LinkProps
}

func (o *overrides) apply(id LinkID, p LinkProps) LinkProps {
	if len(o.over) == 0 {
		return p
	}
	if q, ok := o.over[id]; ok {
		return q
	}
	return p
}

// Overrides returns a copy of the per-link overrides in effect.
func Overrides(t Topology) map[LinkID]LinkProps {
	o := embedded(t)
	if o == nil {
		return nil
	}
	out := make(map[LinkID]LinkProps, len(o.over))
	for k, v := range o.over {
		out[k] = v
	}
	return out
}

func embedded(t Topology) *overrides {
	switch t := t.(type) {
	case *Grid:
		return &t.overrides
	case *FatTree:
		return &t.overrides
	case *Dragonfly:
		return &t.overrides
	case *Star:
		return &t.overrides
	case *Graph:
		return &t.overrides
	}
	return nil
}

// WithOverrides returns a copy of t in which the given links have the given
// properties (on top of any overrides t already has). It is how a what-if
// study slows down or speeds up individual links; t itself is unchanged.
// Every id must be a valid link of t and every bandwidth positive.
func WithOverrides(t Topology, over map[LinkID]LinkProps) (Topology, error) {
	ids := make([]LinkID, 0, len(over))
	for id := range over {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	for _, id := range ids {
		p := over[id]
		if !t.Link(id).Valid {
			return nil, fmt.Errorf("topology %s: link override: %d is not a link (valid ids are below %d and connected)", t.Spec(), id, t.NumLinks())
		}
		if !(p.Bandwidth > 0) || math.IsInf(p.Bandwidth, 0) || p.Latency < 0 {
			return nil, fmt.Errorf("topology %s: link override %d: bandwidth must be positive and finite and latency non-negative", t.Spec(), id)
		}
	}
	merge := func(o overrides) overrides {
		m := make(map[LinkID]LinkProps, len(o.over)+len(over))
		for k, v := range o.over {
			m[k] = v
		}
		for k, v := range over {
			m[k] = v
		}
		return overrides{over: m}
	}
	switch t := t.(type) {
	case *Grid:
		c := *t
		c.overrides = merge(t.overrides)
		return &c, nil
	case *FatTree:
		c := *t
		c.overrides = merge(t.overrides)
		return &c, nil
	case *Dragonfly:
		c := *t
		c.overrides = merge(t.overrides)
		return &c, nil
	case *Star:
		c := *t
		c.overrides = merge(t.overrides)
		return &c, nil
	case *Graph:
		c := *t
		c.overrides = merge(t.overrides)
		return &c, nil
	}
	return nil, fmt.Errorf("topology: overrides are not supported for %T", t)
}
