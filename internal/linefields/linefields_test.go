package linefields

import (
	"reflect"
	"testing"
)

func TestSplit(t *testing.T) {
	tests := []struct {
		line, seps string
		want       []Field
	}{
		{"link r0 r1 bw=1Gb/s", "", []Field{{"link", 1}, {"r0", 6}, {"r1", 9}, {"bw=1Gb/s", 12}}},
		{"\t0-3  5 # a comment", "", []Field{{"0-3", 2}, {"5", 7}}},
		{"map 0,1, 2", ",", []Field{{"map", 1}, {"0", 5}, {"1", 7}, {"2", 10}}},
		{"map 0,1", "", []Field{{"map", 1}, {"0,1", 5}}},
		{"# only a comment", "", nil},
		{"", "", nil},
	}
	for _, tc := range tests {
		if got := Split(tc.line, tc.seps); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Split(%q, %q) = %v, want %v", tc.line, tc.seps, got, tc.want)
		}
	}
}
