package main

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"time"

	"charm.land/log/v2"
	gossh "golang.org/x/crypto/ssh"

	"github.com/spf13/cobra"

	"github.com/tracesim/tracesim/engine/lesson"
	"github.com/tracesim/tracesim/internal/classdb"
	"github.com/tracesim/tracesim/themes"
	"github.com/tracesim/tracesim/tui"
	"github.com/tracesim/tracesim/tui/serve"
)

// serveCommand serves the TUI over SSH (docs/serve.md).
func serveCommand(e *env) *cobra.Command {
	cc := newCommand("serve", "serve the terminal UI over SSH to a classroom", "--library DIR (--authorized-keys FILE | --allow-anonymous) [flags]",
		`Serve the terminal UI over SSH to a classroom or a remote what-if session.
Each connection gets its own UI and simulations; traces in the library are
loaded once and shared. Students connect with
  ssh -t -p PORT HOST [TRACE]
where TRACE names a file in the library. No shell, no commands, no files
outside the library. With --lessons, students connect with
  ssh -t -p PORT HOST [LESSON]
and resume where they left off; --class-db records their progress and
--teacher-keys gives teachers the Class tab. See docs/serve.md.`)
	fs := cc.Flags()
	listen := fs.String("listen", "127.0.0.1:2222", "address to listen on (\":2222\" for every interface)")
	hostKey := fs.String("host-key", defaultHostKey(), "host key file; an ed25519 key is generated there on first start")
	authorized := fs.String("authorized-keys", "", "OpenSSH authorized_keys file of the keys allowed in (re-read when it changes)")
	anonymous := fs.Bool("allow-anonymous", false, "let anyone in without a key (closed classroom networks only)")
	library := fs.String("library", "", "directory of the traces sessions may open (required)")
	format := readFormatFlag(cc, "format of every trace in the library (default: detected from content)")
	maxSessions := fs.Int("max-sessions", serve.DefaultMaxSessions, "most sessions open at once")
	idle := fs.Duration("idle-timeout", 30*time.Minute, "close a session after this long without input (0: never)")
	grace := fs.Duration("grace", serve.DefaultGrace, "on SIGINT/SIGTERM, time sessions get between the notice and being closed")
	simWall := fs.Duration("sim-wall", 2*time.Minute, "host time one simulation of a session may spend computing (0: no limit)")
	simEvents := fs.Int64("sim-events", 200_000_000, "engine events one simulation of a session may process (0: no limit)")
	var maxMemory int64
	fs.Var(sizeValue{&maxMemory}, "max-memory", "memory budget, e.g. 4GiB: sessions past it are refused; 0: half the machine's memory, or 90% of GOMEMLIMIT")
	globalStartups, sourceStartups := serve.DefaultStartupLimits()
	maxStartups := fs.String("max-startups", globalStartups.String(), "connections not logged in yet, in all: start:rate:full (random early drop from start, all refused at full) or a number")
	sourceMaxStartups := fs.String("per-source-max-startups", sourceStartups.String(), "the same per source address (raise it for a class behind one NAT address)")
	loginGrace := fs.Duration("login-grace", serve.DefaultLoginGrace, "time a connection has to log in")
	fps := fs.Int("fps", tui.FPS, fmt.Sprintf("with --renderer bubbletea: most frames drawn per second in each session, 1 to %d (a key press waits up to one frame; the direct renderer draws at each change)", maxFPS))
	renderer := fs.String("renderer", tui.RendererDirect, "how each session's frames reach its terminal: "+tui.RendererDirect+
		" (each frame at once, changed lines only, the latest when the client is slow) or "+tui.RendererBubbleTea+" (Bubble Tea's renderer, on its --fps ticker)")
	theme, noColor := themeFlags(cc, " (default: from each terminal's background)", "monochrome display for every session")
	logFormat := fs.String("log-format", "text", "log format on stderr: text or json")
	lessonsDir := fs.String("lessons", "", "serve the lessons (*.md) of DIR, or \"builtin\": students connect with ssh -t HOST [LESSON] (the library defaults to DIR)")
	classDB := fs.String("class-db", "", "SQLite file recording each student's progress and answers (created if missing; needs --lessons)")
	teacherKeys := fs.String("teacher-keys", "", "authorized_keys file of the teachers: their sessions open on the Class tab")
	stuck := fs.Duration("stuck", 5*time.Minute, "the Class tab calls a student stuck after this long on one step")
	cc.Args = argCount(0, 0)
	e.runs(cc, func([]string) int {
		usageErr := func(msg string) int {
			fmt.Fprintf(e.stderr, "tracesim serve: %s\nRun 'tracesim serve --help' for the flags.\n", msg)
			return exitUsage
		}
		if *library == "" && *lessonsDir != "" && *lessonsDir != "builtin" {
			*library = *lessonsDir
		}
		switch {
		case *library == "":
			return usageErr("--library is required (or --lessons DIR)")
		case (*classDB != "" || *teacherKeys != "") && *lessonsDir == "":
			return usageErr("--class-db and --teacher-keys need --lessons DIR")
		case *classDB != "" && *anonymous:
			return usageErr("--class-db records students by key: give --authorized-keys, not --allow-anonymous")
		case *stuck <= 0:
			return usageErr("--stuck must be positive")
		case tui.CheckRenderer(*renderer) != nil:
			return usageErr("--" + tui.CheckRenderer(*renderer).Error())
		case *fps < 1 || *fps > maxFPS:
			return usageErr(fmt.Sprintf("--fps %d: want 1 to %d frames per second", *fps, maxFPS))
		case *authorized == "" && !*anonymous:
			return usageErr("give --authorized-keys FILE, or --allow-anonymous on a closed network")
		case *authorized != "" && *anonymous:
			return usageErr("--authorized-keys and --allow-anonymous exclude each other")
		case *hostKey == "":
			return usageErr("--host-key is required (no user configuration directory to default to)")
		case *maxSessions < 1:
			return usageErr("--max-sessions must be at least 1")
		case *idle < 0 || *grace < 0 || *simWall < 0 || *simEvents < 0 || *loginGrace < 0 || maxMemory < 0:
			return usageErr("durations and limits must not be negative")
		case *logFormat != "text" && *logFormat != "json":
			return usageErr(fmt.Sprintf("--log-format %q: expected text or json", *logFormat))
		}
		startups, err := serve.ParseStartupLimit(*maxStartups)
		if err != nil {
			return usageErr("--max-startups: " + err.Error())
		}
		perSource, err := serve.ParseStartupLimit(*sourceMaxStartups)
		if err != nil {
			return usageErr("--per-source-max-startups: " + err.Error())
		}
		if *theme != "" {
			if _, err := themes.ByName(*theme); err != nil {
				return usageErr(err.Error())
			}
		}
		logger := newServeLogger(e.stderr, *logFormat)

		key, created, err := serve.LoadHostKey(*hostKey)
		if err != nil {
			return fail(e, "serve", err)
		}
		if created {
			logger.Info("generated host key", "file", *hostKey, "fingerprint", gossh.FingerprintSHA256(key.PublicKey()))
		}
		lib, err := serve.OpenLibrary(*library, *format)
		if err != nil {
			return fail(e, "serve", err)
		}
		defer lib.Close()
		var lessons []*lesson.Lesson
		switch *lessonsDir {
		case "":
		case "builtin":
			lessons, err = lesson.Builtin()
		default:
			lessons, err = lesson.Dir(*lessonsDir)
		}
		if err != nil {
			return fail(e, "serve", err)
		}
		if *lessonsDir != "" && len(lessons) == 0 {
			return fail(e, "serve", fmt.Errorf("%s: no lessons (*.md)", *lessonsDir))
		}
		var db *classdb.DB
		if *classDB != "" {
			db, err = classdb.Open(*classDB, classdb.Options{})
			if err != nil {
				return fail(e, "serve", err)
			}
			defer db.Close()
			logger.Info("class database", "file", *classDB, "schema", classdb.SchemaVersion())
		}
		srv, err := serve.New(serve.Config{
			HostKey:        key,
			AuthorizedKeys: *authorized,
			AllowAnonymous: *anonymous,
			Library:        lib,
			MaxSessions:    *maxSessions,
			IdleTimeout:    *idle,
			Grace:          *grace,
			LoginGrace:     *loginGrace,
			MaxMemory:      maxMemory,
			Startups:       startups,
			SourceStartups: perSource,
			SimBudget:      tui.SimBudget{WallTime: *simWall, Events: *simEvents},
			FPS:            *fps,
			Renderer:       *renderer,
			Theme:          *theme,
			NoColor:        *noColor,
			Logger:         logger,
			Lessons:        lessons,
			Class:          db,
			TeacherKeys:    *teacherKeys,
			StuckAfter:     *stuck,
		})
		if err != nil {
			return fail(e, "serve", err)
		}
		if *anonymous {
			logger.Warn("anonymous access: anyone who reaches " + *listen + " gets a session")
		}
		// After the first signal starts the graceful shutdown, a second one
		// should end the process at once, as users expect of ^C ^C.
		ctx := e.ctx
		go func() {
			<-ctx.Done()
			signal.Reset(stopSignals()...)
		}()
		if err := srv.ListenAndServe(ctx, *listen); err != nil {
			return fail(e, "serve", err)
		}
		return exitOK
	})
	return cc
}

// defaultHostKey is where the host key lives unless --host-key says
// otherwise: kept across runs, so students' known_hosts stay valid.
func defaultHostKey() string {
	dir, err := os.UserConfigDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "tracesim", "ssh_host_ed25519_key")
}

// newServeLogger returns the server's structured logger: charm's
// readable text or JSON lines for a log collector.
func newServeLogger(w io.Writer, format string) *slog.Logger {
	if format == "json" {
		return slog.New(slog.NewJSONHandler(w, nil))
	}
	return slog.New(log.NewWithOptions(w, log.Options{ReportTimestamp: true, TimeFormat: time.DateTime}))
}
