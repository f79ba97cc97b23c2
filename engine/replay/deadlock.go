package replay

import (
	"fmt"
	"slices"
	"strings"

	"github.com/tracesim/tracesim/engine/netmodel"
	"github.com/tracesim/tracesim/tracefmt"
)

// Deadlock explains a run that stopped with ranks blocked: nothing was
// left to simulate while they still waited.
type Deadlock struct {
	// Time is when the last event happened, in seconds.
	Time float64 `json:"time_s"`
	// Blocked details the first ListedBlocked ranks that had not
	// finished, and the first two of Cycle; BlockedTotal counts them all
	// and MoreBlocked sums up the others, so that the report of a large
	// world stays readable (and small).
	Blocked []BlockedRank `json:"blocked"`
	// BlockedTotal is the number of ranks that had not finished.
	BlockedTotal int `json:"blocked_total"`
	// MoreBlocked counts the blocked ranks left out of Blocked by the
	// operation they are blocked in ("200 in MPI_Waitall"), most
	// frequent first.
	MoreBlocked []string `json:"more_blocked"`
	// Cycle is a wait-for cycle among the blocked ranks, its first rank
	// repeated at the end ([0, 1, 0]); empty when the ranks wait for
	// ranks that finished or for messages never sent.
	Cycle []int `json:"cycle"`
	// Network explains messages stuck in the network, if any.
	Network []string `json:"network"`
	// NetworkStall lists the full buffers of a packet-level network and
	// the cycle of buffers its packets wait in, when messages are stuck
	// there; nil otherwise.
	NetworkStall *netmodel.Stall `json:"network_stall"`
	// Explanation says, for sends blocked by the send semantics, the
	// cause (the sends above the eager threshold, or synchronous), whether
	// the recorded run completed them, and the setting that replays them
	// buffered; empty otherwise. Message ends with it.
	Explanation []string `json:"explanation"`
	// Message is a one-paragraph explanation.
	Message string `json:"message"`
}

// BlockedRank is a rank a deadlock left blocked.
type BlockedRank struct {
	Rank int `json:"rank"`
	// Event is the trace record it is blocked at.
	Event int `json:"event"`
	// Op names the operation ("MPI_Recv from 1, tag 0, 1000 B").
	Op string `json:"op"`
	// WaitsFor lists the ranks whose progress it needs, at most
	// ListedItems of them; MoreWaitsFor counts the others.
	WaitsFor     []int `json:"waits_for"`
	MoreWaitsFor int   `json:"more_waits_for"`
	// Waiting lists what it waits for, one item per operation, at most
	// ListedItems of them; MoreWaiting counts the others.
	Waiting     []string `json:"waiting"`
	MoreWaiting int      `json:"more_waiting"`
}

// Bounds of a deadlock report: a world of thousands of ranks each
// waiting for hundreds of messages would otherwise make megabytes of it.
const (
	// ListedBlocked is how many blocked ranks a report details.
	ListedBlocked = 16
	// ListedItems is how many ranks and operations a blocked rank's
	// entry lists.
	ListedItems = 8
	// listedCycle is how many ranks of the cycle the message names.
	listedCycle = 16
)

// analyseDeadlock builds the wait-for graph of the blocked ranks.
func (s *Sim) analyseDeadlock() *Deadlock {
	d := &Deadlock{Time: s.k.Now().Seconds(), Cycle: []int{}, Network: s.net.Explain()}
	if d.Network == nil {
		d.Network = []string{}
	}
	if st, ok := s.net.(netmodel.Staller); ok && s.net.InFlight() > 0 {
		d.NetworkStall = st.Stall()
	}
	P := len(s.ranks)
	waits := make([][]int, P)
	// Duplicates are removed once all are in: checking each addition
	// would be quadratic in the ranks a wildcard receive waits for.
	add := func(r, on int) { waits[r] = append(waits[r], on) }
	items := make([][]string, P)
	// Receives the ranks wait for.
	for i := range s.ops {
		o := &s.ops[i]
		if !o.live() || o.done() || !o.waiter() {
			continue
		}
		r := int(o.rank)
		switch {
		case o.msg >= 0:
			items[r] = append(items[r], fmt.Sprintf("the data of a message from rank %d, still in the network", s.msgs[o.msg].src))
		case o.anySrc():
			items[r] = append(items[r], fmt.Sprintf("a message from any rank (tag %s)", tagText(o.tag, o.anyTag(), o.coll())))
			for q := range P {
				if q != r && s.ranks[q].state != StateDone {
					add(r, q)
				}
			}
		default:
			items[r] = append(items[r], fmt.Sprintf("a message from rank %d (tag %s)%s", o.src, tagText(o.tag, false, o.coll()), s.finishedNote(int(o.src))))
			add(r, int(o.src))
		}
	}
	// Sends the ranks wait for.
	for i := range s.msgs {
		m := &s.msgs[i]
		if !m.live || m.sendDone || !(m.waits&waitSend != 0 || (m.waits&waitCall != 0 && s.ranks[m.src].waitCall)) {
			continue
		}
		r := int(m.src)
		what := "to be received"
		switch {
		case m.complete == doneAtDelivery && m.recvOp >= 0:
			what = "to arrive"
		case m.complete == doneAtDelivery:
			what = "to be matched (rendezvous)"
		}
		items[r] = append(items[r], fmt.Sprintf("its %d B send to rank %d %s%s", m.size, m.dst, what, s.finishedNote(int(m.dst))))
		add(r, int(m.dst))
	}
	// Analytic collectives.
	for r := range s.ranks {
		rk := &s.ranks[r]
		if rk.coll != nil && rk.coll.analytic {
			ci := s.colls[rk.coll.key]
			mem, _ := s.commMembers(rk.coll.comm)
			var missing []string
			for j, t := range ci.enter {
				if t < 0 {
					add(r, int(mem[j]))
					missing = append(missing, fmt.Sprint(mem[j]))
				}
			}
			items[r] = append(items[r], fmt.Sprintf("ranks %s to enter %s", strings.Join(missing, ", "), collStateName(ci.op)))
		}
		if rk.coll != nil && rk.coll.bulk {
			// Computed in bulk: the rank waits for the call's ranks that
			// have not entered, having sent nothing yet.
			bi := s.bulk.insts[rk.coll.key]
			mem, _ := s.commMembers(rk.coll.comm)
			var missing []string
			for j, t := range bi.entered {
				if !t {
					add(r, int(mem[j]))
					missing = append(missing, fmt.Sprint(mem[j]))
				}
			}
			items[r] = append(items[r], fmt.Sprintf("ranks %s to enter %s", strings.Join(missing, ", "), collStateName(rk.coll.op)))
		}
	}
	for r := range waits {
		slices.Sort(waits[r])
		waits[r] = slices.Compact(waits[r])
	}
	d.Cycle = findCycle(waits, func(r int) bool { return s.ranks[r].state != StateDone })
	more := map[string]int{}
	for r := range s.ranks {
		rk := &s.ranks[r]
		if rk.state == StateDone {
			continue
		}
		d.BlockedTotal++
		// The first ranks, and the first two of the cycle, which
		// causality's finding points at.
		if len(d.Blocked) >= ListedBlocked && !slices.Contains(d.Cycle[:min(len(d.Cycle), 2)], r) {
			op, _, _ := strings.Cut(s.describeOp(rk), " ")
			more[op]++
			continue
		}
		br := BlockedRank{Rank: r, Event: int(rk.pos), Op: s.describeOp(rk), WaitsFor: []int{}, Waiting: []string{}}
		br.WaitsFor = append(br.WaitsFor, waits[r][:min(len(waits[r]), ListedItems)]...)
		br.MoreWaitsFor = len(waits[r]) - len(br.WaitsFor)
		br.Waiting = append(br.Waiting, items[r][:min(len(items[r]), ListedItems)]...)
		br.MoreWaiting = len(items[r]) - len(br.Waiting)
		d.Blocked = append(d.Blocked, br)
	}
	d.MoreBlocked = summarizeOps(more)
	d.Explanation = []string{}
	s.explainSends(d)
	if len(d.Network) > ListedBlocked {
		n := len(d.Network) - ListedBlocked
		d.Network = append(d.Network[:ListedBlocked:ListedBlocked], fmt.Sprintf("… %d more", n))
	}
	var b strings.Builder
	switch {
	case d.NetworkStall != nil && len(d.NetworkStall.Cycle) > 0:
		c := d.NetworkStall.Cycle
		names := make([]string, len(c))
		for i, x := range c {
			names[i] = x.Name
		}
		fmt.Fprintf(&b, "deadlock: network packets wait for each other in a cycle of %d full buffers %s (%d packets wait)",
			len(c)-1, strings.Join(names, " → "), d.NetworkStall.Waiting)
	case len(d.Cycle) > 0:
		var parts []string
		for i, r := range d.Cycle {
			if i == listedCycle-1 && len(d.Cycle) > listedCycle {
				// Its last rank closes it: "0 → 1 → … → 255 → 0".
				parts = append(parts, "…", fmt.Sprint(d.Cycle[len(d.Cycle)-2]), fmt.Sprint(d.Cycle[0]))
				break
			}
			parts = append(parts, fmt.Sprint(r))
		}
		fmt.Fprintf(&b, "deadlock: ranks wait for each other in a cycle %s", strings.Join(parts, " → "))
		if len(d.Cycle) > listedCycle {
			fmt.Fprintf(&b, " of %d ranks", len(d.Cycle)-1)
		}
	case len(d.Network) > 0:
		b.WriteString("stall: messages cannot progress through the network")
	default:
		b.WriteString("stall: ranks wait for messages that are never sent")
	}
	fmt.Fprintf(&b, "; %d of %d ranks blocked", d.BlockedTotal, P)
	if n := s.net.InFlight(); n > 0 {
		fmt.Fprintf(&b, ", %d messages stuck in the network", n)
	}
	for i, br := range d.Blocked {
		if i == 4 {
			fmt.Fprintf(&b, "; …")
			break
		}
		fmt.Fprintf(&b, "; rank %d in %s waits for %s", br.Rank, br.Op, strings.Join(br.Waiting, " and "))
		if br.MoreWaiting > 0 {
			fmt.Fprintf(&b, " and %d more", br.MoreWaiting)
		}
	}
	for _, x := range d.Explanation {
		fmt.Fprintf(&b, "; %s", x)
	}
	d.Message = b.String()
	return d
}

// summarizeOps writes counts of operations, most frequent first, then by
// name: "200 in MPI_Waitall", "40 in MPI_Recv".
func summarizeOps(count map[string]int) []string {
	ops := make([]string, 0, len(count))
	for op := range count {
		ops = append(ops, op)
	}
	slices.SortFunc(ops, func(a, b string) int {
		if count[a] != count[b] {
			return count[b] - count[a]
		}
		return strings.Compare(a, b)
	})
	out := make([]string, len(ops))
	for i, op := range ops {
		out[i] = fmt.Sprintf("%d in %s", count[op], op)
	}
	return out
}

func (s *Sim) finishedNote(r int) string {
	if r >= 0 && r < len(s.ranks) && s.ranks[r].state == StateDone {
		return ", but that rank has finished"
	}
	return ""
}

func tagText(tag int32, any, coll bool) string {
	switch {
	case coll:
		return "collective"
	case any:
		return "any"
	}
	return fmt.Sprint(tag)
}

// describeOp names the operation rank rk is blocked in.
func (s *Sim) describeOp(rk *rank) string {
	if rk.coll != nil {
		return fmt.Sprintf("%s (event %d, round %d of %d)", collStateName(rk.coll.op), rk.pos, rk.coll.round+1, rk.coll.plan.Rounds())
	}
	e := s.at(rk, rk.pos)
	if e == nil {
		return "MPI_Finalize (end of trace)"
	}
	switch e.Kind {
	case tracefmt.KindSend:
		return fmt.Sprintf("%s to %d, tag %d, %d B (event %d)", sendStateName(e, rk), e.Peer, e.Tag, e.Size, rk.pos)
	case tracefmt.KindRecv:
		src := fmt.Sprint(e.Peer)
		if e.Flags.Has(tracefmt.FlagAnySource) && s.cfg.AnySource == AnyFree {
			src = "any"
		}
		name := "MPI_Recv"
		if e.Flags.Has(tracefmt.FlagSendrecv) {
			name = "MPI_Sendrecv"
		}
		return fmt.Sprintf("%s from %s, tag %d, %d B (event %d)", name, src, e.Tag, e.Size, rk.pos)
	case tracefmt.KindWait:
		if e.Flags.Has(tracefmt.FlagAll) {
			return fmt.Sprintf("MPI_Waitall (event %d)", rk.pos)
		}
		return fmt.Sprintf("MPI_Wait for request %d (event %d)", e.Request(), rk.pos)
	case tracefmt.KindLeave:
		return fmt.Sprintf("%s (event %d)", s.tr.StateName(e.State()), rk.pos)
	}
	return fmt.Sprintf("%s (event %d)", e.Kind, rk.pos)
}

// findCycle returns a cycle of the wait-for graph among live ranks,
// starting at its lowest rank, or an empty slice.
func findCycle(waits [][]int, live func(int) bool) []int {
	const (
		white = iota
		grey
		black
	)
	color := make([]uint8, len(waits))
	var stack []int
	var found []int
	var visit func(r int) bool
	visit = func(r int) bool {
		color[r] = grey
		stack = append(stack, r)
		for _, q := range waits[r] {
			if !live(q) {
				continue
			}
			if color[q] == grey {
				i := slices.Index(stack, q)
				found = append(slices.Clone(stack[i:]), q)
				return true
			}
			if color[q] == white && visit(q) {
				return true
			}
		}
		stack = stack[:len(stack)-1]
		color[r] = black
		return false
	}
	for r := range waits {
		if color[r] == white && live(r) && len(waits[r]) > 0 && visit(r) {
			// Rotate so that the lowest rank comes first.
			c := found[:len(found)-1]
			lo := slices.Index(c, slices.Min(c))
			c = slices.Concat(c[lo:], c[:lo])
			return append(c, c[0])
		}
	}
	return []int{}
}
