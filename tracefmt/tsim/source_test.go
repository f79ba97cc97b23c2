package tsim

import (
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/tracefmt/gen"
)

// handStream is a trace with what a cursor must pair across chunks and
// beyond its lookahead: a state over the whole rank, enters never left,
// states, markers and texts defined by the records, ranks apart in the
// file (rank 2 after the others).
const handStream = `tsim 1
ranks 3
unit us
state Compute cat=compute

0 0 enter main
0 1 enter main
1 0 enter MPI_Init
2 0 leave MPI_Init
1 1 enter MPI_Init
2 1 leave MPI_Init
3 0 enter MPI_Send
3.5 0 send to=1 tag=4 size=8KiB
4 0 leave MPI_Send
3 1 enter MPI_Recv
4.5 1 recv from=0 tag=4 size=8192
5 1 leave MPI_Recv
5 0 marker "phase 1" text="a text"
6 0 enter Compute text="work"
9 0 leave Compute
6 1 enter lost
7 1 enter MPI_Allreduce
8 1 coll allreduce sent=8 recv=8
9 1 leave MPI_Allreduce
10 0 enter MPI_Finalize
11 0 leave MPI_Finalize
12 0 leave main
12 1 leave main
0 2 enter MPI_Init
1 2 leave MPI_Init
2 2 enter open
3 2 enter open
4 2 leave open
5 2 compute dur=2
`

// streamCases are the traces TestSourceAsRead streams: generated ones
// (time-ordered, ranks interleaved) and handStream.
func streamCases(t *testing.T) map[string][]byte {
	t.Helper()
	cases := map[string][]byte{
		"hand": []byte(handStream),
		// Leaves close the oldest open enter of their state.
		"hand-oldest": []byte(strings.Replace(handStream, "unit us\n", "unit us\npairing oldest\n", 1)),
	}
	for _, o := range []gen.Options{
		{Pattern: "cg", Ranks: 16, Iters: 6, Compute: -1, Seed: 1},
		{Pattern: "stencil2d", Ranks: 64, Iters: 3, Compute: -1, Seed: 2},
		{Pattern: "master-worker", Ranks: 8, Iters: 5, Compute: -1, Seed: 3},
		{Pattern: "alltoall", Ranks: 8, Iters: 2, Compute: -1, Seed: 4},
	} {
		tr, err := gen.Generate(o)
		if err != nil {
			t.Fatal(err)
		}
		cases[o.Pattern] = mustWrite(t, tr)
	}
	return cases
}

// TestSourceAsRead streams traces rank by rank, in windows of random
// sizes and ranks in random turns, through small chunks and lookaheads,
// and finds Read's events: every field, enters' and leaves' Match, and
// messages unmatched (-1).
func TestSourceAsRead(t *testing.T) {
	dir := t.TempDir()
	for name, text := range streamCases(t) {
		path := filepath.Join(dir, name+".tsim")
		if err := os.WriteFile(path, text, 0o644); err != nil {
			t.Fatal(err)
		}
		want, err := Read(strings.NewReader(string(text)))
		if err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			block, lookahead, queue int
			prescan                 bool
		}{
			{0, 0, 0, false},
			{0, 0, 0, true},
			{512, 4, 8, true},
			{97, 1, 1, false},
		} {
			src, err := OpenSource(path)
			if err != nil {
				t.Fatal(err)
			}
			if tc.block > 0 {
				src.blockSize, src.lookahead, src.queueCap = tc.block, tc.lookahead, tc.queue
			}
			if tc.prescan {
				seen := make([]int32, len(want.Ranks))
				err := src.Prescan(func(r int, first int32, ev []tracefmt.Event) error {
					if first != seen[r] {
						t.Fatalf("%s: Prescan gave rank %d events from %d, expected %d", name, r, first, seen[r])
					}
					for j := range ev {
						w := want.Ranks[r].Events[int(first)+j]
						if ev[j].Kind == tracefmt.KindLeave && ev[j].Match != w.Match {
							t.Fatalf("%s: Prescan: rank %d event %d: leave Match %d, Read %d", name, r, int(first)+j, ev[j].Match, w.Match)
						}
					}
					seen[r] += int32(len(ev))
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
			}
			got := readAllRanks(t, src, rand.New(rand.NewPCG(uint64(tc.block), 9)))
			if tc.block == 512 {
				// Memory bounded by the lookahead and the waiting
				// events, not by the rank's stream: a rank that other
				// ranks' reads feed drops what it returned.
				for r := range src.ranks {
					if c := cap(src.ranks[r].q); c > 128 {
						t.Errorf("%s: rank %d's cursor holds room for %d events (of %d)", name, r, c, len(want.Ranks[r].Events))
					}
				}
			}
			src.Close()
			h := src.Header()
			if len(h.States) != len(want.States) || len(h.Markers) != len(want.Markers) || len(h.Texts) != len(want.Texts) {
				t.Fatalf("%s %+v: header has %d states, %d markers, %d texts; Read %d, %d, %d", name, tc,
					len(h.States), len(h.Markers), len(h.Texts), len(want.States), len(want.Markers), len(want.Texts))
			}
			for i := range h.States {
				if h.States[i] != want.States[i] {
					t.Fatalf("%s: state %d is %+v, Read %+v", name, i, h.States[i], want.States[i])
				}
			}
			for r := range want.Ranks {
				we := want.Ranks[r].Events
				if len(got[r]) != len(we) {
					t.Fatalf("%s %+v: rank %d: %d events streamed, Read %d", name, tc, r, len(got[r]), len(we))
				}
				for i := range we {
					w := we[i]
					if w.Kind == tracefmt.KindSend || w.Kind == tracefmt.KindRecv {
						w.Match = -1
					}
					if got[r][i] != w {
						t.Fatalf("%s %+v: rank %d event %d:\n got %+v\nwant %+v", name, tc, r, i, got[r][i], w)
					}
				}
			}
		}
	}
}

// readAllRanks reads every rank of src to its end, a window of 1 to 40
// events at a time, ranks taking turns at random.
func readAllRanks(t *testing.T, src *Source, rng *rand.Rand) [][]tracefmt.Event {
	t.Helper()
	p := len(src.Header().Ranks)
	out := make([][]tracefmt.Event, p)
	done := make([]bool, p)
	left := p
	for left > 0 {
		r := rng.IntN(p)
		if done[r] {
			continue
		}
		buf := make([]tracefmt.Event, 1+rng.IntN(40))
		n, err := src.ReadRank(r, buf)
		out[r] = append(out[r], buf[:n]...)
		if errors.Is(err, io.EOF) {
			done[r] = true
			left--
			continue
		}
		if err != nil {
			t.Fatalf("ReadRank(%d): %v", r, err)
		}
	}
	return out
}

// TestSourceErrors finds Read's error, with its line, when a stream's
// file has a bad record.
func TestSourceErrors(t *testing.T) {
	dir := t.TempDir()
	for _, text := range []string{
		handStream + "6 2 send to=9 tag=0 size=1\n",
		handStream + "7 2 bogus\n",
		strings.Replace(handStream, "3.5 0 send to=1", "3.5 0 send to=x", 1),
		"tsim 1\nranks 2\nunit us\nbogus header\n",
	} {
		_, want := Read(strings.NewReader(text))
		if want == nil {
			t.Fatalf("Read accepted\n%s", text)
		}
		path := filepath.Join(dir, "bad.tsim")
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		src, err := OpenSource(path)
		if err == nil {
			_, err = src.ReadRank(0, make([]tracefmt.Event, 4))
			src.Close()
		}
		if err == nil || err.Error() != want.Error() {
			t.Errorf("streamed: %v\nRead: %v", err, want)
		}
	}
}

// TestSourceRankRoomByWhatItHas reads a trace of many short ranks (a
// time-ordered file: the first read decodes every chunk and queues every
// rank's events) and finds each rank's cursor holding room for the
// events it has, not a doubled append's, and nothing once the rank is
// read to its end.
func TestSourceRankRoomByWhatItHas(t *testing.T) {
	tr, err := gen.Generate(gen.Options{Pattern: "stencil2d", Ranks: 256, Iters: 1, Compute: -1, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "short.tsim")
	if err := os.WriteFile(path, mustWrite(t, tr), 0o644); err != nil {
		t.Fatal(err)
	}
	src, err := OpenSource(path)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	// Small chunks: a rank's records come a few at a time.
	src.blockSize = 1024
	// Rank 0 read whole: the file to its last record decoded.
	if _, err := src.ReadRank(0, make([]tracefmt.Event, 1000)); err != nil {
		t.Fatal(err)
	}
	buf := make([]tracefmt.Event, 3)
	queued := 0
	for r := 1; r < len(tr.Ranks); r++ {
		c := &src.ranks[r]
		if c.next >= 0 {
			continue // records left after rank 0's last
		}
		queued++
		if n := len(tr.Ranks[r].Events); len(c.q) != n || cap(c.q) != n {
			t.Fatalf("rank %d: %d events queued in room for %d, expected %d in %d", r, len(c.q), cap(c.q), n, n)
		}
	}
	if queued < 10 {
		t.Fatalf("rank 0's read queued %d ranks whole of 255", queued)
	}
	for r := range tr.Ranks {
		var got []tracefmt.Event
		for {
			n, err := src.ReadRank(r, buf)
			got = append(got, buf[:n]...)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		if r > 0 && len(got) != len(tr.Ranks[r].Events) || r == 0 && len(got) != 0 {
			t.Fatalf("rank %d: %d events read, %d in the trace", r, len(got), len(tr.Ranks[r].Events))
		}
		if c := &src.ranks[r]; c.q != nil || c.spans != nil || c.open.lists != nil {
			t.Errorf("rank %d read to its end still holds room for %d events, %d spans, %d state lists", r, cap(c.q), len(c.spans), len(c.open.lists))
		}
	}
}

// TestSourceReadAheadStops streams a file that shrank after it was
// indexed: the read-ahead's error reaches the rank that wants the chunk
// it could not read, and every later read (of any rank) gets it again
// rather than waiting for a chunk that will not come; Close stops the
// read-ahead of a file read part way.
func TestSourceReadAheadStops(t *testing.T) {
	tr, err := gen.Generate(gen.Options{Pattern: "stencil2d", Ranks: 16, Iters: 40, Compute: -1, Seed: 6})
	if err != nil {
		t.Fatal(err)
	}
	text := mustWrite(t, tr)
	path := filepath.Join(t.TempDir(), "shrinks.tsim")
	if err := os.WriteFile(path, text, 0o644); err != nil {
		t.Fatal(err)
	}
	open := func() *Source {
		src, err := OpenSource(path)
		if err != nil {
			t.Fatal(err)
		}
		src.blockSize = 1024
		if err := src.Prescan(func(int, int32, []tracefmt.Event) error { return nil }); err != nil {
			t.Fatal(err)
		}
		if len(src.chunks) < 20 {
			t.Fatalf("%d chunks, expected the file in many", len(src.chunks))
		}
		return src
	}

	// Read part way, then Close: the read-ahead goroutine ends.
	src := open()
	if n, err := src.ReadRank(3, make([]tracefmt.Event, 50)); n != 50 || err != nil {
		t.Fatalf("ReadRank: %d events, %v", n, err)
	}
	a := src.ahead
	if a == nil {
		t.Fatal("no read-ahead after a read")
	}
	src.Close()
	select {
	case <-a.exited:
	default:
		t.Fatal("the read-ahead still runs after Close")
	}

	// The file cut at half, after the index: rank 0 read to the end.
	src = open()
	defer src.Close()
	if err := os.Truncate(path, int64(len(text)/2)); err != nil {
		t.Fatal(err)
	}
	const want = "reading the records again: unexpected EOF"
	buf := make([]tracefmt.Event, 64)
	read := 0
	for {
		n, err := src.ReadRank(0, buf)
		read += n
		if err != nil {
			if !strings.Contains(err.Error(), want) || errors.Is(err, io.EOF) {
				t.Fatalf("rank 0 after %d events: %v, expected %q", read, err, want)
			}
			break
		}
	}
	if total := len(tr.Ranks[0].Events); read == 0 || read >= total {
		t.Fatalf("rank 0: %d events read of %d before the error", read, total)
	}
	for _, r := range []int{0, 15, 7} {
		for {
			_, err := src.ReadRank(r, buf)
			if err == nil {
				continue // the events decoded before the cut
			}
			if !strings.Contains(err.Error(), want) {
				t.Fatalf("rank %d after the error: %v, expected %q", r, err, want)
			}
			break
		}
	}
}
