package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// SIGTERM, or a hangup (the terminal closed), during a long write stops
// the command within a second (two on a loaded machine), removes its
// temporary file and leaves the previous output as it was: the metrics of
// sim --metrics-out, convert and fix, run as the real binary. Under nohup
// a hangup is ignored.
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
		sig       syscall.Signal
		args      []string
	}{
		{"sim --metrics-out", "m.csv", syscall.SIGTERM, []string{"sim", "--model", "flow", "--sample-period", "100ns", "--max-output", "100GiB", "--metrics-out", "OUT", trace}},
		{"convert", "c.tsim", syscall.SIGTERM, []string{"convert", trace, "--format", "tsim", "-o", "OUT"}},
		{"fix", "f.tsim", syscall.SIGTERM, []string{"fix", trace, "-o", "OUT"}},
		{"convert hangup", "h.tsim", syscall.SIGHUP, []string{"convert", trace, "--format", "tsim", "-o", "OUT"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(dir, tc.out)
			const old = "the previous output\n"
			if err := os.WriteFile(out, []byte(old), 0o644); err != nil {
				t.Fatal(err)
			}
			args := strings.Split(strings.ReplaceAll(strings.Join(tc.args, "\x00"), "OUT", out), "\x00")
			cmd := exec.Command(bin, args...)
			pattern := filepath.Join(dir, "."+tc.out+".tmp-*")
			done, stderr := startWriting(t, cmd, pattern)
			sent := time.Now()
			if err := cmd.Process.Signal(tc.sig); err != nil {
				t.Fatal(err)
			}
			select {
			case err := <-done:
				took := time.Since(sent)
				t.Logf("stopped %v after %v: %v: %s", took.Round(time.Millisecond), tc.sig, err, strings.TrimSpace(stderr.String()))
				if err == nil {
					t.Errorf("exit status 0 after %v", tc.sig)
				}
				if !strings.Contains(stderr.String(), "interrupted") {
					t.Errorf("stderr %q does not say the command was interrupted (killed by the signal, not stopped?)", stderr.String())
				}
				if took > 2*time.Second {
					t.Errorf("took %v to stop after %v", took, tc.sig)
				}
			case <-time.After(10 * time.Second):
				cmd.Process.Kill()
				t.Fatalf("still running 10 s after %v", tc.sig)
			}
			if m, _ := filepath.Glob(pattern); len(m) > 0 {
				t.Errorf("temporary files left: %v", m)
			}
			if b, err := os.ReadFile(out); err != nil || string(b) != old {
				t.Errorf("previous output now %q (%v), want %q", b, err, old)
			}
		})
	}
	// A command started with hangups ignored (nohup, or a shell's trap
	// "" HUP) keeps ignoring them: a hangup during convert's write
	// neither stops it nor loses its output.
	t.Run("convert under nohup", func(t *testing.T) {
		out := filepath.Join(dir, "n.tsim")
		cmd := exec.Command("sh", "-c", `trap "" HUP; exec "$0" "$@"`, bin, "convert", trace, "--format", "tsim", "-o", out)
		done, stderr := startWriting(t, cmd, filepath.Join(dir, ".n.tsim.tmp-*"))
		if err := cmd.Process.Signal(syscall.SIGHUP); err != nil {
			t.Fatal(err)
		}
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("convert under nohup stopped on a hangup: %v: %s", err, stderr.String())
			}
		case <-time.After(60 * time.Second):
			cmd.Process.Kill()
			t.Fatal("convert still running 60 s after the hangup")
		}
		src, err := os.ReadFile(trace)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := os.ReadFile(out); err != nil || !bytes.Equal(got, src) {
			t.Errorf("output: %d bytes (%v), want the %d bytes of the converted trace", len(got), err, len(src))
		}
	})
}

// startWriting starts cmd and waits until a temporary file matching
// pattern exists: the command's write has begun. done reports the
// command's end; stderr collects what it says.
func startWriting(t *testing.T, cmd *exec.Cmd, pattern string) (done chan error, stderr *strings.Builder) {
	t.Helper()
	stderr = &strings.Builder{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done = make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	deadline := time.Now().Add(30 * time.Second)
	for {
		if m, _ := filepath.Glob(pattern); len(m) > 0 {
			return done, stderr
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
}
