package otf2

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// seedArchives are archives written by Score-P and by the OTF2 library
// (testdata/archives, made with testdata/gen_archives.py).
var seedArchives = []string{
	externalDir + "/ping-pong/traces.otf2",
	"testdata/archives/isend_irecv/traces.otf2",
	"testdata/archives/subcomm/traces.otf2",
	"testdata/archives/threads/traces.otf2",
}

// archiveFiles reads every file of an archive, by path relative to the
// anchor's directory.
func archiveFiles(t testing.TB, anchor string) map[string][]byte {
	files := map[string][]byte{}
	dir := filepath.Dir(anchor)
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		files[filepath.ToSlash(rel)] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// mapOpener serves an archive's files from memory.
func mapOpener(files map[string][]byte) Opener {
	return func(name string) (io.ReadCloser, error) {
		b, ok := files[name]
		if !ok {
			return nil, fs.ErrNotExist
		}
		return io.NopCloser(bytes.NewReader(b)), nil
	}
}

// checkError: a rejected input gets an error naming a file and an
// offset, or what is missing.
func checkError(t *testing.T, err error) {
	var fe *FormatError
	if errors.As(err, &fe) {
		if fe.File == "" || fe.Msg == "" || fe.Offset < 0 {
			t.Fatalf("error without file, offset or message: %#v", fe)
		}
		return
	}
	if errors.Is(err, fs.ErrNotExist) && strings.Contains(err.Error(), ".def offset ") {
		return // a file the definitions name is absent
	}
	t.Fatalf("error names no file and offset: %v", err)
}

// FuzzEventFile decodes mutated event files of real archives in the
// archive of their seed: no input makes the reader panic, and what it
// refuses gets an error with file and offset. which picks the seed
// archive, loc the location whose event file is replaced.
func FuzzEventFile(f *testing.F) {
	var archives []map[string][]byte
	for _, a := range seedArchives {
		if _, err := os.Stat(a); err != nil {
			continue // the shared sample is absent
		}
		files := archiveFiles(f, a)
		for name, b := range files {
			if strings.HasSuffix(name, ".evt") || strings.HasSuffix(name, ".def") {
				f.Add(uint8(len(archives)), name, b)
			}
		}
		archives = append(archives, files)
	}
	f.Fuzz(func(t *testing.T, which uint8, name string, data []byte) {
		if len(archives) == 0 {
			t.Skip("no seed archive")
		}
		orig := archives[int(which)%len(archives)]
		files := make(map[string][]byte, len(orig))
		for k, v := range orig {
			files[k] = v
		}
		if _, ok := files[name]; !ok {
			return
		}
		files[name] = data
		tr, _, err := Read("traces.otf2", bytes.NewReader(files["traces.otf2"]), mapOpener(files))
		if err != nil {
			checkError(t, err)
			return
		}
		if err := tr.Validate(); err != nil {
			t.Fatalf("accepted an invalid trace: %v", err)
		}
		if _, err := countEvents(data, maxChunkSize); err != nil && strings.HasSuffix(name, ".evt") {
			t.Fatalf("the archive read but its event file does not decode alone: %v", err)
		}
	})
}

// FuzzAnchor parses mutated anchor files.
func FuzzAnchor(f *testing.F) {
	for _, a := range seedArchives {
		if b, err := os.ReadFile(a); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := readAnchor("traces.otf2", bytes.NewReader(data))
		if err != nil {
			checkError(t, err)
			return
		}
		if a.EventChunk < minChunkSize || a.EventChunk > maxChunkSize {
			t.Fatalf("accepted event chunk size %d", a.EventChunk)
		}
	})
}
