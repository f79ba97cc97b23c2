package paraver

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/tracesim/tracesim/tracefmt/readcheck"
)

// FuzzRead feeds arbitrary .prv bytes (seeded with the Extrae sample and
// the header variants) with the sample's .pcf: the reader returns a trace
// or an error naming the file, never panics, and what it reads writes
// back stably.
func FuzzRead(f *testing.F) {
	pcfBytes := []byte(testPCF)
	if b, err := os.ReadFile(filepath.Join(externalDir, "qsort_beo3.prv")); err == nil {
		f.Add(b)
	}
	if b, err := os.ReadFile(filepath.Join(externalDir, "qsort_beo3.pcf")); err == nil {
		pcfBytes = b
	}
	f.Add([]byte("#Paraver (01/02/2024 at 10:00):1000_us:1(4):2:2(2:1,1:1):1(1:1)\n1:1:1:1:1:0:30:1\n3:1:1:2:1:12:12:3:2:1:1:25:25:4:0\n"))
	f.Add([]byte("#Paraver (x):50_ns:1:1:1(1:1),1\nc:1:3:1:1\n4:1:1:1:1:2:3:8:0:1:1\n2:1:1:1:1:20:50000001:1:50000001:2:77:3\n"))
	f.Fuzz(func(t *testing.T, prv []byte) {
		readStable(t, files{"out.prv": prv, "out.pcf": pcfBytes})
	})
}

// errLine matches an error that names a file of the trace and a line in it.
var errLine = regexp.MustCompile(`^out\.(prv|pcf|row):[0-9]+: `)

// readStable reads fs's out.prv (with its .pcf and .row): a refusal
// names the file and a line; an accepted trace is valid, and written,
// read back and written again gives the same .prv and .pcf bytes.
func readStable(t *testing.T, fs files) {
	t.Helper()
	tr, err := Read("out.prv", bytes.NewReader(fs["out.prv"]), fs.open)
	if !readcheck.Outcome(t, tr, err, errLine) {
		return
	}
	w1 := write(t, tr)
	w2 := write(t, w1.read(t))
	if !bytes.Equal(w1["out.prv"], w2["out.prv"]) || !bytes.Equal(w1["out.pcf"], w2["out.pcf"]) {
		t.Fatalf("written again differs:\n%s%s\nthen\n%s%s", w1["out.prv"], w1["out.pcf"], w2["out.prv"], w2["out.pcf"])
	}
}
