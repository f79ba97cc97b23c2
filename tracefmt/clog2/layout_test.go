package clog2

import (
	"bytes"
	"strings"
	"testing"

	"github.com/tracesim/tracesim/tracefmt"
)

// kitchenSink crafts a merged file of 3 ranks using every record type: a
// communicator of ranks 0 and 2 (id 4) with a message and a broadcast on
// it, a record with a thread and a pad, an end event whose cargo differs
// from its start's, EVENTDEF'd and undefined solo events, an undefined
// state, a COLLEVT of an unknown type, SRCLOC, CONSTDEFs and STATEDEFs at
// the end. Times are distinct and increase, so the order is MPE's.
func kitchenSink(c *craft) []byte {
	c.rec(0.001, 0, 1, recTimeShift, timeshift(-0.5)...)
	c.rec(0.002, 0, 1, recCommEvt, commevt(commWorldCreate, 0, 1, 1)...)
	c.rec(0.003, 0, 1, recCommEvt, commevt(commSelfCreate, 2, 0, 1)...)
	c.rec(0.004, 0, 2, recTimeShift, timeshift(0)...)
	c.rec(0.005, 0, 2, recCommEvt, commevt(commWorldCreate, 0, 2, 2)...)
	c.rec(0.006, 0, 2, recCommEvt, commevt(commSelfCreate, 3, 0, 2)...)
	c.rec(0.007, 0, 2, recCommEvt, commevt(commIntraCreate, 4, 1, 2)...)
	c.rec(0.008, 0, 0, recTimeShift, timeshift(0)...)
	c.rec(0.009, 0, 0, recCommEvt, commevt(commWorldCreate, 0, 0, 0)...)
	c.rec(0.010, 0, 0, recCommEvt, commevt(commSelfCreate, 1, 0, 0)...)
	c.rec(0.011, 0, 0, recCommEvt, commevt(commIntraCreate, 4, 0, 0)...)
	c.rec(0.012, 0, 0, recConstDef, constdef(-1, "MPI_PROC_NULL")...)
	c.rec(0.013, 0, 0, recConstDef, constdef(-2, "MPI_ANY_SOURCE")...)
	c.rec(0.014, 0, 0, recConstDef, constdef(-1, "MPI_ANY_TAG")...)
	c.rec(0.020, 0, 0, recEventDef, i32(5000), i32(0), str{"white", colorLen}, str{"checkpoint", nameLen}, str{"n=%d", formatLen})
	c.rec(0.021, 0, 0, recSrcLoc, i32(1), i32(42), str{"cpi.c", fileLen})
	c.rec(0.030, 0, 0, recCargoEvt, cargo(600, "hello")...)
	c.rec(0.031, 4, 0, recBareEvt, bare(12)...)
	c.rec(0.032, 4, 0, recCollEvt, coll(12, 1, 64)...)
	c.rec(0.033, 4, 0, recBareEvt, bare(13)...)
	c.rec(0.034, 4, 1, recBareEvt, bare(12)...)
	c.rec(0.035, 4, 1, recCollEvt, coll(12, 1, 64)...)
	c.rec(0.036, 4, 1, recBareEvt, bare(13)...)
	c.thread = 2
	c.rec(0.040, 4, 0, recBareEvt, i32(160), raw("abcd"))
	c.rec(0.041, 4, 0, recMsgEvt, msg(etypeSend, 4, 1, 3, 100)...)
	c.rec(0.042, 4, 0, recBareEvt, bare(161)...)
	c.rec(0.043, 4, 1, recBareEvt, bare(154)...)
	c.rec(0.044, 4, 1, recMsgEvt, msg(etypeRecv, 4, 0, 3, 100)...)
	c.rec(0.045, 4, 1, recBareEvt, bare(155)...)
	c.rec(0.050, 0, 1, recCargoEvt, cargo(5000, "ckpt 1")...)
	c.rec(0.051, 0, 1, recBareEvt, bare(5001)...)
	c.rec(0.052, 0, 1, recBareEvt, bare(602)...)
	c.rec(0.053, 0, 1, recBareEvt, bare(603)...)
	c.rec(0.060, 0, 0, recCargoEvt, cargo(601, "bye")...)
	c.rec(0.070, 0, 1, recCollEvt, coll(999, -1, 8)...)
	c.rec(0.080, 0, 0, recStateDef, statedef(300, 600, 601, "red", "phase")...)
	c.rec(0.081, 0, 0, recStateDef, statedef(6, 12, 13, "cyan", "MPI_Bcast")...)
	c.rec(0.082, 0, 0, recStateDef, statedef(80, 160, 161, "blue", "MPI_Send")...)
	c.rec(0.083, 0, 0, recStateDef, statedef(77, 154, 155, "green", "MPI_Recv")...)
	return c.end(recEndLog, maxTime).comms([]int32{0, 1, 4, 2, 3}, []int32{kindIntra, kindIntra, kindIntra, kindUnknown, kindUnknown}).bytes()
}

func TestKitchenSink(t *testing.T) {
	data := kitchenSink(newCraft(true, 3, 65536))
	tr := readBytes(t, data)
	if out := writeBytes(t, tr); !bytes.Equal(out, data) {
		t.Fatalf("rewrite differs: %s", firstDiff(out, data))
	}
	// Communicators in table order; Event.Comm indexes them.
	if len(tr.Comms) != 5 || tr.Comms[2].ID != 4 || len(tr.Comms[2].Ranks) != 2 || tr.Comms[2].Ranks[0] != 0 || tr.Comms[2].Ranks[1] != 2 {
		t.Fatalf("comms %+v", tr.Comms)
	}
	got := strings.Join(semantics(tr), "\n")
	for _, want := range []string{
		"r0 coll t=0.032 bcast root=2 size=64 comm=[0 2]",
		"r2 coll t=0.035 bcast root=2 size=64 comm=[0 2]",
		"r0 send t=0.041 peer=2 tag=3 size=100 comm=[0 2] match@",
		"r2 recv t=0.044 peer=0 tag=3 size=100 comm=[0 2] match@",
		"r1 marker t=0.05 checkpoint text=\"ckpt 1\"",
		"r1 marker t=0.051 event 5001 text=\"\"",
		"r1 enter t=0.052 state 301 color=\"\" cat=user text=\"\" leave@",
		"r1 coll t=0.07 other root=-1 size=8 comm=world",
		"r0 enter t=0.03 phase color=\"red\" cat=user text=\"hello\" leave@",
		"r0 enter t=0.04 MPI_Send color=\"blue\" cat=p2p text=\"\" leave@",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in\n%s", want, got)
		}
	}
	for key, want := range map[string]string{attrUndefStates: "301", attrUndefEvents: "5001"} {
		if v, _ := tr.Attr(key); v != want {
			t.Errorf("attr %s = %q, want %q", key, v, want)
		}
	}
	var records []string
	for _, m := range tr.Meta {
		if m.Name == markRecord {
			records = append(records, m.Text)
		}
	}
	want := []string{"thread=2 pad=61626364", "cargo=627965" + strings.Repeat("00", cargoLen-3), "etype=999"}
	if strings.Join(records, "|") != strings.Join(want, "|") {
		t.Errorf("record markers %q, want %q", records, want)
	}
	if m := markerCounts(tr); m[markSrcLoc] != 1 || m[markEventDef] != 1 || m[markStateDef] != 4 || m[markCommEvt] != 8 {
		t.Errorf("markers %v", m)
	}
}

// TestLayoutDeviations reads files that MPE's merger would not write and
// checks that what it cannot derive is kept, so the rewrite is exact.
func TestLayoutDeviations(t *testing.T) {
	tests := []struct {
		name  string
		craft func() *craft
		attrs []string // attributes the reader must set
	}{
		{"MPE's layout in small blocks", func() *craft {
			c := newCraft(true, 3, 256)
			c.auto, c.stale = true, true
			return c
		}, nil},
		{"blocks closed early", func() *craft {
			c := newCraft(true, 3, 512)
			c.auto, c.every, c.stale = true, 3, true
			return c
		}, []string{attrBlocks}},
		{"zero filler", func() *craft {
			c := newCraft(true, 3, 256)
			c.auto = true
			return c
		}, []string{attrFiller}},
		{"garbage filler", func() *craft {
			c := newCraft(true, 3, 256)
			c.auto, c.filler = true, 0xa5
			return c
		}, []string{attrFiller + ".0"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			data := kitchenSink(tc.craft())
			if len(data) < preambleLen+3*256 {
				t.Fatalf("only %d bytes: the test wants several blocks", len(data))
			}
			tr := readBytes(t, data)
			for _, key := range tc.attrs {
				if _, ok := tr.Attr(key); !ok {
					t.Errorf("attribute %s not set", key)
				}
			}
			if tc.attrs == nil {
				for _, a := range tr.Attrs {
					if strings.HasPrefix(a.Key, attrFiller) || a.Key == attrBlocks || a.Key == attrTerminators || a.Key == attrOrder {
						t.Errorf("MPE's layout needs no %s", a.Key)
					}
				}
			}
			if out := writeBytes(t, tr); !bytes.Equal(out, data) {
				t.Fatalf("rewrite differs: %s", firstDiff(out, data))
			}
		})
	}
}

// TestGlobalOrder: a merged file's order is MPE's merge of the rank
// streams, which the writer replays; a file in another order keeps it.
func TestGlobalOrder(t *testing.T) {
	// Records of equal time: MPE's tree (0 with children 1, 2) emits rank
	// 1's, then rank 2's, then rank 0's.
	build := func(ranks ...int32) []byte {
		c := newCraft(true, 3, 1024).worldCommEvts(3, 0)
		for _, r := range ranks {
			c.rec(1, 0, r, recBareEvt, bare(5000)...)
		}
		return c.end(recEndLog, maxTime).worldTable(3).bytes()
	}
	tests := []struct {
		name   string
		data   []byte
		stored bool
	}{
		{"MPE's tie order", build(1, 2, 0), false},
		{"rank order", build(0, 1, 2), true},
		{"interleaved", build(1, 0, 1), true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tr := readBytes(t, tc.data)
			if _, ok := tr.Attr(attrOrder); ok != tc.stored {
				t.Errorf("order stored: %v, want %v", ok, tc.stored)
			}
			if out := writeBytes(t, tr); !bytes.Equal(out, tc.data) {
				t.Fatalf("rewrite differs: %s", firstDiff(out, tc.data))
			}
		})
	}
	// Clocks that run backwards on a rank: MPE's merge of unsorted streams
	// is not a sort, but the writer replays it, so nothing is stored.
	src := synth(t, synthOptions{ranks: 5, steps: 4, unit: tracefmt.Second})
	ev := src.Ranks[3].Events
	for i := range ev[len(ev)/2:] {
		ev[len(ev)/2+i].Time -= 0.5
	}
	data := writeBytes(t, src)
	tr := readBytes(t, data)
	if v, ok := tr.Attr(attrOrder); ok {
		t.Errorf("MPE's merge order stored: %q", v)
	}
	if out := writeBytes(t, tr); !bytes.Equal(out, data) {
		t.Fatalf("rewrite differs: %s", firstDiff(out, data))
	}
}

// TestPostLess compares the tie order with an explicit post-order walk of
// MPE's merge tree.
func TestPostLess(t *testing.T) {
	for _, P := range []int32{1, 2, 3, 5, 8, 13, 40} {
		var order []int32
		var walk func(r int32)
		walk = func(r int32) {
			if r >= P {
				return
			}
			walk(2*r + 1)
			walk(2*r + 2)
			order = append(order, r)
		}
		walk(0)
		pos := postOrder(int(P))
		for i, a := range order {
			if pos[a] != int32(i) {
				t.Fatalf("P=%d: postOrder puts rank %d at %d, the walk at %d", P, a, pos[a], i)
			}
			for j, b := range order {
				if got := postLess(a, b); got != (i < j) {
					t.Fatalf("P=%d: postLess(%d, %d) = %v, post-order positions %d and %d", P, a, b, got, i, j)
				}
			}
		}
	}
}
