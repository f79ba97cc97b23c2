package otf2

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tracesim/tracesim/tracefmt"
)

// python is the interpreter Debian's python3-otf2 is installed for.
const python = "/usr/bin/python3"

// counts are the numbers compared between our reader and otf2-print.
type counts struct {
	Ranks, EventRecords, States, Messages, Collectives int
}

// eventLine is an event line of otf2-print: name, location, timestamp.
var eventLine = regexp.MustCompile(`^([A-Z_]+)\s+\d+\s+\d+`)

// printCounts runs otf2-print on an archive and counts what it lists:
// location groups that are processes (ranks), event lines, ENTER lines
// (states), sends (messages), MPI_COLLECTIVE_END lines (one per rank and
// call, as our collective events). It fails the test when otf2-print
// reports an error.
func printCounts(t *testing.T, anchor string) counts {
	t.Helper()
	var c counts
	out, err := exec.Command("otf2-print", anchor).CombinedOutput()
	if err != nil || bytes.Contains(out, []byte("error")) {
		t.Fatalf("otf2-print %s: %v\n%s", anchor, err, out)
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		m := eventLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		c.EventRecords++
		switch m[1] {
		case "ENTER":
			c.States++
		case "MPI_SEND", "MPI_ISEND":
			c.Messages++
		case "MPI_COLLECTIVE_END":
			c.Collectives++
		}
	}
	defs, err := exec.Command("otf2-print", "-G", anchor).CombinedOutput()
	if err != nil {
		t.Fatalf("otf2-print -G %s: %v\n%s", anchor, err, defs)
	}
	for _, l := range strings.Split(string(defs), "\n") {
		if strings.HasPrefix(l, "LOCATION_GROUP ") && strings.Contains(l, "Type: PROCESS") {
			c.Ranks++
		}
	}
	return c
}

// ourCounts reads an archive and counts the same things in the trace.
// With matched set, every send and receive must have found its partner.
func ourCounts(t *testing.T, anchor string, matched bool) (counts, *tracefmt.Trace) {
	t.Helper()
	f, err := os.Open(anchor)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tr, st, err := Read(anchor, f, DirOpener(filepath.Dir(anchor)))
	if err != nil {
		t.Fatal(err)
	}
	s := tracefmt.Summarize(tr)
	c := counts{Ranks: s.Ranks, EventRecords: st.EventRecords, Messages: s.Messages.Matched, Collectives: s.Collectives}
	for _, st := range s.States {
		c.States += st.Count
	}
	if matched && s.Messages.UnmatchedSends+s.Messages.UnmatchedRecvs > 0 {
		t.Errorf("%s: %d unmatched sends, %d unmatched receives", anchor, s.Messages.UnmatchedSends, s.Messages.UnmatchedRecvs)
	}
	return c, tr
}

// needTools skips the test without otf2-print or the OTF2 Python module.
func needTools(t *testing.T, pythonToo bool) {
	t.Helper()
	if _, err := exec.LookPath("otf2-print"); err != nil {
		t.Skip("otf2-print not installed (Debian package otf2-tools)")
	}
	if pythonToo {
		if err := exec.Command(python, "-c", "import otf2").Run(); err != nil {
			t.Skip("the OTF2 Python module is not installed (Debian package python3-otf2)")
		}
	}
}

// generate writes the archive of a case of testdata/gen_archives.py with
// the OTF2 library and returns its anchor file.
func generate(t *testing.T, name string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	out, err := exec.Command(python, "testdata/gen_archives.py", dir, name).CombinedOutput()
	if err != nil {
		t.Fatalf("gen_archives.py %s: %v\n%s", name, err, out)
	}
	return filepath.Join(dir, "traces.otf2")
}

// TestAgainstOTF2Library reads archives the OTF2 library wrote and
// compares our counts with otf2-print's. The want column pins the
// numbers, so that a change in either side shows.
func TestAgainstOTF2Library(t *testing.T) {
	needTools(t, true)
	tests := []struct {
		name string
		want counts
	}{
		{"p2p", counts{Ranks: 2, EventRecords: 64, States: 22, Messages: 10}},
		{"ring", counts{Ranks: 4, EventRecords: 80, States: 28, Messages: 12}},
		{"isend_irecv", counts{Ranks: 4, EventRecords: 62, States: 22, Messages: 4}},
		{"collectives", counts{Ranks: 4, EventRecords: 104, States: 28, Collectives: 24}},
		{"subcomm", counts{Ranks: 6, EventRecords: 72, States: 22, Messages: 2, Collectives: 12}},
		{"threads", counts{Ranks: 2, EventRecords: 26, States: 12, Messages: 1}},
		{"thread_mpi", counts{Ranks: 2, EventRecords: 16, States: 6, Messages: 2}},
		{"mixed", counts{Ranks: 8, EventRecords: 368, States: 104, Messages: 16, Collectives: 64}},
		{"nested", counts{Ranks: 3, EventRecords: 42, States: 20, Messages: 1}},
		{"many", counts{Ranks: 4, EventRecords: 1208, States: 404, Messages: 200}},
		{"offset", counts{Ranks: 2, EventRecords: 18, States: 6, Messages: 1, Collectives: 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			anchor := generate(t, tt.name)
			ref := printCounts(t, anchor)
			got, _ := ourCounts(t, anchor, true)
			t.Logf("ours %+v, otf2-print %+v", got, ref)
			if got != ref {
				t.Errorf("ours %+v\notf2-print %+v", got, ref)
			}
			if got != tt.want {
				t.Errorf("ours %+v, want %+v", got, tt.want)
			}
		})
	}
}
