package simgridti

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"reflect"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/tracesim/tracesim/tracefmt"
)

// readBoth reads data on one CPU (parsing as it reads) and on two (a
// goroutine splitting lines for the parser), through a reader that hides
// its length so that both take the path of a file.
func readBoth(t *testing.T, data []byte) (one, two *tracefmt.Trace, err1, err2 error) {
	t.Helper()
	prev := runtime.GOMAXPROCS(1)
	t.Cleanup(func() { runtime.GOMAXPROCS(prev) })
	one, err1 = ReadNamed("t.ti", struct{ io.Reader }{bytes.NewReader(data)}, nil)
	runtime.GOMAXPROCS(2)
	two, err2 = ReadNamed("t.ti", struct{ io.Reader }{bytes.NewReader(data)}, nil)
	runtime.GOMAXPROCS(prev)
	return one, two, err1, err2
}

// bigText returns a trace of ranks doing ring exchanges, with comments
// and blank lines between, long enough to span many batches; bad, when
// not empty, replaces the line numbered badAt.
func bigText(ranks, steps int, bad string, badAt int) (string, int) {
	var b strings.Builder
	no := 0
	line := func(format string, args ...any) {
		no++
		if no == badAt {
			b.WriteString(bad + "\n")
			return
		}
		fmt.Fprintf(&b, format+"\n", args...)
	}
	for r := range ranks {
		line("%d init", r)
	}
	for r := range ranks {
		for s := range steps {
			line("%d irecv %d %d 4096 0", r, (r+ranks-1)%ranks, s%5)
			line("%d compute %d", r, 1000+s)
			if s%97 == 0 {
				line("# step %d", s)
				line("")
			}
			line("%d send %d %d 4096 0", r, (r+1)%ranks, s%5)
			line("%d wait %d %d %d", r, (r+ranks-1)%ranks, r, s%5)
			line("%d allreduce 1 100 0", r)
		}
		line("%d finalize", r)
	}
	return b.String(), no
}

// TestPipelinedAsSerial: reading with a second goroutine gives the trace
// and the errors (with their lines and columns) that reading on one does,
// for inputs of one batch and of many, errors at their start, in their
// middle and on their last line.
func TestPipelinedAsSerial(t *testing.T) {
	_, n := bigText(8, 3000, "", 0)
	tests := []struct {
		name, in string
		err      string // the error both give, "" for none
	}{
		{"small", "0 init\n1 init\n0 send 1 0 8\n1 recv 0 0 8\n", ""},
		{"many batches", first(bigText(8, 3000, "", 0)), ""},
		{"CRLF and comments", strings.ReplaceAll(first(bigText(2, 4000, "", 0)), "\n", "\r\n"), ""},
		{"bad early", first(bigText(8, 3000, "0 fly 1", 20)), `t.ti:20:3: unknown action "fly"`},
		{"bad mid", first(bigText(8, 3000, "3 send 1 0 abc", n/2)), fmt.Sprintf(`t.ti:%d:12: expected count (a number), got "abc"`, n/2)},
		{"single field", first(bigText(8, 3000, "5", n-3)), fmt.Sprintf(`t.ti:%d:1: expected a rank and an action`, n-3)},
		{"bad last", first(bigText(8, 3000, "7 compute -1", n)), fmt.Sprintf("t.ti:%d:11: negative flop count -1", n)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			one, two, err1, err2 := readBoth(t, []byte(tc.in))
			if fmt.Sprint(err1) != fmt.Sprint(err2) {
				t.Fatalf("errors differ: one CPU %v, two %v", err1, err2)
			}
			if tc.err == "" && err2 != nil || tc.err != "" && (err2 == nil || !strings.HasPrefix(err2.Error(), tc.err)) {
				t.Fatalf("error %v, want %q", err2, tc.err)
			}
			if !reflect.DeepEqual(one, two) {
				t.Errorf("traces differ")
			}
			if tc.err == "" && two.NumEvents() == 0 {
				t.Errorf("no events read")
			}
		})
	}
}

// TestPipelinedLongLine: a line beyond the limit is refused at its
// number by both paths.
func TestPipelinedLongLine(t *testing.T) {
	in := "0 init\n\n0 compute " + strings.Repeat("1", maxLine) + "\n"
	_, _, err1, err2 := readBoth(t, []byte(in))
	want := fmt.Sprintf("t.ti:3:1: line longer than %d bytes", maxLine)
	for _, err := range []error{err1, err2} {
		if err == nil || err.Error() != want {
			t.Errorf("error %v, want %q", err, want)
		}
	}
}

func first(s string, _ int) string { return s }

// TestBlocksAsSerial: parsing in blocks as small as a few lines on two
// and four goroutines gives the serial trace and the serial error (the
// first in file order, with its line and column) also when a later
// block holds another bad line, or lines the fast path leaves to the
// general one.
func TestBlocksAsSerial(t *testing.T) {
	text, n := bigText(4, 400, "", 0)
	lines := strings.Split(text, "\n")
	with := func(bad map[int]string) string {
		l := append([]string(nil), lines...)
		for no, s := range bad {
			l[no-1] = s
		}
		return strings.Join(l, "\n")
	}
	tests := []struct {
		name, in string
		err      string
	}{
		{"clean", text, ""},
		{"general lines between", with(map[int]string{9: "0 bcast 100", 10: "1 Bcast 100", 2000: "2 comm_size 4"}), ""},
		{"no final line break", strings.TrimSuffix(text, "\n"), ""},
		{"bad in two blocks", with(map[int]string{n / 3: "0 fly 1", n - 10: "3 compute -1"}), fmt.Sprintf(`t.ti:%d:3: unknown action "fly"`, n/3)},
		{"bad in two lines of one block", with(map[int]string{700: "1 send 2 0 abc", 701: "0 fly 1"}), `t.ti:700:12: expected count (a number), got "abc"`},
		{"bad first after the first line", with(map[int]string{2: "1"}), `t.ti:2:1: expected a rank and an action`},
		{"bad last", with(map[int]string{n: "7 compute -1"}), fmt.Sprintf("t.ti:%d:11: negative flop count -1", n)},
	}
	prev := runtime.GOMAXPROCS(1)
	defer runtime.GOMAXPROCS(prev)
	for _, tc := range tests {
		runtime.GOMAXPROCS(1)
		want, wantErr := ReadNamed("t.ti", struct{ io.Reader }{strings.NewReader(tc.in)}, nil)
		if tc.err == "" && wantErr != nil || tc.err != "" && (wantErr == nil || !strings.HasPrefix(wantErr.Error(), tc.err)) {
			t.Fatalf("%s: serial read: error %v, want %q", tc.name, wantErr, tc.err)
		}
		for _, procs := range []int{2, 4} {
			for _, size := range []int{64, 1000, 4096} {
				runtime.GOMAXPROCS(procs)
				// A reader hiding its length takes the path of a
				// file: in blocks.
				got, err := readSized("t.ti", struct{ io.Reader }{strings.NewReader(tc.in)}, nil, false, size)
				if fmt.Sprint(err) != fmt.Sprint(wantErr) {
					t.Fatalf("%s, %d procs, blocks of %d: error %v, want %v", tc.name, procs, size, err, wantErr)
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("%s, %d procs, blocks of %d: traces differ", tc.name, procs, size)
				}
			}
		}
	}
}

// actions is an endless TI file of four ranks' computes that cancels its
// context once after bytes were read from it.
type actions struct {
	ctx    context.Context
	cancel context.CancelFunc
	after  int64
	read   atomic.Int64
	text   []byte
	pos    int
}

func (a *actions) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		if a.pos == len(a.text) {
			a.text, a.pos = fmt.Appendf(a.text[:0], "%d compute %d\n", a.read.Load()%4, a.read.Load()), 0
		}
		c := copy(p[n:], a.text[a.pos:])
		a.pos += c
		n += c
	}
	if a.read.Add(int64(n)) >= a.after {
		a.cancel()
	}
	return n, nil
}

// TestReadNamedContextCancel: a cancelled read returns the context's
// error and reads no further, on one CPU (line by line) and on two (in
// blocks), and a context done before the read starts stops it too.
func TestReadNamedContextCancel(t *testing.T) {
	for _, procs := range []int{1, 2} {
		t.Run(fmt.Sprintf("%d CPUs", procs), func(t *testing.T) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
			ctx, cancel := context.WithCancel(context.Background())
			in := &actions{ctx: ctx, cancel: cancel, after: 4 << 20}
			_, err := ReadNamedContext(ctx, "endless.ti", in, nil)
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

			_, err = ReadNamedContext(ctx, "done.ti", strings.NewReader("0 init\n0 compute 1\n0 finalize\n"), nil)
			if !errors.Is(err, context.Canceled) {
				t.Errorf("done before the read: error %v, want %v", err, context.Canceled)
			}
		})
	}
}
