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
// context cancelled on SIGINT/SIGTERM.
type env struct {
	ctx    context.Context
	stdout io.Writer
	stderr io.Writer
}

// command is one subcommand.
type command struct {
	name    string
	summary string
	run     func(e *env, args []string) int
}

// commands returns the subcommands in the order `tracesim help` lists them.
func commands() []command {
	return []command{
		{"info", "summarise a trace (format, ranks, events, states, messages)", runInfo},
		{"stats", "print the Stats tab: per-rank profile and MPI function summary", runStats},
		{"matrix", "print the Matrix tab: point-to-point traffic by sender and receiver", runMatrix},
		{"sizes", "print the Sizes tab: histogram of message sizes", runSizes},
		{"convert", "convert a trace between formats", runConvert},
		{"gen", "generate a synthetic trace of a communication pattern", runGen},
		{"sim", "replay a trace on a simulated machine and predict its run time", runSim},
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
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(&env{ctx: ctx, stdout: os.Stdout, stderr: os.Stderr}, os.Args[1:])
	stop()
	os.Exit(code)
}

func run(e *env, args []string) int {
	if len(args) == 0 {
		return runUI(e, nil)
	}
	switch args[0] {
	case "help", "-h", "-help", "--help":
		if len(args) > 1 {
			for _, c := range commands() {
				if c.name == args[1] {
					return c.run(e, []string{"--help"})
				}
			}
		}
		usage(e.stdout)
		return exitOK
	case "-version", "--version":
		return runVersion(e, nil)
	}
	for _, c := range commands() {
		if c.name == args[0] {
			return c.run(e, args[1:])
		}
	}
	if strings.HasPrefix(args[0], "-") {
		return runUI(e, args)
	}
	if _, err := os.Stat(args[0]); err == nil {
		return runUI(e, args)
	}
	fmt.Fprintf(e.stderr, "tracesim: %q is neither a subcommand nor a file\n\n", args[0])
	usage(e.stderr)
	return exitUsage
}

func usage(w io.Writer) {
	fmt.Fprint(w, `tracesim explores, checks and replays MPI traces.

Usage:
  tracesim [FILE]                 open the terminal UI (a demo trace when no FILE)
  tracesim COMMAND [ARGS] [FLAGS] run a command headless

Commands:
`)
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-10s %s\n", c.name, c.summary)
	}
	fmt.Fprint(w, `
Run 'tracesim COMMAND --help' for the flags of a command.
Exit codes: 0 success, 1 failure, 2 usage error, 3 findings (check).
`)
}

func runVersion(e *env, args []string) int {
	fs := newFlags(e, "version", "", "Print the version of tracesim.")
	if _, code := parse(e, fs, args, 0, 0); code >= 0 {
		return code
	}
	fmt.Fprintf(e.stdout, "tracesim %s\n", version)
	return exitOK
}

// newFlags returns a flag set whose usage text shows the command's
// synopsis and description.
func newFlags(e *env, name, synopsis, description string) *flag.FlagSet {
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
// flag package stops at the first positional one, but users write
// `tracesim info FILE --json`). It checks the number of positional
// arguments and returns them, with code -1 to go on, or the exit code to
// return: 0 after --help, 2 on a usage error.
func parse(e *env, fs *flag.FlagSet, args []string, minPos, maxPos int) ([]string, int) {
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
		args = fs.Args()
		if len(args) == 0 {
			break
		}
		if args[0] == "--" {
			pos = append(pos, args[1:]...)
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
