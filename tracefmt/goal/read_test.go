package goal

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracesim/tracesim/internal/testshared"
	"github.com/tracesim/tracesim/tracefmt"
)

// sample is LogGOPSim's binary tree broadcast over 32 ranks.
var sample = filepath.Join(testshared.Dir(), "goal", "binary_tree_32.goal")

// describe lists each rank's events: sends and receives with peer, tag
// and size, waits with their request, compute amounts, states.
func describe(tr *tracefmt.Trace) string {
	var b strings.Builder
	for r := range tr.Ranks {
		fmt.Fprintf(&b, "r%d:", r)
		for _, e := range tr.Ranks[r].Events {
			switch e.Kind {
			case tracefmt.KindEnter, tracefmt.KindLeave:
				continue
			case tracefmt.KindSend:
				fmt.Fprintf(&b, " isend(%d)>%d:%d:%d", e.Request(), e.Peer, e.Tag, e.Size)
			case tracefmt.KindRecv:
				fmt.Fprintf(&b, " irecv(%d)<%d:%d:%d", e.Request(), e.Peer, e.Tag, e.Size)
				if e.Flags.Has(tracefmt.FlagAnySource) {
					b.WriteString("*")
				}
			case tracefmt.KindWait:
				if e.Flags.Has(tracefmt.FlagAll) {
					b.WriteString(" waitall")
				} else {
					fmt.Fprintf(&b, " wait(%d)", e.Request())
				}
			case tracefmt.KindCompute:
				fmt.Fprintf(&b, " calc %g", e.Amount())
			}
		}
		b.WriteString("\n")
	}
	return b.String()
}

func TestBinaryTreeSample(t *testing.T) {
	f, err := os.Open(sample)
	if os.IsNotExist(err) {
		t.Skipf("sample %s absent", sample)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tr, err := Read("binary_tree_32.goal", f)
	if err != nil {
		t.Fatal(err)
	}
	s := tracefmt.Summarize(tr)
	if s.Ranks != 32 || s.Events != 327 || s.Messages.Matched != 31 || s.Messages.UnmatchedSends+s.Messages.UnmatchedRecvs != 0 || s.Collectives != 0 || tr.Timed {
		t.Errorf("%d ranks, %d events, %+v, %d collectives, timed %v; want 32, 327, 31 matched, 0, untimed",
			s.Ranks, s.Events, s.Messages, s.Collectives, tr.Timed)
	}
	lines := strings.Split(describe(tr), "\n")
	want := []string{
		"r0: isend(1)>1:0:1 isend(2)>2:0:1 isend(3)>4:0:1 isend(4)>8:0:1 isend(5)>16:0:1 waitall",
		"r1: irecv(1)<0:0:1 wait(1) isend(2)>3:0:1 isend(3)>5:0:1 isend(4)>9:0:1 isend(5)>17:0:1 waitall",
	}
	for i, w := range want {
		if lines[i] != w {
			t.Errorf("rank %d:\n%s\nwant\n%s", i, lines[i], w)
		}
	}
	if lines[31] != "r31: irecv(1)<15:0:1 waitall" {
		t.Errorf("rank 31: %s", lines[31])
	}
}

// TestOrder: the dependency graph becomes an order that respects it,
// earliest line first among the ready operations; requires waits for a
// send or receive, irequires only orders.
func TestOrder(t *testing.T) {
	tests := []struct{ name, goal, want string }{
		{"file order without dependencies", "num_ranks 2\nrank 0 {\ncalc 5\nsend 8b to 1 tag 3\n}\nrank 1 {\nrecv 8b from 0 tag 3\ncalc 7 cpu 0\n}\n",
			"r0: calc 5 isend(1)>1:3:8 waitall\nr1: irecv(1)<0:3:8 calc 7 waitall\n"},
		{"requires reorders and waits", "num_ranks 2\nrank 0 {\nl1: calc 5\nl2: send 8b to 1\nl3: recv 4 b from 1 tag 2 cpu 0 nic 1\nl1 requires l3\n}\nrank 1 {\nl1: send 4b to 0 tag 2\nl2: recv 8b from 0\nl2 irequires l1\n}\n",
			"r0: isend(1)>1:0:8 irecv(2)<1:2:4 wait(2) calc 5 waitall\nr1: isend(1)>0:2:4 irecv(2)<0:0:8 waitall\n"},
		{"chain", "num_ranks 1\nrank 0 {\na: calc 1\nb: calc 2\nc: calc 3\na requires c\nc requires b\n}\n",
			"r0: calc 2 calc 3 calc 1\n"},
		{"tight punctuation", "num_ranks 2\nrank 0{\nl1:send 2b to 1\n}\nrank 1 {\nl1 :recv 2b from 0\n}\n",
			"r0: isend(1)>1:0:2 waitall\nr1: irecv(1)<0:0:2 waitall\n"},
		{"comments", "// header\nnum_ranks 2 /* two */\nrank 1 {\n/* multi\nline */ l1: recv 1b from -1 tag 4 // any source\n}\nrank 0 {\nsend 1b to 1 tag 4\n}\n",
			"r0: isend(1)>1:4:1 waitall\nr1: irecv(1)<0:4:1* waitall\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tr, err := Read("t.goal", strings.NewReader(tc.goal))
			if err != nil {
				t.Fatal(err)
			}
			if got := describe(tr); got != tc.want {
				t.Errorf("got\n%swant\n%s", got, tc.want)
			}
			if s := tracefmt.Summarize(tr); s.Messages.Matched == 0 && strings.Contains(tc.want, "isend") {
				t.Errorf("no message matched: %+v", s.Messages)
			}
		})
	}
}

// TestErrors: errors name the file, the line and what was expected.
func TestErrors(t *testing.T) {
	tests := []struct{ name, goal, want string }{
		{"empty", "", "t.goal:1: empty file: expected num_ranks N"},
		{"blank", "\n  \n// x\n", "t.goal:3: expected num_ranks N, got the end of the file"},
		{"no num_ranks", "rank 0 {\n", "t.goal:1: expected num_ranks N before the first rank"},
		{"num_ranks", "num_ranks x\n", `t.goal:1: expected num_ranks N (1..16777216), got "num_ranks x"`},
		{"sparse world", "// one rank of 70000 has work\nnum_ranks 70000\nrank 0 {\nl1: calc 5\n}\n",
			"t.goal:2: num_ranks 70000: the world has 70000 ranks but only 1 of them have events: " +
				"its 69999 empty ranks would need about 136.7 MiB of memory to check or simulate, and at most 65536 may be empty"},
		{"rank range", "num_ranks 2\nrank 2 {\n", "t.goal:2: rank 2 outside 0..1 (num_ranks 2)"},
		{"brace", "num_ranks 2\nrank 1\n", `t.goal:2: expected rank R {, got "rank 1"`},
		{"unclosed", "num_ranks 2\nrank 1 {\ncalc 1\n", "t.goal:3: expected } closing rank 1, got the end of the file"},
		{"twice", "num_ranks 2\nrank 1 {\n}\nrank 1 {\n", "t.goal:4: rank 1 scheduled twice"},
		{"size", "num_ranks 2\nrank 0 {\nsend 8 to 1\n}\n", `t.goal:3: expected send SIZEb to RANK [tag T] [cpu N] [nic N], got "send 8 to 1"`},
		{"peer", "num_ranks 2\nrank 0 {\nsend 8b to 2\n}\n", `t.goal:3: expected send SIZEb to RANK [tag T] [cpu N] [nic N] (0..1), got "send 8b to 2"`},
		{"from", "num_ranks 2\nrank 0 {\nrecv 8b to 1\n}\n", `t.goal:3: expected recv SIZEb from RANK [tag T] [cpu N] [nic N], got "recv 8b to 1"`},
		{"calc", "num_ranks 1\nrank 0 {\ncalc -3\n}\n", `t.goal:3: expected calc AMOUNT [cpu N], got "calc -3"`},
		{"unknown", "num_ranks 1\nrank 0 {\nsleep 3\n}\n", `t.goal:3: expected send, recv, calc or LABEL requires|irequires LABEL, got "sleep 3"`},
		{"undefined label", "num_ranks 1\nrank 0 {\nl1: calc 1\nl1 requires l2\n}\n", "t.goal:4: requires names label l2, which no operation above defines"},
		{"duplicate label", "num_ranks 1\nrank 0 {\nl1: calc 1\nl1: calc 2\n}\n", "t.goal:4: label l1 defined twice in the rank"},
		{"cycle", "num_ranks 1\nrank 0 {\na: calc 1\nb: calc 2\na requires b\nb irequires a\n}\n", "t.goal:3: rank 0: the dependencies of label a form a cycle (or depend on one)"},
		{"outside rank", "num_ranks 1\ncalc 1\n", `t.goal:2: expected num_ranks, rank R { or a comment, got "calc 1"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Read("t.goal", strings.NewReader(tc.goal))
			if err == nil || err.Error() != tc.want {
				t.Errorf("error %v\nwant  %s", err, tc.want)
			}
		})
	}
}
