package simgridti

import (
	"reflect"
	"testing"
)

// TestActions reads every action of the current grammar and pins the
// events it becomes, rank by rank.
func TestActions(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want [][]string
	}{
		{"bookkeeping actions leave no events",
			"0 init\n0 comm_size 3\n0 comm_split\n0 comm_dup 4 5\n0 finalize\n", [][]string{{}, {}, {}}},
		{"compute keeps flops as work",
			"0 compute 1e6\n0 compute 2.5E+09\n0 compute 0\n", [][]string{{"compute 1e+06f", "compute 2.5e+09f", "compute 0f"}}},
		{"sleep is compute time in seconds",
			"0 sleep 0.25\n", [][]string{{"sleep 0.25s"}}},
		{"location is a marker",
			"0 location jacobi.c 42\n", [][]string{{`marker location "jacobi.c:42"`}}},
		{"tracer-only actions are markers",
			"0 waitAny 2\n0 testall\n0 Start 1 0 8 6\n",
			[][]string{{`marker waitAny "2"`, `marker testall ""`, `marker Start "1 0 8 6"`}}},
		{"send default MPI_BYTE",
			"0 send 1 3 100\n1 recv 0 3 100\n", [][]string{{"send>1 t3 100B"}, {"recv<0 t3 100B"}}},
		{"init with an argument makes MPI_DOUBLE the default",
			"0 init 1\n1 init 1\n0 send 1 3 100\n1 recv 0 3 100\n", [][]string{{"send>1 t3 800B"}, {"recv<0 t3 800B"}}},
		{"explicit datatypes",
			"0 send 1 0 10 1\n0 send 1 0 10 3\n0 send 1 0 10 4\n0 send 1 0 10 5\n0 send 1 0 10 14\n0 send 1 0 10 27\n1 init\n",
			[][]string{{"send>1 t0 40B", "send>1 t0 20B", "send>1 t0 80B", "send>1 t0 40B", "send>1 t0 160B", "send>1 t0 320B"}, {}}},
		{"fractional counts drop their fraction, as SimGrid's",
			"0 send 1 0 2.9 0\n1 init\n", [][]string{{"send>1 t0 16B"}, {}}},
		{"send flavours",
			"0 isend 1 1 8 6\n0 Ssend 1 2 8 6\n0 issend 1 3 8 6\n0 ISsend 1 3 8 6\n0 bsend 1 4 8 6\n0 ibsend 1 5 8 6\n0 rsend 1 6 8 6\n1 init\n",
			[][]string{{"send>1 t1 8B nb req1", "send>1 t2 8B sync", "send>1 t3 8B nb sync req2", "send>1 t3 8B nb sync req3",
				"send>1 t4 8B", "send>1 t5 8B nb req4", "send>1 t6 8B"}, {}}},
		{"sends to MPI_PROC_NULL do nothing",
			"0 send -666 0 8\n0 irecv -666 0 8\n0 compute 1\n", [][]string{{"compute 1f"}}},
		{"irecv and wait by key",
			"0 isend 1 5 8 6\n1 irecv 0 5 8 6\n1 wait 0 1 5\n0 wait 0 1 5\n",
			[][]string{{"send>1 t5 8B nb req1", "wait req1"}, {"recv<0 t5 8B nb req1", "wait req1"}}},
		{"wait completes the oldest pending request with its key",
			"0 isend 1 5 1 6\n0 isend 1 5 2 6\n0 isend 1 6 3 6\n0 wait 0 1 5\n0 wait 0 1 6\n0 wait 0 1 5\n1 recv 0 5 1\n1 recv 0 5 2\n1 recv 0 6 3\n",
			[][]string{{"send>1 t5 1B nb req1", "send>1 t5 2B nb req2", "send>1 t6 3B nb req3", "wait req1", "wait req3", "wait req2"},
				{"recv<0 t5 1B", "recv<0 t5 2B", "recv<0 t6 3B"}}},
		{"test leaves the request to the wait that follows",
			"0 irecv 1 0 8\n0 test 1 0 0\n0 test 1 0 0\n0 wait 1 0 0\n1 send 0 0 8\n",
			[][]string{{"recv<1 t0 8B nb req1", "test req1", "test req1", "wait req1"}, {"send>0 t0 8B"}}},
		{"waitall, with and without the tracer's count",
			"0 isend 1 0 8\n0 waitall 1\n0 waitall\n1 recv 0 0 8\n",
			[][]string{{"send>1 t0 8B nb req1", "waitall", "waitall"}, {"recv<0 t0 8B"}}},
		{"sendRecv has tag 0 and two datatypes",
			"0 sendRecv 5 1 6 1 0 1\n1 sendRecv 6 0 5 0\n",
			[][]string{{"send>1 t0 40B sr", "recv<1 t0 24B sr"}, {"send>0 t0 6B sr", "recv<0 t0 5B sr"}}},
		{"any tag",
			"0 recv 1 -444 8\n1 send 0 7 8\n", [][]string{{"recv<1 t7 8B any-tag"}, {"send>0 t7 8B"}}},
		{"actor names",
			"p0 send p1 0 1e3\np1 recv p0 0 1e3\n", [][]string{{"send>1 t0 1000B"}, {"recv<0 t0 1000B"}}},
		{"barrier", "0 barrier\n1 barrier\n", [][]string{{"barrier root-1 0/0"}, {"barrier root-1 0/0"}}},
		{"bcast from rank 0 by default",
			"0 bcast 10\n1 bcast 10\n", [][]string{{"bcast root0 10/0"}, {"bcast root0 0/10"}}},
		{"bcast with root and datatype",
			"0 bcast 10 1 0\n1 bcast 10 1 0\n", [][]string{{"bcast root1 0/80"}, {"bcast root1 80/0"}}},
		{"reduce: the operator's flops follow the collective",
			"0 reduce 10 1e6 1 1\n1 reduce 10 1e6 1 1\n",
			[][]string{{"reduce root1 40/0", "compute 1e+06f"}, {"reduce root1 40/40", "compute 1e+06f"}}},
		{"allreduce, scan, exscan",
			"0 allreduce 4 0 0\n0 scan 4 5 1\n0 exscan 2 0\n",
			[][]string{{"allreduce root-1 32/32", "scan root-1 16/16", "compute 5f", "exscan root-1 2/2"}}},
		{"alltoall: buffers of P blocks, two datatypes",
			"0 init\n1 init\n0 alltoall 4 5 0 1\n1 alltoall 4 5 0 1\n",
			[][]string{{"alltoall root-1 64/40"}, {"alltoall root-1 64/40"}}},
		{"alltoallv sums the counts",
			"0 init\n1 init\n0 alltoallv 9 1 7 9 2 3 0 1\n1 alltoallv 7 3 4 9 7 5\n",
			[][]string{{"alltoallv root-1 64/20"}, {"alltoallv root-1 7/12"}}},
		{"gather and allgather",
			"0 init\n1 init\n0 gather 3 3 1 0 0\n1 gather 3 3 1 0 0\n0 allgather 2 2\n1 allgather 2 2\n",
			[][]string{{"gather root1 24/0", "allgather root-1 2/4"}, {"gather root1 24/48", "allgather root-1 2/4"}}},
		{"gatherv: the root receives the sum",
			"0 init\n1 init\n0 gatherv 3 3 5 0 6 6\n1 gatherv 5 0 0 0\n",
			[][]string{{"gatherv root0 3/8"}, {"gatherv root0 5/0"}}},
		{"allgatherv with datatypes and displacements; two trailing numbers are datatypes",
			"0 init\n1 init\n0 allgatherv 3 3 5 1 1 0 3\n1 allgatherv 5 3 5 0 3\n",
			[][]string{{"allgatherv root-1 12/32"}, {"allgatherv root-1 40/64"}}},
		{"scatter and scatterv",
			"0 init\n1 init\n0 scatter 4 4 0 0 0\n1 scatter 4 4 0 0 0\n0 scatterv 2 6 2 0\n1 scatterv 0 0 6 0\n",
			[][]string{{"scatter root0 64/32", "scatterv root0 8/2"}, {"scatter root0 0/32", "scatterv root0 0/6"}}},
		{"reducescatter keeps this rank's block and the flops",
			"0 init\n1 init\n0 reducescatter 3 5 1e3 0\n1 reducescatter 3 5 0 0\n",
			[][]string{{"reducescatter root-1 64/24", "compute 1000f"}, {"reducescatter root-1 64/40"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := mustRead(t, tt.in)
			if got := describeRanks(tr); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("events:\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}

// TestRankMajorSingleFile: a file listing rank 0's actions before rank 1
// appears still reads collectives whose arguments depend on the world
// size, as in a file with the init lines first.
func TestRankMajorSingleFile(t *testing.T) {
	rankMajor := "0 alltoallv 9 1 7 9 2 3 0 1\n0 reducescatter 1 2 0\n0 gatherv 3 3 5 0 6 6\n" +
		"1 alltoallv 7 3 4 9 7 5\n1 reducescatter 1 2 7\n1 gatherv 5 0 0 0\n"
	initFirst := "0 init\n1 init\n" + rankMajor
	a, b := mustRead(t, rankMajor), mustRead(t, initFirst)
	if err := sameModel(a, b); err != nil {
		t.Fatal(err)
	}
	want := [][]string{
		{"alltoallv root-1 64/20", "reducescatter root-1 3/1", "gatherv root0 3/8"},
		{"alltoallv root-1 7/12", "reducescatter root-1 3/2", "compute 7f", "gatherv root0 5/0"},
	}
	if got := describeRanks(a); !reflect.DeepEqual(got, want) {
		t.Errorf("events:\n got %q\nwant %q", got, want)
	}
}

// TestLegacyGrammar reads the pre-3.20 spellings: sends and receives
// without tags, capitalised Isend/Irecv, argument-less wait and test that
// take the newest pending request (SimGrid popped the back of its list),
// camel-case collectives.
func TestLegacyGrammar(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want [][]string
	}{
		{"two-argument send and receive",
			"0 send 1 1e6\n1 recv 0 1e6\n", [][]string{{"send>1 t0 1000000B"}, {"recv<0 t0 1000000B"}}},
		{"peer size datatype, once the file is known to be legacy",
			"0 Isend 1 10\n0 send 1 10 0\n1 Irecv 0 10 0\n1 wait\n1 recv 0 10 0\n",
			[][]string{{"send>1 t0 10B nb req1", "send>1 t0 80B"}, {"recv<0 t0 80B nb req1", "wait req1", "recv<0 t0 80B"}}},
		{"a size like 1e6 cannot be a tag",
			"0 send 1 1e6 0\n1 recv 0 1e6 0\n", [][]string{{"send>1 t0 8000000B"}, {"recv<0 t0 8000000B"}}},
		{"argument-less wait takes the newest request",
			"0 Irecv 1 1\n0 Irecv 1 2\n0 wait\n0 test\n0 wait\n1 send 0 1\n1 send 0 2\n",
			[][]string{{"recv<1 t0 1B nb req1", "recv<1 t0 2B nb req2", "wait req2", "test req1", "wait req1"},
				{"send>0 t0 1B", "send>0 t0 2B"}}},
		{"camel-case collectives",
			"0 allReduce 10 5\n0 allToAll 2 2\n0 reduceScatter 4 0\n0 gatherV 1 1 0\n",
			[][]string{{"allreduce root-1 10/10", "compute 5f", "alltoall root-1 2/2", "reducescatter root-1 4/4", "gatherv root0 1/1"}}},
		{"S4U replay examples: actor names and size-less receives",
			"p0 send p1 1e10\np1 recv p0\n", [][]string{{"send>1 t0 10000000000B"}, {"recv<0 t0 0B"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := mustRead(t, tt.in)
			if got := describeRanks(tr); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("events:\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}

// TestWaitWithoutRequest: like SimGrid's replayer, a wait or test naming no
// pending request is skipped; the trace counts them.
func TestWaitWithoutRequest(t *testing.T) {
	tr := mustRead(t, "0 isend 1 0 8\n0 wait 0 1 9\n0 test 0 2 0\n0 wait 0 1 0\n1 recv 0 0 8\n2 init\n")
	want := [][]string{{"send>1 t0 8B nb req1", "wait req1"}, {"recv<0 t0 8B"}, {}}
	if got := describeRanks(tr); !reflect.DeepEqual(got, want) {
		t.Errorf("events:\n got %q\nwant %q", got, want)
	}
	if v, ok := tr.Attr("ti.ignored_waits"); !ok || v != "2" {
		t.Errorf("ti.ignored_waits = %q, %v; want 2", v, ok)
	}
}

// TestWildcardResolution checks the sender chosen for wildcard receives
// and that every message stays matched.
func TestWildcardResolution(t *testing.T) {
	tests := []struct {
		name      string
		in        string
		want      [][]string
		unmatched int
	}{
		{"earliest posted send wins",
			// Rank 1 sends only after hearing from rank 2, so rank 2's
			// message is the first to reach rank 0.
			"0 recv -555 5 1\n0 recv -555 5 1\n1 recv 2 9 1\n1 send 0 5 1\n2 send 0 5 1\n2 send 1 9 1\n",
			[][]string{{"recv<2 t5 1B any-src", "recv<1 t5 1B any-src"}, {"recv<2 t9 1B", "send>0 t5 1B"}, {"send>0 t5 1B", "send>1 t9 1B"}}, 0},
		{"master and workers: results come back in turn",
			"0 send 1 0 4\n0 send 2 0 4\n0 recv -555 1 4\n0 send 1 0 4\n0 recv -555 1 4\n0 send 2 0 4\n0 recv -555 1 4\n0 recv -555 1 4\n" +
				"1 recv 0 0 4\n1 send 0 1 4\n1 recv 0 0 4\n1 send 0 1 4\n" +
				"2 recv 0 0 4\n2 send 0 1 4\n2 recv 0 0 4\n2 send 0 1 4\n",
			[][]string{
				{"send>1 t0 4B", "send>2 t0 4B", "recv<1 t1 4B any-src", "send>1 t0 4B", "recv<2 t1 4B any-src",
					"send>2 t0 4B", "recv<1 t1 4B any-src", "recv<2 t1 4B any-src"},
				{"recv<0 t0 4B", "send>0 t1 4B", "recv<0 t0 4B", "send>0 t1 4B"},
				{"recv<0 t0 4B", "send>0 t1 4B", "recv<0 t0 4B", "send>0 t1 4B"},
			}, 0},
		{"a receive posted earlier gets the message first",
			"0 irecv -555 3 1\n0 irecv 1 3 2\n0 waitall\n1 send 0 3 1\n1 send 0 3 2\n",
			[][]string{{"recv<1 t3 1B any-src nb req1", "recv<1 t3 2B nb req2", "waitall"}, {"send>0 t3 1B", "send>0 t3 2B"}}, 0},
		{"tag filter and any tag",
			"0 recv -555 8 1\n0 recv -333 -444 1\n1 send 0 7 1\n2 send 0 8 1\n",
			[][]string{{"recv<2 t8 1B any-src", "recv<1 t7 1B any-src any-tag"}, {"send>0 t7 1B"}, {"send>0 t8 1B"}}, 0},
		{"collectives order the sends",
			// Rank 2 sends only after the barrier, rank 1 before it:
			// the first wildcard receive after the barrier still gets
			// rank 1's message, which arrived first.
			"0 barrier\n0 recv -555 0 1\n0 recv -555 0 1\n1 send 0 0 1\n1 barrier\n2 barrier\n2 send 0 0 1\n",
			[][]string{{"barrier root-1 0/0", "recv<1 t0 1B any-src", "recv<2 t0 1B any-src"}, {"send>0 t0 1B", "barrier root-1 0/0"},
				{"barrier root-1 0/0", "send>0 t0 1B"}}, 0},
		{"no sender: the rank itself, unmatched",
			"0 recv -555 0 1\n0 send 1 0 1\n1 recv 0 0 1\n",
			[][]string{{"recv<0 t0 1B any-src", "send>1 t0 1B"}, {"recv<0 t0 1B"}}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := mustRead(t, tt.in)
			if got := describeRanks(tr); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("events:\n got %q\nwant %q", got, tt.want)
			}
			if c := tr.CountMessages(); c.UnmatchedRecvs != tt.unmatched || c.UnmatchedSends != 0 {
				t.Errorf("messages %+v, want %d unmatched receives and no unmatched send", c, tt.unmatched)
			}
		})
	}
}

// TestWorldSize: the world is the highest rank seen (or comm_size, or
// the index length) plus one; ranks without lines have no events.
func TestWorldSize(t *testing.T) {
	for _, c := range []struct {
		in   string
		size int
	}{
		{"0 init\n", 1},
		{"3 compute 1\n", 4},
		{"0 comm_size 6\n1 init\n", 6},
		{"p2 init\n0 send 2 0 1\n", 3},
	} {
		tr := mustRead(t, c.in)
		if tr.Size() != c.size {
			t.Errorf("%q: %d ranks, want %d", c.in, tr.Size(), c.size)
		}
		if err := tr.Validate(); err != nil {
			t.Errorf("%q: %v", c.in, err)
		}
	}
}

// TestCommentsAndBlanks: # lines, blank lines, CRLF, tabs and trailing
// blanks are all fine.
func TestCommentsAndBlanks(t *testing.T) {
	in := "# a comment\r\n\r\n\t0 init\r\n   # indented comment\n0\tcompute\t1e3   \r\n\n1 bcast 20 1 0 \n0 bcast 20 1 0 \n"
	want := [][]string{{"compute 1000f", "bcast root1 0/160"}, {"bcast root1 160/0"}}
	if got := describeRanks(mustRead(t, in)); !reflect.DeepEqual(got, want) {
		t.Errorf("events:\n got %q\nwant %q", got, want)
	}
}
