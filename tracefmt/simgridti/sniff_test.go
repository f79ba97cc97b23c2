package simgridti

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSniff(t *testing.T) {
	tests := []struct {
		name string
		head string
		want bool
	}{
		{"init lines", "0 init\n1 init\n", true},
		{"actor names", "p0 compute 1e6\np1 recv p0\n", true},
		{"comments first", "# replay of a stencil\n\n0 init 1\n0 send 1 0 1e6\n", true},
		{"tracer output", "0 init\n0 compute 0.3996\n0 send 1 7 100 1\n0 recv -333 9 10 2\n", true},
		{"location", "0 location foo.c 12\n", true},
		{"index", "tr.txt_files/1795339876.502247_rank-1.txt\ntr.txt_files/1795339876.502247_rank-2.txt\n", true},
		{"one-line index", "actions.txt\n", true},
		{"a partial last line is ignored", "0 init\n1 ini", true},
		{"empty", "", false},
		{"only comments", "# nothing\n", false},
		{"unknown action", "0 init\n0 jump 3\n", false},
		{"words as arguments", "0 send to 1\n", false},
		{"index mixed with actions", "0 init\nrank1.txt\n", false},
		{"single words are not paths", "hello\nworld\n", false},
		{"numbers are not paths", "1.5\n2.5\n", false},
		{"ALOG", "-2 0 0 0 0 0 \n-3 0 0 0 0 4\n-101 0 0 1 0 12\n", false},
		{"CLOG2 preamble", "CLOG-02.44\x00\x00\x00TRUE \x00", false},
		{"tsim-like header", "tsim 1\nranks 2\n", false},
		{"Paraver", "#Paraver (01/01/2004 at 00:00):1000:1(4):1:4(1:1,1:1,1:1,1:1)\n1:1:1:1:1:0:100:1\n", false},
		{"CSV", "rank,time,event\n0,1.5,send\n", false},
		{"binary", "\x00\x01\x02\x03\n\x04\x05\n", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Sniff([]byte(tt.head)); got != tt.want {
				t.Errorf("Sniff(%q) = %v, want %v", tt.head, got, tt.want)
			}
		})
	}
}

// TestSniffRealFiles: every TI file in testdata is recognised.
func TestSniffRealFiles(t *testing.T) {
	paths, err := filepath.Glob("testdata/*/*.txt")
	if err != nil {
		t.Fatal(err)
	}
	more, _ := filepath.Glob("testdata/smpi332/trace.txt_files/*.txt")
	paths = append(paths, more...)
	if len(paths) < 5 {
		t.Fatalf("found only %d test files", len(paths))
	}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if len(b) > 4096 {
			b = b[:4096]
		}
		if !Sniff(b) {
			t.Errorf("%s not recognised:\n%s", p, strings.SplitN(string(b), "\n", 4)[0])
		}
	}
}
