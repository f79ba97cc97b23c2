package simulate

import (
	"fmt"
	"math"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/tracesim/tracesim/engine/replay"
	"github.com/tracesim/tracesim/engine/runner"
	"github.com/tracesim/tracesim/tracefmt/units"
	"github.com/tracesim/tracesim/views/cellbuf"
	"github.com/tracesim/tracesim/views/component"
)

// Renders is how many frames were drawn (not served from the cache), for
// tests.
func (m *Model) Renders() int { return m.memo.Renders() }

// View implements component.Model. The frame is drawn into a cell buffer
// (one SGR sequence per run of cells) and cached until something changes:
// View runs after every message, and snapshots arrive 30 times a second.
func (m *Model) View() string { return m.memo.View(m.common, m.render) }

func (m *Model) render(w, h int) string {
	if m.buf.Width() != w || m.buf.Height() != h {
		m.buf.Resize(w, h)
	} else {
		m.buf.Clear(cellbuf.Style{})
	}
	switch {
	case m.plain:
		m.buf.Mode = cellbuf.ModePlain
	case m.common.Theme.Mono:
		m.buf.Mode = cellbuf.ModeNoColor
	default:
		m.buf.Mode = cellbuf.ModeColor
	}
	m.bar.w = 0
	if w > 0 && h > 0 {
		p := newPainter(&m.buf, m.common.Theme, m.plain)
		m.draw(p, w, h)
	}
	return m.withBar(m.buf.Render())
}

// runBar is where drawProgress left room for the run's progress bar:
// its width on row 1 (0: none) and the fraction done.
type runBar struct {
	w int
	f float64
}

// withBar puts the run's progress bar, a bubbles progress, into the
// room drawProgress left on row 1 of the rendered frame (the bar draws
// itself with lipgloss, not into the cell buffer).
func (m *Model) withBar(frame string) string {
	if m.bar.w <= 0 {
		return frame
	}
	first := strings.IndexByte(frame, '\n')
	if first < 0 {
		return frame
	}
	row := frame[first+1:]
	rest := ""
	if end := strings.IndexByte(row, '\n'); end >= 0 {
		row, rest = row[:end], row[end:]
	}
	th := m.common.Theme
	bar := component.ProgressBar(m.bar.w, m.bar.f, th.OK, th.Muted, m.buf.Mode == cellbuf.ModeColor)
	return frame[:first+1] + bar + ansi.TruncateLeft(row, m.bar.w, "") + rest
}

func (m *Model) draw(p *painter, w, h int) {
	y := 0
	m.drawHeader(p, 0, w)
	y++
	if h > 1 {
		m.drawProgress(p, 1, w)
		y++
	}
	if m.prompting && y < h {
		n := p.text(0, y, w, m.prompt.Prompt, p.title)
		// The cursor where the text input has it (←, →, home, end move
		// it), not always after the text.
		v, at := []rune(m.prompt.Value()), m.prompt.Position()
		at = min(max(at, 0), len(v))
		p.text(n, y, w-n, string(v[:at])+"▏"+string(v[at:])+"  (enter runs, esc cancels)", p.norm)
		y++
	}
	for _, l := range m.banner(w) {
		if y >= h-1 {
			break
		}
		p.text(0, y, w, l.text, l.st)
		y++
	}
	if y >= h {
		return
	}
	switch m.pane {
	case PaneLive:
		m.drawLive(p, 0, y, w, h-y)
	case PaneResults:
		m.drawResults(p, 0, y, w, h-y)
	case PaneHistory:
		m.drawHistory(p, 0, y, w, h-y)
	}
}

func (m *Model) drawHeader(p *painter, y, w int) {
	st := p.title
	icon := map[Status]string{Idle: "■", Running: "▶", Paused: "‖", Finished: "✓", Failed: "✗"}[m.status]
	x := p.text(0, y, w, icon+" "+m.status.String(), st)
	t, evs := m.clock.Seconds(), ""
	if m.status == Running && m.evRate > 0 {
		evs = " · " + units.FormatCount(m.evRate) + " ev/s"
	}
	speed := "max"
	if r := rate(m.speed); r > 0 {
		speed = units.FormatDuration(r) + "/s"
	}
	x += p.text(x, y, w-x, fmt.Sprintf("  sim %s%s · speed %s · Δt %s", units.FormatDuration(t), evs, speed, units.FormatDuration(m.dt.Seconds())), p.norm)
	cfg := "  " + m.cfgName + ": " + Describe(&m.cfg)
	// (eng.cfg never changes once the engine exists; its Runner belongs to
	// the slice in flight, so the snapshot tells whether the run began.)
	if m.eng != nil && m.snap != nil && m.status != Finished && m.status != Failed && !sameConfig(&m.eng.cfg, &m.cfg) {
		cfg += " (next run; R applies)"
	}
	tag := "[" + []string{"live", "results", "history"}[m.pane] + "]"
	if w-x > 60 {
		// The pane's name at the right; the configuration gives way.
		p.text(w-len(tag), y, len(tag), tag, p.dim)
		p.text(x, y, w-x-len(tag)-1, cfg, p.dim)
		return
	}
	p.text(x, y, w-x, cfg, p.dim)
}

func sameConfig(a, b *replay.Config) bool {
	av, bv := a.Values(), b.Values()
	if len(av) != len(bv) {
		return false
	}
	for i := range av {
		if av[i] != bv[i] {
			return false
		}
	}
	return true
}

func (m *Model) drawProgress(p *painter, y, w int) {
	var done, total uint64
	msgs, inflight, flying := uint64(0), 0, int64(0)
	if m.snap != nil {
		done, total = m.snap.TraceEvents, m.snap.TotalTraceEvents
		msgs, inflight, flying = m.snap.Messages, m.snap.InFlight, m.snap.Net.BytesInFlight
	} else if m.tr != nil {
		total = uint64(m.tr.NumEvents())
	}
	f := 0.0
	if total > 0 {
		f = float64(done) / float64(total)
	}
	if m.status == Finished {
		f = 1
	}
	tail := fmt.Sprintf(" %5s %d/%d events · %d msgs, %d in flight (%s)", units.FormatPercent(f, 0), done, total, msgs, inflight, units.FormatBytes(flying))
	bw := min(max(w-len([]rune(tail)), 0), max(w/2, 10))
	m.bar = runBar{w: bw, f: f} // drawn by withBar
	p.text(bw, y, w-bw, tail, p.norm)
}

type line struct {
	text string
	st   cellbuf.Style
}

// banner explains a deadlock, a failure or a saturated network, in at
// most three lines.
func (m *Model) banner(w int) []line {
	var s string
	st := p0(m).errSt
	switch {
	case m.err != "":
		s = "ERROR: " + m.err
	case m.snap != nil && m.snap.Deadlock != nil:
		s = "DEADLOCK: " + m.snap.Deadlock.Message
	default:
		s = m.saturation()
		st = p0(m).warnSt
	}
	if s == "" {
		return nil
	}
	var out []line
	for i, l := range component.Wrap(s, w, 0) {
		if i == 3 {
			break
		}
		out = append(out, line{l, st})
	}
	return out
}

// p0 returns a painter's styles without a buffer, for the banner.
func p0(m *Model) *painter { return newPainter(&m.buf, m.common.Theme, m.plain) }

// saturation says whether the network is saturated: back-pressure
// reaches the network interfaces, which hold packets but cannot inject
// them although their own link is free (a burst that merely queues
// behind a busy injection link is not saturation).
func (m *Model) saturation() string {
	if m.snap == nil || m.status == Finished {
		return ""
	}
	net := &m.snap.Net
	inject := make(map[int32]float64, len(net.NICs))
	best, bi := 0.0, -1
	for i := range net.Links {
		l := &net.Links[i]
		if l.FromNode {
			inject[l.From] = l.Utilisation
		} else if l.Utilisation > best {
			best, bi = l.Utilisation, i
		}
	}
	blocked, queued := 0, int64(0)
	for i := range net.NICs {
		n := &net.NICs[i]
		queued += n.Queued
		if n.Queued > 0 && inject[n.Node] < 0.5 {
			blocked++
		}
	}
	if bi < 0 || blocked == 0 || blocked < len(net.NICs)/4 {
		return ""
	}
	return fmt.Sprintf("SATURATED: %d of %d network interfaces hold packets they cannot inject (back-pressure; %d packets wait, %d in flight); busiest link %s at %s: the offered load exceeds what the network carries",
		blocked, len(net.NICs), queued, net.PacketsInFlight, linkName(&net.Links[bi]), units.FormatPercent(best, 0))
}

// drawLive lays out the live views: links, queues, charts and ranks.
func (m *Model) drawLive(p *painter, x, y, w, h int) {
	// Tall enough, the time series get axes and time labels; else one
	// sparkline row each, or one, or none.
	charts, axes := 0, false
	switch {
	case h >= 12+seriesRows && w >= 3*16+2:
		// A quarter of a tall pane, so that the value axes get rows.
		charts, axes = max(seriesRows, h/4), true
	case h >= 10:
		charts = 3
	case h >= 7:
		charts = 1
	}
	body := h - charts
	// The link pane shows utilisation on the topology, or with f the
	// flows on the busiest links over time (flow model). A wide pane
	// shows the router queues beside it; the flow model has none, and
	// shows there the link measure the link pane does not.
	flowModel := m.flowsModel()
	wide := w >= 90 && body >= 6
	links := func(x, y, w, h int, flows bool) {
		if flows {
			p.text(x, y, w, flowsTitle, p.title)
			m.drawFlows(p, x, y+1, w, h-1)
			return
		}
		title := m.linksTitle()
		if flowModel && !wide {
			// The flows have no pane of their own here: say where.
			title += " (f: flows)"
		}
		p.text(x, y, w, title, p.title)
		m.drawLinks(p, x, y+1, w, h-1)
	}
	if wide {
		lw := w * 11 / 20
		rw := w - lw - 1
		links(x, y, lw, body, m.showFlows && flowModel)
		qh := body / 2
		if flowModel {
			links(x+lw+1, y, rw, qh, !m.showFlows)
		} else {
			p.text(x+lw+1, y, rw, "Queues · buffer occupancy (←↑↓→ router)", p.title)
			m.drawQueues(p, x+lw+1, y+1, rw, qh-1)
		}
		m.drawRanks(p, x+lw+1, y+qh, rw, body-qh)
	} else {
		lh := body / 2
		links(x, y, w, lh, m.showFlows && flowModel)
		m.drawRanks(p, x, y+lh, w, body-lh)
	}
	if axes {
		m.drawSeries(p, x, y+body, w, charts)
		return
	}
	m.drawCharts(p, x, y+body, w, charts)
}

// flowsTitle heads the flows strip (drawFlows).
const flowsTitle = "Flows · busiest links (f: swap)"

// linksTitle says which period the link map shows: the network skips
// periods without traffic, so during a long computation the map keeps
// the last busy one.
func (m *Model) linksTitle() string {
	if m.snap == nil || m.snap.Net.SamplePeriod == 0 || m.snap.Net.LastSample == 0 {
		return "Links · utilisation"
	}
	net := &m.snap.Net
	if m.clock.Seconds() > net.LastSample+2*net.SamplePeriod {
		return "Links · idle since " + units.FormatDuration(net.LastSample) + " (last busy period)"
	}
	return "Links · utilisation, last " + units.FormatDuration(net.SamplePeriod)
}

func (m *Model) drawCharts(p *painter, x, y, w, h int) {
	if h <= 0 {
		return
	}
	type series struct {
		name string
		val  func(runner.Point) float64
		fmt  func(float64) string
	}
	all := []series{
		{"throughput", func(q runner.Point) float64 { return q.Throughput }, units.FormatRate},
		{"latency", func(q runner.Point) float64 { return q.Latency }, units.FormatDuration},
		{"link use", func(q runner.Point) float64 { return q.Util }, func(v float64) string { return units.FormatPercent(v, 0) }},
	}
	for i := 0; i < h && i < len(all); i++ {
		s := all[i]
		vals := make([]float64, len(m.pts))
		last := math.NaN()
		for j, q := range m.pts {
			vals[j] = s.val(q)
			if vals[j] >= 0 {
				last = vals[j]
			}
		}
		val := "–"
		if !math.IsNaN(last) {
			val = s.fmt(last)
		}
		lw, vw := 11, 11
		p.text(x, y+i, lw, s.name, p.dim)
		p.b.Spark(x+lw, y+i, w-lw-vw-1, vals, 0, p.series())
		p.text(x+w-vw, y+i, vw, fmt.Sprintf("%*s", vw, val), p.norm)
	}
}

// drawRanks shows what each rank is doing: a strip with one cell per rank
// and, below, the ranks in words.
func (m *Model) drawRanks(p *painter, x, y, w, h int) {
	if h <= 0 || w <= 0 {
		return
	}
	if m.snap == nil {
		p.text(x, y, w, "Ranks", p.title)
		return
	}
	ranks := m.snap.Ranks
	var cnt [4]int
	for _, r := range ranks {
		cnt[r.State]++
	}
	p.text(x, y, w, fmt.Sprintf("Ranks · %d computing, %d blocked, %d ready, %d done", cnt[replay.StateComputing], cnt[replay.StateBlocked], cnt[replay.StateReady], cnt[replay.StateDone]), p.title)
	row := 1
	for i := 0; i < len(ranks) && row < h; row++ {
		for c := 0; c < w && i < len(ranks); c, i = c+1, i+1 {
			g, st := rankGlyph(p, ranks[i].State)
			p.b.Set(x+c, y+row, g, st)
		}
	}
	for i := 0; i < len(ranks) && row < h; i, row = i+1, row+1 {
		p.text(x, y+row, w, fmt.Sprintf("%3d %s", i, ranks[i].Describe()), p.norm)
	}
}

func rankGlyph(p *painter, s replay.RankState) (rune, cellbuf.Style) {
	switch s {
	case replay.StateComputing:
		return '█', p.okSt
	case replay.StateBlocked:
		return '▒', p.warnSt
	case replay.StateDone:
		return '✓', p.dim
	}
	return '·', p.norm
}

// drawResults summarises the latest finished run: predicted against
// recorded makespan and the per-rank times.
func (m *Model) drawResults(p *painter, x, y, w, h int) {
	if len(m.runs) == 0 {
		p.text(x, y, w, "Results", p.title)
		if h > 1 {
			p.text(x, y+1, w, "No finished run yet: r runs the simulation to the end.", p.dim)
		}
		return
	}
	run := &m.runs[len(m.runs)-1]
	res := run.Results
	p.text(x, y, w, fmt.Sprintf("Results · sim #%d · %s: %s", run.N, run.Name, run.Label), p.title)
	lines := []line{{fmt.Sprintf("predicted makespan %s", units.FormatDurationSig(res.Makespan, 7)), p.bold}}
	if res.Recorded > 0 {
		lines = append(lines, line{fmt.Sprintf("recorded (trace span) %s · predicted/recorded %.3f×", units.FormatDurationSig(res.Recorded, 7), res.Makespan/res.Recorded), p.norm})
		if rp := res.RecordedParts; rp != nil && rp.App > 0 && rp.Startup+rp.Teardown > 0.05*res.Recorded {
			// MPI start-up and teardown, which the replay does not model,
			// are much of the span: compare with the rest too.
			lines = append(lines, line{fmt.Sprintf("of which MPI start-up %s, replayed part %s (predicted/replayed %.3f×), MPI_Finalize %s",
				units.FormatDuration(rp.Startup), units.FormatDuration(rp.App), res.Makespan/rp.App, units.FormatDuration(rp.Teardown)), p.norm})
		}
	}
	lines = append(lines,
		line{fmt.Sprintf("%d messages, %s · latency mean %s, p99 %s · scaled speedup %.2f", res.Messages.Count, units.FormatBytes(res.Messages.Bytes), units.FormatDuration(res.Messages.Latency.Mean), units.FormatDuration(res.Messages.Latency.P99), res.ScaledSpeedup), p.norm},
		line{fmt.Sprintf("%d simulator events in %s host time (%s ev/s)", res.Events, units.FormatDuration(res.Wall), units.FormatCount(res.EventsPerSec)), p.dim})
	if res.Deadlock != nil {
		for _, l := range component.Wrap("DEADLOCK: "+res.Deadlock.Message, w, 0) {
			lines = append(lines, line{l, p.errSt})
		}
	}
	for _, n := range res.Notes {
		// Choices the run made that the user did not (any-source free
		// for a trace without recorded senders).
		for _, l := range component.Wrap("note: "+n, w, 0) {
			lines = append(lines, line{l, p.warnSt})
		}
	}
	row := 1
	for _, l := range lines {
		if row >= h {
			return
		}
		p.text(x, y+row, w, l.text, l.st)
		row++
	}
	if row+1 >= h {
		return
	}
	row++
	p.text(x, y+row, w, fmt.Sprintf("%4s %4s %10s %10s %10s %10s %6s", "rank", "node", "finish", "compute", "blocked", "cpu wait", "util"), p.bold)
	row++
	tw := 4 + 1 + 4 + 4*11 + 6 + 1
	m.resultsPage = max(h-row, 1)
	m.scroll = min(m.scroll, max(len(res.Ranks)-(h-row), 0))
	for i := m.scroll; i < len(res.Ranks) && row < h; i, row = i+1, row+1 {
		r := res.Ranks[i]
		p.text(x, y+row, w, fmt.Sprintf("%4d %4d %10s %10s %10s %10s %6s", r.Rank, r.Node, units.FormatDuration(r.Finish), units.FormatDuration(r.Compute), units.FormatDuration(r.Blocked), units.FormatDuration(r.CPUWait), units.FormatPercent(r.Utilisation, 0)), p.norm)
		if bw := w - tw - 1; bw >= 6 && res.Makespan > 0 {
			p.b.Stacked(x+tw+1, y+row, bw, res.Makespan, []cellbuf.Segment{
				{V: r.Compute, Glyph: '█', St: p.okSt}, {V: r.Blocked + r.Overhead, Glyph: '▒', St: p.warnSt}, {V: r.CPUWait, Glyph: '░', St: p.dim}})
		}
	}
}

// drawHistory lists the finished runs and compares the selected one with
// another (the previous one, or the one marked with c).
func (m *Model) drawHistory(p *painter, x, y, w, h int) {
	p.text(x, y, w, "Run history · ↑↓ pgup pgdn g G select, c compare with the selected, enter show in the Timeline", p.title)
	if len(m.runs) == 0 {
		if h > 1 {
			p.text(x, y+1, w, "No finished run yet.", p.dim)
		}
		return
	}
	listH := min(len(m.runs), max((h-1)/3, 1))
	m.historyPage = listH
	first := max(0, min(m.sel-listH+1, len(m.runs)-listH))
	for i := 0; i < listH; i++ {
		k := first + i
		r := &m.runs[k]
		// Marks as well as colours: the selection must show without colour.
		mark := "  "
		if k == m.base {
			mark = "B "
		}
		st := p.norm
		if k == m.sel {
			st = p.sel
			mark = mark[:1] + "▸"
		}
		s := fmt.Sprintf("%s#%-3d %12s  %s: %s", mark, r.N, units.FormatDurationSig(r.Results.Makespan, 7), r.Name, r.Label)
		if r.Results.Deadlock != nil {
			s += "  DEADLOCK"
		}
		p.text(x, y+1+i, w, s, st)
	}
	a, b := m.compared()
	if a < 0 {
		return
	}
	m.drawCompare(p, x, y+2+listH, w, h-2-listH, &m.runs[a], &m.runs[b])
}

// compared returns the runs being compared: the base and the selected
// run, or the selected and the one before it; -1 when there are fewer
// than two runs.
func (m *Model) compared() (a, b int) {
	if len(m.runs) < 2 {
		return -1, -1
	}
	b = m.sel
	a = m.base
	if a < 0 || a >= len(m.runs) || a == b {
		a = b - 1
		if a < 0 {
			a = 1
		}
	}
	return a, b
}

// linkStats returns the mean and the largest whole-run utilisation of the
// router-to-router links of a run.
func linkStats(r *replay.Results) (mean, peak float64, ok bool) {
	if r.Network == nil {
		return 0, 0, false
	}
	n := 0
	for i := range r.Network.Links {
		l := &r.Network.Links[i]
		if l.FromNode || l.ToNode {
			continue
		}
		mean += l.MeanUtilisation
		peak = max(peak, l.MeanUtilisation)
		n++
	}
	if n > 0 {
		mean /= float64(n)
	}
	return mean, peak, true
}

func (m *Model) drawCompare(p *painter, x, y, w, h int, a, b *Run) {
	if h <= 0 {
		return
	}
	ra, rb := a.Results, b.Results
	p.text(x, y, w, fmt.Sprintf("Compare #%d (A) with #%d (B)", a.N, b.N), p.title)
	rows := []line{
		{fmt.Sprintf("A #%d %s", a.N, a.Label), p.dim},
		{fmt.Sprintf("B #%d %s", b.N, b.Label), p.dim},
		{fmt.Sprintf("makespan  A %s  B %s  B/A %.3f×", units.FormatDurationSig(ra.Makespan, 7), units.FormatDurationSig(rb.Makespan, 7), ratio(rb.Makespan, ra.Makespan)), p.bold},
	}
	ma, pa, oka := linkStats(ra)
	mb, pb, okb := linkStats(rb)
	if oka || okb {
		// A run whose model measures no links says n/a, not 0 %.
		use := func(ok bool, mean, peak float64) string {
			if !ok {
				return "n/a (no links measured)"
			}
			return "mean " + units.FormatPercent(mean, 1) + " peak " + units.FormatPercent(peak, 1)
		}
		rows = append(rows, line{"link use  A " + use(oka, ma, pa) + "  B " + use(okb, mb, pb), p.norm})
		if g := groupCompare(ra, rb); g != "" {
			rows = append(rows, line{g, p.norm})
		}
	} else {
		rows = append(rows, line{"link use  n/a (analytic models measure no links)", p.dim})
	}
	row := 1
	for _, l := range rows {
		if row >= h {
			return
		}
		p.text(x, y+row, w, l.text, l.st)
		row++
	}
	if row >= h {
		return
	}
	// Per-rank finish times, A above B, on one scale.
	p.text(x, y+row, w, "per-rank finish: █ both runs, ▀ B only, ▒ A only", p.bold)
	row++
	span := math.Max(ra.Makespan, rb.Makespan)
	n := min(len(ra.Ranks), len(rb.Ranks))
	bw := w - 30
	for i := 0; i < n && row < h; i, row = i+1, row+1 {
		fa, fb := ra.Ranks[i].Finish, rb.Ranks[i].Finish
		p.text(x, y+row, w, fmt.Sprintf("%4d %10s %10s", i, units.FormatDuration(fa), units.FormatDuration(fb)), p.norm)
		if bw >= 4 && span > 0 {
			ca := int(math.Round(fa / span * float64(bw)))
			cb := int(math.Round(fb / span * float64(bw)))
			for c := 0; c < bw; c++ {
				g, st := ' ', p.norm
				switch {
				case c < ca && c < cb:
					g, st = '█', p.okSt
				case c < cb:
					g, st = '▀', p.okSt
				case c < ca:
					g, st = '▒', p.warnSt
				}
				p.b.Set(x+30+c, y+row, g, st)
			}
		}
	}
}

func ratio(a, b float64) float64 {
	if b == 0 {
		return math.NaN()
	}
	return a / b
}

// groupCompare lists the whole-run utilisation of each link group (x+,
// up0, global…) in run A and run B: "by group  x+ 12→30%  x- 11→29% …".
func groupCompare(a, b *replay.Results) string {
	use := func(r *replay.Results) map[string]float64 {
		out := map[string]float64{}
		if r.Network != nil {
			for _, g := range r.Network.Groups {
				out[g.Name] = g.MeanUtilisation
			}
		}
		return out
	}
	ua, ub := use(a), use(b)
	var names []string
	seen := map[string]bool{}
	for _, r := range []*replay.Results{a, b} {
		if r.Network == nil {
			continue
		}
		for _, g := range r.Network.Groups {
			if !seen[g.Name] {
				seen[g.Name] = true
				names = append(names, g.Name)
			}
		}
	}
	if len(names) == 0 {
		return ""
	}
	s := "by group "
	for _, n := range names {
		s += fmt.Sprintf(" %s %.0f→%s", n, ua[n]*100, units.FormatPercent(ub[n], 0))
	}
	return s
}
