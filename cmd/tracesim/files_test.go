package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tracesim/tracesim/tracefmt"
)

// The files sim reads by name besides the trace — a topology graph, a
// placement map, a configuration — must be regular files within their
// size limit: /dev/zero or a FIFO fails at once with a clear error
// instead of reading gigabytes or blocking.
func TestSimRefusesSpecialAndHugeFiles(t *testing.T) {
	path := writeTsim(t, 2, func(b *tracefmt.Builder) {
		b.Add(0, tracefmt.Send(0, 1, 0, 0, 1000))
		b.Add(1, tracefmt.Recv(0, 0, 0, 0, 1000))
	})
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	big := filepath.Join(dir, "big.txt")
	if err := os.WriteFile(big, make([]byte, 9<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--topology", "file:/dev/zero"}, "topology file /dev/zero: not a regular file"},
		{[]string{"--topology", "file:" + fifo}, "topology file " + fifo + ": not a regular file"},
		{[]string{"--topology", "file:" + dir}, "topology file " + dir + ": not a regular file"},
		{[]string{"--topology", "file:" + big}, "topology file " + big + ": larger than the 4 MiB limit for topology files"},
		{[]string{"--placement", "file:/dev/zero"}, "placement file /dev/zero: not a regular file"},
		{[]string{"--placement", "file:" + fifo}, "placement file " + fifo + ": not a regular file"},
		{[]string{"--placement", "file:" + big}, "placement file " + big + ": larger than the 8 MiB limit for placement files"},
		{[]string{"--config", "/dev/zero"}, "configuration file /dev/zero: not a regular file"},
		{[]string{"--config", fifo}, "configuration file " + fifo + ": not a regular file"},
		{[]string{"--config", big}, "configuration file " + big + ": larger than the 1 MiB limit for configuration files"},
	}
	for _, tc := range cases {
		type result struct {
			code      int
			out, errs string
		}
		done := make(chan result, 1)
		go func() {
			code, out, errs := simRun(t, append([]string{path}, tc.args...)...)
			done <- result{code, out, errs}
		}()
		select {
		case r := <-done:
			if r.code == exitOK || !strings.Contains(r.errs, tc.want) {
				t.Errorf("%v: exit %d, stderr %q; want an error with %q", tc.args, r.code, r.errs, tc.want)
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("%v: still running after 20 s", tc.args)
		}
	}
}
