package tsim

import "testing"

// TestSkipName: skipName stops at the first byte that may end a name
// (a blank, a control byte, '!', '"', '#' or '='), never after it, at
// the zero after the line at the latest.
func TestSkipName(t *testing.T) {
	tests := []struct {
		line string
		from int
		want int
	}{
		{"MPI_Allreduce", 0, 13},                   // the end of the line
		{"MPI_Allreduce x", 0, 13},                 // a blank after a word
		{"MPI_Allreduce x 1234", 0, 13},            // the blank, in a second word
		{"MPI_Allreduce\tx 1234", 0, 13},           // a tab
		{"MPI_All=reduce x", 0, 7},                 // '='
		{"MPI_Allr\"educe x", 0, 8},                // '"' in the second word
		{"MPI_Allreduce#x 1234", 0, 13},            // '#'
		{"abc!defghijk", 0, 3},                     // '!' stops the words; the byte loop goes on
		{"ééééééé x", 0, 14},                       // UTF-8 bytes are name bytes
		{"x 0 enter Compute", 10, 17},              // fewer than eight left: the end
		{"x 0 enter MPI_Irecv tail", 10, 19},       // the blank in the second word
		{"x 0 enter MPI_Irecv\ttail 1234", 10, 19}, // a tab in the second word
		{"\x01bcdefghij", 0, 0},                    // a control byte
		{"abcdefgh", 0, 8},                         // a whole word, then the end
		{"abcdefg=", 0, 7},                         // '=' as the word's last byte
		{"abcdefghijklmnopqrstuvw z", 0, 23},
	}
	for _, tt := range tests {
		var b lineBuf
		copy(b[:], tt.line)
		if got := skipName(&b, tt.from); got != tt.want {
			t.Errorf("skipName(%q, %d) = %d, want %d", tt.line, tt.from, got, tt.want)
		}
	}
}
