package simgridti

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracesim/tracesim/tracefmt"
)

// richModel builds an untimed model using every event the TI format can
// hold: blocking, non-blocking and synchronous-free point-to-point, tests,
// waits, waitall, sendrecv, wildcards, every collective with consistent
// sizes, compute, sleep and location markers.
func richModel(t *testing.T) *tracefmt.Trace {
	t.Helper()
	b := tracefmt.NewBuilder(3, false, tracefmt.Second)
	loc := b.Marker("location")
	add := func(r int, e tracefmt.Event) {
		if _, err := b.Add(r, e); err != nil {
			t.Fatal(err)
		}
	}
	nb := func(e tracefmt.Event, req int64) tracefmt.Event {
		e.Flags |= tracefmt.FlagNonBlocking
		e.SetRequest(req)
		return e
	}
	flags := func(e tracefmt.Event, f tracefmt.Flags) tracefmt.Event {
		e.Flags |= f
		return e
	}
	wait := func(req int64, f tracefmt.Flags) tracefmt.Event {
		e := tracefmt.Wait(0, req)
		e.Flags |= f
		return e
	}
	m := tracefmt.Mark(0, loc)
	m.SetTextRef(b.Text("solver.c:120"))
	add(0, m)
	add(0, tracefmt.ComputeWork(0, 1.5e9))
	add(0, tracefmt.Send(0, 1, 7, 0, 4096))
	add(0, nb(tracefmt.Send(0, 2, 8, 0, 24), 1))
	add(0, nb(tracefmt.Recv(0, 1, 9, 0, 3), 2))
	add(0, wait(2, tracefmt.FlagTest))
	add(0, wait(2, 0))
	add(0, tracefmt.WaitAll(0))
	add(0, flags(tracefmt.Recv(0, 2, 11, 0, 16), tracefmt.FlagAnySource))
	add(0, flags(tracefmt.Send(0, 1, 0, 0, 40), tracefmt.FlagSendrecv))
	add(0, flags(tracefmt.Recv(0, 1, 0, 0, 48), tracefmt.FlagSendrecv))
	add(0, tracefmt.ComputeTime(0, 0.125))

	add(1, tracefmt.Recv(0, 0, 7, 0, 4096))
	add(1, tracefmt.Send(0, 0, 9, 0, 3))
	add(1, nb(tracefmt.Recv(0, 2, 10, 0, 5), 1))
	add(1, wait(1, 0))
	add(1, flags(tracefmt.Send(0, 0, 0, 0, 48), tracefmt.FlagSendrecv))
	add(1, flags(tracefmt.Recv(0, 0, 0, 0, 40), tracefmt.FlagSendrecv))

	add(2, tracefmt.Recv(0, 0, 8, 0, 24))
	add(2, nb(tracefmt.Send(0, 1, 10, 0, 5), 1))
	add(2, tracefmt.Send(0, 0, 11, 0, 16))
	add(2, tracefmt.WaitAll(0))

	// Collectives, with this rank's (sent, received) bytes as the reader
	// computes them, for a world of 3.
	type coll struct {
		op    tracefmt.CollOp
		root  int
		bytes [3][2]int64
		flops float64
	}
	for _, c := range []coll{
		{tracefmt.OpBarrier, -1, [3][2]int64{}, 0},
		{tracefmt.OpBcast, 2, [3][2]int64{{0, 80}, {0, 80}, {80, 0}}, 0},
		{tracefmt.OpReduce, 1, [3][2]int64{{16, 0}, {16, 16}, {16, 0}}, 2e6},
		{tracefmt.OpAllreduce, -1, [3][2]int64{{8, 8}, {8, 8}, {8, 8}}, 0},
		{tracefmt.OpScan, -1, [3][2]int64{{24, 24}, {24, 24}, {24, 24}}, 1e3},
		{tracefmt.OpExscan, -1, [3][2]int64{{24, 24}, {24, 24}, {24, 24}}, 0},
		{tracefmt.OpAlltoall, -1, [3][2]int64{{48, 48}, {48, 48}, {48, 48}}, 0},
		{tracefmt.OpAllgather, -1, [3][2]int64{{16, 48}, {16, 48}, {16, 48}}, 0},
		{tracefmt.OpGather, 0, [3][2]int64{{8, 24}, {8, 0}, {8, 0}}, 0},
		{tracefmt.OpScatter, 1, [3][2]int64{{0, 4}, {12, 4}, {0, 4}}, 0},
		{tracefmt.OpGatherv, 2, [3][2]int64{{3, 0}, {5, 0}, {7, 15}}, 0},
		{tracefmt.OpAllgatherv, -1, [3][2]int64{{8, 40}, {16, 40}, {16, 40}}, 0},
		{tracefmt.OpScatterv, 0, [3][2]int64{{33, 1}, {0, 30}, {0, 2}}, 0},
		{tracefmt.OpReduceScatter, -1, [3][2]int64{{48, 8}, {48, 16}, {48, 24}}, 5e5},
		{tracefmt.OpAlltoallv, -1, [3][2]int64{{30, 9}, {0, 21}, {6, 6}}, 0},
	} {
		for r := range 3 {
			add(r, tracefmt.Collective(0, c.op, c.root, 0, c.bytes[r][0], c.bytes[r][1]))
			if c.flops > 0 {
				add(r, tracefmt.ComputeWork(0, c.flops))
			}
		}
	}
	tr, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	if c := tr.CountMessages(); c.UnmatchedRecvs+c.UnmatchedSends != 0 {
		t.Fatalf("rich model has unmatched messages: %+v", c)
	}
	return tr
}

// TestRoundTrip: read → write → read gives the same model, for the real
// samples and a model using everything the format holds, in both layouts
// and both datatype choices.
func TestRoundTrip(t *testing.T) {
	models := map[string]*tracefmt.Trace{"rich model": richModel(t)}
	for _, f := range []string{"simgrid-examples/actions_with_isend.txt", "simgrid-examples/actions_waitall.txt",
		"simgrid-examples/actions_allgatherv.txt", "smpi332/trace.txt"} {
		tr, err := ReadFile(filepath.Join("testdata", f))
		if err != nil {
			t.Fatal(err)
		}
		models[f] = tr
	}
	for name, orig := range models {
		for _, dt := range []Datatype{Byte, Double, Int} {
			opt := WriteOptions{Datatype: dt}
			t.Run(name+"/"+dt.String(), func(t *testing.T) {
				want := withoutSync(orig)
				var buf bytes.Buffer
				if err := Write(&buf, orig, opt); err != nil {
					t.Fatal(err)
				}
				got, err := Read(bytes.NewReader(buf.Bytes()), nil)
				if err != nil {
					t.Fatalf("reading back: %v\n%s", err, buf.String())
				}
				if err := sameModel(want, got); err != nil {
					t.Errorf("single file: %v", err)
				}
				// Writing the read-back model gives the same text.
				var again bytes.Buffer
				if err := Write(&again, got, opt); err != nil {
					t.Fatal(err)
				}
				if again.String() != buf.String() {
					t.Errorf("second write differs from the first")
				}

				index := filepath.Join(t.TempDir(), "trace.txt")
				if err := WriteIndex(index, orig, opt); err != nil {
					t.Fatal(err)
				}
				got, err = ReadFile(index)
				if err != nil {
					t.Fatal(err)
				}
				if err := sameModel(want, got); err != nil {
					t.Errorf("index layout: %v", err)
				}
			})
		}
	}
}

// withoutSync returns t without FlagSync: SimGrid's replayer knows no
// Ssend, so the writer writes synchronous sends as plain sends.
func withoutSync(t *tracefmt.Trace) *tracefmt.Trace {
	c := *t
	c.Ranks = make([]tracefmt.Rank, len(t.Ranks))
	for r := range t.Ranks {
		c.Ranks[r].Events = append([]tracefmt.Event(nil), t.Ranks[r].Events...)
		for i := range c.Ranks[r].Events {
			c.Ranks[r].Events[i].Flags &^= tracefmt.FlagSync
		}
	}
	return &c
}

// TestWriteText pins the text written for small models: spellings,
// explicit datatype ids, request keys, init lines first.
func TestWriteText(t *testing.T) {
	tests := []struct {
		name string
		in   string
		opt  WriteOptions
		want string
	}{
		{"point to point in bytes",
			"0 isend 1 5 100 6\n0 wait 0 1 5\n0 compute 1e9\n1 irecv 0 5 100 6\n1 test 0 1 5\n1 waitall\n1 sleep 0.5\n",
			WriteOptions{Datatype: Byte},
			"0 init\n1 init\n0 isend 1 5 100 6\n0 wait 0 1 5\n0 compute 1e+09\n0 finalize\n" +
				"1 irecv 0 5 100 6\n1 test 0 1 5\n1 waitall\n1 sleep 0.5\n1 finalize\n"},
		{"doubles where sizes divide, bytes for the rest, the same on both ends",
			"0 send 1 0 800\n0 send 1 1 12\n0 sendRecv 16 1 3 1\n1 recv 0 0 800\n1 recv 0 1 12\n1 sendRecv 3 0 16 0\n",
			WriteOptions{},
			"0 init\n1 init\n0 send 1 0 100 0\n0 send 1 1 12 6\n0 sendRecv 2 1 3 1 0 6\n0 finalize\n" +
				"1 recv 0 0 100 0\n1 recv 0 1 12 6\n1 sendRecv 3 0 2 0 6 0\n1 finalize\n"},
		{"sendRecv",
			"0 sendRecv 8 1 8 1\n1 sendRecv 8 0 8 0\n", WriteOptions{Datatype: Byte},
			"0 init\n1 init\n0 sendRecv 8 1 8 1 6 6\n0 finalize\n1 sendRecv 8 0 8 0 6 6\n1 finalize\n"},
		{"wildcards kept",
			"0 irecv -555 4 8\n0 wait -555 0 4\n0 recv -333 -444 8\n1 send 0 4 8\n1 send 0 9 8\n",
			WriteOptions{Datatype: Byte},
			"0 init\n1 init\n0 irecv -555 4 8 6\n0 wait -555 0 4\n0 recv -555 -444 8 6\n0 finalize\n" +
				"1 send 0 4 8 6\n1 send 0 9 8 6\n1 finalize\n"},
		{"wildcards resolved",
			"0 irecv -555 4 8\n0 wait -555 0 4\n0 recv -333 -444 8\n1 send 0 4 8\n1 send 0 9 8\n",
			WriteOptions{Datatype: Byte, ResolveWildcards: true},
			"0 init\n1 init\n0 irecv 1 4 8 6\n0 wait 1 0 4\n0 recv 1 9 8 6\n0 finalize\n" +
				"1 send 0 4 8 6\n1 send 0 9 8 6\n1 finalize\n"},
		{"a receive never truncates its send",
			"0 send 1 0 64\n1 recv 0 0 8\n", WriteOptions{Datatype: Byte},
			"0 init\n1 init\n0 send 1 0 64 6\n0 finalize\n1 recv 0 0 64 6\n1 finalize\n"},
		{"collectives with their operator flops and markers",
			"0 location a.c 3\n0 reduce 4 1e6 1 0\n1 reduce 4 1e6 1 0\n0 waitAny 1\n0 bcast 2 1 1\n1 bcast 2 1 1\n",
			WriteOptions{Datatype: Double},
			"0 init\n1 init\n0 location a.c 3\n0 reduce 4 0 1 0\n0 compute 1e+06\n0 bcast 1 1 0\n0 finalize\n" +
				"1 reduce 4 0 1 0\n1 compute 1e+06\n1 bcast 1 1 0\n1 finalize\n"},
		{"vector collectives list every rank's counts",
			"0 init\n1 init\n0 gatherv 2 2 4 0 6 6\n1 gatherv 4 0 0 0 6 6\n0 scatterv 1 3 1 0 6 6\n1 scatterv 0 0 3 0 6 6\n" +
				"0 allgatherv 2 2 4 6 6\n1 allgatherv 4 2 4 6 6\n0 reducescatter 5 7 0 6\n1 reducescatter 5 7 0 6\n",
			WriteOptions{Datatype: Byte},
			"0 init\n1 init\n0 gatherv 2 2 4 0 6 6\n0 scatterv 1 3 1 0 6 6\n0 allgatherv 2 2 4 6 6\n0 reducescatter 5 7 0 6\n0 finalize\n" +
				"1 gatherv 4 0 0 0 6 6\n1 scatterv 0 0 3 0 6 6\n1 allgatherv 4 2 4 6 6\n1 reducescatter 5 7 0 6\n1 finalize\n"},
		{"alltoallv spreads each rank's bytes over its peers",
			"0 init\n1 init\n0 alltoallv 8 4 4 8 4 4 6 6\n1 alltoallv 8 4 4 8 4 4 6 6\n",
			WriteOptions{Datatype: Byte},
			"0 init\n1 init\n0 alltoallv 8 4 4 8 4 4 6 6\n0 finalize\n1 alltoallv 8 4 4 8 4 4 6 6\n1 finalize\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := Write(&buf, mustRead(t, tt.in), tt.opt); err != nil {
				t.Fatal(err)
			}
			if buf.String() != tt.want {
				t.Errorf("wrote:\n%s\nwant:\n%s", buf.String(), tt.want)
			}
		})
	}
}

// TestWriteLosses pins what the TI format cannot hold: synchronous sends
// become plain sends (SimGrid's replayer knows no Ssend) and markers other
// than location are dropped (SimGrid's replayer knows no waitAny).
func TestWriteLosses(t *testing.T) {
	tr := mustRead(t, "0 Ssend 1 0 8\n0 waitAny 2\n0 testsome\n1 recv 0 0 8\n")
	var buf bytes.Buffer
	if err := Write(&buf, tr, WriteOptions{Datatype: Byte}); err != nil {
		t.Fatal(err)
	}
	want := "0 init\n1 init\n0 send 1 0 8 6\n0 finalize\n1 recv 0 0 8 6\n1 finalize\n"
	if buf.String() != want {
		t.Errorf("wrote:\n%s\nwant:\n%s", buf.String(), want)
	}
}

// timedModel is a two-rank timed trace in microseconds with MPI states and
// a user state: the writer turns the time outside MPI states into flops.
func timedModel(t *testing.T) *tracefmt.Trace {
	t.Helper()
	b := tracefmt.NewBuilder(2, true, tracefmt.Microsecond)
	send := b.DefineState(tracefmt.StateDef{Name: "MPI_Send", Category: tracefmt.CatP2P})
	recv := b.DefineState(tracefmt.StateDef{Name: "MPI_Recv", Category: tracefmt.CatP2P})
	isend := b.DefineState(tracefmt.StateDef{Name: "MPI_Isend", Category: tracefmt.CatP2P})
	wait := b.DefineState(tracefmt.StateDef{Name: "MPI_Waitall", Category: tracefmt.CatWait})
	work := b.DefineState(tracefmt.StateDef{Name: "Work", Category: tracefmt.CatUser})
	initS := b.State("MPI_Init") // CatOther: an MPI call, not compute
	allr := b.DefineState(tracefmt.StateDef{Name: "MPI_Allreduce", Category: tracefmt.CatCollective})
	evs := [][]tracefmt.Event{
		{
			tracefmt.Enter(0, initS), tracefmt.Leave(100, initS),
			tracefmt.Enter(1e6, send), tracefmt.Send(1e6, 1, 3, 0, 4000), tracefmt.Leave(1.5e6, send),
			tracefmt.Enter(2e6, work), tracefmt.Leave(3e6, work),
			tracefmt.Enter(3.5e6, recv), tracefmt.Recv(4e6, 1, 4, 0, 50), tracefmt.Leave(4e6, recv),
			tracefmt.Enter(4.25e6, allr), tracefmt.Collective(4.25e6, tracefmt.OpAllreduce, -1, 0, 8, 8), tracefmt.Leave(4.5e6, allr),
		},
		{
			tracefmt.Enter(0, initS), tracefmt.Leave(200, initS),
			tracefmt.Enter(200, recv), tracefmt.Recv(1.2e6, 0, 3, 0, 4000), tracefmt.Leave(1.2e6, recv),
			tracefmt.Enter(1.7e6, isend), nbSend(tracefmt.Send(1.7e6, 0, 4, 0, 50)), tracefmt.Leave(1.7e6, isend),
			tracefmt.Enter(1.9e6, wait), tracefmt.WaitAll(1.9e6), tracefmt.Leave(2e6, wait),
			tracefmt.Enter(4.4e6, allr), tracefmt.Collective(4.4e6, tracefmt.OpAllreduce, -1, 0, 8, 8), tracefmt.Leave(4.5e6, allr),
			tracefmt.ComputeTime(4.5e6, 3e6), // ignored: gaps carry the compute time
			tracefmt.Enter(5e6, initS),
		},
	}
	for r, es := range evs {
		for _, e := range es {
			if _, err := b.Add(r, e); err != nil {
				t.Fatal(err)
			}
		}
	}
	tr, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func nbSend(e tracefmt.Event) tracefmt.Event {
	e.Flags |= tracefmt.FlagNonBlocking
	return e
}

func TestWriteTimed(t *testing.T) {
	var buf bytes.Buffer
	if err := Write(&buf, timedModel(t), WriteOptions{CPUSpeed: 2e9, Datatype: Double}); err != nil {
		t.Fatal(err)
	}
	// Rank 0: 1 s outside MPI before its send (0.0001–1 s), then
	// 0.5+1+0.5 s (Work counts as compute) before its receive, 0.25 s
	// before the allreduce. Rank 1: 0.5 s between its receive and its
	// isend, 0.2 s before the waitall, 2.4 s before the allreduce, 0.5 s
	// before MPI_Init's second appearance.
	want := "0 init\n1 init\n" +
		"0 compute 1.9998e+09\n0 send 1 3 500 0\n0 compute 4e+09\n0 recv 1 4 50 6\n0 compute 5e+08\n0 allreduce 1 0 0\n0 finalize\n" +
		"1 recv 0 3 500 0\n1 compute 1e+09\n1 isend 0 4 50 6\n1 compute 4e+08\n1 waitall\n1 compute 4.8e+09\n1 allreduce 1 0 0\n1 compute 1e+09\n1 finalize\n"
	if buf.String() != want {
		t.Errorf("wrote:\n%s\nwant:\n%s", buf.String(), want)
	}
	tr, err := Read(bytes.NewReader(buf.Bytes()), nil)
	if err != nil {
		t.Fatal(err)
	}
	if c := tr.CountMessages(); c.Matched != 2 || c.UnmatchedRecvs+c.UnmatchedSends != 0 {
		t.Errorf("messages %+v, want 2 matched", c)
	}
}

func TestWriteErrors(t *testing.T) {
	b := tracefmt.NewBuilder(3, false, tracefmt.Second)
	row, err := b.AddComm(tracefmt.Comm{Name: "row", Ranks: []int32{0, 1}})
	if err != nil {
		t.Fatal(err)
	}
	dup, err := b.AddComm(tracefmt.Comm{Name: "dup", Ranks: []int32{0, 1, 2}})
	if err != nil {
		t.Fatal(err)
	}
	for r := range 3 {
		if _, err := b.Add(r, tracefmt.Collective(0, tracefmt.OpBarrier, -1, dup, 0, 0)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := b.Add(1, tracefmt.Collective(0, tracefmt.OpAllreduce, -1, row, 8, 8)); err != nil {
		t.Fatal(err)
	}
	tr, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		opt  WriteOptions
		want string
	}{
		{WriteOptions{}, "rank 1 event 1: allreduce on communicator 1 (row): SimGrid TI traces describe MPI_COMM_WORLD collectives only"},
		{WriteOptions{Datatype: 14}, "datatype 14: SimGrid replays only ids 0 to 6"},
		{WriteOptions{CPUSpeed: -1}, "CPU speed -1 flops/s"},
	}
	for _, tt := range tests {
		err := Write(&bytes.Buffer{}, tr, tt.opt)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Write(%+v) error %v, want …%s…", tt.opt, err, tt.want)
		}
	}
}

// TestAlltoallvCounts: the invented per-pair counts add up to every rank's
// totals and every send fits its receive, also when totals disagree.
func TestAlltoallvCounts(t *testing.T) {
	tests := []struct {
		name string
		S, R []int64
		even bool // totals agree: row and column sums exact
	}{
		{"uniform", []int64{12, 12, 12, 12}, []int64{12, 12, 12, 12}, true},
		{"skewed", []int64{100, 0, 7, 1}, []int64{27, 27, 27, 27}, true},
		{"primes", []int64{13, 17, 19, 23, 29}, []int64{29, 23, 19, 17, 13}, true},
		{"one rank", []int64{5}, []int64{5}, true},
		{"huge", []int64{1 << 61, 1 << 61}, []int64{1<<61 + 1<<60, 1 << 60}, true},
		{"more sent than received", []int64{10, 10}, []int64{3, 4}, false},
		{"more received than sent", []int64{1, 2, 3}, []int64{9, 9, 9}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newA2avMatrix(tt.S, tt.R, Byte)
			P := len(tt.S)
			rows := make([][]int64, P)
			cols := make([][]int64, P)
			for i := range P {
				rows[i], cols[i] = m.row(i), m.col(i)
			}
			var sumS, sumR, sent int64
			for i := range P {
				sumS += tt.S[i]
				sumR += tt.R[i]
			}
			for i := range P {
				var rs, cs int64
				for j := range P {
					if rows[i][j] < 0 || cols[i][j] < 0 {
						t.Fatalf("negative count: row %v col %v", rows[i], cols[i])
					}
					if rows[i][j] > cols[j][i] {
						t.Errorf("rank %d sends %d to %d, which expects %d", i, rows[i][j], j, cols[j][i])
					}
					rs += rows[i][j]
					cs += cols[i][j]
				}
				sent += rs
				if cs != tt.R[i] {
					t.Errorf("rank %d receives %d in all, want %d", i, cs, tt.R[i])
				}
				if rs != tt.S[i] && (tt.even || sumS <= sumR) || rs > tt.S[i] {
					t.Errorf("rank %d sends %d in all, want %d", i, rs, tt.S[i])
				}
			}
			if sent != min(sumS, sumR) {
				t.Errorf("%d sent in all, want %d", sent, min(sumS, sumR))
			}
			// Traffic is spread, not kept on the diagonal.
			if tt.name == "uniform" && rows[0][1] != 3 {
				t.Errorf("uniform alltoallv: rank 0 sends %v, want 3 to each", rows[0])
			}
		})
	}
}

// TestWriteIndexLayout: the index names per-rank files relative to itself,
// as SimGrid's tracer does; rewriting replaces the files atomically.
func TestWriteIndexLayout(t *testing.T) {
	dir := t.TempDir()
	index := filepath.Join(dir, "run.ti")
	tr := mustRead(t, "0 send 1 0 8\n1 recv 0 0 8\n2 compute 5\n")
	for range 2 {
		if err := WriteIndex(index, tr, WriteOptions{Datatype: Byte}); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(index)
	if err != nil {
		t.Fatal(err)
	}
	if want := "run.ti_files/rank-0.txt\nrun.ti_files/rank-1.txt\nrun.ti_files/rank-2.txt\n"; string(b) != want {
		t.Errorf("index:\n%s\nwant:\n%s", b, want)
	}
	r1, err := os.ReadFile(filepath.Join(dir, "run.ti_files", "rank-1.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "1 init\n1 recv 0 0 8 6\n1 finalize\n"; string(r1) != want {
		t.Errorf("rank 1's file:\n%s\nwant:\n%s", r1, want)
	}
	entries, err := os.ReadDir(filepath.Join(dir, "run.ti_files"))
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 3 {
		t.Errorf("%d files in run.ti_files (temporary files left?), want 3", len(entries))
	}
}

// TestTimedConversionKeepsWork: giving a TI trace times (AssignTimes) and
// writing it back as TI (compute from the gaps outside MPI states) keeps
// each rank's work, messages and collectives.
func TestTimedConversionKeepsWork(t *testing.T) {
	for _, name := range []string{"simgrid-examples/actions_with_isend.txt", "simgrid-examples/actions_allgatherv.txt", "smpi332/trace.txt"} {
		t.Run(name, func(t *testing.T) {
			orig := readTestdata(t, name)
			for _, speed := range []float64{1e9, 3.5e9} {
				timed, err := tracefmt.AssignTimes(orig, speed)
				if err != nil {
					t.Fatal(err)
				}
				back, err := Read(bytesOf(t, timed, WriteOptions{CPUSpeed: speed}), nil)
				if err != nil {
					t.Fatal(err)
				}
				a, b := tracefmt.Summarize(orig), tracefmt.Summarize(back)
				if a.Messages != b.Messages || a.Collectives != b.Collectives || a.Bytes != b.Bytes || a.CollectiveBytes != b.CollectiveBytes {
					t.Errorf("speed %g: messages %+v/%+v, collectives %d/%d, bytes %d/%d, %d/%d", speed, a.Messages, b.Messages,
						a.Collectives, b.Collectives, a.Bytes, b.Bytes, a.CollectiveBytes, b.CollectiveBytes)
				}
				for r := range orig.Ranks {
					w0, w1 := work(orig, r), work(back, r)
					if math.Abs(w0-w1) > 1e-9*w0+1e-6 {
						t.Errorf("speed %g: rank %d works %v flops, then %v", speed, r, w0, w1)
					}
				}
			}
		})
	}
}

// work returns the flops rank r computes (sleep excluded).
func work(tr *tracefmt.Trace, r int) float64 {
	var f float64
	for _, e := range tr.Ranks[r].Events {
		if e.Kind == tracefmt.KindCompute && e.Flags.Has(tracefmt.FlagWork) {
			f += e.Amount()
		}
	}
	return f
}

// taggedSendrecv: two ranks exchange 256 KiB with MPI_Sendrecv and tag 3,
// as a CLOG2 trace would record it.
func taggedSendrecv(t *testing.T) *tracefmt.Trace {
	b := tracefmt.NewBuilder(2, false, tracefmt.Second)
	for r := range 2 {
		s := tracefmt.Send(0, 1-r, 3, 0, 256<<10)
		s.Flags |= tracefmt.FlagSendrecv
		v := tracefmt.Recv(0, 1-r, 3, 0, 256<<10)
		v.Flags |= tracefmt.FlagSendrecv
		for _, e := range []tracefmt.Event{s, v} {
			if _, err := b.Add(r, e); err != nil {
				t.Fatal(err)
			}
		}
	}
	tr, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// TestWriteTaggedSendrecv: SimGrid's sendRecv has no tags, so a sendrecv
// with another tag is written as isend, receive, wait: the tags survive
// and neither blocking send waits for the other rank's.
func TestWriteTaggedSendrecv(t *testing.T) {
	var buf bytes.Buffer
	if err := Write(&buf, taggedSendrecv(t), WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	want := "0 init\n1 init\n0 isend 1 3 32768 0\n0 recv 1 3 32768 0\n0 wait 0 1 3\n0 finalize\n" +
		"1 isend 0 3 32768 0\n1 recv 0 3 32768 0\n1 wait 1 0 3\n1 finalize\n"
	if buf.String() != want {
		t.Errorf("wrote:\n%s\nwant:\n%s", buf.String(), want)
	}
}

// TestWriteCountsStated: the writer refuses a count the reader would
// refuse (2^53 bytes or more, which a tsim trace may hold: a FuzzCross
// find, "0 allgather" of 1e16 bytes written and then not read back), and
// writes what stays below it; an alltoall is judged by its per-peer
// blocks, which is what the line states.
func TestWriteCountsStated(t *testing.T) {
	const big = int64(1) << 53
	tests := []struct {
		name string
		add  func(b *tracefmt.Builder) error
		want string // the error, or "" when the trace is written and reads back
	}{
		{"send of 2^53 bytes", func(b *tracefmt.Builder) error {
			if _, err := b.Add(0, tracefmt.Send(0, 1, 0, 0, big)); err != nil {
				return err
			}
			_, err := b.Add(1, tracefmt.Recv(0, 0, 0, 0, 8))
			return err
		}, "simgridti: rank 0 event 0: send of 9007199254740992 bytes, more than the 2^53 a TI trace may state"},
		{"send of 2^53-8 bytes", func(b *tracefmt.Builder) error {
			if _, err := b.Add(0, tracefmt.Send(0, 1, 0, 0, big-8)); err != nil {
				return err
			}
			_, err := b.Add(1, tracefmt.Recv(0, 0, 0, 0, big-8))
			return err
		}, ""},
		{"allgather of 1e16 bytes", func(b *tracefmt.Builder) error {
			for r := range 2 {
				if _, err := b.Add(r, tracefmt.Collective(0, tracefmt.OpAllgather, -1, 0, 1e16, 2e16)); err != nil {
					return err
				}
			}
			return nil
		}, "simgridti: rank 0 event 0: allgather: a count of 10000000000000000 bytes, more than the 2^53 a TI trace may state"},
		{"alltoall of 2^53 bytes in blocks of 2^52", func(b *tracefmt.Builder) error {
			for r := range 2 {
				if _, err := b.Add(r, tracefmt.Collective(0, tracefmt.OpAlltoall, -1, 0, big, big)); err != nil {
					return err
				}
			}
			return nil
		}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := tracefmt.NewBuilder(2, false, tracefmt.Second)
			if err := tt.add(b); err != nil {
				t.Fatal(err)
			}
			tr, err := b.Finish()
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			err = Write(&out, tr, WriteOptions{})
			if tt.want != "" {
				if err == nil || err.Error() != tt.want {
					t.Fatalf("Write error %v, want %s", err, tt.want)
				}
				return
			}
			if err != nil {
				t.Fatalf("Write: %v", err)
			}
			if _, err := Read(bytes.NewReader(out.Bytes()), nil); err != nil {
				t.Errorf("cannot read what was written: %v\n%s", err, out.Bytes())
			}
		})
	}
}
