package main

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	gossh "golang.org/x/crypto/ssh"

	"github.com/tracesim/tracesim/tracefmt/gen"
	"github.com/tracesim/tracesim/tracefmt/tsim"
	"github.com/tracesim/tracesim/tui"
)

func TestServeUsageErrors(t *testing.T) {
	dir := t.TempDir()
	ak := filepath.Join(dir, "ak")
	if err := os.WriteFile(ak, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	hk := filepath.Join(dir, "hk")
	for _, args := range [][]string{
		{"serve", "--host-key", hk, "--authorized-keys", ak},
		{"serve", "--host-key", hk, "--library", dir},
		{"serve", "--host-key", hk, "--library", dir, "--authorized-keys", ak, "--allow-anonymous"},
		{"serve", "--host-key", hk, "--library", dir, "--allow-anonymous", "--max-sessions", "0"},
		{"serve", "--host-key", hk, "--library", dir, "--allow-anonymous", "--log-format", "xml"},
		{"serve", "--host-key", hk, "--library", dir, "--allow-anonymous", "--theme", "nosuch"},
		{"serve", "--host-key", hk, "--library", dir, "--allow-anonymous", "extra"},
		{"serve", "--host-key", hk, "--library", dir, "--allow-anonymous", "--max-startups", "10:30"},
		{"serve", "--host-key", hk, "--library", dir, "--allow-anonymous", "--per-source-max-startups", "20:30:10"},
		{"serve", "--host-key", hk, "--library", dir, "--allow-anonymous", "--max-memory", "lots"},
	} {
		code, _, stderr := tracesim(t, args...)
		if code != exitUsage || stderr == "" {
			t.Errorf("%q: exit %d, stderr %q", args, code, stderr)
		}
	}
	code, out, _ := tracesim(t, "serve", "--help")
	if code != exitOK || !strings.Contains(out, "ssh -t") || !strings.Contains(out, "--authorized-keys") {
		t.Errorf("--help: exit %d\n%s", code, out)
	}
	if _, err := os.Stat(hk); err == nil {
		t.Error("a usage error generated a host key")
	}
}

// TestServeRefusesWritableKeys: an authorized_keys file others can
// write stops the server at start with OpenSSH's message.
func TestServeRefusesWritableKeys(t *testing.T) {
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	ak := filepath.Join(dir, "authorized_keys")
	if err := os.WriteFile(ak, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(ak, 0o666); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := tracesim(t, "serve", "--host-key", filepath.Join(dir, "hk"), "--library", dir, "--authorized-keys", ak)
	want := "Authentication refused: bad ownership or modes for file " + ak + " (writable by others, mode 0666)"
	if code != exitFail || !strings.Contains(stderr, want) {
		t.Errorf("exit %d, stderr %q; want exit %d and %q", code, stderr, exitFail, want)
	}
}

// lockedBuffer collects a command's stderr while the test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// served is a `tracesim serve` running in-process on a loopback port.
type served struct {
	addr, dir, keyFile string
	key                gossh.Signer
	hostKey            string
	stderr             *lockedBuffer
	stop               func() int
}

// startServe runs `tracesim serve` on 127.0.0.1:0 with a library of one
// ring trace and one authorised key (also written to keyFile in OpenSSH
// format, for the ssh command).
func startServe(t *testing.T, extra ...string) *served {
	t.Helper()
	dir := t.TempDir()
	// The server refuses keys in a directory others can write.
	if err := os.Chmod(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	lib := filepath.Join(dir, "library")
	if err := os.Mkdir(lib, 0o755); err != nil {
		t.Fatal(err)
	}
	tr, err := gen.Generate(gen.Options{Pattern: "ring", Ranks: 4, Iters: 3, Compute: -1, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := tsim.Write(&b, tr); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(lib, "ring.tsim"), b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	signer, err := gossh.NewSignerFromKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	block, err := gossh.MarshalPrivateKey(priv, "student")
	if err != nil {
		t.Fatal(err)
	}
	s := &served{dir: dir, key: signer, keyFile: filepath.Join(dir, "id_ed25519"), hostKey: filepath.Join(dir, "host_ed25519"), stderr: &lockedBuffer{}}
	if err := os.WriteFile(s.keyFile, pem.EncodeToMemory(block), 0o600); err != nil {
		t.Fatal(err)
	}
	ak := filepath.Join(dir, "authorized_keys")
	if err := os.WriteFile(ak, gossh.MarshalAuthorizedKey(signer.PublicKey()), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	args := append([]string{"serve", "--listen", "127.0.0.1:0", "--host-key", s.hostKey,
		"--authorized-keys", ak, "--library", lib, "--grace", "1s", "--log-format", "json"}, extra...)
	go func() {
		done <- run(&env{ctx: ctx, stdout: io.Discard, stderr: s.stderr}, args)
	}()
	stopped, code := false, -1
	s.stop = func() int {
		if stopped {
			return code
		}
		stopped = true
		cancel()
		select {
		case code = <-done:
		case <-time.After(30 * time.Second):
			t.Error("tracesim serve did not stop")
		}
		return code
	}
	t.Cleanup(func() { s.stop() })
	// The address is in the "serving" log line.
	re := regexp.MustCompile(`"msg":"serving","addr":"([^"]+)"`)
	deadline := time.Now().Add(30 * time.Second)
	for {
		if m := re.FindStringSubmatch(s.stderr.String()); m != nil {
			s.addr = m[1]
			break
		}
		select {
		case code := <-done:
			t.Fatalf("tracesim serve exited %d:\n%s", code, s.stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("no serving line:\n%s", s.stderr.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	return s
}

// TestServeCommand runs `tracesim serve` and uses it with x/crypto/ssh:
// the host key is generated (0600), the UI answers, SIGINT-like
// cancellation shuts it down with exit 0.
func TestServeCommand(t *testing.T) {
	s := startServe(t)
	st, err := os.Stat(s.hostKey)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("host key: %v, %v", st, err)
	}
	c, err := gossh.Dial("tcp", s.addr, &gossh.ClientConfig{
		User: "alice", Auth: []gossh.AuthMethod{gossh.PublicKeys(s.key)},
		HostKeyCallback: gossh.InsecureIgnoreHostKey(), Timeout: 30 * time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	sess, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	var out lockedBuffer
	sess.Stdout = &out
	in, err := sess.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := sess.RequestPty("xterm", 24, 80, nil); err != nil {
		t.Fatal(err)
	}
	if err := sess.Start("ring"); err != nil {
		t.Fatal(err)
	}
	waitOutput(t, &out, "Timeline")
	in.Write([]byte("q"))
	if err := sess.Wait(); err != nil {
		t.Errorf("session: %v", err)
	}
	if code := s.stop(); code != exitOK {
		t.Errorf("exit %d:\n%s", code, s.stderr.String())
	}
	logs := s.stderr.String()
	for _, want := range []string{`"msg":"generated host key"`, `"msg":"session start"`, `"msg":"session end"`, `"trace":"ring.tsim"`, `"msg":"shut down"`} {
		if !strings.Contains(logs, want) {
			t.Errorf("logs lack %s:\n%s", want, logs)
		}
	}
}

func waitOutput(t *testing.T, out interface{ String() string }, want string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(ansi.Strip(out.String()), want) {
		if time.Now().After(deadline) {
			t.Fatalf("no %q in:\n%s", want, ansi.Strip(out.String()))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestServeOpenSSH drives the server with Debian's OpenSSH client, as a
// student would: the UI with an authorised key (a tab, a simulation run
// to the end, quit), refusal of an unknown key, refusal of a path outside
// the library and of a shell command.
func TestServeOpenSSH(t *testing.T) {
	sshBin, err := exec.LookPath("ssh")
	if err != nil {
		t.Skip("no OpenSSH client (ssh) on this machine")
	}
	s := startServe(t)
	host, port, _ := strings.Cut(s.addr, ":")
	sshCmd := func(key string, args ...string) *exec.Cmd {
		base := []string{"-F", "/dev/null", "-p", port, "-i", key,
			"-o", "IdentitiesOnly=yes", "-o", "BatchMode=yes",
			"-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null",
			"-o", "LogLevel=ERROR", "-o", "ConnectTimeout=20"}
		cmd := exec.Command(sshBin, append(append(base, args...), "student@"+host)...)
		return cmd
	}
	runSSH := func(cmd *exec.Cmd, trace string) (int, string) {
		cmd.Args = append(cmd.Args, trace)
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode(), string(out)
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0, string(out)
	}

	t.Run("authorised key", func(t *testing.T) {
		cmd := sshCmd(s.keyFile, "-tt") // -tt: a terminal although stdin is a pipe
		cmd.Args = append(cmd.Args, "ring")
		var out lockedBuffer
		cmd.Stdout, cmd.Stderr = &out, &out
		in, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		waitOutput(t, &out, " ranks · ") // loaded: the loading screen drops "r"
		in.Write([]byte("2"))            // Matrix
		// Run a simulation to the end on the Simulate tab, if there is one.
		if i := slices.IndexFunc(tui.DefaultTabs(), func(tb tui.Tab) bool { return tb.Name == "Simulate" }); i >= 0 && i < 9 {
			in.Write([]byte{byte('1' + i), 'r'})
			waitOutput(t, &out, "finished")
		}
		in.Write([]byte("q"))
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("ssh: %v\n%s", err, ansi.Strip(out.String()))
			}
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
			t.Fatal("ssh did not end after q")
		}
	})
	t.Run("unknown key", func(t *testing.T) {
		other := filepath.Join(s.dir, "other")
		_, priv, _ := ed25519.GenerateKey(rand.Reader)
		block, err := gossh.MarshalPrivateKey(priv, "")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(other, pem.EncodeToMemory(block), 0o600); err != nil {
			t.Fatal(err)
		}
		code, out := runSSH(sshCmd(other, "-T"), "ring")
		if code != 255 || !strings.Contains(out, "Permission denied") {
			t.Errorf("exit %d: %s", code, out)
		}
	})
	t.Run("outside the library", func(t *testing.T) {
		code, out := runSSH(sshCmd(s.keyFile, "-tt"), "../../etc/passwd")
		if code != 1 || !strings.Contains(out, "outside the trace library") || strings.Contains(out, "root:") {
			t.Errorf("exit %d: %s", code, out)
		}
	})
	t.Run("shell command", func(t *testing.T) {
		code, out := runSSH(sshCmd(s.keyFile, "-T"), "cat /etc/passwd")
		if code == 0 || strings.Contains(out, "root:") {
			t.Errorf("exit %d: %s", code, out)
		}
	})
}
