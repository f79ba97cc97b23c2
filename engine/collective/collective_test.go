package collective

import (
	"fmt"
	"slices"
	"testing"

	"github.com/tracesim/tracesim/tracefmt"
)

var allOps = []tracefmt.CollOp{
	tracefmt.OpBarrier, tracefmt.OpBcast, tracefmt.OpReduce, tracefmt.OpAllreduce,
	tracefmt.OpGather, tracefmt.OpGatherv, tracefmt.OpScatter, tracefmt.OpScatterv,
	tracefmt.OpAllgather, tracefmt.OpAllgatherv, tracefmt.OpAlltoall, tracefmt.OpAlltoallv,
	tracefmt.OpReduceScatter, tracefmt.OpScan, tracefmt.OpExscan, tracefmt.OpOther,
}

// callFor returns rank me's call of op over p ranks with a block of n
// bytes, with the sizes a trace would record.
func callFor(op tracefmt.CollOp, alg Algorithm, p, me, root int, n int64) Call {
	c := Call{Op: op, Alg: alg, P: p, Me: me, Root: root}
	P := int64(p)
	switch op {
	case tracefmt.OpBarrier:
	case tracefmt.OpBcast:
		if me == root {
			c.Sent = n
		} else {
			c.Recvd = n
		}
	case tracefmt.OpScatter, tracefmt.OpScatterv:
		c.Recvd = n
		if me == root {
			c.Sent = n * P
		}
	case tracefmt.OpGather, tracefmt.OpGatherv:
		c.Sent = n
		if me == root {
			c.Recvd = n * P
		}
	case tracefmt.OpAllgather, tracefmt.OpAllgatherv:
		c.Sent, c.Recvd = n, n*P
	case tracefmt.OpAlltoall, tracefmt.OpAlltoallv, tracefmt.OpReduceScatter:
		c.Sent, c.Recvd = n*P, n*P
	default:
		c.Sent, c.Recvd = n, n
	}
	return c
}

type flow struct {
	src, dst int32
	phase    uint8
}

// execute runs the plans of every rank with eager sends and returns the
// bytes each rank received, or an error when the schedule deadlocks or
// leaves messages unreceived.
func execute(plans []Plan) ([]int64, error) {
	p := len(plans)
	queues := map[flow][]int64{}
	round := make([]int, p)
	started := make([]bool, p)
	got := make([]int64, p)
	var buf []Step
	for progress := true; progress; {
		progress = false
		for r := range p {
			for round[r] < plans[r].Rounds() {
				buf = plans[r].Round(round[r], buf[:0])
				if !started[r] {
					for _, s := range buf {
						if s.Send {
							if int(s.Peer) == r || s.Peer < 0 || int(s.Peer) >= p {
								return nil, fmt.Errorf("rank %d round %d sends to %d", r, round[r], s.Peer)
							}
							f := flow{int32(r), s.Peer, s.Phase}
							queues[f] = append(queues[f], s.Bytes)
						}
					}
					started[r] = true
				}
				ready := true
				need := map[flow]int{}
				for _, s := range buf {
					if !s.Send {
						f := flow{s.Peer, int32(r), s.Phase}
						need[f]++
						if len(queues[f]) < need[f] {
							ready = false
						}
					}
				}
				if !ready {
					break
				}
				for _, s := range buf {
					if !s.Send {
						f := flow{s.Peer, int32(r), s.Phase}
						got[r] += queues[f][0]
						queues[f] = queues[f][1:]
					}
				}
				round[r]++
				started[r] = false
				progress = true
			}
		}
	}
	for r := range p {
		if round[r] < plans[r].Rounds() {
			return nil, fmt.Errorf("deadlock: rank %d stuck in round %d of %d", r, round[r], plans[r].Rounds())
		}
	}
	for f, q := range queues {
		if len(q) > 0 {
			return nil, fmt.Errorf("%d messages %d→%d (phase %d) never received", len(q), f.src, f.dst, f.phase)
		}
	}
	return got, nil
}

// Every algorithm of every operation completes for every size and root,
// and every message sent is received.
func TestSchedulesComplete(t *testing.T) {
	for _, op := range allOps {
		for _, alg := range Algorithms(op) {
			for p := 1; p <= 17; p++ {
				for _, root := range []int{0, p / 2, p - 1} {
					plans := make([]Plan, p)
					for me := range p {
						plans[me] = NewPlan(callFor(op, alg, p, me, root, 1000))
					}
					if _, err := execute(plans); err != nil {
						t.Fatalf("%s %s p=%d root=%d: %v", op, alg, p, root, err)
					}
				}
			}
		}
	}
}

// The bytes that reach each rank are what the operation must deliver
// there, for algorithms that move no more data than needed.
func TestScheduleVolumes(t *testing.T) {
	const n = 100
	tests := []struct {
		op   tracefmt.CollOp
		algs []Algorithm
		// want returns the bytes rank me must receive.
		want func(p, me, root int) int64
	}{
		{tracefmt.OpBcast, []Algorithm{Linear, Binomial}, func(p, me, root int) int64 {
			if me == root {
				return 0
			}
			return n
		}},
		{tracefmt.OpGather, []Algorithm{Linear, Binomial}, func(p, me, root int) int64 {
			if me == root {
				return int64(p-1) * n
			}
			// Binomial gather forwards subtrees: only the root's total
			// is fixed, so non-roots are checked by the sum below.
			return -1
		}},
		{tracefmt.OpScatter, []Algorithm{Linear}, func(p, me, root int) int64 {
			if me == root {
				return 0
			}
			return n
		}},
		{tracefmt.OpAllgather, []Algorithm{Linear, Ring, RecursiveDoubling, Dissemination}, func(p, me, root int) int64 {
			return int64(p-1) * n
		}},
		{tracefmt.OpAlltoall, []Algorithm{Linear, Pairwise, Ring}, func(p, me, root int) int64 {
			return int64(p-1) * n
		}},
	}
	for _, tc := range tests {
		for _, alg := range tc.algs {
			for p := 2; p <= 13; p++ {
				root := p / 3
				plans := make([]Plan, p)
				for me := range p {
					plans[me] = NewPlan(callFor(tc.op, alg, p, me, root, n))
				}
				got, err := execute(plans)
				if err != nil {
					t.Fatalf("%s %s p=%d: %v", tc.op, alg, p, err)
				}
				for me := range p {
					if w := tc.want(p, me, root); w >= 0 && got[me] != w {
						t.Errorf("%s %s p=%d: rank %d received %d B, want %d", tc.op, alg, p, me, got[me], w)
					}
				}
			}
		}
	}
}

func TestRoundCounts(t *testing.T) {
	tests := []struct {
		op     tracefmt.CollOp
		alg    Algorithm
		p      int
		rounds int
		sends  int // of rank 0 (the root)
	}{
		{tracefmt.OpBarrier, Dissemination, 16, 4, 4},
		{tracefmt.OpBarrier, Dissemination, 5, 3, 3},
		{tracefmt.OpBcast, Binomial, 16, 5, 4}, // receive, then one child a round
		{tracefmt.OpReduce, Binomial, 16, 5, 0},
		{tracefmt.OpBcast, Linear, 16, 1, 15},
		{tracefmt.OpAllreduce, RecursiveDoubling, 8, 5, 3},
		{tracefmt.OpAllreduce, RecursiveDoubling, 6, 4, 1}, // pre, 2 doubling, post; rank 0 folds into rank 1
		{tracefmt.OpAllreduce, Ring, 4, 6, 6},
		{tracefmt.OpAlltoall, Pairwise, 8, 7, 7},
		{tracefmt.OpAllgather, Ring, 5, 4, 4},
		{tracefmt.OpBcast, Ring, 8, 11, 10}, // binomial scatter (1 + 3) + ring (7): root sends 3 + 7
		// MPICH's linear all-to-all: 32 peers a round, the rank itself
		// counted in the first.
		{tracefmt.OpAlltoall, Linear, 32, 1, 31},
		{tracefmt.OpAlltoall, Linear, 33, 2, 32},
		{tracefmt.OpAlltoallv, Linear, 100, 4, 99},
		{tracefmt.OpAlltoall, Linear, 65536, 2048, 65535},
	}
	for _, tc := range tests {
		pl := NewPlan(callFor(tc.op, tc.alg, tc.p, 0, 0, 1<<20))
		sends, _, _ := pl.Messages()
		if pl.Rounds() != tc.rounds || sends != tc.sends {
			t.Errorf("%s %s p=%d: %d rounds, %d sends; want %d, %d", tc.op, tc.alg, tc.p, pl.Rounds(), sends, tc.rounds, tc.sends)
		}
	}
}

// TestBinomialTreesOneChildARound: MPICH's and SMPI's binomial trees
// send to their children (bcast, scatter) and receive from them (reduce,
// gather) with blocking calls, one after the other, so a plan gives each
// child a round of its own: the farthest child first when sending, the
// nearest first when receiving. Posted together, rendezvous messages to
// the children shared the parent's link and every child waited for the
// last (a 320 KB bcast on 16 ranks of a 125 MB/s star took 25.6 ms
// against SimGrid's 10.3 ms).
func TestBinomialTreesOneChildARound(t *testing.T) {
	type step struct {
		round int
		peer  int32
		send  bool
		bytes int64
	}
	for _, tc := range []struct {
		op   tracefmt.CollOp
		p    int
		me   int
		root int
		want []step
	}{
		// Relative rank 0 of 13: children at +8, +4, +2, +1.
		{tracefmt.OpBcast, 13, 9, 9, []step{{1, 4, true, 100}, {2, 0, true, 100}, {3, 11, true, 100}, {4, 10, true, 100}}},
		// Relative rank 4 (rank 0 with root 9): parent 9 in round 0,
		// then children 6 (+2) and 5 (+1).
		{tracefmt.OpBcast, 13, 0, 9, []step{{0, 9, false, 0}, {3, 2, true, 100}, {4, 1, true, 100}}},
		// Scatter: each child gets its subtree's blocks.
		{tracefmt.OpScatter, 13, 0, 0, []step{{1, 8, true, 500}, {2, 4, true, 400}, {3, 2, true, 200}, {4, 1, true, 100}}},
		// Reduce at root 0: children +1, +2, +4, +8, one a round.
		{tracefmt.OpReduce, 13, 0, 0, []step{{0, 1, false, 0}, {1, 2, false, 0}, {2, 4, false, 0}, {3, 8, false, 0}}},
		// Rank 4 of 13: children 5, 6 in rounds 0 and 1, then its parent.
		{tracefmt.OpReduce, 13, 4, 0, []step{{0, 5, false, 0}, {1, 6, false, 0}, {4, 0, true, 100}}},
		// Gather: rank 4 sends its subtree's four blocks.
		{tracefmt.OpGather, 13, 4, 0, []step{{0, 5, false, 0}, {1, 6, false, 0}, {4, 0, true, 400}}},
	} {
		pl := NewPlan(callFor(tc.op, Binomial, tc.p, tc.me, tc.root, 100))
		var got []step
		for k := range pl.Rounds() {
			for _, st := range pl.Round(k, nil) {
				got = append(got, step{k, st.Peer, st.Send, st.Bytes})
			}
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s p=%d rank %d root %d: %v, want %v", tc.op, tc.p, tc.me, tc.root, got, tc.want)
		}
	}
}

func TestDefaultsFollowMPICH(t *testing.T) {
	tests := []struct {
		op   tracefmt.CollOp
		p    int
		n    int64
		want Algorithm
	}{
		{tracefmt.OpBarrier, 64, 0, Dissemination},
		{tracefmt.OpBcast, 64, 1024, Binomial},
		{tracefmt.OpBcast, 64, 1 << 20, Ring},
		{tracefmt.OpBcast, 64, 12287, Binomial},
		{tracefmt.OpBcast, 64, 12288, RecursiveDoubling}, // scatter + doubling allgather
		{tracefmt.OpBcast, 60, 12288, Ring},              // not a power of two
		{tracefmt.OpBcast, 64, 524288, Ring},
		{tracefmt.OpBcast, 4, 1 << 20, Binomial},
		{tracefmt.OpAllreduce, 64, 8, RecursiveDoubling},
		{tracefmt.OpAllreduce, 64, 2048, RecursiveDoubling}, // MPICH: up to 2048 B inclusive
		{tracefmt.OpAllreduce, 64, 2049, Rabenseifner},
		{tracefmt.OpAllreduce, 60, 1 << 20, Rabenseifner},
		{tracefmt.OpReduce, 64, 2048, Binomial},
		{tracefmt.OpReduce, 64, 2049, Rabenseifner},
		{tracefmt.OpReduce, 4096, 3000, Binomial}, // fewer elements than ranks
		{tracefmt.OpAllgather, 64, 64, RecursiveDoubling},
		{tracefmt.OpAllgather, 60, 64, Dissemination},
		{tracefmt.OpAllgather, 64, 1 << 20, Ring},
		{tracefmt.OpAlltoall, 64, 8, Dissemination},
		{tracefmt.OpAlltoall, 64, 4096, Linear},
		{tracefmt.OpAlltoall, 64, 1 << 20, Pairwise},
		{tracefmt.OpGatherv, 64, 10, Linear},
		{tracefmt.OpScan, 64, 10, RecursiveDoubling},
	}
	for _, tc := range tests {
		if got := Default(tc.op, tc.p, tc.n); got != tc.want {
			t.Errorf("Default(%s, %d, %d) = %s, want %s", tc.op, tc.p, tc.n, got, tc.want)
		}
		if !Applicable(tc.op, tc.want) {
			t.Errorf("default %s not applicable to %s", tc.want, tc.op)
		}
	}
	// An algorithm that cannot run the operation falls back to the default.
	pl := NewPlan(Call{Op: tracefmt.OpGather, Alg: Ring, P: 8, Sent: 10})
	if pl.Call().Alg != Binomial {
		t.Errorf("gather with ring resolved to %s, want binomial", pl.Call().Alg)
	}
}

func TestParsing(t *testing.T) {
	for a := Auto; a < numAlgorithms; a++ {
		if got, err := ParseAlgorithm(a.String()); err != nil || got != a {
			t.Errorf("ParseAlgorithm(%q) = %v, %v", a.String(), got, err)
		}
	}
	if _, err := ParseAlgorithm("butterfly"); err == nil {
		t.Error("ParseAlgorithm accepted nonsense")
	}
	for f := FactorZero; f <= FactorP; f++ {
		if got, err := ParseFactor(f.String()); err != nil || got != f {
			t.Errorf("ParseFactor(%q) = %v, %v", f.String(), got, err)
		}
	}
	if _, err := ParseFactor("2"); err == nil {
		t.Error("ParseFactor accepted 2")
	}
	wants := map[Factor]int64{FactorZero: 0, FactorOne: 1, FactorLog2P: 4, FactorP: 9}
	for f, w := range wants {
		if got := f.Times(9); got != w {
			t.Errorf("%s.Times(9) = %d, want %d", f, got, w)
		}
	}
}

// The closed form of Bruck's block count equals counting the block
// indices with the round's bit set, for every world up to a few hundred
// ranks and for large ones.
func TestBruckBlocksClosedForm(t *testing.T) {
	count := func(p, pof int) int64 {
		var n int64
		for i := range p {
			if i&pof != 0 {
				n++
			}
		}
		return n
	}
	sizes := []int{}
	for p := 1; p <= 400; p++ {
		sizes = append(sizes, p)
	}
	// Large worlds: powers of two, their neighbours and odd sizes.
	sizes = append(sizes, 1023, 1024, 1025, 4095, 4097, 6001, 12289, 65535, 65536, 65537, 100000, 131071)
	for _, p := range sizes {
		for k := range Log2Ceil(p) {
			pof := 1 << k
			if got, want := bruckBlocks(p, pof), count(p, pof); got != want {
				t.Fatalf("p=%d round %d: %d blocks, want %d", p, k, got, want)
			}
		}
	}
	// What a rank sends: the round's blocks (counted by a script, not by
	// the code under test) times the block size.
	pl := NewPlan(callFor(tracefmt.OpAlltoall, Dissemination, 6001, 17, 0, 64))
	for k, want := range []int64{3000, 3000, 3000, 3000, 2993, 2993, 2993, 2944, 2929, 2929, 2929, 2048, 1905} {
		steps := pl.Round(k, nil)
		if len(steps) != 2 || !steps[0].Send || steps[0].Bytes != want*64 || steps[0].Peer != int32((17+1<<k)%6001) {
			t.Errorf("p=6001 round %d: steps %+v, want a send of %d blocks to %d", k, steps, want, (17+1<<k)%6001)
		}
	}
}

// TestAlignedPlansPairEveryRound checks what Aligned promises: for every
// operation and algorithm whose plan is aligned, in every round, the
// sends of all ranks (with Sends) are exactly the receives of all ranks,
// pair by pair, each pair at most once; and that the tree algorithms are
// reported not aligned.
func TestAlignedPlansPairEveryRound(t *testing.T) {
	sizes := []int64{0, 8, 300, 4096, 70000}
	aligned := 0
	for _, op := range allOps {
		for _, alg := range Algorithms(op) {
			for p := 1; p <= 70; p += 1 + p/8 {
				for _, n := range sizes {
					root := p / 3
					plans := make([]Plan, p)
					for me := range p {
						plans[me] = NewPlan(callFor(op, alg, p, me, root, n))
					}
					if !plans[0].Aligned() {
						if plans[0].Rounds() > 0 && op == tracefmt.OpAllgather && alg == Ring {
							t.Fatalf("%v %v p=%d n=%d: ring allgather reported not aligned", op, alg, p, n)
						}
						continue
					}
					aligned++
					for me := range p {
						if !plans[me].SameSchedule(&plans[0]) {
							t.Fatalf("%v %v p=%d n=%d: rank %d's schedule differs from rank 0's", op, alg, p, n, me)
						}
					}
					for k := range plans[0].Rounds() {
						sends := map[[2]int32]int{}
						recvs := map[[2]int32]int{}
						var buf []Step
						for me := range p {
							buf = plans[me].Round(k, buf[:0])
							var only []Step
							only = plans[me].Sends(k, only)
							nSends := 0
							for _, st := range buf {
								if st.Send {
									sends[[2]int32{int32(me), st.Peer}]++
									if nSends >= len(only) || only[nSends] != st {
										t.Fatalf("%v %v p=%d round %d rank %d: Sends gave %v, Round's sends differ at %d", op, alg, p, k, me, only, nSends)
									}
									nSends++
								} else {
									recvs[[2]int32{st.Peer, int32(me)}]++
								}
							}
							if nSends != len(only) {
								t.Fatalf("%v %v p=%d round %d rank %d: Sends gave %d steps, Round %d sends", op, alg, p, k, me, len(only), nSends)
							}
						}
						if len(sends) != len(recvs) {
							t.Fatalf("%v %v p=%d n=%d round %d: %d pairs send, %d receive", op, alg, p, n, k, len(sends), len(recvs))
						}
						for pr, c := range sends {
							if c != 1 || recvs[pr] != 1 {
								t.Fatalf("%v %v p=%d n=%d round %d: pair %d->%d sent %d times, received %d", op, alg, p, n, k, pr[0], pr[1], c, recvs[pr])
							}
						}
					}
				}
			}
		}
	}
	if aligned == 0 {
		t.Fatal("no aligned plan checked")
	}
	for _, c := range []Call{
		{Op: tracefmt.OpBcast, Alg: Binomial, P: 8},
		{Op: tracefmt.OpAllreduce, Alg: Binomial, P: 8, Sent: 8},
		{Op: tracefmt.OpAllreduce, Alg: SMPI, P: 8, Sent: 8},
	} {
		if pl := NewPlan(c); pl.Aligned() {
			t.Errorf("%v %v: a tree plan reported aligned", c.Op, c.Alg)
		}
	}
}

// TestSendsAs: one plan stands for every rank whose own plan is that
// plan for it (ForRank), and SendsAs gives that rank's sends, round by
// round, as its own plan's Sends does. Of the aligned schedules, those
// whose ranks all send the same block are uniform: every rank's plan is
// the first's for it.
func TestSendsAs(t *testing.T) {
	ops := []tracefmt.CollOp{tracefmt.OpBarrier, tracefmt.OpBcast, tracefmt.OpReduce, tracefmt.OpAllreduce,
		tracefmt.OpAllgather, tracefmt.OpAlltoall, tracefmt.OpReduceScatter, tracefmt.OpScan, tracefmt.OpGather}
	for _, op := range ops {
		for _, alg := range Algorithms(op) {
			for _, p := range []int{2, 5, 8, 13, 64} {
				first := NewPlan(Call{Op: op, Alg: alg, P: p, Me: 0, Root: 1 % p, Sent: 4096, Recvd: 4096})
				uniform := 0
				for me := range p {
					own := NewPlan(Call{Op: op, Alg: alg, P: p, Me: me, Root: 1 % p, Sent: 4096, Recvd: 4096})
					if first.ForRank(me) != own {
						continue
					}
					uniform++
					for k := range own.Rounds() {
						want := fmt.Sprint(own.Sends(k, nil))
						if got := fmt.Sprint(first.SendsAs(me, k, nil)); got != want {
							t.Fatalf("%v/%v/p%d: rank %d round %d: SendsAs %s, own plan %s", op, alg, p, me, k, got, want)
						}
					}
				}
				if first.Aligned() && uniform != p {
					t.Errorf("%v/%v/p%d: %d of %d ranks' plans are the first's for them, want all", op, alg, p, uniform, p)
				}
			}
		}
	}
}

// TestRoundPeers: where RoundPeers answers, every rank's peer and the
// round's size are what SendsAs gives that rank (one send or none), and a
// round it calls a permutation has every rank send once and receive once;
// it answers for every one-send-a-round schedule of MPICH's and SMPI's
// choices that bulk replay meets (allreduce, barrier, allgather, Bruck's
// and pairwise all-to-all, ring, scan).
func TestRoundPeers(t *testing.T) {
	answered := map[primitive]bool{}
	for _, op := range allOps {
		for _, alg := range Algorithms(op) {
			for _, p := range []int{1, 2, 3, 5, 6, 8, 12, 13, 16, 64, 100} {
				for _, n := range []int64{8, 4096, 1 << 20} {
					pl := NewPlan(callFor(op, alg, p, 0, 1%p, n))
					peer := make([]int32, p)
					for k := range pl.Rounds() {
						for i := range peer {
							peer[i] = -7
						}
						bytes, perm, ok := pl.RoundPeers(k, peer)
						if !ok {
							continue
						}
						for i := 0; i < pl.n; i++ {
							answered[pl.phases[i].prim] = true
						}
						sends, recvs := 0, make([]int, p)
						for me := range p {
							want := pl.SendsAs(me, k, nil)
							if len(want) > 1 {
								t.Fatalf("%v/%v/p%d round %d: rank %d sends %d messages, RoundPeers answered", op, alg, p, k, me, len(want))
							}
							got := peer[me]
							if len(want) == 0 {
								if got != -1 {
									t.Fatalf("%v/%v/p%d round %d: rank %d sends nothing, RoundPeers says %d", op, alg, p, k, me, got)
								}
								continue
							}
							if got != want[0].Peer || bytes != want[0].Bytes {
								t.Fatalf("%v/%v/p%d/%dB round %d: rank %d sends %d B to %d, RoundPeers says %d B to %d", op, alg, p, n, k, me, want[0].Bytes, want[0].Peer, bytes, got)
							}
							sends++
							recvs[got]++
						}
						if perm {
							for r, c := range recvs {
								if c != 1 || sends != p {
									t.Fatalf("%v/%v/p%d round %d: a permutation, yet rank %d receives %d (%d sends)", op, alg, p, k, r, c, sends)
								}
							}
						}
					}
				}
			}
		}
	}
	for _, prim := range []primitive{rdAllreduce, rdAllgather, rdScan, linScan, ringPass, ringShift, pairXchg, dissemination, bruckAllgather, bruckAlltoall} {
		if !answered[prim] {
			t.Errorf("primitive %d: RoundPeers never answered", prim)
		}
	}
}
