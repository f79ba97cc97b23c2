package lesson

import (
	"embed"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// builtinFS holds the built-in lessons and their trace files.
//
//go:embed builtin/*.md builtin/*.tsim
var builtinFS embed.FS

// Builtin returns the built-in lessons in teaching order (their file
// names start with a number).
func Builtin() ([]*Lesson, error) {
	names, err := fs.Glob(builtinFS, "builtin/*.md")
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	out := make([]*Lesson, 0, len(names))
	for _, n := range names {
		l, err := ParseFS(builtinFS, n)
		if err != nil {
			return nil, err
		}
		l.Name = builtinName(l.Name)
		out = append(out, l)
	}
	return out, nil
}

// builtinName drops the ordering prefix "01-" of a built-in lesson's file.
func builtinName(n string) string {
	if i := strings.IndexByte(n, '-'); i > 0 && strings.Trim(n[:i], "0123456789") == "" {
		return n[i+1:]
	}
	return n
}

// Dir reads the lessons of a directory (its *.md files, in name order).
// A file that does not parse is an error naming it. The lessons and the
// trace files they name are read through an os.Root on dir (Root.FS), so
// that a lesson or a trace that is a link out of the directory, or a
// trace = "../x", is refused: a served library shows what its directory
// holds and nothing else. The lessons keep the directory open to read
// their traces.
func Dir(dir string) ([]*Lesson, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	fsys := root.FS()
	names, err := fs.Glob(fsys, "*.md")
	if err != nil {
		root.Close()
		return nil, err
	}
	sort.Strings(names)
	var out []*Lesson
	for _, n := range names {
		file := filepath.Join(dir, n)
		st, err := fs.Stat(fsys, n)
		if err != nil {
			root.Close()
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		if !st.Mode().IsRegular() {
			root.Close()
			return nil, fmt.Errorf("%s: not a regular file", file)
		}
		if st.Size() > MaxSize {
			root.Close()
			return nil, &Error{File: file, Msg: fmt.Sprintf("the lesson is larger than %d bytes", MaxSize)}
		}
		l, err := parseFS(fsys, n, file)
		if err != nil {
			root.Close()
			return nil, err
		}
		out = append(out, l)
	}
	if len(out) == 0 {
		root.Close()
	}
	return out, nil
}

// ReadFile parses the lesson file at path (a regular file).
func ReadFile(path string) (*Lesson, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", path)
	}
	if st.Size() > MaxSize {
		return nil, &Error{File: path, Msg: fmt.Sprintf("the lesson is larger than %d bytes", MaxSize)}
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Parse(path, f)
}

// Find returns the lesson a user names: a file path when one exists
// (or the name ends in ".md"), else a built-in lesson's name.
func Find(name string) (*Lesson, error) {
	if strings.HasSuffix(name, ".md") || strings.ContainsRune(name, os.PathSeparator) {
		return ReadFile(name)
	}
	if st, err := os.Stat(name); err == nil && st.Mode().IsRegular() {
		return ReadFile(name)
	}
	all, err := Builtin()
	if err != nil {
		return nil, err
	}
	var names []string
	for _, l := range all {
		if l.Name == name {
			return l, nil
		}
		names = append(names, l.Name)
	}
	return nil, fmt.Errorf("no lesson %q: not a file, nor a built-in lesson (%s)", name, strings.Join(names, ", "))
}
