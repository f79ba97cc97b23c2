package simgridti

import (
	"errors"
	"strings"
	"testing"
)

// TestReadErrors: bad input gives an error naming line:column and what was
// expected, never a panic.
func TestReadErrors(t *testing.T) {
	tests := []struct {
		in      string
		pos     string // "line:col"
		message string
	}{
		{"", "1:1", "no actions found"},
		{"# only a comment\n\n", "3:1", "no actions found"},
		{"x init\n", "1:1", `expected a rank number or an actor name like p0, got "x"`},
		{"-1 init\n", "1:1", "expected a rank number"},
		{"2000000 init\n", "1:1", "rank 2000000 is beyond the 1048576 ranks"},
		{"0 init\n0 fly 1\n", "2:3", `unknown action "fly" (known: init, finalize`},
		{"0 init 1 2\n", "1:10", "init takes 0 to 1 arguments"},
		{"0 finalize now\n", "1:12", "finalize takes no arguments, got 1"},
		{"0 compute\n", "1:3", "compute takes 1 argument (flops), got 0"},
		{"0 compute 1e6 2\n", "1:15", "compute takes 1 argument (flops), got 2"},
		{"0 compute lots\n", "1:11", `expected flop count (a number), got "lots"`},
		{"0 compute NaN\n", "1:11", "expected flop count (a number)"},
		{"0 compute -5\n", "1:11", "negative flop count -5"},
		{"0 sleep -1\n", "1:9", "negative duration -1"},
		{"0 location a.c\n", "1:3", "location takes 2 arguments (file line), got 1"},
		{"0 location a.c x\n", "1:16", `expected a line number (an integer), got "x"`},
		{"0 comm_size 0\n", "1:13", "comm_size 0 outside 1 to"},
		{"0 send 1\n", "1:3", "send takes 3 to 4 arguments (dst tag count [datatype], or legacy dst size [datatype]), got 1"},
		{"0 send 1 0 5 6 7\n", "1:16", "send takes 3 to 4 arguments"},
		{"0 send 1 0 abc\n", "1:12", `expected count (a number), got "abc"`},
		{"0 send 1 0 -5\n", "1:12", "negative count -5"},
		{"0 send 1 0 1e300\n", "1:12", "count 1e300 too large"},
		{"0 send 1 0 5 99\n", "1:14", "unknown datatype id 99 (SMPI's predefined datatypes are 0 to 59)"},
		{"0 send 1 0 5 x\n", "1:14", `expected a datatype id (an integer), got "x"`},
		{"0 send 1 x 5 0\n", "1:10", `expected a tag (an integer), got "x"`},
		{"0 send -3 0 5\n", "1:8", "destination -3 is outside the world (ranks start at 0)"},
		{"0 send -555 0 5\n", "1:8", "destination -555 is outside the world"},
		{"0 send 1 -444 5\n", "1:10", "a send cannot use MPI_ANY_TAG (-444)"},
		{"0 send q1 0 5\n", "1:8", `expected destination (a rank number or an actor name like p1), got "q1"`},
		{"0 init\n0 send 5 0 1\n", "2:8", "rank 5 is outside the world of 1 ranks (ranks seen: 0 to 0)"},
		{"0 recv 1 0 5 0 0\n", "1:16", "recv takes 3 to 4 arguments"},
		{"0 recv -7 0 5\n", "1:8", "source -7 is outside the world"},
		{"0 wait 1 2\n", "1:3", "wait takes 3 arguments (src dst tag), got 2"},
		{"0 wait\n", "1:3", "wait without arguments, but rank 0 has no pending isend or irecv"},
		{"0 test 1 x 0\n", "1:10", `expected destination (a rank number or an actor name like p1), got "x"`},
		{"0 waitall 1 2\n", "1:13", "waitall takes 0 to 1 arguments"},
		{"0 sendRecv 1 1 1\n", "1:3", "sendRecv takes 4 to 6 arguments"},
		{"0 barrier 1\n", "1:11", "barrier takes no arguments, got 1"},
		{"0 bcast\n", "1:3", "bcast takes 1 to 3 arguments (count [root [datatype]]), got 0"},
		{"0 bcast 1 -666\n", "1:11", "root cannot be MPI_PROC_NULL"},
		{"0 bcast 10 7\n1 bcast 10 7\n", "1:12", "rank 7 is outside the world of 2 ranks"},
		{"0 reduce 10\n", "1:3", "reduce takes 2 to 4 arguments"},
		{"0 allreduce 10 x\n", "1:16", `expected flop count (a number), got "x"`},
		{"0 init\n1 init\n0 alltoallv 1 2 3\n", "3:3", "alltoallv takes 6 to 8 arguments (sendsize 2×sendcount recvsize 2×recvcount"},
		{"0 init\n1 init\n0 gatherv 1 2\n", "3:3", "gatherv takes 3 to 6 arguments"},
		{"0 init\n1 init\n0 allgatherv 1\n", "3:3", "allgatherv takes 3 to 7 arguments"},
		{"0 init\n1 init\n0 scatterv 1 2 3 9 0\n", "3:18", "root 9 is outside the world of 2 ranks"},
		{"0 init\n1 init\n0 reducescatter 1 2\n", "3:3", "reducescatter takes 3 to 4 arguments"},
		{"0 init\n1 init\n0 reducescatter 1 -2 0\n", "3:19", "negative count -2"},
		{"0 init\n1 init\n0 gather 1 1 0 0 0 0\n", "3:20", "gather takes 2 to 5 arguments"},
		{"0 alltoallv 1 2 3\n1 init\n", "1:3", "alltoallv takes 6 to 8 arguments"}, // checked once the world is known
		{"0 gatherv 1 1 1 5\n1 init\n", "1:17", "root 5 is outside the world of 2 ranks"},
		{"7\n", "1:1", `expected a rank and an action (such as "7 compute 1e6"), got a single field`},
		{"0 init\n0\n", "2:1", `expected a rank and an action (such as "0 compute 1e6"), got a single field`},
	}
	for _, tt := range tests {
		t.Run(strings.ReplaceAll(tt.in, "\n", "|"), func(t *testing.T) {
			_, err := readString(t, tt.in)
			if err == nil {
				t.Fatalf("no error, want %s: %s", tt.pos, tt.message)
			}
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %q is not a *ParseError", err)
			}
			if !strings.HasPrefix(err.Error(), tt.pos+": ") || !strings.Contains(err.Error(), tt.message) {
				t.Errorf("error %q, want %s: …%s…", err, tt.pos, tt.message)
			}
		})
	}
}

// TestReadErrorNamesFile: ReadNamed and ReadFile put the file name first.
func TestReadErrorNamesFile(t *testing.T) {
	_, err := ReadNamed("run/trace.txt", strings.NewReader("0 init\n1 init\n0 send 1\n"), nil)
	if err == nil || !strings.HasPrefix(err.Error(), "run/trace.txt:3:3: send takes") {
		t.Errorf("error %v, want run/trace.txt:3:3: send takes …", err)
	}
	_, err = ReadFile("testdata/does-not-exist.txt")
	if err == nil || !strings.Contains(err.Error(), "does-not-exist.txt") {
		t.Errorf("error %v, want one naming the missing file", err)
	}
}
