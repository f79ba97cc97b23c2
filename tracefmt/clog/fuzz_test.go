package clog

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"os"
	"testing"

	"github.com/tracesim/tracesim/tracefmt"
)

// fuzzSeeds are small logs (1 KiB blocks keep inputs short) covering every
// record type.
func fuzzSeeds() [][]byte {
	var out [][]byte
	for _, o := range []binary.ByteOrder{binary.BigEndian, binary.LittleEndian} {
		f := newLog()
		f.order, f.bs = o, OldBlockSize
		f.rec(0.1, recComm, 0, f.ints(101, -1, 91, 900))
		f.rec(0.1, recSrcLoc, 1, append(f.ints(900, 12), str("a.c", 40)...))
		f.eventDef(0, 600, "Checkpoint")
		f.raw(1, 0, 11, 1, "start")
		f.send(2, 0, 1, 5, 16)
		f.recv(3, 1, 0, 5, 16)
		f.raw(4, 0, 12, 2, "")
		f.raw(5, 1, 600, 0, "ck")
		f.raw(5.5, 1, etypeConstDef, -1, "MPI_ANY_TAG")
		f.rec(6, recColl, 1, f.ints(33, 0, 91, 64, 900, 0))
		f.rec(7, recMsg, 0, f.ints(etypeSend, 1, 1, 91, 8, 900))
		f.rec(8, recMsg, 1, f.ints(etypeRecv, 1, 0, 91, 8, 900))
		f.rec(9, recShift, 0, make([]byte, 8))
		f.recWords(9, recUndef, 4, 0, make([]byte, 8))
		for i := range 20 {
			f.raw(10+float64(i), int32(i%2), 11+int32(i%2), 0, "")
		}
		f.stateDef(0, 1, 11, 12, "yellow:dimple3", "BARRIER")
		out = append(out, f.bytes())
	}
	return out
}

// FuzzRead: no input makes the reader panic, and what it accepts is a
// valid trace with finite times and a bounded world.
func FuzzRead(f *testing.F) {
	for _, p := range []string{"testdata/fpilog.clog", sharedDir + "pmandel.clog"} {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	for _, b := range fuzzSeeds() {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		Sniff(head(data))
		tr, err := Read(bytes.NewReader(data))
		if err != nil {
			if tr != nil {
				t.Fatal("a trace with an error")
			}
			var le *Error
			if !errors.As(err, &le) {
				t.Fatalf("error without a place in the file: %v", err)
			}
			return
		}
		if err := tr.Validate(); err != nil {
			t.Fatalf("accepted an invalid trace: %v", err)
		}
		if tr.Size() < 1 || tr.Size() > MaxRanks {
			t.Fatalf("world of %d ranks", tr.Size())
		}
		for r := range tr.Ranks {
			for i, e := range tr.Ranks[r].Events {
				if math.IsNaN(e.Time) || math.IsInf(e.Time, 0) {
					t.Fatalf("rank %d event %d: time %v", r, i, e.Time)
				}
				if e.IsP2P() && e.Size < 0 {
					t.Fatalf("rank %d event %d: size %d", r, i, e.Size)
				}
				if e.Kind == tracefmt.KindMarker && tr.Markers[e.Marker()].Name == "" {
					t.Fatalf("rank %d event %d: unnamed marker", r, i)
				}
			}
		}
	})
}
