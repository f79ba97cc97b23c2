package causality

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/tracesim/tracesim/engine/causality"
	"github.com/tracesim/tracesim/themes"
	"github.com/tracesim/tracesim/tracefmt/units"
	"github.com/tracesim/tracesim/views/component"
)

// View implements component.Model. The frame is cached until something
// it shows changes.
func (m *Model) View() string {
	return m.memo.View(m.common, func(w, h int) string { return component.Fit(m.render(w, h), w, h) })
}

// frame is the vertical layout of a frame.
type frame struct {
	head    []string // title, counts, correction
	rows    int      // list rows under the header
	details int      // lines of the details pane (a rule included when > 2)
}

// layout splits h lines between the head, the list and the details; the
// last line holds the keys or the status.
func (m *Model) layout(w, h int) frame {
	var f frame
	f.head = m.head(w)
	switch {
	case h >= 20:
		f.details = 5
	case h >= 14:
		f.details = 3
	default:
		f.details = 1
	}
	// The head gives way to the list on short screens: the title and
	// the summary stay.
	for len(f.head) > 2 && h-len(f.head)-f.details-2 < 3 {
		f.head = f.head[:len(f.head)-1]
	}
	f.rows = max(h-len(f.head)-f.details-2, 1)
	return f
}

// listRows returns the number of findings a page of the list shows.
func (m *Model) listRows() int { return m.layout(m.common.Width, m.common.Height).rows }

// head returns the lines above the list: title, summary, counts by
// class and the correction.
func (m *Model) head(w int) []string {
	st := m.style()
	tr := m.tr
	var lines []string
	if tr == nil {
		return []string{st.Title.Render("Causality"), st.Dim.Render("no trace loaded")}
	}
	title := st.Title.Render("Causality")
	lmin := "l_min " + units.FormatDuration(m.opts.LMin)
	switch {
	case m.rep != nil:
		r := m.rep
		// l_min first: it is the setting (l), and the line is cut at 80.
		s := fmt.Sprintf(" · %s · %d ranks · %d events · %d messages · %d collective calls", lmin, len(tr.Ranks), r.Events, r.Messages, r.Collectives)
		switch {
		case r.ReplayError != "":
			s += " · replay: " + r.ReplayError
		case r.Replayed && r.Deadlock != nil:
			s += " · replay: deadlock"
		case r.Replayed:
			s += " · replay ran to the end"
		default:
			s += " · not replayed"
		}
		lines = append(lines, title+st.Dim.Render(s))
	default:
		lines = append(lines, title+st.Dim.Render(fmt.Sprintf(" · %s · %d ranks · %d events", lmin, len(tr.Ranks), tr.NumEvents())))
	}
	switch {
	case m.Checking():
		lines = append(lines, st.Warn.Render(fmt.Sprintf("checking %d events… (esc cancels)", tr.NumEvents())))
		return lines
	case m.checkErr != nil:
		lines = append(lines, st.Error.Render("check stopped: "+m.checkErr.Error()+" (R checks again)"))
		return lines
	case m.rep == nil:
		lines = append(lines, st.Dim.Render("not checked yet"))
		return lines
	}
	r := m.rep
	v := r.Violations()
	clock := r.ClockViolations()
	sum := fmt.Sprintf("%d violations (%d clock, %d defects), %d notes", v, clock, v-clock, r.Total()-v)
	if !r.Timed {
		sum += " · untimed trace: no clock checks"
	}
	sum += " · checked in " + m.elapsed.Round(time.Millisecond).String()
	switch {
	case r.Total() == 0:
		lines = append(lines, st.Bold.Render("no findings: the timestamps respect causality"))
	case v == 0:
		lines = append(lines, st.Bold.Render(sum))
	default:
		lines = append(lines, st.Error.Render(sum))
	}
	// One line a class that has findings: its kinds with their counts
	// and, for clock kinds, the largest amount.
	for c := causality.ClassClock; c <= causality.ClassNote; c++ {
		var parts []string
		for k := causality.Kind(0); k < causality.NumKinds; k++ {
			if k.Class() != c || r.Counts[k] == 0 {
				continue
			}
			p := fmt.Sprintf("%s %d", k, r.Counts[k])
			if c == causality.ClassClock {
				p += " (max " + units.FormatDuration(m.largest[k]) + ")"
			}
			parts = append(parts, p)
		}
		if len(parts) > 0 {
			lines = append(lines, st.Bold.Render(fmt.Sprintf("%-7s", c.String()+":"))+" "+strings.Join(parts, st.Dim.Render(" · ")))
		}
	}
	lines = append(lines, m.correction()...)
	return lines
}

// correction describes the correction: running, failed, done (two
// lines), or how to start it.
func (m *Model) correction() []string {
	st := m.style()
	switch {
	case m.Correcting():
		return []string{st.Warn.Render("correcting the timestamps… (esc cancels)")}
	case m.corrErr != nil:
		return []string{st.Error.Render("correction failed: " + m.corrErr.Error())}
	case m.corr == nil:
		if m.rep.ClockViolations() == 0 {
			return []string{st.Dim.Render("no clock violations to correct")}
		}
		return []string{st.Dim.Render("press c to correct the timestamps · l sets l_min, the least latency they keep")}
	}
	c := m.corr
	var b strings.Builder
	fmt.Fprintf(&b, "corrected (%s): %d → %d clock violations", c.Method, c.ViolationsBefore(), c.ViolationsAfter())
	switch {
	case c.Offsets != nil:
		b.WriteString(" · offsets applied")
	case len(c.NegativeCycle) > 0:
		b.WriteString(" · no constant offsets (clocks drift)")
	}
	if c.Passes == 0 {
		b.WriteString(" · CLC not needed")
	} else {
		fmt.Fprintf(&b, " · CLC %d pass(es), %d moved", c.Passes, c.Jumps)
	}
	if len(c.Broken) > 0 {
		fmt.Fprintf(&b, " · %d edges in causal cycles", len(c.Broken))
	}
	s := st.Bold
	if c.ViolationsAfter() > 0 {
		s = st.Warn
	}
	second := fmt.Sprintf("largest shift %s at %d:%d · the Timeline shows them (a toggles)",
		units.FormatDuration(c.MaxShift), c.MaxShiftAt.Rank, c.MaxShiftAt.Index)
	return []string{s.Render(b.String()), st.Dim.Render(second)}
}

// style returns the theme's styles (monochrome when there is no theme).
func (m *Model) style() *themes.Styles {
	th := m.common.Theme
	if th == nil {
		th = themes.Mono()
	}
	return &th.Styles
}

// columns are the list's column widths; 0 hides a column.
type columns struct {
	kind, events, times, amount, detail int
}

// render draws the frame as lines (fit pads and cuts them).
func (m *Model) render(w, h int) []string {
	st := m.style()
	f := m.layout(w, h)
	lines := append([]string(nil), f.head...)
	n := m.Len()
	m.cur = min(m.cur, max(n-1, 0))
	// Scroll so that the selection shows.
	if m.cur < m.top {
		m.top = m.cur
	}
	if m.cur >= m.top+f.rows {
		m.top = m.cur - f.rows + 1
	}
	m.top = min(max(m.top, 0), max(n-f.rows, 0))

	cols := m.columns(w, f.rows)
	lines = append(lines, st.TableHeader.Render(m.header(cols, w)))
	for i := range f.rows {
		k := m.top + i
		if k >= n {
			if k == 0 && m.rep != nil {
				lines = append(lines, st.Dim.Render("  (no findings)"))
				continue
			}
			lines = append(lines, "")
			continue
		}
		row := m.row(m.at(k), cols, k == m.cur)
		if k == m.cur {
			row = st.TableSelected.Render(pad(row, w))
		}
		lines = append(lines, row)
	}
	lines = append(lines, m.details(w, f.details)...)
	lines = append(lines, m.footer(w))
	return lines
}

// columns chooses the list's columns for width w, measuring the rows
// shown.
func (m *Model) columns(w, rows int) columns {
	c := columns{kind: len("KIND"), events: len("EVENTS")}
	times := len("TIMES")
	for i := m.top; i < min(m.top+rows, m.Len()); i++ {
		f := m.at(i)
		c.kind = max(c.kind, len(f.Kind.String()))
		c.events = max(c.events, ansi.StringWidth(eventsText(f)))
		times = max(times, ansi.StringWidth(m.timesText(f)))
	}
	used := 2 + c.kind + 2 + c.events
	if used+12 <= w {
		c.amount = 10
		used += 12
	}
	if used+times+2 <= w && m.rep != nil && m.rep.Timed {
		c.times = times
		used += times + 2
	}
	if w-used >= 12 {
		c.detail = w - used
	}
	return c
}

// header returns the list header, marking the sorted column.
func (m *Model) header(c columns, w int) string {
	mark := " ▼"
	if m.rev {
		mark = " ▲"
	}
	name := func(s string, k SortKey) string {
		if m.sort == k {
			return s + mark
		}
		return s
	}
	var b strings.Builder
	b.WriteString("  " + padTo(name("KIND", ByKind), c.kind) + "  " + padTo(name("EVENTS", ByRank), c.events))
	if c.times > 0 {
		b.WriteString("  " + padTo("TIMES", c.times))
	}
	if c.amount > 0 {
		b.WriteString("  " + padLeft(name("AMOUNT", ByAmount), c.amount))
	}
	if c.detail > 0 {
		b.WriteString("  DETAIL")
	}
	return pad(b.String(), w)
}

// row returns the list row of finding f.
func (m *Model) row(f *causality.Finding, c columns, selected bool) string {
	st := m.style()
	mark := "  "
	if selected {
		mark = "> "
	}
	kind := padTo(f.Kind.String(), c.kind)
	if !selected {
		switch f.Kind.Class() {
		case causality.ClassClock:
			kind = st.Error.Render(kind)
		case causality.ClassDefect:
			kind = st.Warn.Render(kind)
		default:
			kind = st.Dim.Render(kind)
		}
	}
	var b strings.Builder
	b.WriteString(mark + kind + "  " + padTo(eventsText(f), c.events))
	if c.times > 0 {
		b.WriteString("  " + padTo(m.timesText(f), c.times))
	}
	if c.amount > 0 {
		b.WriteString("  " + padLeft(amountText(f), c.amount))
	}
	if c.detail > 0 {
		b.WriteString("  " + ansi.Truncate(m.rep.Detail(f), c.detail, "…"))
	}
	return b.String()
}

// details returns the details pane of the selected finding in n lines.
func (m *Model) details(w, n int) []string {
	st := m.style()
	out := make([]string, 0, n)
	f, ok := m.Selected()
	if n > 2 {
		rule := "── details "
		if ok {
			rule = fmt.Sprintf("── finding %d of %d ", m.cur+1, m.Len())
		}
		out = append(out, st.Dim.Render(rule+strings.Repeat("─", max(w-ansi.StringWidth(rule), 0))))
		n--
	}
	if !ok {
		return append(out, make([]string, cap(out)-len(out))...)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%s): %s.", f.Kind, f.Kind.Class(), m.rep.Detail(&f))
	if f.Kind == causality.KindDeadlock && m.rep.Deadlock != nil {
		b.WriteString(" " + m.rep.Deadlock.Message)
	}
	b.WriteString(" " + m.eventsPhrase(&f))
	if a := amountText(&f); a != "" {
		switch f.Kind.Class() {
		case causality.ClassClock:
			b.WriteString(" Off by " + a + ".")
		default:
			b.WriteString(" Amount " + a + ".")
		}
	}
	b.WriteString(" Enter shows it in the Timeline.")
	for _, l := range component.Wrap(b.String(), w, n) {
		out = append(out, st.Selected.Render(l))
	}
	for len(out) < cap(out) {
		out = append(out, "")
	}
	return out
}

// eventsPhrase names the finding's events and their times, in the order
// the clock condition wants them, and says which way the message went.
func (m *Model) eventsPhrase(f *causality.Finding) string {
	names := [2]string{"event", "event"}
	switch f.Kind {
	case causality.KindReversal, causality.KindLatency, causality.KindSizeMismatch, causality.KindTagMismatch:
		names = [2]string{"send", "receive"}
	case causality.KindCollective:
		names = [2]string{"latest enter", "exit"}
	case causality.KindBackwards:
		names = [2]string{"earlier", "later"}
	}
	var parts []string
	for i, e := range f.Events {
		if e.Rank < 0 {
			continue
		}
		s := fmt.Sprintf("%s %d:%d", names[i], e.Rank, e.Index)
		if m.rep.Timed {
			s += " at " + m.fmtTime(f.Times[i])
		}
		parts = append(parts, s)
	}
	s := strings.Join(parts, ", ") + "."
	if m.rep.Timed && f.Events[1].Rank >= 0 && f.Kind.Class() == causality.ClassClock {
		d := f.Times[1] - f.Times[0]
		switch {
		case f.Kind == causality.KindReversal:
			s += " The receive is stamped " + units.FormatDuration(-d) + " before the send (latency " + signed(d) + ")."
		case d < 0:
			s += " The " + names[1] + " is stamped " + units.FormatDuration(-d) + " before the " + names[0] + "."
		}
	}
	return s
}

// footer returns the last line: the status, else as many keys as fit.
func (m *Model) footer(w int) string {
	st := m.style()
	if m.status != "" {
		return st.Warn.Render(m.status)
	}
	var b strings.Builder
	at := 0
	for i, k := range []struct{ k, d string }{
		{"↑↓", "select"}, {"enter", "timeline"}, {"s", "sort (" + m.sort.String() + ")"}, {"r", "reverse"},
		{"c", "correct"}, {"l", "l_min"}, {"R", "check again"},
	} {
		sep := ""
		if i > 0 {
			sep = " · "
		}
		n := ansi.StringWidth(sep + k.k + " " + k.d)
		if at+n > w {
			break
		}
		at += n
		b.WriteString(st.HelpSep.Render(sep) + st.HelpKey.Render(k.k) + " " + st.HelpDesc.Render(k.d))
	}
	return b.String()
}

// fmtTime formats a time in seconds from the start of the run, as the
// Timeline does.
func (m *Model) fmtTime(sec float64) string {
	return units.FormatDuration(sec - m.startSec)
}

// timesText returns the finding's times.
func (m *Model) timesText(f *causality.Finding) string {
	if f.Events[0].Rank < 0 {
		return ""
	}
	s := m.fmtTime(f.Times[0])
	if f.Events[1].Rank >= 0 {
		s += " → " + m.fmtTime(f.Times[1])
	}
	return s
}

// eventsText returns the finding's events as rank:index.
func eventsText(f *causality.Finding) string {
	var parts []string
	for _, e := range f.Events {
		if e.Rank >= 0 {
			parts = append(parts, strconv.Itoa(int(e.Rank))+":"+strconv.Itoa(int(e.Index)))
		}
	}
	return strings.Join(parts, " → ")
}

// amountText formats the finding's amount in its unit; "" when the kind
// has none.
func amountText(f *causality.Finding) string {
	switch f.Kind.AmountUnit() {
	case "s":
		return units.FormatDuration(f.Amount)
	case "B":
		return fmt.Sprintf("%+d B", int64(f.Amount))
	}
	return ""
}

// signed formats seconds with their sign.
func signed(d float64) string {
	if d < 0 {
		return "-" + units.FormatDuration(-d)
	}
	return "+" + units.FormatDuration(d)
}

// padTo pads or cuts s to w cells.
func padTo(s string, w int) string {
	if ansi.StringWidth(s) > w {
		return ansi.Truncate(s, w, "…")
	}
	return s + strings.Repeat(" ", w-ansi.StringWidth(s))
}

// padLeft right-aligns s in w cells.
func padLeft(s string, w int) string {
	if ansi.StringWidth(s) >= w {
		return s
	}
	return strings.Repeat(" ", w-ansi.StringWidth(s)) + s
}

// pad pads s with spaces to w cells.
func pad(s string, w int) string {
	return s + strings.Repeat(" ", max(0, w-ansi.StringWidth(s)))
}
