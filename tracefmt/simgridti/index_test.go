package simgridti

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// writeFiles creates files (name → content) under dir.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestIndexLayout(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		want  [][]string
		err   string
	}{
		{name: "one file per rank, relative to the index",
			files: map[string]string{
				"trace.txt":              "# index\ntrace_files/a.txt\n\ntrace_files/b.txt\r\n",
				"trace_files/a.txt":      "0 init\n0 send 1 0 8\n0 finalize\n",
				"trace_files/b.txt":      "1 init\n1 recv 0 0 8\n",
				"trace_files/unused.txt": "garbage",
			},
			want: [][]string{{"send>1 t0 8B"}, {"recv<0 t0 8B"}}},
		{name: "a single line names a file holding every rank",
			files: map[string]string{"trace.txt": "all.txt\n", "all.txt": "0 send 2 0 8\n2 recv 0 0 8\n"},
			want:  [][]string{{"send>2 t0 8B"}, {}, {"recv<0 t0 8B"}}},
		{name: "the index fixes the world size",
			files: map[string]string{"trace.txt": "a\nb\nc\n", "a": "0 compute 1\n", "b": "", "c": "# nothing\n"},
			want:  [][]string{{"compute 1f"}, {}, {}}},
		{name: "a file holds another rank's action",
			files: map[string]string{"trace.txt": "a\nb\n", "a": "0 init\n", "b": "1 init\n0 compute 1\n"},
			err:   "b:2:1: action for rank 0 in the file of rank 1"},
		{name: "peers outside the index's world",
			files: map[string]string{"trace.txt": "a\nb\n", "a": "0 send 2 0 1\n", "b": ""},
			err:   "a:1:8: destination 2 is outside the world of 2 ranks"},
		{name: "a listed file is missing",
			files: map[string]string{"trace.txt": "a\nmissing.txt\n", "a": "0 init\n"},
			err:   "trace.txt:2: opening missing.txt:"},
		{name: "the one listed file is empty",
			files: map[string]string{"trace.txt": "# every rank\nall.txt\n", "all.txt": ""},
			err:   `all.txt:1:1: no actions found in the file trace.txt:2 lists (expected lines such as "0 init")`},
		{name: "the one listed file holds only comments",
			files: map[string]string{"trace.txt": "all.txt\n", "all.txt": "# nothing\n\n"},
			err:   `all.txt:3:1: no actions found in the file trace.txt:1 lists (expected lines such as "0 init")`},
		{name: "index lines hold one name",
			files: map[string]string{"trace.txt": "a\nb c\n"},
			err:   "trace.txt:2:3: expected one file name per line in an index file, got 2 fields"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, dir, tt.files)
			tr, err := ReadFile(filepath.Join(dir, "trace.txt"))
			if tt.err != "" {
				// The index is named by its full path, the files it
				// lists as it lists them.
				if err == nil || !strings.Contains(strings.ReplaceAll(err.Error(), dir+string(filepath.Separator), ""), tt.err) {
					t.Fatalf("error %v, want …%s…", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := describeRanks(tr); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("events:\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}

// TestIndexNeedsOpener: Read without an Opener refuses an index, and the
// Opener is given the names as listed.
func TestIndexNeedsOpener(t *testing.T) {
	_, err := Read(strings.NewReader("r0.txt\nr1.txt\n"), nil)
	var pe *ParseError
	if !errors.As(err, &pe) || pe.Line != 1 || !strings.Contains(err.Error(), "no way to open them") {
		t.Errorf("error %v, want a ParseError at line 1 about opening the per-rank files", err)
	}
	var asked []string
	open := func(name string) (io.ReadCloser, error) {
		asked = append(asked, name)
		if name == "r1.txt" {
			return nil, fs.ErrNotExist
		}
		return io.NopCloser(strings.NewReader("0 init\n")), nil
	}
	_, err = Read(strings.NewReader("r0.txt\nr1.txt\n"), open)
	if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "index line 2: opening r1.txt") {
		t.Errorf("error %v, want one wrapping fs.ErrNotExist at index line 2", err)
	}
	if !reflect.DeepEqual(asked, []string{"r0.txt", "r1.txt"}) {
		t.Errorf("opened %q", asked)
	}
}
