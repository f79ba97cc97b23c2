package tracefmt

import (
	"errors"
	"io"
	"reflect"
	"testing"
)

// TestTraceSource reads a trace back through its Source in chunks and
// expects every rank's events in order, then io.EOF.
func TestTraceSource(t *testing.T) {
	b := NewBuilder(2, false, Second)
	st := b.State("MPI_Send")
	for i := range 5 {
		b.Add(0, Enter(0, st))
		b.Add(0, Send(0, 1, int32(i), 0, 8))
		b.Add(0, Leave(0, st))
		b.Add(1, Recv(0, 0, int32(i), 0, 8))
	}
	tr, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	for _, chunk := range []int{1, 4, 100} {
		src := tr.Source()
		h := src.Header()
		if h.Size() != 2 || h.NumEvents() != 0 || !reflect.DeepEqual(h.States, tr.States) {
			t.Fatalf("header: %d ranks, %d events, states %v", h.Size(), h.NumEvents(), h.States)
		}
		if got := src.(InMemory).Trace(); got != tr {
			t.Fatalf("InMemory.Trace() = %p, want the trace %p", got, tr)
		}
		for r := range 2 {
			var got []Event
			buf := make([]Event, chunk)
			for {
				n, err := src.ReadRank(r, buf)
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil || n == 0 {
					t.Fatalf("ReadRank(%d) = %d, %v", r, n, err)
				}
				got = append(got, buf[:n]...)
			}
			if !reflect.DeepEqual(got, tr.Ranks[r].Events) {
				t.Errorf("chunk %d: rank %d streams %v, want %v", chunk, r, got, tr.Ranks[r].Events)
			}
		}
		if err := src.Close(); err != nil {
			t.Fatal(err)
		}
	}
}
