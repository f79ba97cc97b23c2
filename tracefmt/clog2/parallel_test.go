package clog2

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"reflect"
	"testing"

	"github.com/tracesim/tracesim/tracefmt"
)

// TestParallelResolveSame: resolving ranks on several goroutines gives the
// trace (ids, texts, "CLOG2 record" markers, attributes) that resolving
// them one after another gives, also when workers must stop mid-rank.
func TestParallelResolveSame(t *testing.T) {
	inputs := resolveInputs(t)
	for name, data := range inputs {
		t.Run(name, func(t *testing.T) {
			want, wantErr := byRecord(data).read()
			for _, workers := range []int{2, 3, 8} {
				got, err := newReader(bytes.NewReader(data), 0, workers).read()
				if (err == nil) != (wantErr == nil) || err != nil && err.Error() != wantErr.Error() {
					t.Fatalf("%d workers: error %v, want %v", workers, err, wantErr)
				}
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("%d workers: the trace differs from the sequential one", workers)
				}
			}
		})
	}
}

// resolveInputs are files whose resolution exercises the workers and
// Meta: a real MPE log when present, crafted files with every record
// kind, synthetic traces, definitions part way through ranks, records
// inside the states that collectives are derived from, and a
// per-process file that the reader refuses.
func resolveInputs(t *testing.T) map[string][]byte {
	inputs := map[string][]byte{}
	if b, err := os.ReadFile(cpilogPath); err == nil {
		inputs["cpilog"] = b
	}
	for _, p := range []string{"../../testdata/mpe/colls.clog2", "../../testdata/mpe/allreduce.clog2"} {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		inputs[p] = b
	}
	small := newCraft(true, 3, 256)
	small.auto, small.stale = true, true
	inputs["kitchen sink"] = kitchenSink(small)
	un := newCraft(false, 2, 256)
	un.auto = true
	inputs["per-process kitchen sink"] = kitchenSink(un)
	for name, o := range map[string]synthOptions{
		"five ranks":   {ranks: 5, steps: 40, unit: tracefmt.Second, markers: true},
		"sub-comm":     {ranks: 13, steps: 30, unit: tracefmt.Second, subComm: true, markers: true},
		"nested":       {ranks: 3, steps: 30, unit: tracefmt.Nanosecond, nested: true},
		"microseconds": {ranks: 4, steps: 30, unit: tracefmt.Microsecond, subComm: true},
	} {
		inputs[name] = writeBytes(t, synth(t, o))
	}
	inputs["definitions mid-rank"] = midRankDefinitions()
	inputs["records inside collective states"] = oddCollectiveRecords()
	inputs["a state's end outside its range"] = halfRangeState()
	return inputs
}

// halfRangeState is a file whose STATEDEF gives MPI_Bcast (id 6, event
// types 12 and 13 in MPE's range) the end event type 999: the first event
// of type 13 defines a state for 12 and 13 as MPE's range has it, and the
// events of type 12 after it enter that state (a fuzz find: workers had
// taken type 12 as the STATEDEF's state throughout).
func halfRangeState() []byte {
	const P = 2
	c := newCraft(true, P, 512)
	c.auto = true
	c.worldCommEvts(P, 0)
	tm := 0.01
	for r := range int32(P) {
		for _, et := range []int32{12, 13, 12, 999} {
			tm += 0.001
			c.rec(tm, 0, r, recBareEvt, bare(et)...)
		}
	}
	c.rec(tm+1, 0, 0, recStateDef, statedef(6, 12, 999, "cyan", "MPI_Bcast")...)
	return c.end(recEndLog, maxTime).worldTable(P).bytes()
}

// midRankDefinitions is a file whose ranks each need definitions (an
// undefined state, an unknown event type, a record the writer would not
// derive, a message to no rank) part way through, in different orders.
func midRankDefinitions() []byte {
	const P = 4
	c := newCraft(true, P, 512)
	c.auto = true
	c.worldCommEvts(P, 0)
	c.rec(0.001, 0, 0, recConstDef, constdef(-1, "MPI_PROC_NULL")...)
	tm := 0.01
	for step := range 6 {
		for r := range int32(P) {
			tm += 0.001
			c.rec(tm, 0, r, recBareEvt, bare(160)...)
			c.rec(tm, 0, r, recMsgEvt, msg(etypeSend, 0, (r+1)%P, 1, 8)...)
			c.rec(tm, 0, r, recBareEvt, bare(161)...)
			switch (int(r) + step) % 5 {
			case 0:
				c.rec(tm, 0, r, recBareEvt, bare(5000+int32(step))...) // unknown event type
			case 1:
				c.rec(tm, 0, r, recBareEvt, bare(600+2*int32(step))...) // undefined user state
				c.rec(tm, 0, r, recBareEvt, bare(601+2*int32(step))...)
			case 2:
				c.thread = 3 // a field the writer does not derive
				c.rec(tm, 0, r, recBareEvt, bare(154)...)
				c.thread = 0
			case 3:
				c.rec(tm, 0, r, recMsgEvt, msg(etypeSend, 0, -1, 1, 8)...) // to MPI_PROC_NULL
			}
			c.rec(tm, 0, r, recBareEvt, bare(154)...)
			c.rec(tm, 0, r, recMsgEvt, msg(etypeRecv, 0, (r+P-1)%P, 1, 8)...)
			c.rec(tm, 0, r, recBareEvt, bare(155)...)
		}
	}
	c.rec(tm+1, 0, 0, recStateDef, statedef(80, 160, 161, "blue", "MPI_Send")...)
	c.rec(tm+1, 0, 0, recStateDef, statedef(77, 154, 155, "green", "MPI_Recv")...)
	return c.end(recEndLog, maxTime).worldTable(P).bytes()
}

// TestParallelDecodeSame: decoding blocks on workers gives what a
// sequential read gives, trace or error (the first in file order, with
// its offset), also on files cut short or damaged anywhere.
func TestParallelDecodeSame(t *testing.T) {
	parallel := 0
	for name, data := range resolveInputs(t) {
		rd := newReader(bytes.NewReader(data), 0, 2)
		if rd.readPreamble() != nil || !rd.parallelDecode() {
			continue
		}
		parallel++
		t.Run(name, func(t *testing.T) {
			variants := map[string][]byte{"as written": data}
			// Cuts in the first blocks, the last ones and a few between.
			B := rd.p.blockSize
			nb := (len(data) - preambleLen) / B
			for k := 0; preambleLen+k*B < len(data); k++ {
				if k > 3 && k < nb-3 && k%max(1, nb/6) != 0 {
					continue
				}
				at := preambleLen + k*B
				for _, n := range []int{at, at + B/2, at + B - 1} {
					if n < len(data) {
						variants[fmt.Sprintf("cut at %d", n)] = data[:n]
					}
				}
			}
			// Damage files of a few blocks (under -race a read of a
			// larger one takes seconds); the larger are read as written
			// and cut.
			for i := preambleLen + 5; len(data) <= 64<<10 && i < len(data); i += len(data) / 15 {
				for _, v := range []byte{0x00, 0xff} {
					d := bytes.Clone(data)
					d[i] = v
					variants[fmt.Sprintf("byte %d = %#x", i, v)] = d
				}
			}
			for vname, d := range variants {
				want, wantErr := byRecord(d).read()
				for _, workers := range []int{2, 3} {
					if workers == 3 && vname != "as written" {
						break // two workers take blocks out of order enough
					}
					got, err := newReader(bytes.NewReader(d), 0, workers).read()
					if (err == nil) != (wantErr == nil) || err != nil && err.Error() != wantErr.Error() {
						t.Fatalf("%s, %d workers: error %v, want %v", vname, workers, err, wantErr)
					}
					if traceText(got) != traceText(want) {
						t.Fatalf("%s, %d workers: the trace differs from the sequential one", vname, workers)
					}
				}
			}
		})
	}
	if parallel < 5 {
		t.Errorf("%d inputs decoded in parallel, want 5 or more", parallel)
	}
}

// traceText is every field of a trace, for comparing traces whose times
// may be NaN (reflect.DeepEqual finds NaN unequal to itself).
func traceText(t *tracefmt.Trace) string {
	if t == nil {
		return "no trace"
	}
	return fmt.Sprintf("%#v", *t)
}

// byRecord returns a sequential reader of data that decodes every record
// with record: the reference the other ways of reading are compared with.
func byRecord(data []byte) *reader {
	rd := newReader(bytes.NewReader(data), math.MaxInt, 1)
	rd.byRecord = true
	return rd
}
