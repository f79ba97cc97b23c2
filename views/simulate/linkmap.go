package simulate

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"

	"github.com/tracesim/tracesim/engine/netmodel"
	"github.com/tracesim/tracesim/engine/replay"
	"github.com/tracesim/tracesim/engine/runner"
	"github.com/tracesim/tracesim/engine/topology"
	"github.com/tracesim/tracesim/tracefmt/units"
	"github.com/tracesim/tracesim/views/cellbuf"
	"github.com/tracesim/tracesim/views/component"
)

// The link heatmap draws the topology itself where it has a geometry:
// meshes and tori as a grid of routers with each link between two
// neighbours coloured by its utilisation over the last metrics period
// (one cell per direction), 3-D grids as z slices side by side, fat trees
// by level; networks without a drawable geometry (dragonflies, crossbars,
// buses, custom graphs, hypercubes of more than three dimensions) as a
// links × time strip.

// linkHistory keeps the utilisation of the busy links of every metrics
// period, for the links × time strip: one column per period, in
// simulated time, whatever the pace of the snapshots.
type linkHistory struct {
	cols [][]runner.LinkUtil
	// ts are the ends of the periods of cols, seconds: the network skips
	// periods without traffic, and the flows strip marks where.
	ts []float64
}

const maxHistory = 300

func (h *linkHistory) add(pts []runner.Point) {
	for _, p := range pts {
		if p.Links == nil {
			continue
		}
		if len(h.cols) == maxHistory {
			h.cols = append(h.cols[:0], h.cols[1:]...)
			h.ts = append(h.ts[:0], h.ts[1:]...)
		}
		h.cols = append(h.cols, p.Links)
		h.ts = append(h.ts, p.T)
	}
}

// Columns of the flows strip that show no period (lastCols).
const (
	colSkipped = -1 // periods without traffic, which the network skips
	colEmpty   = -2 // before the first period kept
)

// lastCols lays the latest periods out in w columns, the latest at the
// right: out[c] is the period drawn in column c, colSkipped for a column
// that marks skipped periods (more than one period of period seconds
// between two samples: the network was idle) or colEmpty.
func (h *linkHistory) lastCols(w int, period float64) []int {
	out := make([]int, max(w, 0))
	c := w - 1
	for i := len(h.cols) - 1; i >= 0 && c >= 0; i-- {
		out[c] = i
		c--
		if c >= 0 && i > 0 && period > 0 && h.ts[i]-h.ts[i-1] > 1.5*period {
			out[c] = colSkipped
			c--
		}
	}
	for ; c >= 0; c-- {
		out[c] = colEmpty
	}
	return out
}

// gridUtil indexes the network links of a grid by router, dimension and
// direction: util[(r·dims + d)·2 + s], s = 0 for + (and the single link of
// a dimension of size 2), 1 for −.
func gridUtil(net *netmodel.Metrics, routers, dims int) []float64 {
	u := make([]float64, routers*dims*2)
	for i := range net.Links {
		l := &net.Links[i]
		if l.FromNode || l.ToNode || int(l.Level) >= dims || int(l.From) >= routers {
			continue
		}
		s := 0
		if l.Dir < 0 {
			s = 1
		}
		u[(int(l.From)*dims+int(l.Level))*2+s] = l.Utilisation
	}
	return u
}

// drawLinks draws the link heatmap of sn in the rectangle x, y, w×h.
func (m *Model) drawLinks(p *painter, x, y, w, h int) {
	sn := m.snap
	if sn == nil || sn.Net.Layout == nil || sn.Net.Topology == nil {
		m.noData(p, x, y, w, h, "no link data: only the flow and packet models measure links (Machine: model = flow or packet)", "links")
		return
	}
	lay := sn.Net.Layout
	switch {
	case lay.Style == topology.LayoutGrid && len(lay.Dims) <= 3:
		m.drawGrid(p, x, y, w, h)
	case lay.Style == topology.LayoutLevels:
		m.drawLevels(p, x, y, w, h)
	default:
		m.drawStrip(p, x, y, w, h)
	}
}

// noData says in the pane x, y, w×h why it is empty: what appears once
// the run starts, or why the model has none of it.
func (m *Model) noData(p *painter, x, y, w, h int, why, what string) {
	if m.status == Idle {
		why = what + " appear once the run starts (space or r)"
	}
	for i, l := range component.Wrap(why, w, 0) {
		if i < h {
			p.text(x, y+i, w, l, p.dim)
		}
	}
}

// dims3 returns a grid's sizes as X, Y, Z and the wraparound flags of X
// and Y.
func dims3(lay *netmodel.Layout) (xs, ys, zs int, wx, wy bool) {
	xs, ys, zs = 1, 1, 1
	d := lay.Dims
	if len(d) > 0 {
		xs, wx = d[0], lay.Wrap[0] && d[0] > 2
	}
	if len(d) > 1 {
		ys, wy = d[1], lay.Wrap[1] && d[1] > 2
	}
	if len(d) > 2 {
		zs = d[2]
	}
	return
}

func (m *Model) drawGrid(p *painter, x, y, w, h int) {
	net := &m.snap.Net
	lay := net.Layout
	nd := len(lay.Dims)
	xs, ys, zs, wx, wy := dims3(lay)
	routers := xs * ys * zs
	u := gridUtil(net, routers, nd)
	at := func(r, d, s int) float64 {
		if d >= nd {
			return -1
		}
		if lay.Dims[d] == 2 {
			s = 0
		}
		return u[(r*nd+d)*2+s]
	}
	// Full drawing: a router every sx columns and sy rows (at least 3 and
	// 2, more to fill the pane: a 4×4 torus is not a stamp in a big
	// pane), the cells between two routers showing each link direction
	// (the first half one way, the second the other), the wraparound
	// links past the last router.
	label := 0
	if zs > 1 {
		label = 1
	}
	size := func(kx, ky int) (sw, sh int) {
		sx, sy := 3*kx, 2*ky
		sw, sh = sx*(xs-1)+1, sy*(ys-1)+1
		if wx {
			sw += sx - 1
		}
		if wy {
			sh += sy - 1
		}
		return sw, sh
	}
	fits := func(kx, ky, legend int) bool {
		sw, sh := size(kx, ky)
		return zs*sw+(zs-1)*2 <= w && sh+label+legend <= h
	}
	kx, ky := 1, 1
	// Grow while the drawing and its legend fit, keeping the routers'
	// spacing about as wide as tall on screen (a cell is twice as tall
	// as wide).
	for fits(kx+1, ky, 2) && kx+1 <= 2*ky {
		kx++
		for fits(kx, ky+1, 2) && ky+1 <= kx {
			ky++
		}
	}
	for fits(kx, ky+1, 2) && ky+1 <= kx {
		ky++
	}
	sw, sh := size(kx, ky)
	if fits(kx, ky, 0) {
		sx, sy := 3*kx, 2*ky
		for z := 0; z < zs; z++ {
			ox := x + z*(sw+2)
			if zs > 1 {
				p.text(ox, y, sw, fmt.Sprintf("z=%d", z), p.dim)
			}
			oy := y + label
			for yy := 0; yy < ys; yy++ {
				for xx := 0; xx < xs; xx++ {
					r := xx + xs*(yy+ys*z)
					px, py := ox+sx*xx, oy+sy*yy
					st := p.norm
					g := '●'
					if p.mono {
						g, st = 'o', cellbuf.Style{}
					}
					if r == m.router {
						st.Attrs |= cellbuf.Reverse
					}
					p.b.Set(px, py, g, st)
					if xx+1 < xs || wx {
						nb := (xx+1)%xs + xs*(yy+ys*z)
						n := sx - 1
						for i := range n {
							if i < (n+1)/2 {
								p.heat(px+1+i, py, at(r, 0, 0), '-')
							} else {
								p.heat(px+1+i, py, at(nb, 0, 1), '-')
							}
						}
					}
					if nd > 1 && (yy+1 < ys || wy) {
						nb := xx + xs*((yy+1)%ys+ys*z)
						for i := 1; i < sy; i++ {
							p.heat(px, py+i, at(r, 1, 0), '|')
							p.heat(px+1, py+i, at(nb, 1, 1), '|')
						}
					}
				}
			}
		}
		if sh+label+1 < h {
			p.legend(x, y+sh+label+1, w)
		}
		return
	}
	// Compact: one cell per router (or per block of routers when the
	// grid is larger than the area), showing its busiest outgoing link.
	cw := zs*xs + (zs - 1)
	bx := max(1, (cw+w-1)/max(w, 1))
	by := max(1, (ys+h-1)/max(h, 1))
	for z := 0; z < zs; z++ {
		for yy := 0; yy < ys; yy += by {
			for xx := 0; xx < xs; xx += bx {
				v := 0.0
				for dy := 0; dy < by && yy+dy < ys; dy++ {
					for dx := 0; dx < bx && xx+dx < xs; dx++ {
						r := xx + dx + xs*(yy+dy+ys*z)
						for d := 0; d < nd; d++ {
							v = max(v, at(r, d, 0), at(r, d, 1))
						}
					}
				}
				cx := x + (z*(xs+1)+xx)/bx
				p.heat(cx, y+yy/by, v, '.')
			}
		}
	}
}

// drawLevels draws a fat tree: one row per level, the top level first,
// each switch as two cells (its busiest up link, its busiest down link).
func (m *Model) drawLevels(p *painter, x, y, w, h int) {
	net := &m.snap.Net
	lay := net.Layout
	levels := len(lay.Dims)
	up := make(map[int32]float64)
	down := make(map[int32]float64)
	for i := range net.Links {
		l := &net.Links[i]
		if l.FromNode {
			continue
		}
		switch l.Class {
		case "up":
			up[l.From] = max(up[l.From], l.Utilisation)
		case "down":
			down[l.From] = max(down[l.From], l.Utilisation)
		}
	}
	// index[level][i] is the router at position i of a level.
	index := make([][]int32, levels)
	for l := range index {
		index[l] = make([]int32, lay.Dims[l])
	}
	n := len(lay.Coords) / max(lay.Stride, 1)
	for r := 0; r < n; r++ {
		c := lay.RouterCoords(r)
		if int(c[0]) < levels && int(c[1]) < len(index[c[0]]) {
			index[c[0]][c[1]] = int32(r)
		}
	}
	lw := 4
	row := 0
	for l := levels - 1; l >= 0 && row < h; l-- {
		p.text(x, y+row, lw, fmt.Sprintf("L%d", l), p.dim)
		cnt := len(index[l])
		per := max(1, (cnt*3+(w-lw)-1)/max(w-lw, 1))
		for i := 0; i < cnt; i += per {
			vu, vd := 0.0, 0.0
			for j := i; j < i+per && j < cnt; j++ {
				vu = max(vu, up[index[l][j]])
				vd = max(vd, down[index[l][j]])
			}
			cx := x + lw + (i/per)*3
			if l < levels-1 {
				p.heat(cx, y+row, vu, '^')
			}
			if l > 0 {
				p.heat(cx+1, y+row, vd, 'v')
			}
		}
		row += 2
	}
	if row < h {
		p.text(x, y+row, w, "^ up links  v down links", p.dim)
		if row+1 < h {
			p.legend(x, y+row+1, w)
		}
	}
}

// drawStrip draws the busiest links as rows and the snapshots as columns.
func (m *Model) drawStrip(p *painter, x, y, w, h int) {
	links := m.snap.Net.Links
	if len(links) == 0 || h < 2 {
		return
	}
	p.text(x, y, w, "busiest links over time →", p.dim)
	y++
	h--
	order := make([]int, len(links))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return links[order[a]].Bytes > links[order[b]].Bytes })
	lw := 14
	cols := m.hist.cols
	cw := w - lw
	if len(cols) > cw {
		cols = cols[len(cols)-max(cw, 0):]
	}
	rowOf := make(map[int32]int, h)
	for row := 0; row < h && row < len(order); row++ {
		l := &links[order[row]]
		rowOf[l.ID] = row
		p.text(x, y+row, lw-1, linkName(l), p.dim)
	}
	for c, col := range cols {
		for _, lu := range col {
			if row, ok := rowOf[lu.ID]; ok {
				p.heat(x+lw+c, y+row, float64(lu.Util), ' ')
			}
		}
	}
}

// linkName names a link as the metrics CSV does, shortened.
func linkName(l *netmodel.LinkMetric) string {
	if l.Class == "medium" || l.Class == "backbone" {
		return l.Class
	}
	end := func(id int32, node bool) string {
		if node {
			return fmt.Sprintf("n%d", id)
		}
		return fmt.Sprintf("r%d", id)
	}
	return end(l.From, l.FromNode) + "→" + end(l.To, l.ToNode)
}

// routerGrid returns the number of routers and the width of the grid the
// queue map draws them in (the X size of grids).
func (m *Model) routerGrid() (n, cols int) {
	if m.snap == nil || m.snap.Net.Topology == nil {
		return 0, 1
	}
	n = m.snap.Net.Topology.NumRouters()
	lay := m.snap.Net.Layout
	if lay != nil && lay.Style == topology.LayoutGrid && len(lay.Dims) > 0 && len(lay.Dims) <= 3 {
		return n, lay.Dims[0]
	}
	return n, min(n, 16)
}

// drawQueues draws the occupancy of every router's input buffers (one
// cell pair per router, the fullest share of its buffers) and the ports
// and virtual channels of the selected router.
func (m *Model) drawQueues(p *painter, x, y, w, h int) {
	if m.snap == nil || len(m.snap.Net.Queues) == 0 {
		p.text(x, y, w, "no router queues (packet model only)", p.dim)
		return
	}
	qs := m.snap.Net.Queues
	n, cols := m.routerGrid()
	used := make([]int32, n)
	capa := make([]int32, n)
	for i := range qs {
		r := qs[i].Router
		if int(r) < n {
			used[r] += qs[i].Cur
			capa[r] += qs[i].Capacity
		}
	}
	rows := (n + cols - 1) / cols
	gridH := min(rows, max(h/2, 1))
	cw := 2
	if cols*2 > w {
		cw = 1
	}
	for r := 0; r < n; r++ {
		cx, cy := x+(r%cols)*cw, y+r/cols
		if r/cols >= gridH || (r%cols)*cw >= w {
			continue
		}
		v := 0.0
		if capa[r] > 0 {
			v = float64(used[r]) / float64(capa[r])
		}
		for i := 0; i < cw; i++ {
			p.heat(cx+i, cy, v, '.')
		}
		if r == m.router {
			for i := 0; i < cw; i++ {
				if c := p.b.Ptr(cx+i, cy); c != nil {
					c.Attrs |= cellbuf.Reverse
					if c.Rune == '.' || c.Rune == ' ' {
						c.Rune = '+'
					}
				}
			}
		}
	}
	y += gridH
	h -= gridH
	if h < 2 || m.router >= n {
		return
	}
	// The selected router's ports and virtual channels.
	var mine []netmodel.QueueMetric
	for i := range qs {
		if int(qs[i].Router) == m.router {
			mine = append(mine, qs[i])
		}
	}
	topo := m.snap.Net.Topology
	head := fmt.Sprintf("router %d", m.router)
	if lay := m.snap.Net.Layout; lay != nil && m.router*lay.Stride < len(lay.Coords) {
		head += fmt.Sprintf(" %v", lay.RouterCoords(m.router))
	}
	p.text(x, y, w, head+"  port/vc: cur/cap", p.bold)
	row := 1
	for i := 0; i < len(mine) && row < h; {
		port := mine[i].Port
		from := ""
		if int(port) < topo.NumPorts(m.router) {
			pe := topo.Peer(m.router, int(port))
			switch pe.Kind {
			case topology.PeerRouter:
				from = fmt.Sprintf("←r%d", pe.ID)
			case topology.PeerNode:
				from = fmt.Sprintf("←n%d", pe.ID)
			}
		}
		cx := x + p.text(x, y+row, w, fmt.Sprintf("p%-2d%-5s", port, from), p.dim)
		for ; i < len(mine) && mine[i].Port == port; i++ {
			q := mine[i]
			v := 0.0
			if q.Capacity > 0 {
				v = float64(q.Cur) / float64(q.Capacity)
			}
			if cx+7 > x+w {
				continue
			}
			p.heat(cx, y+row, v, '.')
			cx += 2 + p.text(cx+2, y+row, x+w-cx-2, fmt.Sprintf("%d/%d", q.Cur, q.Capacity), p.norm) + 1
		}
		row++
	}
}

// flowRow is one link of the flows strip: its largest and summed period
// means over the kept periods, and its flows now.
type flowRow struct {
	idx       int // in the snapshot's links
	peak, sum float64
	now       int32
}

// busiestFlows ranks the links that carried a flow in the kept periods
// (or carry one now) by their concurrent flows: the highest period mean
// first, then the most flow·periods, then the most flows now, then the
// link id. links are the snapshot's, in id order.
func busiestFlows(cols [][]runner.LinkUtil, links []netmodel.LinkMetric) []flowRow {
	at := make(map[int32]int, len(links))
	for i := range links {
		at[links[i].ID] = i
	}
	rows := map[int]*flowRow{}
	row := func(i int) *flowRow {
		r := rows[i]
		if r == nil {
			r = &flowRow{idx: i, now: links[i].Flows}
			rows[i] = r
		}
		return r
	}
	for _, col := range cols {
		for _, lu := range col {
			i, ok := at[lu.ID]
			if !ok || lu.Flows <= 0 {
				continue
			}
			r := row(i)
			r.peak = max(r.peak, float64(lu.Flows))
			r.sum += float64(lu.Flows)
		}
	}
	for i := range links {
		if links[i].Flows > 0 {
			row(i)
		}
	}
	out := make([]flowRow, 0, len(rows))
	for _, r := range rows {
		out = append(out, *r)
	}
	sort.Slice(out, func(a, b int) bool {
		ra, rb := &out[a], &out[b]
		switch {
		case ra.peak != rb.peak:
			return ra.peak > rb.peak
		case ra.sum != rb.sum:
			return ra.sum > rb.sum
		case ra.now != rb.now:
			return ra.now > rb.now
		}
		return links[ra.idx].ID < links[rb.idx].ID
	})
	return out
}

// flowsModel reports whether the current run's model counts the flows on
// each link (the flow model).
func (m *Model) flowsModel() bool {
	return m.eng != nil && m.eng.cfg.Model == replay.ModelFlow
}

// drawFlows draws the busiest links' concurrent flows over time: a row
// per link, busiest first (busiestFlows), a column per metrics period
// (the latest at the right) shaded by the mean number of flows on the
// link in the period against the largest mean drawn, and the link's
// flows now and its largest period mean in figures.
func (m *Model) drawFlows(p *painter, x, y, w, h int) {
	if m.snap == nil || m.snap.Net.Topology == nil || !m.flowsModel() {
		m.noData(p, x, y, w, h, "no flows per link: only the flow model counts them (Machine: model = flow)", "flows")
		return
	}
	net := &m.snap.Net
	rows := busiestFlows(m.hist.cols, net.Links)
	if len(rows) == 0 {
		p.text(x, y, w, "no flow has crossed a link yet", p.dim)
		return
	}
	const lw, vw = 14, 11 // link names; " now  peak"
	cw := max(w-lw-vw-1, 0)
	layout := m.hist.lastCols(cw, net.SamplePeriod)
	// The header says the period of a column and the simulated times the
	// columns span.
	head := "mean flows per period"
	if net.SamplePeriod > 0 {
		head = "mean flows per " + units.FormatDuration(net.SamplePeriod)
	}
	if first := slices.IndexFunc(layout, func(k int) bool { return k >= 0 }); first >= 0 {
		t0 := max(m.hist.ts[layout[first]]-net.SamplePeriod, 0)
		head += ", " + units.FormatDuration(t0) + " → " + units.FormatDuration(m.hist.ts[layout[len(layout)-1]])
	}
	p.text(x, y, w-vw, head, p.dim)
	if w >= lw+vw+4 {
		p.text(x+w-vw, y, vw, fmt.Sprintf("%4s %6s", "now", "peak"), p.dim)
	}
	n := min(len(rows), h-2) // a header row and a legend row
	if n <= 0 {
		return
	}
	rows = rows[:n]
	scale := 1.0
	rowOf := make(map[int32]int, n)
	for i, r := range rows {
		scale = max(scale, r.peak)
		l := &net.Links[r.idx]
		rowOf[l.ID] = i
		p.text(x, y+1+i, lw-1, linkName(l), p.dim)
		if w >= lw+vw+4 {
			p.text(x+w-vw, y+1+i, vw, fmt.Sprintf("%4d %6s", r.now, flowsLabel(r.peak)), p.norm)
		}
	}
	skipped := false
	for c, k := range layout {
		switch k {
		case colEmpty:
		case colSkipped:
			skipped = true
			for i := range n {
				p.text(x+lw+c, y+1+i, 1, "┊", p.dim)
			}
		default:
			for _, lu := range m.hist.cols[k] {
				if i, ok := rowOf[lu.ID]; ok {
					p.heat(x+lw+c, y+1+i, float64(lu.Flows)/scale, ' ')
				}
			}
		}
	}
	k := p.b.HeatLegend(x+lw, y+1+n, w-lw, "0", flowsLabel(scale)+" flows", 4, p.th, p.dim)
	if k > 0 && skipped {
		p.text(x+lw+k, y+1+n, w-lw-k, "  ┊ idle periods left out", p.dim)
	}
}

// flowsLabel writes a mean number of flows to two decimals at most: "2",
// "1.5", "2.33".
func flowsLabel(v float64) string {
	return strconv.FormatFloat(math.Round(v*100)/100, 'f', -1, 64)
}
