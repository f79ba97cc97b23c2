package machine

import (
	"fmt"
	"strings"

	"github.com/tracesim/tracesim/engine/replay"
)

// Check sets key to value in a copy of cfg and checks the result the way
// the engine will: the value's syntax and units (Setting.Set), then the
// settings against each other (Config.Validate: an impossible topology, a
// routing not valid on the topology or with too few virtual channels, a
// placement combined with a map…), then, when ranks is positive, whether
// a trace of that many ranks fits the machine. It returns the new
// configuration — set even when only the whole-configuration checks
// failed, so that the user can fix a setting that depends on another —
// and the first problem, naming the setting at fault.
func Check(cfg replay.Config, key, value string, ranks int) (replay.Config, error) {
	s, ok := replay.LookupSetting(key)
	if !ok {
		return cfg, fmt.Errorf("%s: unknown setting", key)
	}
	next := cfg
	// Config holds a slice (Map); Set replaces it rather than writing
	// into it, so the copy never aliases cfg's.
	if err := s.Set(&next, value); err != nil {
		return cfg, fmt.Errorf("%s: %w", key, err)
	}
	return next, Validate(&next, ranks)
}

// Validate checks a whole configuration for a trace of ranks ranks (0:
// any number). It leaves in cfg what Config.Validate records of the files
// the configuration names (the platform's links, which decide whether the
// simgrid model reads crosstraffic: replay.Unused).
func Validate(cfg *replay.Config, ranks int) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	if ranks > 0 && (cfg.Topology != "" || cfg.Placement != "") {
		// Only the placement is checked here: with an analytic model
		// Machine places the ranks without building the packet
		// network, which can be large and is rebuilt by every run.
		c := *cfg
		c.Model = replay.ModelPuppet
		if _, err := c.Machine(ranks, nil); err != nil {
			return err
		}
	}
	return nil
}

// culprit returns the setting an error from Check or Validate names: the
// engine's messages start with the key ("vcs: …") or the setting's name
// ("routing \"x\" is not valid…", "topology \"torus:0x8\": …",
// "placement linear: …"). Empty when none does.
func culprit(err error) string {
	if err == nil {
		return ""
	}
	msg := err.Error()
	best := ""
	for _, s := range replay.Settings() {
		k := s.Key
		if len(k) > len(best) && strings.HasPrefix(msg, k) && len(msg) > len(k) && strings.ContainsRune(": \"", rune(msg[len(k)])) {
			best = k
		}
	}
	return best
}
