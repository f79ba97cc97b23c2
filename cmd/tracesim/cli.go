package main

import (
	"errors"
	"fmt"
	"io"
	"reflect"
	"regexp"
	"runtime/debug"
	"strconv"
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

// The command line is a cobra command tree built per invocation: each
// command declares its flags with pflag on its own cobra.Command (shared
// groups such as the simulator's settings through one helper), cobra
// parses them before and after the positional arguments, and fang
// styles the help and errors and adds --version and `completion`.

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

// newCommand returns the command `tracesim path` (path "sweep merge":
// the command is merge), its help made of the summary, the synopsis
// (positional arguments, then flags) and the description.
func newCommand(path, summary, synopsis, description string) *cobra.Command {
	name := path[strings.LastIndex(path, " ")+1:]
	cc := &cobra.Command{Use: name, Short: summary, Long: description}
	// The list of commands shows the positional arguments; the command's
	// help shows its whole synopsis too, required flags included.
	if args := positional(synopsis); args != "" {
		cc.Use = name + " " + args
	}
	if synopsis != "" {
		cc.Example = "tracesim " + path + " " + synopsis
	}
	return cc
}

// argCount accepts minPos to maxPos positional arguments (maxPos < 0: no
// upper bound) and otherwise says how many it expected, as a usage error.
func argCount(minPos, maxPos int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, pos []string) error {
		n := len(pos)
		if n >= minPos && (maxPos < 0 || n <= maxPos) {
			return nil
		}
		var err error
		switch {
		case maxPos == minPos:
			err = fmt.Errorf("expected %d argument(s), got %d", minPos, n)
		case maxPos < 0:
			err = fmt.Errorf("expected at least %d argument(s), got %d", minPos, n)
		default:
			err = fmt.Errorf("expected %d to %d arguments, got %d", minPos, maxPos, n)
		}
		return usageError{commandPath(cmd), err}
	}
}

// runs makes body the command's action: it gets the positional
// arguments, its flags parsed, and returns the exit code, which cobra
// carries out as an exitError. The debug log records the command.
func (e *env) runs(cc *cobra.Command, body func(pos []string) int) {
	cc.RunE = func(cmd *cobra.Command, pos []string) error {
		name := commandPath(cmd)
		if name == "" {
			name = "tracesim"
		}
		var flags []string
		cmd.Flags().Visit(func(f *pflag.Flag) { flags = append(flags, "--"+f.Name+"="+f.Value.String()) })
		start := time.Now()
		e.debug("command started", "command", name, "args", pos, "flags", flags)
		code := body(pos)
		e.debug("command ended", "command", name, "exit", code, "elapsed", time.Since(start))
		if code != exitOK {
			return exitError{code}
		}
		return nil
	}
}

// shorthand is the one-letter form of a one-letter flag name (-o, -L), so
// that -o FILE, --o FILE and -o=FILE all work as they did with Go's flag
// package; "" for longer names.
func shorthand(name string) string {
	if len(name) == 1 {
		return name
	}
	return ""
}

// valueLister is a flag value with a fixed list of accepted words, which
// the shells complete.
type valueLister interface{ values() []string }

// completeLists registers the completion of every flag of the tree that
// takes one of a fixed list of words (choice values, the simulator's
// choice settings), unless the command registered its own.
func completeLists(cc *cobra.Command) {
	cc.Flags().VisitAll(func(f *pflag.Flag) {
		l, ok := f.Value.(valueLister)
		if !ok || len(l.values()) == 0 {
			return
		}
		if _, done := cc.GetFlagCompletionFunc(f.Name); done {
			return
		}
		complete(cc, f.Name, l.values)
	})
	for _, sub := range cc.Commands() {
		completeLists(sub)
	}
}

// complete lets the shells complete the values of flag name of cc from
// list.
func complete(cc *cobra.Command, name string, list func() []string) {
	// Registering fails only for an unknown or already registered flag,
	// which the callers rule out.
	_ = cc.RegisterFlagCompletionFunc(name, func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return list(), cobra.ShellCompDirectiveNoFileComp
	})
}

// readFormatFlag declares --format, the format a trace is read as, with
// its completion.
func readFormatFlag(cc *cobra.Command, usage string) *string {
	p := new(string)
	readFormatVar(cc, p, usage)
	return p
}

// readFormatVar is readFormatFlag storing the format in p.
func readFormatVar(cc *cobra.Command, p *string, usage string) {
	cc.Flags().StringVar(p, "format", "", usage)
	complete(cc, "format", func() []string { return formats.Names(false) })
}

// writeFormatFlag declares flag name (--to, gen's --format), a format a
// trace is written as, with its completion.
func writeFormatFlag(cc *cobra.Command, name, usage string) *string {
	p := cc.Flags().String(name, "", usage)
	complete(cc, name, func() []string { return formats.Names(true) })
	return p
}

// themeFlags declares --theme and --no-color, the UI's colours.
// themeUsage follows the list of themes in --theme's help.
func themeFlags(cc *cobra.Command, themeUsage, noColorUsage string) (theme *string, noColor *bool) {
	theme, noColor = new(string), new(bool)
	themeVars(cc, theme, noColor, themeUsage, noColorUsage)
	return theme, noColor
}

// themeVars is themeFlags storing the flags in theme and noColor.
func themeVars(cc *cobra.Command, theme *string, noColor *bool, themeUsage, noColorUsage string) {
	cc.Flags().StringVar(theme, "theme", "", "colour theme: "+strings.Join(themes.Names(), ", ")+themeUsage)
	complete(cc, "theme", themes.Names)
	cc.Flags().BoolVar(noColor, "no-color", false, noColorUsage)
}

// knownTheme reports whether theme is empty or a theme's name, else says
// so for command name.
func knownTheme(e *env, name, theme string) bool {
	if theme == "" {
		return true
	}
	if _, err := themes.ByName(theme); err != nil {
		fmt.Fprintf(e.stderr, "tracesim %s: %v\n", name, err)
		return false
	}
	return true
}

// presetFlag declares --preset, a Machine-tab preset, with its completion.
func presetFlag(cc *cobra.Command, usage string) *string {
	p := cc.Flags().String("preset", "", usage)
	complete(cc, "preset", preset.Keys)
	return p
}

// outputFlag declares -o, the output file.
func outputFlag(cc *cobra.Command, usage string) *string {
	fs := cc.Flags()
	// --output, -o for short; --o, the name Go's flag package gave it,
	// still reads as --output.
	fs.SetNormalizeFunc(func(_ *pflag.FlagSet, name string) pflag.NormalizedName {
		if name == "o" {
			name = "output"
		}
		return pflag.NormalizedName(name)
	})
	return fs.StringP("output", "o", "", usage)
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

// commands returns the subcommands in the order `tracesim help` lists them.
func commands(e *env) []*cobra.Command {
	return []*cobra.Command{
		infoCommand(e), statsCommand(e), matrixCommand(e), sizesCommand(e),
		convertCommand(e), exportCommand(e), genCommand(e), simCommand(e),
		sweepCommand(e), checkCommand(e), fixCommand(e), formatsCommand(e),
		serveCommand(e), lessonsCommand(e), lessonCommand(e), classCommand(e),
		benchCommand(e), versionCommand(e), manCommand(),
	}
}

// newRoot builds the command tree for the command line args: the UI at
// the root, then every command.
func newRoot(e *env, args []string) *cobra.Command {
	var debugLog, memProfile string
	root := uiCommand(e, args)
	root.PersistentPreRunE = func(cmd *cobra.Command, _ []string) error {
		return e.start(cmd, debugLog, memProfile)
	}
	root.PersistentFlags().StringVar(&debugLog, "debug-log", "", "write a structured log (commands, files loaded, simulations) to this file")
	root.PersistentFlags().StringVar(&memProfile, "memprofile", "", "write a heap profile (go tool pprof) taken at the run's largest live heap to this file")
	root.SuggestionsMinimumDistance = 2
	root.SetVersionTemplate("tracesim {{.Version}}\n")
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return usageError{commandPath(c), flagError(err)}
	})
	root.AddCommand(commands(e)...)
	completeLists(root)
	return root
}

// flagError words an invalid flag value as Go's flag package did, which
// the commands' scripts and tests know: `invalid value "x" for flag
// --ranks: parse error`. pflag's other messages (unknown flag, missing
// value) stay its own.
func flagError(err error) error {
	var iv *pflag.InvalidValueError
	if !errors.As(err, &iv) {
		return err
	}
	f, cause := iv.GetFlag(), iv.Unwrap()
	t := reflect.TypeOf(f.Value)
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.PkgPath() != reflect.TypeOf(pflag.FlagSet{}).PkgPath() {
		// Our values (sizes, rates, choices) say what they expected.
		return fmt.Errorf("invalid value %q for flag --%s: %v", iv.GetValue(), f.Name, cause)
	}
	// pflag's own values return strconv's and time's errors, which the
	// flag package summed up in two words.
	why := "parse error"
	if errors.Is(cause, strconv.ErrRange) {
		why = "value out of range"
	}
	if f.Value.Type() == "bool" {
		return fmt.Errorf("invalid boolean value %q for --%s: %s", iv.GetValue(), f.Name, why)
	}
	return fmt.Errorf("invalid value %q for flag --%s: %s", iv.GetValue(), f.Name, why)
}

// commandPath is the command's name after "tracesim", "" for the root.
func commandPath(c *cobra.Command) string {
	return strings.TrimPrefix(strings.TrimPrefix(c.CommandPath(), "tracesim"), " ")
}

// run runs the command line args and returns the exit code.
func run(e *env, args []string) int {
	root := newRoot(e, args)
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
	if err != nil {
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
