// Command tracesim explores, checks and replays message-passing (MPI) traces.
//
// With no arguments it opens the terminal UI on a built-in demo trace; with
// a file argument it opens that file. Subcommands work headless and most
// print JSON with --json. Run `tracesim help` for the list.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"charm.land/log/v2"
	"github.com/spf13/cobra"

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

// versionCommand is `tracesim version`.
func versionCommand(e *env) *cobra.Command {
	cc := newCommand("version", "print the version", "", "Print the version of tracesim: the module version the go command\n"+
		"recorded (a tag, or a pseudo-version naming the commit for 'go install …@COMMIT'),\n"+
		"and the commit of a build in a git checkout.")
	cc.Args = argCount(0, 0)
	e.runs(cc, func([]string) int {
		fmt.Fprintf(e.stdout, "tracesim %s\n", buildVersion())
		return exitOK
	})
	return cc
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

// usageHint tells where the full help of command name is.
func usageHint(e *env, name string) {
	fmt.Fprintf(e.stderr, "Run 'tracesim %s --help' for usage.\n", name)
}
