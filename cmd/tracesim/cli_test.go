package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
	// -o is a one-letter flag: -o, --o and -o=FILE all name the output.
	for _, o := range [][]string{{"-o", "a.tsim"}, {"--o", "b.tsim"}, {"-o=c.tsim"}} {
		dir := t.TempDir()
		args := append([]string{"gen", "ring", "--ranks", "3"}, o...)
		cmd := runIn(t, dir, args...)
		if cmd.code != exitOK {
			t.Errorf("%v: exit %d: %s", o, cmd.code, cmd.stderr)
			continue
		}
		name := strings.TrimPrefix(o[len(o)-1], "-o=")
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

// TestCLIUnmigratedCommand: a table entry that does not parse through
// parse (or fails without arguments) still runs, with its arguments as
// given, --help included; and exit codes pass through.
func TestCLIUnmigratedCommand(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	var got [][]string
	raw := func(e *env, args []string) int {
		if args[0] == "--help" { // panics when described without arguments
			fmt.Fprintln(e.stdout, "Usage: tracesim raw ANYTHING")
			return exitOK
		}
		got = append(got, args)
		return exitFindings
	}
	cmds := append(commands(), command{"raw", "takes its arguments as they come", raw})
	var out, errb bytes.Buffer
	e := &env{ctx: context.Background(), stdout: &out, stderr: &errb}
	code := execute(e, []string{"raw", "-weird", "x", "--json"}, cmds)
	if code != exitFindings {
		t.Errorf("exit %d, want %d (%s)", code, exitFindings, errb.String())
	}
	if len(got) != 1 || strings.Join(got[0], " ") != "-weird x --json" {
		t.Errorf("the command got %q, want its arguments untouched", got)
	}
	for _, args := range [][]string{{"raw", "--help"}, {"help", "raw"}} {
		out.Reset()
		if code := execute(e, args, cmds); code != exitOK || len(got) != 1 || out.String() != "Usage: tracesim raw ANYTHING\n" {
			t.Errorf("%v: exit %d, runs %d, stdout %q; want the command's own help", args, code, len(got), out.String())
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
	if err := e.start(newRoot(e, nil, nil), "", ""); err != nil {
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
