package dumpi

import (
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/tracesim/tracesim/tracefmt"
)

// binWriter writes a DUMPI rank file for tests: records with a thread and
// wall times, no statuses, an index without footer or tables.
type binWriter struct {
	b []byte
	t uint32
}

func newBin() *binWriter {
	w := &binWriter{b: append([]byte(nil), magic...)}
	w.b = binary.BigEndian.AppendUint32(w.b, 0)   // CPU time offset
	w.b = binary.BigEndian.AppendUint32(w.b, 100) // wall time offset
	return w
}

// call appends a record of label whose fields are given as (kind, value)
// pairs: 'i' int32, 'h' int16, 'a' int array ([]int), 'A' array of int
// arrays ([][]int).
func (w *binWriter) call(label uint16, fields ...any) *binWriter {
	w.b = binary.BigEndian.AppendUint16(w.b, label)
	w.b = append(w.b, maskWall|maskThread)
	w.b = binary.BigEndian.AppendUint16(w.b, 0)
	for _, ns := range []uint32{w.t, w.t + 5} {
		w.b = binary.BigEndian.AppendUint16(w.b, 0)
		w.b = binary.BigEndian.AppendUint32(w.b, ns)
	}
	w.t += 10
	for i := 0; i < len(fields); i += 2 {
		switch fields[i].(rune) {
		case 'i':
			w.b = binary.BigEndian.AppendUint32(w.b, uint32(int32(fields[i+1].(int))))
		case 'h':
			w.b = binary.BigEndian.AppendUint16(w.b, uint16(fields[i+1].(int)))
		case 'a':
			w.ints(fields[i+1].([]int))
		case 'A':
			arrs := fields[i+1].([][]int)
			w.b = binary.BigEndian.AppendUint32(w.b, uint32(len(arrs)))
			for _, a := range arrs {
				w.ints(a)
			}
		}
	}
	return w
}

// ints appends an int array: its count, then its elements.
func (w *binWriter) ints(a []int) {
	w.b = binary.BigEndian.AppendUint32(w.b, uint32(len(a)))
	for _, v := range a {
		w.b = binary.BigEndian.AppendUint32(w.b, uint32(int32(v)))
	}
}

// done ends the stream and appends the index.
func (w *binWriter) done() []byte {
	w.b = binary.BigEndian.AppendUint16(w.b, labelEndOfStream)
	w.b = append(w.b, magic...)
	for _, off := range []uint64{0, 0, 0, 0, 8, 0, 0} {
		w.b = binary.BigEndian.AppendUint64(w.b, off)
	}
	return w.b
}

// TestSplitCommunicators: MPI_Comm_split's colours and keys give the new
// communicators' members (keys reversing the order), and the broadcast,
// send and receive on them get world roots and peers.
func TestSplitCommunicators(t *testing.T) {
	const split, bcast, send, recv = 86, 53, 0, 1
	m := memFiles{"s.meta": []byte("numprocs=4\nfileprefix=s\nversion=1\n")}
	for r := 0; r < 4; r++ {
		w := newBin().
			call(split, 'h', commWorld, 'i', r%2, 'i', -r, 'h', 4).
			call(bcast, 'i', 2, 'h', 9, 'i', 0, 'h', 4)
		if r >= 2 { // local rank 0 of its communicator
			w.call(send, 'i', 1, 'h', 9, 'i', 1, 'i', 5, 'h', 4)
		} else {
			w.call(recv, 'i', 1, 'h', 9, 'i', 0, 'i', 5, 'h', 4)
		}
		m[fmt.Sprintf("s-%04d.bin", r)] = w.done()
	}
	tr, err := m.read("s.meta")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"MPI_Comm_split, MPI_Bcast, bcast 0/8, MPI_Recv, recv 2:5:4 req 0",
		"MPI_Comm_split, MPI_Bcast, bcast 0/8, MPI_Recv, recv 3:5:4 req 0",
		"MPI_Comm_split, MPI_Bcast, bcast 8/0, MPI_Send, send 0:5:4 req 0",
		"MPI_Comm_split, MPI_Bcast, bcast 8/0, MPI_Send, send 1:5:4 req 0",
	}
	for r, w := range want {
		if got := describe(tr, r); got != w {
			t.Errorf("rank %d:\n%s\nwant\n%s", r, got, w)
		}
	}
	var roots []string
	for r := range tr.Ranks {
		for _, e := range tr.Ranks[r].Events {
			if e.Kind == tracefmt.KindCollective {
				roots = append(roots, fmt.Sprintf("%d:%v root %d", r, tr.Comms[e.Comm].Ranks, e.Root()))
			}
		}
	}
	if got := fmt.Sprint(roots); got != "[0:[2 0] root 2 1:[3 1] root 3 2:[2 0] root 2 3:[3 1] root 3]" {
		t.Errorf("collectives %s", got)
	}
	if s := tracefmt.Summarize(tr); s.Messages.Matched != 2 {
		t.Errorf("%+v, want 2 matched", s.Messages)
	}
	if _, ok := tr.Attr("dumpi.unmapped_comm_events"); ok {
		t.Errorf("events left unmapped: %v", tr.Attrs)
	}
}
