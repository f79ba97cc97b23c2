package classdb

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// clock is a settable test clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func open(t *testing.T, file string, c *clock) *DB {
	t.Helper()
	d, err := Open(file, Options{Now: c.now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

var t0 = time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC)

func TestMigrations(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name    string
		prepare func(t *testing.T, file string)
		wantErr string
	}{
		{name: "new file"},
		{name: "reopened", prepare: func(t *testing.T, file string) {
			d, err := Open(file, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if err := d.Seen(context.Background(), "SHA256:a", "Ada"); err != nil {
				t.Fatal(err)
			}
			d.Close()
		}},
		{name: "at version 1", prepare: func(t *testing.T, file string) {
			// What a first release wrote: migration 1 only.
			db, err := sql.Open("sqlite", file)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			ms, _ := migrations()
			if _, err := db.Exec(ms[0].sql + "; PRAGMA user_version = 1"); err != nil {
				t.Fatal(err)
			}
			if _, err := db.Exec(`INSERT INTO students (key, name, first_seen, last_seen) VALUES ('SHA256:a', 'Ada', 1, 1)`); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "newer", prepare: func(t *testing.T, file string) {
			db, err := sql.Open("sqlite", file)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if _, err := db.Exec("PRAGMA user_version = 99"); err != nil {
				t.Fatal(err)
			}
		}, wantErr: "schema: version 99 is newer than this tracesim knows (2)"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := filepath.Join(dir, fmt.Sprintf("c%d.db", i))
			if tt.prepare != nil {
				tt.prepare(t, file)
			}
			d, err := Open(file, Options{})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !strings.Contains(err.Error(), file) {
					t.Fatalf("err = %v, want one naming %s and %q", err, file, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			var v int
			var mode string
			if err := d.w.QueryRow("PRAGMA user_version").Scan(&v); err != nil {
				t.Fatal(err)
			}
			if err := d.w.QueryRow("PRAGMA journal_mode").Scan(&mode); err != nil {
				t.Fatal(err)
			}
			if v != SchemaVersion() || v != 2 || mode != "wal" {
				t.Errorf("user_version %d, journal_mode %s; want 2, wal", v, mode)
			}
			if err := d.Seen(context.Background(), "SHA256:a", ""); err != nil {
				t.Fatal(err)
			}
			cl, err := d.Class(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if tt.name != "new file" && (len(cl) != 1 || cl[0].Name != "Ada") {
				t.Errorf("class after migration = %+v, want Ada kept", cl)
			}
		})
	}
}

func TestProgress(t *testing.T) {
	c := &clock{t: t0}
	d := open(t, filepath.Join(t.TempDir(), "class.db"), c)
	ctx := context.Background()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(d.Seen(ctx, "SHA256:bob", "Bob"))
	must(d.Seen(ctx, "SHA256:ada", "Ada"))
	must(d.Seen(ctx, "SHA256:zzzzzzzzzzzzzzzzz", ""))
	must(d.Reached(ctx, "SHA256:ada", "ring", 0, 3))
	c.add(time.Minute)
	must(d.Answered(ctx, "SHA256:ada", "ring", 0, "12", false))
	must(d.Answered(ctx, "SHA256:ada", "ring", 0, "42", true))
	must(d.Reached(ctx, "SHA256:ada", "ring", 1, 3))
	c.add(2 * time.Minute)
	// Reconnecting reaches the same step again: the time on it stays.
	must(d.Seen(ctx, "SHA256:ada", ""))
	must(d.Reached(ctx, "SHA256:ada", "ring", 1, 3))
	must(d.Reached(ctx, "SHA256:bob", "skew", 2, 2))
	must(d.Answered(ctx, "SHA256:bob", "skew", 1, "3", true))
	must(d.Reached(ctx, "SHA256:bob", "ring", 0, 3))

	for _, tt := range []struct {
		key, lesson string
		step        int
		ok          bool
	}{
		{"SHA256:ada", "ring", 1, true},
		{"SHA256:bob", "skew", 2, true},
		{"SHA256:bob", "ring", 0, true},
		{"SHA256:ada", "skew", 0, false},
		{"SHA256:nobody", "ring", 0, false},
	} {
		step, ok, err := d.Resume(ctx, tt.key, tt.lesson)
		must(err)
		if step != tt.step || ok != tt.ok {
			t.Errorf("Resume(%s, %s) = %d, %v; want %d, %v", tt.key, tt.lesson, step, ok, tt.step, tt.ok)
		}
	}
	if cur, err := d.Current(ctx, "SHA256:bob"); err != nil || cur != "ring" {
		t.Errorf("Current(bob) = %q, %v; want ring", cur, err)
	}

	cl, err := d.Class(ctx)
	must(err)
	var got []string
	for _, s := range cl {
		got = append(got, fmt.Sprintf("%s %s %d/%d since %s right %d wrong %d sessions %d",
			s.Label(), s.Lesson, s.Step, s.Steps, s.StepSince.UTC().Format("15:04"), s.Right, s.Wrong, s.Sessions))
	}
	want := []string{
		"Ada ring 1/3 since 09:01 right 1 wrong 1 sessions 2",
		"Bob ring 0/3 since 09:03 right 0 wrong 0 sessions 1",
		"zzzzzzzzzzzz  0/0 since 00:00 right 0 wrong 0 sessions 1",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("class:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	rep, err := d.Report(ctx)
	must(err)
	got = nil
	for _, r := range rep {
		got = append(got, fmt.Sprintf("%s %s %d/%d finished=%v solved %d right %d wrong %d answers %d",
			r.Name, r.Lesson, r.Step, r.Steps, r.Finished, r.Solved, r.Right, r.Wrong, len(r.Answers)))
	}
	want = []string{
		"Ada ring 1/3 finished=false solved 1 right 1 wrong 1 answers 2",
		"Bob ring 0/3 finished=false solved 0 right 0 wrong 0 answers 0",
		"Bob skew 2/2 finished=true solved 1 right 1 wrong 0 answers 1",
		"  0/0 finished=false solved 0 right 0 wrong 0 answers 0",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("report:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestConcurrentWriters writes from 30 goroutines at once, as a class
// does, and reads it back from a second, read-only handle (the report
// beside a running server).
func TestConcurrentWriters(t *testing.T) {
	file := filepath.Join(t.TempDir(), "class.db")
	d := open(t, file, &clock{t: t0})
	ctx := context.Background()
	const students, steps = 30, 5
	var wg sync.WaitGroup
	errs := make(chan error, students)
	for i := range students {
		wg.Go(func() {
			key := fmt.Sprintf("SHA256:s%02d", i)
			if err := d.Seen(ctx, key, fmt.Sprintf("student %02d", i)); err != nil {
				errs <- err
				return
			}
			for s := range steps {
				if err := d.Reached(ctx, key, "ring", s, steps); err != nil {
					errs <- err
					return
				}
				if err := d.Answered(ctx, key, "ring", s, "1", s%2 == 0); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	ro, err := Open(file, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	rep, err := ro.Report(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep) != students {
		t.Fatalf("%d report rows, want %d", len(rep), students)
	}
	for _, r := range rep {
		if r.Step != steps-1 || r.Right != 3 || r.Wrong != 2 || len(r.Answers) != steps {
			t.Errorf("%s: step %d right %d wrong %d answers %d; want 4, 3, 2, 5", r.Name, r.Step, r.Right, r.Wrong, len(r.Answers))
		}
	}
	if err := ro.Seen(ctx, "SHA256:x", ""); err == nil || !strings.Contains(err.Error(), "read-only") {
		t.Errorf("write on a read-only DB: err = %v", err)
	}
}

func TestOpenErrors(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct {
		name, file string
		o          Options
		want       string
	}{
		{"question mark", filepath.Join(dir, "a?b.db"), Options{}, "may not contain ? or #"},
		{"missing for reading", filepath.Join(dir, "none.db"), Options{ReadOnly: true}, "none.db: no such file or directory"},
		{"no directory", filepath.Join(dir, "no", "such", "c.db"), Options{}, "c.db"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d, err := Open(tt.file, tt.o)
			if err == nil {
				d.Close()
				t.Fatalf("Open(%s) succeeded", tt.file)
			}
			if !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "class db ") {
				t.Errorf("err = %v, want %q", err, tt.want)
			}
		})
	}
}

// BenchmarkAnswered measures one recorded answer: a transaction committed
// to disk (synchronous=FULL), which the Learn tab waits for.
func BenchmarkAnswered(b *testing.B) {
	d, err := Open(filepath.Join(b.TempDir(), "class.db"), Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer d.Close()
	ctx := context.Background()
	for i := 0; b.Loop(); i++ {
		if err := d.Answered(ctx, "SHA256:a", "ring", i%5, "42", true); err != nil {
			b.Fatal(err)
		}
	}
}
