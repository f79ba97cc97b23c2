package paraver

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/tracefmt/tsim"
)

// readTsim reads one of the repository's tsim traces.
func readTsim(t *testing.T, name string) *tracefmt.Trace {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "..", "testdata", "tsim", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tr, err := tsim.Read(f)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// TestRoundTrip: what the writer writes reads back as the same trace
// (counts) and writes again byte for byte (.prv, .pcf, .row), for traces
// read from Paraver (several applications and threads too) and from
// other formats.
func TestRoundTrip(t *testing.T) {
	multi := "#Paraver (01/02/2024 at 10:00):1000_us:1(4):2:2(2:1,1:1):1(1:1)\n" +
		"1:1:1:1:1:0:30:1\n1:1:1:1:2:10:20:1\n2:1:1:1:2:11:50000001:1\n3:1:1:2:1:12:12:3:2:1:1:25:25:4:0\n2:1:1:1:2:13:50000001:0\n1:3:2:1:1:0:30:1\n"
	tests := []struct {
		name string
		tr   func(t *testing.T) *tracefmt.Trace
	}{
		{"qsort", func(t *testing.T) *tracefmt.Trace { return readSample(t, "qsort_beo3.prv") }},
		{"threads", func(t *testing.T) *tracefmt.Trace {
			return files{"out.prv": []byte(multi), "out.pcf": []byte(testPCF)}.read(t)
		}},
		{"ring3.tsim", func(t *testing.T) *tracefmt.Trace { return readTsim(t, "ring3.tsim") }},
		{"features.tsim", func(t *testing.T) *tracefmt.Trace { return readTsim(t, "features.tsim") }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src := tc.tr(t)
			w1 := write(t, src)
			back := w1.read(t)
			w2 := write(t, back)
			for _, n := range []string{"out.prv", "out.pcf", "out.row"} {
				if !bytes.Equal(w1[n], w2[n]) {
					t.Errorf("%s written again differs:\n%s\nthen\n%s", n, w1[n], w2[n])
				}
			}
			if !strings.HasPrefix(string(w1["out.prv"]), "#Paraver (") || !strings.Contains(strings.SplitN(string(w1["out.prv"]), "\n", 2)[0], "_ns:1(") {
				t.Errorf("header not in the current format: %s", strings.SplitN(string(w1["out.prv"]), "\n", 2)[0])
			}
			s, b := tracefmt.Summarize(src), tracefmt.Summarize(back)
			if s.Ranks != b.Ranks || s.Messages.Matched != b.Messages.Matched || s.Collectives != b.Collectives {
				t.Errorf("read back %d ranks, %d messages, %d collectives; source %d, %d, %d",
					b.Ranks, b.Messages.Matched, b.Collectives, s.Ranks, s.Messages.Matched, s.Collectives)
			}
			if tc.name == "qsort" && (s.Events != b.Events || b.Events != 1117) {
				t.Errorf("qsort read back with %d events, want 1117 as read", b.Events)
			}
		})
	}
}
