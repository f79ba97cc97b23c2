package machine

import "github.com/tracesim/tracesim/engine/preset"

// Preset is a named machine of the preset menu (engine/preset, which
// `tracesim sim --preset` reads too).
type Preset = preset.Preset

// Presets returns the machines the preset menu offers, the default first.
func Presets() []Preset { return preset.All() }
