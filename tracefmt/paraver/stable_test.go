package paraver

import (
	"bytes"
	"testing"

	"github.com/tracesim/tracesim/tracefmt"
)

// TestWrittenBackStable covers the records FuzzRead found read back
// differently once written: what the first read gives (each rank's
// events, roots, which send each receive pairs with) is what reading the
// written trace gives, and writing that again gives the same bytes.
func TestWrittenBackStable(t *testing.T) {
	const head = "#Paraver (01/02/2024 at 10:00):1000_ns:1(3):1:3(1:1,1:1,1:1),1\nc:1:1:3:1:2:3\n"
	tests := []struct {
		name, body string
		want       string // describe of the first read
		pairs      [][2]tracefmt.EventRef
	}{{
		// Rank 1's clock goes back: its MPI_Send at 9 follows its
		// MPI_Recv at 20..30. Sorting all records by time put the send
		// first, and the calls nested differently when read back.
		name: "clock goes back",
		body: "2:1:1:1:1:20:50000001:2\n2:1:1:1:1:30:50000001:0\n2:1:1:1:1:9:50000001:1\n2:1:1:1:1:40:50000001:0\n",
		want: "r0: enter MPI_Recv@20 leave MPI_Recv@30 enter MPI_Send@9 leave MPI_Send@40\nr1:\nr2:\n",
	}, {
		// Two messages from rank 1 to rank 2 with tag 5 arrive out of
		// their send order: each pairs as its record says (by size),
		// not first with first.
		name: "receives out of send order",
		body: "3:1:1:1:1:10:10:2:1:2:1:10:90:4:5\n3:1:1:1:1:20:20:2:1:2:1:20:50:24:5\n",
		want: "r0: send 1:5:4@10 send 1:5:24@20\nr1: recv 0:5:24@50 recv 0:5:4@90\nr2:\n",
		pairs: [][2]tracefmt.EventRef{
			{{Rank: 0, Index: 0}, {Rank: 1, Index: 1}},
			{{Rank: 0, Index: 1}, {Rank: 1, Index: 0}},
		},
	}, {
		// The only flag is on an allreduce, which has no root: the
		// broadcast's root is inferred (rank 2 only sends), as when
		// no record flags anything.
		name: "flag on an unrooted operation",
		body: "4:1:1:1:1:10:1:8:8:11:1\n4:2:1:2:1:10:1:8:8:11:0\n4:3:1:3:1:10:1:8:8:11:0\n" +
			"4:1:1:1:1:20:1:0:8:1:0\n4:2:1:2:1:20:1:8:0:1:0\n4:3:1:3:1:20:1:0:8:1:0\n",
		want: "r0: coll allreduce root -1 8/8@10 coll bcast root 1 0/8@20\n" +
			"r1: coll allreduce root -1 8/8@10 coll bcast root 1 8/0@20\n" +
			"r2: coll allreduce root -1 8/8@10 coll bcast root 1 0/8@20\n",
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := files{"out.prv": []byte(head + tc.body), "out.pcf": []byte(testPCF)}
			tr := in.read(t)
			if got := describe(tr); got != tc.want {
				t.Fatalf("read\n%s\nwant\n%s", got, tc.want)
			}
			for _, p := range tc.pairs {
				if s, r := tr.Event(p[0]), tr.Event(p[1]); s.Match != p[1].Index || r.Match != p[0].Index {
					t.Errorf("send %v pairs with %d, receive %v with %d; want each other", p[0], s.Match, p[1], r.Match)
				}
			}
			w1 := write(t, tr)
			tr2 := w1.read(t)
			if got, want := describe(tr2), tc.want; got != want {
				t.Fatalf("written and read back\n%s\nwant\n%s\nwritten:\n%s", got, want, w1["out.prv"])
			}
			for _, p := range tc.pairs {
				if tr2.Event(p[0]).Match != p[1].Index {
					t.Errorf("read back: send %v pairs with %d, want %d", p[0], tr2.Event(p[0]).Match, p[1].Index)
				}
			}
			if w2 := write(t, tr2); !bytes.Equal(w1["out.prv"], w2["out.prv"]) {
				t.Fatalf("written again differs:\n%s\nthen\n%s", w1["out.prv"], w2["out.prv"])
			}
		})
	}
}
