package replay

import "strings"

// ByHand applies to c what the settings a user gave by hand imply for
// the ones the user left alone, so that the command line, the Machine
// tab and a sweep's axes all run the same configuration for the same
// request. given reports whether a setting (by key) was given by hand:
// a `tracesim sim` flag, a field edited in the Machine tab, a sweep's
// top-level setting or axis.
//
// The rules: an eager threshold given without a send mode is a what-if
// on the protocol, so `recorded` becomes `auto` — the recorded evidence
// that a send was buffered must not override the threshold the user
// asked for. A latency given under the packet model without a
// link-latency is its links' latency (the packet model's links take
// link-latency; the latency setting is the other models').
//
// ByHand returns what it changed and why, as a status line says it, or
// "" when it changed nothing.
func (c *Config) ByHand(given func(key string) bool) string {
	var said []string
	if given("eager-threshold") && !given("send") && c.Send == SendRecorded {
		c.Send = SendAuto
		said = append(said, "send: auto — an eager threshold set by hand replays every send by it")
	}
	if c.Model == ModelPacket && given("latency") && !given("link-latency") && c.LinkLatency != c.Latency {
		c.LinkLatency = c.Latency
		said = append(said, "link-latency: "+FormatTime(c.Latency)+" — the packet model's links take a latency set by hand")
	}
	return strings.Join(said, "; ")
}
