package replay

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/tracesim/tracesim/engine/collective"
	"github.com/tracesim/tracesim/tracefmt"
)

// bulkAsPerMessage replays tr in bulk and message by message, fails the
// test unless both give the same results byte for byte and complete,
// and returns both simulations.
func bulkAsPerMessage(t *testing.T, name string, tr *tracefmt.Trace, cfg Config) (bulk, perMessage *Sim) {
	t.Helper()
	sb, rb := simulate(t, tr, cfg, Options{})
	sm, rm := simulate(t, tr, cfg, Options{PerMessageCollectives: true})
	if jb, jm := resultsJSON(t, rb), resultsJSON(t, rm); !bytes.Equal(jb, jm) {
		t.Fatalf("%s: bulk and per-message results differ:\nbulk:        %s\nper message: %s", name, firstDiff(jb, jm), firstDiff(jm, jb))
	}
	if !rb.Complete {
		t.Fatalf("%s: the run did not complete", name)
	}
	return sb, sm
}

// collBytes is what each of p ranks sends and receives in op of block n.
func collBytes(op tracefmt.CollOp, p int, n int64) (sent, recvd int64) {
	switch op {
	case tracefmt.OpAllgather, tracefmt.OpAllgatherv:
		return n, n * int64(p)
	case tracefmt.OpAlltoall, tracefmt.OpAlltoallv, tracefmt.OpReduceScatter:
		return n * int64(p), n * int64(p)
	case tracefmt.OpBarrier:
		return 0, 0
	}
	return n, n
}

// bulkProg builds a trace of p ranks that enter op (block n) twice at
// skewed times, with point-to-point traffic around the calls: an eager
// and a rendezvous send still in flight when the first call starts, and
// a receive posted before the second and waited for after it.
func bulkProg(t *testing.T, p int, op tracefmt.CollOp, n int64) *tracefmt.Trace {
	pr := newProg(t, p)
	sent, recvd := collBytes(op, p, n)
	reqs := make([]int64, p)
	for r := range p {
		pr.compute(r, float64((r*37)%11)*1e-6)
		reqs[r] = pr.isend(r, (r+1)%p, 5, 100+int64(r%3)*100000)
	}
	pr.coll(op, 0, sent, recvd)
	for r := range p {
		pr.recv(r, (r-1+p)%p, 5, 0)
		pr.wait(r, reqs[r])
		pr.compute(r, float64((r*13)%7)*1e-6)
		reqs[r] = pr.irecv(r, (r-1+p)%p, 6, 0)
	}
	pr.coll(op, 0, sent, recvd)
	for r := range p {
		pr.send(r, (r+1)%p, 6, 50+int64(r%2)*200000)
		pr.wait(r, reqs[r])
	}
	return pr.trace()
}

// resultsJSON returns sim --json's document of res without what depends
// on the machine running it (wall time and rates) or on how many kernel
// events the run took.
func resultsJSON(t *testing.T, res Results) []byte {
	t.Helper()
	res.Wall, res.EventsPerSec, res.TraceEventsPerSec, res.Events = 0, 0, 0, 0
	b, err := json.MarshalIndent(res, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// bulkOps returns the operations the bulk path takes.
func bulkOps() []tracefmt.CollOp {
	return []tracefmt.CollOp{tracefmt.OpBarrier, tracefmt.OpAllreduce, tracefmt.OpAllgather, tracefmt.OpAllgatherv,
		tracefmt.OpAlltoall, tracefmt.OpAlltoallv, tracefmt.OpReduceScatter, tracefmt.OpOther}
}

// bulkConfig is a contention-free model and send protocol, as settings.
type bulkConfig struct {
	name string
	kv   []string
}

// bulkConfigs returns the contention-free models and send protocols the
// bulk tests replay under.
func bulkConfigs() []bulkConfig {
	return []bulkConfig{
		{"puppet", nil},
		{"puppet-ethernet", puppetEthernet},
		{"puppet-synchronous", []string{"send", "synchronous"}},
		{"puppet-nospace", []string{"send", "nospace", "switching", "wormhole", "flit", "8"}},
		{"puppet-rts-cts", []string{"handshake", "rts-cts", "eager-threshold", "1KiB"}},
		{"puppet-eager-at-match", []string{"eager-start", "match", "switching", "circuit"}},
		{"puppet-2-per-node-3-hops", []string{"ranks-per-node", "2", "hops", "3"}},
		{"simgrid", []string{"model", "simgrid"}},
		{"puppet-causal", []string{"mode", "causal"}},
	}
}

// TestBulkCollectivesAsPerMessage replays collectives computed in bulk
// and message by message (Options.PerMessageCollectives) and compares
// the whole of sim --json's results to the byte, over ranks 2 to 300,
// block sizes crossing the algorithms' and the eager threshold's switch
// points, every algorithm the bulk path takes, and the contention-free
// models and send protocols; it checks the bulk path ran (fewer kernel
// events).
func TestBulkCollectivesAsPerMessage(t *testing.T) {
	ops := bulkOps()
	configs := bulkConfigs()
	type tc struct {
		cfg int
		op  tracefmt.CollOp
		alg collective.Algorithm
		p   int
		n   int64
	}
	var cases []tc
	for ci := range configs {
		for _, op := range ops {
			for _, p := range []int{2, 3, 5, 8, 13, 32, 33} {
				for _, n := range []int64{8, 300, 3000, 70000} {
					cases = append(cases, tc{cfg: ci, op: op, p: p, n: n})
				}
			}
		}
	}
	for _, op := range ops {
		for _, alg := range collective.Algorithms(op) {
			for _, p := range []int{6, 16, 23} {
				for _, n := range []int64{100, 5000} {
					cases = append(cases, tc{op: op, alg: alg, p: p, n: n})
				}
			}
		}
		for _, p := range []int{64, 100, 129, 300} {
			for _, n := range []int64{64, 4096} {
				if p == 300 && op != tracefmt.OpAlltoall && op != tracefmt.OpAllreduce {
					continue
				}
				cases = append(cases, tc{op: op, p: p, n: n})
			}
		}
	}
	holds, standIns := 0, 0
	for _, c := range cases {
		name := fmt.Sprintf("%s/%v/%v/p%d/n%d", configs[c.cfg].name, c.op, c.alg, c.p, c.n)
		cfg := cfgWith(t, configs[c.cfg].kv...)
		if c.alg != collective.Auto {
			if err := cfg.Set("coll-alg", "all="+c.alg.String()); err != nil {
				t.Fatal(err)
			}
		}
		tr := bulkProg(t, c.p, c.op, c.n)
		sb, sm := bulkAsPerMessage(t, name, tr, cfg)
		holds += sb.bulk.holds
		standIns += sb.bulk.standIns
		plan := collective.NewPlan(collective.Call{Op: c.op, Alg: c.alg, P: c.p, Sent: c.n * int64(c.p)})
		if plan.Aligned() && (sb.bulk.calls != 2 || sm.bulk.calls != 0) {
			t.Errorf("%s: %d calls computed in bulk (per message: %d), want 2 (0)", name, sb.bulk.calls, sm.bulk.calls)
		}
	}
	// The point-to-point traffic around the calls must have exercised
	// both orderings the bulk path keeps.
	if holds == 0 || standIns == 0 {
		t.Errorf("%d pairs held behind earlier messages, %d stand-ins: want some of each", holds, standIns)
	}
}

// firstDiff returns a's first line that differs from b's, with the line
// before it.
func firstDiff(a, b []byte) string {
	la, lb := bytes.Split(a, []byte("\n")), bytes.Split(b, []byte("\n"))
	for i := range la {
		if i >= len(lb) || !bytes.Equal(la[i], lb[i]) {
			return fmt.Sprintf("line %d: %s%s", i+1, la[max(i-1, 0)], la[i])
		}
	}
	return "(a prefix of the other)"
}

// TestBulkCollectiveDeadlock checks the report of a run whose collective
// computed in bulk never completes: the ranks inside wait for the one
// that never enters.
func TestBulkCollectiveDeadlock(t *testing.T) {
	pr := newProg(t, 4)
	for r := range 4 {
		if r != 2 {
			pr.add(r, tracefmt.Collective(0, tracefmt.OpAlltoall, 0, 0, 64*4, 64*4))
		}
	}
	pr.recv(2, 0, 1, 8)
	s, res := simulate(t, pr.trace(), cfgWith(t), Options{})
	if s.bulk.calls != 0 || len(s.bulk.insts) != 1 {
		t.Fatalf("%d calls computed, %d waiting: want the call filed in bulk and waiting", s.bulk.calls, len(s.bulk.insts))
	}
	if res.Deadlock == nil || res.Complete {
		t.Fatalf("no deadlock reported: %+v", res)
	}
	want := map[int]string{0: "ranks 2 to enter MPI_Alltoall", 1: "ranks 2 to enter MPI_Alltoall", 3: "ranks 2 to enter MPI_Alltoall",
		2: "a message from rank 0 (tag 1)"}
	for _, b := range res.Deadlock.Blocked {
		if w, ok := want[b.Rank]; !ok || len(b.Waiting) != 1 || b.Waiting[0] != w {
			t.Errorf("rank %d waits for %q, want %q", b.Rank, b.Waiting, w)
		}
	}
	if len(res.Deadlock.Blocked) != 4 {
		t.Errorf("%d ranks listed blocked, want 4", len(res.Deadlock.Blocked))
	}
}

// TestBulkSubCommunicator computes in bulk collectives over the odd ranks
// (in reverse order) while the even ranks keep exchanging messages with
// each other and with them, and compares sim --json's results with the
// per-message replay's.
func TestBulkSubCommunicator(t *testing.T) {
	const p = 12
	for _, kv := range [][]string{nil, {"model", "simgrid"}, {"handshake", "rts-cts", "eager-threshold", "2KiB"}} {
		for _, op := range []tracefmt.CollOp{tracefmt.OpAlltoall, tracefmt.OpAllreduce, tracefmt.OpBarrier} {
			for _, n := range []int64{16, 5000} {
				pr := newProg(t, p)
				var odd []int32
				for r := p - 1; r >= 0; r -= 2 {
					odd = append(odd, int32(r))
				}
				comm, err := pr.b.AddComm(tracefmt.Comm{Name: "odd", Ranks: odd})
				if err != nil {
					t.Fatal(err)
				}
				sent := n
				if op == tracefmt.OpAlltoall {
					sent = n * int64(len(odd))
				}
				for it := range 2 {
					for r := range p {
						pr.compute(r, float64((r*7+it*3)%5)*1e-6)
						if r%2 == 0 {
							pr.send(r, r+1, 7, 100+int64(r%4)*50000)
							pr.send(r, (r+2)%p, 8, 64)
							pr.recv(r, (r-2+p)%p, 8, 0)
							continue
						}
						req := pr.irecv(r, r-1, 7, 0)
						pr.add(r, tracefmt.Collective(0, op, 0, comm, sent, sent))
						pr.wait(r, req)
					}
				}
				tr := pr.trace()
				cfg := cfgWith(t, kv...)
				sb, rb := simulate(t, tr, cfg, Options{})
				_, rm := simulate(t, tr, cfg, Options{PerMessageCollectives: true})
				name := fmt.Sprintf("%v/%v/n%d", kv, op, n)
				if jb, jm := resultsJSON(t, rb), resultsJSON(t, rm); !bytes.Equal(jb, jm) {
					t.Fatalf("%s: bulk and per-message results differ:\nbulk:        %s\nper message: %s", name, firstDiff(jb, jm), firstDiff(jm, jb))
				}
				if sb.bulk.calls != 2 || !rb.Complete {
					t.Errorf("%s: %d calls computed in bulk, complete %v: want 2, true", name, sb.bulk.calls, rb.Complete)
				}
			}
		}
	}
}

// TestBulkCollectiveCancelled cancels a run in the middle of a collective
// computed in bulk: Run returns the context's error within a round of it,
// and the run resumed gives the results of a run never interrupted.
func TestBulkCollectiveCancelled(t *testing.T) {
	tr := bulkProg(t, 70, tracefmt.OpAlltoall, 4096) // scattered linear: 3 rounds
	cfg := cfgWith(t)
	_, want := simulate(t, tr, cfg, Options{})
	s, err := New(tr, cfg, Options{CheckEvery: 1000})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := s.Run(ctx); err != context.Canceled {
		t.Fatalf("Run with a cancelled context returned %v, want %v", err, context.Canceled)
	}
	if s.Done() || len(s.bulk.resume) != 1 || s.bulk.resume[0].run.k != 1 {
		t.Fatalf("cancelled run: done %v, %d calls to resume: want one stopped after its first round", s.Done(), len(s.bulk.resume))
	}
	got := runToEnd(t, s, nil)
	if jg, jw := resultsJSON(t, got), resultsJSON(t, want); !bytes.Equal(jg, jw) {
		t.Fatalf("resumed results differ:\nresumed: %s\nwhole:   %s", firstDiff(jg, jw), firstDiff(jw, jg))
	}
}

// TestBulkLargeWorld compares bulk and per-message results in a world
// above densePairLimit, whose pair counters live in per-rank tables: the
// messages sent before a call and still in flight must hold it back
// there too.
func TestBulkLargeWorld(t *testing.T) {
	p := densePairLimit + 88
	for _, op := range []tracefmt.CollOp{tracefmt.OpBarrier, tracefmt.OpAllreduce} {
		tr := bulkProg(t, p, op, 8)
		cfg := cfgWith(t)
		sb, rb := simulate(t, tr, cfg, Options{})
		_, rm := simulate(t, tr, cfg, Options{PerMessageCollectives: true})
		if jb, jm := resultsJSON(t, rb), resultsJSON(t, rm); !bytes.Equal(jb, jm) {
			t.Fatalf("%v: bulk and per-message results differ:\nbulk:        %s\nper message: %s", op, firstDiff(jb, jm), firstDiff(jm, jb))
		}
		if sb.bulk.calls != 2 || sb.bulk.holds == 0 {
			t.Errorf("%v: %d calls in bulk, %d pairs held: want 2 and some", op, sb.bulk.calls, sb.bulk.holds)
		}
	}
}

// TestBulkDisagreeingRanks gives the ranks of an all-to-all block sizes
// that choose different algorithms (Bruck for rank 0, the linear one for
// the others), which MPI forbids: the call runs per message from its last
// entry, and the notes say so.
func TestBulkDisagreeingRanks(t *testing.T) {
	pr := newProg(t, 8)
	for r := range 8 {
		n := int64(1000)
		if r == 0 {
			n = 8
		}
		pr.add(r, tracefmt.Collective(0, tracefmt.OpAlltoall, 0, 0, n*8, n*8))
	}
	s, err := New(pr.trace(), cfgWith(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	res := s.Results()
	want := "1 collective calls whose ranks disagreed on the schedule (or entered with blocking sends pending) started their messages when their last rank entered"
	if s.bulk.calls != 0 || s.bulk.fallbacks != 1 || len(res.Notes) != 1 || res.Notes[0] != want {
		t.Errorf("%d calls in bulk, %d fallbacks, notes %q: want 0, 1 and %q", s.bulk.calls, s.bulk.fallbacks, res.Notes, want)
	}
}

// TestBulkRanksOfDifferentSizes replays calls whose ranks share a
// schedule but not their sizes (a v-collective, or an allreduce whose
// ranks recorded different buffers): the bulk path keeps every rank's own
// plan then, rather than the one plan that stands for all ranks of a
// uniform call, and its results are the per-message replay's to the
// byte. One rank differing is enough: the first, the last or one in the
// middle to enter.
func TestBulkRanksOfDifferentSizes(t *testing.T) {
	for _, tc := range []struct {
		op  tracefmt.CollOp
		alg string
	}{
		{tracefmt.OpAllreduce, "recursive-doubling"},
		{tracefmt.OpAllreduce, "ring"},
		{tracefmt.OpAllgatherv, "ring"},
		{tracefmt.OpAllgatherv, "recursive-doubling"},
		{tracefmt.OpAlltoallv, "pairwise"},
		{tracefmt.OpAlltoallv, "dissemination"},
	} {
		for _, p := range []int{5, 8, 13} {
			for _, odd := range []int{0, p / 2, p - 1} {
				name := fmt.Sprintf("%v/%s/p%d/rank%d", tc.op, tc.alg, p, odd)
				pr := newProg(t, p)
				for r := range p {
					n := int64(4096)
					if r == odd {
						n = 100000 // past the eager threshold too
					}
					// Rank odd enters last but one: ranks before and after it
					// filed the common plan.
					pr.compute(r, float64((r+p-odd-2+p)%p)*1e-6)
					pr.add(r, tracefmt.Collective(0, tc.op, 0, 0, n, n*int64(p)))
				}
				tr := pr.trace()
				cfg := cfgWith(t, "coll-alg", "all="+tc.alg)
				sb, rb := simulate(t, tr, cfg, Options{})
				_, rm := simulate(t, tr, cfg, Options{PerMessageCollectives: true})
				if jb, jm := resultsJSON(t, rb), resultsJSON(t, rm); !bytes.Equal(jb, jm) {
					t.Fatalf("%s: bulk and per-message results differ:\nbulk:        %s\nper message: %s", name, firstDiff(jb, jm), firstDiff(jm, jb))
				}
				if sb.bulk.calls != 1 || sb.bulk.fallbacks != 0 {
					t.Errorf("%s: %d calls in bulk, %d fallbacks; want 1 and 0", name, sb.bulk.calls, sb.bulk.fallbacks)
				}
			}
		}
	}
}

// TestBulkDenseRoundsAsPerMessage replays calls whose ranks enter at
// skewed times with nothing in flight and no receive pending, so that
// every round of a schedule that sends one message a rank a round runs
// in bulkDenseRound, and compares sim --json's whole results with the
// per-message replay's, over the models and protocols, the operations
// and algorithms, ranks 3 to 64 (powers of two and not) and sizes
// across the eager threshold.
func TestBulkDenseRoundsAsPerMessage(t *testing.T) {
	configs := bulkConfigs()
	dense := 0
	for ci, bc := range configs {
		for _, op := range bulkOps() {
			for _, alg := range collective.Algorithms(op) {
				for _, p := range []int{3, 8, 16, 64} {
					if (p > 16 || ci > 0) && alg != collective.Auto {
						continue
					}
					for _, n := range []int64{8, 70000} {
						name := fmt.Sprintf("%s/%v/%v/p%d/n%d", bc.name, op, alg, p, n)
						cfg := cfgWith(t, bc.kv...)
						if alg != collective.Auto {
							if err := cfg.Set("coll-alg", "all="+alg.String()); err != nil {
								t.Fatal(err)
							}
						}
						tr := quietCollProg(t, p, op, n)
						sb, _ := bulkAsPerMessage(t, name, tr, cfg)
						dense += sb.bulk.denseRounds
					}
				}
			}
		}
	}
	if dense == 0 {
		t.Errorf("no round ran in bulkDenseRound")
	}
}

// quietCollProg builds a trace of p ranks that compute for skewed times
// and enter op (block n) three times, with nothing else in flight.
func quietCollProg(t *testing.T, p int, op tracefmt.CollOp, n int64) *tracefmt.Trace {
	pr := newProg(t, p)
	sent, recvd := collBytes(op, p, n)
	for i := range 3 {
		for r := range p {
			pr.compute(r, float64((r*37+i*5)%11)*1e-6)
		}
		pr.coll(op, 0, sent, recvd)
	}
	return pr.trace()
}

// TestDenseFromCountsUnseenPairs steps runs of worlds small enough for
// the dense pair matrix and checks, after every kernel event, that each
// rank's count of pairs with unseen messages (what hasUnseen reads) is
// what its row of the matrix says, and that the calls computed in bulk
// were held behind those messages as the per-message replay is.
func TestDenseFromCountsUnseenPairs(t *testing.T) {
	for _, p := range []int{2, 8, 64} {
		for _, op := range []tracefmt.CollOp{tracefmt.OpBarrier, tracefmt.OpAllreduce} {
			tr := bulkProg(t, p, op, 8)
			cfg := cfgWith(t)
			s, err := New(tr, cfg, Options{})
			if err != nil {
				t.Fatal(err)
			}
			steps, busy := 0, 0
			for s.step() {
				steps++
				some := false
				for r := range p {
					n := int32(0)
					for _, v := range s.densePairs[r*p : (r+1)*p] {
						if uint32(v>>32) != uint32(v) {
							n++
						}
					}
					if s.denseFrom[r] != n {
						t.Fatalf("p %d %v, step %d: rank %d counts %d pairs with unseen messages, its row %d", p, op, steps, r, s.denseFrom[r], n)
					}
					some = some || n > 0
				}
				if some {
					busy++
				}
			}
			if busy == 0 || s.bulk.holds == 0 {
				t.Errorf("p %d %v: %d steps with unseen messages, %d pairs held: want some of each", p, op, busy, s.bulk.holds)
			}
			_, rm := simulate(t, tr, cfg, Options{PerMessageCollectives: true})
			if jb, jm := resultsJSON(t, s.Results()), resultsJSON(t, rm); !bytes.Equal(jb, jm) {
				t.Fatalf("p %d %v: bulk and per-message results differ:\nbulk:        %s\nper message: %s", p, op, firstDiff(jb, jm), firstDiff(jm, jb))
			}
		}
	}
}
