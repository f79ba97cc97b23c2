package dumpi

import (
	"cmp"
	"slices"
	"strconv"

	"github.com/tracesim/tracesim/tracefmt"
)

// resolveComms works out the members of the communicators the ranks
// created, from MPI_COMM_WORLD down: the k-th creation call of each member
// on a communicator is one collective call; a dup has the same members, a
// split one communicator per colour (negative: MPI_UNDEFINED, none) with
// its members ordered by key, then by rank in the parent, a create the
// members of its group in the group's order (the group as the rank built
// it with MPI_Comm_group and MPI_Group_*; a group the trace did not build
// leaves the communicator unresolved). Then the events read on such
// communicators get their world peers, roots and communicator, and those
// on unresolved ones are counted.
func (st *state) resolveComms() error {
	P := st.m.ranks
	world := make([]int32, P)
	for i := range world {
		world[i] = int32(i)
	}
	members := [][]int32{world}
	handles := make([]map[commKey]int, P) // a rank's handle → communicator
	owner := make([]map[int]commKey, P)   // a communicator → the rank's handle
	byOld := make([]map[commKey][]create, P)
	for r := 0; r < P; r++ {
		handles[r] = map[commKey]int{{commWorld, 0}: 0}
		owner[r] = map[int]commKey{0: {commWorld, 0}}
		byOld[r] = map[commKey][]create{}
		for _, c := range st.creates[r] {
			byOld[r][c.old] = append(byOld[r][c.old], c)
		}
	}
	for g := 0; g < len(members); g++ {
		m := members[g]
		for k := 0; ; k++ {
			calls := make([]create, 0, len(m))
			for _, w := range m {
				list := byOld[w][owner[w][g]]
				if k >= len(list) {
					break
				}
				calls = append(calls, list[k])
			}
			if len(calls) < len(m) || slices.ContainsFunc(calls, func(c create) bool { return c.kind != calls[0].kind }) {
				break // not every member took part: leave the rest unresolved
			}
			add := func(ms []int32, locals []int) {
				id := len(members)
				members = append(members, ms)
				for _, li := range locals {
					w := m[li]
					handles[w][calls[li].new] = id
					owner[w][id] = calls[li].new
				}
			}
			switch calls[0].kind {
			case "Comm_dup":
				locals := make([]int, len(m))
				for i := range locals {
					locals[i] = i
				}
				add(slices.Clone(m), locals)
			case "Comm_split":
				byColor := map[int64][]int{}
				for li, c := range calls {
					if c.color >= 0 {
						byColor[c.color] = append(byColor[c.color], li)
					}
				}
				colors := make([]int64, 0, len(byColor))
				for c := range byColor {
					colors = append(colors, c)
				}
				slices.Sort(colors)
				for _, color := range colors {
					locals := byColor[color]
					slices.SortStableFunc(locals, func(a, b int) int { return cmp.Compare(calls[a].key, calls[b].key) })
					ms := make([]int32, len(locals))
					for i, li := range locals {
						ms[i] = m[li]
					}
					add(ms, locals)
				}
			case "Comm_create":
				// Every member passes the same group; the first that
				// resolves gives it. Members outside it get
				// MPI_COMM_NULL.
				var ms []int32
				for li, c := range calls {
					w := m[li]
					resolve := func(k commKey) ([]int32, bool) {
						id, ok := handles[w][k]
						if !ok {
							return nil, false
						}
						return members[id], true
					}
					if g, ok := c.group.members(resolve); ok {
						ms = g
						break
					}
				}
				if len(ms) == 0 {
					continue // an unknown or empty group: no communicator
				}
				in := make(map[int32]bool, len(ms))
				for _, w := range ms {
					in[w] = true
				}
				var locals []int
				for li, w := range m {
					if in[w] {
						locals = append(locals, li)
					}
				}
				if len(locals) != len(ms) {
					continue // a group beyond the communicator (or with repeats): not MPI
				}
				add(ms, locals)
			}
		}
	}
	// Communicators that events use become the trace's.
	index := map[int]uint16{0: 0}
	t := st.b.Trace()
	for r := 0; r < P; r++ {
		ev := t.Ranks[r].Events
		for _, f := range st.fixes[r] {
			g, ok := handles[r][f.comm]
			if !ok || f.index >= len(ev) {
				st.unmapped++
				continue
			}
			ci, ok := index[g]
			if !ok {
				var err error
				if ci, err = st.b.AddComm(tracefmt.Comm{Name: "comm " + strconv.Itoa(g), Ranks: members[g]}); err != nil {
					return err
				}
				index[g] = ci
			}
			ms := members[g]
			e := &ev[f.index]
			inRange := f.local >= 0 && f.local < int64(len(ms))
			switch f.kind {
			case fixPeer:
				if !inRange {
					st.unmapped++
					continue
				}
				e.Peer, e.Comm = ms[f.local], ci
			case fixColl:
				e.Comm = ci
				if e.Op().Rooted() && inRange {
					e.Peer = ms[f.local]
				}
				if f.perSides != 0 {
					sent, recvd := bySize(f.per, f.perSides, int64(len(ms)))
					flags := e.Flags
					*e = tracefmt.Collective(e.Time, e.Op(), e.Root(), ci, sent, recvd)
					e.Flags = flags
				}
			case fixRooted:
				root := -1
				if inRange {
					root = int(ms[f.local])
				}
				sent, recvd := int64(0), f.n
				switch {
				case e.Op() == tracefmt.OpBcast && root == r:
					sent, recvd = f.n, 0
				case e.Op() == tracefmt.OpReduce && root == r:
					sent, recvd = f.n, f.n
				case e.Op() == tracefmt.OpReduce:
					sent, recvd = f.n, 0
				}
				*e = tracefmt.Collective(e.Time, e.Op(), root, ci, sent, recvd)
			}
		}
	}
	return nil
}
