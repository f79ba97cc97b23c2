package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// TestSimCollPerMessage runs sim --json on generated all-to-all traces
// with the collectives computed in bulk and, with --coll-per-message,
// message by message: everything but the wall time, the kernel events and
// their rates must be the same, and the bulk run must take fewer events.
func TestSimCollPerMessage(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ ranks, size, model string }{
		{"64", "64", "puppet"},     // Bruck
		{"40", "4KiB", "puppet"},   // MPICH's scattered linear, 2 rounds of 32
		{"24", "40KiB", "simgrid"}, // pairwise, rendezvous for SimGrid
	} {
		in := filepath.Join(dir, "a2a-"+tc.ranks+"-"+tc.size+".tsim")
		if code, _, errs := tracesim(t, "gen", "alltoall", "--ranks", tc.ranks, "--iters", "3", "--size", tc.size, "--skew", "20us", "-o", in); code != exitOK {
			t.Fatalf("gen: exit %d: %s", code, errs)
		}
		var docs [2]map[string]any
		var events [2]float64
		for i, extra := range [][]string{nil, {"--coll-per-message"}} {
			code, out, errs := tracesim(t, append([]string{"sim", in, "--model", tc.model, "--json"}, extra...)...)
			if code != exitOK {
				t.Fatalf("sim %v: exit %d: %s", extra, code, errs)
			}
			if err := json.Unmarshal([]byte(out), &docs[i]); err != nil {
				t.Fatal(err)
			}
			events[i] = docs[i]["events"].(float64)
			for _, k := range []string{"wall_s", "events", "events_per_s", "trace_events_per_s"} {
				delete(docs[i], k)
			}
		}
		if !reflect.DeepEqual(docs[0], docs[1]) {
			t.Errorf("%s ranks, %s: sim --json differs with --coll-per-message:\n%v\n%v", tc.ranks, tc.size, docs[0], docs[1])
		}
		if events[0] >= events[1] {
			t.Errorf("%s ranks, %s: %g kernel events in bulk, %g per message: want fewer", tc.ranks, tc.size, events[0], events[1])
		}
		if docs[0]["makespan_s"].(float64) <= 0 {
			t.Errorf("%s ranks, %s: makespan %v", tc.ranks, tc.size, docs[0]["makespan_s"])
		}
	}
}

// writeTIIndex writes a SimGrid TI index of P per-rank files in dir: each
// of iters rounds computes, exchanges with the ring neighbours and ends in
// an allreduce and a barrier. wild names the (rank, round) pairs whose
// receive from the left is posted as MPI_ANY_SOURCE, written src (-555,
// or -0333 as strconv reads it).
func writeTIIndex(t *testing.T, dir string, P, iters int, src string, wild map[[2]int]bool) string {
	t.Helper()
	files := filepath.Join(dir, "ring.txt_files")
	if err := os.MkdirAll(files, 0o755); err != nil {
		t.Fatal(err)
	}
	var index strings.Builder
	for r := range P {
		var b strings.Builder
		fmt.Fprintf(&b, "%d init\n", r)
		for it := range iters {
			left, right := (r+P-1)%P, (r+1)%P
			from := strconv.Itoa(left)
			if wild[[2]int{r, it}] {
				from = src
			}
			fmt.Fprintf(&b, "%d compute %d\n%d irecv %s 0 %d 6\n%d isend %d 0 %d 6\n%d waitall 2\n", r, 1000000+r*20000, r, from, 1000*(it+1), r, right, 1000*(it+1), r)
			fmt.Fprintf(&b, "%d allreduce %d 0 0\n%d barrier\n", r, 100*(it+1), r)
		}
		fmt.Fprintf(&b, "%d finalize\n", r)
		name := fmt.Sprintf("rank-%d.txt", r)
		if err := os.WriteFile(filepath.Join(files, name), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&index, "ring.txt_files/%s\n", name)
	}
	path := filepath.Join(dir, "ring.txt")
	if err := os.WriteFile(path, []byte(index.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestSimStreamedTIBulk: a streamed TI index whose files hold no wildcard
// receive computes its collectives in bulk under the default any-source
// auto, with the sim --json results of the per-message replay and of the
// trace read whole; one with a wildcard receive keeps the per-message
// replay (as many kernel events as --coll-per-message) and its note.
func TestSimStreamedTIBulk(t *testing.T) {
	for _, tc := range []struct {
		name string
		src  string
		wild map[[2]int]bool
		bulk bool
		note string
	}{
		{"no wildcard", "", nil, true, ""},
		{"-555 on rank 3", "-555", map[[2]int]bool{{3, 2}: true}, false, "any-source free: the trace's 1 wildcard receives record no sender"},
		{"-0333 on rank 0", "-0333", map[[2]int]bool{{0, 0}: true, {0, 1}: true}, false, "any-source free: the trace's 2 wildcard receives record no sender"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			in := writeTIIndex(t, dir, 16, 4, tc.src, tc.wild)
			type run struct {
				doc    map[string]any
				events float64
				errs   string
			}
			sim := func(extra ...string) run {
				t.Helper()
				code, out, errs := tracesim(t, append([]string{"sim", in, "--model", "simgrid", "--json"}, extra...)...)
				if code != exitOK {
					t.Fatalf("sim %v: exit %d: %s", extra, code, errs)
				}
				var r run
				if err := json.Unmarshal([]byte(out), &r.doc); err != nil {
					t.Fatal(err)
				}
				r.events, r.errs = r.doc["events"].(float64), errs
				for _, k := range []string{"wall_s", "events", "events_per_s", "trace_events_per_s"} {
					delete(r.doc, k)
				}
				return r
			}
			streamed := sim()
			perMessage := sim("--coll-per-message")
			whole := sim("--trace-out", filepath.Join(dir, "run.tsim"))
			if !reflect.DeepEqual(streamed.doc, perMessage.doc) || !reflect.DeepEqual(streamed.doc, whole.doc) {
				t.Errorf("streamed results\n%v\ndiffer from the per-message replay\n%v\nor the trace read whole\n%v", streamed.doc, perMessage.doc, whole.doc)
			}
			if got := streamed.events < perMessage.events; got != tc.bulk {
				t.Errorf("%g kernel events streamed, %g per message: bulk %v, want %v", streamed.events, perMessage.events, got, tc.bulk)
			}
			if tc.note == "" && streamed.errs != "" || !strings.Contains(streamed.errs, tc.note) {
				t.Errorf("stderr %q, want the note %q", streamed.errs, tc.note)
			}
			want := "recorded"
			if tc.wild != nil {
				want = "free"
			}
			if got := streamed.doc["any_source"]; got != want {
				t.Errorf("any_source %v, want %s", got, want)
			}
		})
	}
}
