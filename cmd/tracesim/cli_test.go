package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/tracesim/tracesim/engine/replay"
	"github.com/tracesim/tracesim/tracefmt/formats"
)

// genRing writes a small ring trace and returns its path.
func genRing(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "ring.tsim")
	if code, _, errs := tracesim(t, "gen", "ring", "--ranks", "4", "--iters", "2", "-o", p); code != exitOK {
		t.Fatalf("gen: exit %d: %s", code, errs)
	}
	return p
}

// TestCLIBuiltins covers what the command line itself provides: shell
// completions, the man page, the version and the help.
func TestCLIBuiltins(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	tests := []struct {
		args []string
		want []string // in stdout, in order
	}{
		{[]string{"completion", "bash"}, []string{"# bash completion V2 for tracesim", "__start_tracesim"}},
		{[]string{"completion", "zsh"}, []string{"#compdef tracesim", "_tracesim"}},
		{[]string{"completion", "fish"}, []string{"# fish completion for tracesim", "complete -c tracesim"}},
		// The page lists every command with its flags, and what the
		// help does not say.
		{[]string{"man"}, []string{".TH TRACESIM 1", ".SH NAME", "tracesim - Explore, check and replay MPI traces",
			`\fBcheck\fP`, `\fB--lmin\fP`, `\fBsim\fP`, `\fB--preset\fP`, ".SH EXIT STATUS", "3 findings", ".SH FILES", "config"}},
		{[]string{"--version"}, []string{"tracesim " + buildVersion() + "\n"}},
		{[]string{"version"}, []string{"tracesim " + buildVersion() + "\n"}},
		{[]string{"-version"}, []string{"tracesim " + buildVersion() + "\n"}},
		{[]string{"--help"}, []string{"USAGE", "tracesim [command] [FILE|DIR]", "COMMANDS", "check FILE", "Check causality",
			"stats FILE", "FLAGS", "--debug-log", "--theme"}},
		{[]string{"help", "sim"}, []string{"Replay a trace on a simulated machine", "tracesim sim FILE [--config FILE]", "--bandwidth", "--preset"}},
		// Shells complete the values of flags that name a preset, a
		// format or a theme (":4" is cobra's "no file completion").
		{[]string{"__complete", "sim", "x.tsim", "--preset", ""}, []string{"default\ninsee-torus\n", ":4\n"}},
		{[]string{"__complete", "convert", "x.tsim", "--to", ""}, []string{strings.Join(formats.Names(true), "\n") + "\n:4\n"}},
		{[]string{"__complete", "export", "x.tsim", "--to", ""}, []string{"csv\nparquet\n:4\n"}},
		{[]string{"__complete", "--theme", ""}, []string{"dark\nlight\ncolorblind\nmono\n:4\n"}},
		{[]string{"__complete", "sim", "x.tsim", "--band"}, []string{"--bandwidth\t[network] link bandwidth"}},
		// Choice settings, generated from the settings table, complete
		// their words; a topology its kinds, with no space after the colon
		// (":6" is no space and no file completion).
		{[]string{"__complete", "sim", "x.tsim", "--model", ""}, []string{"puppet\nloggops\nsimgrid\npacket\nflow\n:4\n"}},
		{[]string{"__complete", "sim", "x.tsim", "--topology", ""}, []string{"ring:\nmesh:\ntorus:\n", "file:\n:6\n"}},
		{[]string{"__complete", "check", "x.tsim", "--replay", ""}, []string{"auto\non\noff\n:4\n"}},
		{[]string{"__complete", "stats", "x.tsim", "--sort", ""}, []string{"rank\ncompute\n"}},
		{[]string{"__complete", "lesson", "ring", "--theme", ""}, []string{"dark\nlight\ncolorblind\nmono\n:4\n"}},
		{[]string{"__complete", "export", "x.tsim", "--preset", ""}, []string{"default\ninsee-torus\n", ":4\n"}},
		// class report is a command of its own: its flags complete.
		{[]string{"__complete", "class", "report", "--"}, []string{"--class-db\tthe class database (required)\n", "--csv\tprint CSV\n", "--json\tprint JSON, with every answer\n"}},
		{[]string{"__complete", "class", ""}, []string{"report\texport the progress and answers"}},
		{[]string{"class", "--help"}, []string{"tracesim class report --class-db FILE", "COMMANDS", "report"}},
		{[]string{"class", "report", "--help"}, []string{"Export the class database", "tracesim class report --class-db FILE [--csv|--json]", "--class-db", "--csv", "--json"}},
		{[]string{"gen", "-h"}, []string{"tracesim gen PATTERN -o FILE", "-o --o", "Output file (required)", "--seed", "Random seed (1)"}},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, out, errs := tracesim(t, tc.args...)
			// A completion request tells its directive on stderr.
			if code != exitOK || errs != "" && tc.args[0] != "__complete" {
				t.Fatalf("exit %d, stderr %q", code, errs)
			}
			rest := out
			for _, w := range tc.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("stdout lacks %q (after what came before):\n%s", w, out)
				}
				rest = rest[i+len(w):]
			}
		})
	}
}

// TestCLIFlagPlacement: flags go before or after the arguments, in the
// double-dash spelling or the flag package's single dash, and all give
// the same output.
func TestCLIFlagPlacement(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	p := genRing(t)
	_, want, _ := tracesim(t, "info", p, "--json")
	if !json.Valid([]byte(want)) {
		t.Fatalf("info --json: %q", want)
	}
	for _, args := range [][]string{
		{"info", "--json", p},
		{"info", "-json", p},
		{"info", p, "-json"},
		{"info", p, "--json=true", "--format", "tsim"},
		{"info", "--format=tsim", p, "--json"},
		{"info", "--json", "--", p},
		{"--debug-log", filepath.Join(t.TempDir(), "log"), "info", p, "--json"},
		{"info", p, "--json", "--debug-log", filepath.Join(t.TempDir(), "log")},
	} {
		code, out, errs := tracesim(t, args...)
		if code != exitOK || out != want {
			t.Errorf("%v: exit %d, stderr %q, stdout differs: %q", args, code, errs, out)
		}
	}
	// Subcommands parse their flags natively too, on either side of
	// their arguments.
	_, want, _ = tracesim(t, "lesson", "check", "--answers", "clock-skew")
	if !strings.Contains(want, "clock-skew") {
		t.Fatalf("lesson check --answers: %q", want)
	}
	for _, args := range [][]string{
		{"lesson", "check", "clock-skew", "--answers"},
		{"lesson", "check", "clock-skew", "-answers"},
		{"lesson", "check", "--answers=true", "clock-skew"},
	} {
		code, out, errs := tracesim(t, args...)
		if code != exitOK || out != want {
			t.Errorf("%v: exit %d, stderr %q, stdout differs: %q", args, code, errs, out)
		}
	}
	// The output is --output, -o for short; --o (Go's flag package's
	// name for it) and -o=FILE still work.
	for _, o := range [][]string{{"-o", "a.tsim"}, {"--o", "b.tsim"}, {"-o=c.tsim"}, {"--output", "d.tsim"}, {"--output=e.tsim"}} {
		dir := t.TempDir()
		args := append([]string{"gen", "ring", "--ranks", "3"}, o...)
		cmd := runIn(t, dir, args...)
		if cmd.code != exitOK {
			t.Errorf("%v: exit %d: %s", o, cmd.code, cmd.stderr)
			continue
		}
		name := strings.TrimPrefix(strings.TrimPrefix(o[len(o)-1], "-o="), "--output=")
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("%v: %v", o, err)
		}
	}
}

type result struct {
	code           int
	stdout, stderr string
}

// runIn runs tracesim in dir (for relative output names).
func runIn(t *testing.T, dir string, args ...string) result {
	t.Helper()
	t.Chdir(dir)
	code, out, errs := tracesim(t, args...)
	return result{code, out, errs}
}

// TestCLIErrors: what cobra rejects is said in the commands' own words,
// with exit status 2; the commands' own exit codes go through.
func TestCLIErrors(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	p := genRing(t)
	tests := []struct {
		args   []string
		code   int
		stderr string
	}{
		{[]string{"info", p, "--sparkle"}, exitUsage, "tracesim info: unknown flag: --sparkle\nRun 'tracesim info --help' for usage.\n"},
		{[]string{"info", p, "--format"}, exitUsage, "tracesim info: flag needs an argument: --format\nRun 'tracesim info --help' for usage.\n"},
		{[]string{"--sparkle"}, exitUsage, "tracesim: unknown flag: --sparkle\nRun 'tracesim --help' for usage.\n"},
		{[]string{"inof", p}, exitUsage, "tracesim: \"inof\" is neither a subcommand nor a file; did you mean info?\nRun 'tracesim --help' for usage.\n"},
		// Values are checked by the command, as before.
		{[]string{"gen", "ring", "-o", "x.tsim", "--size", "lots"}, exitUsage, "tracesim gen: invalid value \"lots\" for flag --size: "},
		{[]string{"info"}, exitUsage, "tracesim info: expected 1 argument(s), got 0\n"},
		{[]string{"info", filepath.Join(t.TempDir(), "none.tsim")}, exitFail, "none.tsim"},
		{[]string{"--debug-log", filepath.Join(t.TempDir(), "no", "dir", "log"), "info", p}, exitFail, "tracesim: --debug-log: open "},
	}
	for _, tc := range tests {
		code, out, errs := tracesim(t, tc.args...)
		if code != tc.code || !strings.Contains(errs, tc.stderr) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d, %q", tc.args, code, errs, tc.code, tc.stderr)
		}
		if out != "" {
			t.Errorf("%v: stdout %q", tc.args, out)
		}
	}
}

// walk calls f on every command of the tree under c, c included.
func walk(c *cobra.Command, f func(*cobra.Command)) {
	f(c)
	for _, sub := range c.Commands() {
		walk(sub, f)
	}
}

// commandWords is the command line that names c: "sweep merge" → [sweep merge].
func commandWords(c *cobra.Command) []string { return strings.Fields(commandPath(c)) }

// TestCLIHelpEveryCommand: every command and subcommand, `class` and
// `class report` included, answers --help (and `help PATH`) with exit 0
// and a help that lists each of its own flags; its one-letter flags
// show their short form.
func TestCLIHelpEveryCommand(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	e := &env{ctx: context.Background(), stdout: io.Discard, stderr: io.Discard}
	var paths [][]string
	flags := map[string][]string{}
	walk(newRoot(e, nil), func(c *cobra.Command) {
		w := commandWords(c)
		paths = append(paths, w)
		c.LocalFlags().VisitAll(func(f *pflag.Flag) {
			name := "--" + f.Name
			if f.Shorthand != "" {
				name = "-" + f.Shorthand + " --" + f.Name
			}
			flags[strings.Join(w, " ")] = append(flags[strings.Join(w, " ")], name)
		})
	})
	if len(paths) < 24 {
		t.Fatalf("%d commands in the tree, want every command and subcommand: %v", len(paths), paths)
	}
	for _, p := range paths {
		key := strings.Join(p, " ")
		if key != "" && len(flags[key]) == 0 && !slices.Contains([]string{"formats", "version", "man", "class", "sweep merge"}, key) {
			t.Errorf("%q declares no flags", key)
		}
		for _, args := range [][]string{append(slices.Clone(p), "--help"), append([]string{"help"}, p...)} {
			code, out, errs := tracesim(t, args...)
			if code != exitOK || errs != "" {
				t.Errorf("%q: exit %d, stderr %q", args, code, errs)
				continue
			}
			if !strings.Contains(out, "tracesim "+strings.TrimSpace(key+" ")) || !strings.Contains(out, "-h --help") {
				t.Errorf("%q: no usage line or no --help:\n%s", args, out)
			}
			for _, f := range flags[key] {
				if !strings.Contains(out, f+" ") {
					t.Errorf("%q: help lacks %s:\n%s", args, f, out)
				}
			}
		}
	}
	if n := len(flags["sim"]); n < len(replay.Settings())+10 {
		t.Errorf("sim has %d flags, want one per setting (%d) and its own", n, len(replay.Settings()))
	}
}

// TestCLIUnknownFlag: every command rejects a flag it does not have
// with exit 2, its name and where the help is, before or after its
// arguments.
func TestCLIUnknownFlag(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	e := &env{ctx: context.Background(), stdout: io.Discard, stderr: io.Discard}
	walk(newRoot(e, nil), func(c *cobra.Command) {
		w := commandWords(c)
		name := strings.TrimSpace("tracesim " + strings.Join(w, " "))
		want := name + ": unknown flag: --sparkle\nRun '" + name + " --help' for usage.\n"
		for _, args := range [][]string{append(slices.Clone(w), "--sparkle"), append(slices.Clone(w), "--sparkle", "ARG"), append(slices.Clone(w), "ARG", "--sparkle")} {
			code, out, errs := tracesim(t, args...)
			if code != exitUsage || errs != want || out != "" {
				t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit 2, %q", args, code, out, errs, want)
			}
		}
	})
}

// TestCLIFlagValues: a value pflag cannot parse is an exit 2 with the
// flag package's words, which scripts were written against.
func TestCLIFlagValues(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	p := genRing(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"gen", "ring", "-o", "x.tsim", "--ranks", "many"}, "tracesim gen: invalid value \"many\" for flag --ranks: parse error\n"},
		{[]string{"gen", "ring", "-o", "x.tsim", "--ranks", "99999999999999999999"}, "tracesim gen: invalid value \"99999999999999999999\" for flag --ranks: value out of range\n"},
		{[]string{"info", p, "--json=maybe"}, "tracesim info: invalid boolean value \"maybe\" for --json: parse error\n"},
		{[]string{"serve", "--idle-timeout", "soon"}, "tracesim serve: invalid value \"soon\" for flag --idle-timeout: parse error\n"},
		{[]string{"sim", p, "--model", "quantum"}, "tracesim sim: invalid value \"quantum\" for flag --model: \"quantum\": expected one of "},
		{[]string{"check", p, "--replay", "maybe"}, "tracesim check: invalid value \"maybe\" for flag --replay: "},
		{[]string{"stats", p, "--sort", "colour"}, "tracesim stats: invalid value \"colour\" for flag --sort: \"colour\": expected rank, "},
	} {
		code, out, errs := tracesim(t, tc.args...)
		if code != exitUsage || out != "" || !strings.HasPrefix(errs, tc.want) || !strings.HasSuffix(errs, "for usage.\n") {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit 2, %q", tc.args, code, out, errs, tc.want)
		}
	}
}

// TestDebugLog: --debug-log records the command, the files it loaded and
// the simulations it ran, as JSON lines; without it nothing is written.
func TestDebugLog(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	p := genRing(t)
	log := filepath.Join(t.TempDir(), "debug.log")
	if code, _, errs := tracesim(t, "sim", p, "--debug-log", log, "--json"); code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	data, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	var msgs []string
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var r map[string]any
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("not JSON: %q", line)
		}
		if r["level"] != "debug" || r["time"] == nil {
			t.Errorf("record without level or time: %q", line)
		}
		m := r["msg"].(string)
		switch m {
		case "command started", "command ended":
			if r["command"] != "sim" {
				t.Errorf("%s: command %v", m, r["command"])
			}
		case "file loaded", "simulation started":
			if r["path"] != p && r["trace"] != p {
				t.Errorf("%s: no path %s: %q", m, p, line)
			}
		}
		if m == "command ended" && r["exit"] != 0.0 {
			t.Errorf("command ended: exit %v", r["exit"])
		}
		if m == "simulation started" && r["model"] != "flow" {
			t.Errorf("simulation started: model %v", r["model"])
		}
		msgs = append(msgs, m)
	}
	want := "tracesim started|command started|file loaded|simulation started|simulation ended|command ended"
	if got := strings.Join(msgs, "|"); got != want {
		t.Errorf("records %s\nwant    %s", got, want)
	}
}

// TestUserConfig: the configuration file gives the UI its theme, preset
// and keys (flags win); a broken file stops every command but those that
// help diagnose it, naming the file and the line.
func TestUserConfig(t *testing.T) {
	xdg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", xdg)
	path := filepath.Join(xdg, "tracesim", "config.toml")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(s string) {
		if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p := genRing(t)
	write("theme = \"light\"\npreset = \"insee-torus\"\n[keys]\nquit = \"Q\"\n")
	var errb bytes.Buffer
	e := &env{ctx: context.Background(), stdout: &errb, stderr: &errb}
	if err := e.start(newRoot(e, nil), "", ""); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		flags uiFlags
		theme string
	}{
		{uiFlags{}, "light"},
		{uiFlags{theme: "mono"}, "mono"},
	} {
		opts, code := uiOptions(e, tc.flags, nil)
		if code >= 0 {
			t.Fatalf("uiOptions: exit %d: %s", code, errb.String())
		}
		if opts.Theme != tc.theme || opts.Preset != "insee-torus" || strings.Join(opts.Keys["quit"], ",") != "Q" {
			t.Errorf("--theme %q: theme %q preset %q keys %v; want theme %q, preset insee-torus, quit Q",
				tc.flags.theme, opts.Theme, opts.Preset, opts.Keys, tc.theme)
		}
	}

	write("theme = \"light\"\n\n[keys]\nfly = \"f\"\n")
	code, out, errs := tracesim(t, "info", p)
	want := "tracesim: config " + path + ": line 4: keys.fly: unknown action (expected one of quit, help,"
	if code != exitUsage || out != "" || !strings.HasPrefix(errs, want) {
		t.Errorf("broken config: exit %d, stdout %q, stderr %q; want exit 2 and %q", code, out, errs, want)
	}
	for _, args := range [][]string{{"version"}, {"--version"}, {"man"}, {"completion", "fish"}, {"help"}} {
		if code, _, errs := tracesim(t, args...); code != exitOK {
			t.Errorf("%v with a broken config: exit %d: %s", args, code, errs)
		}
	}
}
