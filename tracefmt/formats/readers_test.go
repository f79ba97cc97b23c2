package formats

import (
	"context"
	"testing"

	"github.com/tracesim/tracesim/tracefmt"
)

// TestIssue17Samples opens the third-party samples of the formats issue
// 17 added, detected by content, and pins what `tracesim info` shows.
func TestIssue17Samples(t *testing.T) {
	tests := []struct {
		file, format                         string
		ranks, events, messages, collectives int
		timed                                bool
	}{
		{"paraver/qsort_beo3.prv", "paraver", 4, 1117, 33, 45, true},
		{"goal/binary_tree_32.goal", "goal", 32, 327, 31, 0, false},
		{"dumpi/testtrace.meta", "dumpi", 4, 92, 4, 8, true},
		{"dumpi/testtrace-0001.bin", "dumpi", 4, 92, 4, 8, true},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			tr, f, err := Open(context.Background(), sharedSample(t, tc.file), "", nil)
			if err != nil {
				t.Fatal(err)
			}
			s := tracefmt.Summarize(tr)
			if f.Name != tc.format || s.Ranks != tc.ranks || s.Events != tc.events || s.Messages.Matched != tc.messages ||
				s.Collectives != tc.collectives || s.Timed != tc.timed {
				t.Errorf("%s: %d ranks, %d events, %d messages, %d collectives, timed %v; want %s: %d, %d, %d, %d, %v",
					f.Name, s.Ranks, s.Events, s.Messages.Matched, s.Collectives, s.Timed,
					tc.format, tc.ranks, tc.events, tc.messages, tc.collectives, tc.timed)
			}
		})
	}
}
