package main

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
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

// holdBig allocates size bytes, keeps them live across two measured
// collections (the second publishes the first's profile) and drops them.
func holdBig(h *heapPeak, size int) {
	big := make([]byte, size)
	for i := 0; i < len(big); i += 4096 {
		big[i] = 1
	}
	for range 2 {
		runtime.GC()
		h.collected()
	}
	runtime.KeepAlive(big)
}

// TestMemProfileKeepsThePeak: the profile written is that of the
// collection that found the most live bytes, not the last one, and it
// names the function that allocated them.
func TestMemProfileKeepsThePeak(t *testing.T) {
	rate := runtime.MemProfileRate
	t.Cleanup(func() { runtime.MemProfileRate = rate })
	path := filepath.Join(t.TempDir(), "heap.pb.gz")
	h, err := startHeapPeak(path)
	if err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	h.collected()
	const size = 64 << 20
	holdBig(h, size)
	for range 3 { // the 64 MiB are garbage now
		runtime.GC()
		h.collected()
	}
	if err := h.stop(); err != nil {
		t.Fatal(err)
	}
	if h.peak < size {
		t.Errorf("kept the profile of a collection that found %d live bytes, want the one with the %d-byte block (≥ %d)", h.peak, size, size)
	}
	if raw := readProfile(t, path); !bytes.Contains(raw, []byte("tracesim/cmd/tracesim.holdBig")) {
		t.Errorf("the profile does not name holdBig, which allocated the peak")
	}
	// After stop, collections measure nothing.
	before := h.cycle
	runtime.GC()
	h.collected()
	if h.cycle != before {
		t.Errorf("a collection after stop was measured (cycle %d → %d)", before, h.cycle)
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
