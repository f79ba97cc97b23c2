package main

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/csv"
	"encoding/pem"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	gossh "golang.org/x/crypto/ssh"

	"github.com/tracesim/tracesim/engine/lesson"
)

// drillLesson is the lesson of the class test: a step to read, a
// question, a last step. Each step's text starts with a word that shares
// no letter with the others', so that it shows whole in a student's
// output stream (the renderer only rewrites the cells that change).
const drillLesson = `---
title: Class drill
level: beginner
trace: tracesim gen ring --ranks 4 --iters 3
---
Welcome to the drill.

## First
QQQQ: read this, then press enter.

## Second
<!-- step
question: How long does the ring take, in microseconds?
answer: makespan
unit: us
hint: HINTHINT run it in the Simulate tab.
-->
WWWW: answer the question.

## Third
ZZZZ: the end is near.
`

// classKey is a key pair of the class test.
type classKey struct {
	signer gossh.Signer
	file   string // the private key in OpenSSH format
}

func newClassKey(t *testing.T, dir, name string) classKey {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	s, err := gossh.NewSignerFromKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	block, err := gossh.MarshalPrivateKey(priv, name)
	if err != nil {
		t.Fatal(err)
	}
	k := classKey{signer: s, file: filepath.Join(dir, name)}
	if err := os.WriteFile(k.file, pem.EncodeToMemory(block), 0o600); err != nil {
		t.Fatal(err)
	}
	return k
}

// authorizedLine is k's authorized_keys line with comment.
func (k classKey) authorizedLine(comment string) string {
	return strings.TrimSpace(string(gossh.MarshalAuthorizedKey(k.signer.PublicKey()))) + " " + comment + "\n"
}

// classServer is `tracesim serve` running as a process of its own.
type classServer struct {
	cmd    *exec.Cmd
	stderr *lockedBuffer
	addr   string
	done   chan struct{}
}

func startClassServer(t *testing.T, bin string, args ...string) *classServer {
	t.Helper()
	s := &classServer{cmd: exec.Command(bin, append([]string{"serve", "--listen", "127.0.0.1:0", "--log-format", "json"}, args...)...),
		stderr: &lockedBuffer{}, done: make(chan struct{})}
	s.cmd.Stderr = s.stderr
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { s.cmd.Wait(); close(s.done) }()
	t.Cleanup(func() { s.kill() })
	re := regexp.MustCompile(`"msg":"serving","addr":"([^"]+)"`)
	deadline := time.Now().Add(60 * time.Second)
	for {
		if m := re.FindStringSubmatch(s.stderr.String()); m != nil {
			s.addr = m[1]
			return s
		}
		select {
		case <-s.done:
			t.Fatalf("tracesim serve exited:\n%s", s.stderr.String())
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("no serving line:\n%s", s.stderr.String())
		}
	}
}

// kill ends the server with SIGKILL: no shutdown, no checkpoint.
func (s *classServer) kill() {
	select {
	case <-s.done:
		return
	default:
	}
	_ = s.cmd.Process.Signal(syscall.SIGKILL)
	<-s.done
}

// student is one student's session, driven with x/crypto/ssh.
type student struct {
	name   string
	client *gossh.Client
	sess   *gossh.Session
	in     io.WriteCloser
	out    *lockedBuffer
}

func (st *student) screen() string { return ansi.Strip(st.out.String()) }

func connectStudent(addr, name string, k classKey) (*student, error) {
	c, err := gossh.Dial("tcp", addr, &gossh.ClientConfig{
		User: name, Auth: []gossh.AuthMethod{gossh.PublicKeys(k.signer)},
		HostKeyCallback: gossh.InsecureIgnoreHostKey(), Timeout: 60 * time.Second,
	})
	if err != nil {
		return nil, err
	}
	sess, err := c.NewSession()
	if err != nil {
		c.Close()
		return nil, err
	}
	st := &student{name: name, client: c, sess: sess, out: &lockedBuffer{}}
	sess.Stdout, sess.Stderr = st.out, st.out
	if st.in, err = sess.StdinPipe(); err == nil {
		err = sess.RequestPty("xterm-256color", 30, 100, gossh.TerminalModes{gossh.ECHO: 0})
	}
	if err == nil {
		err = sess.Shell()
	}
	if err != nil {
		c.Close()
		return nil, err
	}
	return st, nil
}

// mark is the length of the student's output so far: what comes after
// it was drawn after the keys sent since.
func (st *student) mark() int { return len(st.out.String()) }

// waitFor polls the student's whole output for want.
func (st *student) waitFor(want string) error { return st.waitSince(0, want, "") }

// waitSince polls the output drawn after mark off for want; every, when
// not empty, is sent again each second while waiting, so it must be a key
// that changes nothing once want is due (the output holds only what
// changed on the screen: a state the session passes through between two
// frames never shows).
func (st *student) waitSince(off int, want, every string) error {
	deadline := time.Now().Add(90 * time.Second)
	next := time.Now().Add(time.Second)
	for !strings.Contains(ansi.Strip(st.out.String()[off:]), want) {
		if time.Now().After(deadline) {
			return fmt.Errorf("%s: no %q in\n%s", st.name, want, tail(st.screen(), 1500))
		}
		if every != "" && time.Now().After(next) {
			io.WriteString(st.in, every)
			next = time.Now().Add(time.Second)
		}
		time.Sleep(20 * time.Millisecond)
	}
	return nil
}

// answerWrongThenRight answers the step's question with 1 (wrong: the
// hint shows), then with answer (right: the next step shows). Each answer
// is checked exactly once, as the Class tab's counts require: an answer
// submitted before the expected answers are computed stays in the box,
// but an enter sent again after it was checked would open an empty box
// and a further one would replace the hint with "type a number" before it
// was drawn. So the student first submits the empty box until the answers
// are known (an empty answer is never recorded: it says "type a number"
// once they are, "still being computed" before), then types each answer
// once.
func (st *student) answerWrongThenRight(answer string) error {
	off := st.mark()
	io.WriteString(st.in, "\r")
	if err := st.waitSince(off, "answer:", ""); err != nil {
		return err
	}
	off = st.mark()
	io.WriteString(st.in, "\r")
	if err := st.waitSince(off, "type a number", "\r"); err != nil {
		return err
	}
	off = st.mark()
	io.WriteString(st.in, "1\r")
	if err := st.waitSince(off, "HINTHINT", ""); err != nil {
		return err
	}
	off = st.mark()
	io.WriteString(st.in, "\r"+answer+"\r")
	return st.waitSince(off, "ZZZZ", "")
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

// teacherPane is the teacher's real OpenSSH client in a tmux terminal of
// 160×48, read with capture-pane.
type teacherPane struct {
	t      *testing.T
	socket string
}

func (p teacherPane) capture() string {
	out, err := exec.Command("tmux", "-L", p.socket, "capture-pane", "-p", "-t", "teacher").Output()
	if err != nil {
		p.t.Fatalf("capture-pane: %v", err)
	}
	return string(out)
}

// steps reads each student's step column off the Class tab.
func classSteps(screen string) map[string]string {
	out := map[string]string{}
	re := regexp.MustCompile(`(student \d\d)\s+drill\s+(\d+/\d+)`)
	for _, m := range re.FindAllStringSubmatch(screen, -1) {
		out[m[1]] = m[2]
	}
	return out
}

// TestClassEndToEnd is issue 16's class test: 30 students and a teacher
// on a real `tracesim serve --lessons --class-db --teacher-keys`. The
// students progress concurrently; the teacher's Class tab (OpenSSH in
// tmux) shows each one's new step within a second; the server is killed
// with SIGKILL mid-session and restarted; every answer is still there,
// every student resumes at their step, and `class report --csv` lists
// all 30.
func TestClassEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end test skipped in -short mode")
	}
	for _, tool := range []string{"tmux", "ssh"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed", tool)
		}
	}
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "tracesim")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	lessons := filepath.Join(dir, "lessons")
	if err := os.Mkdir(lessons, 0o755); err != nil {
		t.Fatal(err)
	}
	lf := filepath.Join(lessons, "drill.md")
	if err := os.WriteFile(lf, []byte(drillLesson), 0o644); err != nil {
		t.Fatal(err)
	}
	// The answer, as the engine computes it.
	l, err := lesson.ReadFile(lf)
	if err != nil {
		t.Fatal(err)
	}
	_, want, errs := lesson.Check(context.Background(), l, lesson.CheckOptions{Tabs: lessonTabs()})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	answer := want[1].Format(l.Steps[1].Question)
	answer = strings.TrimSuffix(answer, " us")

	const n = 30
	keys := make([]classKey, n)
	var ak strings.Builder
	for i := range keys {
		keys[i] = newClassKey(t, dir, fmt.Sprintf("key%02d", i))
		ak.WriteString(keys[i].authorizedLine(fmt.Sprintf("student %02d", i)))
	}
	teacher := newClassKey(t, dir, "teacher")
	akFile, tkFile := filepath.Join(dir, "authorized_keys"), filepath.Join(dir, "teacher_keys")
	if err := os.WriteFile(akFile, []byte(ak.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(tkFile, []byte(teacher.authorizedLine("the teacher")), 0o600); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "class.db")
	args := []string{"--host-key", filepath.Join(dir, "host_key"), "--authorized-keys", akFile, "--teacher-keys", tkFile,
		"--lessons", lessons, "--class-db", db, "--max-sessions", "40",
		"--max-startups", "64", "--per-source-max-startups", "64", "--idle-timeout", "0"}
	srv := startClassServer(t, bin, args...)

	// The teacher: OpenSSH in tmux.
	socket := fmt.Sprintf("tracesim-class-%d", os.Getpid())
	host, port, _ := strings.Cut(srv.addr, ":")
	sshLine := strings.Join([]string{"ssh", "-F", "/dev/null", "-p", port, "-i", teacher.file, "-o", "IdentitiesOnly=yes",
		"-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null", "-o", "LogLevel=ERROR", "-t", "teacher@" + host}, " ")
	if out, err := exec.Command("tmux", "-L", socket, "-f", "/dev/null", "new-session", "-d", "-s", "teacher", "-x", "160", "-y", "48",
		"env TERM=xterm-256color "+sshLine).CombinedOutput(); err != nil {
		t.Fatalf("tmux: %v\n%s", err, out)
	}
	t.Cleanup(func() { exec.Command("tmux", "-L", socket, "kill-server").Run() })
	tp := teacherPane{t: t, socket: socket}
	deadline := time.Now().Add(60 * time.Second)
	for !strings.Contains(tp.capture(), "No student has connected yet") {
		if time.Now().After(deadline) {
			t.Fatalf("the teacher's Class tab did not open:\n%s\n%s", tp.capture(), srv.stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}

	// The students connect at once and read the first step.
	students := make([]*student, n)
	var wg sync.WaitGroup
	errc := make(chan error, n)
	each := func(f func(i int) error) {
		for i := range n {
			wg.Go(func() {
				if err := f(i); err != nil {
					errc <- err
				}
			})
		}
		wg.Wait()
		select {
		case err := <-errc:
			t.Fatal(err)
		default:
		}
	}
	each(func(i int) error {
		st, err := connectStudent(srv.addr, fmt.Sprintf("s%02d", i), keys[i])
		if err != nil {
			return err
		}
		students[i] = st
		return st.waitFor("QQQQ")
	})

	// Each goes on to step 2; the teacher must see it within a second.
	var mu sync.Mutex
	reached := map[string]time.Time{}
	seen := map[string]time.Time{}
	stop := make(chan struct{})
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		for {
			steps := classSteps(tp.capture())
			now := time.Now()
			mu.Lock()
			for name, s := range steps {
				if s == "2/3" && seen[name].IsZero() {
					seen[name] = now
				}
			}
			done := len(seen) == n
			mu.Unlock()
			if done {
				return
			}
			select {
			case <-stop:
				return
			case <-time.After(25 * time.Millisecond):
			}
		}
	}()
	each(func(i int) error {
		st := students[i]
		// Spread over two seconds, so that the class is seen moving.
		time.Sleep(time.Duration(i) * 60 * time.Millisecond)
		io.WriteString(st.in, "\r")
		if err := st.waitFor("WWWW"); err != nil {
			return err
		}
		mu.Lock()
		reached[fmt.Sprintf("student %02d", i)] = time.Now()
		mu.Unlock()
		return nil
	})
	select {
	case <-watched:
	case <-time.After(10 * time.Second):
		close(stop)
		<-watched
	}
	mu.Lock()
	var worst time.Duration
	for name, r := range reached {
		s, ok := seen[name]
		if !ok {
			t.Errorf("%s's step 2/3 never showed in the Class tab:\n%s", name, tp.capture())
			continue
		}
		worst = max(worst, s.Sub(r))
	}
	mu.Unlock()
	t.Logf("Class tab: slowest student's step shown %v after their own screen showed it", worst.Round(time.Millisecond))
	if worst > time.Second {
		t.Errorf("the Class tab took %v to show a step, want within a second", worst)
	}

	// Each answers wrongly (the hint shows), then rightly, and reaches
	// step 3; then the server is killed mid-session.
	each(func(i int) error {
		return students[i].answerWrongThenRight(answer)
	})
	// The teacher sees every student on step 3 with one right and one
	// wrong answer; that screen is the report's capture.
	var capture string
	deadline = time.Now().Add(10 * time.Second)
	for {
		capture = tp.capture()
		steps := classSteps(capture)
		all := len(steps) == n
		for _, s := range steps {
			all = all && s == "3/3"
		}
		if all && strings.Count(capture, "     1     1 ") == n {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the Class tab does not show all %d on step 3/3 with 1 right, 1 wrong:\n%s", n, capture)
		}
		time.Sleep(50 * time.Millisecond)
	}
	// Logged, not written to the temporary directory: a test leaves no
	// file behind (it wrote tracesim-class-tab.txt there on every run).
	t.Logf("Class tab before the kill:\n%s", capture)
	srv.kill()
	for _, st := range students {
		st.client.Close()
	}

	// Restarted on the same file: every answer is there, every student
	// resumes at step 3.
	srv = startClassServer(t, bin, args...)
	each(func(i int) error {
		st, err := connectStudent(srv.addr, fmt.Sprintf("s%02d", i), keys[i])
		if err != nil {
			return err
		}
		defer st.client.Close()
		return st.waitFor("ZZZZ")
	})
	srv.kill()

	out, err := exec.Command(bin, "class", "report", "--class-db", db, "--csv").Output()
	if err != nil {
		t.Fatalf("class report: %v", err)
	}
	rows, err := csv.NewReader(strings.NewReader(string(out))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != n+1 {
		t.Fatalf("class report: %d rows, want a header and %d:\n%s", len(rows), n, out)
	}
	for i, r := range rows[1:] {
		// name, sessions, lesson, step, steps, finished, solved, right, wrong
		got := strings.Join(r[1:10], ",")
		if want := fmt.Sprintf("student %02d,2,drill,2,3,false,1,1,1", i); got != want {
			t.Errorf("report row %d: %s, want %s", i+1, got, want)
		}
	}
}
