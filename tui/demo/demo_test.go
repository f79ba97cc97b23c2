package demo

import "testing"

func TestDemo(t *testing.T) {
	if len(source) > 1<<20 {
		t.Errorf("demo trace is %d bytes; keep it under 1 MiB", len(source))
	}
	a, err := Trace()
	if err != nil {
		t.Fatal(err)
	}
	if a.Size() != 16 || a.NumEvents() == 0 || !a.Timed {
		t.Errorf("demo: %d ranks, %d events, timed %v", a.Size(), a.NumEvents(), a.Timed)
	}
	if c := a.CountMessages(); c.Matched == 0 || c.UnmatchedSends+c.UnmatchedRecvs != 0 {
		t.Errorf("demo messages %+v", c)
	}
	// Every call parses afresh: sessions must not share a trace.
	b, _ := Trace()
	if &a.Ranks[0] == &b.Ranks[0] {
		t.Error("two calls returned the same trace")
	}
}
