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

// Shared is the what-if state of one session that outlives its views:
// the configuration the Machine tab last produced, which a Simulate tab
// built later (the application builds tabs when first shown, and again
// after another trace is opened) starts from. One per session, used from
// the Bubble Tea goroutine only.
type Shared struct {
	cfg  replay.Config
	name string
}

// NewShared returns the state of a new session: the default machine.
func NewShared() *Shared {
	return &Shared{cfg: replay.Default(), name: "default"}
}

// Config returns the current configuration and its name.
func (s *Shared) Config() (replay.Config, string) { return s.cfg, s.name }

// SetConfig records a valid configuration and returns the message that
// tells the views about it.
func (s *Shared) SetConfig(cfg replay.Config, name string) ConfigMsg {
	s.cfg, s.name = cfg, name
	return ConfigMsg{Config: cfg, Name: name}
}
