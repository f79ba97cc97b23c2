package atomicfile

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A cancelled context or a write beyond the limit fails the write, removes
// the temporary file and keeps the previous file.
func TestContextAndLimit(t *testing.T) {
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	big := strings.Repeat("x", 3<<20)
	for _, tc := range []struct {
		name    string
		o       Options
		content string
		want    string // error text; "" for success
		is      error
	}{
		{"cancelled before the first flush", Options{Context: cancelled}, big, "interrupted: context canceled", context.Canceled},
		{"cancelled, small file", Options{Context: cancelled}, "new\n", "interrupted: context canceled", context.Canceled},
		{"beyond the limit", Options{Limit: 1 << 20}, big, "output larger than its limit (1048576 bytes)", ErrLimit},
		{"at the limit", Options{Limit: 4}, "new\n", "", nil},
		{"live context", Options{Context: context.Background()}, "new\n", "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "out.txt")
			if err := os.WriteFile(path, []byte("old\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			err := WriteWith(path, tc.o, func(w io.Writer) error {
				_, err := io.WriteString(w, tc.content)
				return err
			})
			b, _ := os.ReadFile(path)
			if tc.want == "" {
				if err != nil || string(b) != tc.content {
					t.Fatalf("err %v, file %q", err, b)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, tc.is) {
				t.Fatalf("err %v, want %q", err, tc.want)
			}
			if string(b) != "old\n" {
				t.Errorf("previous file now %d bytes", len(b))
			}
			if m, _ := filepath.Glob(filepath.Join(dir, ".out.txt"+tempMarker+"*")); len(m) > 0 {
				t.Errorf("temporary files left: %v", m)
			}
		})
	}
}
