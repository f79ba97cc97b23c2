package alog

import (
	"errors"
	"strings"
	"testing"
)

func TestReadErrors(t *testing.T) {
	tests := []struct {
		name      string
		in        string
		line, col int // 0: not a positioned error
		msg       string
	}{
		{"five fields", "-3 0 0 1 0 0\n1 0 0 0 0\n", 2, 10, "expected 6 integer fields `type process task data cycle timestamp`, found 5 (missing timestamp)"},
		{"one field", "7\n", 1, 2, "found 1 (missing process)"},
		{"type not an integer", "x 0 0 0 0 0\n", 1, 1, `type "x": expected a 32-bit integer`},
		{"process not an integer", "1 p0 0 0 0 0\n", 1, 3, `process "p0": expected a 32-bit integer`},
		{"data too large", "1 0 0 4294967296 0 0\n", 1, 7, `data "4294967296": expected a 32-bit integer`},
		{"cycle not an integer", "1 0 0 0 c 0\n", 1, 9, `cycle "c": expected a 32-bit integer`},
		{"decimal timestamp", "1 0 0 0 0 12.5\n", 1, 11, `timestamp "12.5": expected an unsigned integer number of microseconds`},
		{"negative timestamp", "1 0 0 0 0 -3\n", 1, 11, `timestamp "-3"`},
		{"negative process", "1 -2 0 0 0 0\n", 1, 3, "process -2 outside 0..1048575"},
		{"absurd process", "1 2000000 0 0 0 0\n", 1, 3, "process 2000000 outside 0..1048575"},
		{"negative cycle", "-11 0 0 0 0 99\n1 0 0 0 -1 0\n", 2, 9, "negative cycle -1"},
		{"cycle without roll-over point", "1 0 0 0 2 10\n", 1, 9, "cycle 2, but no timer roll-over point (-11 header) before it gives the length of a cycle"},
		{"roll-over point changed after use", "-11 0 0 0 0 99\n1 0 0 0 1 10\n-11 0 0 0 0 50\n", 3, 13, "roll-over point 50 differs from 99, which earlier cycles used"},
		{"time beyond 2^53", "-11 0 0 0 0 1152921504606846976\n1 0 0 0 10 0\n", 2, 12, "exceeds 2^53 microseconds"},
		{"timestamp beyond 2^53", "1 0 0 0 0 9007199254740993\n", 1, 11, "exceeds 2^53 microseconds"},
		{"message without tag and size", "-101 0 0 1 0 5\n", 1, 15, `message comment "": expected "tag size"`},
		{"message with words", "-101 0 0 1 0 5 tag size\n", 1, 16, `message comment "tag size": expected two integers "tag size"`},
		{"message comment with blanks around", "-101 0 0 1 0 5 \t 1 2 3  \n", 1, 18, `message comment "1 2 3": expected "tag size"`},
		{"message with a negative size", "-102 1 0 0 0 5 3 -4\n", 1, 16, "negative message size -4"},
		{"negative receiver", "-101 0 0 -1 0 5 1 2\n", 1, 10, "receiver -1 is not a process"},
		{"absurd sender", "-102 0 0 1048576 0 5 1 2\n", 1, 10, "sender 1048576 is not a process"},
		{"partner outside the world", "-3 0 0 2 0 0\n-101 0 0 1 0 5 1 2\n-101 1 0 5 0 6 1 2\n", 3, 10, "message partner 5 outside the world of 2 processes"},
		{"negative process count", "-3 0 0 -1 0 0\n", 1, 8, "number of processes -1 outside 0..1048576"},
		{"absurd process count", "-3 0 0 2000000 0 0\n", 1, 8, "number of processes 2000000 outside 0..1048576"},
		{"state without a name", "-13 0 1 2 0 0 red:gray\n", 1, 15, "state definition: expected `color:bitmap name` after the six fields, found \"red:gray\""},
		{"state without a comment", "-13 0 1 2 0 0\n", 1, 14, "state definition: expected `color:bitmap name`"},
		{"line too long", "-3 0 0 1 0 0\n1 0 0 0 0 0 " + strings.Repeat("x", maxLine) + "\n", 2, 1, "line longer than 65536 bytes"},
		{"empty file", "", 1, 1, "alog: 1:1: empty file: expected a process count (-3 header) or an event"},
		{"blank line (fuzz find)", " ", 2, 1, "alog: 2:1: the file ends without an event"},
		{"sparse world (fuzz find)", "0 70000 0 0 0 0", 1, 3, "alog: 1:3: process 70000: the world has 70001 ranks but only 1 of them have events"},
		{"headers only", "-1 0 0 0 0 0 Me\n-11 0 0 0 0 0\n", 3, 1, "alog: 3:1: the file ends without an event"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tr, err := Read(strings.NewReader(tc.in))
			if err == nil {
				t.Fatalf("accepted: %d ranks", tr.Size())
			}
			if !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("error %q, want it to contain %q", err, tc.msg)
			}
			var e *Error
			if tc.line == 0 {
				if errors.As(err, &e) {
					t.Errorf("error %q has a position; want none", err)
				}
				return
			}
			if !errors.As(err, &e) {
				t.Fatalf("error %q is not an *alog.Error", err)
			}
			if e.Line != tc.line || e.Col != tc.col {
				t.Errorf("at %d:%d, want %d:%d (%v)", e.Line, e.Col, tc.line, tc.col, err)
			}
		})
	}
}

var errDisk = errors.New("disk on fire")

type failingReader struct{ data string }

func (r *failingReader) Read(p []byte) (int, error) {
	if r.data == "" {
		return 0, errDisk
	}
	n := copy(p, r.data)
	r.data = r.data[n:]
	return n, nil
}

func TestReadIOError(t *testing.T) {
	_, err := Read(&failingReader{"-3 0 0 1 0 0\n1 0 0 0 0 5\n"})
	if !errors.Is(err, errDisk) {
		t.Fatalf("error %v, want it to wrap the reader's", err)
	}
	if want := "alog: reading line 3"; !strings.Contains(err.Error(), want) {
		t.Errorf("error %q, want %q", err, want)
	}
}
