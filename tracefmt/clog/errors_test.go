package clog

import (
	"bytes"
	"errors"
	"math"
	"strings"
	"testing"
)

// valid returns a small well-formed log: a COMM record (40 bytes) per rank
// then the given extra records.
func valid(extra func(f *logFile)) []byte {
	f := newLog()
	f.rec(0.1, recComm, 0, f.ints(101, -1, 91, 900))
	f.rec(0.1, recComm, 1, f.ints(101, -1, 91, 900))
	if extra != nil {
		extra(f)
	}
	return f.bytes()
}

// packed returns one block holding the given records with no terminator,
// then zeros: what a writer that forgot to close its block would produce.
func packed(n int, rec func(f *logFile) []byte) []byte {
	f := newLog()
	var b []byte
	for range n {
		b = append(b, rec(f)...)
	}
	return append(b, make([]byte, BlockSize-len(b))...)
}

func rawBytes(f *logFile) []byte {
	return append(f.header(1, recRaw, 7, 0), append(f.ints(5, 0, 900, 0), str("", 16)...)...)
}

func TestReadErrors(t *testing.T) {
	tests := []struct {
		name   string
		data   []byte
		offset int64 // -1: not an offset error
		msg    string
	}{
		{"empty file", nil, 0, "empty file: expected a CLOG record header"},
		{"shorter than a header", make([]byte, 10), 0, "file of 10 bytes is shorter than a 24-byte record header"},
		{"text is not a header", []byte(strings.Repeat("not a clog file ", 8)), 0, "not a CLOG record header"},
		{"record type out of range", valid(func(f *logFile) { f.recWords(1, 9, 3, 0, nil) }), 80, "record type 9 out of range -2..8"},
		{"negative record type", valid(func(f *logFile) { f.recWords(1, -7, 3, 0, nil) }), 80, "record type -7 out of range -2..8"},
		{"length inconsistent with type", valid(func(f *logFile) {
			f.recWords(1, recRaw, 8, 0, append(f.ints(5, 0, 900, 0), make([]byte, 24)...))
		}), 80, "RAW record of length 8 words, expected 7"},
		{"UNDEF shorter than a header", valid(func(f *logFile) { f.recWords(1, recUndef, 2, 0, nil) }), 80, "UNDEF record of length 2 words, expected at least 3"},
		{"negative length", valid(func(f *logFile) { f.recWords(1, recUndef, -4, 0, nil) }), 80, "UNDEF record of length -4 words"},
		{"STATEDEF crossing the block end", func() []byte {
			f := newLog()
			var b []byte
			for range 1169 { // 1169 RAW records end at 65464
				b = append(b, rawBytes(f)...)
			}
			b = append(b, f.header(0, recStateDef, 10, 0)...)
			return append(b, make([]byte, BlockSize-len(b))...)
		}(), 65464, "STATEDEF record of 80 bytes crosses the end of block 0 at offset 65536"},
		{"block without terminator", packed(1170, rawBytes), 65520, "block 0 has no ENDBLOCK or ENDLOG record"},
		{"truncated inside a record", valid(func(f *logFile) { f.raw(1, 0, 5, 0, "") })[:120], 80, "file ends inside a RAW record of 56 bytes (truncated?)"},
		{"truncated inside a header", valid(func(f *logFile) { f.raw(1, 0, 5, 0, "") })[:90], 80, "file ends inside block 0: expected a 24-byte record header"},
		{"truncated at a block boundary", func() []byte {
			f := newLog()
			for i := range 2400 {
				f.raw(float64(i), 0, 5, 0, "")
			}
			b := f.bytes()
			return b[:2*BlockSize]
		}(), 2 * BlockSize, "file ends after block 1 without an ENDLOG record"},
		{"message string not tag and size", valid(func(f *logFile) { f.raw(1, 0, etypeSend, 1, "hello") }), 80 + 40, `message event string "hello": expected "tag size"`},
		{"negative message size", valid(func(f *logFile) { f.raw(1, 0, etypeRecv, 1, "3 -8") }), 80 + 40, "negative message size -8"},
		{"negative partner", valid(func(f *logFile) { f.send(1, 0, -1, 3, 8) }), 80 + 28, "message partner -1 is not a rank"},
		{"partner outside the world", valid(func(f *logFile) {
			f.send(1, 0, 1, 3, 8)
			f.send(2, 1, 5, 3, 8)
		}), 80 + 56 + 28, "message partner 5 outside the world of 2 ranks (the largest procid is 1)"},
		{"negative procid", valid(func(f *logFile) { f.raw(1, -3, 5, 0, "") }), 80 + 16, "procid -3 outside 0..1048575"},
		{"absurd procid", valid(func(f *logFile) { f.raw(1, 1<<24, 5, 0, "") }), 80 + 16, "procid 16777216 outside 0..1048575"},
		{"NaN time", valid(func(f *logFile) { f.raw(math.NaN(), 0, 5, 0, "") }), 80, "RAW record with time NaN: expected a finite number of seconds"},
		{"infinite time", valid(func(f *logFile) { f.raw(math.Inf(1), 0, 5, 0, "") }), 80, "RAW record with time +Inf"},
		{"MSG record with a negative size", valid(func(f *logFile) {
			f.rec(1, recMsg, 0, f.ints(etypeSend, 5, 1, 91, -2, 900))
		}), 80 + 40, "negative message size -2"},
		{"MSG record to a rank outside the world", valid(func(f *logFile) {
			f.rec(1, recMsg, 0, f.ints(etypeSend, 5, 9, 91, 2, 900))
		}), 80 + 32, "message partner 9 outside the world of 2 ranks"},
		{"a world too sparse to hold", valid(func(f *logFile) { f.raw(1, 70000, 5, 0, "") }), 80 + 16,
			"procid 70000: the world has 70001 ranks but only 1 of them have events"},
		{"a lone ENDLOG header (fuzz find)", []byte("00000000\xff\xff\xff\xfe\x00\x00\x00\x0300000000"), 0,
			"clog: offset 0: ENDLOG record, but the log has no records of any process"},
		{"no process records", newLog().bytes(), 0, "clog: offset 0: ENDLOG record, but the log has no records of any process"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tr, err := Read(bytes.NewReader(tc.data))
			if err == nil {
				t.Fatalf("accepted: %d ranks", tr.Size())
			}
			if !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("error %q, want it to contain %q", err, tc.msg)
			}
			var e *Error
			if tc.offset < 0 {
				if errors.As(err, &e) {
					t.Errorf("error %q carries offset %d; want none", err, e.Offset)
				}
				return
			}
			if !errors.As(err, &e) {
				t.Fatalf("error %q is not a *clog.Error", err)
			}
			if e.Offset != tc.offset {
				t.Errorf("offset %d, want %d (%v)", e.Offset, tc.offset, err)
			}
		})
	}
}

// failingReader returns its data, then an I/O error.
type failingReader struct {
	data []byte
}

var errDisk = errors.New("disk on fire")

func (r *failingReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, errDisk
	}
	n := copy(p, r.data)
	r.data = r.data[n:]
	return n, nil
}

func TestReadIOError(t *testing.T) {
	b := valid(func(f *logFile) {
		for i := range 2400 {
			f.raw(float64(i), 0, 5, 0, "")
		}
	})
	_, err := Read(&failingReader{b[:BlockSize+100]})
	if !errors.Is(err, errDisk) {
		t.Fatalf("error %v, want it to wrap the reader's", err)
	}
	if want := "clog: reading at offset 65636"; !strings.Contains(err.Error(), want) {
		t.Errorf("error %q, want %q", err, want)
	}
}
