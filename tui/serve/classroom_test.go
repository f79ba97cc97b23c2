package serve

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	gossh "golang.org/x/crypto/ssh"

	"github.com/tracesim/tracesim/engine/lesson"
	"github.com/tracesim/tracesim/internal/classdb"
)

const roomLesson = `---
title: Room test
level: beginner
trace: tracesim gen ring --ranks 4 --iters 3
---
Intro.

## First
QQQQ read this.

## Second
WWWW and this.
`

// startClassroom starts a server of one lesson with a class database;
// ts.key is a student's, the returned signer the teacher's.
func startClassroom(t *testing.T) (*testServer, gossh.Signer, *classdb.DB) {
	t.Helper()
	l, err := lesson.Parse("room.md", strings.NewReader(roomLesson))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	db, err := classdb.Open(filepath.Join(dir, "class.db"), classdb.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	teacher := newClientKey(t)
	tk := filepath.Join(dir, "teacher_keys")
	if err := os.WriteFile(tk, gossh.MarshalAuthorizedKey(teacher.PublicKey()), 0o600); err != nil {
		t.Fatal(err)
	}
	ts := startServer(t, func(c *Config) {
		c.Lessons, c.Class, c.TeacherKeys = []*lesson.Lesson{l}, db, tk
	})
	return ts, teacher, db
}

// TestClassroom: a student opens the lesson, moves on, quits and comes
// back at the step they reached; the teacher's session opens on the Class
// tab and shows them; an unknown lesson is refused with the list.
func TestClassroom(t *testing.T) {
	ts, teacher, db := startClassroom(t)

	c := ts.connect(t)
	tm := openTerminal(t, c, "", 100, 30)
	tm.waitFor(t, "QQQQ")
	tm.press(t, "\r")
	tm.waitFor(t, "WWWW")
	tm.press(t, "q")
	tm.exit(t)
	key := gossh.FingerprintSHA256(ts.key.PublicKey())
	if step, ok, err := db.Resume(context.Background(), key, "room"); err != nil || !ok || step != 1 {
		t.Fatalf("recorded step %d, %v, %v; want 1", step, ok, err)
	}

	tm = openTerminal(t, ts.connect(t), "", 100, 30)
	tm.waitFor(t, "WWWW")
	if strings.Contains(tm.screen(), "QQQQ") {
		t.Errorf("the student did not resume at step 2:\n%s", tail(tm.screen(), 2000))
	}

	tc, err := ts.dial("teacher", gossh.PublicKeys(teacher))
	if err != nil {
		t.Fatal(err)
	}
	defer tc.Close()
	tt := openTerminal(t, tc, "", 120, 30)
	tt.waitFor(t, "1 student")
	tt.waitFor(t, "alice@laptop")
	tt.waitFor(t, "2/2")

	tm = openTerminal(t, ts.connect(t), "nosuch", 100, 30)
	tm.waitFor(t, `no such lesson "nosuch": the lessons are room`)
}
