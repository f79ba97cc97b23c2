package clog

import (
	"bytes"
	"encoding/binary"
	"io"
	"os"
	"reflect"
	"strconv"
	"testing"
	"testing/iotest"

	"github.com/tracesim/tracesim/tracefmt"
)

func TestReadSynthetic(t *testing.T) {
	tests := []struct {
		name  string
		file  func() []byte
		ranks [][]string
		attrs map[string]string
	}{
		{
			name: "states defined after their events, messages, start text",
			file: func() []byte {
				f := newLog()
				f.rec(0.1, recComm, 0, f.ints(101, -1, 91, 900))
				f.rec(0.1, recComm, 1, f.ints(101, -1, 91, 900))
				f.raw(1, 0, 500, 0, "start work")
				f.send(2, 0, 1, 7, 12)
				f.recv(2.5, 1, 0, 7, 12)
				f.raw(3, 0, 501, 0, "end work")
				f.raw(4, 1, 42, 3, "x")
				f.stateDef(0, 300, 500, 501, "red", "Work")
				return f.bytes()
			},
			ranks: [][]string{
				{`1 enter Work "start work"`, "2 send>1 t7 12B", "3 leave Work"},
				{"2.5 recv<0 t7 12B", `4 marker event 42 "x"`},
			},
			attrs: map[string]string{"clog.block_size": "65536", "clog.blocks": "1", "clog.byte_order": "big-endian"},
		},
		{
			name: "EVENTDEF names, CONSTDEF skipped, COLL and MSG records, UNDEF SHIFT SRCLOC skipped",
			file: func() []byte {
				f := newLog()
				f.eventDef(0, 600, "Checkpoint")
				f.raw(1, 0, 600, 0, "ck1")
				f.raw(1.1, 0, etypeConstDef, -1, "MPI_ANY_SOURCE")
				f.rec(2, recColl, 0, f.ints(33, 1, 91, 64, 900, 0))
				f.rec(3, recMsg, 0, f.ints(etypeSend, 5, 1, 91, 100, 900))
				f.recWords(3.1, recUndef, 5, 1, make([]byte, 16))
				f.rec(3.2, recShift, 1, make([]byte, 8))
				f.rec(3.3, recSrcLoc, 1, append(f.ints(901, 12), str("x.c", 40)...))
				f.rec(4, recMsg, 1, f.ints(etypeRecv, 5, 0, 91, 100, 900))
				f.rec(5, recMsg, 1, f.ints(7, 1, 0, 91, 8, 900))
				return f.bytes()
			},
			ranks: [][]string{
				{`1 marker Checkpoint "ck1"`, `2 marker collective event 33 "root 1, comm 91, 64 bytes"`, "3 send>1 t5 100B"},
				{"4 recv<0 t5 100B", `5 marker message event 7 "partner 0, tag 1, comm 91, 8 bytes"`},
			},
		},
		{
			name: "first STATEDEF claiming an etype wins; start==end and unnamed definitions",
			file: func() []byte {
				f := newLog()
				f.stateDef(0, 1, 11, 12, "blue", "A")
				f.stateDef(0, 2, 11, 14, "green", "B")
				f.stateDef(0, 3, 20, 20, "gray", "C")
				f.stateDef(0, 7, 30, 31, "", "")
				for i, e := range []int32{11, 12, 14, 20, 30, 31} {
					f.raw(float64(i+1), 0, e, 0, "")
				}
				return f.bytes()
			},
			ranks: [][]string{{
				"1 enter A", "2 leave A", "3 marker event 14", "4 marker event 20", "5 enter state 7", "6 leave state 7",
			}},
		},
		{
			name: "world size from the procid of any record",
			file: func() []byte {
				f := newLog()
				f.raw(1, 0, 5, 0, "")
				f.rec(0.5, recComm, 2, f.ints(101, -1, 91, 900))
				return f.bytes()
			},
			ranks: [][]string{{"1 marker event 5"}, {}, {}},
		},
		{
			name: "1024-byte blocks of MPICH 1.1.2 with non-zero filler",
			file: func() []byte {
				f := newLog()
				f.bs, f.filler = OldBlockSize, 0xAB
				for i := range 40 {
					f.raw(float64(i), int32(i%2), 9, 0, "")
				}
				return f.bytes()
			},
			attrs: map[string]string{"clog.block_size": "1024", "clog.blocks": "3"},
		},
		{
			name: "little-endian file",
			file: func() []byte {
				f := newLog()
				f.order = binary.LittleEndian
				f.send(1, 0, 1, 3, 8)
				f.recv(2, 1, 0, 3, 8)
				return f.bytes()
			},
			ranks: [][]string{{"1 send>1 t3 8B"}, {"2 recv<0 t3 8B"}},
			attrs: map[string]string{"clog.byte_order": "little-endian"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tr := mustRead(t, tc.file())
			if tr.Format != "clog" || tr.Unit != tracefmt.Second || !tr.Timed {
				t.Errorf("format %q unit %v timed %v", tr.Format, tr.Unit, tr.Timed)
			}
			if tc.ranks != nil {
				if got := describeRanks(tr); !reflect.DeepEqual(got, tc.ranks) {
					t.Errorf("got\n%s\nwant\n%s", joinRanks(got), joinRanks(tc.ranks))
				}
			}
			for k, want := range tc.attrs {
				if got, _ := tr.Attr(k); got != want {
					t.Errorf("attr %s = %q, want %q", k, got, want)
				}
			}
		})
	}
}

func TestReadStateDefinition(t *testing.T) {
	f := newLog()
	f.raw(1, 0, 500, 0, "")
	f.raw(2, 0, 501, 0, "")
	f.stateDef(0, 300, 500, 501, "red:vlines3", "User_Broadcast")
	f.stateDef(0, 204, 11, 12, "yellow:dimple3", "BARRIER")
	tr := mustRead(t, f.bytes())
	want := []tracefmt.StateDef{
		{Name: "User_Broadcast", Color: "red", Category: tracefmt.CatUser, Source: tracefmt.SourceIDs{ID: 300, Start: 500, End: 501}},
		{Name: "BARRIER", Color: "yellow", Category: tracefmt.CatCollective, Source: tracefmt.SourceIDs{ID: 204, Start: 11, End: 12}},
	}
	if !reflect.DeepEqual(tr.States, want) {
		t.Errorf("states %+v, want %+v", tr.States, want)
	}
}

// TestPairOldest: when a rank has two starts of a state open, the first
// end closes the oldest, as MPE's converters do.
func TestPairOldest(t *testing.T) {
	f := newLog()
	f.stateDef(0, 1, 11, 12, "yellow", "BARRIER")
	for i, e := range []int32{11, 11, 12, 12, 12} {
		f.raw(float64(i+1), 0, e, 0, "")
	}
	tr := mustRead(t, f.bytes())
	want := []string{"0: BARRIER 1-3", "0: BARRIER 2-4"}
	if got := pairs(tr); !reflect.DeepEqual(got, want) {
		t.Errorf("pairs %v, want %v", got, want)
	}
	if ev := tr.Ranks[0].Events; ev[len(ev)-1].Kind != tracefmt.KindLeave || ev[len(ev)-1].Match != -1 {
		e := ev[len(ev)-1]
		t.Errorf("the extra end: %+v, want an unmatched leave", e)
	}
}

// TestManyBlocks: a log over many blocks with garbage after each ENDBLOCK
// reads every record in order.
func TestManyBlocks(t *testing.T) {
	f := newLog()
	f.filler = 0xFF
	const n = 3000
	for i := range n {
		f.send(float64(2*i), 0, 1, int32(i%5), int32(i))
		f.recv(float64(2*i+1), 1, 0, int32(i%5), int32(i))
	}
	b := f.bytes()
	tr := mustRead(t, b)
	if got, want := tr.Attrs, []tracefmt.Attr{
		{Key: "clog.block_size", Value: "65536"},
		{Key: "clog.blocks", Value: strconv.Itoa(len(b) / BlockSize)},
		{Key: "clog.byte_order", Value: "big-endian"},
	}; !reflect.DeepEqual(got, want) {
		t.Errorf("attrs %v, want %v", got, want)
	}
	if len(b)/BlockSize < 5 {
		t.Fatalf("only %d blocks: the test needs several", len(b)/BlockSize)
	}
	if c := tr.CountMessages(); c.Matched != n || c.UnmatchedSends+c.UnmatchedRecvs != 0 {
		t.Errorf("messages %+v, want %d matched", c, n)
	}
	for i := range n {
		s, r := tr.Ranks[0].Events[i], tr.Ranks[1].Events[i]
		if s.Time != float64(2*i) || s.Size != int64(i) || r.Time != float64(2*i+1) || r.Match != int32(i) {
			t.Fatalf("message %d: send %+v recv %+v", i, s, r)
		}
	}
	if _, end := tr.Span(); end != 2*n-1 {
		t.Errorf("span ends at %v, want %v (ENDLOG's 1e6 excluded)", end, 2*n-1)
	}
}

func TestCString(t *testing.T) {
	tests := []struct {
		in   []byte
		want string
	}{
		{[]byte("abc\x00garbage"), "abc"},
		{[]byte("  padded  \x00"), "padded"},
		{[]byte("no nul"), "no nul"},
		{[]byte("tab\there\nnl"), "tab here nl"},
		{[]byte{'a', 0xff, 'b'}, "a\uFFFDb"},
		{[]byte{0, 'x'}, ""},
	}
	for _, tc := range tests {
		if got := cString(tc.in); got != tc.want {
			t.Errorf("cString(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestParseTagSize(t *testing.T) {
	tests := []struct {
		in        string
		tag, size int32
		ok        bool
	}{
		{"1 0", 1, 0, true},
		{"11 512", 11, 512, true},
		{" 99  12 ", 99, 12, true},
		{"-1 4", -1, 4, true},
		{"1", 0, 0, false},
		{"1 2 3", 0, 0, false},
		{"a b", 0, 0, false},
		{"1 -4", 0, 0, false},
		{"1 99999999999", 0, 0, false},
		{"", 0, 0, false},
	}
	for _, tc := range tests {
		tag, size, err := parseTagSize([]byte(tc.in))
		if (err == nil) != tc.ok || tag != tc.tag || size != tc.size {
			t.Errorf("parseTagSize(%q) = %d, %d, %v; want %d, %d, ok=%v", tc.in, tag, size, err, tc.tag, tc.size, tc.ok)
		}
	}
}

func TestRecordWords(t *testing.T) {
	// Lengths from MPE's CLOG_reclen: header (3 words) plus the body.
	want := map[int32]int32{recEndLog: 3, recEndBlock: 3, recUndef: 0, recRaw: 7, recMsg: 6, recColl: 6, recComm: 5, recEventDef: 6, recStateDef: 10, recSrcLoc: 9, recShift: 4, 9: 0, -3: 0}
	for typ, w := range want {
		if got := recordWords(typ); got != w {
			t.Errorf("recordWords(%s) = %d, want %d", recordName(typ), got, w)
		}
	}
}

// TestReadSmallReads: the result does not depend on how the reader
// delivers the bytes.
func TestReadSmallReads(t *testing.T) {
	b, err := os.ReadFile("testdata/fpilog.clog")
	if err != nil {
		t.Fatal(err)
	}
	want := mustRead(t, b)
	for name, r := range map[string]io.Reader{
		"one byte": iotest.OneByteReader(bytes.NewReader(b)),
		"half":     iotest.HalfReader(bytes.NewReader(b)),
		"data+EOF": iotest.DataErrReader(bytes.NewReader(b)),
	} {
		got, err := Read(r)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: a different trace", name)
		}
	}
}
