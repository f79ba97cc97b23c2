package simgridti

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/tracesim/tracesim/tracefmt"
)

// repeat returns text n times.
func repeat(text string, n int) string { return strings.Repeat(text, n) }

// TestTemplatesFollowState: lines the memo gives again apply from their
// templates only while nothing they depend on changed. Each input
// repeats lines (so that they have templates), then changes what they
// depend on with a general line (a rank's default datatype, the
// grammar) or repeats what each application must do again (request
// ids, wildcard counts, a waitall's clearing, a reduction's flops); the
// trace must be the general path's, on one CPU and on two (the
// pipeline's templates), and the sizes the user sees those the actions
// say.
func TestTemplatesFollowState(t *testing.T) {
	big := 20000 // repetitions making an input of more than one pipeline block
	tests := []struct {
		name string
		in   string
		// sizes are the first and the last send's sizes.
		first, last int64
	}{
		{"default datatype changes",
			"0 init\n1 init\n" + repeat("0 send 1 0 10\n1 recv 0 0 10\n", big) + "0 init 1\n1 init 1\n" + repeat("0 send 1 0 10\n1 recv 0 0 10\n", big),
			10, 80},
		{"grammar turns legacy",
			"0 init\n1 init\n" + repeat("0 send 1 0 10\n1 recv 0 0 10\n", big) + "0 Irecv 1 1\n0 wait\n1 send 0 1\n" + repeat("0 send 1 0 10\n1 recv 0 0 10\n", big),
			10, 0},
		{"requests and waits",
			"0 init\n1 init\n" + repeat("0 isend 1 0 24000 6\n0 irecv 1 1 24000 6\n0 waitall 2\n1 irecv 0 0 24000 6\n1 isend 0 1 24000 6\n1 wait 0 1 0\n1 test 1 0 1\n1 wait 1 0 1\n", big/4),
			24000, 24000},
		{"wildcards",
			"0 init\n1 init\n" + repeat("0 send 1 0 8 6\n1 recv -555 0 8 6\n0 send 1 3 8 6\n1 irecv 0 -444 8 6\n1 waitall\n", big/3),
			8, 8},
		{"reductions with flops",
			"0 init\n1 init\n" + repeat("0 allreduce 8 100 6\n1 allreduce 8 100 6\n0 allreduce 8 0 6\n1 allreduce 8 0 6\n0 send 1 0 4 6\n1 recv 0 0 4 6\n0 compute 1000\n1 barrier\n0 barrier\n", big/4),
			4, 4},
		{"rank switches",
			repeat("0 send 1 0 4 6\n", 50) + repeat("1 recv 0 0 4 6\n", 50) + repeat("0 send 1 0 4 6\n1 recv 0 0 4 6\n", big),
			4, 4},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			data := []byte(tc.in)
			want, err := readNamed("t.ti", bytes.NewReader(data), nil, true)
			if err != nil {
				t.Fatal(err)
			}
			one, two, err1, err2 := readBoth(t, data)
			if err1 != nil || err2 != nil {
				t.Fatalf("errors: one CPU %v, two %v", err1, err2)
			}
			if !reflect.DeepEqual(one, want) {
				t.Errorf("one CPU: the trace differs from the general path's (%s)", firstDiff(one, want))
			}
			if !reflect.DeepEqual(two, want) {
				t.Errorf("two CPUs: the trace differs from the general path's (%s)", firstDiff(two, want))
			}
			var sizes []int64
			for _, e := range one.Ranks[0].Events {
				if e.Kind == tracefmt.KindSend {
					sizes = append(sizes, e.Size)
				}
			}
			if len(sizes) == 0 || sizes[0] != tc.first || (tc.last != 0 && sizes[len(sizes)-1] != tc.last) {
				t.Errorf("send sizes %v…%v, want %d…%d", sizes[:min(len(sizes), 1)], sizes[max(len(sizes)-1, 0):], tc.first, tc.last)
			}
		})
	}
}

// TestTemplatesPerFile: in an index, a file's lines must name its rank;
// a line the memo names with a template of another file's rank is
// refused where it is, as the general path refuses it.
func TestTemplatesPerFile(t *testing.T) {
	dir := t.TempDir()
	lines := repeat("0 send 1 0 4 6\n", 30000)
	if err := os.WriteFile(filepath.Join(dir, "r0.txt"), []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "r1.txt"), []byte("1 recv 0 0 4 6\n"+lines), 0o644); err != nil {
		t.Fatal(err)
	}
	index := filepath.Join(dir, "t.ti")
	if err := os.WriteFile(index, []byte("r0.txt\nr1.txt\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(index)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	_, errGeneral := readNamed(index, f, DirOpener(dir), true)
	for _, procs := range []int{1, 2} {
		f.Seek(0, 0)
		_, err := readWith(procs, func() (*tracefmt.Trace, error) { return ReadFile(index) })
		if err == nil || err.Error() != errGeneral.Error() {
			t.Errorf("%d CPUs: %v, want %v", procs, err, errGeneral)
		}
	}
	if want := "r1.txt:2:1:"; errGeneral == nil || !strings.Contains(errGeneral.Error(), want) {
		t.Errorf("general path: %v, want an error at %s", errGeneral, want)
	}
}

// firstDiff names the first event where two traces differ.
func firstDiff(a, b *tracefmt.Trace) string {
	if len(a.Ranks) != len(b.Ranks) {
		return fmt.Sprintf("%d ranks, want %d", len(a.Ranks), len(b.Ranks))
	}
	for r := range a.Ranks {
		ea, eb := a.Ranks[r].Events, b.Ranks[r].Events
		for i := range min(len(ea), len(eb)) {
			if ea[i] != eb[i] {
				return fmt.Sprintf("rank %d event %d: %+v, want %+v", r, i, ea[i], eb[i])
			}
		}
		if len(ea) != len(eb) {
			return fmt.Sprintf("rank %d: %d events, want %d", r, len(ea), len(eb))
		}
	}
	return "attributes"
}

// readWith runs read with procs CPUs for Go.
func readWith(procs int, read func() (*tracefmt.Trace, error)) (*tracefmt.Trace, error) {
	prev := runtime.GOMAXPROCS(procs)
	defer runtime.GOMAXPROCS(prev)
	return read()
}
