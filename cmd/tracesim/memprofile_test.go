package main

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strings"
	"testing"
	"time"
)

// readProfile returns the decompressed protobuf of a gzipped pprof file.
func readProfile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("%s: not a gzipped profile: %v", path, err)
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return raw
}

// field is one protobuf field: its number and either its varint or
// its bytes.
type field struct {
	num   int
	value uint64
	bytes []byte
}

// protoFields splits a protobuf message into its fields (varints and
// length-delimited fields only, all a pprof profile has).
func protoFields(t *testing.T, b []byte) []field {
	t.Helper()
	var out []field
	for len(b) > 0 {
		key, n := binary.Uvarint(b)
		if n <= 0 {
			t.Fatalf("bad protobuf key")
		}
		b = b[n:]
		f := field{num: int(key >> 3)}
		switch key & 7 {
		case 0:
			f.value, n = binary.Uvarint(b)
			if n <= 0 {
				t.Fatalf("bad varint in field %d", f.num)
			}
			b = b[n:]
		case 2:
			l, n := binary.Uvarint(b)
			if n <= 0 || uint64(len(b)-n) < l {
				t.Fatalf("bad length in field %d", f.num)
			}
			f.bytes, b = b[n:n+int(l)], b[n+int(l):]
		default:
			t.Fatalf("wire type %d in field %d", key&7, f.num)
		}
		out = append(out, f)
	}
	return out
}

// varints are the values of a repeated integer field, packed or not.
func varints(t *testing.T, fs []field, num int) []uint64 {
	t.Helper()
	var out []uint64
	for _, f := range fs {
		if f.num != num {
			continue
		}
		if f.bytes == nil {
			out = append(out, f.value)
			continue
		}
		for b := f.bytes; len(b) > 0; {
			v, n := binary.Uvarint(b)
			if n <= 0 {
				t.Fatalf("bad packed varint in field %d", num)
			}
			out, b = append(out, v), b[n:]
		}
	}
	return out
}

// inUseAt returns, from a gzipped pprof heap profile, the bytes in use
// (inuse_space) allocated by function fn itself, and the total.
func inUseAt(t *testing.T, path, fn string) (at, total int64) {
	t.Helper()
	prof := protoFields(t, readProfile(t, path))
	var strs []string
	for _, f := range prof {
		if f.num == 6 {
			strs = append(strs, string(f.bytes))
		}
	}
	str := func(i uint64) string {
		if i >= uint64(len(strs)) {
			t.Fatalf("string %d of %d", i, len(strs))
		}
		return strs[i]
	}
	col, types := -1, 0
	funcs := map[uint64]string{}
	locs := map[uint64][]uint64{}
	for _, f := range prof {
		switch f.num {
		case 1: // sample_type
			if str(varints(t, protoFields(t, f.bytes), 1)[0]) == "inuse_space" {
				col = types
			}
			types++
		case 5: // function: id, name
			fs := protoFields(t, f.bytes)
			funcs[varints(t, fs, 1)[0]] = str(varints(t, fs, 2)[0])
		case 4: // location: id, lines (function id), innermost first
			fs := protoFields(t, f.bytes)
			id := varints(t, fs, 1)[0]
			for _, l := range fs {
				if l.num == 4 {
					locs[id] = append(locs[id], varints(t, protoFields(t, l.bytes), 1)[0])
				}
			}
		}
	}
	if col < 0 {
		t.Fatalf("%s: no inuse_space sample type", path)
	}
	for _, f := range prof {
		if f.num != 2 {
			continue
		}
		fs := protoFields(t, f.bytes)
		vals := varints(t, fs, 2)
		if len(vals) != types {
			t.Fatalf("a sample has %d values for %d types", len(vals), types)
		}
		v := int64(vals[col])
		total += v
		if ls := varints(t, fs, 1); len(ls) > 0 && len(locs[ls[0]]) > 0 && funcs[locs[ls[0]][0]] == fn {
			at += v
		}
	}
	return at, total
}

// holdBig allocates size bytes and keeps them until the next garbage
// collection has finished (so that its heap snapshot holds them), then
// drops them; it returns the collection count at that point.
//
//go:noinline
func holdBig(size int) uint64 {
	c := gcCycles()
	big := make([]byte, size)
	for i := 0; i < len(big); i += 4096 {
		big[i] = 1
	}
	// The allocation has started a collection (the heap was far
	// smaller); garbage allocated meanwhile would be marked live too.
	for wait := 0; gcCycles() == c; wait++ {
		if wait == 10000 { // 1 s: the heap was not smaller after all
			runtime.GC()
		}
		time.Sleep(100 * time.Microsecond)
	}
	runtime.KeepAlive(big)
	return gcCycles()
}

// gcCycles is the number of finished garbage collections.
func gcCycles() uint64 {
	s := []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// churn allocates n blocks of 64 KiB of garbage, pausing after each (a
// collection's mark counts the blocks allocated while it runs as live:
// the pauses keep them few, whatever the machine's load).
func churn(n int) {
	var keep [][]byte
	for range n {
		keep = append(keep[:0], make([]byte, 64<<10))
		time.Sleep(100 * time.Microsecond)
	}
	runtime.KeepAlive(keep)
}

// churnSeen allocates garbage until collection count c has passed,
// pausing at each collection until the poller has seen it: a program
// whose collections come no faster than the polls.
func churnSeen(t *testing.T, h *heapPeak, c uint64) {
	t.Helper()
	for gcCycles() <= c {
		churn(1)
		for wait := 0; h.seen.Load() != gcCycles(); wait++ {
			if wait > 10000 {
				t.Fatalf("the poller did not see collection %d in 10 s (it saw %d)", gcCycles(), h.seen.Load())
			}
			time.Sleep(time.Millisecond)
		}
	}
}

// blockFinalizers keeps the finalizer goroutine busy until the test
// ends, as a slow finalizer elsewhere in a program would.
func blockFinalizers(t *testing.T) {
	started, release := make(chan struct{}), make(chan struct{})
	t.Cleanup(func() { close(release) })
	func() {
		o := &struct{ _ [32]byte }{}
		runtime.SetFinalizer(o, func(*struct{ _ [32]byte }) {
			close(started)
			<-release
		})
	}()
	for {
		runtime.GC()
		select {
		case <-started:
			return
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// TestMemProfileKeepsThePeak: the profile written is that of the heap
// snapshot with the most bytes in use, not the end's, whenever the peak
// falls: a 64 MiB block held across one collection, then dropped, shows
// as the largest sample, allocated by holdBig.
func TestMemProfileKeepsThePeak(t *testing.T) {
	const size = 64 << 20
	for _, tc := range []struct {
		name string
		run  func(t *testing.T, h *heapPeak)
	}{
		// The peak's snapshot is published at the collection after
		// the one that saw the block, and replaced at the next.
		{"mid-run", func(t *testing.T, h *heapPeak) {
			churnSeen(t, h, holdBig(size)+2)
		}},
		// The same with the finalizer goroutine busy all along.
		{"mid-run, finalizers blocked", func(t *testing.T, h *heapPeak) {
			blockFinalizers(t)
			churnSeen(t, h, holdBig(size)+2)
		}},
		// The command ends before the collection that would publish
		// the peak's snapshot.
		{"last collection", func(t *testing.T, h *heapPeak) {
			churnSeen(t, h, gcCycles())
			holdBig(size)
		}},
		// Many collections after the peak, at a small heap.
		{"long tail", func(t *testing.T, h *heapPeak) {
			churnSeen(t, h, holdBig(size)+20)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rate := runtime.MemProfileRate
			t.Cleanup(func() { runtime.MemProfileRate = rate })
			// Collections every 10 % of the live heap: the 64 MiB
			// block starts one, and the garbage that ends the next
			// ones is a few MiB.
			gogc := debug.SetGCPercent(10)
			t.Cleanup(func() { debug.SetGCPercent(gogc) })
			path := filepath.Join(t.TempDir(), "heap.pb.gz")
			h, err := startHeapPeak(path)
			if err != nil {
				t.Fatal(err)
			}
			// A live heap of 16 MiB, so that the collection after the
			// block's comes 8 MiB of allocation later, more than the
			// poller's own profile writing (a few MiB) allocates.
			ballast := make([]byte, 16<<20)
			churn(64)
			tc.run(t, h)
			runtime.KeepAlive(ballast)
			if err := h.stop(); err != nil {
				t.Fatal(err)
			}
			if h.peak < size {
				t.Errorf("kept the profile of a snapshot with %d bytes in use, want the one with the %d-byte block", h.peak, size)
			}
			if at, total := inUseAt(t, path, "github.com/tracesim/tracesim/cmd/tracesim.holdBig"); at < size {
				t.Errorf("the profile has %d bytes in use allocated by holdBig (of %d in all), want ≥ %d", at, total, size)
			}
			// After stop, nothing samples.
			taken := h.taken
			churn(16)
			runtime.GC()
			time.Sleep(5 * memPollPeriod)
			if h.taken != taken {
				t.Errorf("%d profiles taken after stop", h.taken-taken)
			}
		})
	}
}

// TestMemProfileFlag: --memprofile writes a heap profile of the command
// (here info, whose trace reader allocates); a path that cannot be
// created fails before the command runs, with exit 1.
func TestMemProfileFlag(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	rate := runtime.MemProfileRate
	t.Cleanup(func() { runtime.MemProfileRate = rate })
	p := genRing(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "info.pb.gz")
	if err := os.WriteFile(path, []byte("an older profile"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := tracesim(t, "--memprofile", path, "info", p, "--json")
	if code != exitOK || !strings.Contains(out, `"ranks"`) {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
	if raw := readProfile(t, path); !bytes.Contains(raw, []byte("tracesim/tracefmt")) {
		t.Errorf("the profile names no function of tracefmt, which read the trace")
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("%d files in the profile's directory, want the profile alone (no temporary file left)", len(ents))
	}
	bad := filepath.Join(t.TempDir(), "no", "dir", "heap.pb.gz")
	code, out, errs = tracesim(t, "info", p, "--memprofile", bad)
	if code != exitFail || out != "" || !strings.Contains(errs, "tracesim: --memprofile: open ") {
		t.Errorf("unwritable path: exit %d, stdout %q, stderr %q; want exit %d and the open error", code, out, errs, exitFail)
	}
}
