package component

import "github.com/tracesim/tracesim/engine/replay"

// WhatIf is the what-if state of one session that outlives its views: the
// configuration the Machine tab last produced, which a Simulate tab built
// later (the application builds tabs when first shown, and again after
// another trace is opened) starts from. It lives in the Session rather
// than in either view so that neither imports the other.
type WhatIf struct {
	cfg  replay.Config
	name string
	// fullSpeed: the configuration is a sweep point's, which runs to
	// completion unpaced, as the sweep ran it (SetPoint).
	fullSpeed bool
}

// NewWhatIf returns the state of a new session: the default machine.
func NewWhatIf() *WhatIf {
	return &WhatIf{cfg: replay.Default(), name: "default"}
}

// Config returns the current configuration and its name.
func (s *WhatIf) Config() (replay.Config, string) { return s.cfg, s.name }

// SetConfig records a valid configuration and returns the message that
// tells the views about it.
func (s *WhatIf) SetConfig(cfg replay.Config, name string) ConfigMsg {
	s.cfg, s.name, s.fullSpeed = cfg, name, false
	return ConfigMsg{Config: cfg, Name: name}
}

// SetPoint records a sweep point's configuration, to be run at full
// speed: the Simulate tab runs it to completion unpaced, as the sweep
// did, rather than at the pace set for watching a run.
func (s *WhatIf) SetPoint(cfg replay.Config, name string) ConfigMsg {
	s.cfg, s.name, s.fullSpeed = cfg, name, true
	return ConfigMsg{Config: cfg, Name: name, FullSpeed: true}
}

// FullSpeed reports whether the configuration is to be run unpaced
// (SetPoint).
func (s *WhatIf) FullSpeed() bool { return s.fullSpeed }

// WhatIfOf returns c's session's what-if state, or a new one for a view
// built without a session's (tests of one view).
func WhatIfOf(c Common) *WhatIf {
	if c.Session != nil && c.WhatIf != nil {
		return c.WhatIf
	}
	return NewWhatIf()
}
