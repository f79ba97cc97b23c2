package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/charmbracelet/x/term"

	"github.com/tracesim/tracesim/themes"
	"github.com/tracesim/tracesim/tui"
	"github.com/tracesim/tracesim/tui/demo"
)

// runUI opens the terminal UI on FILE, or on the built-in demo trace when
// there is none. The file is loaded inside the UI, with progress and esc to
// cancel.
func runUI(e *env, args []string) int {
	fs := newFlags(e, "", "[FILE|DIR]", "Open the terminal UI on a trace file, on the trace files of a directory\n"+
		"(picked with o), or on a built-in demo trace. Press ? in the UI for keys.")
	var f uiFlags
	fs.StringVar(&f.format, "format", "", "format of FILE (default: detected from its content)")
	fs.StringVar(&f.theme, "theme", "", "colour theme: "+strings.Join(themes.Names(), ", ")+" (default: the config file's, else from the terminal's background)")
	fs.BoolVar(&f.noColor, "no-color", false, "monochrome display (also when NO_COLOR is set)")
	fs.StringVar(&f.library, "library", "", "directory the file picker (o) may browse; files outside are refused")
	fs.IntVar(&f.fps, "fps", tui.FPS, fmt.Sprintf("with --renderer bubbletea: most frames drawn per second, 1 to %d (a key press waits up to one frame; the direct renderer draws at each change)", maxFPS))
	fs.StringVar(&f.renderer, "renderer", tui.RendererDirect, "how frames reach the terminal: "+tui.RendererDirect+
		" (each frame at once, changed lines only) or "+tui.RendererBubbleTea+" (Bubble Tea's renderer, on its --fps ticker)")
	pos, code := parse(e, fs, args, 0, 1)
	if code >= 0 {
		return code
	}
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
