// Package whatif holds what the Machine and Simulate tabs tell each other:
// the machine configuration the Machine tab's form describes, which the
// application routes to the Simulate tab. It is a package of its own so
// that neither view imports the other.
package whatif

import "github.com/tracesim/tracesim/engine/replay"

// ConfigMsg carries a valid machine configuration from the Machine tab.
// The Simulate tab uses it for its next run (or at once when nothing has
// run yet); a run under way keeps the configuration it started with.
type ConfigMsg struct {
	// Config is the configuration; it has passed Config.Validate.
	Config replay.Config
	// Name is the preset it came from, "custom" once edited, for the run
	// history.
	Name string
}
