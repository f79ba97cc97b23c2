package tsim

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"testing/iotest"

	"github.com/tracesim/tracesim/tracefmt"
)

// blockSizes are the block sizes the block tests read with: a line or
// less per block, a few lines, many.
var blockSizes = []int{1, 40, 300, 4096}

// readSerial reads text line by line on the calling goroutine.
func readSerial(text string) (*tracefmt.Trace, error) {
	return read(context.Background(), strings.NewReader(text), readOptions{workers: 1})
}

// readInBlocks reads text in blocks of size bytes on three workers.
func readInBlocks(text string, size int) (*tracefmt.Trace, error) {
	return read(context.Background(), strings.NewReader(text), readOptions{workers: 3, blockSize: size})
}

// TestReadBlocksSameTrace: reading in blocks gives the trace reading
// line by line gives, for the test files, real traces and a generated
// one with texts, markers and states first named in the records.
func TestReadBlocksSameTrace(t *testing.T) {
	inputs := map[string]string{}
	paths, _ := filepath.Glob("../../testdata/tsim/*.tsim")
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		inputs[filepath.Base(p)] = string(b)
	}
	for i, b := range realSeeds(t) {
		inputs[fmt.Sprintf("real seed %d", i)] = string(b)
	}
	inputs["bench trace"] = string(mustWrite(t, benchTrace(t, 20_000, 8)))
	var gen strings.Builder
	gen.WriteString("tsim 1\nranks 3\nunit ns\ncomm row ranks=0,2\n\n")
	for i := range 400 {
		r := i % 3
		switch i % 5 {
		case 0:
			fmt.Fprintf(&gen, "%d %d enter \"state %d\" text=\"t\\t%d\"\n", i, r, i%7, i%11)
		case 1:
			fmt.Fprintf(&gen, "%d %d marker m%d text=x%d # comment\n", i, r, i%4, i%13)
		case 2:
			fmt.Fprintf(&gen, "%d %d compute dur=%dus\r\n", i, r, i)
		case 3:
			fmt.Fprintf(&gen, "   \n# a comment line\n%d %d coll allreduce sent=8 recv=8 comm=row\n", i, r)
		case 4:
			fmt.Fprintf(&gen, "%d %d marker \"esc\\\"aped %d\"\n", i, r, i%3)
		}
	}
	inputs["generated"] = gen.String()
	// States the header defines (one twice, one quoted) resolve on the
	// workers; names new to the header, indices and texts in order.
	var hdr strings.Builder
	hdr.WriteString("tsim 1\nranks 4\nstate A cat=p2p\nstate \"B b\"\nstate A cat=wait\nstate 7\n")
	for i := range 600 {
		r := i % 4
		switch i % 6 {
		case 0:
			fmt.Fprintf(&hdr, "%d %d enter A\n%d %d leave A\n", i, r, i, r)
		case 1:
			fmt.Fprintf(&hdr, "%d %d enter \"B b\"\n%d %d leave \"B b\"\n", i, r, i, r)
		case 2:
			fmt.Fprintf(&hdr, "%d %d enter N%d\n%d %d leave N%d\n", i, r, i%5, i, r, i%5)
		case 3:
			fmt.Fprintf(&hdr, "%d %d enter %d\n%d %d leave \"7\"\n", i, r, i%4, i, r)
		case 4:
			fmt.Fprintf(&hdr, "%d %d enter A text=t%d\n%d %d leave A\n", i, r, i%3, i, r)
		case 5:
			fmt.Fprintf(&hdr, "%d %d send to=%d tag=1 size=8\n%d %d recv from=%d tag=1 size=8\n", i, r, (r+1)%4, i, (r+1)%4, r)
		}
	}
	inputs["header states"] = hdr.String()
	// An index beyond the states so far, after lines the workers
	// resolve: the error of the serial read.
	inputs["index too high"] = hdr.String() + "700 0 enter 12\n"
	for name, text := range inputs {
		want, werr := readSerial(text)
		if name == "index too high" && fmt.Sprint(werr) != `tsim: line 1207:13: expected a state name or the index of a defined state (0 to 8), got "12" (write names made of digits in quotes)` {
			t.Errorf("%s: the serial read's error is %v", name, werr)
		}
		for _, size := range blockSizes {
			got, err := readInBlocks(text, size)
			if werr != nil || err != nil {
				if fmt.Sprint(err) != fmt.Sprint(werr) {
					t.Errorf("%s, blocks of %d: error %v, want %v", name, size, err, werr)
				}
				continue
			}
			if d := diffTraces(want, got); d != "" {
				t.Errorf("%s, blocks of %d: %s", name, size, d)
			}
			if len(got.Texts) != len(want.Texts) || strings.Join(got.Texts, "|") != strings.Join(want.Texts, "|") {
				t.Errorf("%s, blocks of %d: texts %q, want %q", name, size, got.Texts, want.Texts)
			}
		}
	}
}

// TestReadBlocksErrors: a bad line in a block gives the error, line and
// column of the serial read, and of two bad lines the first in the file
// wins, whether each is found decoding (on a worker) or applying (in
// order), in one block or in different ones.
func TestReadBlocksErrors(t *testing.T) {
	const header = "tsim 1\nranks 2\nstate S\n" // records start on line 4
	tests := []struct {
		name string
		bad  map[int]string // record index (from 0) → line
		want string
	}{
		{"unknown kind", map[int]string{50: "5 0 isend to=1"},
			`tsim: line 54:5: expected an event kind (enter, leave, send, recv, wait, coll, compute, marker), got "isend"`},
		{"bad time then bad rank in a later block", map[int]string{30: "1.2.3 0 compute dur=1", 300: "5 7 compute dur=1"},
			`tsim: line 34:1: expected a time (a number in s) at the start of a record, got "1.2.3"`},
		{"bad rank then bad time", map[int]string{31: "5 7 compute dur=1", 32: "1.2.3 0 compute dur=1"},
			`tsim: line 35:3: expected a rank from 0 to 1 (the world has 2 ranks), got 7`},
		{"undefined state index then a decoding error", map[int]string{40: "5 0 leave 3", 41: "5 0 send"},
			`tsim: line 44:11: expected a state name or the index of a defined state (0 to 0), got "3" (write names made of digits in quotes)`},
		{"decoding error then undefined state index", map[int]string{40: "5 0 send", 400: "5 0 leave 3"},
			`tsim: line 44:9: expected to=RANK (the destination) in a send, got end of line`},
		{"undefined state index before a bad argument", map[int]string{60: "5 0 leave 3 bogus=1"},
			`tsim: line 64:11: expected a state name or the index of a defined state (0 to 0), got "3" (write names made of digits in quotes)`},
		{"undefined marker index", map[int]string{70: "5 1 marker 0"},
			`tsim: line 74:12: expected a marker name or the index of a defined marker (0 to -1), got "0" (write names made of digits in quotes)`},
		{"header line after the records", map[int]string{99: "state T"},
			`tsim: line 103:1: expected a record (TIME RANK KIND ...) after the first record (line 4), got header line "state" (header lines go above the records)`},
		{"bad escape", map[int]string{120: `5 0 marker "\q"`},
			`tsim: line 124:12: expected a string in Go syntax (escapes such as \n, \t, \", \\, \x41, \u00e9), got "\q"`},
		{"last line without newline", map[int]string{499: "5 0 compute"},
			`tsim: line 503:12: expected dur=DURATION or flops=AMOUNT in a compute record, got end of line`},
		// Lines that do not start with their record's time: blank,
		// comments, indented records.
		{"after blank, comment and indented lines", map[int]string{10: "", 11: "  # comment", 12: "\t6 1 compute dur=1", 13: " \t5 0 isend to=1"},
			`tsim: line 17:7: expected an event kind (enter, leave, send, recv, wait, coll, compute, marker), got "isend"`},
		{"CRLF lines then an error", map[int]string{20: "5 0 compute dur=1\r", 21: "\r", 22: "5 1 compute\r"},
			`tsim: line 26:12: expected dur=DURATION or flops=AMOUNT in a compute record, got end of line`},
		{"blank lines at the end then a bad rank", map[int]string{497: "", 498: "#", 499: "5 9 compute dur=1"},
			`tsim: line 503:3: expected a rank from 0 to 1 (the world has 2 ranks), got 9`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			b.WriteString(header)
			for i := range 500 {
				line, ok := tt.bad[i]
				if !ok {
					line = fmt.Sprintf("%d %d compute dur=1", i, i%2)
				}
				b.WriteString(line)
				if i < 499 {
					b.WriteString("\n")
				}
			}
			text := b.String()
			_, serr := readSerial(text)
			if serr == nil || serr.Error() != tt.want {
				t.Fatalf("serial read: error\n got: %v\nwant: %s", serr, tt.want)
			}
			for _, size := range blockSizes {
				_, err := readInBlocks(text, size)
				if err == nil || err.Error() != tt.want {
					t.Errorf("blocks of %d: error\n got: %v\nwant: %s", size, err, tt.want)
				}
				var pe *ParseError
				if !errors.As(err, &pe) {
					t.Errorf("blocks of %d: error %T is not a *ParseError", size, err)
				}
			}
		})
	}
}

// records is an endless input of records after a header, counting the
// bytes read; ctx is cancelled once after bytes.
type records struct {
	ctx    context.Context
	cancel context.CancelFunc
	after  int64
	read   atomic.Int64
	text   []byte
	pos    int
}

func newRecords(after int64) *records {
	ctx, cancel := context.WithCancel(context.Background())
	r := &records{ctx: ctx, cancel: cancel, after: after, text: []byte("tsim 1\nranks 4\n")}
	return r
}

func (r *records) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		if r.pos == len(r.text) {
			r.text, r.pos = fmt.Appendf(r.text[:0], "%d %d compute dur=1\n", r.read.Load(), r.read.Load()%4), 0
		}
		c := copy(p[n:], r.text[r.pos:])
		r.pos += c
		n += c
	}
	if r.read.Add(int64(n)) >= r.after {
		r.cancel()
	}
	return n, nil
}

// TestReadContextCancel: a cancelled read stops reading and returns the
// context's error, in blocks on several workers and line by line.
func TestReadContextCancel(t *testing.T) {
	for _, o := range []readOptions{{workers: 1}, {workers: 3}, {workers: 2, blockSize: 4096}} {
		t.Run(fmt.Sprintf("%d workers", o.workers), func(t *testing.T) {
			in := newRecords(4 << 20)
			_, err := read(in.ctx, in, o)
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("error %v, want %v", err, context.Canceled)
			}
			// Read has returned: the input is no longer read.
			n := in.read.Load()
			if _, err := in.Read(make([]byte, 1)); err != nil {
				t.Fatal(err)
			}
			if got := in.read.Load(); got != n+1 {
				t.Errorf("input read %d bytes after Read returned", got-n-1)
			}
			// At most the blocks in flight were read past the cancel.
			if over := n - in.after; over > 16<<20 {
				t.Errorf("read %d bytes past the cancel", over)
			}
		})
	}
}

// TestReadContextDone: a context done before Read starts reads nothing
// of the records.
func TestReadContextDone(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := ReadContext(ctx, strings.NewReader("tsim 1\nranks 1\n0 0 compute dur=1\n"))
	if !errors.Is(err, context.Canceled) {
		t.Errorf("error %v, want %v", err, context.Canceled)
	}
	var buf bytes.Buffer
	if _, err := ReadContext(context.Background(), &buf); err == nil || !strings.Contains(err.Error(), "line 1:1") {
		t.Errorf("empty input: error %v, want one at line 1:1", err)
	}
}

// TestReadBlocksReadError: a failed read or a line too long after the
// first record names the line it happened on, as the serial read does.
func TestReadBlocksReadError(t *testing.T) {
	boom := errors.New("disk on fire")
	const records = "tsim 1\nranks 1\n0 0 compute dur=1\n1 0 compute dur=1\n2 0 comp"
	for _, o := range []readOptions{{workers: 1}, {workers: 2, blockSize: 8}, {workers: 2}} {
		_, err := read(context.Background(), io.MultiReader(strings.NewReader(records), iotest.ErrReader(boom)), o)
		if !errors.Is(err, boom) || err.Error() != "tsim: line 5: disk on fire" {
			t.Errorf("%+v: error %v, want tsim: line 5: disk on fire", o, err)
		}
		if testing.Short() {
			continue
		}
		// Blank and comment lines end the blocks before the failure:
		// they are counted all the same.
		const blanks = "tsim 1\nranks 1\n0 0 compute dur=1\n\n# c\n1 0 compute dur=1\n\n\n"
		_, err = read(context.Background(), io.MultiReader(strings.NewReader(blanks), iotest.ErrReader(boom)), o)
		if !errors.Is(err, boom) || err.Error() != "tsim: line 9: disk on fire" {
			t.Errorf("%+v, blank lines last: error %v, want tsim: line 9: disk on fire", o, err)
		}
		_, err = read(context.Background(), io.MultiReader(strings.NewReader(records[:len(records)-8]), endless{}), o)
		want := "tsim: line 5:1: expected lines of at most 64 MiB, got a longer one"
		if err == nil || err.Error() != want {
			t.Errorf("%+v: error %v, want %s", o, err, want)
		}
	}
}

// TestPipelinedShortReads: a reader that returns less than it has
// (formats.Open's first read gives only the 4 KiB it sniffed) still has
// a large input parsed in blocks, and a small one line by line, and the
// trace is the serial read's either way.
func TestPipelinedShortReads(t *testing.T) {
	text := func(n int) string {
		var b strings.Builder
		b.WriteString("tsim 1\nranks 2\n")
		for i := range n {
			fmt.Fprintf(&b, "%d %d compute dur=1\n", i, i%2)
		}
		return b.String()
	}
	large, small := text(5000), text(100) // 105 KB and 2 KB: the first buffer is 16 KiB
	// States of the header (resolved by the workers) and states,
	// markers and texts first named in the records (in order).
	var named strings.Builder
	named.WriteString("tsim 1\nranks 3\nstate Known\n")
	for i := range 3000 {
		fmt.Fprintf(&named, "%d %d enter Known\n%d %d enter S%d text=t%d\n%d %d marker m%d\n%d %d leave S%d\n%d %d leave Known\n",
			i, i%3, i, i%3, i%4, i%5, i, i%3, i%2, i, i%3, i%4, i, i%3)
	}
	short := func(s string, first int) func() io.Reader {
		return func() io.Reader {
			return io.MultiReader(strings.NewReader(s[:first]), strings.NewReader(s[first:]))
		}
	}
	tests := []struct {
		name      string
		in        func() io.Reader
		pipelined bool
	}{
		{"large, first read short", short(large, 4096), true},
		{"large, a byte a read", func() io.Reader { return iotest.OneByteReader(strings.NewReader(large)) }, true},
		{"large, whole", func() io.Reader { return strings.NewReader(large) }, true},
		{"named in records, first read short", short(named.String(), 4096), true},
		{"small, first read short", short(small, 100), false},
		{"small, a byte a read", func() io.Reader { return iotest.OneByteReader(strings.NewReader(small)) }, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := &parser{opts: readOptions{workers: 2}, lr: newLineReader(tc.in())}
			if _, err := p.lr.next(); err != nil {
				t.Fatal(err)
			}
			if got := p.pipelined(); got != tc.pipelined {
				t.Errorf("pipelined %v, want %v", got, tc.pipelined)
			}
			want, err := read(context.Background(), tc.in(), readOptions{workers: 1})
			if err != nil {
				t.Fatal(err)
			}
			got, err := read(context.Background(), tc.in(), readOptions{workers: 2})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("the trace read on 2 workers differs from the serial read's")
			}
		})
	}
}

// TestCountedMatchesChunked: decoding into streams sized by the count
// pass (count.go) and handing them over in place gives the trace of the
// reading in chunks, events, state pairs and message pairs alike, with
// wildcard receives and unmatched messages, read serially and in blocks.
func TestCountedMatchesChunked(t *testing.T) {
	var msgs strings.Builder
	msgs.WriteString("tsim 1\nranks 5\n")
	for i := range 3000 {
		t0 := 10 * i
		fmt.Fprintf(&msgs, "%d 0 enter MPI_Send\n%d 0 send to=1 tag=%d size=8\n%d 0 leave MPI_Send\n", t0, t0, i%3, t0+1)
		fmt.Fprintf(&msgs, "%d 1 recv from=0 tag=%d size=8 anysrc anytag\n", t0+2, i%3)
		// Tags that differ: rank 2's sends and rank 3's receives stay
		// unmatched.
		fmt.Fprintf(&msgs, "%d 2 send to=3 tag=1 size=8\n%d 3 recv from=2 tag=2 size=8\n", t0+3, t0+4)
		fmt.Fprintf(&msgs, "%d 4 compute dur=1\n", t0+5)
	}
	inputs := map[string]string{
		"bench trace":              string(mustWrite(t, benchTrace(t, 20_000, 8))),
		"wildcards and unmatched":  msgs.String(),
		"one rank with nearly all": "tsim 1\nranks 3\n" + strings.Repeat("1 0 compute dur=1\n", 5000) + "2 1 compute dur=1\n3 2 compute dur=1\n",
		// Four ranks a slab range: groups end with a range.
		"many ranks": "tsim 1\nranks 200\nstate S\n" + repeat(8000, func(i int) string {
			return fmt.Sprintf("%d %d enter S\n%d %d send to=%d tag=0 size=8\n%d %d leave S\n%d %d recv from=%d tag=0 size=8\n",
				i, i%200, i, i%200, (i+1)%200, i, i%200, i, (i+1)%200, i%200)
		}),
		"ranks without events between": "tsim 1\nranks 9\n" + strings.Repeat("1 0 compute dur=1\n2 8 compute dur=2\n", 3000),
	}
	for name, text := range inputs {
		want, err := readSerial(text)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		unmatched, wildcards, events := 0, 0, 0
		for _, rk := range want.Ranks {
			events += len(rk.Events)
			for _, e := range rk.Events {
				if (e.Kind == tracefmt.KindSend || e.Kind == tracefmt.KindRecv) && e.Match < 0 {
					unmatched++
				}
				if e.Flags&tracefmt.FlagAnySource != 0 {
					wildcards++
				}
			}
		}
		// Every record is an event: the lines that start with a time.
		records := 0
		for line := range strings.Lines(text) {
			if line[0] == '-' || line[0] >= '0' && line[0] <= '9' {
				records++
			}
		}
		if events != records {
			t.Fatalf("%s: %d events, want %d", name, events, records)
		}
		if name == "wildcards and unmatched" && (unmatched != 6000 || wildcards != 3000) {
			t.Fatalf("%s: %d unmatched messages and %d wildcard receives, want 6000 and 3000", name, unmatched, wildcards)
		}
		for _, o := range []readOptions{{workers: 1, noCount: true}, {workers: 3, blockSize: 4096, noCount: true}, {workers: 2, noCount: true}, {workers: 1}, {workers: 3, blockSize: 4096}} {
			got, err := read(context.Background(), strings.NewReader(text), o)
			if err != nil {
				t.Fatalf("%s, %+v: %v", name, o, err)
			}
			if d := diffTraces(want, got); d != "" {
				t.Errorf("%s, %+v: %s", name, o, d)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s, %+v: the trace differs from the one read with counts", name, o)
			}
		}
	}
}

// repeat joins the n texts of line.
func repeat(n int, line func(i int) string) string {
	var b strings.Builder
	for i := range n {
		b.WriteString(line(i))
	}
	return b.String()
}
