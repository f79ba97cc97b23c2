package tui

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
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
	dir     string
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

// allowed reports whether path may be opened: anywhere without a
// library, else only inside it once symbolic links are resolved.
func (m *Model) allowed(path string) error {
	return within(m.opts.Library, path)
}

// within checks that path lies inside root after resolving links.
func within(root, path string) error {
	if root == "" {
		return nil
	}
	r, err := filepath.EvalSymlinks(root)
	if err != nil {
		return fmt.Errorf("trace library %s: %w", root, err)
	}
	r, err = filepath.Abs(r)
	if err != nil {
		return err
	}
	p := path
	if !filepath.IsAbs(p) {
		p = filepath.Join(r, p)
	}
	p, err = filepath.EvalSymlinks(p)
	if err != nil {
		return fmt.Errorf("%s: %w", filepath.Base(path), errOutside)
	}
	p, err = filepath.Abs(p)
	if err != nil {
		return err
	}
	rel, err := filepath.Rel(r, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return fmt.Errorf("%s: %w", filepath.Base(path), errOutside)
	}
	return nil
}

// openPicker opens the picker in the directory of the loaded file, or in
// the library (the working directory without one).
func (m *Model) openPicker() tea.Cmd {
	root := m.opts.Library
	dir := root
	if m.path != "" && m.allowed(m.path) == nil {
		if _, err := os.Stat(m.path); err == nil {
			dir = filepath.Dir(m.path)
		}
	}
	if dir == "" {
		dir, _ = os.Getwd()
	}
	p := &picker{root: root, height: m.common.Height}
	p.chdir(dir)
	m.picker = p
	return nil
}

// chdir lists dir, refusing to leave the library.
func (p *picker) chdir(dir string) {
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	if err := within(p.root, dir); err != nil {
		p.err = err.Error()
		return
	}
	des, err := os.ReadDir(dir)
	if err != nil {
		// Name the directory as the user sees it, not by the server's
		// absolute path.
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		p.err = p.shown(dir) + ": " + err.Error()
		return
	}
	p.dir, p.err, p.cursor, p.offset = dir, "", 0, 0
	p.entries = p.entries[:0]
	if p.canGoUp() {
		p.entries = append(p.entries, entry{name: "..", dir: true})
	}
	for _, d := range des {
		if strings.HasPrefix(d.Name(), ".") {
			continue
		}
		e := entry{name: d.Name(), dir: d.IsDir()}
		if info, err := os.Stat(filepath.Join(dir, d.Name())); err == nil {
			e.dir = info.IsDir()
			e.size = info.Size()
		}
		p.entries = append(p.entries, e)
	}
	sort.SliceStable(p.entries, func(i, j int) bool {
		a, b := p.entries[i], p.entries[j]
		if a.name == ".." || b.name == ".." {
			return a.name == ".."
		}
		if a.dir != b.dir {
			return a.dir
		}
		return a.name < b.name
	})
}

// shown names a directory for the user: relative to the library when
// there is one ("/week2/", "/" for the library itself), so that a served
// session never shows the server's absolute paths; as it is otherwise.
func (p *picker) shown(dir string) string {
	if p.root == "" {
		return dir
	}
	root := p.root
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

func (p *picker) canGoUp() bool {
	parent := filepath.Dir(p.dir)
	return parent != p.dir && within(p.root, parent) == nil
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
		if p.canGoUp() {
			p.chdir(filepath.Dir(p.dir))
		}
	case "enter", "right", "l":
		if len(p.entries) == 0 {
			return nil
		}
		e := p.entries[p.cursor]
		path := filepath.Join(p.dir, e.name)
		if e.dir {
			p.chdir(path)
			return nil
		}
		if err := m.allowed(path); err != nil {
			p.err = err.Error()
			return nil
		}
		m.picker = nil
		return m.startLoad(path)
	}
	return nil
}

// view draws the picker in w×h cells.
func (p *picker) view(th *themes.Theme, w, h int) string {
	st := th.Styles
	lines := []string{st.Title.Render("Open a trace") + st.Dim.Render("  "+p.shown(p.dir))}
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
