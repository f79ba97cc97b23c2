package dumpi

import (
	"fmt"
	"slices"
	"testing"

	"github.com/tracesim/tracesim/tracefmt"
)

// TestCreateCommunicators: MPI_Comm_create's communicator has the members
// of the group the ranks built (MPI_Comm_group of MPI_COMM_WORLD, then
// MPI_Group_incl/excl/range_incl/range_excl/union/intersection/
// difference), in the group's order, so that a broadcast on it from local
// root 0 and a message from local rank 0 to local rank 1 get world ranks,
// and an alltoall on it moves one block per member.
func TestCreateCommunicators(t *testing.T) {
	const (
		commGroup, union, intersection, difference = 72, 73, 74, 75
		incl, excl, rangeIncl, rangeExcl           = 76, 77, 78, 79
		create, bcast, alltoall, send, recv        = 85, 53, 60, 0, 1
		world, commNull                            = commWorld, 1
		all, made                                  = 3, 9 // group handles: the world's, the one created from
	)
	tests := []struct {
		name  string
		build func(w *binWriter) // builds group 9 from group 3 (the world's)
		want  []int32            // world ranks of the new communicator, in order
	}{
		{"incl, reordered", func(w *binWriter) { w.call(incl, 'h', all, 'i', 3, 'a', []int{3, 1, 2}, 'h', made) }, []int32{3, 1, 2}},
		{"excl", func(w *binWriter) { w.call(excl, 'h', all, 'i', 2, 'a', []int{0, 2}, 'h', made) }, []int32{1, 3}},
		{"range incl", func(w *binWriter) {
			w.call(rangeIncl, 'h', all, 'i', 1, 'A', [][]int{{0, 3, 2}}, 'h', made)
		}, []int32{0, 2}},
		{"range excl, negative stride", func(w *binWriter) {
			w.call(rangeExcl, 'h', all, 'i', 1, 'A', [][]int{{3, 1, -2}}, 'h', made)
		}, []int32{0, 2}},
		{"union", func(w *binWriter) {
			w.call(incl, 'h', all, 'i', 1, 'a', []int{2}, 'h', 5)
			w.call(incl, 'h', all, 'i', 2, 'a', []int{0, 2}, 'h', 6)
			w.call(union, 'h', 5, 'h', 6, 'h', made)
		}, []int32{2, 0}},
		{"intersection", func(w *binWriter) {
			w.call(incl, 'h', all, 'i', 3, 'a', []int{3, 2, 1}, 'h', 5)
			w.call(incl, 'h', all, 'i', 2, 'a', []int{1, 2}, 'h', 6)
			w.call(intersection, 'h', 5, 'h', 6, 'h', made)
		}, []int32{2, 1}},
		{"difference", func(w *binWriter) {
			w.call(incl, 'h', all, 'i', 1, 'a', []int{1}, 'h', 5)
			w.call(difference, 'h', all, 'h', 5, 'h', made)
		}, []int32{0, 2, 3}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := memFiles{"c.meta": []byte("numprocs=4\nfileprefix=c\nversion=1\n")}
			for r := 0; r < 4; r++ {
				w := newBin().call(commGroup, 'h', world, 'h', all)
				tc.build(w)
				local := slices.Index(tc.want, int32(r))
				newComm := 4
				if local < 0 {
					newComm = commNull
				}
				w.call(create, 'h', world, 'h', made, 'h', newComm)
				if local >= 0 {
					w.call(bcast, 'i', 2, 'h', 9, 'i', 0, 'h', 4)
					w.call(alltoall, 'i', 1, 'h', 9, 'i', 1, 'h', 9, 'h', 4)
				}
				switch local {
				case 0:
					w.call(send, 'i', 1, 'h', 9, 'i', 1, 'i', 5, 'h', 4)
				case 1:
					w.call(recv, 'i', 1, 'h', 9, 'i', 0, 'i', 5, 'h', 4)
				}
				m[fmt.Sprintf("c-%04d.bin", r)] = w.done()
			}
			tr, err := m.read("c.meta")
			if err != nil {
				t.Fatal(err)
			}
			if v, ok := tr.Attr("dumpi.unmapped_comm_events"); ok {
				t.Fatalf("%s events left on unresolved communicators", v)
			}
			root, src, dst := tc.want[0], tc.want[0], tc.want[1]
			var got []string
			for r := range tr.Ranks {
				for _, e := range tr.Ranks[r].Events {
					switch e.Kind {
					case tracefmt.KindCollective:
						if ms := tr.Comms[e.Comm].Ranks; !slices.Equal(ms, tc.want) {
							t.Errorf("rank %d: %s on a communicator of %v, want %v", r, e.Op(), ms, tc.want)
						}
						got = append(got, fmt.Sprintf("%d %s root %d %d/%d", r, e.Op(), e.Root(), e.Size, e.RecvBytes()))
					case tracefmt.KindSend, tracefmt.KindRecv:
						got = append(got, fmt.Sprintf("%d %s peer %d", r, e.Kind, e.Peer))
					}
				}
			}
			var want []string
			for r := range int32(4) {
				if slices.Contains(tc.want, r) {
					if r == root {
						want = append(want, fmt.Sprintf("%d bcast root %d 8/0", r, root))
					} else {
						want = append(want, fmt.Sprintf("%d bcast root %d 0/8", r, root))
					}
					n := 4 * len(tc.want)
					want = append(want, fmt.Sprintf("%d alltoall root -1 %d/%d", r, n, n))
				}
				if r == src {
					want = append(want, fmt.Sprintf("%d send peer %d", r, dst))
				}
				if r == dst {
					want = append(want, fmt.Sprintf("%d recv peer %d", r, src))
				}
			}
			if !slices.Equal(got, want) {
				t.Errorf("events %q\nwant   %q", got, want)
			}
			if s := tracefmt.Summarize(tr); s.Messages.Matched != 1 {
				t.Errorf("%d messages matched, want 1", s.Messages.Matched)
			}
		})
	}
}

// TestCreateUnknownGroup: a Comm_create whose group the trace never
// built leaves its communicator unresolved, and the events on it are
// counted, not given wrong world ranks.
func TestCreateUnknownGroup(t *testing.T) {
	const create, barrier = 85, 52
	m := memFiles{"u.meta": []byte("numprocs=2\nfileprefix=u\nversion=1\n")}
	for r := 0; r < 2; r++ {
		m[fmt.Sprintf("u-%04d.bin", r)] = newBin().call(create, 'h', commWorld, 'h', 7, 'h', 4).call(barrier, 'h', 4).done()
	}
	tr, err := m.read("u.meta")
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := tr.Attr("dumpi.unmapped_comm_events"); v != "2" {
		t.Errorf("unmapped events %q, want 2 (each rank's barrier)", v)
	}
}
