package component

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// Wrap breaks s into lines of at most w cells at spaces (spaces inside a
// line kept, so that fields set apart by two stay so), cutting a word longer than a line (a path); at most n
// lines (n ≤ 0: as many as it takes), the last ending in "…" when text is
// left over. Widths are terminal cells (ansi.Wrap), not runes, so wide
// characters and escape sequences wrap right.
func Wrap(s string, w, n int) []string {
	s = strings.TrimSpace(s)
	if s == "" || w <= 0 {
		return nil
	}
	// ansi.Wrap always breaks after a hyphen, which would strand the
	// sign of "-63.17 µs" (and split "MPI_Comm-dup" names): hyphens wrap
	// as non-breaking ones and come back after.
	protect := !strings.ContainsRune(s, nbHyphen)
	if protect {
		s = strings.ReplaceAll(s, "-", string(nbHyphen))
	}
	lines := strings.Split(ansi.Wrap(s, w, ""), "\n")
	for i := 0; i < len(lines); i++ {
		l := strings.Trim(lines[i], " ")
		if protect {
			l = strings.ReplaceAll(l, string(nbHyphen), "-")
		}
		lines[i] = l
		if ansi.StringWidth(l) <= w {
			continue
		}
		// ansi.Wrap can leave a line past the width: one of two styled
		// (strikethrough) spaces at a break, or a word and a "-" after a
		// space. Blanks past the width draw nothing and are cut; other
		// cells go on the next lines, hard-wrapped, so nothing is lost.
		cut := ansi.Truncate(l, w, "")
		if strings.TrimRight(ansi.Strip(l), " ") == strings.TrimRight(ansi.Strip(cut), " ") {
			lines[i] = cut
			continue
		}
		hard := strings.Split(ansi.Hardwrap(l, w, false), "\n")
		lines = append(lines[:i], append(hard, lines[i+1:]...)...)
		i += len(hard) - 1
	}
	if n > 0 && len(lines) > n {
		rest := strings.Join(lines[n-1:], " ")
		lines = append(lines[:n-1], ansi.Truncate(rest, w, "…"))
	}
	return lines
}

// nbHyphen is U+2011, a hyphen no line breaks after, one cell wide.
const nbHyphen = '\u2011'
