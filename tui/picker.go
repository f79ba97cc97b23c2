package tui

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/tracesim/tracesim/themes"
	"github.com/tracesim/tracesim/tracefmt/units"
)

// picker is the file picker: a list of one directory's entries.
type picker struct {
	root    string // the library ("" means anywhere)
	seq     int    // the listing asked for last; older ones are dropped
	up      bool   // the directory has a parent inside the library
	dir     string
	name    string // dir as the user sees it (see shown)
	entries []entry
	cursor  int
	offset  int
	height  int
	err     string
}

// entry is one line of the picker.
type entry struct {
	name string
	dir  bool
	size int64
}

// errOutside is returned for files outside the library.
var errOutside = errors.New("outside the trace library")

// within checks that path lies inside the library root by looking it up
// through an os.Root on the library: the root resolves symbolic links
// itself and refuses one that leads out, and ".." past its top, so no
// path is judged by string comparison.
func within(root, path string) error {
	if root == "" {
		return nil
	}
	return inLibrary(root, path, func(r *os.Root, rel string) error {
		_, err := r.Stat(rel)
		return err
	})
}

// inLibrary runs fn with an os.Root on the library and path's name in it.
// Any failure to name or reach path inside the library is errOutside
// (named by the file's base name: a served session never sees the
// server's paths).
func inLibrary(root, path string, fn func(r *os.Root, rel string) error) error {
	r, err := os.OpenRoot(root)
	if err != nil {
		return fmt.Errorf("trace library %s: %w", root, err)
	}
	defer r.Close()
	outside := fmt.Errorf("%s: %w", filepath.Base(path), errOutside)
	rel, ok := libraryName(root, path)
	if !ok {
		return outside
	}
	if err := fn(r, rel); err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) {
			// Say what is wrong, without the server's path.
			var pe *fs.PathError
			if errors.As(err, &pe) {
				err = pe.Err
			}
			return fmt.Errorf("%s: %w", filepath.Base(path), err)
		}
		return outside
	}
	return nil
}

// libraryName returns path relative to the library root, "." for the
// root itself; false when path is not below root as written, nor once
// the root's own links are resolved (a library reached through a link).
func libraryName(root, path string) (string, bool) {
	ar, err := filepath.Abs(root)
	if err != nil {
		return "", false
	}
	p := path
	if !filepath.IsAbs(p) {
		p = filepath.Join(ar, p)
	}
	if rel, err := filepath.Rel(ar, p); err == nil && (filepath.IsLocal(rel) || rel == ".") {
		return rel, true
	}
	rr, err := filepath.EvalSymlinks(ar)
	if err != nil {
		return "", false
	}
	if rel, err := filepath.Rel(rr, p); err == nil && (filepath.IsLocal(rel) || rel == ".") {
		return rel, true
	}
	return "", false
}

// openPicker opens the picker in the directory of the loaded file, or in
// the library (the working directory without one). The directory is
// read by a command, off the event loop, as every listing is.
func (m *Model) openPicker() tea.Cmd {
	// Until the listing comes, the header names the library.
	m.picker = &picker{root: m.opts.Library, dir: m.opts.Library, name: "/", height: m.common.Height}
	if m.opts.Library == "" {
		m.picker.name = "…"
	}
	root, cur := m.opts.Library, m.path
	return m.listCmd(func() string {
		dir := root
		if cur != "" && within(root, cur) == nil {
			if _, err := os.Stat(cur); err == nil {
				dir = filepath.Dir(cur)
			}
		}
		if dir == "" {
			dir, _ = os.Getwd()
		}
		return dir
	})
}

// chdir asks for dir's listing.
func (m *Model) chdir(dir string) tea.Cmd {
	return m.listCmd(func() string { return dir })
}

// pickerListMsg is a directory read for the picker: its entries, or why
// it could not be read.
type pickerListMsg struct {
	seq     int
	dir     string
	name    string
	up      bool
	entries []entry
	err     string
}

// listCmd reads the directory where() names (inside the library, through
// its os.Root) on a command goroutine.
func (m *Model) listCmd(where func() string) tea.Cmd {
	p := m.picker
	p.seq++
	seq, root := p.seq, p.root
	return func() tea.Msg {
		l := listing(root, where())
		l.seq = seq
		return l
	}
}

// listed shows a listing the picker asked for last.
func (m *Model) listed(l pickerListMsg) {
	p := m.picker
	if p == nil || l.seq != p.seq {
		return
	}
	if l.err != "" {
		p.err = l.err
		return
	}
	p.dir, p.name, p.up, p.entries, p.err, p.cursor, p.offset = l.dir, l.name, l.up, l.entries, "", 0, 0
}

// listing reads dir, refusing to leave the library root.
func listing(root, dir string) pickerListMsg {
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	var ents []entry
	var err error
	if root == "" {
		ents, err = listDir(os.DirFS(dir), ".")
	} else {
		err = inLibrary(root, dir, func(r *os.Root, rel string) error {
			var err error
			ents, err = listDir(r.FS(), filepath.ToSlash(rel))
			return err
		})
	}
	if err != nil {
		// Name the directory as the user sees it, not by the server's
		// absolute path.
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return pickerListMsg{err: shown(root, dir) + ": " + err.Error()}
	}
	parent := filepath.Dir(dir)
	l := pickerListMsg{dir: dir, name: shown(root, dir), up: parent != dir && within(root, parent) == nil}
	if l.up {
		l.entries = append(l.entries, entry{name: "..", dir: true})
	}
	l.entries = append(l.entries, ents...)
	sort.SliceStable(l.entries, func(i, j int) bool {
		a, b := l.entries[i], l.entries[j]
		if a.name == ".." || b.name == ".." {
			return a.name == ".."
		}
		if a.dir != b.dir {
			return a.dir
		}
		return a.name < b.name
	})
	return l
}

// listDir lists the visible entries of dir in fsys, following links for
// their kind and size. In a library's os.Root FS a link that leads out
// cannot be followed: it is listed as it is, and refused when opened.
func listDir(fsys fs.FS, dir string) ([]entry, error) {
	des, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, err
	}
	var out []entry
	for _, d := range des {
		if strings.HasPrefix(d.Name(), ".") {
			continue
		}
		e := entry{name: d.Name(), dir: d.IsDir()}
		if info, err := fs.Stat(fsys, path.Join(dir, d.Name())); err == nil {
			e.dir, e.size = info.IsDir(), info.Size()
		}
		out = append(out, e)
	}
	return out, nil
}

// shown names a directory for the user (it resolves links: listings call
// it, never a frame): relative to the library when there is one ("/week2/", "/" for the library itself), so that a served
// session never shows the server's absolute paths; as it is otherwise.
func shown(root, dir string) string {
	if root == "" {
		return dir
	}
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	if r, err := filepath.Abs(root); err == nil {
		root = r
	}
	real := dir
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		real = r
	}
	rel, err := filepath.Rel(root, real)
	switch {
	case err == nil && rel == ".":
		return "/"
	case err != nil || !filepath.IsLocal(rel):
		return filepath.Base(dir)
	}
	return "/" + filepath.ToSlash(rel) + "/"
}

func (p *picker) move(d int) {
	p.cursor = max(0, min(p.cursor+d, len(p.entries)-1))
	rows := max(p.height-4, 1)
	if p.cursor < p.offset {
		p.offset = p.cursor
	}
	if p.cursor >= p.offset+rows {
		p.offset = p.cursor - rows + 1
	}
}

// pickerHelp lists the picker's keys in its footer.
const pickerHelp = "↑/↓ move · enter open · ←/backspace up · esc close"

func (m *Model) pickerKey(msg tea.KeyPressMsg) tea.Cmd {
	p := m.picker
	if d, ok := m.keys.List.Move(msg, p.height-5); ok {
		p.move(d)
		return nil
	}
	switch msg.String() {
	case "esc", "q":
		m.picker = nil
	case "left", "h", "backspace":
		if p.up {
			return m.chdir(filepath.Dir(p.dir))
		}
	case "enter", "right", "l":
		if len(p.entries) == 0 {
			return nil
		}
		e := p.entries[p.cursor]
		path := filepath.Join(p.dir, e.name)
		if e.dir {
			return m.chdir(path)
		}
		// The load checks that path is in the library, off Update.
		m.picker = nil
		if isSweepResult(path) && m.tr != nil {
			// Shown by the Sweep tab, beside the loaded trace.
			return m.openResult(path)
		}
		return m.startLoad(path)
	}
	return nil
}

// view draws the picker in w×h cells.
func (p *picker) view(th *themes.Theme, w, h int) string {
	st := th.Styles
	lines := []string{st.Title.Render("Open a trace") + st.Dim.Render("  "+p.name)}
	if p.err != "" {
		lines = append(lines, st.Error.Render(p.err))
	} else {
		lines = append(lines, "")
	}
	rows := max(h-4, 1)
	for i := p.offset; i < len(p.entries) && i < p.offset+rows; i++ {
		e := p.entries[i]
		name := e.name
		info := units.FormatBytes(e.size)
		if e.dir {
			name += "/"
			info = ""
		}
		line := fmt.Sprintf("  %-*s %10s", max(w-16, 10), name, info)
		if i == p.cursor {
			line = st.TableSelected.Render(fitLine(line, w))
		} else if e.dir {
			line = st.Bold.Render(line)
		}
		lines = append(lines, line)
	}
	if len(p.entries) == 0 {
		lines = append(lines, st.Dim.Render("  (empty)"))
	}
	for len(lines) < h-1 {
		lines = append(lines, "")
	}
	lines = append(lines[:max(h-1, 0)], st.Dim.Render(pickerHelp))
	return fit(lines, w, h)
}
