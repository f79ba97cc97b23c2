package clog2

import (
	"bytes"
	"slices"
	"testing"

	"github.com/tracesim/tracesim/tracefmt"
)

// TestBlocksOnWorkersSame: a file of many blocks read record by record,
// with its blocks scanned on 1 goroutine and on N workers gives the same
// trace, field for field, when the workers write
// the events of the records they decode straight into the ranks' buffers
// while the reader's goroutine decodes the rest: in MPE's merge order,
// with ties, out of order within and across blocks (the file's order is
// then kept), with a rank that starts late (its buffer moves while
// workers write others), with records that stop the workers mid-block
// (sub-communicators, threads, cargo) and with collectives.
func TestBlocksOnWorkersSame(t *testing.T) {
	const P = 6
	type step func(c *craft, i int, tm float64)
	plain := func(c *craft, i int, tm float64) {
		for r := range int32(P) {
			c.rec(tm+float64(r)*1e-6, 0, r, recBareEvt, bare(154)...)
			c.rec(tm+float64(r)*1e-6+1e-7, 0, r, recMsgEvt, msg(etypeSend, 0, (r+1)%P, int32(i%4), 64)...)
			c.rec(tm+float64(r)*1e-6+2e-7, 0, r, recBareEvt, bare(155)...)
		}
	}
	cases := []struct {
		name      string
		block     int
		step      step
		wantOrder bool // the file's order is kept as an attribute
	}{
		{"merge order", 512, plain, false},
		{"ties in post-order", 384, func(c *craft, i int, tm float64) {
			// MPE's merge order for equal times.
			ranks := []int32{0, 1, 2, 3, 4, 5}
			slices.SortFunc(ranks, func(a, b int32) int {
				if postLess(a, b) {
					return -1
				}
				return 1
			})
			for _, r := range ranks {
				c.rec(tm, 0, r, recBareEvt, bare(154)...)
			}
			for _, r := range ranks {
				c.rec(tm+1e-7, 0, r, recBareEvt, bare(155)...)
			}
		}, false},
		{"out of order", 512, func(c *craft, i int, tm float64) {
			for r := range int32(P) {
				// Rank r's records go back in time past the ranks before it.
				c.rec(tm+float64(P-r)*1e-6, 0, r, recBareEvt, bare(154)...)
				c.rec(tm+float64(P-r)*1e-6+1e-7, 0, r, recBareEvt, bare(155)...)
			}
		}, true},
		{"a rank starting late", 512, func(c *craft, i int, tm float64) {
			for r := range int32(P) {
				if r == P-1 && i < 60 {
					continue
				}
				n := 1
				if r == P-1 {
					n = 12 // many events in the file's last blocks
				}
				for k := range n {
					t0 := tm + float64(r)*1e-6 + float64(k)*1e-8
					c.rec(t0, 0, r, recBareEvt, bare(154)...)
					c.rec(t0+1e-9, 0, r, recBareEvt, bare(155)...)
				}
			}
		}, false},
		{"records for the reader's goroutine", 640, func(c *craft, i int, tm float64) {
			plain(c, i, tm)
			r := int32(i % P)
			switch i % 5 {
			case 1:
				c.thread = 2
				c.rec(tm+1e-5, 0, r, recBareEvt, bare(154)...)
				c.rec(tm+1.1e-5, 0, r, recBareEvt, bare(155)...)
			case 2:
				c.rec(tm+1e-5, 0, r, recCargoEvt, cargo(154, "payload")...)
				c.rec(tm+1.1e-5, 0, r, recCargoEvt, cargo(155, "back")...)
			case 3:
				// Rank r's self communicator.
				c.rec(tm+1e-5, 1+r, 0, recBareEvt, bare(154)...)
				c.rec(tm+1.1e-5, 1+r, 0, recBareEvt, bare(155)...)
			case 4:
				c.rec(tm+1e-5, 0, r, recMsgEvt, msg(etypeRecv, 1+r, 0, 1, 8)...) // on rank r's self
			}
		}, false},
		{"collectives", 512, func(c *craft, i int, tm float64) {
			for r := range int32(P) {
				c.rec(tm+float64(r)*1e-6, 0, r, recBareEvt, bare(100)...)
				c.rec(tm+float64(r)*1e-6+1e-7, 0, r, recCollEvt, coll(-401, int32(i%P), 16)...)
				c.rec(tm+float64(r)*1e-6+2e-7, 0, r, recBareEvt, bare(101)...)
			}
		}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := newCraft(true, P, tc.block)
			c.auto = true
			c.worldCommEvts(P, 0)
			steps := 80
			for i := range steps {
				tc.step(c, i, 0.001*float64(i+1))
			}
			data := c.end(recEndLog, maxTime).worldTable(P).bytes()
			rd := newReader(bytes.NewReader(data), 0, 2)
			if err := rd.readPreamble(); err != nil {
				t.Fatal(err)
			}
			if nb := rd.p.numBlocks(); !rd.parallelDecode() || nb < 20 {
				t.Fatalf("%d blocks, parallel %v: want 20 or more, decoded in parallel", nb, rd.parallelDecode())
			}
			want, wantErr := byRecord(data).read()
			if wantErr != nil {
				t.Fatal(wantErr)
			}
			if _, ok := want.Attr(attrOrder); ok != tc.wantOrder {
				t.Errorf("sequential read: order attribute %v, want %v", ok, tc.wantOrder)
			}
			for _, workers := range []int{1, 2, 4, 8} {
				got, err := newReader(bytes.NewReader(data), 0, workers).read()
				if err != nil {
					t.Fatalf("%d workers: %v", workers, err)
				}
				if got.NumEvents() != want.NumEvents() {
					t.Fatalf("%d workers: %d events, want %d", workers, got.NumEvents(), want.NumEvents())
				}
				if traceText(got) != traceText(want) {
					t.Fatalf("%d workers: the trace differs from the sequential one", workers)
				}
			}
		})
	}
}

// TestBlocksOnWorkersClockBack: a rank whose clock goes back makes the
// file's order differ from sorted times, but MPE's merge (Write) gives
// that very order, so the read keeps no order attribute; it needs the
// order hash of the blocks the workers decode to join the file's exactly.
func TestBlocksOnWorkersClockBack(t *testing.T) {
	const P = 5
	b := tracefmt.NewBuilder(P, true, tracefmt.Second)
	st := b.State("MPI_Send")
	for r := range P {
		tm := float64(r) * 1e-7
		for i := range 400 {
			tm += 1e-5
			if r == 2 && i == 200 {
				tm -= 5e-4 // rank 2's clock goes back
			}
			for _, e := range []tracefmt.Event{tracefmt.Enter(tm, st), tracefmt.Send(tm+1e-6, (r+1)%P, 1, 0, 8), tracefmt.Leave(tm+2e-6, st)} {
				if _, err := b.Add(r, e); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	tr, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	tr.SetAttr("clog2.block_size", "1024")
	data := writeBytes(t, tr)
	want, err := byRecord(data).read()
	if err != nil {
		t.Fatal(err)
	}
	if want.NumEvents() != P*400*3 {
		t.Fatalf("%d events, want %d", want.NumEvents(), P*400*3)
	}
	if v, ok := want.Attr(attrOrder); ok {
		t.Fatalf("sequential read: an order attribute of %d bytes, want none", len(v))
	}
	for _, workers := range []int{1, 2, 4} {
		got, err := newReader(bytes.NewReader(data), 0, workers).read()
		if err != nil {
			t.Fatalf("%d workers: %v", workers, err)
		}
		if v, ok := got.Attr(attrOrder); ok {
			t.Fatalf("%d workers: an order attribute of %d bytes, want none", workers, len(v))
		}
		if traceText(got) != traceText(want) {
			t.Fatalf("%d workers: the trace differs from the sequential one", workers)
		}
	}
}
