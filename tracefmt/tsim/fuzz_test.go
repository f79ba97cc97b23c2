package tsim

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/tracesim/tracesim/tracefmt"
)

// FuzzRead: no input makes the reader panic; what it accepts is a valid
// trace that the writer can write, reading that back gives an equal
// trace, and writing it again gives the same bytes. The corpus starts
// from real traces of MPE and SimGrid written as tsim; worlds of any
// declared size are fuzzed, since the reader refuses mostly empty ones
// before allocating for them.
func FuzzRead(f *testing.F) {
	paths, _ := filepath.Glob("../../testdata/tsim/*.tsim")
	if len(paths) == 0 {
		f.Fatal("no seed files in testdata/tsim")
	}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	for _, b := range realSeeds(f) {
		f.Add(b)
	}
	for _, s := range []string{
		"tsim 1\nranks 70000\n0 0 compute dur=1\n", // refused: mostly empty
		"tsim 1\nranks 65537\n0 0 compute dur=1\n", // the most empty ranks accepted
		"tsim 1\nranks 2\npairing oldest\n1 0 enter A\n2 0 enter A\n3 0 leave A\n4 0 leave 0\n",
		"tsim 1\nranks 3\nunit ps\ncomm \"\" ranks=2,0\n0 0 send to=2 comm=1 size=1e3\n0 2 recv from=0 comm=1 anysrc\n",
		"tsim 1\nranks 1\nuntimed\n- 0 compute dur=1.5ms\n- 0 compute flops=2Gf\n- 0 marker \"x y\" text=\"\\x00\"\n",
		"tsim 1\nranks 2\nstate \"7\"\nstate 7\n-0 1 enter 1\n1e-300 1 leave \"7\" # c\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, err := Read(bytes.NewReader(data))
		// Read in blocks of a few lines, the same input gives the same
		// trace or the same error.
		blocks, berr := read(context.Background(), bytes.NewReader(data), readOptions{workers: 2, blockSize: 64})
		if fmt.Sprint(err) != fmt.Sprint(berr) {
			t.Fatalf("read in blocks: error %v, want %v", berr, err)
		}
		// Without the count pass (an input read once), the same again.
		chunked, cerr := read(context.Background(), bytes.NewReader(data), readOptions{workers: 2, blockSize: 64, noCount: true})
		if fmt.Sprint(err) != fmt.Sprint(cerr) {
			t.Fatalf("read without counts: error %v, want %v", cerr, err)
		}
		if err != nil {
			if _, ok := err.(*ParseError); !ok {
				t.Fatalf("error %T is not a *ParseError: %v", err, err)
			}
			return
		}
		if d := diffTraces(tr, blocks); d != "" {
			t.Fatalf("read in blocks: %s", d)
		}
		if !reflect.DeepEqual(blocks, chunked) {
			t.Fatalf("read without counts: the trace differs from the one read with counts")
		}
		if err := tr.Validate(); err != nil {
			t.Fatalf("accepted an invalid trace: %v", err)
		}
		var first bytes.Buffer
		if err := Write(&first, tr); err != nil {
			t.Fatalf("cannot write what was read: %v", err)
		}
		back, err := Read(bytes.NewReader(first.Bytes()))
		if err != nil {
			t.Fatalf("cannot read what was written: %v\n%s", err, first.Bytes())
		}
		if d := diffTraces(tr, back); d != "" {
			t.Fatalf("the trace changed in a round trip: %s\n%s", d, first.Bytes())
		}
		var second bytes.Buffer
		if err := Write(&second, back); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(first.Bytes(), second.Bytes()) {
			t.Fatalf("rewriting changed the text:\n%s\nthen:\n%s", first.Bytes(), second.Bytes())
		}
	})
}

// FuzzDecodeFast: where the one-pass decoder of common records accepts
// a line, the general decoder accepts it too and decodes the same
// record.
func FuzzDecodeFast(f *testing.F) {
	for _, s := range []string{
		"0 0 enter Compute", "1.5 1 leave MPI_Send", "2 0 send to=1 tag=3 size=4KiB comm=row req=7 nb",
		"3 1 recv from=0 tag=-1 size=4096 anysrc anytag # c", "4 0 wait req=7 all test", "- 0 compute dur=1.5ms",
		"5 0 compute flops=2Gf", "6 1 coll bcast root=0 sent=8 recv=8 comm=1", "7 0 coll allreduce sizeunknown",
		"8 0 marker m text=x=y", "9 0 marker m text=\"x\"", "1e3 0 enter A", "10 2 enter A", "11 0 enter a=b",
		"12 0 send to=1 size=99999999999999999999", "12 0 send to=1 size=1000000000000000000", "13 0 coll bcast",
		"14 0 compute dur=1 flops=1", "15 0 enter \"A B\"", "16 0 enter 3", "17 0\tsend\tto=1\t\tsize=1B",
		"0.1234567890123456 0 enter A", "18 0 send to=1 to=1", "19 0 send to=1 =3", "20 0 send to= size=1",
		"21 0 enter MPI_Allreduce_and_more", "22 1 leave MPI_Allreduce_x=y", "23 0 marker a_long_marker_name#x text=t",
		"24 0 enter a_long_state\x01name", "25 0 leave a_long_state!name text=x", "26 0 enter éééééééé",
		"27 0 send to=1 tag=999999999 size=123456789 req=1", "28 0 send tag=1234567890 to=1", "29 0 send to=2",
		"30 0 recv from=1 from=1", "31 0 send to=1 size=0012", "32 0 send to=1 tag=1\r", "33 0 wait req=4 tag=1",
		"34 0 send to=1 size=4KiB tag=007", "35 0 recv from=0 tag=1 size=8 req=9 nb", "36 0 send to=1 tag=1#x",
	} {
		f.Add(s, uint16(2), true, uint8(2))
	}
	f.Add("- 1 enter S", uint16(3), false, uint8(0))
	f.Fuzz(func(t *testing.T, line string, ranks uint16, timed bool, unit uint8) {
		units := []tracefmt.Unit{tracefmt.Second, tracefmt.Millisecond, tracefmt.Microsecond, tracefmt.Nanosecond, tracefmt.Picosecond}
		rf := recordFormat{
			ranks: int(ranks) + 1, timed: timed, unit: units[int(unit)%len(units)], firstRecord: 1,
			commIDs: map[string]uint16{"MPI_COMM_WORLD": 0, "row": 1}, ncomms: 2,
		}
		s := lineScanner{line: []byte(line)}
		if !s.more() {
			return
		}
		var fast, general rec
		if !rf.decodeFast(s.line, s.pos, &fast) {
			return
		}
		if err := rf.decode(&s, &general); err != nil {
			t.Fatalf("decodeFast accepted %q, decode refused it: %v", line, err)
		}
		if !reflect.DeepEqual(fast, general) {
			t.Fatalf("%q: decodeFast gave %+v, decode %+v", line, fast, general)
		}
	})
}
