package paraver

import (
	"os"
	"path/filepath"
	"testing"
)

// sidePRV uses states, event types and a message, so that what the .pcf
// names reaches the trace.
const sidePRV = "#Paraver (01/02/2024 at 10:00):1000_us:1(2):1:2(1:1,1:1),1\n" +
	"1:1:1:1:1:0:30:1\n2:1:1:1:1:5:50000001:1:42000050:7\n3:1:1:1:1:6:6:2:1:2:1:9:9:8:3\n" +
	"2:1:1:1:1:10:50000001:0\n1:2:1:2:1:0:30:3\n"

// FuzzSideFiles feeds arbitrary .pcf and .row bytes (seeded with the
// Extrae sample's .pcf and a .row as Extrae writes it) beside a fixed
// .prv: the reader returns a valid trace or an error naming the side file
// or the trace, never panics.
func FuzzSideFiles(f *testing.F) {
	row := []byte("LEVEL CPU SIZE 2\n1.node\n2.node\n\nLEVEL TASK SIZE 2\nmain 1\nworker 2\n")
	f.Add([]byte(testPCF), row)
	if b, err := os.ReadFile(filepath.Join(externalDir, "qsort_beo3.pcf")); err == nil {
		f.Add(b, row)
	}
	f.Fuzz(func(t *testing.T, pcf, row []byte) {
		readStable(t, files{"out.prv": []byte(sidePRV), "out.pcf": pcf, "out.row": row})
	})
}
