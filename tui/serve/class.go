package serve

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"

	gossh "golang.org/x/crypto/ssh"

	"github.com/tracesim/tracesim/engine/lesson"
	"github.com/tracesim/tracesim/internal/classdb"
	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/tui"
	"github.com/tracesim/tracesim/views/class"
	"github.com/tracesim/tracesim/views/component"
	"github.com/tracesim/tracesim/views/learn"
)

// ClassTab is the name of the teacher's Class tab.
const ClassTab = "Class"

// classroom is what a server serving lessons (Config.Lessons) keeps: the
// lessons, their traces loaded once for every session, and the teachers.
type classroom struct {
	lessons  []*lesson.Lesson
	byName   map[string]*lesson.Lesson
	db       *classdb.DB // nil: progress is not recorded
	teachers *keyring    // nil: no teacher keys
	mu       sync.Mutex  // guards traces
	traces   map[string]*lessonTrace
}

// lessonTrace is a lesson's trace, loaded by the first session that
// needs it; the others wait for it and share it (read-only).
type lessonTrace struct {
	once sync.Once
	tr   *tracefmt.Trace
	err  error
}

func newClassroom(cfg Config) (*classroom, error) {
	c := &classroom{lessons: cfg.Lessons, byName: map[string]*lesson.Lesson{}, db: cfg.Class, traces: map[string]*lessonTrace{}}
	for _, l := range cfg.Lessons {
		if _, dup := c.byName[l.Name]; dup {
			return nil, fmt.Errorf("two lessons named %q (%s)", l.Name, l.File)
		}
		c.byName[l.Name] = l
	}
	if cfg.TeacherKeys != "" {
		k, err := newKeyring(cfg.TeacherKeys)
		if err != nil {
			return nil, fmt.Errorf("teacher keys: %w", err)
		}
		c.teachers = k
	}
	return c, nil
}

// trace returns l's trace, loading it on first use.
func (c *classroom) trace(ctx context.Context, l *lesson.Lesson) (*tracefmt.Trace, error) {
	c.mu.Lock()
	lt := c.traces[l.Name]
	if lt == nil {
		lt = &lessonTrace{}
		c.traces[l.Name] = lt
	}
	c.mu.Unlock()
	// Loaded with the server's lifetime, not the session's: a student
	// who leaves early must not leave the trace failed for the others.
	lt.once.Do(func() { lt.tr, lt.err = l.LoadTrace(context.WithoutCancel(ctx)) })
	return lt.tr, lt.err
}

// names lists the lessons, for a student who named an unknown one.
func (c *classroom) names() string {
	var out []string
	for _, l := range c.lessons {
		out = append(out, l.Name)
	}
	return strings.Join(out, ", ")
}

// teacher reports whether the session's key is a teacher's, with the
// key's comment.
func (c *classroom) teacher(key gossh.PublicKey, log *slog.Logger) (string, bool) {
	if c == nil || c.teachers == nil || key == nil {
		return "", false
	}
	comment, ok, err := c.teachers.lookup(key)
	if err != nil {
		log.Error("teacher keys not reloaded; using the last good copy", "err", err)
	}
	return comment, ok
}

// errUnknownLesson refuses a session naming no lesson of the server.
var errUnknownLesson = errors.New("no such lesson")

// setupStudent makes opts a student's session on a lesson: the one named
// (arg), else the one they were in last time, else the first; at the
// step they reached, recording their progress.
func (s *Server) setupStudent(ctx context.Context, se *session, arg string, opts *tui.Options, log *slog.Logger) error {
	c := s.class
	var l *lesson.Lesson
	switch {
	case arg != "":
		l = c.byName[arg]
		if l == nil {
			return fmt.Errorf("%w %q: the lessons are %s", errUnknownLesson, arg, c.names())
		}
	case c.db != nil:
		name, err := c.db.Current(ctx, se.info.Key)
		if err != nil {
			log.Error("class db", "err", err)
		}
		l = c.byName[name]
	}
	if l == nil {
		l = c.lessons[0]
	}
	tr, err := c.trace(ctx, l)
	if err != nil {
		log.Error("lesson trace", "lesson", l.Name, "err", err)
		return fmt.Errorf("lesson %s: its trace does not load; tell the teacher", l.Name)
	}
	opts.Trace, opts.Path, opts.Lesson = tr, l.Name+" ("+l.Trace.Spec+")", l
	if c.db != nil && se.info.Key != "" {
		if err := c.db.Seen(ctx, se.info.Key, se.info.KeyComment); err != nil {
			log.Error("class db", "err", err)
		}
		opts.Progress = &studentProgress{db: c.db, key: se.info.Key, class: c, log: log}
	}
	s.mu.Lock()
	se.info.Trace = "lesson " + l.Name
	s.mu.Unlock()
	return nil
}

// setupTeacher gives opts the Class tab, shown first, beside the views
// of the first lesson's trace.
func (s *Server) setupTeacher(ctx context.Context, se *session, opts *tui.Options, log *slog.Logger) error {
	c := s.class
	l := c.lessons[0]
	tr, err := c.trace(ctx, l)
	if err != nil {
		log.Error("lesson trace", "lesson", l.Name, "err", err)
		return fmt.Errorf("lesson %s: its trace does not load", l.Name)
	}
	opts.Trace, opts.Path = tr, l.Name+" ("+l.Trace.Spec+")"
	if c.db == nil {
		return nil
	}
	co := class.Options{
		Source:     c.db.Class,
		Online:     s.onlineKeys,
		StuckAfter: s.cfg.StuckAfter,
		Context:    ctx,
	}
	opts.Tabs = append(tui.DefaultTabs(), tui.Tab{Name: ClassTab, New: func(cc component.Common, _ *tracefmt.Trace) component.Model {
		return class.New(cc, co)
	}})
	opts.StartTab = ClassTab
	s.mu.Lock()
	se.info.Trace = "class"
	s.mu.Unlock()
	return nil
}

// onlineKeys returns the keys of the open sessions.
func (s *Server) onlineKeys() map[string]bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]bool, len(s.sessions))
	for _, se := range s.sessions {
		if se.info.Key != "" {
			out[se.info.Key] = true
		}
	}
	return out
}

// studentProgress is a student session's learn.Progress on the class
// database. Each call is one committed transaction: a step or answer the
// student saw recorded survives the server being killed. Writes use a
// context of their own, so that the last answer before the student
// quits is recorded too; a failure is logged (the lesson goes on).
type studentProgress struct {
	db    *classdb.DB
	key   string
	class *classroom
	log   *slog.Logger
}

var _ learn.Progress = (*studentProgress)(nil)

// Reached implements learn.Progress.
func (p *studentProgress) Reached(l string, step int) {
	steps := 0
	if x := p.class.byName[l]; x != nil {
		steps = len(x.Steps)
	}
	if err := p.db.Reached(context.Background(), p.key, l, step, steps); err != nil {
		p.log.Error("class db", "err", err)
	}
}

// Answered implements learn.Progress.
func (p *studentProgress) Answered(l string, step int, answer string, correct bool) {
	if err := p.db.Answered(context.Background(), p.key, l, step, answer, correct); err != nil {
		p.log.Error("class db", "err", err)
	}
}

// Resume implements learn.Progress.
func (p *studentProgress) Resume(l string) (int, bool) {
	step, ok, err := p.db.Resume(context.Background(), p.key, l)
	if err != nil {
		p.log.Error("class db", "err", err)
	}
	return step, ok
}
