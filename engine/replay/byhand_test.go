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
