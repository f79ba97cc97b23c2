package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// SIGTERM during a long write stops the command within a second (two on
// a loaded machine), removes its temporary file and leaves the previous
// output as it was: the metrics of sim --metrics-out, convert and fix,
// run as the real binary.
func TestSignalDuringWrite(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and writes traces of millions of events")
	}
	bin := buildTracesim(t)
	dir := t.TempDir()
	trace := filepath.Join(dir, "ring.tsim")
	if out, err := exec.Command(bin, "gen", "ring", "--ranks", "64", "--iters", "5000", "-o", trace).CombinedOutput(); err != nil {
		t.Fatalf("gen: %v\n%s", err, out)
	}
	for _, tc := range []struct {
		name, out string
		args      []string
	}{
		{"sim --metrics-out", "m.csv", []string{"sim", "--model", "flow", "--sample-period", "100ns", "--max-output", "100GiB", "--metrics-out", "OUT", trace}},
		{"convert", "c.tsim", []string{"convert", trace, "--format", "tsim", "-o", "OUT"}},
		{"fix", "f.tsim", []string{"fix", trace, "-o", "OUT"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(dir, tc.out)
			const old = "the previous output\n"
			if err := os.WriteFile(out, []byte(old), 0o644); err != nil {
				t.Fatal(err)
			}
			args := strings.Split(strings.ReplaceAll(strings.Join(tc.args, "\x00"), "OUT", out), "\x00")
			cmd := exec.Command(bin, args...)
			var stderr strings.Builder
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			// Wait for the temporary file: the write has begun.
			pattern := filepath.Join(dir, "."+tc.out+".tmp-*")
			deadline := time.Now().Add(30 * time.Second)
			for {
				if m, _ := filepath.Glob(pattern); len(m) > 0 {
					break
				}
				select {
				case err := <-done:
					t.Fatalf("finished (%v) before its temporary file was seen: %s", err, stderr.String())
				default:
				}
				if time.Now().After(deadline) {
					cmd.Process.Kill()
					t.Fatal("no temporary file after 30 s")
				}
				time.Sleep(2 * time.Millisecond)
			}
			sent := time.Now()
			if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
			select {
			case err := <-done:
				took := time.Since(sent)
				t.Logf("stopped %v after SIGTERM: %v: %s", took.Round(time.Millisecond), err, strings.TrimSpace(stderr.String()))
				if err == nil {
					t.Errorf("exit status 0 after SIGTERM")
				}
				if took > 2*time.Second {
					t.Errorf("took %v to stop after SIGTERM", took)
				}
			case <-time.After(10 * time.Second):
				cmd.Process.Kill()
				t.Fatal("still running 10 s after SIGTERM")
			}
			if m, _ := filepath.Glob(pattern); len(m) > 0 {
				t.Errorf("temporary files left: %v", m)
			}
			if b, err := os.ReadFile(out); err != nil || string(b) != old {
				t.Errorf("previous output now %q (%v), want %q", b, err, old)
			}
		})
	}
}
