package tsim

import (
	"os"
	"strings"
	"testing"
)

// TestDocExamples: the examples in docs/tsim.md are the files in
// testdata/tsim, byte for byte, so the documentation cannot drift from
// what the reader accepts.
func TestDocExamples(t *testing.T) {
	doc, err := os.ReadFile("../../docs/tsim.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"ring3.tsim", "untimed.tsim"} {
		file, err := os.ReadFile("../../testdata/tsim/" + name)
		if err != nil {
			t.Fatal(err)
		}
		link := "(../testdata/tsim/" + name + "):\n\n```\n"
		i := strings.Index(string(doc), link)
		if i < 0 {
			t.Errorf("docs/tsim.md does not show %s", name)
			continue
		}
		block := string(doc[i+len(link):])
		block = block[:strings.Index(block, "```")]
		if block != string(file) {
			t.Errorf("the example in docs/tsim.md differs from testdata/tsim/%s", name)
		}
		mustRead(t, block)
	}
}
