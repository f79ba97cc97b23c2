package tsim

import (
	"os"
	"path/filepath"
	"testing"
)

func TestSniff(t *testing.T) {
	tests := []struct {
		name string
		head string
		want bool
	}{
		{"version line", "tsim 1\nranks 2\n", true},
		{"comments first", "# made by hand\n\n  # more\ntsim 1\n", true},
		{"byte order mark", "\uFEFFtsim 1\n", true},
		{"CRLF", "# c\r\ntsim 1\r\n", true},
		{"trailing comment", "tsim 1 # the format\n", true},
		{"tabs", "\ttsim\t1\n", true},
		{"cut after the version", "tsim 12", true},
		{"empty", "", false},
		{"comments only", "# tsim 1\n", false},
		{"no version", "tsim\nranks 2\n", false},
		{"word version", "tsim one\n", false},
		{"other word", "tsimulation 1\n", false},
		{"SimGrid TI", "0 init\n0 send 1 1 8\n", false},
		{"ALOG", "-2 0 0 10 0 0\n", false},
		{"binary", "\x00\x01CLOG-02.44\x00", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Sniff([]byte(tt.head)); got != tt.want {
				t.Errorf("Sniff(%q) = %v, want %v", tt.head, got, tt.want)
			}
		})
	}
}

// TestSniffExamples: every example file is recognised.
func TestSniffExamples(t *testing.T) {
	paths, _ := filepath.Glob("../../testdata/tsim/*.tsim")
	if len(paths) == 0 {
		t.Fatal("no example files")
	}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if !Sniff(data[:min(len(data), 4096)]) {
			t.Errorf("%s not recognised", p)
		}
	}
}
