package main

import (
	"fmt"
	"os"
	"strings"
	"time"

	"charm.land/log/v2"
	"github.com/spf13/cobra"

	"github.com/tracesim/tracesim/engine/preset"
	"github.com/tracesim/tracesim/internal/userconfig"
	"github.com/tracesim/tracesim/themes"
	"github.com/tracesim/tracesim/tui"
)

// configHelp says where the user's settings are, for the root's help.
const configHelp = "$XDG_CONFIG_HOME/tracesim/config.toml (theme, preset, keys); see docs/cli.md."

// configError is a user configuration file tracesim cannot use (exit 2).
type configError struct{ err error }

func (e configError) Error() string { return "config " + e.err.Error() }

// startError is a failure before the command ran, such as a debug log
// that cannot be created (exit 1).
type startError struct{ err error }

func (e startError) Error() string { return e.err.Error() }

// start prepares the environment of the command cobra is about to run:
// the debug log and the peak heap profile when asked for, and the
// user's configuration for the commands that use it.
func (e *env) start(cmd *cobra.Command, debugLog, memProfile string) error {
	if memProfile != "" {
		h, err := startHeapPeak(memProfile)
		if err != nil {
			return startError{fmt.Errorf("--memprofile: %w", err)}
		}
		e.mem = h
	}
	if debugLog != "" {
		f, err := os.OpenFile(debugLog, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
		if err != nil {
			return startError{fmt.Errorf("--debug-log: %w", err)}
		}
		e.logFile = f
		e.log = log.NewWithOptions(f, log.Options{
			Level:           log.DebugLevel,
			Formatter:       log.JSONFormatter,
			ReportTimestamp: true,
			TimeFormat:      time.RFC3339Nano,
		})
		e.debug("tracesim started", "version", buildVersion(), "command", cmd.CommandPath())
	}
	// Completions, the man page and the version work whatever the
	// configuration says, so that a broken file can still be diagnosed.
	path := cmd.CommandPath()
	for _, p := range []string{"tracesim completion", "tracesim __complete", "tracesim man", "tracesim version", "tracesim help"} {
		if path == p || strings.HasPrefix(path, p+" ") {
			return nil
		}
	}
	cfgPath := userconfig.Path(os.Getenv)
	cfg, err := userconfig.Load(cfgPath, userconfig.Allowed{
		Themes:  themes.Names(),
		Presets: preset.Keys(),
		Actions: tui.KeyActions(),
	})
	if err != nil {
		return configError{err}
	}
	if cfg.Path != "" {
		e.debug("config loaded", "path", cfg.Path, "theme", cfg.Theme, "preset", cfg.Preset, "keys", len(cfg.Keys))
	}
	e.config = cfg
	return nil
}

// debug writes a record to the debug log, if there is one.
func (e *env) debug(msg string, keyvals ...any) {
	if e.log != nil {
		e.log.Debug(msg, keyvals...)
	}
}

// close writes the peak heap profile and closes the debug log.
func (e *env) close() {
	if e.mem != nil {
		if err := e.mem.stop(); err != nil {
			fmt.Fprintf(e.stderr, "tracesim: %v\n", err)
		}
		e.mem = nil
	}
	if e.logFile != nil {
		e.logFile.Close()
		e.logFile, e.log = nil, nil
	}
}
