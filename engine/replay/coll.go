package replay

import (
	"github.com/tracesim/tracesim/engine/collective"
	"github.com/tracesim/tracesim/engine/des"
	"github.com/tracesim/tracesim/tracefmt"
)

// collRun is a rank's progress through one collective operation.
type collRun struct {
	plan     collective.Plan
	op       tracefmt.CollOp
	comm     uint16
	inst     uint32
	round    int
	started  bool
	ovhPaid  bool
	analytic bool
	// bulk: the call is computed in bulk once its last rank enters
	// (bulk.go).
	bulk bool
	// Analytic mode: this rank's local rank and the instance.
	me  int
	key collKey
}

// collKey names one collective call: the k-th on a communicator.
type collKey struct {
	comm uint16
	inst uint32
}

// collInstance is the shared state of an analytic collective call. A
// rank's exit depends on a set of ranks (all of them, the root, or the
// ranks before it) that only grows as ranks enter, so each arrival wakes
// the ranks whose set it completes, and a call over P ranks costs O(P)
// however the arrivals are ordered.
type collInstance struct {
	// enter is by local rank, -1 until arrived; for scans, the ranks of
	// the complete prefix hold the latest entry among them and ranks
	// before them instead.
	enter   []des.Time
	blocked []bool // by local rank: arrived, waiting to leave
	arrived int
	passed  int
	lead    int      // scans: the leading local ranks that have all arrived
	latest  des.Time // the latest entry so far
	bytes   int64
	root    int
	op      tracefmt.CollOp
}

var collStateNames = [...]string{
	tracefmt.OpOther: "MPI_Collective", tracefmt.OpBarrier: "MPI_Barrier", tracefmt.OpBcast: "MPI_Bcast",
	tracefmt.OpReduce: "MPI_Reduce", tracefmt.OpAllreduce: "MPI_Allreduce", tracefmt.OpGather: "MPI_Gather",
	tracefmt.OpGatherv: "MPI_Gatherv", tracefmt.OpScatter: "MPI_Scatter", tracefmt.OpScatterv: "MPI_Scatterv",
	tracefmt.OpAllgather: "MPI_Allgather", tracefmt.OpAllgatherv: "MPI_Allgatherv", tracefmt.OpAlltoall: "MPI_Alltoall",
	tracefmt.OpAlltoallv: "MPI_Alltoallv", tracefmt.OpReduceScatter: "MPI_Reduce_scatter", tracefmt.OpScan: "MPI_Scan",
	tracefmt.OpExscan: "MPI_Exscan",
}

// collStateName names the MPI call of a collective operation.
func collStateName(op tracefmt.CollOp) string {
	if int(op) < len(collStateNames) {
		return collStateNames[op]
	}
	return "MPI_Collective"
}

// commMembers returns the world ranks of communicator c by local rank
// and the local rank of every world rank (-1 for non-members).
func (s *Sim) commMembers(c uint16) ([]int32, []int32) {
	cr := &s.comms[c]
	if cr.members == nil {
		s.newCommMembers(c)
	}
	return cr.members, cr.local
}

// commRanks are a communicator's members by local rank and the local
// rank of every world rank (-1 for non-members); nil until first used.
type commRanks struct {
	members, local []int32
}

// newCommMembers fills s.comms[c] the first time communicator c is used.
func (s *Sim) newCommMembers(c uint16) {
	P := len(s.ranks)
	comm := &s.tr.Comms[c]
	var mem []int32
	if comm.Ranks == nil {
		mem = make([]int32, P)
		for i := range mem {
			mem[i] = int32(i)
		}
	} else {
		mem = comm.Ranks
	}
	loc := make([]int32, P)
	for i := range loc {
		loc[i] = -1
	}
	for i, w := range mem {
		loc[w] = int32(i)
	}
	s.comms[c] = commRanks{members: mem, local: loc}
}

// startColl starts rank r's part of a collective. It returns false when
// the rank takes no part (not a member of the communicator).
func (s *Sim) startColl(r int32, rk *rank, op tracefmt.CollOp, root int, comm uint16, sent, recvd int64) bool {
	mem, loc := s.commMembers(comm)
	me := int(loc[r])
	if me < 0 {
		s.stats.skipped++
		return false
	}
	if len(rk.collSeq) <= int(comm) {
		if cap(rk.collSeq) == 0 && int(comm) < firstCommSeq {
			rk.collSeq = s.alloc.seqs.take(firstCommSeq)
		}
		rk.collSeq = append(rk.collSeq, make([]uint32, int(comm)+1-len(rk.collSeq))...)
	}
	inst := rk.collSeq[comm]
	rk.collSeq[comm]++
	lroot := 0
	if root >= 0 && root < len(loc) && loc[root] >= 0 {
		lroot = int(loc[root])
	}
	var c *collRun
	if n := len(s.collRuns); n > 0 {
		c = s.collRuns[n-1]
		s.collRuns = s.collRuns[:n-1]
		*c = collRun{}
	} else {
		// From a slab: at 65,536 ranks in one collective, a malloc
		// each was 1 % of the engine's time.
		c = s.alloc.runs.one()
	}
	c.op, c.comm, c.inst = op, comm, inst
	call := collective.Call{Op: op, Alg: s.cfg.CollAlg[min(int(op), numCollOps-1)], P: len(mem), Me: me, Root: lroot, Sent: sent, Recvd: recvd}
	c.plan = collective.NewPlan(call)
	c.me = me
	if s.cfg.Collectives == CollAnalytic && s.mode() != Inject {
		c.analytic = true
		c.key = collKey{comm, inst}
		if s.colls[c.key] == nil {
			var ci *collInstance
			if n := len(s.collPool); n > 0 {
				ci = s.collPool[n-1]
				s.collPool = s.collPool[:n-1]
				*ci = collInstance{enter: ci.enter[:0], blocked: ci.blocked[:0]}
			} else {
				ci = &collInstance{}
			}
			ci.root, ci.op = lroot, op
			for range mem {
				ci.enter = append(ci.enter, -1)
				ci.blocked = append(ci.blocked, false)
			}
			s.colls[c.key] = ci
		}
	} else {
		s.bulkJoin(r, rk, c, len(mem))
	}
	rk.coll = c
	rk.act = ActCollective
	rk.actEv = rk.pos
	return true
}

// collContinue advances rank r's collective; it returns true when the
// rank's part is complete.
func (s *Sim) collContinue(r int32, rk *rank) bool {
	c := rk.coll
	if c.analytic {
		return s.collAnalytic(r, rk, c)
	}
	if c.bulk {
		return s.collBulk(r, rk, c)
	}
	mem, _ := s.commMembers(c.comm)
	inject := s.mode() == Inject
	for c.round < c.plan.Rounds() {
		if !c.started {
			// One buffer of steps serves every rank, as a rank only needs
			// its round's steps while it starts them: held per rank, the
			// buffers of a 65,536-rank linear all-to-all took 100 MB.
			// It is taken out while in use, in case issuing re-enters.
			steps := c.plan.Round(c.round, s.collSteps[:0])
			s.collSteps = nil
			done := s.collStart(r, rk, c, mem, inject, steps)
			s.collSteps = steps[:0]
			if done {
				c.round++
				continue
			}
			if !c.started {
				return false
			}
			if rk.block > 0 {
				s.blockOn(r, rk, ActCollective)
				return false
			}
		}
		rk.waitCall = false
		for _, op := range rk.ops {
			s.recRecv(rk, op, -1)
			s.freeOpID(op)
		}
		rk.ops = rk.ops[:0]
		c.round++
		c.started = false
		c.ovhPaid = false
	}
	s.endColl(rk)
	return true
}

// collStart starts the steps of rank r's current round: it returns true
// when the round is empty, leaves c.started false when the rank first
// pays its send overheads, and otherwise issues the sends, posts the
// receives and counts what the rank waits for in rk.block.
func (s *Sim) collStart(r int32, rk *rank, c *collRun, mem []int32, inject bool, steps []collective.Step) bool {
	if len(steps) == 0 {
		return true
	}
	if s.ovh != nil && !c.ovhPaid && !inject {
		c.ovhPaid = true
		var d des.Time
		for _, st := range steps {
			if st.Send {
				d = des.Add(d, s.ovh.SendOverhead(st.Bytes))
			}
		}
		if d > 0 {
			s.burst(r, rk, d, ActOverhead)
			return false
		}
	}
	c.started = true
	tag := int32(c.inst&0x7ffffff) << 4 // low 4 bits: the phase
	rk.ops = rk.ops[:0]
	for _, st := range steps {
		peer := mem[st.Peer]
		t := tag | int32(st.Phase)
		if st.Send {
			b := bindCall
			if inject {
				b = bindInject
			}
			s.issue(r, rk, peer, t, c.comm, true, st.Bytes, false, rk.pos, b, 0)
		} else if !inject {
			s.addOp(rk, s.post(r, peer, t, c.comm, true, 0, -1))
		}
	}
	for _, op := range rk.ops {
		if o := &s.ops[op]; !o.done() {
			o.flags |= opWaiter
			rk.block++
		}
	}
	if rk.callPending > 0 {
		rk.block += rk.callPending
		rk.waitCall = true
	}
	return false
}

func (s *Sim) endColl(rk *rank) {
	s.collRuns = append(s.collRuns, rk.coll)
	rk.coll = nil
}

// collAnalytic runs the analytic model: the rank leaves (latency +
// size/bandwidth) × factor after the ranks its exit depends on have
// entered.
func (s *Sim) collAnalytic(r int32, rk *rank, c *collRun) bool {
	ci := s.colls[c.key]
	if !c.started {
		c.started = true
		now := s.k.Now()
		ci.enter[c.me] = now
		ci.arrived++
		ci.latest = max(ci.latest, now)
		call := c.plan.Call()
		ci.bytes = max(ci.bytes, call.Block())
		rk.block++
		ci.blocked[c.me] = true
		// This arrival may complete the dependencies of others, and of
		// the rank itself.
		mem, _ := s.commMembers(c.comm)
		P := len(ci.enter)
		switch op := ci.op; {
		case op == tracefmt.OpScan || op == tracefmt.OpExscan:
			for ci.lead < P && ci.enter[ci.lead] >= 0 {
				if ci.lead > 0 {
					ci.enter[ci.lead] = max(ci.enter[ci.lead], ci.enter[ci.lead-1])
				}
				s.collWake(ci, mem, ci.lead)
				ci.lead++
			}
		case op.Shape() == tracefmt.ShapeOneToAll:
			switch {
			case c.me == ci.root:
				for j := range P {
					s.collWake(ci, mem, j)
				}
			case ci.enter[ci.root] >= 0:
				s.collWake(ci, mem, c.me)
			}
		case op.Shape() == tracefmt.ShapeAllToOne:
			if c.me != ci.root {
				s.collWake(ci, mem, c.me)
			}
			if ci.arrived == P {
				s.collWake(ci, mem, ci.root)
			}
		default:
			if ci.arrived == P {
				for j := range P {
					s.collWake(ci, mem, j)
				}
			}
		}
		s.blockOn(r, rk, ActCollective)
		return false
	}
	ci.passed++
	if ci.passed == len(ci.enter) {
		delete(s.colls, c.key)
		s.collPool = append(s.collPool, ci)
	}
	s.endColl(rk)
	return true
}

// collWake schedules the exit of local rank j of analytic collective ci,
// if it is blocked there, once the ranks it depends on have all entered
// (the caller knows they have): (latency + size/bandwidth) × factor after
// the latest of their entries and its own.
func (s *Sim) collWake(ci *collInstance, mem []int32, j int) {
	if !ci.blocked[j] {
		return
	}
	ci.blocked[j] = false
	at := ci.enter[j]
	switch op := ci.op; {
	case op == tracefmt.OpScan || op == tracefmt.OpExscan:
		// enter[j] is already the latest of the prefix.
	case op.Shape() == tracefmt.ShapeOneToAll:
		at = max(at, ci.enter[ci.root])
	case op.Shape() == tracefmt.ShapeAllToOne:
		if j == ci.root {
			at = ci.latest
		}
	default:
		at = ci.latest
	}
	s.k.Schedule(des.Add(at, s.collCost(ci.bytes, len(ci.enter))), evWake, mem[j], 0)
}

// collCost is (latency + size/bandwidth) × factor.
func (s *Sim) collCost(bytes int64, p int) des.Time {
	f := s.cfg.CollFactor.Times(p)
	if f == 0 {
		return 0
	}
	var one des.Time
	if s.est != nil {
		one = s.est.Estimate(bytes)
	} else {
		one = s.cfg.AnalyticModel().Latency(bytes, 1)
	}
	return des.Mul(f, one)
}
