package formats

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/tracefmt/gen"
)

// TestReadSameOnEveryCPU reads each trace with one CPU and with four:
// the readers that parse in blocks (tsim, TI) and tracefmt.Builder's
// per-rank passes (copying and pairing buffered streams, trimming,
// validating, matching messages) run on one goroutine or on several, and
// every event (its Match included: every state pairing and message
// pairing), the message counts and every other field of the trace, or
// the error, must be the same. The traces are large enough (≥ 65,536
// events) for the builder's passes to use several goroutines.
func TestReadSameOnEveryCPU(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	save := func(name, format string, tr *tracefmt.Trace) string {
		p := filepath.Join(dir, name)
		if err := Save(p, format, tr); err != nil {
			t.Fatalf("save %s: %v", name, err)
		}
		return p
	}
	generate := func(o gen.Options) *tracefmt.Trace {
		tr, err := gen.Generate(o)
		if err != nil {
			t.Fatal(err)
		}
		return tr
	}
	stencil := generate(gen.Options{Pattern: "stencil2d", Ranks: 16, Iters: 300, Compute: -1})
	// Master-worker: the master receives with MPI_ANY_SOURCE.
	mw := generate(gen.Options{Pattern: "master-worker", Ranks: 9, Iters: 1500, Compute: -1})

	tests := []struct {
		name, path string
		// unmatched and wildcard: the trace has unmatched sends and
		// receives, wildcard receives.
		unmatched, wildcard bool
		wantErr             string // empty: the read succeeds
	}{
		{name: "tsim stencil", path: save("stencil.tsim", "tsim", stencil)},
		{name: "clog2 stencil", path: save("stencil.clog2", "clog2", stencil)},
		{name: "ti stencil", path: save("stencil.ti", "ti", stencil)},
		{name: "otf2 stencil", path: save("stencil.otf2", "otf2", stencil)},
		{name: "tsim any-source", path: save("mw.tsim", "tsim", mw), wildcard: true},
		// CLOG2 keeps no wildcard flag: its receives name their source.
		{name: "clog2 any-source", path: save("mw.clog2", "clog2", mw)},
		{name: "ti any-source", path: save("mw.ti", "ti", mw), wildcard: true},
		// -555 receives: the TI reader chooses their senders.
		{name: "ti -555", path: write("wild.ti", repeat(6000, func(i int) string {
			return "0 recv -555 5 1\n0 recv -555 5 1\n1 send 0 5 1\n2 send 0 5 1\n0 compute 10\n"
		})), wildcard: true},
		// Sends without a receive and receives without a send stay
		// unmatched (Match -1) whichever goroutine matched the others.
		{name: "tsim unmatched", path: write("unmatched.tsim", "tsim 1\nranks 4\n"+repeat(14000, func(i int) string {
			t0 := 10 * i
			return fmt.Sprintf("%d 0 send to=1 tag=%d size=8\n%d 1 recv from=0 tag=%d size=8\n"+
				"%d 2 send to=3 tag=1 size=8\n%d 3 recv from=2 tag=2 size=8\n%d 1 send to=2 tag=0 size=4\n",
				t0, i%3, t0+1, i%2, t0+2, t0+3, t0+4)
		})), unmatched: true},
		// States the header defines (resolved by the block workers)
		// beside states, markers and texts first named in the records
		// (resolved in file order), wildcard and unmatched messages.
		{name: "tsim names in records", path: write("names.tsim", "tsim 1\nranks 4\nstate MPI_Send\n"+repeat(14000, func(i int) string {
			t0 := 10 * i
			return fmt.Sprintf("%d 0 enter MPI_Send\n%d 0 send to=1 tag=%d size=8\n%d 0 leave MPI_Send\n"+
				"%d 1 enter \"recv %d\" text=r%d\n%d 1 recv from=0 tag=%d size=8 anysrc\n%d 1 leave \"recv %d\"\n"+
				"%d 2 marker m%d text=\"t %d\"\n%d 2 send to=3 tag=1 size=8\n%d 3 recv from=2 tag=2 size=8\n",
				t0, t0, i%3, t0+1, t0+2, i%5, i%7, t0+3, i%3, t0+4, i%5, t0+5, i%4, i%9, t0+6, t0+7)
		})), unmatched: true, wildcard: true},
		{name: "ti unmatched", path: write("unmatched.ti", repeat(6000, func(i int) string {
			return "0 send 1 8 1\n1 recv 0 8 2\n2 isend 3 4 1\n3 recv 2 5 1\n2 wait\n"
		})), unmatched: true},
		// Events on four ranks of a world of 10^6: the same error.
		{name: "tsim huge world", path: write("huge.tsim", "tsim 1\nranks 1000000\n"+repeat(20000, func(i int) string {
			return fmt.Sprintf("%d %d compute dur=1\n", i, i%4)
		})), wantErr: "ranks 1000000: the world has 1000000 ranks but only 4 of them have events"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			one, oneErr := openWith(t, 1, tc.path)
			four, fourErr := openWith(t, 4, tc.path)
			if tc.wantErr != "" {
				if oneErr == nil || !strings.Contains(oneErr.Error(), tc.wantErr) {
					t.Fatalf("1 CPU: error %v, want one containing %q", oneErr, tc.wantErr)
				}
				if fourErr == nil || fourErr.Error() != oneErr.Error() {
					t.Fatalf("4 CPUs: error %v, want %v", fourErr, oneErr)
				}
				return
			}
			if oneErr != nil || fourErr != nil {
				t.Fatalf("errors: 1 CPU %v, 4 CPUs %v", oneErr, fourErr)
			}
			if n := one.NumEvents(); n < 1<<16 {
				t.Fatalf("%d events: too few for the builder's passes to run on several goroutines", n)
			}
			if len(one.Ranks) != len(four.Ranks) {
				t.Fatalf("%d ranks with 1 CPU, %d with 4", len(one.Ranks), len(four.Ranks))
			}
			for r := range one.Ranks {
				a, b := one.Ranks[r].Events, four.Ranks[r].Events
				if len(a) != len(b) {
					t.Fatalf("rank %d: %d events with 1 CPU, %d with 4", r, len(a), len(b))
				}
				for i := range a {
					if a[i] != b[i] {
						t.Fatalf("rank %d event %d: %+v with 1 CPU, %+v with 4", r, i, a[i], b[i])
					}
				}
			}
			if a, b := one.CountMessages(), four.CountMessages(); a != b {
				t.Errorf("messages %+v with 1 CPU, %+v with 4", a, b)
			}
			if !reflect.DeepEqual(one, four) {
				t.Errorf("the traces differ outside their events")
			}
			c := one.CountMessages()
			if c.Matched == 0 || (c.UnmatchedSends > 0 && c.UnmatchedRecvs > 0) != tc.unmatched || (c.WildcardRecvs > 0) != tc.wildcard {
				t.Errorf("messages %+v: want some matched, unmatched ones %v, wildcard receives %v", c, tc.unmatched, tc.wildcard)
			}
		})
	}
}

// openWith opens the trace at path with GOMAXPROCS set to procs.
func openWith(t *testing.T, procs int, path string) (*tracefmt.Trace, error) {
	t.Helper()
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
	tr, _, err := Open(context.Background(), path, "", nil)
	return tr, err
}

// repeat concatenates line(i) for i = 0..n-1.
func repeat(n int, line func(i int) string) string {
	var b strings.Builder
	for i := range n {
		b.WriteString(line(i))
	}
	return b.String()
}
