package tracefmt

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
)

// ErrNoCPUSpeed is returned by AssignTimes when no usable CPU speed is
// given.
var ErrNoCPUSpeed = errors.New("converting an untimed trace to a timed format needs a CPU speed: --cpu-speed 1Gf")

// AssignTimes returns a timed copy of the untimed trace t, for writing it
// in a timed format. t is not modified; a trace that is already timed is
// returned as is.
//
// Times come from a replay of the trace's order on an ideal machine: a
// compute burst of w flops lasts w/cpuSpeed seconds (a burst given as a
// duration keeps it), messages take no time and sends never wait for
// their receiver, so a receive ends when both it and its send have been
// reached: never earlier than its send. Collectives end when the ranks
// they depend on have arrived (every rank for barrier-like operations,
// the root for broadcasts and scatters, every rank for the root of a
// gather or reduce; lower ranks for scans).
//
// Every MPI operation gets a state named after its call ("MPI_Send",
// "MPI_Waitall", "MPI_Allreduce") so that timelines show it; operations
// that do not wait are zero-length states. Compute bursts get a "Compute"
// state (category compute), which also marks where each rank ends. As MPE and OTF2 log them, the
// receive event of a non-blocking receive moves to the wait, test or
// waitall that completes it (an "MPI_Irecv" state marks where it was
// posted), so that it is stamped when the message has arrived; a request
// never waited is completed at the end of its rank. Message matches are
// kept as they were.
//
// A receive without a matching send, or a trace whose ranks wait for each
// other in a cycle, cannot be timed: AssignTimes returns an error naming
// the blocked operations instead of looping.
func AssignTimes(t *Trace, cpuSpeed float64) (*Trace, error) {
	if !(cpuSpeed > 0) || math.IsInf(cpuSpeed, 0) {
		return nil, ErrNoCPUSpeed
	}
	if t.Timed {
		return t, nil
	}
	P := t.Size()
	if P == 0 {
		return nil, fmt.Errorf("assigning times: trace has no ranks")
	}
	tm := &timer{
		t: t, secPerFlop: 1 / cpuSpeed / t.Unit.Seconds(),
		states: map[string]StateID{}, ranks: make([]rankTimer, P),
		colls: map[collKey]*collInstance{},
	}
	tm.out = &Trace{
		Format: t.Format, Unit: t.Unit, Timed: true,
		States: slices.Clone(t.States), Markers: slices.Clone(t.Markers),
		Comms: slices.Clone(t.Comms), Texts: slices.Clone(t.Texts), Attrs: slices.Clone(t.Attrs),
		Ranks: make([]Rank, P),
	}
	for i, s := range tm.out.States {
		if _, dup := tm.states[s.Name]; !dup {
			tm.states[s.Name] = StateID(i)
		}
	}
	for r := range tm.ranks {
		rt := &tm.ranks[r]
		n := len(t.Ranks[r].Events)
		rt.newIdx = make([]int32, n)
		rt.held = map[int64]int32{}
		added := tm.addedStates(r)
		rt.out = make([]Event, 0, n+added)
		rt.origin = make([]int32, 0, n+added)
		tm.queue = append(tm.queue, r)
		rt.queued = true
	}
	if err := tm.run(); err != nil {
		return nil, err
	}
	for r := range tm.ranks {
		tm.out.Ranks[r].Events = tm.ranks[r].out
	}
	tm.relink()
	if err := tm.out.Validate(); err != nil {
		return nil, fmt.Errorf("assigning times: %w", err)
	}
	return tm.out, nil
}

type timer struct {
	t, out     *Trace
	secPerFlop float64 // trace units per flop
	states     map[string]StateID
	ranks      []rankTimer
	colls      map[collKey]*collInstance
	queue      []int
}

type rankTimer struct {
	pos   int
	clock float64
	out   []Event
	// origin lists, for each output event, the input event it copies
	// (-1 for the states AssignTimes adds).
	origin []int32
	newIdx []int32 // input index → output index
	// depth counts the MPI states the input itself has open: events
	// inside them need no state of their own.
	depth int
	// held maps the request of a posted non-blocking receive to the
	// receive, emitted when a wait completes it; pending lists the
	// requests not yet completed, in post order.
	held    map[int64]int32
	pending []pendingRequest
	// sendrecv is the output index of an open MPI_Sendrecv state.
	sendrecv int32
	inSR     bool
	// testFails makes the test the rank is at fail without waiting to
	// learn when its message is sent.
	testFails bool
	// arrived marks the rank counted at its current collective;
	// collSeen counts collectives passed per communicator.
	arrived  bool
	collSeen map[uint16]int
	done     bool
	queued   bool
	// waiters are ranks to re-run when this one progresses.
	waiters []int
}

type pendingRequest struct {
	req  int64
	recv int32 // input index of the receive, -1 for a send
}

type collKey struct {
	comm uint16
	k    int
}

type collInstance struct {
	enter   []float64 // by local rank; NaN until arrived
	arrived int
	passed  int
}

// addedStates returns how many enter and leave events AssignTimes adds
// to rank r (two per MPI operation outside the trace's own MPI states),
// so that its output is allocated once.
func (tm *timer) addedStates(r int) int {
	ev := tm.t.Ranks[r].Events
	depth, n := 0, 0
	for i := range ev {
		e := &ev[i]
		switch e.Kind {
		case KindEnter, KindLeave:
			if s := e.State(); int(s) < len(tm.t.States) && tm.t.States[s].Category.IsMPI() {
				if e.Kind == KindEnter {
					depth++
				} else if depth > 0 {
					depth--
				}
			}
		case KindCompute:
			n += 2
		case KindSend, KindWait, KindCollective:
			if depth == 0 {
				n += 2
			}
		case KindRecv:
			// The receive of a sendrecv shares the send's state.
			sr := e.Flags.Has(FlagSendrecv) && i > 0 && ev[i-1].Kind == KindSend && ev[i-1].Flags.Has(FlagSendrecv)
			if depth == 0 && !sr {
				n += 2
			}
		}
	}
	return n
}

// block records that rank r waits for rank s.
func (tm *timer) block(r, s int) {
	rs := &tm.ranks[s]
	if !slices.Contains(rs.waiters, r) {
		rs.waiters = append(rs.waiters, r)
	}
}

func (tm *timer) wake(r int) {
	if rt := &tm.ranks[r]; !rt.queued && !rt.done {
		rt.queued = true
		tm.queue = append(tm.queue, r)
	}
}

func (tm *timer) run() error {
	for {
		for len(tm.queue) > 0 {
			r := tm.queue[0]
			tm.queue = tm.queue[1:]
			rt := &tm.ranks[r]
			rt.queued = false
			progressed, err := tm.advance(r)
			if err != nil {
				return err
			}
			if progressed {
				ws := rt.waiters
				rt.waiters = nil
				for _, w := range ws {
					tm.wake(w)
				}
			}
		}
		// Nothing moves. Tests waiting to learn whether their message
		// comes in time wait on ranks that wait for them: they fail.
		released := false
		for r := range tm.ranks {
			rt := &tm.ranks[r]
			ev := tm.t.Ranks[r].Events
			if !rt.done && rt.pos < len(ev) && ev[rt.pos].Kind == KindWait && ev[rt.pos].Flags.Has(FlagTest) {
				rt.testFails = true
				tm.wake(r)
				released = true
			}
		}
		if !released {
			break
		}
	}
	var stuck []string
	for r := range tm.ranks {
		if !tm.ranks[r].done {
			stuck = append(stuck, tm.describeBlocked(r))
		}
	}
	if len(stuck) > 0 {
		if len(stuck) > 6 {
			stuck = append(stuck[:6], fmt.Sprintf("and %d more ranks", len(stuck)-6))
		}
		return fmt.Errorf("assigning times: the trace deadlocks: %s", strings.Join(stuck, "; "))
	}
	return nil
}

func (tm *timer) describe(r, i int) string {
	ev := tm.t.Ranks[r].Events
	if i >= len(ev) {
		return fmt.Sprintf("rank %d (finished)", r)
	}
	e := &ev[i]
	switch e.Kind {
	case KindRecv:
		return fmt.Sprintf("rank %d event %d (receive from %d, tag %d)", r, i, e.Peer, e.Tag)
	case KindWait:
		return fmt.Sprintf("rank %d event %d (wait)", r, i)
	case KindCollective:
		return fmt.Sprintf("rank %d event %d (%s)", r, i, e.Op())
	}
	return fmt.Sprintf("rank %d event %d (%s)", r, i, e.Kind)
}

// describeBlocked says what rank r is blocked on.
func (tm *timer) describeBlocked(r int) string {
	rt := &tm.ranks[r]
	ev := tm.t.Ranks[r].Events
	if rt.pos >= len(ev) {
		return fmt.Sprintf("rank %d waits at its end for its pending receives", r)
	}
	e := &ev[rt.pos]
	if s, j, ok := tm.neededSend(r, rt.pos); ok {
		return fmt.Sprintf("%s waits for %s, which is blocked at %s", tm.describe(r, rt.pos), tm.describe(s, j), tm.describe(s, tm.ranks[s].pos))
	}
	if e.Kind == KindCollective {
		return fmt.Sprintf("%s waits for ranks that never reach it", tm.describe(r, rt.pos))
	}
	return tm.describe(r, rt.pos) + " cannot complete"
}

// neededSend returns a send that rank r's current event still waits for.
func (tm *timer) neededSend(r, i int) (int, int, bool) {
	e := &tm.t.Ranks[r].Events[i]
	switch e.Kind {
	case KindRecv:
		return int(e.Peer), int(e.Match), e.Match >= 0
	case KindWait:
		for _, p := range tm.ranks[r].pending {
			if p.recv >= 0 && (e.Flags.Has(FlagAll) || p.req == e.Request()) {
				re := &tm.t.Ranks[r].Events[p.recv]
				if !tm.sent(int(re.Peer), re.Match) {
					return int(re.Peer), int(re.Match), true
				}
			}
		}
	}
	return 0, 0, false
}

// sent reports whether send j of rank s has been timed.
func (tm *timer) sent(s int, j int32) bool { return int(j) < tm.ranks[s].pos }

func (tm *timer) sendTime(s int, j int32) float64 {
	rt := &tm.ranks[s]
	return rt.out[rt.newIdx[j]].Time
}

// state returns the id of the state named name, defining it if needed.
func (tm *timer) state(name string, c Category) StateID {
	if id, ok := tm.states[name]; ok {
		return id
	}
	id := StateID(len(tm.out.States))
	tm.out.States = append(tm.out.States, StateDef{Name: name, Category: c})
	tm.states[name] = id
	return id
}

// emit appends a copy of input event i (or a new event, i < 0) at time at.
func (rt *rankTimer) emit(e Event, i int, at float64) int32 {
	e.Time = at
	k := int32(len(rt.out))
	rt.out = append(rt.out, e)
	rt.origin = append(rt.origin, int32(i))
	if i >= 0 {
		rt.newIdx[i] = k
	}
	return k
}

// enter opens an added state at time at; leave closes it.
func (rt *rankTimer) enter(s StateID, at float64) int32 {
	return rt.emit(Enter(at, s), -1, at)
}

func (rt *rankTimer) leave(enter int32, at float64) {
	k := rt.emit(Leave(at, rt.out[enter].State()), -1, at)
	rt.out[enter].Match = k
	rt.out[k].Match = enter
}

var collStateNames = [...]string{
	OpOther: "MPI_Collective", OpBarrier: "MPI_Barrier", OpBcast: "MPI_Bcast", OpReduce: "MPI_Reduce",
	OpAllreduce: "MPI_Allreduce", OpGather: "MPI_Gather", OpGatherv: "MPI_Gatherv", OpScatter: "MPI_Scatter",
	OpScatterv: "MPI_Scatterv", OpAllgather: "MPI_Allgather", OpAllgatherv: "MPI_Allgatherv",
	OpAlltoall: "MPI_Alltoall", OpAlltoallv: "MPI_Alltoallv", OpReduceScatter: "MPI_Reduce_scatter",
	OpScan: "MPI_Scan", OpExscan: "MPI_Exscan",
}

// advance times rank r's events until it blocks or ends, and reports
// whether it did anything another rank may wait for.
func (tm *timer) advance(r int) (bool, error) {
	rt := &tm.ranks[r]
	ev := tm.t.Ranks[r].Events
	progressed := false
	for rt.pos < len(ev) {
		i := rt.pos
		e := &ev[i]
		wrap := rt.depth == 0
		switch e.Kind {
		case KindEnter, KindLeave:
			rt.emit(*e, i, rt.clock)
			if s := e.State(); int(s) < len(tm.t.States) && tm.t.States[s].Category.IsMPI() {
				if e.Kind == KindEnter {
					rt.depth++
				} else if rt.depth > 0 {
					rt.depth--
				}
			}
		case KindMarker:
			rt.emit(*e, i, rt.clock)
		case KindCompute:
			// A state makes the burst's end visible: the last one of a
			// rank ends the rank.
			k := rt.enter(tm.state("Compute", CatCompute), rt.clock)
			rt.emit(*e, i, rt.clock)
			d := e.Amount()
			if e.Flags.Has(FlagWork) {
				d *= tm.secPerFlop
			}
			rt.clock += d
			rt.leave(k, rt.clock)
		case KindSend:
			tm.send(rt, ev, i, wrap)
		case KindRecv:
			ok, err := tm.recv(r, rt, e, i, wrap)
			if err != nil || !ok {
				return progressed, err
			}
		case KindWait:
			ok, err := tm.wait(r, rt, e, i, wrap)
			if err != nil || !ok {
				return progressed, err
			}
		case KindCollective:
			ok, arrivedNow := tm.collective(r, rt, e, i, wrap)
			progressed = progressed || arrivedNow
			if !ok {
				return progressed, nil
			}
		}
		rt.pos++
		progressed = true
	}
	// Requests never waited complete at the end, as SimGrid's replayer
	// and MPI_Finalize do.
	if ok, err := tm.complete(r, rt, func(pendingRequest) bool { return true }); err != nil || !ok {
		return progressed, err
	}
	rt.done = true
	return true, nil
}

func (tm *timer) send(rt *rankTimer, ev []Event, i int, wrap bool) {
	e := &ev[i]
	if wrap && e.Flags.Has(FlagSendrecv) && i+1 < len(ev) && ev[i+1].Kind == KindRecv && ev[i+1].Flags.Has(FlagSendrecv) {
		rt.sendrecv = rt.enter(tm.state("MPI_Sendrecv", CatP2P), rt.clock)
		rt.inSR = true
		rt.emit(*e, i, rt.clock)
		return
	}
	if e.Flags.Has(FlagNonBlocking) && e.Request() > 0 {
		rt.pending = append(rt.pending, pendingRequest{req: e.Request(), recv: -1})
	}
	if !wrap {
		rt.emit(*e, i, rt.clock)
		return
	}
	name := "MPI_Send"
	switch {
	case e.Flags.Has(FlagNonBlocking | FlagSync):
		name = "MPI_Issend"
	case e.Flags.Has(FlagNonBlocking):
		name = "MPI_Isend"
	case e.Flags.Has(FlagSync):
		name = "MPI_Ssend"
	}
	k := rt.enter(tm.state(name, CatP2P), rt.clock)
	rt.emit(*e, i, rt.clock)
	rt.leave(k, rt.clock)
}

// arrival returns when the message of receive e has arrived, or false
// when its send has not been timed yet (rank r then waits for it).
func (tm *timer) arrival(r int, re *Event, i int) (float64, bool, error) {
	if re.Match < 0 {
		return 0, false, fmt.Errorf("assigning times: rank %d event %d: receive from rank %d (tag %d) has no matching send", r, i, re.Peer, re.Tag)
	}
	s := int(re.Peer)
	if !tm.sent(s, re.Match) {
		tm.block(r, s)
		return 0, false, nil
	}
	return tm.sendTime(s, re.Match), true, nil
}

func (tm *timer) recv(r int, rt *rankTimer, e *Event, i int, wrap bool) (bool, error) {
	if e.Flags.Has(FlagNonBlocking) && e.Request() > 0 && !rt.inSR {
		rt.held[e.Request()] = int32(i)
		rt.pending = append(rt.pending, pendingRequest{req: e.Request(), recv: int32(i)})
		if wrap {
			k := rt.enter(tm.state("MPI_Irecv", CatP2P), rt.clock)
			rt.leave(k, rt.clock)
		}
		return true, nil
	}
	at, ok, err := tm.arrival(r, e, i)
	if err != nil || !ok {
		return false, err
	}
	at = max(at, rt.clock)
	switch {
	case rt.inSR:
		rt.emit(*e, i, at)
		rt.leave(rt.sendrecv, at)
		rt.inSR = false
	case wrap:
		k := rt.enter(tm.state("MPI_Recv", CatP2P), rt.clock)
		rt.emit(*e, i, at)
		rt.leave(k, at)
	default:
		rt.emit(*e, i, at)
	}
	rt.clock = at
	return true, nil
}

// complete checks that the receives of the pending requests selected by
// which have arrived, then emits them in post order and drops the
// selected requests. It reports false when one has not arrived yet.
func (tm *timer) complete(r int, rt *rankTimer, which func(pendingRequest) bool) (bool, error) {
	for _, p := range rt.pending {
		if p.recv >= 0 && which(p) {
			re := &tm.t.Ranks[r].Events[p.recv]
			if _, ok, err := tm.arrival(r, re, int(p.recv)); err != nil || !ok {
				return false, err
			}
		}
	}
	kept := rt.pending[:0]
	for _, p := range rt.pending {
		if !which(p) {
			kept = append(kept, p)
			continue
		}
		if p.recv >= 0 {
			re := &tm.t.Ranks[r].Events[p.recv]
			at := max(rt.clock, tm.sendTime(int(re.Peer), re.Match))
			rt.emit(*re, int(p.recv), at)
			rt.clock = at
			delete(rt.held, p.req)
		}
	}
	rt.pending = kept
	return true, nil
}

func (tm *timer) wait(r int, rt *rankTimer, e *Event, i int, wrap bool) (bool, error) {
	start := rt.clock
	name := "MPI_Wait"
	var which func(pendingRequest) bool
	switch {
	case e.Flags.Has(FlagAll):
		name = "MPI_Waitall"
		which = func(pendingRequest) bool { return true }
	case e.Flags.Has(FlagTest):
		name = "MPI_Test"
		// A test completes its request if the message is already there:
		// wait until the sender has sent it or gone past this time.
		req := e.Request()
		for _, p := range rt.pending {
			if p.req != req || p.recv < 0 || rt.testFails {
				continue
			}
			re := &tm.t.Ranks[r].Events[p.recv]
			if s := int(re.Peer); re.Match >= 0 && !tm.sent(s, re.Match) && tm.ranks[s].clock <= start && !tm.ranks[s].done {
				tm.block(r, s)
				return false, nil
			}
		}
		rt.testFails = false
		which = func(p pendingRequest) bool {
			if p.req != req {
				return false
			}
			if p.recv < 0 {
				return true
			}
			re := &tm.t.Ranks[r].Events[p.recv]
			return re.Match >= 0 && tm.sent(int(re.Peer), re.Match) && tm.sendTime(int(re.Peer), re.Match) <= start
		}
	default:
		req := e.Request()
		which = func(p pendingRequest) bool { return p.req == req }
	}
	// Check first, so that a blocked wait emits nothing.
	for _, p := range rt.pending {
		if p.recv >= 0 && which(p) {
			re := &tm.t.Ranks[r].Events[p.recv]
			if _, ok, err := tm.arrival(r, re, int(p.recv)); err != nil || !ok {
				return false, err
			}
		}
	}
	var k int32
	if wrap {
		k = rt.enter(tm.state(name, CatWait), start)
	}
	if _, err := tm.complete(r, rt, which); err != nil {
		return false, err
	}
	rt.emit(*e, i, rt.clock)
	if wrap {
		rt.leave(k, rt.clock)
	}
	return true, nil
}

// collective times rank r's collective e. It reports whether the rank
// passed it and whether it newly arrived at it.
func (tm *timer) collective(r int, rt *rankTimer, e *Event, i int, wrap bool) (passed, arrivedNow bool) {
	if rt.collSeen == nil {
		rt.collSeen = map[uint16]int{}
	}
	comm := &tm.t.Comms[e.Comm]
	members := len(tm.t.Ranks)
	if comm.Ranks != nil {
		members = len(comm.Ranks)
	}
	key := collKey{e.Comm, rt.collSeen[e.Comm]}
	inst := tm.colls[key]
	if inst == nil {
		inst = &collInstance{enter: make([]float64, members)}
		for j := range inst.enter {
			inst.enter[j] = math.NaN()
		}
		tm.colls[key] = inst
	}
	me := comm.Local(r)
	if !rt.arrived {
		rt.arrived = true
		arrivedNow = true
		if me >= 0 && me < members {
			inst.enter[me] = rt.clock
			inst.arrived++
		}
	}
	// Which local ranks this rank's exit depends on.
	deps := func(yield func(int) bool) {
		root := comm.Local(e.Root())
		all := func() {
			for j := range members {
				if !yield(j) {
					return
				}
			}
		}
		switch op := e.Op(); {
		case op == OpScan || op == OpExscan:
			for j := 0; j <= me && j < members; j++ {
				if !yield(j) {
					return
				}
			}
		case root < 0 || root >= members:
			all()
		case op.Shape() == ShapeOneToAll:
			yield(root)
		case op.Shape() == ShapeAllToOne:
			if me == root {
				all()
			}
		default:
			all()
		}
	}
	exit := rt.clock
	for j := range deps {
		if math.IsNaN(inst.enter[j]) {
			tm.block(r, comm.World(j))
			return false, arrivedNow
		}
		exit = max(exit, inst.enter[j])
	}
	var k int32
	if wrap {
		k = rt.enter(tm.state(collStateNames[min(int(e.Op()), len(collStateNames)-1)], CatCollective), rt.clock)
	}
	rt.emit(*e, i, rt.clock)
	if wrap {
		rt.leave(k, exit)
	}
	rt.clock = exit
	rt.arrived = false
	rt.collSeen[e.Comm]++
	if inst.passed++; inst.passed == members {
		delete(tm.colls, key)
	}
	return true, arrivedNow
}

// relink points the matches of copied events at their new positions.
func (tm *timer) relink() {
	for r := range tm.ranks {
		rt := &tm.ranks[r]
		for k := range rt.out {
			i := rt.origin[k]
			if i < 0 {
				continue
			}
			e := &rt.out[k]
			orig := tm.t.Ranks[r].Events[i].Match
			if orig < 0 {
				e.Match = -1
				continue
			}
			switch e.Kind {
			case KindSend, KindRecv:
				e.Match = tm.ranks[e.Peer].newIdx[orig]
			case KindEnter, KindLeave:
				e.Match = rt.newIdx[orig]
			}
		}
		rt.origin = nil
	}
}
