package otf2

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/tracesim/tracesim/internal/testshared"
	"github.com/tracesim/tracesim/tracefmt"
)

// externalDir holds real traces from other tools (see its SOURCES.md),
// beside the repository; tests skip when it is absent.
var externalDir = testshared.Dir() + "/otf2"

// TestRealSamples pins what the reader makes of archives written by
// Score-P; the counts were checked against otf2-print (120 event records:
// 42 ENTER, 42 LEAVE, 16 MPI_SEND, 16 MPI_RECV, 2 PROGRAM_BEGIN, 2
// PROGRAM_END; the program records are no trace events).
func TestRealSamples(t *testing.T) {
	tests := []struct {
		path                           string
		ranks, events, records, states int
		messages, collectives          int
		bytes                          int64
		resolution                     string
		firstSend                      float64 // rank 0's first send (ns): otf2-print's 7397467382760060 ticks less the global offset 7397466976977800, at 2095197216 ticks/s
	}{
		{path: "ping-pong/traces.otf2", ranks: 2, events: 116, records: 120, states: 42,
			messages: 16, collectives: 0, bytes: 8355840, resolution: "2095197216", firstSend: 193672584.57},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			path := filepath.Join(externalDir, tt.path)
			f, err := os.Open(path)
			if err != nil {
				t.Skipf("shared sample absent: %v", err)
			}
			defer f.Close()
			tr, st, err := Read(path, f, DirOpener(filepath.Dir(path)))
			if err != nil {
				t.Fatal(err)
			}
			s := tracefmt.Summarize(tr)
			enters := 0
			for _, c := range s.States {
				enters += c.Count
			}
			got := []int{s.Ranks, s.Events, st.EventRecords, enters, s.Messages.Matched, s.Collectives}
			want := []int{tt.ranks, tt.events, tt.records, tt.states, tt.messages, tt.collectives}
			for i, name := range []string{"ranks", "events", "event records", "states", "messages", "collectives"} {
				if got[i] != want[i] {
					t.Errorf("%s = %d, want %d", name, got[i], want[i])
				}
			}
			if s.Bytes != tt.bytes {
				t.Errorf("bytes = %d, want %d", s.Bytes, tt.bytes)
			}
			if v, _ := tr.Attr("otf2.timer_resolution"); v != tt.resolution {
				t.Errorf("timer resolution %q, want %q", v, tt.resolution)
			}
			for _, e := range tr.Ranks[0].Events {
				if e.Kind == tracefmt.KindSend {
					if d := e.Time - tt.firstSend; d > 1 || d < -1 {
						t.Errorf("first send of rank 0 at %.2f %s, want %.2f", e.Time, tr.Unit, tt.firstSend)
					}
					break
				}
			}
		})
	}
}
