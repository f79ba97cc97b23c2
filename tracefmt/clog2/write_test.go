package clog2

import (
	"bytes"
	"encoding/binary"
	"math"
	"strings"
	"testing"

	"github.com/tracesim/tracesim/tracefmt"
)

// TestRoundTripSynthetic writes traces that come from elsewhere, reads
// them back (same MPI semantics) and writes again (same bytes).
func TestRoundTripSynthetic(t *testing.T) {
	tests := []struct {
		name string
		o    synthOptions
	}{
		{"one rank", synthOptions{ranks: 1, steps: 3, unit: tracefmt.Second}},
		{"five ranks", synthOptions{ranks: 5, steps: 4, unit: tracefmt.Second, markers: true}},
		{"thirteen ranks, sub-communicator", synthOptions{ranks: 13, steps: 3, unit: tracefmt.Second, subComm: true, markers: true}},
		{"microseconds", synthOptions{ranks: 4, steps: 3, unit: tracefmt.Microsecond, subComm: true}},
		{"nested starts of one state", synthOptions{ranks: 3, steps: 3, unit: tracefmt.Nanosecond, nested: true}},
		{"many blocks", synthOptions{ranks: 7, steps: 400, unit: tracefmt.Second, subComm: true, markers: true}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src := synth(t, tc.o)
			first := writeBytes(t, src)
			back := readBytes(t, first)
			// Times are now seconds: compare what the traces say.
			if a, b := semantics(src), semantics(back); !equalLines(a, b) {
				t.Fatalf("read(write(trace)) differs: %s", diffLines(a, b))
			}
			if a, b := src.CountMessages(), back.CountMessages(); a != b || a.Matched == 0 && tc.o.ranks > 1 {
				t.Errorf("messages %+v, after the round trip %+v", a, b)
			}
			if back.Unit != tracefmt.Second {
				t.Errorf("unit %v, want seconds", back.Unit)
			}
			second := writeBytes(t, back)
			if !bytes.Equal(first, second) {
				t.Fatalf("second write differs: %s", firstDiff(first, second))
			}
			// What MPE would have written besides the events.
			marks := markerCounts(back)
			P := tc.o.ranks
			wantComm := 2 * P
			if tc.o.subComm {
				wantComm += (P + 1) / 2
			}
			if marks[markCommEvt] != wantComm || marks[markTimeShift] != P || marks[markConstDef] != 3 {
				t.Errorf("bookkeeping %v: want %d COMMEVT, %d TIMESHIFT, 3 CONSTDEF", marks, wantComm, P)
			}
			if marks[markStateDef] != len(src.States) {
				t.Errorf("%d STATEDEFs for %d states", marks[markStateDef], len(src.States))
			}
			for _, key := range []string{attrOrder, attrBlocks, attrFiller, attrTerminators, attrUndefStates, attrUndefEvents} {
				if v, ok := back.Attr(key); ok {
					t.Errorf("our own file needs no %s, got %q", key, v)
				}
			}
		})
	}
}

// TestWriteLayout checks the written file against MPE's rules directly:
// block packing, terminators, filler, communicator table, ids.
func TestWriteLayout(t *testing.T) {
	src := synth(t, synthOptions{ranks: 6, steps: 300, unit: tracefmt.Second, subComm: true, markers: true})
	src.SetAttr("clog2.block_size", "4096")
	// A state's Source gives its ids.
	for i := range src.States {
		if src.States[i].Name == "MPI_Allreduce" {
			src.States[i].Source = tracefmt.SourceIDs{ID: 42, Start: 84, End: 85}
		}
	}
	data := writeBytes(t, src)
	pre, err := parsePreamble(data[:preambleLen])
	if err != nil {
		t.Fatal(err)
	}
	B := pre.blockSize
	if B != 4096 || !pre.bigEndian || !pre.finalized || pre.worldSize != 6 || pre.version != "CLOG-02.44" {
		t.Fatalf("preamble %+v", pre)
	}
	n := pre.numBlocks()
	if n < 3 {
		t.Fatalf("%d blocks; the test wants several", n)
	}
	be := binary.BigEndian
	var prev []byte
	states := map[int32]string{}
	colls, msgs := 0, 0
	for k := range n {
		blk := data[preambleLen+int(k)*B : preambleLen+int(k+1)*B]
		u := 0
		for {
			rt := int32(be.Uint32(blk[u+20:]))
			if rt == recEndBlock || rt == recEndLog {
				if (rt == recEndLog) != (k == n-1) {
					t.Fatalf("block %d ends with %s", k, recNames[rt])
				}
				if rt == recEndBlock {
					next := data[preambleLen+int(k+1)*B:]
					nrt := int32(be.Uint32(next[20:]))
					if u+recSize[nrt]+headerSize < B {
						t.Errorf("block %d closed at %d though the next %s (%d bytes) fit", k, u, recNames[nrt], recSize[nrt])
					}
					if be.Uint64(blk[u:]) != be.Uint64(next) {
						t.Errorf("block %d: ENDBLOCK not stamped with the next record's time", k)
					}
				} else if math.Float64frombits(be.Uint64(blk[u:])) != 1e8 {
					t.Errorf("ENDLOG at %v, want 1e8", math.Float64frombits(be.Uint64(blk[u:])))
				}
				end := u + headerSize
				if k == 0 && !allZero(blk[end:]) {
					t.Errorf("block 0 filler is not zero")
				}
				if k > 0 && !bytes.Equal(blk[end:], prev[end:]) {
					t.Errorf("block %d filler is not the previous block's bytes (MPE reuses its buffer)", k)
				}
				break
			}
			if u+recSize[rt]+headerSize >= B {
				t.Errorf("block %d: %s at %d leaves no room for a terminator", k, recNames[rt], u)
			}
			switch rt {
			case recStateDef:
				states[int32(be.Uint32(blk[u+24:]))] = cString(blk[u+64 : u+96])
				if s, e := be.Uint32(blk[u+28:]), be.Uint32(blk[u+32:]); e != s+1 || int32(s) != 2*int32(be.Uint32(blk[u+24:])) {
					t.Errorf("STATEDEF events %d/%d", s, e)
				}
			case recCollEvt:
				colls++
			case recMsgEvt:
				msgs++
			}
			u += recSize[rt]
		}
		prev = blk
	}
	// MPI states keep MPE's ids; others get ids from 300.
	for id, name := range map[int32]string{80: "MPI_Send", 77: "MPI_Recv", 6: "MPI_Bcast", 42: "MPI_Allreduce", 300: "solve phase"} {
		if states[id] != name {
			t.Errorf("state id %d is %q, want %q", id, states[id], name)
		}
	}
	wantColls, wantMsgs := 0, 0
	for r := range src.Ranks {
		for _, e := range src.Ranks[r].Events {
			switch e.Kind {
			case tracefmt.KindCollective:
				wantColls++
			case tracefmt.KindSend, tracefmt.KindRecv:
				wantMsgs++
			}
		}
	}
	if colls != wantColls || msgs != wantMsgs {
		t.Errorf("%d COLLEVT and %d MSGEVT records, want %d and %d", colls, msgs, wantColls, wantMsgs)
	}
	// Communicator table: world, rank 0's self and the evens (rank 0
	// belongs to them: kind intra), then the other selves in recursive
	// doubling order.
	tab := data[preambleLen+int(n)*B:]
	cnt := int(be.Uint32(tab))
	if cnt != 1+6+1 || len(tab) != 4+40*cnt {
		t.Fatalf("communicator table of %d entries, %d bytes", cnt, len(tab))
	}
	for i := range cnt {
		e := tab[4+40*i:]
		id, kind := int32(be.Uint32(e[32:])), int32(be.Uint32(e[36:]))
		wantKind := int32(kindUnknown)
		if i < 3 {
			wantKind = kindIntra
		}
		if id != int32(i) || kind != wantKind || cString(e[12:32]) != synthesizedHost {
			t.Errorf("table entry %d: id %d kind %d host %q", i, id, kind, cString(e[12:32]))
		}
	}
}

func TestWriteErrors(t *testing.T) {
	untimed := synth(t, synthOptions{ranks: 2, steps: 1, unit: tracefmt.Second})
	untimed.Timed = false
	big := synth(t, synthOptions{ranks: 2, steps: 1, unit: tracefmt.Second})
	for r := range big.Ranks {
		for i := range big.Ranks[r].Events {
			if e := &big.Ranks[r].Events[i]; e.Kind == tracefmt.KindSend {
				e.Size = 1 << 33
			}
		}
	}
	outside := synth(t, synthOptions{ranks: 4, steps: 1, unit: tracefmt.Second, subComm: true})
	for i := range outside.Ranks[1].Events {
		if e := &outside.Ranks[1].Events[i]; e.Kind == tracefmt.KindEnter {
			e.Comm = 1 // rank 1 is not one of the evens
			break
		}
	}
	tests := []struct {
		name string
		t    *tracefmt.Trace
		want string
	}{
		{"untimed", untimed, "untimed"},
		{"no ranks", &tracefmt.Trace{Timed: true}, "no ranks"},
		{"size beyond 32 bits", big, "does not fit CLOG2's 32-bit field"},
		{"not a member", outside, "rank 1 is not a member of communicator 1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := Write(&bytes.Buffer{}, tc.t)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func TestCollEtypes(t *testing.T) {
	for op := tracefmt.OpOther; op <= tracefmt.OpExscan; op++ {
		if got := collOp(collEtype(op)); got != op {
			t.Errorf("%s -> etype %d -> %s", op, collEtype(op), got)
		}
	}
	// Collectives with an MPI state use its start event.
	if collEtype(tracefmt.OpAllreduce) != 4 || collEtype(tracefmt.OpBarrier) != 10 || collEtype(tracefmt.OpBcast) != 12 {
		t.Errorf("allreduce %d barrier %d bcast %d", collEtype(tracefmt.OpAllreduce), collEtype(tracefmt.OpBarrier), collEtype(tracefmt.OpBcast))
	}
	for id, name := range mpiStateNames {
		if knownStateID(name) != int32(id) || knownStateName(int32(id)) != name {
			t.Errorf("state %d %q does not round-trip", id, name)
		}
	}
}
