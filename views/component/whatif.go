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
	s.cfg, s.name = cfg, name
	return ConfigMsg{Config: cfg, Name: name}
}

// WhatIfOf returns c's session's what-if state, or a new one for a view
// built without a session's (tests of one view).
func WhatIfOf(c Common) *WhatIf {
	if c.Session != nil && c.WhatIf != nil {
		return c.WhatIf
	}
	return NewWhatIf()
}
