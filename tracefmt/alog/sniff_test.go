package alog

import (
	"os"
	"strings"
	"testing"
)

const sniffLen = 4096 // what tracefmt/formats passes to Sniff

func head(b []byte) []byte { return b[:min(len(b), sniffLen)] }

func TestSniffFiles(t *testing.T) {
	tests := []struct {
		path string
		want bool
	}{
		{sharedDir + "srtest.alog", true},
		{sharedDir + "sam_hyp.16.log", true},
		{sharedDir + "../simgrid-ti/actions_with_isend.txt", false},
		{sharedDir + "../simgrid-ti/actions_waitall.txt", false},
		{sharedDir + "../simgrid-ti/actions_allgatherv.txt", false},
		{sharedDir + "../goal/binary_tree_32.goal", false},
		{sharedDir + "../paraver/qsort_beo3.prv", false},
		{sharedDir + "../paraver/qsort_beo3.pcf", false},
		{sharedDir + "../dumpi/testtrace.meta", false},
		{sharedDir + "../clog/fpilog.clog", false},
		{sharedDir + "../clog2/cpilog.clog2", false},
		{sharedDir + "../slog2/fpilog.slog2", false},
		{"../../testdata/tsim/ring3.tsim", false},
		{"../../testdata/tsim/features.tsim", false},
		{"../../testdata/tsim/untimed.tsim", false},
	}
	for _, tc := range tests {
		t.Run(tc.path, func(t *testing.T) {
			b, err := os.ReadFile(tc.path)
			if os.IsNotExist(err) {
				t.Skipf("%s absent", tc.path)
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := Sniff(head(b)); got != tc.want {
				t.Errorf("Sniff = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestSniffSynthetic(t *testing.T) {
	long := "-1 0 0 0 0 0 Me\n" + strings.Repeat("161 0 0 1 0 326778 \n", 300)
	tests := []struct {
		name string
		in   string
		want bool
	}{
		{"header line only", "-1 0 0 0 0 0 Me\n", true},
		{"comments and blank lines first", "# made by hand\n\n-3 0 0 2 0 0\n1 0 0 0 0 5\n", true},
		{"CRLF", "-2 0 0 1 0 0\r\n1 0 0 0 0 5\r\n", true},
		{"cut mid-line at the end of head", long[:sniffLen], true},
		{"last line without newline in a whole file", "-3 0 0 2 0 0\n1 0 0 0 0 5", true},
		{"first record is an event", "1 0 0 0 0 5\n", false},
		{"first record header out of range", "-16 0 0 0 0 0\n", false},
		{"non-integer field later", "-1 0 0 0 0 0 Me\n1 0 0 zero 0 5\n", false},
		{"decimal timestamp", "-1 0 0 0 0 0 Me\n1 0 0 0 0 5.5\n", false},
		{"short line", "-1 0 0 0 0 0 Me\n1 0 0 0\n", false},
		{"TI", "0 init\n1 init\n0 send 1 1e6\n", false},
		{"TI with p prefix", "p0 compute 1e6\np0 send p1 8\n", false},
		{"GOAL", "num_ranks 2\nrank 0 {\nl1: send 8b to 1\n}\n", false},
		{"NUL byte", "-1 0 0 0 0 0 M\x00e\n", false},
		{"empty", "", false},
		{"blank", "\n\n  \n", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Sniff(head([]byte(tc.in))); got != tc.want {
				t.Errorf("Sniff = %v, want %v", got, tc.want)
			}
		})
	}
}
