package paraver

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tracesim/tracesim/tracefmt"
)

// TestFourTimes: a communication record's logical and physical send and
// receive times all survive reading: the send event stands at the
// logical send (the call), the receive at the physical receive (the
// arrival), the physical send and the logical receive are the trace's
// MessageTimes; writing puts all four back byte for byte.
func TestFourTimes(t *testing.T) {
	// Rank 0 calls MPI_Send at 10, the data leaves at 18 and reaches rank
	// 1 at 40, where MPI_Recv was posted at 5. Rank 1 sends back at 50
	// (data out at 60); rank 0 posted at 45 and had it at 55: before the
	// data left, a reversal that only the physical times show.
	const prv = "#Paraver (01/02/2024 at 10:00):60_ns:1(2):1:2(1:1,1:1),1\nc:1:1:2:1:2\n" +
		"2:2:1:2:1:4:50000001:2\n" +
		"2:1:1:1:1:10:50000001:1\n" +
		"3:1:1:1:1:10:18:2:1:2:1:5:40:64:7\n" +
		"2:1:1:1:1:20:50000001:0\n" +
		"2:2:1:2:1:41:50000001:0\n" +
		"3:2:1:2:1:50:60:1:1:1:1:45:55:8:3\n"
	f := files{"out.prv": []byte(prv), "out.pcf": []byte(testPCF)}
	tr := f.read(t)
	const events = "r0: enter MPI_Send@10 send 1:7:64@10 leave MPI_Send@20 recv 1:3:8@55\n" +
		"r1: enter MPI_Recv@4 recv 0:7:64@40 leave MPI_Recv@41 send 0:3:8@50\n"
	if got := describe(tr); got != events {
		t.Errorf("events\n%s\nwant\n%s", got, events)
	}
	tests := []struct {
		name             string
		send, recv       tracefmt.EventRef
		physical, posted float64
	}{
		{"0 to 1", tracefmt.EventRef{Rank: 0, Index: 1}, tracefmt.EventRef{Rank: 1, Index: 1}, 18, 5},
		{"1 to 0", tracefmt.EventRef{Rank: 1, Index: 3}, tracefmt.EventRef{Rank: 0, Index: 3}, 60, 45},
	}
	for _, tc := range tests {
		if e := tr.Event(tc.send); e.Kind != tracefmt.KindSend || e.Match != tc.recv.Index {
			t.Fatalf("%s: %v is not the send matched to %v", tc.name, tc.send, tc.recv)
		}
		if got := tr.PhysicalSend(tc.send); got != tc.physical {
			t.Errorf("%s: physical send %g, want %g", tc.name, got, tc.physical)
		}
		if got := tr.PostedAt(tc.recv); got != tc.posted {
			t.Errorf("%s: receive posted at %g, want %g", tc.name, got, tc.posted)
		}
	}
	w := write(t, tr)
	if !bytes.Equal(w["out.prv"], []byte(prv)) {
		t.Errorf("written\n%s\nwant the source\n%s", w["out.prv"], prv)
	}
}

// TestFourTimesQsort: every communication of the real qsort sample (33,
// all with physical times apart from logical ones) is written back with
// its four times, tasks, size and tag (in ns; the source is in µs).
func TestFourTimesQsort(t *testing.T) {
	tr := readSample(t, "qsort_beo3.prv")
	if n := len(tr.MessageTimes); n != 66 {
		t.Errorf("%d message times, want 66 (33 physical sends, 33 logical receives)", n)
	}
	src, err := os.ReadFile(filepath.Join(externalDir, "qsort_beo3.prv"))
	if err != nil {
		t.Fatal(err)
	}
	// comms lists a file's communication records as task, times, peer,
	// size and tag, times scaled to ns.
	comms := func(b []byte, scale int64) []string {
		var out []string
		for _, l := range strings.Split(string(b), "\n") {
			if !strings.HasPrefix(l, "3:") {
				continue
			}
			f := strings.Split(l, ":")
			ns := func(s string) string {
				v, _ := strconv.ParseInt(s, 10, 64)
				return strconv.FormatInt(v*scale, 10)
			}
			out = append(out, strings.Join([]string{f[3], ns(f[5]), ns(f[6]), f[9], ns(f[11]), ns(f[12]), f[13], f[14]}, ":"))
		}
		slices.Sort(out)
		return out
	}
	want, got := comms(src, 1000), comms(write(t, tr)["out.prv"], 1)
	if len(want) != 33 || !slices.Equal(got, want) {
		t.Errorf("written communications\n%s\nwant (%d)\n%s", strings.Join(got, "\n"), len(want), strings.Join(want, "\n"))
	}
}
