package termwriter

import (
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// vt is a small virtual terminal for the tests: enough of xterm to show
// what the writer's bytes draw. Each cell holds its text (a wide rune's
// second cell holds "") and the SGR parameters in force when it was
// written. Like xterm, printing in the last column leaves the cursor
// there with a pending wrap, and erasing to the end of the line from that
// state erases the last cell too.
type vt struct {
	w, h    int
	cells   [][]cell
	x, y    int
	wrap    bool // a pending wrap: the next printable goes to the next line
	sgr     string
	modes   map[string]bool // private modes set (by number)
	title   string
	scrolls int // lines scrolled off the top
}

type cell struct{ text, sgr string }

func newVT(w, h int) *vt {
	t := &vt{w: w, h: h, modes: map[string]bool{}}
	t.resize(w, h)
	return t
}

// resize changes the screen's size, keeping what fits (a terminal that
// does not reflow).
func (t *vt) resize(w, h int) {
	cells := make([][]cell, h)
	for y := range cells {
		cells[y] = make([]cell, w)
		for x := range cells[y] {
			cells[y][x].text = " "
			if y < len(t.cells) && x < len(t.cells[y]) {
				cells[y][x] = t.cells[y][x]
			}
		}
	}
	t.w, t.h, t.cells = w, h, cells
	t.x, t.y = min(t.x, w-1), min(t.y, h-1)
}

// Write interprets b.
func (t *vt) Write(b []byte) (int, error) {
	s := string(b)
	for len(s) > 0 {
		seq, width, n, _ := ansi.DecodeSequence(s, 0, nil)
		switch {
		case seq == "\r":
			t.x, t.wrap = 0, false
		case seq == "\n":
			t.lineFeed()
		case strings.HasPrefix(seq, "\x1b["):
			t.csi(seq[2:])
		case strings.HasPrefix(seq, "\x1b]"):
			if v, ok := strings.CutPrefix(strings.TrimRight(strings.TrimSuffix(seq[2:], "\x1b\\"), "\a"), "2;"); ok {
				t.title = v
			}
		case seq[0] >= 0x20 && seq[0] != 0x7f:
			t.print(seq, width)
		}
		s = s[n:]
	}
	return len(b), nil
}

func (t *vt) lineFeed() {
	t.wrap = false
	if t.y < t.h-1 {
		t.y++
		return
	}
	t.scrolls++
	copy(t.cells, t.cells[1:])
	t.cells[t.h-1] = make([]cell, t.w)
	for x := range t.cells[t.h-1] {
		t.cells[t.h-1][x].text = " "
	}
}

func (t *vt) print(g string, width int) {
	if width == 0 {
		return
	}
	if t.wrap || t.x+width > t.w {
		t.x = 0
		t.lineFeed()
	}
	t.cells[t.y][t.x] = cell{g, t.sgr}
	if width == 2 {
		t.cells[t.y][t.x+1] = cell{"", t.sgr}
	}
	t.x += width
	if t.x >= t.w {
		t.x, t.wrap = t.w-1, true
	}
}

func (t *vt) csi(body string) {
	final := body[len(body)-1]
	params := body[:len(body)-1]
	num := func(i, def int) int {
		f := strings.Split(strings.TrimLeft(params, "?"), ";")
		if i >= len(f) || f[i] == "" {
			return def
		}
		n, err := strconv.Atoi(f[i])
		if err != nil {
			return def
		}
		return n
	}
	erase := func(y, from, to int) {
		for x := from; x < to; x++ {
			t.cells[y][x] = cell{" ", t.sgr} // the current background, as xterm erases
		}
	}
	switch final {
	case 'H':
		t.y, t.x = min(num(0, 1), t.h)-1, min(num(1, 1), t.w)-1
		t.wrap = false
	case 'J':
		if num(0, 0) == 2 {
			for y := range t.h {
				erase(y, 0, t.w)
			}
		}
	case 'K':
		switch num(0, 0) {
		case 0:
			erase(t.y, t.x, t.w)
		case 2:
			erase(t.y, 0, t.w)
		}
		t.wrap = false
	case 'm':
		if params == "" || params == "0" {
			t.sgr = ""
		} else {
			t.sgr += params + ";"
		}
	case 'h', 'l':
		if strings.HasPrefix(params, "?") {
			for _, m := range strings.Split(params[1:], ";") {
				t.modes[m] = final == 'h'
			}
		}
	}
}

// text returns the screen's rows as text, trailing spaces removed.
func (t *vt) text() []string {
	out := make([]string, t.h)
	for y, row := range t.cells {
		var b strings.Builder
		for _, c := range row {
			b.WriteString(c.text)
		}
		out[y] = strings.TrimRight(b.String(), " ")
	}
	return out
}

// sameCells returns the first cell at which t and u differ (text or
// style), or ok.
func (t *vt) sameCells(u *vt) (x, y int, ok bool) {
	if t.w != u.w || t.h != u.h {
		return -1, -1, false
	}
	for y := range t.cells {
		for x := range t.cells[y] {
			if t.cells[y][x] != u.cells[y][x] {
				return x, y, false
			}
		}
	}
	return 0, 0, true
}
