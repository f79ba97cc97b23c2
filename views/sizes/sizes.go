// Package sizes is the message size view: a histogram of point-to-point
// message sizes in log2 bins, by count or by bytes, for every rank or one,
// over the whole run or the window the timeline shows.
package sizes

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/NimbleMarkets/ntcharts/v2/barchart"
	"github.com/NimbleMarkets/ntcharts/v2/canvas"
	"github.com/charmbracelet/x/ansi"

	"github.com/tracesim/tracesim/engine/analysis"
	"github.com/tracesim/tracesim/themes"
	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/tracefmt/units"
	"github.com/tracesim/tracesim/views/cellbuf"
	"github.com/tracesim/tracesim/views/component"
	"github.com/tracesim/tracesim/views/derived"
)

// Model is the sizes view.
type Model struct {
	common component.Common
	keys   KeyMap

	sends *analysis.Sends
	unit  tracefmt.Unit
	timed bool // untimed traces have no times to window by

	rank       int // −1: every rank
	byBytes    bool
	windowed   bool
	start, end float64       // the timeline's window, trace units
	span       *derived.Span // shown times count from its start
	hasWindow  bool

	hist  analysis.Histogram
	stale bool           // hist needs recomputing
	memo  component.Memo // the frame, drawn again when the state changes
}

// New returns a sizes view of tr's point-to-point messages.
func New(c component.Common, tr *tracefmt.Trace) *Model {
	m := &Model{common: c, keys: DefaultKeyMap(), rank: -1}
	m.SetTrace(tr)
	return m
}

// SetTrace replaces the trace the view shows.
func (m *Model) SetTrace(tr *tracefmt.Trace) {
	// Shared with the other sessions through the cache: the view only
	// reads the index.
	d := m.common.Cache()
	m.sends = derived.Sends(d, tr)
	m.unit = tr.Unit
	m.timed = tr.Timed
	m.span = derived.SpanOf(d, tr)
	m.rank = -1
	m.hasWindow = false
	m.stale = true
	m.memo.Invalidate()
}

// SetWindow gives the view the timeline's visible window (trace units);
// it is used when the view is in window mode.
func (m *Model) SetWindow(start, end float64) {
	if m.hasWindow && start == m.start && end == m.end {
		return
	}
	m.start, m.end, m.hasWindow = start, end, true
	if m.windowed {
		m.stale = true
		m.memo.Invalidate()
	}
}

// Init implements component.Model.
func (m *Model) Init() tea.Cmd { return nil }

// SetSize implements component.Model.
func (m *Model) SetSize(width, height int) {
	m.common.SetSize(width, height)
	m.memo.Invalidate()
}

// ShortHelp implements help.KeyMap.
func (m *Model) ShortHelp() []key.Binding { return m.keys.ShortHelp() }

// FullHelp implements help.KeyMap.
func (m *Model) FullHelp() [][]key.Binding { return m.keys.FullHelp() }

// Rank returns the rank shown, or −1 for every rank.
func (m *Model) Rank() int { return m.rank }

// Histogram returns the histogram shown.
func (m *Model) Histogram() analysis.Histogram {
	m.refresh()
	return m.hist
}

// Update implements component.Model.
func (m *Model) Update(msg tea.Msg) (component.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		n := m.sends.Ranks()
		switch {
		case key.Matches(msg, m.keys.PrevRank):
			// −1 (all) sits between the last rank and rank 0.
			m.rank--
			if m.rank < -1 {
				m.rank = n - 1
			}
		case key.Matches(msg, m.keys.NextRank):
			m.rank++
			if m.rank >= n {
				m.rank = -1
			}
		case key.Matches(msg, m.keys.AllRanks):
			if m.rank == -1 {
				return m, nil
			}
			m.rank = -1
		case key.Matches(msg, m.keys.Mode):
			m.byBytes = !m.byBytes
			m.memo.Invalidate()
			return m, nil
		case key.Matches(msg, m.keys.Window):
			m.windowed = !m.windowed
		default:
			return m, nil
		}
		m.stale = true
		m.memo.Invalidate()
	case component.ThemeMsg:
		m.memo.Invalidate()
	}
	return m, nil
}

func (m *Model) refresh() {
	if !m.stale {
		return
	}
	w := analysis.All()
	if m.windowed && m.hasWindow && m.timed {
		w = analysis.Window{Start: m.start, End: m.end}
	}
	var ranks []int // every rank
	if m.rank >= 0 {
		ranks = []int{m.rank}
	}
	m.hist = m.sends.Histogram(ranks, w)
	m.stale = false
}

// Renders returns how many times the view has been drawn (not served from
// its cache).
func (m *Model) Renders() int { return m.memo.Renders() }

// View implements component.Model.
func (m *Model) View() string {
	return m.memo.View(m.common, func(w, h int) string {
		m.refresh()
		return component.Fit(m.render(w, h), w, h)
	})
}

func (m *Model) render(w, h int) []string {
	th := m.common.Theme
	st := th.Styles
	who := "all ranks"
	if m.rank >= 0 {
		who = fmt.Sprintf("sent by rank %d", m.rank)
	}
	when := "whole run"
	if m.windowed {
		switch {
		case !m.timed:
			when = "whole run (untimed trace: no window)"
		case m.hasWindow:
			when = fmt.Sprintf("window %s–%s", units.FormatDuration((m.start-m.span.Start)*m.unit.Seconds()), units.FormatDuration((m.end-m.span.Start)*m.unit.Seconds()))
		default:
			when = "window (none yet: whole run)"
		}
	}
	what := "messages"
	if m.byBytes {
		what = "bytes"
	}
	lines := []string{st.Title.Render("Message sizes") + st.Dim.Render(" · "+who+" · "+when+" · by "+what)}

	count, bytes := m.hist.Total()
	if count == 0 {
		lines = append(lines, "", st.Dim.Render("No point-to-point messages here."))
		if n := m.sends.Collectives; n > 0 {
			lines = append(lines, st.Dim.Render(fmt.Sprintf("The trace has %d collective calls; they are not expanded into messages.", n)))
		}
		return lines
	}
	lo, hi := analysis.NumBins, -1
	var top int64
	for k := 0; k < analysis.NumBins; k++ {
		if m.hist.Count[k] == 0 {
			continue
		}
		lo, hi = min(lo, k), max(hi, k)
		top = max(top, m.val(k))
	}
	rows := max(h-3, 1)
	more := 0
	if hi-lo+1 > rows {
		more = hi - lo + 1 - rows
		hi = lo + rows - 1
	}
	labelW := 0
	for k := lo; k <= hi; k++ {
		labelW = max(labelW, ansi.StringWidth(analysis.BinLabel(k)))
	}
	total := count
	if m.byBytes {
		total = bytes
	}
	const valW = 18
	barW := max(w-labelW-valW-3, 1)
	vals := make([]int64, hi-lo+1)
	for k := lo; k <= hi; k++ {
		vals[k-lo] = m.val(k)
	}
	bars := histBars(vals, top, barW, th)
	for k := lo; k <= hi; k++ {
		v := m.val(k)
		val := fmt.Sprintf("%d", v)
		if m.byBytes {
			val = units.FormatBytes(v)
		}
		val = fmt.Sprintf("%s %7s", val, units.FormatPercent(float64(v)/float64(total), 1))
		lines = append(lines, fmt.Sprintf("%*s ", labelW, analysis.BinLabel(k))+
			bars[k-lo]+
			fmt.Sprintf(" %*s", valW, val))
	}
	if more > 0 {
		lines = append(lines, st.Dim.Render(fmt.Sprintf("… %d more bins", more)))
	}
	lines = append(lines, "", st.Dim.Render(fmt.Sprintf("%d messages, %s, mean %s",
		count, units.FormatBytes(bytes), units.FormatBytes(bytes/count))))
	return lines
}

func (m *Model) val(k int) int64 {
	if m.byBytes {
		return m.hist.Bytes[k]
	}
	return m.hist.Count[k]
}

// barStyle is the style of the histogram's bars.
func barStyle(th *themes.Theme) cellbuf.Style {
	st := cellbuf.Style{Fg: cellbuf.FromColor(th.Accent), Attrs: cellbuf.Bold}
	if !th.Mono && len(th.Series) > 0 {
		st.Fg = cellbuf.FromColor(th.Series[0])
	}
	return st
}

// histBars draws the histogram's bars, one row per bin and each barW
// cells at most (the largest, top, fills it), with ntcharts' barchart:
// horizontal bars without its axis, one row per bin, eighths of a cell at
// their ends. Its cells are copied into a cell buffer, which renders a
// row with one SGR sequence per run (ntcharts' own View writes one per
// cell) in the theme's colours. The view is drawn again only when it
// changes (a key, a new window, a resize), and the drawing fits the
// frame budget: 0.9–7.0 ms of CPU from 45×18 to 265×41 bars, 27–50 times
// cellbuf's HBar rows for the same cells (BenchmarkHistogram, the table
// in docs/tui.md). A chart kept from one drawing to the next saves
// nothing measurable: its canvas is allocated again by every Draw.
func histBars(vals []int64, top int64, barW int, th *themes.Theme) []string {
	rows := len(vals)
	bc := barchart.New(barW, rows,
		barchart.WithHorizontalBars(), barchart.WithNoAxis(),
		barchart.WithNoAutoBarWidth(), barchart.WithBarWidth(1), barchart.WithBarGap(0),
		barchart.WithNoAutoMaxValue(), barchart.WithMaxValue(float64(max(top, 1))))
	for _, v := range vals {
		bc.Push(barchart.BarData{Values: []barchart.BarValue{{Value: float64(v)}}})
	}
	bc.Draw()
	st := barStyle(th)
	buf := cellbuf.New(barW, rows)
	buf.Mode = cellbuf.ModeOf(th)
	for y, v := range vals {
		for x := range barW {
			if r := bc.Canvas.Cell(canvas.Point{X: x, Y: y}).Rune; r != 0 {
				buf.Set(x, y, r, st)
			}
		}
		if v > 0 && bc.Canvas.Cell(canvas.Point{X: 0, Y: y}).Rune == 0 {
			// Under an eighth of a cell ntcharts draws nothing; a bin
			// with messages must not look empty.
			buf.Set(0, y, '▏', st)
		}
	}
	return strings.Split(buf.Render(), "\n")
}
