// Package classdb is the class database of `tracesim serve --class-db`:
// each student (an SSH key, named by its authorized_keys comment), the
// step they reached in each lesson and every answer they gave, in an
// SQLite file (through the pure-Go modernc.org/sqlite driver).
//
// The file is opened in WAL mode with synchronous=FULL and every write
// is one transaction committed before the call returns, so an answer the
// student saw checked survives the server being killed (kill -9) or the
// machine losing power. The schema is created and upgraded by the
// numbered migrations in migrations/, recorded in PRAGMA user_version.
// A DB is safe for concurrent use by the sessions of a server; another
// process (tracesim class report) may read the file while it serves.
package classdb

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"strconv"
	"strings"
	"time"

	// The pure-Go SQLite driver, registered as "sqlite".
	_ "modernc.org/sqlite"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// DB is an open class database.
type DB struct {
	path string
	// w holds the one connection that writes: SQLite has one writer at
	// a time, and queueing writers here rather than on the file lock
	// avoids busy errors. r serves reads (WAL lets them run beside it).
	w, r *sql.DB
	now  func() time.Time
}

// Options configure Open.
type Options struct {
	// Now is the clock that stamps progress and answers; nil means
	// time.Now (tests give a fixed one).
	Now func() time.Time
	// ReadOnly opens an existing database for reading only (reports):
	// no migration runs, and a missing file is an error.
	ReadOnly bool
}

// Open opens the class database at file, creating it and bringing its
// schema up to date unless o.ReadOnly.
func Open(file string, o Options) (*DB, error) {
	if strings.ContainsAny(file, "?#") {
		return nil, fmt.Errorf("class db %s: the name may not contain ? or #", file)
	}
	d := &DB{path: file, now: o.Now}
	if d.now == nil {
		d.now = time.Now
	}
	pragmas := "_pragma=busy_timeout(10000)&_pragma=foreign_keys(1)"
	if o.ReadOnly {
		// SQLite's own message for a missing file is "unable to open
		// database file": say which and why.
		if _, err := os.Stat(file); err != nil {
			return nil, d.wrap("open", err)
		}
		r, err := sql.Open("sqlite", "file:"+file+"?mode=ro&"+pragmas)
		if err != nil {
			return nil, d.wrap("open", err)
		}
		d.r = r
		if err := r.Ping(); err != nil {
			r.Close()
			return nil, d.wrap("open", err)
		}
		if _, err := d.version(context.Background(), r); err != nil {
			r.Close()
			return nil, err
		}
		return d, nil
	}
	// synchronous=FULL: a commit is on disk when it returns, WAL or not.
	w, err := sql.Open("sqlite", file+"?_pragma=journal_mode(WAL)&_pragma=synchronous(FULL)&_txlock=immediate&"+pragmas)
	if err != nil {
		return nil, d.wrap("open", err)
	}
	w.SetMaxOpenConns(1)
	d.w = w
	if err := d.migrate(context.Background()); err != nil {
		w.Close()
		return nil, err
	}
	r, err := sql.Open("sqlite", file+"?_pragma=query_only(1)&"+pragmas)
	if err != nil {
		w.Close()
		return nil, d.wrap("open", err)
	}
	r.SetMaxOpenConns(4)
	d.r = r
	return d, nil
}

// Path returns the database file's name.
func (d *DB) Path() string { return d.path }

// Close closes the database; the WAL is checkpointed into the file.
func (d *DB) Close() error {
	var errs []error
	if d.r != nil {
		errs = append(errs, d.r.Close())
	}
	if d.w != nil {
		errs = append(errs, d.w.Close())
	}
	if err := errors.Join(errs...); err != nil {
		return d.wrap("close", err)
	}
	return nil
}

// wrap names the database file and the operation in err.
func (d *DB) wrap(what string, err error) error {
	return fmt.Errorf("class db %s: %s: %w", d.path, what, err)
}

// tx runs f in one write transaction, committed before it returns.
func (d *DB) tx(ctx context.Context, what string, f func(*sql.Tx) error) error {
	if d.w == nil {
		return d.wrap(what, errors.New("opened read-only"))
	}
	t, err := d.w.BeginTx(ctx, nil)
	if err != nil {
		return d.wrap(what, err)
	}
	if err := f(t); err != nil {
		_ = t.Rollback()
		return d.wrap(what, err)
	}
	if err := t.Commit(); err != nil {
		return d.wrap(what, err)
	}
	return nil
}

// migration is one numbered schema change.
type migration struct {
	version int
	name    string
	sql     string
}

// migrations returns the embedded migrations in order; their names are
// NNNN_what.sql, numbered from 1 without gaps.
func migrations() ([]migration, error) {
	names, err := fs.Glob(migrationFiles, "migrations/*.sql")
	if err != nil {
		return nil, err
	}
	var out []migration
	for i, n := range names { // Glob sorts them
		base := path.Base(n)
		num, _, ok := strings.Cut(base, "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v != i+1 {
			return nil, fmt.Errorf("migration %s: expected number %04d", base, i+1)
		}
		b, err := migrationFiles.ReadFile(n)
		if err != nil {
			return nil, err
		}
		out = append(out, migration{version: v, name: base, sql: string(b)})
	}
	return out, nil
}

// SchemaVersion is the schema version this package writes: the number
// of its migrations.
func SchemaVersion() int {
	m, err := migrations()
	if err != nil {
		return 0
	}
	return len(m)
}

// version reads PRAGMA user_version and refuses a database made by a
// newer tracesim.
func (d *DB) version(ctx context.Context, db *sql.DB) (int, error) {
	var v int
	if err := db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
		return 0, d.wrap("read the schema version", err)
	}
	if latest := SchemaVersion(); v > latest {
		return 0, d.wrap("schema", fmt.Errorf("version %d is newer than this tracesim knows (%d): use a newer tracesim", v, latest))
	}
	return v, nil
}

// migrate applies the migrations the file has not had, each in its own
// transaction with its version bump, so a crash leaves it at a version.
func (d *DB) migrate(ctx context.Context) error {
	ms, err := migrations()
	if err != nil {
		return d.wrap("migrations", err)
	}
	v, err := d.version(ctx, d.w)
	if err != nil {
		return err
	}
	for _, m := range ms[v:] {
		err := d.tx(ctx, "migration "+m.name, func(t *sql.Tx) error {
			if _, err := t.ExecContext(ctx, m.sql); err != nil {
				return err
			}
			// PRAGMA takes no parameters; the number is ours.
			_, err := t.ExecContext(ctx, "PRAGMA user_version = "+strconv.Itoa(m.version))
			return err
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// ms is t in Unix milliseconds, as the tables store times.
func ms(t time.Time) int64 { return t.UnixMilli() }

// Seen records that the student with key (an SSH key fingerprint) opened
// a session, with name from their authorized_keys comment ("" keeps the
// name known).
func (d *DB) Seen(ctx context.Context, key, name string) error {
	now := ms(d.now())
	return d.tx(ctx, "record student "+key, func(t *sql.Tx) error {
		_, err := t.ExecContext(ctx, `INSERT INTO students (key, name, first_seen, last_seen, sessions) VALUES (?, ?, ?, ?, 1)
			ON CONFLICT (key) DO UPDATE SET
				name = CASE WHEN excluded.name = '' THEN name ELSE excluded.name END,
				last_seen = excluded.last_seen, sessions = sessions + 1`, key, name, now, now)
		return err
	})
}

// ensure adds the student if unknown (progress may be recorded for a key
// Seen was not called for).
func ensure(ctx context.Context, t *sql.Tx, key string, now int64) error {
	_, err := t.ExecContext(ctx, `INSERT INTO students (key, first_seen, last_seen) VALUES (?, ?, ?)
		ON CONFLICT (key) DO UPDATE SET last_seen = excluded.last_seen`, key, now, now)
	return err
}

// Reached records that the student reached step (0-based) of lesson,
// which has steps steps (step == steps: finished), and makes it their
// current lesson. Reaching the step they are on again (on reconnecting)
// keeps the time they reached it.
func (d *DB) Reached(ctx context.Context, key, lesson string, step, steps int) error {
	now := ms(d.now())
	return d.tx(ctx, fmt.Sprintf("record %s reaching step %d of %s", key, step, lesson), func(t *sql.Tx) error {
		if err := ensure(ctx, t, key, now); err != nil {
			return err
		}
		if _, err := t.ExecContext(ctx, `UPDATE students SET lesson = ? WHERE key = ?`, lesson, key); err != nil {
			return err
		}
		_, err := t.ExecContext(ctx, `INSERT INTO progress (student, lesson, step, steps, step_since, updated) VALUES (?, ?, ?, ?, ?, ?)
			ON CONFLICT (student, lesson) DO UPDATE SET
				step_since = CASE WHEN step = excluded.step THEN step_since ELSE excluded.step_since END,
				step = excluded.step, steps = excluded.steps, updated = excluded.updated`,
			key, lesson, step, steps, now, now)
		return err
	})
}

// Answered records an answer to step's question of lesson and whether
// it was correct.
func (d *DB) Answered(ctx context.Context, key, lesson string, step int, answer string, correct bool) error {
	now := ms(d.now())
	return d.tx(ctx, fmt.Sprintf("record %s's answer to step %d of %s", key, step, lesson), func(t *sql.Tx) error {
		if err := ensure(ctx, t, key, now); err != nil {
			return err
		}
		_, err := t.ExecContext(ctx, `INSERT INTO answers (student, lesson, step, answer, correct, at) VALUES (?, ?, ?, ?, ?, ?)`,
			key, lesson, step, answer, correct, now)
		return err
	})
}

// Resume returns the step the student reached in lesson, ok false when
// they have not started it.
func (d *DB) Resume(ctx context.Context, key, lesson string) (step int, ok bool, err error) {
	err = d.r.QueryRowContext(ctx, `SELECT step FROM progress WHERE student = ? AND lesson = ?`, key, lesson).Scan(&step)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, d.wrap("read "+key+"'s step in "+lesson, err)
	}
	return step, true, nil
}

// Current returns the lesson the student last opened, "" when none.
func (d *DB) Current(ctx context.Context, key string) (string, error) {
	var l string
	err := d.r.QueryRowContext(ctx, `SELECT lesson FROM students WHERE key = ?`, key).Scan(&l)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", d.wrap("read "+key+"'s lesson", err)
	}
	return l, nil
}

// Student is one student of the class as the Class tab shows them: in
// their current lesson.
type Student struct {
	Key, Name string
	// LastSeen is when they last opened a session or made progress.
	LastSeen time.Time
	Sessions int
	// Lesson is their current lesson ("" before any); Step of Steps is
	// where they are in it (Step == Steps: finished), since StepSince.
	Lesson      string
	Step, Steps int
	StepSince   time.Time
	// Right and Wrong count their answers in Lesson.
	Right, Wrong int
}

// Label is the student's name, or the start of their key without one.
func (s Student) Label() string {
	if s.Name != "" {
		return s.Name
	}
	k := strings.TrimPrefix(s.Key, "SHA256:")
	if len(k) > 12 {
		k = k[:12]
	}
	return k
}

// Finished reports whether the student finished their current lesson.
func (s Student) Finished() bool { return s.Lesson != "" && s.Step >= s.Steps }

// Class returns every student, by name then key.
func (d *DB) Class(ctx context.Context) ([]Student, error) {
	rows, err := d.r.QueryContext(ctx, `SELECT s.key, s.name, s.last_seen, s.sessions, s.lesson,
			COALESCE(p.step, 0), COALESCE(p.steps, 0), COALESCE(p.step_since, 0),
			(SELECT COUNT(*) FROM answers a WHERE a.student = s.key AND a.lesson = s.lesson AND a.correct = 1),
			(SELECT COUNT(*) FROM answers a WHERE a.student = s.key AND a.lesson = s.lesson AND a.correct = 0)
		FROM students s LEFT JOIN progress p ON p.student = s.key AND p.lesson = s.lesson
		ORDER BY s.name = '', s.name, s.key`)
	if err != nil {
		return nil, d.wrap("read the class", err)
	}
	defer rows.Close()
	var out []Student
	for rows.Next() {
		var s Student
		var seen, since int64
		if err := rows.Scan(&s.Key, &s.Name, &seen, &s.Sessions, &s.Lesson, &s.Step, &s.Steps, &since, &s.Right, &s.Wrong); err != nil {
			return nil, d.wrap("read the class", err)
		}
		s.LastSeen = time.UnixMilli(seen)
		if since > 0 {
			s.StepSince = time.UnixMilli(since)
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		return nil, d.wrap("read the class", err)
	}
	return out, nil
}

// Answer is one answer a student gave.
type Answer struct {
	Step    int       `json:"step"`
	Answer  string    `json:"answer"`
	Correct bool      `json:"correct"`
	At      time.Time `json:"at"`
}

// Row is one line of the grading report: a student in one lesson (a
// student who started none has one row with Lesson "").
type Row struct {
	Key      string `json:"key"`
	Name     string `json:"name"`
	Sessions int    `json:"sessions"`
	Lesson   string `json:"lesson"`
	Step     int    `json:"step"`
	Steps    int    `json:"steps"`
	Finished bool   `json:"finished"`
	// Solved counts the steps whose question they answered correctly;
	// Right and Wrong count every answer.
	Solved  int       `json:"solved"`
	Right   int       `json:"right"`
	Wrong   int       `json:"wrong"`
	Updated time.Time `json:"updated"`
	Answers []Answer  `json:"answers"`
}

// Report returns the grading report: every student in every lesson they
// started, by name, key and lesson, with their answers in order.
func (d *DB) Report(ctx context.Context) ([]Row, error) {
	rows, err := d.r.QueryContext(ctx, `SELECT s.key, s.name, s.sessions, COALESCE(p.lesson, ''),
			COALESCE(p.step, 0), COALESCE(p.steps, 0), COALESCE(p.updated, s.last_seen)
		FROM students s LEFT JOIN progress p ON p.student = s.key
		ORDER BY s.name = '', s.name, s.key, p.lesson`)
	if err != nil {
		return nil, d.wrap("read the report", err)
	}
	var out []Row
	for rows.Next() {
		var r Row
		var upd int64
		if err := rows.Scan(&r.Key, &r.Name, &r.Sessions, &r.Lesson, &r.Step, &r.Steps, &upd); err != nil {
			rows.Close()
			return nil, d.wrap("read the report", err)
		}
		r.Updated = time.UnixMilli(upd).UTC()
		r.Finished = r.Lesson != "" && r.Step >= r.Steps
		r.Answers = []Answer{}
		out = append(out, r)
	}
	err = rows.Err()
	rows.Close()
	if err != nil {
		return nil, d.wrap("read the report", err)
	}
	byKey := make(map[[2]string]*Row, len(out))
	for i := range out {
		byKey[[2]string{out[i].Key, out[i].Lesson}] = &out[i]
	}
	ans, err := d.r.QueryContext(ctx, `SELECT student, lesson, step, answer, correct, at FROM answers ORDER BY id`)
	if err != nil {
		return nil, d.wrap("read the answers", err)
	}
	defer ans.Close()
	solved := make(map[[2]string]map[int]bool)
	for ans.Next() {
		var key, l string
		var a Answer
		var at int64
		if err := ans.Scan(&key, &l, &a.Step, &a.Answer, &a.Correct, &at); err != nil {
			return nil, d.wrap("read the answers", err)
		}
		a.At = time.UnixMilli(at).UTC()
		r := byKey[[2]string{key, l}]
		if r == nil {
			continue // an answer in a lesson never reached: not graded
		}
		r.Answers = append(r.Answers, a)
		if a.Correct {
			r.Right++
			k := [2]string{key, l}
			if solved[k] == nil {
				solved[k] = map[int]bool{}
			}
			if !solved[k][a.Step] {
				solved[k][a.Step] = true
				r.Solved++
			}
		} else {
			r.Wrong++
		}
	}
	if err := ans.Err(); err != nil {
		return nil, d.wrap("read the answers", err)
	}
	return out, nil
}
