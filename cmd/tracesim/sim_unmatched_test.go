package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestSimUnreceivedMessage: a send no rank receives ends the run (every
// rank done, the network drained) with the message counted as unmatched,
// under every model; it once panicked after the replay dropped its
// message table at the end of the run. Where eager data moves at the
// send, its data arrives: one arrived message with a latency and no
// received one, and the text output says so beside the latencies; the
// simgrid model moves eager data only once the receive is posted
// (--eager-start auto = match, as SimGrid), so nothing arrives.
func TestSimUnreceivedMessage(t *testing.T) {
	path := filepath.Join(t.TempDir(), "unreceived.tsim")
	if err := writeText(path, `tsim 1
ranks 2
unit us
timed
0 0 enter MPI_Send
0 0 send to=1 tag=0 size=100
10 0 leave MPI_Send
`); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		model   string
		arrived uint64
	}{{"puppet", 1}, {"loggops", 1}, {"simgrid", 0}, {"packet", 1}, {"flow", 1}} {
		model := c.model
		t.Run(model, func(t *testing.T) {
			code, out, errOut := tracesim(t, "sim", path, "--model", model, "--json")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			var j struct {
				Complete bool        `json:"complete"`
				Messages simMessages `json:"messages"`
			}
			if err := json.Unmarshal([]byte(out), &j); err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			if !j.Complete || j.Messages.Unmatched != 1 {
				t.Errorf("complete %v, unmatched %d, want true and 1", j.Complete, j.Messages.Unmatched)
			}
			binned := j.Messages.binned()
			if j.Messages.Count != 0 || j.Messages.Arrived != c.arrived || binned != c.arrived || (j.Messages.Latency.Max > 0) != (c.arrived > 0) {
				t.Errorf("count %d, arrived %d, %d latencies binned, max %g s; want 0, %d, %d and a latency iff one arrived",
					j.Messages.Count, j.Messages.Arrived, binned, j.Messages.Latency.Max, c.arrived, c.arrived)
			}
			code, text, errOut := tracesim(t, "sim", path, "--model", model)
			if code != 0 {
				t.Fatalf("text: exit %d: %s", code, errOut)
			}
			want := "messages        0 (0 B)\n"
			if c.arrived > 0 {
				want = "messages        0 (0 B), 1 arrived, latency min "
			}
			if !strings.Contains(text, want) {
				t.Errorf("text output lacks %q:\n%s", want, text)
			}
		})
	}
}

// TestSimArrivedEqualsReceived: when every message is received, the
// messages that arrived are the ones received, and the latency
// histogram holds each of them once, under every model (point-to-point
// and expanded collectives alike).
func TestSimArrivedEqualsReceived(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cg.tsim")
	if code, _, errOut := tracesim(t, "gen", "cg", "--ranks", "16", "--iters", "3", "-o", path); code != 0 {
		t.Fatalf("gen: exit %d: %s", code, errOut)
	}
	for _, model := range []string{"puppet", "loggops", "simgrid", "packet", "flow"} {
		t.Run(model, func(t *testing.T) {
			code, out, errOut := tracesim(t, "sim", path, "--model", model, "--json")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			var j struct {
				Messages simMessages `json:"messages"`
			}
			if err := json.Unmarshal([]byte(out), &j); err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			binned := j.Messages.binned()
			m := j.Messages
			if m.Count == 0 || m.Arrived != m.Count || binned != m.Count || m.Unmatched != 0 {
				t.Errorf("count %d, arrived %d, %d latencies binned, unmatched %d; want count = arrived = binned > 0, none unmatched",
					m.Count, m.Arrived, binned, m.Unmatched)
			}
		})
	}
}

// simMessages is what these tests read of sim --json's messages.
type simMessages struct {
	Count     uint64 `json:"count"`
	Arrived   uint64 `json:"arrived"`
	Unmatched int    `json:"unmatched"`
	Latency   struct {
		Max       float64 `json:"max_s"`
		Histogram []struct {
			Count uint64 `json:"count"`
		} `json:"histogram"`
	} `json:"latency"`
}

// binned is the latency histogram's total.
func (m simMessages) binned() uint64 {
	var n uint64
	for _, b := range m.Latency.Histogram {
		n += b.Count
	}
	return n
}
