package formats

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// An empty file says so, whatever its name or the format asked for (once
// it was an "unrecognised trace format").
func TestOpenEmptyFile(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ name, format string }{
		{"run.clog2", ""}, {"run.txt", ""}, {"noext", ""}, {"run.tsim", "tsim"},
	} {
		p := filepath.Join(dir, tc.name)
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		_, _, err := Open(context.Background(), p, tc.format, nil)
		if err == nil || !strings.Contains(err.Error(), p+": empty file") {
			t.Errorf("%s (format %q): error %v, want %q", tc.name, tc.format, err, p+": empty file …")
		}
	}
}
