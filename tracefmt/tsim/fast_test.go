package tsim

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/tracesim/tracesim/tracefmt"
)

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

// TestDecodeFastNumbers: the arguments of sends, receives and waits that
// numArg reads as it scans them give the fields decode gives, and those
// it leaves (a unit, a long number, a repeated key, a key the kind does
// not take, a rank out of the world) are judged as before.
func TestDecodeFastNumbers(t *testing.T) {
	rf := recordFormat{ranks: 4, timed: true, unit: tracefmt.Microsecond, firstRecord: 1,
		commIDs: map[string]uint16{"MPI_COMM_WORLD": 0}, ncomms: 1}
	for _, tc := range []struct {
		line      string
		fast      bool // decodeFast accepts it
		peer, tag int32
		size, req int64
	}{
		{"1 0 send to=3 tag=12 size=8192", true, 3, 12, 8192, 0},
		{"1 0 recv from=2 tag=999999999 size=123456789 req=77 nb", true, 2, 999999999, 123456789, 77},
		{"1 0 send size=0012 to=1 tag=007", true, 1, 7, 12, 0},
		{"1 0 send to=1 size=4KiB", true, 1, 0, 4096, 0},
		{"1 0 send tag=1234567890 to=1", true, 1, 1234567890, 0, 0},
		{"1 0 wait req=5", true, 0, 0, 0, 5},
		{"1 0 send to=4 size=1", false, 0, 0, 0, 0},
		{"1 0 send to=1 to=1", false, 0, 0, 0, 0},
		{"1 0 wait req=5 tag=1", false, 0, 0, 0, 0},
		{"1 0 send to=1\tsize=3 # c", true, 1, 0, 3, 0},
	} {
		s := lineScanner{line: []byte(tc.line)}
		s.more()
		var fast, general rec
		ok := rf.decodeFast(s.line, s.pos, &fast)
		if ok != tc.fast {
			t.Errorf("%q: decodeFast accepted it: %v, want %v", tc.line, ok, tc.fast)
			continue
		}
		if !ok {
			continue
		}
		if err := rf.decode(&s, &general); err != nil || !reflect.DeepEqual(fast, general) {
			t.Errorf("%q: decodeFast gave %+v, decode %+v (%v)", tc.line, fast, general, err)
		}
		e := fast.e
		if e.Peer != tc.peer || e.Tag != tc.tag || e.Size != tc.size || e.Request() != tc.req {
			t.Errorf("%q: peer %d tag %d size %d req %d, want %d %d %d %d", tc.line, e.Peer, e.Tag, e.Size, e.Request(), tc.peer, tc.tag, tc.size, tc.req)
		}
	}
}

// TestDigits: digits gives the value and count of the leading digits of
// eight bytes (8: maybe more), what a loop over the bytes gives, for any
// bytes after them.
func TestDigits(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	picks := []byte("0123456789/:. \x00\x80\xaf\xb0\xb9\xba\xff")
	for trial := range 50000 {
		var b lineBuf
		at := rng.IntN(fastMax - 8)
		for k := range 16 {
			c := picks[rng.IntN(len(picks))]
			if k < rng.IntN(10) {
				c = '0' + byte(rng.IntN(10))
			}
			b[at+k] = c
		}
		var want uint64
		n := 0
		for n < 8 && b[at+n]-'0' <= 9 {
			want = want*10 + uint64(b[at+n]-'0')
			n++
		}
		if v, k := digits(&b, at); v != want || k != n {
			t.Fatalf("trial %d: digits(% x) = %d, %d; want %d, %d", trial, b[at:at+8], v, k, want, n)
		}
	}
}

// TestDecodeFastTimes: times of every length decodeFast takes (up to 15
// digits, split anywhere by the point) give decode's times, and longer
// ones are left to it.
func TestDecodeFastTimes(t *testing.T) {
	rf := recordFormat{ranks: 4, timed: true, unit: tracefmt.Microsecond, firstRecord: 1}
	for digits := 1; digits <= 18; digits++ {
		for point := -1; point <= digits; point++ {
			var tm []byte
			for k := range digits {
				if k == point {
					tm = append(tm, '.')
				}
				tm = append(tm, byte('1'+(k*7)%9))
			}
			if point == digits {
				tm = append(tm, '.')
			}
			line := string(tm) + " 3 leave S"
			s := lineScanner{line: []byte(line)}
			s.more()
			var fast, general rec
			ok := rf.decodeFast(s.line, s.pos, &fast)
			if ok != (digits <= 15) {
				t.Errorf("%q: decodeFast accepted it: %v", line, ok)
				continue
			}
			if !ok {
				continue
			}
			if err := rf.decode(&s, &general); err != nil || fast.e != general.e {
				t.Errorf("%q: decodeFast gave %+v, decode %+v (%v)", line, fast.e, general.e, err)
			}
		}
	}
}

// TestHeaderStateNames: enters and leaves name the states they name,
// read alone and in blocks, whether decodeFast finds the name among the
// header's (bare names of 1 to 16 bytes), leaves it to the general
// path (longer names, names of digits, which are indices, names the
// records define) or shares a slot of its table with another; and the
// markers after them name theirs.
func TestHeaderStateNames(t *testing.T) {
	header := []string{"A", "Compute", "MPI_Allreduce", "exactly16bytes__", "seventeen_bytes__", "12", "B", "MPI_Allreduc", "Computf"}
	for k := range 40 {
		header = append(header, fmt.Sprintf("S%d", k)) // more than the table holds
	}
	names := append([]string{"new", "MPI_Allreduce_", "Comput", "exactly16bytes_", "exactly16bytes___"}, header...)
	names = append(names, "0", "2") // indices
	for _, nh := range []int{1, 9, 16, len(header)} {
		var b strings.Builder
		b.WriteString("tsim 1\nranks 2\nunit us\n")
		for _, nm := range header[:nh] {
			fmt.Fprintf(&b, "state %q\n", nm)
		}
		var want []string
		for k, nm := range names {
			if nm == "12" && nh < 6 {
				continue // an index out of range
			}
			// The marker after the enter names a marker of its own.
			fmt.Fprintf(&b, "%d 0 enter %s\n%d 0 marker M%d\n%d 0 leave %s\n", 2*k, nm, 2*k, len(want), 2*k+1, nm)
			want = append(want, nm)
		}
		for _, read := range []func() (*tracefmt.Trace, error){
			func() (*tracefmt.Trace, error) { return readSerial(b.String()) },
			func() (*tracefmt.Trace, error) { return readInBlocks(b.String(), 40) },
		} {
			tr, err := read()
			if err != nil {
				t.Fatalf("%d header states: %v", nh, err)
			}
			evs := tr.Ranks[0].Events
			if len(evs) != 3*len(want) {
				t.Fatalf("%d header states: %d events, want %d", nh, len(evs), 3*len(want))
			}
			for k, e := range evs {
				nm := want[k/3]
				if k%3 == 1 {
					if got := tr.Markers[e.Marker()].Name; got != fmt.Sprintf("M%d", k/3) {
						t.Errorf("%d header states: event %d names marker %q, want M%d", nh, k, got, k/3)
					}
					continue
				}
				if st, err := strconv.Atoi(nm); err == nil {
					nm = tr.States[st].Name // an index
				}
				if got := tr.States[e.State()].Name; got != nm {
					t.Errorf("%d header states: event %d names state %q, want %q", nh, k, got, nm)
				}
			}
		}
	}
}

// TestHeaderStateWithText: an enter naming a header state that
// decodeFast resolves, with a text, and then enters and leaves of other
// header states (the record is reused: a name left from one line must
// not name the next), name their states and carry their texts, read
// alone and in blocks.
func TestHeaderStateWithText(t *testing.T) {
	const text = "tsim 1\nranks 1\nunit us\nstate A\nstate MPI_Send\n" +
		"1 0 enter A text=first\n2 0 leave A\n3 0 enter MPI_Send\n4 0 leave MPI_Send\n" +
		"5 0 enter MPI_Send text=second\n6 0 leave MPI_Send\n7 0 enter A\n8 0 leave A\n"
	want := []struct{ state, text string }{
		{"A", "first"}, {"A", ""}, {"MPI_Send", ""}, {"MPI_Send", ""},
		{"MPI_Send", "second"}, {"MPI_Send", ""}, {"A", ""}, {"A", ""},
	}
	for _, read := range []func() (*tracefmt.Trace, error){
		func() (*tracefmt.Trace, error) { return readSerial(text) },
		func() (*tracefmt.Trace, error) { return readInBlocks(text, 40) },
	} {
		tr, err := read()
		if err != nil {
			t.Fatal(err)
		}
		evs := tr.Ranks[0].Events
		if len(evs) != len(want) {
			t.Fatalf("%d events, want %d", len(evs), len(want))
		}
		for k, w := range want {
			e := &evs[k]
			if got := tr.States[e.State()].Name; got != w.state {
				t.Errorf("event %d names state %q, want %q", k, got, w.state)
			}
			if got := tr.Text(e); got != w.text {
				t.Errorf("event %d has text %q, want %q", k, got, w.text)
			}
		}
	}
}
