package replay

import (
	"slices"
	"testing"
)

// TestByHand: an eager threshold given by hand without a send mode turns
// the default `recorded` into `auto` and says so; a send mode given, or
// one that is not `recorded`, is left as it is.
func TestByHand(t *testing.T) {
	const note = "send: auto — an eager threshold set by hand replays every send by it"
	tests := []struct {
		name  string
		send  SendMode
		given []string
		want  string
		note  string
	}{
		{"threshold alone", SendRecorded, []string{"eager-threshold"}, "auto", note},
		{"threshold among others", SendRecorded, []string{"bandwidth", "eager-threshold", "latency"}, "auto", note},
		{"threshold and send", SendRecorded, []string{"eager-threshold", "send"}, "recorded", ""},
		{"send buffered kept", SendBuffered, []string{"eager-threshold"}, "buffered", ""},
		{"send synchronous kept", SendSynchronous, []string{"eager-threshold"}, "synchronous", ""},
		{"no threshold", SendRecorded, []string{"bandwidth"}, "recorded", ""},
		{"nothing given", SendRecorded, nil, "recorded", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Default()
			c.Send = tt.send
			got := c.ByHand(func(k string) bool { return slices.Contains(tt.given, k) })
			if got != tt.note {
				t.Errorf("note %q, want %q", got, tt.note)
			}
			if v, _ := c.Get("send"); v != tt.want {
				t.Errorf("send %q, want %q", v, tt.want)
			}
		})
	}
}

// TestByHandPacketLatency: under the packet model a latency given by hand
// without a link-latency is its links' latency — on the command line, in
// the Machine tab and on a sweep's axis alike (once only the command line
// did it, and the Machine tab's latency under packet changed nothing).
func TestByHandPacketLatency(t *testing.T) {
	const note = "link-latency: 5us — the packet model's links take a latency set by hand"
	for _, tc := range []struct {
		name  string
		model ModelKind
		given []string
		link  string
		note  string
	}{
		{"packet, latency", ModelPacket, []string{"latency"}, "5us", note},
		{"packet, both", ModelPacket, []string{"latency", "link-latency"}, "10ns", ""},
		{"packet, link-latency", ModelPacket, []string{"link-latency"}, "10ns", ""},
		{"flow, latency", ModelFlow, []string{"latency"}, "10ns", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := Default()
			c.Model = tc.model
			if err := c.Set("latency", "5us"); err != nil {
				t.Fatal(err)
			}
			if got := c.ByHand(func(k string) bool { return slices.Contains(tc.given, k) }); got != tc.note {
				t.Errorf("note %q, want %q", got, tc.note)
			}
			if v, _ := c.Get("link-latency"); v != tc.link {
				t.Errorf("link-latency %q, want %q", v, tc.link)
			}
		})
	}
}
