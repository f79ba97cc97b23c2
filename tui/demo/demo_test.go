package demo

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/tracesim/tracesim/tracefmt/tsim"
)

func TestDemo(t *testing.T) {
	a, err := Trace()
	if err != nil {
		t.Fatal(err)
	}
	if a.Size() != 16 || a.NumEvents() != 4608 || !a.Timed {
		t.Errorf("demo: %d ranks, %d events, timed %v", a.Size(), a.NumEvents(), a.Timed)
	}
	if c := a.CountMessages(); c.Matched == 0 || c.UnmatchedSends+c.UnmatchedRecvs != 0 {
		t.Errorf("demo messages %+v", c)
	}
	// Every call generates afresh: sessions must not share a trace.
	b, _ := Trace()
	if &a.Ranks[0] == &b.Ranks[0] {
		t.Error("two calls returned the same trace")
	}
}

// The package doc's command makes the same trace.
func TestDemoMatchesTheDocumentedCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go run")
	}
	path := filepath.Join(t.TempDir(), "demo.tsim")
	if out, err := exec.Command("go", "run", "../../cmd/tracesim", "gen", "cg", "--ranks", "16", "--iters", "8",
		"--jitter", "0.2", "--skew", "3us", "-o", path).CombinedOutput(); err != nil {
		t.Fatalf("go run: %v\n%s", err, out)
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := Trace()
	if err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	if err := tsim.Write(&got, tr); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want) {
		t.Errorf("Trace() differs from the documented command's output (%d vs %d bytes)", got.Len(), len(want))
	}
}
