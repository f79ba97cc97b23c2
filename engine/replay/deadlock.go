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
	// Blocked lists every rank that had not finished.
	Blocked []BlockedRank `json:"blocked"`
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
	// WaitsFor lists the ranks whose progress it needs.
	WaitsFor []int `json:"waits_for"`
	// Waiting lists what it waits for, one item per operation.
	Waiting []string `json:"waiting"`
}

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
	add := func(r, on int) {
		if !slices.Contains(waits[r], on) {
			waits[r] = append(waits[r], on)
		}
	}
	items := make([][]string, P)
	// Receives the ranks wait for.
	for i := range s.ops {
		o := &s.ops[i]
		if !o.live || o.done || !o.waiter {
			continue
		}
		r := int(o.rank)
		switch {
		case o.msg >= 0:
			items[r] = append(items[r], fmt.Sprintf("the data of a message from rank %d, still in the network", s.msgs[o.msg].src))
		case o.anySrc:
			items[r] = append(items[r], fmt.Sprintf("a message from any rank (tag %s)", tagText(o.tag, o.anyTag, o.coll)))
			for q := range P {
				if q != r && s.ranks[q].state != StateDone {
					add(r, q)
				}
			}
		default:
			items[r] = append(items[r], fmt.Sprintf("a message from rank %d (tag %s)%s", o.src, tagText(o.tag, false, o.coll), s.finishedNote(int(o.src))))
			add(r, int(o.src))
		}
	}
	// Sends the ranks wait for.
	for i := range s.msgs {
		m := &s.msgs[i]
		if !m.live || m.sendDone || !(m.sendWaiter || (m.callBound && s.ranks[m.src].waitCall)) {
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
	}
	for r := range s.ranks {
		rk := &s.ranks[r]
		if rk.state == StateDone {
			continue
		}
		slices.Sort(waits[r])
		br := BlockedRank{Rank: r, Event: int(rk.pos), Op: s.describeOp(rk), WaitsFor: waits[r], Waiting: items[r]}
		if br.WaitsFor == nil {
			br.WaitsFor = []int{}
		}
		if br.Waiting == nil {
			br.Waiting = []string{}
		}
		d.Blocked = append(d.Blocked, br)
	}
	d.Cycle = findCycle(waits, func(r int) bool { return s.ranks[r].state != StateDone })
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
		parts := make([]string, len(d.Cycle))
		for i, r := range d.Cycle {
			parts[i] = fmt.Sprint(r)
		}
		fmt.Fprintf(&b, "deadlock: ranks wait for each other in a cycle %s", strings.Join(parts, " → "))
	case len(d.Network) > 0:
		b.WriteString("stall: messages cannot progress through the network")
	default:
		b.WriteString("stall: ranks wait for messages that are never sent")
	}
	fmt.Fprintf(&b, "; %d of %d ranks blocked", len(d.Blocked), P)
	if n := s.net.InFlight(); n > 0 {
		fmt.Fprintf(&b, ", %d messages stuck in the network", n)
	}
	for i, br := range d.Blocked {
		if i == 4 {
			fmt.Fprintf(&b, "; …")
			break
		}
		fmt.Fprintf(&b, "; rank %d in %s waits for %s", br.Rank, br.Op, strings.Join(br.Waiting, " and "))
	}
	d.Message = b.String()
	return d
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
	if int(rk.pos) >= len(rk.ev) {
		return "MPI_Finalize (end of trace)"
	}
	e := &rk.ev[rk.pos]
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
