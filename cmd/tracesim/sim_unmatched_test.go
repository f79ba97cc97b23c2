package main

import (
	"encoding/json"
	"path/filepath"
	"testing"
)

// TestSimUnreceivedMessage: a send no rank receives ends the run (every
// rank done, the network drained) with the message counted as unmatched,
// under every model; it once panicked after the replay dropped its
// message table at the end of the run.
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
	for _, model := range []string{"puppet", "loggops", "simgrid", "packet", "flow"} {
		t.Run(model, func(t *testing.T) {
			code, out, errOut := tracesim(t, "sim", path, "--model", model, "--json")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			var j struct {
				Complete bool `json:"complete"`
				Messages struct {
					Unmatched int `json:"unmatched"`
				} `json:"messages"`
			}
			if err := json.Unmarshal([]byte(out), &j); err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			if !j.Complete || j.Messages.Unmatched != 1 {
				t.Errorf("complete %v, unmatched %d, want true and 1", j.Complete, j.Messages.Unmatched)
			}
		})
	}
}
