package main

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"

	"github.com/tracesim/tracesim/themes"
	"github.com/tracesim/tracesim/tui"
	"github.com/tracesim/tracesim/tui/demo"
)

// uiCommand is the root command: it opens the terminal UI on FILE, or on
// the built-in demo trace when there is none. The file is loaded inside
// the UI, with progress and esc to cancel. args is the command line, to
// tell a mistyped command from a file.
func uiCommand(e *env, args []string) *cobra.Command {
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
		Args: func(cmd *cobra.Command, pos []string) error {
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
			return argCount(0, 1)(cmd, pos)
		},
	}
	var f uiFlags
	fs := root.Flags()
	readFormatVar(root, &f.format, "format of FILE (default: detected from its content)")
	themeVars(root, &f.theme, &f.noColor, " (default: the config file's, else from the terminal's background)", "monochrome display (also when NO_COLOR is set)")
	fs.StringVar(&f.library, "library", "", "directory the file picker (o) may browse; files outside are refused")
	fs.IntVar(&f.fps, "fps", tui.FPS, fmt.Sprintf("with --renderer bubbletea: most frames drawn per second, 1 to %d (a key press waits up to one frame; the direct renderer draws at each change)", maxFPS))
	fs.StringVar(&f.renderer, "renderer", tui.RendererDirect, "how frames reach the terminal: "+tui.RendererDirect+
		" (each frame at once, changed lines only) or "+tui.RendererBubbleTea+" (Bubble Tea's renderer, on its --fps ticker)")
	e.runs(root, func(pos []string) int { return runUI(e, f, pos) })
	return root
}

// runUI runs the UI with flags f on the positional arguments pos.
func runUI(e *env, f uiFlags, pos []string) int {
	if err := tui.CheckRenderer(f.renderer); err != nil {
		fmt.Fprintf(e.stderr, "tracesim: --%v\n", err)
		return exitUsage
	}
	if f.fps < 1 || f.fps > maxFPS {
		fmt.Fprintf(e.stderr, "tracesim: --fps %d: want 1 to %d frames per second\n", f.fps, maxFPS)
		return exitUsage
	}
	opts, code := uiOptions(e, f, pos)
	if code >= 0 {
		return code
	}
	if f, ok := e.stdout.(*os.File); ok && !term.IsTerminal(f.Fd()) {
		// Bubble Tea would fail on /dev/tty with a message about TTYs.
		fmt.Fprintln(e.stderr, "tracesim: the UI needs a terminal; in scripts use the subcommands "+
			"(tracesim info|check|sim FILE --json; tracesim help)")
		return exitUsage
	}
	if _, err := tui.Run(e.ctx, tui.New(opts), f.renderer, f.fps); err != nil && e.ctx.Err() == nil {
		return fail(e, "ui", err)
	}
	return exitOK
}

// maxFPS is Bubble Tea's highest frame-rate cap.
const maxFPS = 120

// uiFlags are the flags of the UI.
type uiFlags struct {
	format, theme string
	noColor       bool
	library       string
	fps           int
	renderer      string
}

// uiOptions returns the options of the UI for flags f, the user's
// configuration and the positional arguments, with code -1 to go on, or
// the exit code to return.
func uiOptions(e *env, f uiFlags, pos []string) (tui.Options, int) {
	if f.theme != "" {
		if _, err := themes.ByName(f.theme); err != nil {
			fmt.Fprintf(e.stderr, "tracesim: %v\n", err)
			return tui.Options{}, exitUsage
		}
	}
	if f.theme == "" {
		f.theme = e.config.Theme // checked when the file was read
	}
	opts := tui.Options{
		Format:  f.format,
		Theme:   f.theme,
		Keys:    e.config.Keys,
		Preset:  e.config.Preset,
		Log:     e.log,
		NoColor: f.noColor,
		Environ: os.Environ(),
		Library: f.library,
		Context: e.ctx,
	}
	if len(pos) == 1 {
		if st, err := os.Stat(pos[0]); err != nil {
			return opts, fail(e, "ui", err)
		} else if st.IsDir() {
			// A directory is a library to pick from.
			opts.Library = pos[0]
		} else {
			opts.Path = pos[0]
		}
	} else {
		tr, err := demo.Trace()
		if err != nil {
			return opts, fail(e, "ui", err)
		}
		opts.Trace, opts.Path = tr, demo.Name
	}
	return opts, -1
}
