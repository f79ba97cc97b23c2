package paraver

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/tracefmt/rankmerge"
)

// Creator writes a file beside the .prv, by base name.
type Creator func(name string, fn func(io.Writer) error) error

// Event types the writer gives states of other formats, by category, and
// the base of the types of their markers.
const (
	typeP2P        = 50000001
	typeCollective = 50000002
	typeMPIOther   = 50000003
	typeUser       = 60000019
	typeMarkerBase = 90000000
)

var defaultTypeNames = map[int32]string{
	typeP2P:        "MPI Point-to-point",
	typeCollective: "MPI Collective Comm",
	typeMPIOther:   "MPI Other",
	typeUser:       "User functions",
}

// ref says how a state or marker is written: as a state record's value
// (typ 0) or as an event type and value.
type ref struct {
	typ   int32
	value int64
}

// plan is what the writer derives from a trace before writing.
type plan struct {
	t       *tracefmt.Trace
	scale   float64 // trace units to ns
	shift   int64   // added to every time so that none is negative
	states  []ref
	markers []int32
	// typeNames and values name what the .pcf lists.
	typeNames map[int32]string
	values    map[int32]map[int64]string
	stateVals map[int64]string
	colors    map[int64]string
	commIDs   []int64
}

// Write writes t as a Paraver trace: the .prv to w (the file at path) and
// the .pcf and .row beside it through create. The header is in the current
// format with times in nanoseconds; each rank is task k of one
// application, with one thread, on CPU k of one node.
func Write(path string, w io.Writer, t *tracefmt.Trace, create Creator) error {
	p, err := newPlan(t)
	if err != nil {
		return err
	}
	name := filepath.Base(path)
	base := strings.TrimSuffix(name, filepath.Ext(name))
	if err := p.writePRV(w); err != nil {
		return err
	}
	if create == nil {
		return nil
	}
	if err := create(base+".pcf", p.writePCF); err != nil {
		return err
	}
	return create(base+".row", p.writeRow)
}

func newPlan(t *tracefmt.Trace) (*plan, error) {
	if len(t.Ranks) == 0 {
		return nil, fmt.Errorf("paraver: trace has no ranks")
	}
	p := &plan{
		t: t, scale: math.Pow(10, float64(t.Unit)+9),
		typeNames: map[int32]string{}, values: map[int32]map[int64]string{},
		stateVals: map[int64]string{}, colors: map[int64]string{},
	}
	start, _ := t.Span()
	if start < 0 {
		p.shift = -int64(math.Floor(start * p.scale))
	}
	own := t.Format == "paraver"
	// used[typ] holds the values taken in each type (0 for state
	// records); a state whose value is taken (a thread's copy of a state)
	// gets the next free one.
	used := map[int32]map[int64]bool{}
	take := func(typ int32, v int64) int64 {
		u := used[typ]
		if u == nil {
			u = map[int64]bool{0: typ != 0}
			used[typ] = u
		}
		for u[v] || v <= 0 && typ != 0 || v < 0 {
			v++
		}
		u[v] = true
		return v
	}
	p.states = make([]ref, len(t.States))
	for i, d := range t.States {
		var r ref
		switch {
		case own && d.Source.End == fromState:
			r = ref{0, int64(d.Source.ID)}
		case own && d.Source.End == fromEvent:
			r = ref{d.Source.Start, int64(d.Source.ID)}
		default:
			r = ref{foreignType(d), 1}
		}
		r.value = take(r.typ, r.value)
		p.states[i] = r
		if r.typ == 0 {
			p.stateVals[r.value] = d.Name
			if c := rgb(d.Color); c != "" {
				p.colors[r.value] = c
			}
			continue
		}
		p.typeName(r.typ, "")
		if p.values[r.typ] == nil {
			p.values[r.typ] = map[int64]string{0: "End"}
		}
		p.values[r.typ][r.value] = d.Name
	}
	p.markers = make([]int32, len(t.Markers))
	for i, d := range t.Markers {
		typ := int32(typeMarkerBase + i)
		if own && d.Source.End == fromEvent {
			typ = d.Source.Start
		}
		p.markers[i] = typ
		p.typeName(typ, d.Name)
	}
	ids := map[int64]bool{}
	for i, c := range t.Comms {
		id := int64(c.ID)
		if !own || ids[id] {
			id = int64(i + 1)
			for ids[id] {
				id++
			}
		}
		ids[id] = true
		p.commIDs = append(p.commIDs, id)
	}
	return p, nil
}

// typeName names an event type: the name a trace read from Paraver kept,
// else the marker's name, else a default.
func (p *plan) typeName(typ int32, fallback string) {
	if _, ok := p.typeNames[typ]; ok {
		return
	}
	if v, ok := p.t.Attr(attrTypePrefix + strconv.Itoa(int(typ))); ok && p.t.Format == "paraver" {
		p.typeNames[typ] = v
		return
	}
	if fallback == "" {
		fallback = defaultTypeNames[typ]
	}
	if fallback == "" {
		fallback = "Event type " + strconv.Itoa(int(typ))
	}
	p.typeNames[typ] = fallback
}

// foreignType is the event type of a state of another format.
func foreignType(d tracefmt.StateDef) int32 {
	switch d.Category {
	case tracefmt.CatP2P, tracefmt.CatWait:
		return typeP2P
	case tracefmt.CatCollective:
		return typeCollective
	}
	if strings.HasPrefix(strings.ToUpper(d.Name), "MPI_") {
		return typeMPIOther
	}
	return typeUser
}

// ns converts a time to the integer nanoseconds written.
func (p *plan) ns(x float64) int64 { return int64(math.Round(x*p.scale)) + p.shift }

// item is an event that writes a record, ordered by time then rank.
type item struct {
	time int64
	rank int32
	idx  int32
}

// mergeRanks merges the ranks' items by (time, rank), each rank's items
// kept in their own order (see rankmerge). Sorting them all by time would
// move the events of a rank whose clock went back before their
// predecessors; the reader takes a rank's records in file order, so the
// trace read back would differ (its calls would nest differently).
func mergeRanks(byRank [][]item) []item {
	n := 0
	for _, its := range byRank {
		n += len(its)
	}
	out := make([]item, 0, n)
	count := func(r int) int { return len(byRank[r]) }
	key := func(r, i int) int64 { return byRank[r][i].time }
	for r, i := range rankmerge.Merge(len(byRank), count, key) {
		out = append(out, byRank[r][i])
	}
	return out
}

func (p *plan) writePRV(w io.Writer) error {
	t := p.t
	var ftime int64
	byRank := make([][]item, len(t.Ranks))
	for r := range t.Ranks {
		ev := t.Ranks[r].Events
		var its []item
		for i := range ev {
			e := &ev[i]
			switch e.Kind {
			case tracefmt.KindEnter, tracefmt.KindMarker, tracefmt.KindCollective, tracefmt.KindLeave:
			case tracefmt.KindSend:
				if e.Match < 0 {
					continue
				}
			default:
				continue
			}
			its = append(its, item{p.ns(e.Time), int32(r), int32(i)})
		}
		byRank[r] = its
	}
	items := mergeRanks(byRank)
	ftime, _ = p.body(nil, items, 0)
	bw := bufio.NewWriterSize(w, 256*1024)
	n := len(t.Ranks)
	date, ok := t.Attr(AttrDate)
	if !ok || strings.ContainsAny(date, "()\n") {
		date = "01/01/70 at 00:00"
	}
	fmt.Fprintf(bw, "#Paraver (%s):%d_ns:1(%d):1:%d(", date, ftime, n, n)
	for r := 0; r < n; r++ {
		if r > 0 {
			bw.WriteByte(',')
		}
		bw.WriteString("1:1")
	}
	fmt.Fprintf(bw, "),%d\n", len(t.Comms))
	for i, c := range t.Comms {
		fmt.Fprintf(bw, "c:1:%d:", p.commIDs[i])
		switch {
		case i == 0 || c.Ranks == nil:
			bw.WriteString(strconv.Itoa(n))
			for r := 0; r < n; r++ {
				fmt.Fprintf(bw, ":%d", r+1)
			}
		case len(c.Ranks) == 0:
			bw.WriteString("1:-1")
		default:
			bw.WriteString(strconv.Itoa(len(c.Ranks)))
			for _, m := range c.Ranks {
				fmt.Fprintf(bw, ":%d", m+1)
			}
		}
		bw.WriteByte('\n')
	}
	if _, err := p.body(bw, items, ftime); err != nil {
		return err
	}
	return bw.Flush()
}

// body writes the records of items to bw and returns the last time
// written; a nil bw only computes that time. ftime is the end of states
// never left.
func (p *plan) body(bw *bufio.Writer, items []item, ftime int64) (int64, error) {
	t, n := p.t, len(p.t.Ranks)
	last := int64(0)
	// open[rank][type] are the states the reader will consider open
	// (nested for Extrae's MPI types, one for the others): a leave is
	// written only for the innermost, and, for a type that does not
	// nest, not when the next event enters another state of the type at
	// the same time (that enter leaves it).
	open := make([]map[int32][]tracefmt.StateID, n)
	var buf []byte
	for _, it := range items {
		r := int(it.rank)
		ev := t.Ranks[r].Events
		e := &ev[it.idx]
		end := int64(0)
		who := func(kind byte) {
			buf = append(buf[:0], kind, ':')
			buf = strconv.AppendInt(buf, int64(r+1), 10)
			buf = append(buf, ":1:"...)
			buf = strconv.AppendInt(buf, int64(r+1), 10)
			buf = append(buf, ":1:"...)
			buf = strconv.AppendInt(buf, it.time, 10)
		}
		num := func(v int64) {
			buf = append(buf, ':')
			buf = strconv.AppendInt(buf, v, 10)
		}
		switch e.Kind {
		case tracefmt.KindEnter:
			ref := p.states[e.State()]
			if ref.typ == 0 {
				end = ftime
				if e.Match >= 0 {
					end = p.ns(ev[e.Match].Time)
				}
				who('1')
				num(end)
				num(ref.value)
				break
			}
			if open[r] == nil {
				open[r] = map[int32][]tracefmt.StateID{}
			}
			if ref.typ/1000000 == 50 {
				open[r][ref.typ] = append(open[r][ref.typ], e.State())
			} else {
				open[r][ref.typ] = append(open[r][ref.typ][:0], e.State())
			}
			who('2')
			num(int64(ref.typ))
			num(ref.value)
		case tracefmt.KindLeave:
			ref := p.states[e.State()]
			if ref.typ == 0 {
				continue
			}
			st := open[r][ref.typ]
			if len(st) == 0 || st[len(st)-1] != e.State() {
				continue
			}
			open[r][ref.typ] = st[:len(st)-1]
			// The reader nests Extrae MPI calls, so their leaves are
			// always written.
			if int(it.idx)+1 < len(ev) && ref.typ/1000000 != 50 {
				next := &ev[it.idx+1]
				if next.Kind == tracefmt.KindEnter && p.states[next.State()].typ == ref.typ && p.ns(next.Time) == it.time {
					continue
				}
			}
			who('2')
			num(int64(ref.typ))
			num(0)
		case tracefmt.KindMarker:
			v, err := strconv.ParseInt(t.Text(e), 10, 64)
			if err != nil {
				v = 1
			}
			who('2')
			num(int64(p.markers[e.Marker()]))
			num(v)
		case tracefmt.KindSend:
			rv := &t.Ranks[e.Peer].Events[e.Match]
			tr := p.ns(rv.Time)
			// Physical send and logical receive: the trace's when its
			// source recorded them, else the call and the arrival.
			ps := p.ns(t.PhysicalSend(tracefmt.EventRef{Rank: int32(r), Index: it.idx}))
			lr := p.ns(t.PostedAt(tracefmt.EventRef{Rank: e.Peer, Index: e.Match}))
			end = max(tr, ps, lr)
			who('3')
			num(ps)
			num(int64(e.Peer) + 1)
			num(1)
			num(int64(e.Peer) + 1)
			num(1)
			num(lr)
			num(tr)
			num(e.Size)
			num(int64(e.Tag))
		case tracefmt.KindCollective:
			op := globalOpID(e.Op())
			if op < 0 {
				op = len(globalOps)
			}
			flag := int64(0)
			if e.Op().Rooted() && e.Root() == r {
				flag = 1
			}
			who('4')
			num(p.commIDs[e.Comm])
			num(e.Size)
			num(e.RecvBytes())
			num(int64(op))
			num(flag)
		}
		last = max(last, it.time, end)
		if bw == nil {
			continue
		}
		buf = append(buf, '\n')
		if _, err := bw.Write(buf); err != nil {
			return 0, err
		}
	}
	return last, nil
}

func (p *plan) writePCF(w io.Writer) error {
	bw := bufio.NewWriter(w)
	bw.WriteString("DEFAULT_OPTIONS\n\nLEVEL               THREAD\nUNITS               NANOSEC\nLOOK_BACK           100\nSPEED               1\nFLAG_ICONS          ENABLED\nNUM_OF_STATE_COLORS 1000\nYMAX_SCALE          37\n\n\n")
	bw.WriteString("DEFAULT_SEMANTIC\n\nTHREAD_FUNC          State As Is\n\n\n")
	bw.WriteString("STATES\n")
	for _, v := range sortedKeys(p.stateVals) {
		fmt.Fprintf(bw, "%-4d %s\n", v, p.stateVals[v])
	}
	bw.WriteString("\n\nSTATES_COLOR\n")
	for _, v := range sortedKeys(p.colors) {
		fmt.Fprintf(bw, "%-4d %s\n", v, p.colors[v])
	}
	bw.WriteString("\n")
	for _, typ := range sortedKeys(p.typeNames) {
		fmt.Fprintf(bw, "\nEVENT_TYPE\n0    %d    %s\n", typ, p.typeNames[typ])
		if vals := p.values[typ]; vals != nil {
			bw.WriteString("VALUES\n")
			for _, v := range sortedKeys(vals) {
				fmt.Fprintf(bw, "%-6d %s\n", v, vals[v])
			}
		}
		bw.WriteString("\n")
	}
	return bw.Flush()
}

func (p *plan) writeRow(w io.Writer) error {
	bw := bufio.NewWriter(w)
	n := len(p.t.Ranks)
	names := []string(nil)
	if v, ok := p.t.Attr(AttrTaskNames); ok {
		names = strings.Split(v, "|")
	}
	fmt.Fprintf(bw, "LEVEL CPU SIZE %d\n", n)
	for r := 1; r <= n; r++ {
		fmt.Fprintf(bw, "CPU %d\n", r)
	}
	fmt.Fprintf(bw, "\nLEVEL NODE SIZE 1\nnode 1\n\nLEVEL TASK SIZE %d\n", n)
	for r := 1; r <= n; r++ {
		if len(names) == n && names[r-1] != "" {
			fmt.Fprintln(bw, names[r-1])
		} else {
			fmt.Fprintf(bw, "TASK 1.%d\n", r)
		}
	}
	fmt.Fprintf(bw, "\nLEVEL THREAD SIZE %d\n", n)
	for r := 1; r <= n; r++ {
		fmt.Fprintf(bw, "THREAD 1.%d.1\n", r)
	}
	return bw.Flush()
}
