// Command tracesim explores, checks and replays message-passing (MPI) traces.
//
// With no arguments it opens the terminal UI on a built-in demo trace; with
// a file argument it opens that file. Subcommands work headless and most
// print JSON with --json. Run `tracesim help` for the list.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"charm.land/log/v2"

	"github.com/tracesim/tracesim/internal/userconfig"
)

// Exit codes shared by every subcommand.
const (
	exitOK    = 0
	exitFail  = 1
	exitUsage = 2
	// exitFindings is returned by checks that ran fine but found problems.
	exitFindings = 3
)

// env is what a subcommand needs from the process: its streams and a
// context cancelled on SIGINT, SIGTERM or a hangup (stopSignals).
type env struct {
	ctx    context.Context
	stdout io.Writer
	stderr io.Writer
	// config is the user's configuration file, read at start
	// (internal/userconfig); the zero value when there is none.
	config userconfig.Config
	// log receives the --debug-log records; nil logs nothing.
	log     *log.Logger
	logFile io.Closer
	// mem keeps the --memprofile heap profile; nil without the flag.
	mem *heapPeak
	// spec, when set, asks a command to describe itself instead of
	// running: newFlags and parse record its synopsis, description and
	// flags there, and parse returns exitOK before the command does
	// anything (see describe).
	spec *commandSpec
}

// command is one subcommand. Its run function parses its own flags: it
// calls newFlags, defines its flags and calls parse before doing
// anything else, so that the command line can ask it for its flags
// (describe) and give it cobra's parsing, help and completions. A run
// function that does not may still be listed: its arguments are then
// passed to it untouched.
type command struct {
	name    string
	summary string
	run     func(e *env, args []string) int
}

// subcommands returns the commands under a command (`sweep merge`), in
// the order its help lists them; their names are the second word.
func subcommands(name string) []command {
	switch name {
	case "sweep":
		return []command{
			{"merge", "merge the results of a sharded sweep", runSweepMerge},
			{"show", "plot and browse a sweep result in the terminal", runSweepShow},
		}
	case "lesson":
		return []command{
			{"check", "validate lesson files: front matter, steps, questions, computable answers", runLessonCheck},
		}
	}
	return nil
}

// commands returns the subcommands in the order `tracesim help` lists them.
func commands() []command {
	return []command{
		{"info", "summarise a trace (format, ranks, events, states, messages)", runInfo},
		{"stats", "print the Stats tab: per-rank profile and MPI function summary", runStats},
		{"matrix", "print the Matrix tab: point-to-point traffic by sender and receiver", runMatrix},
		{"sizes", "print the Sizes tab: histogram of message sizes", runSizes},
		{"convert", "convert a trace between formats", runConvert},
		{"export", "write a trace's states, messages or collectives as a CSV or Parquet table", runExport},
		{"gen", "generate a synthetic trace of a communication pattern", runGen},
		{"sim", "replay a trace on a simulated machine and predict its run time", runSim},
		{"sweep", "run a parameter sweep of simulations on every core or on a Slurm cluster", runSweep},
		{"check", "check causality: reversed messages, clock skew, unmatched messages, deadlocks", runCheck},
		{"fix", "correct timestamps so that every message is received after it was sent", runFix},
		{"formats", "list the trace formats tracesim reads and writes", runFormats},
		{"serve", "serve the terminal UI over SSH to a classroom", runServe},
		{"lessons", "list the built-in guided lessons, or those of a directory", runLessons},
		{"lesson", "open a guided lesson in the terminal UI; lesson check FILE validates one", runLesson},
		{"class", "class report: export the progress and answers of a served class for grading", runClass},
		{"bench", "run the project's benchmarks and print a table", runBench},
		{"version", "print the version", runVersion},
	}
}

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), stopSignals()...)
	code := run(&env{ctx: ctx, stdout: os.Stdout, stderr: os.Stderr}, os.Args[1:])
	stop()
	os.Exit(code)
}

// stopSignals are the signals that cancel a command's context, so that it
// stops as on Ctrl-C (within a second, its temporary files removed): an
// interrupt, SIGTERM, and a hangup (the terminal or the SSH session that
// ran it closed, which by default ends the process on the spot and left
// `sweep show`'s generated traces behind), unless the command was started
// with hangups ignored (nohup): Notify would undo that.
func stopSignals() []os.Signal {
	sigs := []os.Signal{os.Interrupt, syscall.SIGTERM}
	if !signal.Ignored(syscall.SIGHUP) {
		sigs = append(sigs, syscall.SIGHUP)
	}
	return sigs
}

func runVersion(e *env, args []string) int {
	fs := newFlags(e, "version", "", "Print the version of tracesim: the module version the go command\n"+
		"recorded (a tag, or a pseudo-version naming the commit for 'go install …@COMMIT'),\n"+
		"and the commit of a build in a git checkout.")
	if _, code := parse(e, fs, args, 0, 0); code >= 0 {
		return code
	}
	fmt.Fprintf(e.stdout, "tracesim %s\n", buildVersion())
	return exitOK
}

// newFlags returns a flag set whose usage text shows the command's
// synopsis and description.
func newFlags(e *env, name, synopsis, description string) *flag.FlagSet {
	if e.spec != nil {
		e.spec.synopsis, e.spec.description = synopsis, description
	}
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.Usage = func() {
		w := fs.Output()
		fmt.Fprintf(w, "Usage: tracesim %s %s\n\n%s\n", name, synopsis, description)
		has := false
		fs.VisitAll(func(*flag.Flag) { has = true })
		if has {
			fmt.Fprint(w, "\nFlags:\n")
			fs.PrintDefaults()
		}
	}
	return fs
}

// parse parses flags placed anywhere among the positional arguments (Go's
// flag package stops at the first positional one). It checks the number
// of positional arguments and returns them, with code -1 to go on, or the
// exit code to return: 0 after --help, 2 on a usage error. Commands run
// from the command line get their arguments from cobra as flags first,
// then "--", then the positional arguments; the loop over flags after
// positional arguments serves commands called with raw arguments.
func parse(e *env, fs *flag.FlagSet, args []string, minPos, maxPos int) ([]string, int) {
	if e.spec != nil {
		// The counts of positional arguments are checked when the
		// command runs, with its own messages.
		e.spec.fs = fs
		return nil, exitOK
	}
	for _, a := range args {
		if a == "--" {
			break
		}
		if a == "-h" || a == "-help" || a == "--help" {
			fs.SetOutput(e.stdout)
			fs.Usage()
			return nil, exitOK
		}
	}
	var pos []string
	for {
		// The flag package would print its error and then the whole usage,
		// which for `sim` is a hundred lines that scroll the error away:
		// print the error alone, in our own words, and point to --help.
		fs.SetOutput(io.Discard)
		err := fs.Parse(args)
		fs.SetOutput(e.stderr)
		if err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, exitOK
			}
			fmt.Fprintf(e.stderr, "tracesim %s: %s\n", fs.Name(), flagError(err))
			usageHint(e, fs)
			return nil, exitUsage
		}
		rest := fs.Args()
		if n := len(args) - len(rest); n > 0 && args[n-1] == "--" {
			// The flag package consumed a "--": all that follows is
			// positional, "-x" included.
			pos = append(pos, rest...)
			break
		}
		args = rest
		if len(args) == 0 {
			break
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
	if len(pos) < minPos || (maxPos >= 0 && len(pos) > maxPos) {
		switch {
		case maxPos == minPos:
			fmt.Fprintf(fs.Output(), "tracesim %s: expected %d argument(s), got %d\n", fs.Name(), minPos, len(pos))
		case maxPos < 0:
			fmt.Fprintf(fs.Output(), "tracesim %s: expected at least %d argument(s), got %d\n", fs.Name(), minPos, len(pos))
		default:
			fmt.Fprintf(fs.Output(), "tracesim %s: expected %d to %d arguments, got %d\n", fs.Name(), minPos, maxPos, len(pos))
		}
		usageHint(e, fs)
		return nil, exitUsage
	}
	return pos, -1
}

// fail prints an error for command name and returns exitFail.
func fail(e *env, name string, err error) int {
	// Ctrl-C or SIGTERM cancels e.ctx: say so in words, not only with
	// the context package's "context canceled" from deep in a reader.
	if errors.Is(err, context.Canceled) && !strings.Contains(err.Error(), "interrupted") {
		err = fmt.Errorf("interrupted: %w", err)
	}
	fmt.Fprintf(e.stderr, "tracesim %s: %v\n", name, err)
	return exitFail
}

// flagError rewrites the flag package's messages with the double-dash
// spelling the help and the docs use ("flag --bandwidth", not "-bandwidth").
func flagError(err error) string {
	msg := err.Error()
	for _, p := range []string{"for flag -", "not defined: -", "needs an argument: -"} {
		msg = strings.Replace(msg, p, p+"-", 1)
	}
	return msg
}

// usageHint tells where the full help of the command is.
func usageHint(e *env, fs *flag.FlagSet) {
	fmt.Fprintf(e.stderr, "Run 'tracesim %s --help' for usage.\n", fs.Name())
}
