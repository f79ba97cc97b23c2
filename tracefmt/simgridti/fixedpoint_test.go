package simgridti

import (
	"bytes"
	"testing"
)

// TestRewriteIsFixedPoint: what the writer writes reads back to a trace it
// writes the same way (issue 20: the fuzz reproducers changed at every
// rewrite). Ranks whose k-th collectives are different operations take no
// part in each other's calls.
func TestRewriteIsFixedPoint(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"alltoall beside alltoallv", "0 AlltoAll 2 0 1\n1 AlltoAllv 0 0 7 0 7 1",
			"0 init\n1 init\n0 alltoall 1 0 0 0\n0 finalize\n1 alltoallv 7 0 7 8 0 8 6 6\n1 finalize\n"},
		{"reducescatter beside gatherv", "0 reduCesCAtter 0 0 0\n1 gAtherv 0 1 0 1",
			"0 init\n1 init\n0 reducescatter 0 0 0 0\n0 finalize\n1 gatherv 0 0 0 1 0 0\n1 finalize\n"},
		{"alltoallv sending more than received", "0 alltoallv 24 8 16 8 0 8 6 6\n1 alltoallv 0 0 0 8 8 0 6 6\n",
			"0 init\n1 init\n0 alltoallv 2 1 1 1 1 0 0 0\n0 finalize\n1 alltoallv 0 0 0 1 1 0 0 0\n1 finalize\n"},
		{"gatherv of two", "0 gatherv 8 8 16 0 6 6\n1 gatherv 16 0 0 0 6 6\n",
			"0 init\n1 init\n0 gatherv 1 1 2 0 0 0\n0 finalize\n1 gatherv 2 0 0 0 0 0\n1 finalize\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr, err := Read(bytes.NewReader([]byte(tt.in)), nil)
			if err != nil {
				t.Fatal(err)
			}
			first, ok := writeString(t, tr)
			if !ok {
				t.Fatal("cannot write the trace")
			}
			if string(first) != tt.want {
				t.Errorf("first write:\n%s\nwant:\n%s", first, tt.want)
			}
			back, err := Read(bytes.NewReader(first), nil)
			if err != nil {
				t.Fatalf("cannot read what was written: %v\n%s", err, first)
			}
			if second, _ := writeString(t, back); !bytes.Equal(first, second) {
				t.Errorf("rewriting changed the text:\n%s\nthen:\n%s", first, second)
			}
		})
	}
}
