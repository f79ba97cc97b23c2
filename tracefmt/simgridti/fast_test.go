package simgridti

import (
	"bytes"
	"fmt"
	"reflect"
	"testing"
)

// TestFastPathAgrees reads traces of the lines the fast path takes, and
// of near misses it must leave to the general path, both ways: the
// traces (events, states, world, attributes) and the errors (file, line,
// column, wording) are the same.
func TestFastPathAgrees(t *testing.T) {
	for _, c := range []struct {
		name, text string
		err        string // the error both paths give; "" for none
	}{
		{"p2p current grammar", "0 isend 1 0 4096 0\n1 irecv 0 0 4096 0\n0 waitall\n1 waitall 1\n", ""},
		{"p2p default datatype", "0 init 1\n1 init\n0 send 1 3 10\n1 recv 0 3 80 1\n", ""},
		{"actor names", "p0 isend p1 2 8 0\np1 irecv p0 2 8 0\np0 wait 0 1 2\np1 test 0 1 2\np1 wait 0 1 2\n", ""},
		{"wait of no request", "0 wait 0 1 2\n1 init\n", ""},
		{"a rank named only by a wait of no request", "0 init\n02 wait 0 0 0", ""},
		{"proc null", "0 send -666 1 8 0\n0 recv -666 1 8 0\n0 compute 5\n", ""},
		{"wildcards", "0 irecv -555 1 8 0\n0 irecv 1 -444 8 0\n1 send 0 1 8 0\n1 send 0 2 8 0\n0 waitall\n", ""},
		{"SimGrid 3.32 wildcards", "0 irecv -333 5 8 0\n1 isend 0 5 8 0\n0 wait -555 0 5\n1 wait 1 0 5\n0 recv -333 -444 8\n1 send 0 9 8\n", ""},
		{"numbers", "0 compute 1e+06\n0 compute 0.25\n0 compute 1234567890123456789\n0 compute 3.\n0 compute .5e-3\n", ""},
		{"collectives", "0 allreduce 4 10\n1 allreduce 4 0 1\n0 barrier\n1 barrier\n0 allReduce 4 1\n1 allreduce 4 1\n", ""},
		{"legacy grammar then three fields", "0 Isend 1 8\n1 irecv 0 8 0\n1 wait\n0 send 1 4 2\n1 recv 0 4 2\n", ""},
		{"blanks", "  0\tisend  1 0 8 0  \r\n1 irecv 0 0 8 0\n\n# comment\n0 waitall\n", ""},
		{"near misses of the one-pass tokenizer", "p0 isend -0 0 8 0\n0 compute 123456789012345\n0 compute 1234567890123456\n0 isend p1 -0 1e3 0\n1 irecv 0 0 0001000 0\n1 wait 0 1 0\n\v1\fwaitall\t3 \n0 allreduce 1e2 2.5 1\n", ""},
		{"a name that runs into a digit", "0 isend2 1 0 8 0\n", `1:3: unknown action "isend2"`},
		{"a count that runs into a letter", "0 isend 1 0 8x 0\n", `1:13: expected count (a number), got "8x"`},
		{"a rank of ten digits", "0 send 1234567890 0 8 0\n", `1:8: destination 1234567890 is beyond the 1048576 ranks tracesim supports`},
		{"a bare actor prefix", "p compute 5\n", `1:1: expected a rank number or an actor name like p0, got "p"`},
		{"too many fields", "0 isend 1 0 8 0 7\n", "1:17: isend takes 3 to 4 arguments (dst tag count [datatype], or legacy dst size [datatype]), got 5"},
		{"peer beyond the world", "0 send 1 0 8 0\n", `1:8: rank 1 is outside the world of 1 ranks (ranks seen: 0 to 0)`},
		{"negative peer", "0 send -3 0 8 0\n", `1:8: destination -3 is outside the world (ranks start at 0)`},
		{"send of any tag", "0 send 1 -444 8 0\n1 recv 0 1 8 0\n", `1:10: a send cannot use MPI_ANY_TAG (-444)`},
		{"bad datatype", "0 send 1 0 8 99\n1 recv 0 0 8\n", `1:14: unknown datatype id 99 (SMPI's predefined datatypes are 0 to 59)`},
		{"bad count", "0 compute 1e400\n", `1:11: expected flop count (a number), got "1e400"`},
		{"negative count", "0 compute -5\n", `1:11: negative flop count -5`},
		{"waitall arguments", "0 waitall 1 2\n", `1:13: waitall takes 0 to 1 arguments ([request count]), got 2`},
		{"barrier arguments", "0 barrier 1\n", `1:11: barrier takes no arguments, got 1`},
		{"wrong rank in a line", "0 init\nx1 compute 5\n", `2:1: expected a rank number or an actor name like p0, got "x1"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			fast, ferr := Read(bytes.NewReader([]byte(c.text)), nil)
			gen, gerr := readNamed("", bytes.NewReader([]byte(c.text)), nil, true)
			if fmt.Sprint(ferr) != fmt.Sprint(gerr) {
				t.Fatalf("fast path: %v\ngeneral path: %v", ferr, gerr)
			}
			if c.err == "" && ferr != nil {
				t.Fatalf("error %v", ferr)
			}
			if c.err != "" && (ferr == nil || !bytes.Contains([]byte(ferr.Error()), []byte(c.err))) {
				t.Fatalf("error %v, want one containing %q", ferr, c.err)
			}
			if !reflect.DeepEqual(fast, gen) {
				ft, _ := writeString(t, fast)
				gt, _ := writeString(t, gen)
				t.Fatalf("fast path read\n%s\ngeneral path read\n%s", ft, gt)
			}
		})
	}
}

// TestFastPathAllocs: in steady state (the rank's stream and request
// list grown) a line costs no allocation, whichever action it holds.
func TestFastPathAllocs(t *testing.T) {
	lines := [][]byte{
		[]byte("0 irecv 1 0 24000 6"), []byte("0 isend 1 1 24000 6"), []byte("0 waitall 2"),
		[]byte("0 compute 400000"), []byte("0 compute 1e+06"), []byte("0 allreduce 1 0 0"),
		[]byte("0 send 1 3 10"), []byte("0 recv 1 3 10 1"), []byte("0 barrier"),
		[]byte("0 isend 1 2 8 0"), []byte("0 wait 0 1 2"), []byte("0 test 0 1 2"),
		[]byte("0 irecv -333 -444 8 0"), []byte("0 wait -555 0 7"),
	}
	p := &parser{maxRank: -1, peerMax: -1}
	src := &source{rank: -1}
	parse := func() {
		for _, l := range lines {
			src.line++
			if !p.fastLine(src, l) {
				t.Fatalf("the fast path left %q", l)
			}
		}
		rs := p.ranks[0]
		rs.events, rs.pending = rs.events[:0], rs.pending[:0]
	}
	parse() // defines the states and grows the buffers
	if n := testing.AllocsPerRun(100, parse); n != 0 {
		t.Fatalf("%v allocations for %d lines, want 0", n, len(lines))
	}
}
