// Package collective expands MPI collective operations into the
// point-to-point messages of an algorithm, one rank's part at a time, and
// costs them analytically when expansion is not wanted.
//
// A rank's part of a collective is a sequence of rounds; in each round the
// rank starts its sends, posts its receives, and waits for all of them
// before the next round, as MPICH's implementations do with
// isend/irecv/waitall or sendrecv. Rounds are generated on demand from
// closed forms, so a collective over P ranks costs O(1) memory per rank
// except where the algorithm itself talks to O(P) peers in one round
// (linear algorithms at the root, SMPI's linear all-to-all; MPICH's posts 32
// peers a round).
//
// Message sizes are computed from the sender's own figures (its bytes sent
// and received in the trace), so ranks never need each other's event to
// build their part, and the same schedule comes out on every rank as long
// as the trace's counts agree, which MPI requires.
package collective

import (
	"fmt"
	"math/bits"
	"strings"

	"github.com/tracesim/tracesim/tracefmt"
)

// Algorithm is a collective algorithm.
type Algorithm uint8

// Algorithms. Auto picks MPICH's choice for the operation, the number of
// ranks and the message size (see Default).
const (
	Auto Algorithm = iota
	Linear
	Binomial
	RecursiveDoubling
	Ring
	Pairwise
	Dissemination
	// Rabenseifner is the reduce-scatter by recursive halving followed
	// by an allgather by recursive doubling (allreduce) or a binomial
	// gather to the root (reduce): MPICH's algorithm for long messages.
	Rabenseifner
	// SMPI is SimGrid 3.32's SMPI default for every operation (its
	// "default" collective selector, which smpirun -replay uses): see
	// smpiPlan.
	SMPI
	numAlgorithms
)

var algNames = [...]string{
	Auto:              "auto",
	Linear:            "linear",
	Binomial:          "binomial",
	RecursiveDoubling: "recursive-doubling",
	Ring:              "ring",
	Pairwise:          "pairwise",
	Dissemination:     "dissemination",
	Rabenseifner:      "rabenseifner",
	SMPI:              "smpi",
}

// String returns the algorithm's name as the --coll-alg flag spells it.
func (a Algorithm) String() string {
	if a < numAlgorithms {
		return algNames[a]
	}
	return fmt.Sprintf("algorithm(%d)", uint8(a))
}

// ParseAlgorithm returns the algorithm named s.
func ParseAlgorithm(s string) (Algorithm, error) {
	for a := Auto; a < numAlgorithms; a++ {
		if algNames[a] == s {
			return a, nil
		}
	}
	switch s {
	case "tree", "binomial-tree":
		return Binomial, nil
	case "rd":
		return RecursiveDoubling, nil
	case "bruck":
		return Dissemination, nil
	case "rab", "rab_rdb", "reduce-scatter-allgather", "scatter-gather", "reduce-scatter-gather":
		return Rabenseifner, nil
	}
	return 0, fmt.Errorf("unknown collective algorithm %q (expected %s)", s, strings.Join(algNames[:], ", "))
}

// Algorithms returns the algorithms that can run op, Auto first.
func Algorithms(op tracefmt.CollOp) []Algorithm {
	out := []Algorithm{Auto}
	for a := Linear; a < numAlgorithms; a++ {
		if Applicable(op, a) {
			out = append(out, a)
		}
	}
	return out
}

// Applicable reports whether algorithm a can run operation op. What each
// pair means:
//
//	barrier        linear (all to 0, 0 to all), binomial (tree gather and
//	               broadcast), recursive-doubling, dissemination
//	bcast          linear, binomial, recursive-doubling (binomial scatter
//	               then recursive-doubling allgather on a power of two
//	               ranks, else ring), ring (binomial scatter then ring
//	               allgather, MPICH's long-message broadcast)
//	reduce         linear, binomial, ring (ring reduce-scatter then
//	               binomial gather), rabenseifner (recursive-halving
//	               reduce-scatter then binomial gather)
//	allreduce      linear and binomial (reduce then broadcast),
//	               recursive-doubling, ring (reduce-scatter and
//	               allgather), rabenseifner (recursive-halving
//	               reduce-scatter, recursive-doubling allgather)
//	gather(v), scatter(v)   linear, binomial
//	allgather(v)   linear, recursive-doubling (Bruck's dissemination when
//	               the count is not a power of two), ring, dissemination
//	               (Bruck)
//	alltoall(v)    linear (every pair, 32 peers at a time as MPICH's
//	               scattered algorithm), pairwise, ring (shifted pairs),
//	               dissemination (Bruck)
//	reducescatter  linear, pairwise, ring
//	scan, exscan   linear (a chain), recursive-doubling
//	other          as barrier
//
// smpi runs every operation as SimGrid 3.32's SMPI does (smpiPlan).
func Applicable(op tracefmt.CollOp, a Algorithm) bool {
	if a == Auto || a == Linear || a == SMPI {
		return true
	}
	switch op {
	case tracefmt.OpBarrier, tracefmt.OpOther:
		return a == Binomial || a == RecursiveDoubling || a == Dissemination
	case tracefmt.OpBcast:
		return a == Binomial || a == RecursiveDoubling || a == Ring
	case tracefmt.OpReduce:
		return a == Binomial || a == Ring || a == Rabenseifner
	case tracefmt.OpAllreduce:
		return a == Binomial || a == RecursiveDoubling || a == Ring || a == Rabenseifner
	case tracefmt.OpGather, tracefmt.OpGatherv, tracefmt.OpScatter, tracefmt.OpScatterv:
		return a == Binomial
	case tracefmt.OpAllgather, tracefmt.OpAllgatherv:
		return a == RecursiveDoubling || a == Ring || a == Dissemination
	case tracefmt.OpAlltoall, tracefmt.OpAlltoallv:
		return a == Pairwise || a == Ring || a == Dissemination
	case tracefmt.OpReduceScatter:
		return a == Pairwise || a == Ring
	case tracefmt.OpScan, tracefmt.OpExscan:
		return a == RecursiveDoubling
	}
	return false
}

// MPICH's switch points (MPICH 3.x defaults).
const (
	bcastShortMsg     = 12288
	bcastLongMsg      = 524288
	bcastMinProcs     = 8
	reduceShortMsg    = 2048
	allreduceShortMsg = 2048
	allgatherShortMsg = 81920
	allgatherLongMsg  = 524288
	alltoallShortMsg  = 256
	alltoallMediumMsg = 32768
	alltoallMinProcs  = 8
	// alltoallThrottle is MPIR_CVAR_ALLTOALL_THROTTLE: MPICH's linear
	// all-to-all(v) posts the receives and sends of this many peers
	// (itself included) at a time and waits for them before the next,
	// so a rank never has more than this many messages in flight.
	alltoallThrottle = 32
)

// Default returns MPICH's algorithm for op over p ranks when each rank
// contributes n bytes (the block of a gather or all-to-all pair, the
// buffer of a broadcast or reduction). The choice depends only on values
// every rank of a correct trace agrees on.
func Default(op tracefmt.CollOp, p int, n int64) Algorithm {
	pow2 := p&(p-1) == 0
	switch op {
	case tracefmt.OpBcast:
		switch {
		case n < bcastShortMsg || p < bcastMinProcs:
			return Binomial
		case n < bcastLongMsg && pow2:
			return RecursiveDoubling
		}
		return Ring
	case tracefmt.OpReduce:
		// MPICH compares the count with the power of two at or below p;
		// the trace gives bytes, which stand for it.
		if n <= reduceShortMsg || int64(pow2Floor(p)) > n {
			return Binomial
		}
		return Rabenseifner
	case tracefmt.OpAllreduce:
		if n <= allreduceShortMsg || int64(pow2Floor(p)) > n {
			return RecursiveDoubling
		}
		return Rabenseifner
	case tracefmt.OpGather, tracefmt.OpScatter:
		return Binomial
	case tracefmt.OpGatherv, tracefmt.OpScatterv, tracefmt.OpAlltoallv:
		return Linear
	case tracefmt.OpAllgather:
		total := n * int64(p)
		switch {
		case total < allgatherLongMsg && pow2:
			return RecursiveDoubling
		case total < allgatherShortMsg:
			return Dissemination
		}
		return Ring
	case tracefmt.OpAllgatherv:
		return Ring
	case tracefmt.OpAlltoall:
		switch {
		case n <= alltoallShortMsg && p >= alltoallMinProcs:
			return Dissemination
		case n <= alltoallMediumMsg:
			return Linear
		}
		return Pairwise
	case tracefmt.OpReduceScatter:
		return Pairwise
	case tracefmt.OpScan, tracefmt.OpExscan:
		return RecursiveDoubling
	}
	return Dissemination // barrier and unknown operations
}

// Call is one rank's part in one collective operation.
type Call struct {
	Op tracefmt.CollOp
	// Alg is the algorithm; Auto is resolved by Plan.
	Alg Algorithm
	// P is the number of ranks of the communicator, Me this rank's and
	// Root the root's local rank (0 for operations without a root).
	P, Me, Root int
	// Sent and Recvd are this rank's bytes in the operation, as the
	// trace's collective event gives them.
	Sent, Recvd int64
}

// Block returns the bytes a rank contributes: the buffer of a broadcast,
// reduction or scan, the block of a gather, scatter or allgather, the
// block of one pair in an all-to-all or reduce-scatter.
func (c *Call) Block() int64 {
	p := int64(max(c.P, 1))
	switch c.Op {
	case tracefmt.OpBarrier:
		return 0
	case tracefmt.OpBcast:
		return max(c.Sent, c.Recvd)
	case tracefmt.OpScatter, tracefmt.OpScatterv:
		if c.Recvd > 0 || c.Me != c.Root {
			return c.Recvd
		}
		return c.Sent / p
	case tracefmt.OpAlltoall, tracefmt.OpAlltoallv, tracefmt.OpReduceScatter:
		return c.Sent / p
	}
	return c.Sent
}

// Plan is a rank's schedule for one call.
type Plan struct {
	c      Call
	phases [2]phase
	n      int // phases used
	rounds int
}

type primitive uint8

const (
	primNone primitive = iota
	linBcast
	linGather // also linear reduce
	linScatter
	linAlltoall
	// scatteredAlltoall is MPICH's linear all-to-all ("scattered"): the
	// same pairs as linAlltoall, in rounds of alltoallThrottle peers.
	scatteredAlltoall
	linScan
	linScanAll // every rank sends to every higher rank (SMPI's iscan)
	binBcast
	binReduce
	binGather
	binScatter
	rdAllreduce
	rabAllreduce // recursive-halving reduce-scatter, recursive-doubling allgather
	rabReduce    // recursive-halving reduce-scatter, binomial gather to the root
	rdBcast      // recursive-doubling allgather of a scattered broadcast
	rdAllgather
	rdScan
	ringPass // ring allgather and ring reduce-scatter
	ringShift
	pairXchg
	dissemination
	bruckAllgather
	bruckAlltoall
)

type phase struct {
	prim   primitive
	bytes  int64 // message size, or block size for size-varying primitives
	rounds int
	// total is the buffer a broadcast scatters in blocks of bytes
	// (binScatter, rdBcast: the last blocks may be short or empty).
	total int64
}

// NewPlan resolves c's algorithm (Auto, or one not Applicable to the
// operation, becomes the Default) and returns the schedule.
func NewPlan(c Call) Plan {
	if c.P < 1 {
		c.P = 1
	}
	if c.Root < 0 || c.Root >= c.P {
		c.Root = 0
	}
	n := c.Block()
	if c.Alg == Auto || !Applicable(c.Op, c.Alg) {
		c.Alg = Default(c.Op, c.P, n)
	}
	pl := Plan{c: c}
	p := int64(c.P)
	add := func(prim primitive, bytes int64) {
		pl.phases[pl.n] = phase{prim: prim, bytes: bytes, rounds: primRounds(prim, c.P)}
		pl.rounds += pl.phases[pl.n].rounds
		pl.n++
	}
	op := c.Op
	if op == tracefmt.OpOther {
		op = tracefmt.OpBarrier
	}
	if c.Alg == SMPI {
		if op == tracefmt.OpBarrier && op == c.Op {
			n = 0
		}
		smpiPlan(op, c, n, add)
		return pl
	}
	switch op {
	case tracefmt.OpBarrier:
		if op == c.Op {
			n = 0
		}
		switch c.Alg {
		case Linear:
			add(linGather, n)
			add(linBcast, n)
		case Binomial:
			add(binReduce, n)
			add(binBcast, n)
		case RecursiveDoubling:
			add(rdAllreduce, n)
		default:
			add(dissemination, n)
		}
	case tracefmt.OpBcast:
		switch c.Alg {
		case Linear:
			add(linBcast, n)
		case Ring:
			blk := ceilDiv(n, p)
			add(binScatter, blk)
			pl.phases[pl.n-1].total = n
			add(ringPass, blk)
		case RecursiveDoubling:
			// MPICH runs it on a power of two ranks only; elsewhere its
			// scatter is followed by the ring. An empty buffer sends
			// nothing.
			if n == 0 {
				break
			}
			blk := ceilDiv(n, p)
			add(binScatter, blk)
			pl.phases[pl.n-1].total = n
			if c.P&(c.P-1) == 0 {
				add(rdBcast, blk)
				pl.phases[pl.n-1].total = n
			} else {
				add(ringPass, blk)
			}
		default:
			add(binBcast, n)
		}
	case tracefmt.OpReduce:
		switch c.Alg {
		case Linear:
			add(linGather, n)
		case Ring:
			blk := ceilDiv(n, p)
			add(ringPass, blk)
			add(binGather, blk)
		case Rabenseifner:
			add(rabReduce, n)
		default:
			add(binReduce, n)
		}
	case tracefmt.OpAllreduce:
		switch c.Alg {
		case Linear:
			add(linGather, n)
			add(linBcast, n)
		case Binomial:
			add(binReduce, n)
			add(binBcast, n)
		case Ring:
			blk := ceilDiv(n, p)
			add(ringPass, blk)
			add(ringPass, blk)
		case Rabenseifner:
			add(rabAllreduce, n)
		default:
			add(rdAllreduce, n)
		}
	case tracefmt.OpGather, tracefmt.OpGatherv:
		if c.Alg == Linear {
			add(linGather, n)
		} else {
			add(binGather, n)
		}
	case tracefmt.OpScatter, tracefmt.OpScatterv:
		if c.Alg == Linear {
			add(linScatter, n)
		} else {
			add(binScatter, n)
		}
	case tracefmt.OpAllgather, tracefmt.OpAllgatherv:
		switch {
		case c.Alg == Linear:
			add(linAlltoall, n)
		case c.Alg == Ring:
			add(ringPass, n)
		case c.Alg == RecursiveDoubling && c.P&(c.P-1) == 0:
			add(rdAllgather, n)
		default:
			add(bruckAllgather, n)
		}
	case tracefmt.OpAlltoall, tracefmt.OpAlltoallv:
		switch c.Alg {
		case Linear:
			add(scatteredAlltoall, n)
		case Ring:
			add(ringShift, n)
		case Dissemination:
			add(bruckAlltoall, n)
		default:
			add(pairXchg, n)
		}
	case tracefmt.OpReduceScatter:
		switch c.Alg {
		case Linear:
			add(linAlltoall, n)
		case Ring:
			add(ringPass, n)
		default:
			add(pairXchg, n)
		}
	case tracefmt.OpScan, tracefmt.OpExscan:
		if c.Alg == Linear {
			add(linScan, n)
		} else {
			add(rdScan, n)
		}
	}
	return pl
}

// Call returns the call with its algorithm resolved.
func (pl *Plan) Call() Call { return pl.c }

// ForRank returns pl with its call's local rank set to me: the same
// operation, algorithm, root, sizes and phases. Where a call's plan does
// not depend on the calling rank beyond Me (pl.ForRank(q.Call().Me) == q),
// one plan stands for every rank's.
func (pl *Plan) ForRank(me int) Plan {
	q := *pl
	q.c.Me = me
	return q
}

// Rounds returns the number of rounds of the schedule. Some rounds may be
// empty for some ranks.
func (pl *Plan) Rounds() int { return pl.rounds }

// Step is one message of a round: a send to or a receive from Peer (a
// local rank).
type Step struct {
	Peer  int32
	Send  bool
	Bytes int64
	// Phase numbers the algorithm's phases (0 or 1); together with the
	// operation's sequence number it keeps the messages of different
	// phases apart.
	Phase uint8
}

// Round appends the steps of round k (0 ≤ k < Rounds) to buf and returns
// it. Sends come before receives; within each, peers are in the order
// MPICH uses.
func (pl *Plan) Round(k int, buf []Step) []Step {
	return pl.round(pl.c.Me, k, buf, false)
}

// Sends appends the sends of round k (0 ≤ k < Rounds) to buf and returns
// it, in Round's order: for a caller that pairs every send with the
// receive its peer posts in the same round (see Aligned) and need not
// walk the receives.
func (pl *Plan) Sends(k int, buf []Step) []Step {
	return pl.round(pl.c.Me, k, buf, true)
}

// SendsAs appends the sends of round k of local rank me's plan, where
// that plan is pl.ForRank(me), to buf and returns it: one plan serves
// every rank's rounds without a copy per rank.
func (pl *Plan) SendsAs(me, k int, buf []Step) []Step {
	return pl.round(me, k, buf, true)
}

func (pl *Plan) round(me, k int, buf []Step, sendsOnly bool) []Step {
	for i := 0; i < pl.n; i++ {
		ph := &pl.phases[i]
		if k < ph.rounds {
			return pl.primRound(ph, uint8(i), me, k, buf, sendsOnly)
		}
		k -= ph.rounds
	}
	return buf
}

// Aligned reports whether the schedule pairs every message within a
// round: when every rank of the communicator runs a plan of the same
// schedule (SameSchedule), a rank sends to a peer in round k exactly when
// that peer receives from it in its round k, and at most once per round.
// Tree algorithms are not aligned (a child receives in its first round
// what its parent sends in a later one).
func (pl *Plan) Aligned() bool {
	for i := 0; i < pl.n; i++ {
		switch pl.phases[i].prim {
		case linBcast, linGather, linScatter, linAlltoall, scatteredAlltoall, linScanAll,
			rdAllreduce, rabAllreduce, rdAllgather, rdScan, ringPass, ringShift, pairXchg,
			dissemination, bruckAllgather, bruckAlltoall:
		default:
			return false
		}
	}
	return true
}

// SameSchedule reports whether o has pl's schedule: the same operation,
// algorithm, ranks, root and phases, message sizes aside.
func (pl *Plan) SameSchedule(o *Plan) bool {
	if pl.c.Op != o.c.Op || pl.c.Alg != o.c.Alg || pl.c.P != o.c.P || pl.c.Root != o.c.Root ||
		pl.n != o.n || pl.rounds != o.rounds {
		return false
	}
	for i := 0; i < pl.n; i++ {
		if pl.phases[i].prim != o.phases[i].prim || pl.phases[i].rounds != o.phases[i].rounds {
			return false
		}
	}
	return true
}

// Messages returns the total number of steps of the plan, sends and
// receives, by walking every round.
func (pl *Plan) Messages() (sends, recvs int, sentBytes int64) {
	var buf []Step
	for k := range pl.rounds {
		buf = pl.Round(k, buf[:0])
		for _, s := range buf {
			if s.Send {
				sends++
				sentBytes += s.Bytes
			} else {
				recvs++
			}
		}
	}
	return
}

func ceilDiv(a, b int64) int64 {
	if b <= 0 {
		return a
	}
	return (a + b - 1) / b
}

// log2ceil returns ⌈log2 p⌉.
func log2ceil(p int) int { return bits.Len(uint(p - 1)) }

// Log2Ceil returns ⌈log2 p⌉ (0 for p ≤ 1): the rounds of a tree or
// dissemination algorithm.
func Log2Ceil(p int) int {
	if p <= 1 {
		return 0
	}
	return log2ceil(p)
}

func primRounds(prim primitive, p int) int {
	if p <= 1 {
		return 0
	}
	switch prim {
	case linBcast, linGather, linScatter, linAlltoall, linScanAll:
		return 1
	case linScan:
		return 2
	case binBcast, binReduce, binGather, binScatter:
		// One round a child: the tree algorithms of MPICH and SMPI send
		// to (or receive from) their children one blocking call after
		// another, and one more round for the parent.
		return log2ceil(p) + 1
	case rdAllreduce:
		return bits.Len(uint(p)) - 1 + 2
	case rabAllreduce, rabReduce:
		// Before and after (reduce: the root's hand-over) the steps of
		// the ranks beyond the power of two, the halving and the
		// doubling (or gathering) steps.
		return 2*(bits.Len(uint(p))-1) + 2
	case rdBcast:
		return log2ceil(p)
	case rdAllgather, rdScan, dissemination, bruckAllgather, bruckAlltoall:
		return log2ceil(p)
	case ringPass, ringShift, pairXchg:
		return p - 1
	case scatteredAlltoall:
		return (p + alltoallThrottle - 1) / alltoallThrottle
	}
	return 0
}

// lowbit returns the lowest set bit of rel, or a power of two ≥ p for the
// root (rel 0), whose subtree is the whole tree.
func lowbit(rel, p int) int {
	if rel == 0 {
		return 1 << log2ceil(max(p, 2))
	}
	return rel & -rel
}

func (pl *Plan) primRound(ph *phase, phaseNo uint8, me, k int, buf []Step, sendsOnly bool) []Step {
	c := &pl.c
	P := c.P
	rel := (me - c.Root + P) % P
	abs := func(r int) int32 { return int32((r + c.Root) % P) }
	send := func(peer int32, b int64) { buf = append(buf, Step{Peer: peer, Send: true, Bytes: b, Phase: phaseNo}) }
	recv := func(peer int32) {
		if !sendsOnly {
			buf = append(buf, Step{Peer: peer, Phase: phaseNo})
		}
	}
	n := ph.bytes
	switch ph.prim {
	case linBcast, linScatter:
		if rel == 0 {
			for i := 1; i < P; i++ {
				send(abs(i), n)
			}
		} else {
			recv(int32(c.Root))
		}
	case linGather:
		if rel == 0 {
			for i := 1; i < P; i++ {
				recv(abs(i))
			}
		} else {
			send(int32(c.Root), n)
		}
	case linAlltoall:
		for i := 1; i < P; i++ {
			send(int32((me+i)%P), n)
		}
		for i := 1; i < P && !sendsOnly; i++ {
			recv(int32((me - i + P) % P))
		}
	case scatteredAlltoall:
		// Round k covers the peers at distances k·throttle up to the
		// next multiple, distance 0 being the rank itself.
		lo, hi := max(k*alltoallThrottle, 1), min((k+1)*alltoallThrottle, P)
		peer := (me + lo) % P
		for i := lo; i < hi; i++ {
			send(int32(peer), n)
			if peer++; peer == P {
				peer = 0
			}
		}
		for i := lo; i < hi && !sendsOnly; i++ {
			recv(int32((me - i + P) % P))
		}
	case linScanAll:
		for i := me + 1; i < P; i++ {
			send(int32(i), n)
		}
		for i := 0; i < me; i++ {
			recv(int32(i))
		}
	case linScan:
		if k == 0 && me > 0 {
			recv(int32(me - 1))
		}
		if k == 1 && me < P-1 {
			send(int32(me+1), n)
		}
	case binBcast, binScatter:
		// Round 0 receives from the parent; round j sends to the child
		// at distance 2^(L-j), the farthest (largest subtree) first, one
		// child a round: MPICH's and SMPI's binomial trees send with
		// blocking calls, so a rendezvous send to the next child starts
		// only once the previous one has ended.
		// A broadcast's scatter (total set) cuts its buffer in blocks
		// of n bytes, the last ones short or empty: MPICH sends a
		// subtree only the bytes it holds, and nothing to a subtree
		// past the end.
		lb := lowbit(rel, P)
		if k == 0 {
			if rel != 0 && (ph.total == 0 || ph.total > int64(rel)*n) {
				recv(abs(rel - lb))
			}
			break
		}
		if m := 1 << (log2ceil(P) - k); m < lb {
			if ch := rel + m; ch < P {
				b := n
				switch {
				case ph.prim == binScatter && ph.total > 0:
					b = min(ph.total, int64(ch+m)*n) - int64(ch)*n
				case ph.prim == binScatter:
					b = int64(min(m, P-ch)) * n
				}
				if b > 0 || ph.total == 0 {
					send(abs(ch), b)
				}
			}
		}
	case binReduce, binGather:
		// Round j < L receives from the child at distance 2^j, the
		// nearest first, one blocking receive a round (MPICH's binomial
		// reduce and gather); round L sends to the parent.
		lb := lowbit(rel, P)
		if L := log2ceil(P); k < L {
			if m := 1 << k; m < lb {
				if ch := rel + m; ch < P {
					recv(abs(ch))
				}
			}
			break
		}
		if rel != 0 {
			b := n
			if ph.prim == binGather {
				b = int64(min(lb, P-rel)) * n
			}
			send(abs(rel-lb), b)
		}
	case rdAllreduce, rabAllreduce:
		// The even ranks below 2·rem fold into their odd neighbours
		// first and get the result back last; the rest exchange with
		// the new rank a mask away: the whole buffer (recursive
		// doubling), or Rabenseifner's halves and doubles of it.
		p2, rem, _ := pow2Split(P)
		switch last := ph.rounds - 1; {
		case k == 0:
			if me < 2*rem {
				if me%2 == 0 {
					send(int32(me+1), n)
				} else {
					recv(int32(me - 1))
				}
			}
		case k == last:
			if me < 2*rem {
				if me%2 == 1 {
					send(int32(me-1), n)
				} else {
					recv(int32(me + 1))
				}
			}
		default:
			nr := me - rem
			if me < 2*rem {
				if me%2 == 0 {
					break
				}
				nr = me / 2
			}
			mask, b := 1<<(k-1), n
			if ph.prim == rabAllreduce {
				var st rabState
				var lo, hi int
				lo, hi, mask = st.walk(p2, nr, k-1)
				b = rabBytes(n, p2, lo, hi)
			}
			nd := nr ^ mask
			dst := nd + rem
			if nd < rem {
				dst = nd*2 + 1
			}
			send(int32(dst), b)
			recv(int32(dst))
		}
	case rabReduce:
		pl.rabReduceRound(n, me, k, send, recv)
	case rdBcast:
		// Step k exchanges with the rank 2^k away what the rank's subtree
		// of 2^k ranks holds: their blocks of the buffer, the last ones
		// short or empty.
		mask := 1 << k
		if dst := rel ^ mask; dst < P {
			tree := int64(rel &^ (mask - 1))
			held := min(ph.total, (tree+int64(mask))*n) - tree*n
			send(abs(dst), max(held, 0))
			recv(abs(dst))
		}
	case rdAllgather:
		partner := int32(me ^ (1 << k))
		send(partner, int64(1<<k)*n)
		recv(partner)
	case rdScan:
		pof := 1 << k
		if me+pof < P {
			send(int32(me+pof), n)
		}
		if me-pof >= 0 {
			recv(int32(me - pof))
		}
	case ringPass:
		send(int32((me+1)%P), n)
		recv(int32((me - 1 + P) % P))
	case ringShift:
		s := k + 1
		send(int32((me+s)%P), n)
		recv(int32((me - s + P) % P))
	case pairXchg:
		s := k + 1
		if P&(P-1) == 0 {
			send(int32(me^s), n)
			recv(int32(me ^ s))
		} else {
			send(int32((me+s)%P), n)
			recv(int32((me - s + P) % P))
		}
	case dissemination:
		pof := 1 << k
		send(int32((me+pof)%P), n)
		recv(int32((me - pof + P) % P))
	case bruckAllgather:
		pof := 1 << k
		send(int32((me-pof+P)%P), int64(min(pof, P-pof))*n)
		recv(int32((me + pof) % P))
	case bruckAlltoall:
		pof := 1 << k
		send(int32((me+pof)%P), bruckBlocks(P, pof)*n)
		recv(int32((me - pof + P) % P))
	}
	return buf
}

// bruckBlocks returns how many of the block indices 0..p-1 have bit pof
// set: the blocks a rank forwards in the round of Bruck's all-to-all that
// sends to the rank pof ahead. Indices run in whole periods of 2·pof, each
// with pof of them set, then a partial period whose indices from pof on
// are set; the count is O(1) however many ranks there are.
func bruckBlocks(p, pof int) int64 {
	period := 2 * pof
	return int64(p/period*pof + max(p%period-pof, 0))
}

// pow2Split returns the power of two p2 at or below p, the ranks rem
// beyond it and log2 p2.
func pow2Split(p int) (p2, rem, log int) {
	log = bits.Len(uint(p)) - 1
	p2 = 1 << log
	return p2, p - p2, log
}

// pow2Floor returns the power of two at or below p (1 for p ≤ 1).
func pow2Floor(p int) int {
	if p <= 1 {
		return 1
	}
	p2, _, _ := pow2Split(p)
	return p2
}

// rabState follows MPICH's indices into the p2 blocks of Rabenseifner's
// algorithms (MPIR_Allreduce_intra_reduce_scatter_allgather and
// MPIR_Reduce_intra_reduce_scatter_gather): the blocks a rank sends from
// (sendIdx), receives into (recvIdx) and holds up to (lastIdx). Blocks
// are count/p2 elements, the last one taking the remainder.
type rabState struct {
	sendIdx, recvIdx, lastIdx int
}

// halve applies step mask of the recursive-halving reduce-scatter for
// new rank nr and returns the blocks [lo, hi) it sends.
func (st *rabState) halve(p2, nr, mask int) (lo, hi int) {
	if nr < nr^mask {
		st.sendIdx = st.recvIdx + p2/(mask*2)
		lo, hi = st.sendIdx, st.lastIdx
	} else {
		st.recvIdx = st.sendIdx + p2/(mask*2)
		lo, hi = st.sendIdx, st.recvIdx
	}
	st.sendIdx = st.recvIdx
	if mask*2 < p2 {
		st.lastIdx = st.recvIdx + p2/(mask*2)
	}
	return lo, hi
}

// double applies step mask of the recursive-doubling allgather (or of
// the binomial gather, whose ranks send their blocks the same way) and
// returns the blocks [lo, hi) it sends.
func (st *rabState) double(p2, nr, mask int) (lo, hi int) {
	if nr < nr^mask {
		if mask != p2/2 {
			st.lastIdx += p2 / (mask * 2)
		}
		st.recvIdx = st.sendIdx + p2/(mask*2)
		lo, hi = st.sendIdx, st.recvIdx
	} else {
		st.recvIdx = st.sendIdx - p2/(mask*2)
		lo, hi = st.sendIdx, st.lastIdx
	}
	if nr > nr^mask {
		st.sendIdx = st.recvIdx
	}
	return lo, hi
}

// walk runs new rank nr through step step of Rabenseifner's allreduce
// (0..log2 p2 - 1 halving with masks 1, 2, 4…, then as many doubling
// with masks p2/2…1) from the start and returns that step's blocks and
// mask. It costs a step per step before, which a round pays once.
func (st *rabState) walk(p2, nr, step int) (lo, hi, mask int) {
	*st = rabState{lastIdx: p2}
	for mask = 1; mask < p2; mask <<= 1 {
		lo, hi = st.halve(p2, nr, mask)
		if step == 0 {
			return lo, hi, mask
		}
		step--
	}
	for mask >>= 1; mask > 0; mask >>= 1 {
		lo, hi = st.double(p2, nr, mask)
		if step == 0 {
			return lo, hi, mask
		}
		step--
	}
	return 0, 0, 0
}

// rabBytes returns the bytes of blocks [lo, hi) of a buffer of n bytes
// cut into p2 blocks, the last taking the remainder.
func rabBytes(n int64, p2, lo, hi int) int64 {
	if hi <= lo {
		return 0
	}
	b := n / int64(p2)
	bytes := int64(hi-lo) * b
	if hi == p2 {
		bytes += n - b*int64(p2)
	}
	return bytes
}

// rabReduceRound appends rank me's steps of round k of MPICH's reduce by
// reduce-scatter and gather (MPIR_Reduce_intra_reduce_scatter_gather):
// round 0 folds the odd ranks below 2·rem into their even neighbours,
// rounds 1..L halve, round L+1 hands rank 0's block to a root that was
// folded away (which then stands for rank 0), and rounds L+2..2L+1
// gather the blocks to the root along a binomial tree, one blocking send
// or receive a round.
func (pl *Plan) rabReduceRound(n int64, me, k int, send func(int32, int64), recv func(int32)) {
	P, root := pl.c.P, pl.c.Root
	p2, rem, L := pow2Split(P)
	nr := me - rem
	if me < 2*rem {
		nr = -1
		if me%2 == 0 {
			nr = me / 2
		}
	}
	rankOf := func(nd int) int { // the rank that stands for new rank nd
		if nd < rem {
			return nd * 2
		}
		return nd + rem
	}
	if k == 0 {
		if me < 2*rem {
			if me%2 == 1 {
				send(int32(me-1), n)
			} else {
				recv(int32(me + 1))
			}
		}
		return
	}
	var st rabState
	st.lastIdx = p2
	mask := 1
	for s := 1; s <= L; s++ {
		lo, hi := 0, 0
		if nr >= 0 {
			lo, hi = st.halve(p2, nr, mask)
		}
		if s == k {
			if nr >= 0 {
				dst := rankOf(nr ^ mask)
				send(int32(dst), rabBytes(n, p2, lo, hi))
				recv(int32(dst))
			}
			return
		}
		mask <<= 1
	}
	foldedRoot := root < 2*rem && root%2 == 1
	newroot := root - rem
	switch {
	case foldedRoot:
		newroot = 0
		if me == root {
			nr, st = 0, rabState{lastIdx: 2}
		} else if nr == 0 {
			nr = -1
			if k == L+1 {
				send(int32(root), rabBytes(n, p2, 0, 1))
			}
		}
		if me == root && k == L+1 {
			recv(int32(0))
		}
	case root < 2*rem:
		newroot = root / 2
	}
	if k == L+1 || nr < 0 {
		return
	}
	j := L - 1
	for mask = p2 >> 1; mask > 0; mask >>= 1 {
		nd := nr ^ mask
		dst := rankOf(nd)
		if nd == 0 && foldedRoot {
			dst = root
		}
		lo, hi := st.double(p2, nr, mask)
		sends := nd>>j == newroot>>j
		if k == L+2+(L-1-j) {
			if sends {
				send(int32(dst), rabBytes(n, p2, lo, hi))
			} else {
				recv(int32(dst))
			}
			return
		}
		if sends {
			return
		}
		j--
	}
}

// Factor is the multiplier of the analytic collective model.
type Factor uint8

// Factors of the analytic model: the collective costs (latency +
// size/bandwidth) × 0, 1, ⌈log2 P⌉ or P.
const (
	FactorZero Factor = iota
	FactorOne
	FactorLog2P
	FactorP
)

var factorNames = [...]string{"0", "1", "log2p", "p"}

// String returns the factor as --coll-factor spells it.
func (f Factor) String() string {
	if int(f) < len(factorNames) {
		return factorNames[f]
	}
	return fmt.Sprintf("factor(%d)", uint8(f))
}

// ParseFactor returns the factor named s: 0, 1, log2p or p.
func ParseFactor(s string) (Factor, error) {
	switch strings.ToLower(s) {
	case "0", "zero":
		return FactorZero, nil
	case "1", "one":
		return FactorOne, nil
	case "log2p", "log2(p)", "logp":
		return FactorLog2P, nil
	case "p":
		return FactorP, nil
	}
	return 0, fmt.Errorf("unknown collective factor %q (expected 0, 1, log2p or p)", s)
}

// Times returns the factor's value for p ranks.
func (f Factor) Times(p int) int64 {
	switch f {
	case FactorOne:
		return 1
	case FactorLog2P:
		return int64(Log2Ceil(p))
	case FactorP:
		return int64(p)
	}
	return 0
}

// smpiPlan adds the phases of SimGrid 3.32's SMPI collectives ("default"
// selector, src/smpi/colls/smpi_default_selector.cpp, and the
// non-blocking linear versions it calls):
//
//	barrier        all to rank 0, then 0 to all (ompi_basic_linear)
//	bcast          binomial tree (as MPICH's binomial)
//	reduce         linear: every rank to the root (ireduce)
//	allreduce      linear reduce to rank 0, then binomial broadcast
//	gather(v), scatter(v)   linear (igather, iscatter)
//	allgather(v), alltoallv linear: every rank to every other
//	alltoall       Open MPI's decision table (alltoall__ompi): linear,
//	               pairwise or Bruck by ranks and block size
//	reducescatter  linear reduce of the whole buffer to 0, then linear
//	               scatter of the blocks
//	scan, exscan   every rank to every higher rank (iscan)
func smpiPlan(op tracefmt.CollOp, c Call, n int64, add func(primitive, int64)) {
	switch op {
	case tracefmt.OpBarrier:
		add(linGather, n)
		add(linBcast, n)
	case tracefmt.OpBcast:
		add(binBcast, n)
	case tracefmt.OpReduce, tracefmt.OpGather, tracefmt.OpGatherv:
		add(linGather, n)
	case tracefmt.OpAllreduce:
		add(linGather, n)
		add(binBcast, n)
	case tracefmt.OpScatter, tracefmt.OpScatterv:
		add(linScatter, n)
	case tracefmt.OpAllgather, tracefmt.OpAllgatherv, tracefmt.OpAlltoallv:
		add(linAlltoall, n)
	case tracefmt.OpAlltoall:
		add(ompiAlltoall(c.P, n), n)
	case tracefmt.OpReduceScatter:
		add(linGather, c.Sent)
		add(linScatter, n)
	case tracefmt.OpScan, tracefmt.OpExscan:
		add(linScanAll, n)
	}
}

// ompiAlltoall is alltoall__ompi's choice for p ranks and blocks of b
// bytes: rows of (ranks below, then block sizes below → algorithm), where
// 1, 4 and 5 are the linear algorithm, 2 pairwise and 3 (modified) Bruck.
func ompiAlltoall(p int, b int64) primitive {
	type step struct {
		below int64
		alg   int
	}
	var table []step
	switch {
	case p == 2:
		table = []step{{2, 2}, {4, 5}, {16, 2}, {64, 5}, {256, 2}, {4096, 5}, {32768, 2}, {262144, 4}, {1048576, 5}, {-1, 2}}
	case p < 8:
		table = []step{{8192, 4}, {16384, 1}, {65536, 4}, {524288, 1}, {1048576, 2}, {-1, 1}}
	case p < 16:
		table = []step{{262144, 4}, {-1, 1}}
	case p < 32:
		table = []step{{4, 4}, {512, 3}, {8192, 4}, {32768, 1}, {262144, 4}, {524288, 1}, {-1, 4}}
	case p < 64:
		table = []step{{512, 3}, {524288, 1}, {-1, 4}}
	case p < 128:
		table = []step{{1024, 3}, {2048, 1}, {4096, 4}, {262144, 1}, {-1, 2}}
	case p < 256:
		table = []step{{1024, 3}, {2048, 4}, {262144, 1}, {-1, 2}}
	case p < 512:
		table = []step{{1024, 3}, {8192, 4}, {32768, 1}, {-1, 2}}
	case p < 1024:
		table = []step{{512, 3}, {8192, 4}, {16384, 1}, {131072, 4}, {262144, 1}, {-1, 2}}
	case p < 2048:
		table = []step{{512, 3}, {1024, 4}, {2048, 1}, {16384, 4}, {262144, 1}, {-1, 4}}
	case p < 4096:
		table = []step{{1024, 3}, {4096, 4}, {8192, 1}, {131072, 4}, {-1, 1}}
	default:
		table = []step{{2048, 3}, {8192, 4}, {16384, 1}, {32768, 4}, {65536, 1}, {-1, 4}}
	}
	alg := 1
	for _, st := range table {
		if st.below < 0 || b < st.below {
			alg = st.alg
			break
		}
	}
	switch alg {
	case 2:
		return pairXchg
	case 3:
		return bruckAlltoall
	}
	return linAlltoall
}

// RoundPeers fills peer, of one entry per local rank, with the rank each
// rank sends to in round k (0 ≤ k < Rounds) when every rank of the call
// runs pl's schedule with pl's sizes (rank me's plan being
// pl.ForRank(me)), -1 for a rank that sends nothing, and returns the size
// of those messages: the sends SendsAs gives, for the schedules in which
// a rank sends at most one message a round and all of a round's messages
// have one size. ok is false for the others (linear and tree algorithms,
// MPICH's scattered all-to-all), and peer is then left as it was. perm
// reports that every rank sends exactly one message in the round and
// receives exactly one. A caller that walks a round of P ranks this way
// spends a few instructions a rank rather than a call and a slice per
// rank (SendsAs).
func (pl *Plan) RoundPeers(k int, peer []int32) (bytes int64, perm, ok bool) {
	P := pl.c.P
	if len(peer) < P {
		return 0, false, false
	}
	peer = peer[:P]
	var ph *phase
	for i := 0; i < pl.n; i++ {
		if k < pl.phases[i].rounds {
			ph = &pl.phases[i]
			break
		}
		k -= pl.phases[i].rounds
	}
	if ph == nil {
		return 0, false, false
	}
	n := ph.bytes
	none := func() {
		for i := range peer {
			peer[i] = -1
		}
	}
	// shift sets peer[me] = (me+s) mod P, s in [0, P).
	shift := func(s int) {
		for me := range peer {
			d := me + s
			if d >= P {
				d -= P
			}
			peer[me] = int32(d)
		}
	}
	switch ph.prim {
	case linScan:
		none()
		if k == 1 {
			for me := 0; me < P-1; me++ {
				peer[me] = int32(me + 1)
			}
		}
		return n, false, true
	case rdAllreduce:
		p2 := 1 << (bits.Len(uint(P)) - 1)
		rem := P - p2
		last := ph.rounds - 1
		switch {
		case k == 0:
			none()
			for me := 0; me < 2*rem; me += 2 {
				peer[me] = int32(me + 1)
			}
			return n, false, true
		case k == last:
			none()
			for me := 1; me < 2*rem; me += 2 {
				peer[me] = int32(me - 1)
			}
			return n, false, true
		}
		bit := 1 << (k - 1)
		if rem == 0 {
			for me := range peer {
				peer[me] = int32(me ^ bit)
			}
			return n, true, true
		}
		for me := range peer {
			newrank := me - rem
			if me < 2*rem {
				if me%2 == 0 {
					peer[me] = -1
					continue
				}
				newrank = me / 2
			}
			nd := newrank ^ bit
			dst := nd + rem
			if nd < rem {
				dst = nd*2 + 1
			}
			peer[me] = int32(dst)
		}
		return n, false, true
	case rdAllgather:
		bit := 1 << k
		for me := range peer {
			peer[me] = int32(me ^ bit)
		}
		return int64(bit) * n, P&(P-1) == 0, true
	case rdScan:
		pof := 1 << k
		for me := range peer {
			peer[me] = -1
			if me+pof < P {
				peer[me] = int32(me + pof)
			}
		}
		return n, false, true
	case ringPass:
		shift(1 % P)
		return n, true, true
	case ringShift:
		shift((k + 1) % P)
		return n, true, true
	case pairXchg:
		s := k + 1
		if P&(P-1) == 0 {
			for me := range peer {
				peer[me] = int32(me ^ s)
			}
			return n, true, true
		}
		shift(s % P)
		return n, true, true
	case dissemination:
		shift((1 << k) % P)
		return n, true, true
	case bruckAllgather:
		pof := 1 << k
		shift((P - pof%P) % P)
		return int64(min(pof, P-pof)) * n, true, true
	case bruckAlltoall:
		pof := 1 << k
		shift(pof % P)
		return bruckBlocks(P, pof) * n, true, true
	}
	return 0, false, false
}
