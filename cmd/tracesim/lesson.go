package main

import (
	"fmt"
	"os"
	"text/tabwriter"

	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"

	"github.com/tracesim/tracesim/engine/lesson"
	"github.com/tracesim/tracesim/tui"
)

// lessonTabs are the tabs a lesson's steps may name: the application's.
func lessonTabs() []string {
	var out []string
	for _, t := range tui.DefaultTabs() {
		out = append(out, t.Name)
	}
	return out
}

// lessonCommand is `tracesim lesson NAME|FILE` (the UI on a lesson),
// with its subcommand `tracesim lesson check FILE…`.
func lessonCommand(e *env) *cobra.Command {
	cc := newCommand("lesson", "open a guided lesson in the terminal UI; lesson check FILE validates one", "NAME|FILE [flags]  |  tracesim lesson check FILE...",
		"Open the terminal UI on a guided lesson: a built-in one by NAME (tracesim lessons lists\n"+
			"them) or a lesson FILE (docs/lessons.md). The Learn tab (key 0) shows the steps;\n"+
			"`tracesim lesson check FILE` validates a lesson without opening it.")
	cc.AddCommand(lessonCheckCommand(e))
	theme, noColor := themeFlags(cc, " (default: from the terminal's background)", "monochrome display (also when NO_COLOR is set)")
	cc.Args = argCount(1, 1)
	e.runs(cc, func(pos []string) int {
		if !knownTheme(e, "lesson", *theme) {
			return exitUsage
		}
		l, err := lesson.Find(pos[0])
		if err != nil {
			return fail(e, "lesson", err)
		}
		tr, err := l.LoadTrace(e.ctx)
		if err != nil {
			return fail(e, "lesson", err)
		}
		if f, ok := e.stdout.(*os.File); !ok || !term.IsTerminal(f.Fd()) {
			fmt.Fprintln(e.stderr, "tracesim lesson: the UI needs a terminal; `tracesim lesson check FILE` works in scripts")
			return exitUsage
		}
		opts := tui.Options{
			Trace: tr, Path: "lesson " + l.Name,
			Theme: *theme, NoColor: *noColor, Environ: os.Environ(), Context: e.ctx,
			Lesson: l,
		}
		if _, err := tui.Run(e.ctx, tui.New(opts), tui.RendererDirect, tui.FPS); err != nil && e.ctx.Err() == nil {
			return fail(e, "lesson", err)
		}
		return exitOK
	})
	return cc
}

// lessonCheckCommand validates lesson files: front matter, steps, machines,
// the trace and every answer. Problems go to stderr as FILE:LINE: what.
func lessonCheckCommand(e *env) *cobra.Command {
	cc := newCommand("lesson check", "validate lesson files: front matter, steps, questions, computable answers", "FILE|NAME...",
		"Validate lessons as the Learn tab will run them: the front matter, every step's tab and\n"+
			"keys, every machine, that the trace loads, and that the engine computes every answer.\n"+
			"Problems are printed as FILE:LINE: message; the exit status is 1 when there is one.")
	fs := cc.Flags()
	answers := fs.Bool("answers", false, "print each question's expected answer (for the teacher)")
	cc.Args = argCount(1, -1)
	e.runs(cc, func(pos []string) int {
		bad := false
		for _, name := range pos {
			l, err := lesson.Find(name)
			if err != nil {
				fmt.Fprintln(e.stderr, err)
				bad = true
				continue
			}
			_, want, errs := lesson.Check(e.ctx, l, lesson.CheckOptions{Tabs: lessonTabs()})
			for _, err := range errs {
				fmt.Fprintln(e.stderr, err)
			}
			if len(errs) > 0 {
				bad = true
				continue
			}
			n := 0
			for _, w := range want {
				if w != nil {
					n++
				}
			}
			fmt.Fprintf(e.stdout, "%s: ok, %d steps, %d questions\n", l.File, len(l.Steps), n)
			if *answers {
				for i, w := range want {
					if w != nil {
						q := l.Steps[i].Question
						also := ""
						for _, a := range w.Also {
							also += fmt.Sprintf(", %g", a)
						}
						if also != "" {
							also = " (or" + also[1:] + ")"
						}
						fmt.Fprintf(e.stdout, "  step %d %q: %s%s  (%s)\n", i+1, l.Steps[i].Title, w.Format(q), also, q.Answer)
					}
				}
			}
		}
		if bad {
			return exitFail
		}
		return exitOK
	})
	return cc
}

// lessonEntry is one line of `tracesim lessons --json`.
type lessonEntry struct {
	Name      string `json:"name"`
	File      string `json:"file"`
	Title     string `json:"title"`
	Level     string `json:"level"`
	Steps     int    `json:"steps"`
	Questions int    `json:"questions"`
	Trace     string `json:"trace"`
}

// lessonsCommand lists the built-in lessons, or the lessons of DIR.
func lessonsCommand(e *env) *cobra.Command {
	cc := newCommand("lessons", "list the built-in guided lessons, or those of a directory", "[DIR] [--json]",
		"List the built-in lessons, or the lessons (*.md) of DIR. Open one with\n"+
			"`tracesim lesson NAME|FILE`.")
	fs := cc.Flags()
	asJSON := fs.Bool("json", false, "print the list as JSON")
	cc.Args = argCount(0, 1)
	e.runs(cc, func(pos []string) int {
		var all []*lesson.Lesson
		var err error
		if len(pos) == 1 {
			all, err = lesson.Dir(pos[0])
		} else {
			all, err = lesson.Builtin()
		}
		if err != nil {
			return fail(e, "lessons", err)
		}
		out := make([]lessonEntry, 0, len(all))
		for _, l := range all {
			n := 0
			for _, s := range l.Steps {
				if s.Question != nil {
					n++
				}
			}
			out = append(out, lessonEntry{Name: l.Name, File: l.File, Title: l.Title, Level: l.Level,
				Steps: len(l.Steps), Questions: n, Trace: l.Trace.Spec})
		}
		if *asJSON {
			return writeJSON(e, "lessons", out)
		}
		if len(out) == 0 {
			fmt.Fprintf(e.stdout, "no lessons (*.md) in %s\n", pos[0])
			return exitOK
		}
		tw := tabwriter.NewWriter(e.stdout, 2, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "NAME\tLEVEL\tSTEPS\tQUESTIONS\tTITLE")
		for _, l := range out {
			name := l.Name
			if len(pos) == 1 {
				name = l.File
			}
			fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%s\n", name, l.Level, l.Steps, l.Questions, l.Title)
		}
		tw.Flush()
		return exitOK
	})
	return cc
}
