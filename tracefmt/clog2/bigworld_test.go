package clog2

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/tracefmt/gen"
)

// Worlds of 65,536 ranks and more have communicator ids beyond 65,535 in
// MPE's table (one MPI_COMM_SELF per process besides the world): a
// generated trace written as CLOG2 reads back with the same counts, and
// writing what was read gives the same bytes.
func TestBigWorldRoundTrip(t *testing.T) {
	if testing.Short() {
		t.Skip("writes and reads CLOG2 files of 100,000 ranks")
	}
	for _, ranks := range []int{65536, 100000} {
		t.Run(fmt.Sprint(ranks), func(t *testing.T) {
			tr, err := gen.Generate(gen.Options{Pattern: "ring", Ranks: ranks, Iters: 1, Compute: -1})
			if err != nil {
				t.Fatal(err)
			}
			if c := tr.CountMessages(); c.Matched != ranks {
				t.Fatalf("generated ring of %d ranks has %d messages", ranks, c.Matched)
			}
			file := writeBytes(t, tr)
			back := readBytes(t, file)
			if got, want := summary(back), summary(tr); got != want {
				t.Errorf("read back %s, wrote %s", got, want)
			}
			self, ok := back.Attr(attrCommSelves)
			if n := bytes.Count([]byte(self), []byte("\n")) + 1; !ok || n != ranks {
				t.Errorf("%d MPI_COMM_SELF entries kept aside, want %d", n, ranks)
			}
			if again := writeBytes(t, back); !bytes.Equal(again, file) {
				t.Errorf("written again: %d bytes differ from the %d first written", len(again), len(file))
			}
		})
	}
}

// summary gives what a round trip must keep: ranks, events of each kind
// that CLOG2 stores, and matched messages.
func summary(t *tracefmt.Trace) string {
	kinds := map[tracefmt.Kind]int{}
	for r := range t.Ranks {
		for i := range t.Ranks[r].Events {
			if e := &t.Ranks[r].Events[i]; keep(t, e) {
				kinds[e.Kind]++
			}
		}
	}
	c := t.CountMessages()
	return fmt.Sprintf("%d ranks, %d sends, %d receives, %d state enters, %d matched messages",
		t.Size(), kinds[tracefmt.KindSend], kinds[tracefmt.KindRecv], kinds[tracefmt.KindEnter], c.Matched)
}
