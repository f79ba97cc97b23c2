package simgridti

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

// rankFiles returns an index of ranks per-rank files (named r0.txt …)
// and their contents: ring exchanges with comments, blank lines and
// CRLF endings, the last rank's file without its final line break.
func rankFiles(ranks, steps int) (string, map[string]string) {
	files := map[string]string{}
	var index strings.Builder
	for r := range ranks {
		name := fmt.Sprintf("r%d.txt", r)
		fmt.Fprintln(&index, name)
		var b strings.Builder
		fmt.Fprintf(&b, "%d init\n", r)
		for s := range steps {
			fmt.Fprintf(&b, "%d irecv %d %d 4096 0\n", r, (r+ranks-1)%ranks, s%5)
			fmt.Fprintf(&b, "%d compute %d\n", r, 1000+s)
			if s%37 == 0 {
				fmt.Fprintf(&b, "# step %d\n\n", s)
			}
			fmt.Fprintf(&b, "%d send %d %d 4096 0\n", r, (r+1)%ranks, s%5)
			fmt.Fprintf(&b, "%d wait %d %d %d\n", r, (r+ranks-1)%ranks, r, s%5)
			fmt.Fprintf(&b, "%d allreduce 1 100 0\n", r)
		}
		fmt.Fprintf(&b, "%d finalize\n", r)
		text := b.String()
		if r%3 == 1 {
			text = strings.ReplaceAll(text, "\n", "\r\n")
		}
		if r == ranks-1 {
			text = strings.TrimRight(text, "\r\n")
		}
		files[name] = text
	}
	return index.String(), files
}

// failingReader returns its text and then err.
type failingReader struct {
	text string
	err  error
}

func (f *failingReader) Read(p []byte) (int, error) {
	if f.text == "" {
		return 0, f.err
	}
	n := copy(p, f.text)
	f.text = f.text[n:]
	return n, nil
}

// TestChainAsSerial: the per-rank files of an index parsed as one chain
// on two and four goroutines, in blocks holding several files or part
// of one, give the trace and the error (its file, line and column) of
// reading the files one by one on one goroutine, and of the general
// path.
func TestChainAsSerial(t *testing.T) {
	index, clean := rankFiles(6, 60)
	with := func(edit func(files map[string]string)) map[string]string {
		files := map[string]string{}
		for k, v := range clean {
			files[k] = v
		}
		edit(files)
		return files
	}
	lineOf := func(files map[string]string, name string, no int, s string) {
		l := strings.Split(files[name], "\n")
		l[no-1] = s
		files[name] = strings.Join(l, "\n")
	}
	tests := []struct {
		name  string
		files map[string]string
		fail  string // a file whose reads fail after its text
		err   string // the error every path gives, "" for none
	}{
		{"clean", clean, "", ""},
		{"empty and comment-only files", with(func(f map[string]string) {
			f["r2.txt"] = ""
			f["r3.txt"] = "# nothing here\n\n"
			f["r4.txt"] = "\n"
		}), "", ""},
		{"general lines", with(func(f map[string]string) {
			lineOf(f, "r0.txt", 5, "0 Bcast 100")
			lineOf(f, "r5.txt", 3, "5 comm_size 6")
		}), "", ""},
		{"bad lines in two files", with(func(f map[string]string) {
			lineOf(f, "r2.txt", 100, "2 fly 1")
			lineOf(f, "r4.txt", 7, "4 compute -1")
		}), "", `r2.txt:100:3: unknown action "fly"`},
		{"bad last line of a file without a line break", with(func(f map[string]string) {
			f["r5.txt"] += "\n5 compute -2"
		}), "", "r5.txt:307:11: negative flop count -2"},
		{"another rank's line", with(func(f map[string]string) {
			lineOf(f, "r1.txt", 2, "0 compute 5")
		}), "", "r1.txt:2:1: action for rank 0 in the file of rank 1"},
		{"a missing file", with(func(f map[string]string) { delete(f, "r3.txt") }), "",
			"trace.txt:4: opening r3.txt: file does not exist"},
		{"a bad line before a missing file", with(func(f map[string]string) {
			lineOf(f, "r2.txt", 50, "2 send x")
			delete(f, "r3.txt")
		}), "", `r2.txt:50:3: send takes`},
		{"a read failing", clean, "r4.txt", "r4.txt: line 307: disk on fire"},
	}
	prev := runtime.GOMAXPROCS(1)
	defer runtime.GOMAXPROCS(prev)
	for _, tc := range tests {
		open := func(name string) (io.ReadCloser, error) {
			text, ok := tc.files[name]
			if !ok {
				return nil, fs.ErrNotExist
			}
			if name == tc.fail {
				return io.NopCloser(&failingReader{text, errors.New("disk on fire")}), nil
			}
			return io.NopCloser(struct{ io.Reader }{strings.NewReader(text)}), nil
		}
		read := func(general bool, size int) (string, error) {
			tr, err := readSized("trace.txt", strings.NewReader(index), open, general, size)
			if err != nil {
				return "", err
			}
			return fmt.Sprint(describeRanks(tr), tr.States, tr.Markers, tr.Texts, tr.Attrs), nil
		}
		runtime.GOMAXPROCS(1)
		want, wantErr := read(false, 0)
		if tc.err == "" && wantErr != nil || tc.err != "" && (wantErr == nil || !strings.HasPrefix(wantErr.Error(), tc.err)) {
			t.Fatalf("%s: one by one: error %v, want %q", tc.name, wantErr, tc.err)
		}
		if tc.err == "" && len(want) < 1000 {
			t.Fatalf("%s: one by one: a trace of %d characters, want the six ranks' events", tc.name, len(want))
		}
		general, generalErr := read(true, 0)
		if fmt.Sprint(generalErr) != fmt.Sprint(wantErr) || general != want {
			t.Fatalf("%s: general path: error %v, want %v (traces equal: %v)", tc.name, generalErr, wantErr, general == want)
		}
		for _, procs := range []int{2, 4} {
			for _, size := range []int{64, 1000, 20000, 0} {
				runtime.GOMAXPROCS(procs)
				got, err := read(false, size)
				if fmt.Sprint(err) != fmt.Sprint(wantErr) {
					t.Fatalf("%s, %d procs, blocks of %d: error %v, want %v", tc.name, procs, size, err, wantErr)
				}
				if got != want {
					t.Errorf("%s, %d procs, blocks of %d: traces differ", tc.name, procs, size)
				}
			}
		}
	}
}

// TestChainEvents: a chained read of an index gives every event field
// (matches included) that reading the files one by one does.
func TestChainEvents(t *testing.T) {
	index, files := rankFiles(5, 300)
	open := func(name string) (io.ReadCloser, error) {
		return io.NopCloser(strings.NewReader(files[name])), nil
	}
	prev := runtime.GOMAXPROCS(1)
	defer runtime.GOMAXPROCS(prev)
	want, err := readSized("trace.txt", strings.NewReader(index), open, false, 0)
	if err != nil {
		t.Fatal(err)
	}
	runtime.GOMAXPROCS(2)
	got, err := readSized("trace.txt", strings.NewReader(index), open, false, 512)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatal("the chained read's trace differs from the one-by-one read's")
	}
	if n := len(got.Ranks[0].Events); n < 1500 {
		t.Fatalf("rank 0 has %d events, want its 300 steps'", n)
	}
}

// FuzzChain: an index of per-rank files (the input cut at each '|', up
// to eight files) reads alike one file at a time on one CPU and as a
// chain on two in small blocks: the same trace or the same error.
func FuzzChain(f *testing.F) {
	f.Add("0 init\n0 send 1 0 8\n0 finalize\n|1 init\n1 recv 0 0 8\n1 finalize")
	f.Add("0 isend 1 3 100\n0 wait 0 1 3\r\n|1 irecv 0 3 100\n# c\n\n1 wait 0 1 3\n|")
	f.Add("0 compute 1e6\n0 allreduce 10 100\n|1 compute 2\n1 allreduce 10 100\n|2 Bcast 10\n|3 sleep 0.5")
	f.Add("0 send 1 0 abc\n|1 recv 0 0 8")
	f.Fuzz(func(t *testing.T, in string) {
		parts := strings.SplitN(in, "|", 8)
		if len(parts) < 2 {
			return
		}
		var index strings.Builder
		for k := range parts {
			fmt.Fprintf(&index, "f%d\n", k)
		}
		open := func(name string) (io.ReadCloser, error) {
			var k int
			if _, err := fmt.Sscanf(name, "f%d", &k); err != nil || k >= len(parts) {
				return nil, fs.ErrNotExist
			}
			return io.NopCloser(struct{ io.Reader }{strings.NewReader(parts[k])}), nil
		}
		prev := runtime.GOMAXPROCS(1)
		defer runtime.GOMAXPROCS(prev)
		want, wantErr := readSized("index", strings.NewReader(index.String()), open, false, 0)
		runtime.GOMAXPROCS(2)
		got, err := readSized("index", strings.NewReader(index.String()), open, false, 64)
		if fmt.Sprint(err) != fmt.Sprint(wantErr) {
			t.Fatalf("chained: error %v, one by one: %v", err, wantErr)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatal("the chained trace differs from the one-by-one trace")
		}
	})
}
