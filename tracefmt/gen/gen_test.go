package gen

import (
	"context"
	"errors"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tracesim/tracesim/tracefmt"
)

func mustGenerate(t *testing.T, o Options) *tracefmt.Trace {
	t.Helper()
	tr, err := Generate(o)
	if err != nil {
		t.Fatalf("Generate(%+v): %v", o, err)
	}
	return tr
}

// countCase pins what a pattern produces for fixed ranks and iterations.
// Every number is derived by hand in the comment above it; a Compute
// burst is 3 events (enter Compute, compute, leave), an MPI call with one
// event inside is 3 (enter, event, leave).
type countCase struct {
	name string
	o    Options
	want Counts
}

func countCases() []countCase {
	return []countCase{
		// ring 8×10, default compute: per rank and iteration a burst (3) and
		// an MPI_Sendrecv (enter, send, recv, leave: 4) = 7; 8·10·7 = 560.
		// One message per rank and iteration: 80.
		{"ring 8x10", Options{Pattern: "ring", Ranks: 8, Iters: 10, Compute: -1},
			Counts{Events: 560, Messages: 80}},
		// ring 2×3 without computation: the next and previous rank are the
		// same; 2·3·4 = 24 events, 2·3 = 6 messages.
		{"ring 2x3 no compute", Options{Pattern: "ring", Ranks: 2, Iters: 3},
			Counts{Events: 24, Messages: 6}},
		// Computation that rounds to 0 ns is no computation: 2·3·4 = 24.
		{"ring 2x3 sub-ns compute", Options{Pattern: "ring", Ranks: 2, Iters: 3, Compute: 1e-10},
			Counts{Events: 24, Messages: 6}},
		// 1 ns bursts with 90% jitter still last at least 1 ns: 2·3·7 = 42.
		{"ring 2x3 1ns jittered", Options{Pattern: "ring", Ranks: 2, Iters: 3, Compute: 1e-9, Jitter: 0.9},
			Counts{Events: 42, Messages: 6}},
		// pingpong, 10 round trips, default compute 0: per rank and
		// iteration an MPI_Send (3) and an MPI_Recv (3); 2·10·6 = 120
		// events; 2 messages per round trip: 20.
		{"pingpong 10", Options{Pattern: "pingpong", Iters: 10, Compute: -1},
			Counts{Events: 120, Messages: 20}},
		// pingpong, 5 round trips with 1 µs compute: 2·5·(3+6) = 90
		// events, 10 messages.
		{"pingpong 5 compute", Options{Pattern: "pingpong", Ranks: 2, Iters: 5, Compute: 1e-6},
			Counts{Events: 90, Messages: 10}},
		// stencil2d 16×10: a 4×4 grid, not periodic. Neighbours: 4 corners
		// with 2, 8 edge ranks with 3, 4 inner ranks with 4: 8+24+16 = 48
		// messages per iteration, 480 in all. A rank with n neighbours
		// logs per iteration: burst 3, n MPI_Irecv (enter, leave) 2n,
		// n MPI_Isend 3n, MPI_Waitall (enter, n recvs, waitall, leave)
		// n+3, MPI_Allreduce 3: 9 + 6n. Per iteration 16·9 + 6·48 = 432;
		// 4320 events. One allreduce event per rank and iteration: 160.
		{"stencil2d 16x10", Options{Pattern: "stencil2d", Ranks: 16, Iters: 10, Compute: -1},
			Counts{Events: 4320, Messages: 480, Collectives: 160}},
		// stencil2d 6×5 without computation: a 3×2 grid (3 rows, 2
		// columns). The 4 corner ranks have 2 neighbours, the 2 middle ones
		// 3: 14 messages per iteration, 70 in all. Events per iteration:
		// 6·6 + 6·14 = 120; 600 in all. Collectives 6·5 = 30.
		{"stencil2d 6x5 no compute", Options{Pattern: "stencil2d", Ranks: 6, Iters: 5},
			Counts{Events: 600, Messages: 70, Collectives: 30}},
		// alltoall 8×10: per rank and iteration a burst (3) and an
		// MPI_Alltoall (3): 8·10·6 = 480 events, 80 collective events, no
		// point-to-point messages.
		{"alltoall 8x10", Options{Pattern: "alltoall", Ranks: 8, Iters: 10, Compute: -1},
			Counts{Events: 480, Collectives: 80}},
		// master-worker 4×5: 3 workers, 5 tasks each: 15 tasks. Master: 15
		// task sends + 3 stop sends + 15 result receives = 33 calls, 99
		// events. Workers: per task a receive, a burst and a send (9 events):
		// 135, plus one stop receive each: 9; 144. Total 243. Messages:
		// 15 tasks + 15 results + 3 stops = 33. The 15 result receives use
		// MPI_ANY_SOURCE.
		{"master-worker 4x5", Options{Pattern: "master-worker", Ranks: 4, Iters: 5, Compute: -1, Seed: 3},
			Counts{Events: 243, Messages: 33, WildcardRecvs: 15}},
		// master-worker 2×3 without computation: 1 worker, 3 tasks. Master:
		// 3 task sends + 1 stop + 3 receives = 7 calls, 21 events. Worker:
		// 3·(recv + send) + stop recv = 7 calls, 21 events. 42 events;
		// 3+3+1 = 7 messages; 3 wildcard receives.
		{"master-worker 2x3 no compute", Options{Pattern: "master-worker", Ranks: 2, Iters: 3},
			Counts{Events: 42, Messages: 7, WildcardRecvs: 3}},
		// bcast-tree 8×10: a binomial tree on 8 ranks has 7 edges, each an
		// MPI_Send (3) and an MPI_Recv (3). Per iteration 8 bursts (24) +
		// 7·6 = 66; 660 events; 70 messages.
		{"bcast-tree 8x10", Options{Pattern: "bcast-tree", Ranks: 8, Iters: 10, Compute: -1},
			Counts{Events: 660, Messages: 70}},
		// bcast-tree 5×2 without computation (not a power of two): 4
		// edges, 4·6 = 24 events per iteration; 48 events, 8 messages.
		{"bcast-tree 5x2 no compute", Options{Pattern: "bcast-tree", Ranks: 5, Iters: 2},
			Counts{Events: 48, Messages: 8}},
		// cg 16×10: a 4×4 grid; log2(4) = 2 row steps + 1 transpose
		// exchange, each MPI_Irecv (2) + MPI_Send (3) + MPI_Wait (enter,
		// recv, wait, leave: 4) = 9 events; with a burst (3) and two
		// MPI_Allreduce (6): 3 + 27 + 6 = 36 per rank and iteration;
		// 16·10·36 = 5760. Messages: 3 per rank and iteration = 480 (the
		// 4 diagonal ranks send their transpose message to themselves).
		// Collectives: 2·16·10 = 320.
		{"cg 16x10", Options{Pattern: "cg", Ranks: 16, Iters: 10, Compute: -1},
			Counts{Events: 5760, Messages: 480, Collectives: 320}},
		// cg 8×4: a 2×4 grid (twice as many columns as rows): still 2 row
		// steps + transpose, 36 events per rank and iteration: 8·4·36 =
		// 1152; 8·4·3 = 96 messages; 2·8·4 = 64 collectives.
		{"cg 8x4", Options{Pattern: "cg", Ranks: 8, Iters: 4, Compute: -1},
			Counts{Events: 1152, Messages: 96, Collectives: 64}},
		// random-pairs 8×10: 4 pairs, each partner one MPI_Sendrecv (4)
		// per iteration: 8·3 + 8·4 = 56 per iteration; 560 events; 8
		// messages per iteration: 80.
		{"random-pairs 8x10", Options{Pattern: "random-pairs", Ranks: 8, Iters: 10, Compute: -1},
			Counts{Events: 560, Messages: 80}},
		// random-pairs 7×10: 3 pairs and one idle rank per iteration:
		// 7·3 + 6·4 = 45 per iteration; 450 events; 6 messages per
		// iteration: 60.
		{"random-pairs 7x10", Options{Pattern: "random-pairs", Ranks: 7, Iters: 10, Compute: -1, Seed: 9},
			Counts{Events: 450, Messages: 60}},
	}
}

func TestCounts(t *testing.T) {
	for _, tc := range countCases() {
		t.Run(tc.name, func(t *testing.T) {
			tr := mustGenerate(t, tc.o)
			s := tracefmt.Summarize(tr)
			got := Counts{
				Events:        s.Events,
				Messages:      s.Messages.Matched,
				Collectives:   s.Collectives,
				WildcardRecvs: s.Messages.WildcardRecvs,
			}
			if got != tc.want {
				t.Errorf("trace holds %+v, want %+v", got, tc.want)
			}
			if s.Messages.UnmatchedSends != 0 || s.Messages.UnmatchedRecvs != 0 {
				t.Errorf("unmatched sends %d, receives %d; want none", s.Messages.UnmatchedSends, s.Messages.UnmatchedRecvs)
			}
			exp, err := Expect(tc.o)
			if err != nil {
				t.Fatal(err)
			}
			if exp != tc.want {
				t.Errorf("Expect = %+v, want %+v", exp, tc.want)
			}
			wantRanks := tc.o.Ranks
			if wantRanks == 0 {
				wantRanks = 2 // only pingpong's cases leave it to the default
			}
			if tr.Size() != wantRanks || !tr.Timed || tr.Unit != tracefmt.Microsecond {
				t.Errorf("ranks %d timed %v unit %v; want %d, true, us", tr.Size(), tr.Timed, tr.Unit, wantRanks)
			}
		})
	}
}

// TestGenStencilCommand is `tracesim gen stencil2d --ranks 16 --iters 10`:
// the CLI passes Compute −1 and Seed 1 when the flags are absent.
func TestGenStencilCommand(t *testing.T) {
	o := Options{Pattern: "stencil2d", Ranks: 16, Iters: 10, Compute: -1, Seed: 1}
	n, err := o.Normalize()
	if err != nil {
		t.Fatal(err)
	}
	wantN := Options{Pattern: "stencil2d", Ranks: 16, Iters: 10, Size: 32 << 10, Compute: 500e-6, Seed: 1,
		Latency: 2e-6, Bandwidth: 1e9, Overhead: 0.5e-6}
	if n != wantN {
		t.Errorf("normalised options %+v, want %+v", n, wantN)
	}
	tr := mustGenerate(t, o)
	s := tracefmt.Summarize(tr)
	// 48 messages per iteration on the 4×4 grid (see TestCounts).
	if s.Ranks != 16 || s.Messages.Matched != 480 || s.Messages.UnmatchedSends != 0 || s.Messages.UnmatchedRecvs != 0 {
		t.Errorf("summary ranks %d messages %+v; want 16 ranks, 480 matched, none unmatched", s.Ranks, s.Messages)
	}
	// Every iteration computes 500 µs, and 32 KiB halos take at least
	// 2 + 32.768 µs to arrive: the run lasts more than 10·534.768 µs.
	if s.Duration < 10*534.768e-6 || s.Duration > 10*700e-6 {
		t.Errorf("duration %v s, want between 5.35 ms and 7 ms", s.Duration)
	}
	if s.Bytes != 480*(32<<10) {
		t.Errorf("bytes %d, want %d", s.Bytes, 480*(32<<10))
	}
	if g, ok := tr.Attr("generator"); !ok || !strings.HasPrefix(g, "tracesim gen stencil2d --ranks 16 --iters 10 --size 32768 --compute 0.0005 --seed 1") {
		t.Errorf("generator attribute %q", g)
	}
	want := []string{"Compute", "MPI_Irecv", "MPI_Isend", "MPI_Waitall", "MPI_Allreduce"}
	var got []string
	for _, d := range tr.States {
		got = append(got, d.Name)
		if d.Color == "" || d.Category != tracefmt.CategoryOf(d.Name) {
			t.Errorf("state %s: colour %q, category %v (want %v)", d.Name, d.Color, d.Category, tracefmt.CategoryOf(d.Name))
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("states %v, want %v", got, want)
	}
}

// allPatterns returns options exercising each pattern with enough ranks to
// have edge cases (grid edges, idle ranks, non-square grids) and jitter.
func allPatterns() []Options {
	return []Options{
		{Pattern: "ring", Ranks: 5, Iters: 20, Compute: -1, Jitter: 0.3},
		{Pattern: "pingpong", Iters: 50, Compute: 2e-6, Size: 3000},
		{Pattern: "stencil2d", Ranks: 12, Iters: 10, Compute: -1, Jitter: 0.2},
		{Pattern: "alltoall", Ranks: 6, Iters: 10, Compute: -1, Jitter: 0.2},
		{Pattern: "master-worker", Ranks: 6, Iters: 10, Compute: -1},
		{Pattern: "bcast-tree", Ranks: 11, Iters: 10, Compute: -1, Jitter: 0.5},
		{Pattern: "cg", Ranks: 32, Iters: 5, Compute: -1, Jitter: 0.2},
		{Pattern: "random-pairs", Ranks: 9, Iters: 20, Compute: -1, Jitter: 0.2},
	}
}

func TestPatternsCoverTable(t *testing.T) {
	var names []string
	for _, o := range allPatterns() {
		names = append(names, o.Pattern)
	}
	if !slices.Equal(names, PatternNames()) {
		t.Fatalf("tests cover %v, the generator knows %v", names, PatternNames())
	}
	for _, p := range Patterns() {
		if p.Description == "" || p.Ranks == "" || p.DefaultRanks < 2 || p.DefaultIters < 1 || p.DefaultSize < 1 || p.DefaultCompute < 0 {
			t.Errorf("pattern %+v: incomplete description or defaults", p)
		}
		// The defaults are accepted, and the trace they make holds what
		// Expect says.
		o := Options{Pattern: p.Name, Compute: -1}
		tr := mustGenerate(t, o)
		exp, err := Expect(o)
		if err != nil {
			t.Fatal(err)
		}
		s := tracefmt.Summarize(tr)
		if s.Ranks != p.DefaultRanks || s.Events != exp.Events || s.Messages.Matched != exp.Messages || s.Collectives != exp.Collectives {
			t.Errorf("%s defaults: %d ranks, %d events, %d messages, %d collectives; want %d ranks, %+v",
				p.Name, s.Ranks, s.Events, s.Messages.Matched, s.Collectives, p.DefaultRanks, exp)
		}
	}
}

// stateSpan is an open state while scanning a rank.
type stateSpan struct {
	enter int
	cat   tracefmt.Category
}

// TestConsistency checks the properties every generated trace has: exact
// nanosecond times, monotone ranks, events inside the right states,
// receives logged as their call returns and at least a latency after
// their send, waits completing their requests, collectives ending after
// every rank entered.
func TestConsistency(t *testing.T) {
	for _, o := range allPatterns() {
		t.Run(o.Pattern, func(t *testing.T) {
			tr := mustGenerate(t, o)
			n, err := o.Normalize()
			if err != nil {
				t.Fatal(err)
			}
			if err := tr.Validate(); err != nil {
				t.Fatalf("Validate: %v", err)
			}
			lat := n.Latency * 1e6 // µs
			var collEnter, collExit [][]float64
			for r := range tr.Ranks {
				ev := tr.Ranks[r].Events
				if len(ev) == 0 {
					t.Fatalf("rank %d has no events", r)
				}
				var open []stateSpan
				pendingReqs := map[int64]bool{}
				var enters, exits []float64
				for i := range ev {
					e := &ev[i]
					if ns := math.Round(e.Time * 1e3); ns/1e3 != e.Time {
						t.Fatalf("rank %d event %d: time %v is not whole nanoseconds", r, i, e.Time)
					}
					if i > 0 && e.Time < ev[i-1].Time {
						t.Fatalf("rank %d event %d: time %v before previous %v", r, i, e.Time, ev[i-1].Time)
					}
					switch e.Kind {
					case tracefmt.KindEnter:
						if e.Match < 0 || ev[e.Match].Time < e.Time {
							t.Fatalf("rank %d event %d: enter unpaired or after its leave", r, i)
						}
						if len(open) > 0 {
							t.Fatalf("rank %d event %d: state %s nested in another", r, i, tr.StateName(e.State()))
						}
						open = append(open, stateSpan{i, tr.States[e.State()].Category})
						continue
					case tracefmt.KindLeave:
						if len(open) != 1 || int(e.Match) != open[0].enter {
							t.Fatalf("rank %d event %d: leave does not close the open state", r, i)
						}
						open = open[:0]
						continue
					}
					if len(open) != 1 {
						t.Fatalf("rank %d event %d (%s) outside any state", r, i, e.Kind)
					}
					st := &ev[open[0].enter]
					leave := &ev[st.Match]
					cat := open[0].cat
					switch e.Kind {
					case tracefmt.KindCompute:
						if cat != tracefmt.CatCompute || e.Amount() != math.Round((leave.Time-st.Time)*1e3)/1e3 || e.Amount() <= 0 {
							t.Fatalf("rank %d event %d: compute %v in state %s [%v, %v]", r, i, e.Amount(), tr.StateName(st.State()), st.Time, leave.Time)
						}
					case tracefmt.KindSend:
						if cat != tracefmt.CatP2P || e.Time != st.Time {
							t.Fatalf("rank %d event %d: send not at the start of a p2p state", r, i)
						}
						if e.Flags.Has(tracefmt.FlagNonBlocking) {
							pendingReqs[e.Request()] = true
						}
					case tracefmt.KindRecv:
						if e.Time != leave.Time || (cat != tracefmt.CatP2P && cat != tracefmt.CatWait) {
							t.Fatalf("rank %d event %d: receive at %v not logged as its %s call returns at %v", r, i, e.Time, tr.StateName(st.State()), leave.Time)
						}
						if e.Flags.Has(tracefmt.FlagNonBlocking) != (cat == tracefmt.CatWait) {
							t.Fatalf("rank %d event %d: non-blocking receive outside a wait, or blocking inside one", r, i)
						}
						if e.Flags.Has(tracefmt.FlagNonBlocking) {
							if e.Request() <= 0 || pendingReqs[e.Request()] {
								t.Fatalf("rank %d event %d: receive request %d reused or missing", r, i, e.Request())
							}
							pendingReqs[e.Request()] = true
						}
						if e.Match < 0 {
							t.Fatalf("rank %d event %d: unmatched receive", r, i)
						}
						s := &tr.Ranks[e.Peer].Events[e.Match]
						if e.Time < s.Time+lat-1e-9 {
							t.Fatalf("rank %d event %d: receive at %v µs, its send at %v µs: less than the latency", r, i, e.Time, s.Time)
						}
						if s.Size != e.Size || s.Tag != e.Tag || int(s.Peer) != r {
							t.Fatalf("rank %d event %d: receive does not fit its send", r, i)
						}
						if e.Flags.Has(tracefmt.FlagAnySource) != (o.Pattern == "master-worker" && r == 0) {
							t.Fatalf("rank %d event %d: wildcard flag %v", r, i, e.Flags.Has(tracefmt.FlagAnySource))
						}
					case tracefmt.KindWait:
						if cat != tracefmt.CatWait || e.Time != leave.Time {
							t.Fatalf("rank %d event %d: wait outside a wait state or before it returns", r, i)
						}
						if e.Flags.Has(tracefmt.FlagAll) {
							clear(pendingReqs)
						} else {
							if !pendingReqs[e.Request()] {
								t.Fatalf("rank %d event %d: wait for unknown request %d", r, i, e.Request())
							}
							delete(pendingReqs, e.Request())
						}
					case tracefmt.KindCollective:
						if cat != tracefmt.CatCollective || e.Time != st.Time {
							t.Fatalf("rank %d event %d: collective not at the start of a collective state", r, i)
						}
						enters = append(enters, st.Time)
						exits = append(exits, leave.Time)
					default:
						t.Fatalf("rank %d event %d: unexpected %s", r, i, e.Kind)
					}
				}
				if len(open) != 0 || len(pendingReqs) != 0 {
					t.Fatalf("rank %d ends with open states %v or requests %v", r, open, pendingReqs)
				}
				collEnter, collExit = append(collEnter, enters), append(collExit, exits)
			}
			// The k-th collective of every rank is one call: it ends on
			// every rank at least a latency after the last rank entered.
			for k := range collEnter[0] {
				last := 0.0
				for r := range collEnter {
					if len(collEnter[r]) != len(collEnter[0]) {
						t.Fatalf("rank %d has %d collectives, rank 0 %d", r, len(collEnter[r]), len(collEnter[0]))
					}
					last = max(last, collEnter[r][k])
				}
				for r := range collExit {
					if collExit[r][k] < last+lat-1e-9 {
						t.Fatalf("collective %d: rank %d leaves at %v, last entry at %v", k, r, collExit[r][k], last)
					}
				}
			}
		})
	}
}

// TestTimingWorkedCases pins times computed by hand from the model:
// latency 2 µs, 1 GB/s (1 ns per byte), 0.5 µs per call.
func TestTimingWorkedCases(t *testing.T) {
	type ev struct {
		kind tracefmt.Kind
		time float64
	}
	E, L := tracefmt.KindEnter, tracefmt.KindLeave
	tests := []struct {
		name string
		o    Options
		want [][]ev
	}{
		{
			// Rank 0 sends 1000 B at 0 (call returns at 0.5 + 1 µs); the
			// message arrives at 0 + 2 + 1 = 3 µs. Rank 1 answers at 3,
			// its message arrives at 6.
			name: "pingpong",
			o:    Options{Pattern: "pingpong", Iters: 1, Size: 1000},
			want: [][]ev{
				{{E, 0}, {tracefmt.KindSend, 0}, {L, 1.5}, {E, 1.5}, {tracefmt.KindRecv, 6}, {L, 6}},
				{{E, 0}, {tracefmt.KindRecv, 3}, {L, 3}, {E, 3}, {tracefmt.KindSend, 3}, {L, 4.5}},
			},
		},
		{
			// Each rank computes 10 µs, then MPI_Alltoall of 100 B per pair
			// on 4 ranks: 0.5 + ⌈log2 4⌉·(2 + 200 B·1 ns) = 4.9 µs.
			name: "alltoall",
			o:    Options{Pattern: "alltoall", Ranks: 4, Iters: 1, Size: 100, Compute: 10e-6},
			want: [][]ev{
				{{E, 0}, {tracefmt.KindCompute, 0}, {L, 10}, {E, 10}, {tracefmt.KindCollective, 10}, {L, 14.9}},
				{{E, 0}, {tracefmt.KindCompute, 0}, {L, 10}, {E, 10}, {tracefmt.KindCollective, 10}, {L, 14.9}},
				{{E, 0}, {tracefmt.KindCompute, 0}, {L, 10}, {E, 10}, {tracefmt.KindCollective, 10}, {L, 14.9}},
				{{E, 0}, {tracefmt.KindCompute, 0}, {L, 10}, {E, 10}, {tracefmt.KindCollective, 10}, {L, 14.9}},
			},
		},
		{
			// Ring of 3 with 500 B, latency 1 µs, overhead 0.25 µs: every
			// rank's MPI_Sendrecv starts at 0; its send is injected at
			// 0.25 + 0.5 = 0.75; the incoming message arrives at 1 + 0.5 =
			// 1.5 µs.
			name: "ring",
			o:    Options{Pattern: "ring", Ranks: 3, Iters: 1, Size: 500, Latency: 1e-6, Overhead: 0.25e-6},
			want: [][]ev{
				{{E, 0}, {tracefmt.KindSend, 0}, {tracefmt.KindRecv, 1.5}, {L, 1.5}},
				{{E, 0}, {tracefmt.KindSend, 0}, {tracefmt.KindRecv, 1.5}, {L, 1.5}},
				{{E, 0}, {tracefmt.KindSend, 0}, {tracefmt.KindRecv, 1.5}, {L, 1.5}},
			},
		},
		{
			// Binomial broadcast on 3 ranks, 1000 B: rank 0 sends to 2
			// (farthest first) at 0, returns at 1.5, sends to 1 at 1.5.
			// Rank 2 receives at 0 + 3 = 3; rank 1 at 1.5 + 3 = 4.5.
			name: "bcast-tree",
			o:    Options{Pattern: "bcast-tree", Ranks: 3, Iters: 1, Size: 1000},
			want: [][]ev{
				{{E, 0}, {tracefmt.KindSend, 0}, {L, 1.5}, {E, 1.5}, {tracefmt.KindSend, 1.5}, {L, 3}},
				{{E, 0}, {tracefmt.KindRecv, 4.5}, {L, 4.5}},
				{{E, 0}, {tracefmt.KindRecv, 3}, {L, 3}},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tr := mustGenerate(t, tc.o)
			for r, want := range tc.want {
				var got []ev
				for _, e := range tr.Ranks[r].Events {
					got = append(got, ev{e.Kind, e.Time})
				}
				if !slices.Equal(got, want) {
					t.Errorf("rank %d:\n got %v\nwant %v", r, got, want)
				}
			}
		})
	}
}

// TestStencilWaitall pins one rank's halo exchange: rank 0 of a 2×2
// grid (neighbours south 2, east 1) with 1000 B halos and no computation.
func TestStencilWaitall(t *testing.T) {
	tr := mustGenerate(t, Options{Pattern: "stencil2d", Ranks: 4, Iters: 1, Size: 1000})
	ev := tr.Ranks[0].Events
	// Irecv ×2 (0–0.5, 0.5–1), Isend to 2 at 1 and to 1 at 1.5 (each call
	// 0.5 µs), Waitall from 2: every rank's sends start at the same
	// times, so the last halo (sent at 1.5) arrives at 1.5 + 2 + 1 = 4.5;
	// the Allreduce of 8 B ends at 4.5 + 0.5 + 2·(2 + 0.008) = 9.016.
	type ev2 struct {
		kind tracefmt.Kind
		time float64
		peer int32
	}
	var got []ev2
	for _, e := range ev {
		p := int32(-2)
		if e.IsP2P() {
			p = e.Peer
		}
		got = append(got, ev2{e.Kind, e.Time, p})
	}
	E, L, S, R := tracefmt.KindEnter, tracefmt.KindLeave, tracefmt.KindSend, tracefmt.KindRecv
	want := []ev2{
		{E, 0, -2}, {L, 0.5, -2}, {E, 0.5, -2}, {L, 1, -2},
		{E, 1, -2}, {S, 1, 2}, {L, 1.5, -2}, {E, 1.5, -2}, {S, 1.5, 1}, {L, 2, -2},
		{E, 2, -2}, {R, 4.5, 2}, {R, 4.5, 1}, {tracefmt.KindWait, 4.5, -2}, {L, 4.5, -2},
		{E, 4.5, -2}, {tracefmt.KindCollective, 4.5, -2}, {L, 9.016, -2},
	}
	if !slices.Equal(got, want) {
		t.Errorf("rank 0:\n got %v\nwant %v", got, want)
	}
}

func TestNeighboursAndPartners(t *testing.T) {
	// 4×3 grid: rank 4 (row 1, col 1) has all four neighbours; rank 0
	// only south and east; rank 11 only north and west.
	nb := stencilNeighbours(12)
	for _, c := range []struct {
		r    int
		want [numDirs]int32
	}{{4, [numDirs]int32{1, 7, 3, 5}}, {0, [numDirs]int32{-1, 3, -1, 1}}, {11, [numDirs]int32{8, -1, 10, -1}}} {
		if nb[c.r] != c.want {
			t.Errorf("stencil neighbours of %d: %v, want %v", c.r, nb[c.r], c.want)
		}
	}
	for _, c := range []struct {
		p         int
		transpose map[int]int32 // spot checks against NAS CG's formulas
		row0      []int32       // rank 0's partner per step i = 1..l2
	}{
		{2, map[int]int32{0: 0, 1: 1}, []int32{1}},
		{8, map[int]int32{0: 0, 1: 1, 2: 4, 3: 5, 6: 6, 7: 7}, []int32{2, 1}},
		{16, map[int]int32{0: 0, 1: 4, 6: 9, 15: 15, 11: 14}, []int32{2, 1}},
		{32, map[int]int32{2: 8, 3: 9, 30: 30}, []int32{4, 2, 1}},
	} {
		row, tr := cgPartners(c.p)
		_, cols := cgDims(c.p)
		for r, want := range c.transpose {
			if tr[r] != want {
				t.Errorf("P=%d: transpose partner of %d is %d, want %d", c.p, r, tr[r], want)
			}
		}
		var got []int32
		for i := range row {
			got = append(got, row[i][0])
		}
		if !slices.Equal(got, c.row0) {
			t.Errorf("P=%d: rank 0's row partners %v, want %v", c.p, got, c.row0)
		}
		for r := range c.p {
			if tr[tr[r]] != int32(r) {
				t.Errorf("P=%d: transpose is not an involution at %d", c.p, r)
			}
			for i := range row {
				q := row[i][r]
				if row[i][q] != int32(r) || q == int32(r) || int(q)/cols != r/cols {
					t.Errorf("P=%d step %d: partner %d of %d is not a distinct partner in its row", c.p, i+1, q, r)
				}
			}
		}
	}
}

// TestDeterminism: the same seed gives the same trace; another seed gives
// another trace exactly where randomness is used (task times, matchings,
// jitter, skew).
func TestDeterminism(t *testing.T) {
	tests := []struct {
		o          Options
		seedMatter bool
	}{
		{Options{Pattern: "ring", Ranks: 4, Iters: 5}, false},
		{Options{Pattern: "stencil2d", Ranks: 9, Iters: 5, Compute: -1}, false},
		{Options{Pattern: "cg", Ranks: 8, Iters: 3, Compute: -1}, false},
		{Options{Pattern: "ring", Ranks: 4, Iters: 5, Compute: -1, Jitter: 0.1}, true},
		{Options{Pattern: "master-worker", Ranks: 5, Iters: 5, Compute: -1}, true},
		{Options{Pattern: "random-pairs", Ranks: 6, Iters: 5, Compute: -1}, true},
		{Options{Pattern: "alltoall", Ranks: 4, Iters: 5, Compute: -1, Skew: 10e-6}, true},
	}
	for _, tc := range tests {
		o := tc.o
		o.Seed = 42
		a, b := mustGenerate(t, o), mustGenerate(t, o)
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%+v: the same seed gave different traces", o)
		}
		o.Seed = 43
		c := mustGenerate(t, o)
		// Only the regeneration command names the seed.
		a.Attrs, c.Attrs = nil, nil
		if differ := !reflect.DeepEqual(a, c); differ != tc.seedMatter {
			t.Errorf("%+v: seeds 42 and 43 differ: %v, want %v", o, differ, tc.seedMatter)
		}
	}
	// The pattern's random choices do not depend on the skew: the
	// matching of random-pairs is the same with and without it.
	o := Options{Pattern: "random-pairs", Ranks: 8, Iters: 10, Seed: 7}
	plain := mustGenerate(t, o)
	o.Skew = 20e-6
	skewed := mustGenerate(t, o)
	for r := range plain.Ranks {
		var p1, p2 []int32
		for _, e := range plain.Ranks[r].Events {
			if e.Kind == tracefmt.KindSend {
				p1 = append(p1, e.Peer)
			}
		}
		for _, e := range skewed.Ranks[r].Events {
			if e.Kind == tracefmt.KindSend {
				p2 = append(p2, e.Peer)
			}
		}
		if !slices.Equal(p1, p2) {
			t.Fatalf("rank %d: partners %v without skew, %v with", r, p1, p2)
		}
	}
}

// reversed counts messages whose receive is logged before their send.
func reversed(tr *tracefmt.Trace) int {
	n := 0
	tr.Messages(func(s, r tracefmt.EventRef) bool {
		if tr.Event(r).Time < tr.Event(s).Time {
			n++
		}
		return true
	})
	return n
}

func TestSkew(t *testing.T) {
	for _, o := range allPatterns() {
		t.Run(o.Pattern, func(t *testing.T) {
			o.Seed = 5
			plain := mustGenerate(t, o)
			if n := reversed(plain); n != 0 {
				t.Fatalf("%d reversed messages without skew", n)
			}
			// 100 µs is far beyond every message's transit (at most
			// 2 + 32.8 µs with these options).
			o.Skew = 100e-6
			tr := mustGenerate(t, o)
			if err := tr.Validate(); err != nil {
				t.Fatal(err)
			}
			if m := tr.CountMessages().Matched; m > 0 && reversed(tr) == 0 {
				t.Errorf("no reversed message among %d with 100 µs skew", m)
			}
			start, _ := tr.Span()
			if start != 0 {
				t.Errorf("skewed trace starts at %v, want 0", start)
			}
			// Every rank's clock reads the model time plus an offset
			// and a drift, and its own times never decrease.
			for r := range tr.Ranks {
				a, b := plain.Ranks[r].Events, tr.Ranks[r].Events
				if len(a) != len(b) {
					t.Fatalf("rank %d: %d events with skew, %d without", r, len(b), len(a))
				}
				for i := range b {
					if i > 0 && b[i].Time < b[i-1].Time {
						t.Fatalf("rank %d event %d: time goes back from %v to %v", r, i, b[i-1].Time, b[i].Time)
					}
					// θ ∈ [0, 200] µs after the shift, |ρ| ≤ 1e-4, and
					// rounding moves a time by at most half a nanosecond.
					drift := 1e-4*a[i].Time + 1e-3
					if d := b[i].Time - a[i].Time; d < -drift || d > 200+drift {
						t.Fatalf("rank %d event %d: shifted by %v µs", r, i, d)
					}
				}
			}
		})
	}
}

func TestSkewOffsetsAndDrift(t *testing.T) {
	// A rank's clock reads t + θ + ρ·t: its first and last events, 4 s
	// apart in model time, reveal θ and ρ.
	o := Options{Pattern: "ring", Ranks: 16, Iters: 2000, Compute: 1e-3, Skew: 50e-6, Seed: 11}
	n, _ := o.Normalize()
	g := newGen(&n, nil)
	offs := map[int64]bool{}
	for r := range n.Ranks {
		if g.off[r] < 0 || g.off[r] > 100_000 {
			t.Errorf("rank %d: offset %d ns outside [0, 2·Skew]", r, g.off[r])
		}
		if math.Abs(g.rate[r]) > 50e-6 {
			t.Errorf("rank %d: drift %v beyond Skew per second", r, g.rate[r])
		}
		offs[g.off[r]] = true
	}
	if len(offs) < n.Ranks-1 {
		t.Errorf("offsets not spread: %d distinct among %d ranks", len(offs), n.Ranks)
	}
	tr := mustGenerate(t, o)
	plain := o
	plain.Skew = 0
	pt := mustGenerate(t, plain)
	for r := range n.Ranks {
		a, b := pt.Ranks[r].Events, tr.Ranks[r].Events
		last := len(a) - 1
		gotOff := b[0].Time - a[0].Time
		gotDrift := (b[last].Time - a[last].Time - gotOff) / a[last].Time
		if math.Abs(gotOff-float64(g.off[r])/1e3) > 1e-9 || math.Abs(gotDrift-g.rate[r]) > 1e-6 {
			t.Errorf("rank %d: measured offset %v µs drift %v, want %v µs, %v", r, gotOff, gotDrift, float64(g.off[r])/1e3, g.rate[r])
		}
	}
}

func TestGeneratorAttr(t *testing.T) {
	tests := []struct {
		o    Options
		want string
	}{
		{Options{Pattern: "ring", Compute: -1},
			"tracesim gen ring --ranks 8 --iters 100 --size 4096 --compute 0.0001 --seed 0"},
		{Options{Pattern: "cg", Ranks: 4, Iters: 2, Size: 100, Compute: 0, Seed: -3, Skew: 5e-6, Latency: 1e-6, Bandwidth: 1e10, Overhead: 1e-7, Jitter: 0.25},
			"tracesim gen cg --ranks 4 --iters 2 --size 100 --compute 0 --seed -3 --skew 5e-06 --latency 1e-06 --bandwidth 1e+10 --overhead 1e-07 --jitter 0.25"},
	}
	for _, tc := range tests {
		tr := mustGenerate(t, tc.o)
		if got, _ := tr.Attr("generator"); got != tc.want {
			t.Errorf("generator attribute\n got %q\nwant %q", got, tc.want)
		}
		if tr.Format != "gen" {
			t.Errorf("format %q, want gen", tr.Format)
		}
	}
}

func TestMasterWorkerSchedule(t *testing.T) {
	o := Options{Pattern: "master-worker", Ranks: 5, Iters: 8, Compute: -1, Seed: 2}
	tr := mustGenerate(t, o)
	n, _ := o.Normalize()
	ev := tr.Ranks[0].Events
	tasks := map[int]int{}
	var durations []float64
	last := -1.0
	for i := range ev {
		e := &ev[i]
		switch {
		case e.Kind == tracefmt.KindRecv:
			if !e.Flags.Has(tracefmt.FlagAnySource) || e.Tag != tagResult {
				t.Fatalf("master receive %d: flags %v tag %d", i, e.Flags, e.Tag)
			}
			// Results are taken in arrival order: their send times plus
			// transit never decrease.
			s := tr.Event(tracefmt.EventRef{Rank: e.Peer, Index: e.Match})
			if s.Time < last {
				t.Fatalf("master took a result sent at %v after one sent at %v", s.Time, last)
			}
			last = s.Time
		case e.Kind == tracefmt.KindSend && e.Size > 0:
			tasks[int(e.Peer)]++
		}
	}
	total := 0
	for w := 1; w < n.Ranks; w++ {
		if tasks[w] == 0 {
			t.Errorf("worker %d got no task", w)
		}
		total += tasks[w]
		for _, e := range tr.Ranks[w].Events {
			if e.Kind == tracefmt.KindCompute {
				durations = append(durations, e.Amount())
			}
		}
	}
	if total != 8*4 {
		t.Errorf("%d tasks handed out, want 32", total)
	}
	if len(durations) != 32 {
		t.Fatalf("%d task bursts, want 32", len(durations))
	}
	lo, hi := slices.Min(durations), slices.Max(durations)
	if lo < 500 || hi >= 1500 || hi-lo < 300 {
		t.Errorf("task times span [%v, %v] µs, want varied within [500, 1500)", lo, hi)
	}
}

func TestErrors(t *testing.T) {
	tests := []struct {
		name string
		o    Options
		want []string // substrings of the error
	}{
		{"unknown", Options{Pattern: "butterfly"}, []string{`unknown pattern "butterfly"`, "ring, pingpong, stencil2d, alltoall, master-worker, bcast-tree, cg, random-pairs"}},
		{"empty", Options{}, []string{"no pattern", "ring"}},
		{"one rank", Options{Pattern: "ring", Ranks: 1}, []string{"gen ring", "at least 2 ranks, got 1"}},
		{"negative ranks", Options{Pattern: "ring", Ranks: -4}, []string{"ranks must be positive, got -4"}},
		{"huge ranks", Options{Pattern: "alltoall", Ranks: MaxRanks + 1}, []string{"ranks must be at most"}},
		{"pingpong 3", Options{Pattern: "pingpong", Ranks: 3}, []string{"gen pingpong", "exactly 2 ranks, got 3"}},
		{"stencil prime", Options{Pattern: "stencil2d", Ranks: 7}, []string{"2D process grid", "7×1", "try 6 or 8"}},
		{"stencil 13", Options{Pattern: "stencil2d", Ranks: 13}, []string{"try 12 or 14"}},
		{"stencil 3", Options{Pattern: "stencil2d", Ranks: 3}, []string{"4 or more ranks, got 3"}},
		{"cg 12", Options{Pattern: "cg", Ranks: 12}, []string{"power-of-two", "got 12", "try 8 or 16"}},
		{"negative iters", Options{Pattern: "ring", Iters: -1}, []string{"iterations must be positive, got -1"}},
		{"negative size", Options{Pattern: "ring", Size: -8}, []string{"message size must be positive, got -8 bytes"}},
		{"NaN compute", Options{Pattern: "ring", Compute: math.NaN()}, []string{"computation time NaN"}},
		{"negative skew", Options{Pattern: "ring", Skew: -1e-6}, []string{"clock skew"}},
		{"huge skew", Options{Pattern: "ring", Skew: 2}, []string{"clock skew must be at most"}},
		{"negative latency", Options{Pattern: "ring", Latency: -1}, []string{"latency"}},
		{"negative bandwidth", Options{Pattern: "ring", Bandwidth: -1}, []string{"bandwidth must be positive"}},
		{"infinite overhead", Options{Pattern: "ring", Overhead: math.Inf(1)}, []string{"call overhead"}},
		{"jitter 1", Options{Pattern: "ring", Jitter: 1}, []string{"jitter must be in [0, 1)"}},
		{"too many events", Options{Pattern: "alltoall", Ranks: 1 << 15, Iters: 1 << 16, Size: 1}, []string{"events, more than the generator's limit"}},
		{"too long", Options{Pattern: "ring", Iters: 1 << 30, Compute: 10}, []string{"limit"}},
		{"too slow network", Options{Pattern: "ring", Size: 1 << 40, Bandwidth: 1}, []string{"modelled run would last"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Generate(tc.o)
			if err == nil {
				t.Fatalf("Generate(%+v) succeeded", tc.o)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
			if _, err2 := Expect(tc.o); err2 == nil || err2.Error() != err.Error() {
				t.Errorf("Expect error %v, Generate error %v", err2, err)
			}
		})
	}
}

// TestGrowExact checks that the dry run counts every rank's events
// exactly, so that each stream is allocated once at its final size.
func TestGrowExact(t *testing.T) {
	for _, o := range allPatterns() {
		o.Seed = 8
		tr := mustGenerate(t, o)
		n, err := o.Normalize()
		if err != nil {
			t.Fatal(err)
		}
		s, _ := lookup(o.Pattern)
		dry := newGen(&n, nil)
		s.run(dry)
		for r := range tr.Ranks {
			if got := len(tr.Ranks[r].Events); got != dry.counts[r] {
				t.Errorf("%s rank %d: dry run counted %d events, the trace holds %d", o.Pattern, r, dry.counts[r], got)
			}
		}
	}
}

// GenerateContext stops a large generation soon after its context is
// cancelled, with the context's error, and makes the same trace as
// Generate when it is not.
func TestGenerateContextCancel(t *testing.T) {
	o := Options{Pattern: "ring", Ranks: 64, Iters: 400000, Compute: -1, Seed: 1}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	start := time.Now()
	tr, err := GenerateContext(ctx, o)
	took := time.Since(start)
	if tr != nil || !errors.Is(err, context.Canceled) {
		t.Fatalf("GenerateContext cancelled: trace %v, error %v; want none and context.Canceled", tr != nil, err)
	}
	if took > time.Second {
		t.Errorf("stopped after %v, want well under a second", took)
	}
	small := Options{Pattern: "stencil2d", Ranks: 16, Iters: 5, Compute: -1, Seed: 3, Jitter: 0.2}
	a, err := Generate(small)
	if err != nil {
		t.Fatal(err)
	}
	b, err := GenerateContext(context.Background(), small)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a, b) || a.NumEvents() == 0 {
		t.Errorf("GenerateContext made another trace than Generate")
	}
}
