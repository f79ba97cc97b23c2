package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"reflect"
	"regexp"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"time"

	"charm.land/fang/v2"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/tracesim/tracesim/engine/preset"
	"github.com/tracesim/tracesim/themes"
	"github.com/tracesim/tracesim/tracefmt/formats"
)

// The command line is a cobra command tree built per invocation from
// commands(): fang styles its help and errors and adds --version and
// `completion`; pflag parses flags before and after the arguments. Each
// command keeps its own flag.FlagSet and run function: describe asks it
// for its flags, cobra parses the command line against them, and the
// command then runs with what cobra parsed (flags first, "--", then the
// positional arguments), so that its own checks and messages stay as
// they are.

// commandSpec is what a command says about itself when described.
type commandSpec struct {
	synopsis, description string
	fs                    *flag.FlagSet // nil: the command did not call parse
}

// exitError carries a command's non-zero exit code through cobra; the
// command has printed its message already.
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit status %d", e.code) }

// usageError is a command line cobra could not parse, for command cmd.
type usageError struct {
	cmd string
	err error
}

func (e usageError) Error() string { return e.err.Error() }

// describe runs c in describe mode and returns what it recorded. A
// command that panics without arguments or never calls parse is run
// with its raw arguments later (ok false).
func describe(c command) (spec commandSpec, ok bool) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // a command that ignores the contract still stops at once
	d := &env{ctx: ctx, stdout: io.Discard, stderr: io.Discard, spec: &spec}
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	c.run(d, nil)
	return spec, spec.fs != nil
}

// recordedFlag wraps a command's flag value for cobra: Set records the
// raw value in the order given, and the command parses it itself when it
// runs (so that its error messages stay its own). Help, completion and
// man pages read the name, usage, type and default through it.
type recordedFlag struct {
	inner flag.Value
	name  string
	log   *[]string
}

func (r recordedFlag) String() string { return r.inner.String() }

func (r recordedFlag) Set(s string) error {
	*r.log = append(*r.log, "--"+r.name+"="+s)
	return nil
}

// Type names the value for pflag: "bool", "int", "string", "duration",
// "size", "rate", "speed", or "value" for the other values.
func (r recordedFlag) Type() string {
	t := reflect.TypeOf(r.inner)
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch k := t.Kind(); {
	case t.Name() == "durationValue": // ours and the flag package's
		return "duration"
	case t.Name() == "sizeValue":
		return "size"
	case t.Name() == "rateValue":
		return "rate"
	case t.Name() == "flopsValue":
		return "speed"
	case k == reflect.Struct:
		return "value"
	default:
		return strings.TrimSuffix(k.String(), "64")
	}
}

// IsBoolFlag makes --json mean --json=true, as the flag package does.
func (r recordedFlag) IsBoolFlag() bool {
	b, ok := r.inner.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// addFlags gives cobra the flags of fs, recording their values in log.
func addFlags(to *pflag.FlagSet, fs *flag.FlagSet, log *[]string) {
	fs.VisitAll(func(f *flag.Flag) {
		pf := pflag.PFlagFromGoFlag(&flag.Flag{Name: f.Name, Usage: f.Usage,
			Value: recordedFlag{inner: f.Value, name: f.Name, log: log}})
		pf.DefValue = f.DefValue
		to.AddFlag(pf)
	})
}

// cobraCommand turns a table entry into a cobra command that runs it.
func cobraCommand(e *env, c command) *cobra.Command {
	spec, ok := describe(c)
	cc := &cobra.Command{Use: c.name, Short: c.summary}
	// A command's own subcommands (sweep merge, lesson check) are cobra
	// commands of their own, so that their flags are parsed natively
	// too; the parent's run function still dispatches them when called
	// directly.
	for _, sub := range subcommands(c.name) {
		cc.AddCommand(cobraCommand(e, sub))
	}
	if !ok {
		// Not migrated: the command parses its raw arguments, --help
		// included, and `tracesim help NAME` asks it too.
		cc.DisableFlagParsing = true
		cc.RunE = func(_ *cobra.Command, args []string) error {
			return e.runCommand(c, args)
		}
		cc.SetHelpFunc(func(*cobra.Command, []string) { c.run(e, []string{"--help"}) })
		return cc
	}
	// The list of commands shows the positional arguments; the command's
	// help shows its whole synopsis too, required flags included.
	if args := positional(spec.synopsis); args != "" {
		cc.Use = c.name + " " + args
	}
	if spec.synopsis != "" {
		cc.Example = "tracesim " + c.name + " " + spec.synopsis
	}
	cc.Long = spec.description
	var recorded []string
	addFlags(cc.Flags(), spec.fs, &recorded)
	completeValues(cc)
	cc.RunE = func(_ *cobra.Command, pos []string) error {
		return e.runCommand(c, slices.Concat(recorded, []string{"--"}, pos))
	}
	return cc
}

// completeValues lets the shells complete the values of the flags that
// take a name from a fixed list, in every command that has them.
func completeValues(cc *cobra.Command) {
	lists := map[string]func() []string{
		"format": func() []string { return formats.Names(false) },
		"to":     func() []string { return formats.Names(true) },
		"theme":  themes.Names,
		"preset": preset.Keys,
	}
	for name, list := range lists {
		f := cc.Flags().Lookup(name)
		if f == nil {
			continue
		}
		if name == "format" && strings.HasPrefix(f.Usage, "output format") {
			list = lists["to"] // gen writes
		}
		if name == "to" && strings.HasPrefix(f.Usage, "table format") {
			list = func() []string { return []string{"csv", "parquet"} } // export
		}
		// Registering fails only for an unknown or already registered
		// flag, which the lookup and the map rule out.
		_ = cc.RegisterFlagCompletionFunc(name, func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			return list(), cobra.ShellCompDirectiveNoFileComp
		})
	}
}

// positional returns the leading positional arguments of a synopsis:
// "FILE" of "FILE [--json]", "" of "--library DIR".
func positional(synopsis string) string {
	var out []string
	for _, w := range strings.Fields(synopsis) {
		if strings.ContainsAny(w[:1], "[-(") {
			break
		}
		out = append(out, w)
	}
	return strings.Join(out, " ")
}

// runCommand runs a command, logging it to the debug log, and turns its
// exit code into an error for cobra.
func (e *env) runCommand(c command, args []string) error {
	start := time.Now()
	e.debug("command started", "command", c.name, "args", args)
	code := c.run(e, args)
	e.debug("command ended", "command", c.name, "exit", code, "elapsed", time.Since(start))
	if code != exitOK {
		return exitError{code}
	}
	return nil
}

// newRoot builds the command tree for the command line args: the UI at
// the root, then every entry of cmds and a man page.
func newRoot(e *env, args []string, cmds []command) *cobra.Command {
	ui := command{name: "tracesim", run: runUI}
	spec, _ := describe(ui)
	var recorded []string
	var debugLog, memProfile string
	root := &cobra.Command{
		Use:   "tracesim [FILE|DIR]",
		Short: "Explore, check and replay MPI traces",
		Long: "tracesim explores, checks and replays message-passing (MPI) traces.\n" +
			"With no argument it opens the terminal UI on a demo trace; with FILE on that trace,\n" +
			"with DIR on a picker of its traces. Commands run headless; most print JSON with --json.\n" +
			"Exit codes: 0 success, 1 failure, 2 usage error, 3 findings (check, a deadlocked sim).\n" +
			"Settings: " + configHelp,
		Example: "tracesim\n" +
			"tracesim run.clog2 --theme light\n" +
			"tracesim check run.clog2 --json\n" +
			"tracesim sim run.clog2 --preset insee-torus",
		Args: cobra.ArbitraryArgs,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			return e.start(cmd, debugLog, memProfile)
		},
		RunE: func(cmd *cobra.Command, pos []string) error {
			if len(pos) > 0 && len(args) > 0 && args[0] == pos[0] {
				if _, err := os.Stat(pos[0]); err != nil {
					// A first word that is no file was most likely a
					// mistyped command.
					msg := fmt.Sprintf("%q is neither a subcommand nor a file", pos[0])
					if s := cmd.SuggestionsFor(pos[0]); len(s) > 0 {
						msg += "; did you mean " + strings.Join(s, " or ") + "?"
					}
					return usageError{"", errors.New(msg)}
				}
			}
			return e.runCommand(ui, slices.Concat(recorded, []string{"--"}, pos))
		},
	}
	addFlags(root.Flags(), spec.fs, &recorded)
	completeValues(root)
	root.PersistentFlags().StringVar(&debugLog, "debug-log", "", "write a structured log (commands, files loaded, simulations) to this file")
	root.PersistentFlags().StringVar(&memProfile, "memprofile", "", "write a heap profile (go tool pprof) taken at the run's largest live heap to this file")
	root.SuggestionsMinimumDistance = 2
	root.SetVersionTemplate("tracesim {{.Version}}\n")
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return usageError{commandPath(c), err}
	})
	for _, c := range cmds {
		root.AddCommand(cobraCommand(e, c))
	}
	root.AddCommand(manCommand())
	return root
}

// commandPath is the command's name after "tracesim", "" for the root.
func commandPath(c *cobra.Command) string {
	return strings.TrimPrefix(strings.TrimPrefix(c.CommandPath(), "tracesim"), " ")
}

// run runs the command line args and returns the exit code.
func run(e *env, args []string) int { return execute(e, args, commands()) }

// execute runs the command line args with the subcommands cmds.
func execute(e *env, args []string, cmds []command) int {
	root := newRoot(e, args, cmds)
	root.SetArgs(goStyleFlags(root, args))
	root.SetOut(e.stdout)
	root.SetErr(e.stderr)
	defer e.close()
	err := fang.Execute(e.ctx, root,
		fang.WithVersion(buildVersion()),
		fang.WithoutManpage(), // ours writes to the command's output
		fang.WithErrorHandler(func(w io.Writer, _ fang.Styles, err error) {
			printError(w, err)
		}))
	var x exitError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &x):
		return x.code
	case errors.As(err, new(configError)):
		return exitUsage
	case errors.As(err, new(startError)):
		return exitFail
	}
	return exitUsage
}

// printError prints an error cobra returned in the words of the commands'
// own errors: "tracesim CMD: what", and where the help is.
func printError(w io.Writer, err error) {
	var u usageError
	switch {
	case errors.As(err, new(exitError)):
		// The command printed its message.
	case errors.As(err, &u):
		name := strings.TrimSpace("tracesim " + u.cmd)
		fmt.Fprintf(w, "%s: %v\nRun '%s --help' for usage.\n", name, u.err, name)
	default:
		fmt.Fprintf(w, "tracesim: %v\n", err)
	}
}

// goStyleFlags rewrites the flag package's single-dash long flags
// (-json, -bandwidth=1Gb/s) that the command being run defines into the
// double-dash spelling pflag reads (a single dash is a cluster of
// one-letter flags there), so that scripts written for the flag package
// keep working.
func goStyleFlags(root *cobra.Command, args []string) []string {
	cmd, _, err := root.Find(args)
	if err != nil || cmd.DisableFlagParsing {
		return args
	}
	out := make([]string, len(args))
	copy(out, args)
	for i, a := range out {
		if a == "--" {
			break
		}
		if len(a) < 3 || a[0] != '-' || a[1] == '-' {
			continue
		}
		name, _, _ := strings.Cut(a[1:], "=")
		switch {
		case name == "help" || name == "version" && cmd == root:
		case cmd.Flags().Lookup(name) != nil || cmd.InheritedFlags().Lookup(name) != nil:
		default:
			continue
		}
		out[i] = "-" + a
	}
	return out
}

// buildVersion returns the version tracesim reports.
func buildVersion() string {
	info, _ := debug.ReadBuildInfo()
	return versionFrom(version, info)
}

// versionFrom returns the version set with -ldflags "-X main.version=…",
// else what the go command recorded in the binary. A build in a git
// checkout records the commit (vcs.revision, vcs.time, vcs.modified):
// it reports "devel (40fecc1, 2026-11-26, modified)", or the tag it was
// built at instead of "devel", because the pseudo-version Go 1.24 on
// derives for such a build names no tag a user could go install.
// `go install …@v` records no commit but the module version: the tag, or
// the pseudo-version (which names the commit) of `@COMMIT`. A build that
// recorded neither reports "devel" and why: the go command records no
// commit with -buildvcs=false nor in a git worktree (it looks for a .git
// directory, and a worktree's .git is a file).
func versionFrom(ldflags string, info *debug.BuildInfo) string {
	if ldflags != "" && ldflags != "dev" {
		return ldflags
	}
	const unrecorded = "devel (no commit recorded: built with -buildvcs=false or in a git worktree)"
	if info == nil {
		return unrecorded
	}
	var rev, date, modified string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			date = s.Value
		case "vcs.modified":
			modified = s.Value
		}
	}
	m := info.Main.Version
	if rev == "" {
		if m == "" || m == "(devel)" {
			return unrecorded
		}
		return m
	}
	v := "devel"
	if tag := strings.TrimSuffix(m, "+dirty"); tag != "" && tag != "(devel)" && !pseudoVersion().MatchString(tag) {
		v = tag
	}
	parts := []string{rev[:min(len(rev), 7)]}
	if t, err := time.Parse(time.RFC3339, date); err == nil {
		parts = append(parts, t.UTC().Format("2006-01-02"))
	}
	if modified == "true" {
		parts = append(parts, "modified")
	}
	return v + " (" + strings.Join(parts, ", ") + ")"
}

// pseudoVersion matches the end of a Go pseudo-version (vX.Y.Z-…-yyyymmddhhmmss-abcdefabcdef),
// which names a commit and no tag.
var pseudoVersion = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[-.]\d{14}-[0-9a-f]{12}$`) })
