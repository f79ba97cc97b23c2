package otf2

import (
	"bytes"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"testing"

	"github.com/tracesim/tracesim/tracefmt"
)

// mixedTrace has ranks that use their states in different orders (so
// that a rank's own state ids differ from the trace's) and exchange
// messages with both neighbours.
func mixedTrace(t testing.TB) *tracefmt.Trace {
	const P = 6
	b := tracefmt.NewBuilder(P, true, tracefmt.Nanosecond)
	names := []string{"MPI_Send", "MPI_Recv", "compute", "io", "MPI_Barrier"}
	for r := range P {
		tm := float64(r)
		ids := make([]tracefmt.StateID, len(names))
		for i := range names {
			ids[i] = b.State(names[(i+r)%len(names)])
		}
		add := func(e tracefmt.Event) {
			tm += 10
			e.Time = tm
			if _, err := b.Add(r, e); err != nil {
				t.Fatal(err)
			}
		}
		for s := range 300 {
			st := ids[(s+r)%len(ids)]
			add(tracefmt.Enter(0, st))
			add(tracefmt.Send(0, (r+1)%P, int32(s%3), 0, int64(s)))
			add(tracefmt.Recv(0, (r+P-1)%P, int32(s%3), 0, int64(s)))
			add(tracefmt.Leave(0, st))
		}
	}
	tr, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// readOutcome is what a read returns, for comparing two reads.
type readOutcome struct {
	t   *tracefmt.Trace
	st  *Stats
	err string
}

func readWith(files map[string][]byte, workers int) readOutcome {
	t, st, err := read("traces.otf2", bytes.NewReader(files["traces.otf2"]), mapOpener(files), workers)
	o := readOutcome{t: t, st: st}
	if err != nil {
		o.err = err.Error()
	}
	return o
}

// TestParallelReadIsSequential reads archives with one goroutine and with
// several: the traces (every event, state, marker and communicator) and
// counts are the same, and so is the error of a damaged archive, which is
// the first problem in rank order and, within a rank, in stream order.
func TestParallelReadIsSequential(t *testing.T) {
	type archive struct {
		name  string
		files map[string][]byte
		// damage: whether to read damaged copies too (the bench
		// archive has too many files for a quick test).
		damage bool
	}
	var archives []archive
	for _, a := range seedArchives {
		if _, err := os.Stat(a); err == nil {
			archives = append(archives, archive{a, archiveFiles(t, a), true})
		}
	}
	for _, g := range []struct {
		name string
		tr   *tracefmt.Trace
	}{{"mixed", mixedTrace(t)}, {"bench", benchTrace(t, 1)}} {
		damage := g.name == "mixed"
		dir := filepath.Join(t.TempDir(), g.name)
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		archives = append(archives, archive{g.name, archiveFiles(t, writeArchive(t, g.tr, dir)), damage})
	}
	rng := rand.New(rand.NewSource(1))
	for _, a := range archives {
		t.Run(a.name, func(t *testing.T) {
			seq := readWith(a.files, 1)
			if seq.err != "" {
				t.Fatalf("sequential read: %s", seq.err)
			}
			for _, w := range []int{2, 3, 8} {
				same(t, fmt.Sprintf("%d workers", w), seq, readWith(a.files, w))
			}
			if !a.damage {
				return
			}
			// Damaged archives: a file cut short or with bytes changed.
			var names []string
			for n := range a.files {
				names = append(names, n)
			}
			sort.Strings(names)
			for _, n := range names {
				for k := range 6 {
					d := bytes.Clone(a.files[n])
					if len(d) == 0 {
						continue
					}
					if k%3 == 0 {
						d = d[:rng.Intn(len(d))]
					} else {
						for range 1 + k%3 {
							d[rng.Intn(len(d))] = byte(rng.Intn(256))
						}
					}
					m := make(map[string][]byte, len(a.files))
					for x, v := range a.files {
						m[x] = v
					}
					m[n] = d
					same(t, fmt.Sprintf("%s damaged %d", n, k), readWith(m, 1), readWith(m, 4))
				}
			}
		})
	}
}

// same fails unless two reads returned the same.
func same(t *testing.T, what string, want, got readOutcome) {
	t.Helper()
	if got.err != want.err {
		t.Fatalf("%s: error %q, want %q", what, got.err, want.err)
	}
	if want.err != "" {
		return
	}
	if !reflect.DeepEqual(got.st, want.st) {
		t.Errorf("%s: stats %+v, want %+v", what, *got.st, *want.st)
	}
	for r := range want.t.Ranks {
		ge, we := got.t.Ranks[r].Events, want.t.Ranks[r].Events
		if len(ge) != len(we) {
			t.Fatalf("%s: rank %d has %d events, want %d", what, r, len(ge), len(we))
		}
		for i := range we {
			if ge[i] != we[i] {
				t.Fatalf("%s: rank %d event %d is %+v, want %+v", what, r, i, ge[i], we[i])
			}
		}
	}
	if !reflect.DeepEqual(got.t, want.t) {
		t.Fatalf("%s: traces differ outside the events (states, markers, communicators, attributes)", what)
	}
}
