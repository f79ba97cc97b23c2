package replay

import (
	"context"
	"testing"

	"github.com/tracesim/tracesim/tracefmt"
)

// BenchmarkBigWorldFewEvents replays one message in a world of 1,048,576
// ranks, the case of a small file that declares a huge world: what it
// costs is per rank (the ranks' replay state, their start events, their
// results), and allocs/op and B/op show it. About 0.8 GB in all at the
// time of writing (550 B per rank in New, 200 B in Run and Results).
//
//	go test -run '^$' -bench BigWorldFewEvents -benchtime 1x -benchmem ./engine/replay
func BenchmarkBigWorldFewEvents(b *testing.B) {
	const P = 1 << 20
	bld := tracefmt.NewBuilder(P, false, tracefmt.Second)
	if _, err := bld.Add(0, tracefmt.Send(0, 1, 0, 0, 8)); err != nil {
		b.Fatal(err)
	}
	if _, err := bld.Add(1, tracefmt.Recv(0, 0, 0, 0, 8)); err != nil {
		b.Fatal(err)
	}
	tr, err := bld.Finish()
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		s, err := New(tr, Default(), Options{})
		if err != nil {
			b.Fatal(err)
		}
		if err := s.Run(context.Background()); err != nil {
			b.Fatal(err)
		}
		if res := s.Results(); len(res.Ranks) != P || res.Makespan <= 0 {
			b.Fatalf("%d ranks, makespan %v", len(res.Ranks), res.Makespan)
		}
	}
}
