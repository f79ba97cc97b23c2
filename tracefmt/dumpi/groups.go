package dumpi

import "slices"

// groupEmpty is the handle DUMPI gives MPI_GROUP_EMPTY (1 is
// MPI_GROUP_NULL, user groups start at 3).
const groupEmpty = 2

// groupComm is the op of a group taken from a communicator
// (MPI_Comm_group); the others are the MPI function names without
// "MPI_".
const (
	groupComm    = "Comm_group"
	groupEmptyOp = "empty" // MPI_GROUP_EMPTY
)

// group is a process group as a rank built it, kept as the calls that
// made it: its members are known only once the communicator it came from
// is resolved (resolveComms).
type group struct {
	op   string
	base commKey // groupComm: the communicator
	a, b *group  // the operand(s) of the other ops
	// ranks are Group_incl/excl's positions in a, or Group_range_*'s
	// (first, last, stride) triples one after the other.
	ranks []int32
}

// setGroup makes h name g (nil: a group the reader cannot follow).
func (rd *rankReader) setGroup(h int64, g *group) {
	if rd.groups == nil {
		rd.groups = map[int64]*group{}
	}
	if g == nil {
		delete(rd.groups, h)
		return
	}
	rd.groups[h] = g
}

// derive returns the group op makes of the group named h with ranks, or
// nil when h names none the reader knows.
func (rd *rankReader) derive(h int64, op string, ranks []int32) *group {
	a := rd.group(h)
	if a == nil {
		return nil
	}
	return &group{op: op, a: a, ranks: slices.Clone(ranks)}
}

// group returns the group named h: a built one, MPI_GROUP_EMPTY, or nil.
func (rd *rankReader) group(h int64) *group {
	if h == groupEmpty {
		return &group{op: groupEmptyOp}
	}
	return rd.groups[h]
}

// maxGroupRanges bounds the members a range triple may list, so that a
// corrupt stride cannot make a reader loop for long.
const maxGroupRanges = 1 << 24

// members returns the world ranks of g in group order, with resolve giving
// a communicator's members; false when a communicator is unresolved or a
// position is out of range (a trace MPI would have refused).
func (g *group) members(resolve func(commKey) ([]int32, bool)) ([]int32, bool) {
	if g == nil {
		return nil, false
	}
	switch g.op {
	case groupComm:
		return resolve(g.base)
	case groupEmptyOp:
		return nil, true
	}
	a, ok := g.a.members(resolve)
	if !ok {
		return nil, false
	}
	var b []int32
	if g.b != nil {
		if b, ok = g.b.members(resolve); !ok {
			return nil, false
		}
	}
	// positions lists the positions of a that g.ranks name.
	positions := func() ([]int, bool) {
		var out []int
		if g.op == "Group_incl" || g.op == "Group_excl" {
			for _, p := range g.ranks {
				if p < 0 || int(p) >= len(a) {
					return nil, false
				}
				out = append(out, int(p))
			}
			return out, true
		}
		for i := 0; i+2 < len(g.ranks); i += 3 {
			first, last, stride := int(g.ranks[i]), int(g.ranks[i+1]), int(g.ranks[i+2])
			if stride == 0 || (last-first)/stride >= maxGroupRanges {
				return nil, false
			}
			for p := first; (stride > 0 && p <= last) || (stride < 0 && p >= last); p += stride {
				if p < 0 || p >= len(a) {
					return nil, false
				}
				out = append(out, p)
			}
		}
		return out, true
	}
	in := func(list []int32) map[int32]bool {
		m := make(map[int32]bool, len(list))
		for _, w := range list {
			m[w] = true
		}
		return m
	}
	var out []int32
	switch g.op {
	case "Group_incl", "Group_range_incl":
		ps, ok := positions()
		if !ok {
			return nil, false
		}
		for _, p := range ps {
			out = append(out, a[p])
		}
	case "Group_excl", "Group_range_excl":
		ps, ok := positions()
		if !ok {
			return nil, false
		}
		drop := make([]bool, len(a))
		for _, p := range ps {
			drop[p] = true
		}
		for i, w := range a {
			if !drop[i] {
				out = append(out, w)
			}
		}
	case "Group_union":
		out = slices.Clone(a)
		inA := in(a)
		for _, w := range b {
			if !inA[w] {
				out = append(out, w)
			}
		}
	case "Group_intersection", "Group_difference":
		inB := in(b)
		for _, w := range a {
			if inB[w] == (g.op == "Group_intersection") {
				out = append(out, w)
			}
		}
	default:
		return nil, false
	}
	return out, true
}
