package lineblock

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// lineOf is what a test parse records of a line.
type lineOf struct {
	no   int
	off  int64
	text string
}

// collect runs Run over text and returns every line as the consumer
// saw it, in order.
func collect(t *testing.T, r io.Reader, o Options) ([]lineOf, error) {
	t.Helper()
	var got []lineOf
	parse := func(b *Block, res *[]lineOf) error {
		*res = (*res)[:0]
		return b.Lines(func(no int, off int64, line []byte) error {
			*res = append(*res, lineOf{no, off, string(line)})
			return nil
		})
	}
	consume := func(b *Block, res *[]lineOf) error {
		got = append(got, *res...)
		return nil
	}
	err := Run(context.Background(), r, o, parse, consume)
	return got, err
}

// want returns the lines of text with their numbers and offsets.
func want(text string) []lineOf {
	var out []lineOf
	var off int64
	for no := 1; text != ""; no++ {
		line, rest, found := strings.Cut(text, "\n")
		n := int64(len(line))
		if found {
			n++
		}
		out = append(out, lineOf{no, off, strings.TrimSuffix(line, "\r")})
		off += n
		text = rest
	}
	return out
}

func TestRunDeliversEveryLineInOrder(t *testing.T) {
	var long strings.Builder
	for i := range 5000 {
		fmt.Fprintf(&long, "%d send %d\n", i%7, i)
	}
	cases := []struct {
		name, text string
	}{
		{"empty", ""},
		{"one line without break", "0 init"},
		{"blank lines", "\n\n0 init\n\n"},
		{"crlf", "0 init\r\n1 init\r\n"},
		{"no final break", "0 init\n1 finalize"},
		{"line longer than a block", "0 " + strings.Repeat("x", 300) + "\n1 y\n"},
		{"many lines", long.String()},
	}
	for _, c := range cases {
		for _, o := range []Options{
			{BlockSize: 16, Workers: 1}, {BlockSize: 16, Workers: 2}, {BlockSize: 64, Workers: 3},
			{BlockSize: 1 << 10, Workers: 4}, {},
		} {
			t.Run(fmt.Sprintf("%s/size%d/workers%d", c.name, o.BlockSize, o.Workers), func(t *testing.T) {
				// OneByteReader: reads return less than asked.
				got, err := collect(t, iotest.OneByteReader(strings.NewReader(c.text)), o)
				if err != nil {
					t.Fatal(err)
				}
				w := want(c.text)
				if len(got) != len(w) {
					t.Fatalf("got %d lines, want %d", len(got), len(w))
				}
				for i := range w {
					if got[i] != w[i] {
						t.Fatalf("line %d: got %+v, want %+v", i, got[i], w[i])
					}
				}
			})
		}
	}
}

// failAt is a parse that fails at the lines whose text starts with "bad".
func failAt(b *Block, res *int) error {
	*res = 0
	return b.Lines(func(no int, _ int64, line []byte) error {
		*res++
		if strings.HasPrefix(string(line), "bad") {
			return fmt.Errorf("line %d: %s", no, line)
		}
		return nil
	})
}

func TestRunFirstErrorInFileOrderWins(t *testing.T) {
	lines := make([]string, 400)
	for i := range lines {
		lines[i] = fmt.Sprintf("ok %03d", i)
	}
	text := func(bad ...int) string {
		l := append([]string(nil), lines...)
		for _, b := range bad {
			l[b-1] = fmt.Sprintf("bad %03d", b)
		}
		return strings.Join(l, "\n") + "\n"
	}
	cases := []struct {
		name    string
		text    string
		consume func(b *Block, n *int) error
		want    string
	}{
		// With blocks of 64 bytes (9 lines of 7 bytes), lines 50 and 390 are in
		// different blocks; a worker may parse the later one first.
		{"parse errors in two blocks", text(50, 390), nil, "line 50: bad 050"},
		{"parse error in the last line", text(400), nil, "line 400: bad 400"},
		{"parse error in the first line", text(1, 2, 399), nil, "line 1: bad 001"},
		{"consume error before a parse error", text(300), func(b *Block, n *int) error {
			if b.Line > 100 {
				return fmt.Errorf("consume stops at line %d", b.Line)
			}
			return nil
		}, "consume stops at line 109"},
	}
	for _, c := range cases {
		for _, workers := range []int{1, 2, 4} {
			t.Run(fmt.Sprintf("%s/workers%d", c.name, workers), func(t *testing.T) {
				consume := c.consume
				if consume == nil {
					consume = func(*Block, *int) error { return nil }
				}
				for range 20 { // the race a parallel parse could lose
					err := Run(context.Background(), strings.NewReader(c.text), Options{BlockSize: 64, Workers: workers}, failAt, consume)
					if err == nil || err.Error() != c.want {
						t.Fatalf("got %v, want %s", err, c.want)
					}
				}
			})
		}
	}
}

func TestRunReadErrors(t *testing.T) {
	broken := errors.New("disk on fire")
	cases := []struct {
		name string
		r    func() io.Reader
		o    Options
		want string
	}{
		{"read fails after two lines", func() io.Reader {
			return io.MultiReader(strings.NewReader("0 init\n1 init\n2 ini"), iotest.ErrReader(broken))
		},
			Options{BlockSize: 1 << 10}, "line 3 (offset 14): disk on fire"},
		{"read fails at once", func() io.Reader { return iotest.ErrReader(broken) }, Options{}, "line 1 (offset 0): disk on fire"},
		{"line too long mid-file", func() io.Reader {
			return strings.NewReader("0 init\n1 " + strings.Repeat("x", 100) + "\n2 init\n")
		},
			Options{BlockSize: 16, MaxLine: 50}, "line 2 (offset 7): line too long"},
		{"line too long at the end", func() io.Reader { return strings.NewReader("0 init\n1 " + strings.Repeat("x", 100)) },
			Options{BlockSize: 16, MaxLine: 50}, "line 2 (offset 7): line too long"},
	}
	for _, c := range cases {
		for _, workers := range []int{1, 2} {
			t.Run(fmt.Sprintf("%s/workers%d", c.name, workers), func(t *testing.T) {
				o := c.o
				o.Workers = workers
				var e *Error
				_, err := collect(t, c.r(), o)
				if !errors.As(err, &e) || err.Error() != c.want {
					t.Fatalf("got %v, want *Error %s", err, c.want)
				}
			})
		}
	}
}

// endless is an input that never ends.
type endless struct{}

func (endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = "0 x\n"[i%4]
	}
	return len(p), nil
}

func TestRunStopsWhenCancelled(t *testing.T) {
	for _, workers := range []int{1, 2, 4} {
		t.Run(fmt.Sprintf("workers%d", workers), func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			blocks := 0
			err := Run(ctx, endless{}, Options{BlockSize: 4 << 10, Workers: workers},
				func(b *Block, n *int) error { return nil },
				func(b *Block, n *int) error {
					if blocks++; blocks == 10 {
						cancel()
					}
					return nil
				})
			if !errors.Is(err, context.Canceled) || blocks != 10 {
				t.Fatalf("got %v after %d blocks, want %v after 10", err, blocks, context.Canceled)
			}
		})
	}
}

func TestRunBoundsBlocksInFlight(t *testing.T) {
	// The consumer holds back; the parsers may run ahead by at most
	// 2×workers blocks (the memory bound).
	const workers = 2
	parsed := make(chan struct{}, 4096)
	consumed := 0
	err := Run(context.Background(), io.LimitReader(endless{}, 1<<20), Options{BlockSize: 1 << 10, Workers: workers},
		func(b *Block, n *int) error { parsed <- struct{}{}; return nil },
		func(b *Block, n *int) error {
			consumed++
			if ahead := len(parsed) - consumed; ahead > 2*workers {
				return fmt.Errorf("%d blocks parsed ahead of the consumer, want ≤ %d", ahead, 2*workers)
			}
			return nil
		})
	if err != nil {
		t.Fatal(err)
	}
	if consumed != len(parsed) || consumed < 1000 {
		t.Fatalf("consumed %d blocks of %d parsed, want ≥ 1000", consumed, len(parsed))
	}
}
