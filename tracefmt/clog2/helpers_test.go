package clog2

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"testing"

	"github.com/tracesim/tracesim/internal/testshared"
	"github.com/tracesim/tracesim/tracefmt"
)

// cpilogPath is MPE's cpilog sample in the sibling shared checkout; its
// licence does not allow copying it into the repository.
var cpilogPath = testshared.Dir() + "/clog2/cpilog.clog2"

func readCpilogBytes(tb testing.TB) []byte {
	tb.Helper()
	b, err := os.ReadFile(cpilogPath)
	if err != nil {
		tb.Skipf("shared sample not available: %v", err)
	}
	return b
}

// craft builds CLOG2 files record by record, in either byte order, for
// tests that need files our writer would not produce.
type craft struct {
	order     binary.AppendByteOrder
	tokens    []string // preamble strings; commtable_fptr values are filled in
	blockSize int
	blocks    [][]byte
	cur       []byte
	filler    byte // filler byte of blocks after the terminator
	stale     bool // filler is the previous block's bytes, as MPE leaves it
	// auto closes blocks by MPE's rule (every records per block when
	// every > 0).
	auto    bool
	every   int
	inBlock int
	thread  int32 // thread of the next record
	table   []byte
	noTable bool
	fptr    int64 // commtable_fptr override (0: computed)
}

// newCraft returns a merged (big-endian, finalized) or per-process
// (little-endian, unfinalized) CLOG-02.44 file of world ranks.
func newCraft(merged bool, world, blockSize int) *craft {
	c := &craft{order: binary.BigEndian, blockSize: blockSize}
	flag := "TRUE "
	if !merged {
		c.order, flag = binary.LittleEndian, "FALSE"
	}
	c.tokens = []string{
		"CLOG-02.44", "is_big_endian=", flag, "is_finalzed=", flag,
		"block_size=", strconv.Itoa(blockSize), "num_buffered_blocks=", "128",
		"max_comm_world_size=", strconv.Itoa(world), "max_thread_count=", "1",
		"known_eventID_start=", "0", "user_eventID_start=", "600",
		"known_solo_eventID_start=", "-10", "user_solo_eventID_start=", "5000",
		"known_stateID_count=", "300", "user_stateID_count=", "10",
		"known_solo_eventID_count=", "0", "user_solo_eventID_count=", "10",
		"commtable_fptr=",
	}
	return c
}

// field values of a record body.
type (
	i32 int32
	f64 float64
	str struct {
		s string
		n int
	}
	raw []byte
)

func (c *craft) put(vals ...any) {
	for _, v := range vals {
		switch v := v.(type) {
		case i32:
			c.cur = c.order.AppendUint32(c.cur, uint32(v))
		case f64:
			c.cur = c.order.AppendUint64(c.cur, math.Float64bits(float64(v)))
		case str:
			b := make([]byte, v.n)
			copy(b, v.s)
			c.cur = append(c.cur, b...)
		case raw:
			c.cur = append(c.cur, v...)
		default:
			panic(fmt.Sprintf("craft: %T", v))
		}
	}
}

// rec appends a record: header then body fields.
func (c *craft) rec(t float64, icomm, rank int32, typ int32, body ...any) *craft {
	rest := c.cur
	c.cur = nil
	c.put(f64(t), i32(icomm), i32(rank), i32(c.thread), i32(typ))
	c.put(body...)
	r := c.cur
	c.cur, c.thread = rest, 0
	if c.auto && (c.every > 0 && c.inBlock == c.every || c.every == 0 && len(c.cur)+len(r)+headerSize >= c.blockSize) {
		c.end(recEndBlock, t)
	}
	c.cur = append(c.cur, r...)
	c.inBlock++
	return c
}

// Record bodies.
func bare(etype int32) []any { return []any{i32(etype), i32(0)} }
func cargo(etype int32, s string) []any {
	return []any{i32(etype), i32(0), str{s, cargoLen}}
}
func msg(etype, icomm, partner, tag, size int32) []any {
	return []any{i32(etype), i32(icomm), i32(partner), i32(tag), i32(size), i32(0)}
}
func coll(etype, root, size int32) []any { return []any{i32(etype), i32(root), i32(size), i32(0)} }
func commevt(etype, icomm, rank, wrank int32) []any {
	return []any{i32(etype), i32(icomm), i32(rank), i32(wrank), i32(7 + icomm), f64(1.5), str{"host", hostLen}}
}
func statedef(id, start, end int32, color, name string) []any {
	return []any{i32(id), i32(start), i32(end), i32(0), str{color, colorLen}, str{name, nameLen}, str{"", formatLen}}
}
func constdef(value int32, name string) []any {
	return []any{i32(etypeConst), i32(value), str{name, nameLen}}
}
func timeshift(s float64) []any { return []any{f64(s)} }

// end closes the current block with ENDBLOCK (stamped t) or ENDLOG.
func (c *craft) end(typ int32, t float64) *craft {
	c.put(f64(t), i32(0), i32(0), i32(0), i32(typ))
	blk := bytes.Repeat([]byte{c.filler}, c.blockSize)
	if c.stale && len(c.blocks) > 0 {
		copy(blk, c.blocks[len(c.blocks)-1])
	}
	copy(blk, c.cur)
	c.blocks = append(c.blocks, blk)
	c.cur, c.inBlock = nil, 0
	return c
}

// comms sets the communicator table: ids with the given kinds.
func (c *craft) comms(ids []int32, kinds []int32) *craft {
	c.table = c.order.AppendUint32(nil, uint32(len(ids)))
	for i, id := range ids {
		var e []byte
		e = c.order.AppendUint32(e, uint32(7+id))
		e = c.order.AppendUint64(e, math.Float64bits(1.5))
		h := make([]byte, hostLen)
		copy(h, "host")
		e = append(e, h...)
		e = c.order.AppendUint32(e, uint32(id))
		e = c.order.AppendUint32(e, uint32(kinds[i]))
		c.table = append(c.table, e...)
	}
	return c
}

func (c *craft) bytes() []byte {
	fptr := int64(preambleLen + c.blockSize*len(c.blocks))
	if c.fptr != 0 {
		fptr = c.fptr
	}
	toks := slices.Clone(c.tokens)
	if c.noTable && toks[len(toks)-1] == "commtable_fptr=" {
		toks = toks[:len(toks)-1]
	}
	if toks[len(toks)-1] == "commtable_fptr=" {
		toks = append(toks, strconv.FormatInt(fptr/oneGiga, 10), strconv.Itoa(oneGiga), strconv.FormatInt(fptr%oneGiga, 10))
	}
	pre := make([]byte, preambleLen)
	at := 0
	for _, s := range toks {
		at += copy(pre[at:], s) + 1
	}
	out := slices.Concat(append([][]byte{pre}, c.blocks...)...)
	return append(out, c.table...)
}

// worldCommEvts appends TIMESHIFT and the WORLD/SELF COMMEVTs of every
// rank at time t, self communicators numbered 1+w.
func (c *craft) worldCommEvts(world int, t float64) *craft {
	ranks := make([]int32, world)
	for w := range ranks {
		ranks[w] = int32(w)
	}
	slices.SortFunc(ranks, func(a, b int32) int { // MPE's order for equal times
		if postLess(a, b) {
			return -1
		}
		return 1
	})
	for _, w := range ranks {
		c.rec(t, 0, w, recTimeShift, timeshift(0)...)
		c.rec(t, 0, w, recCommEvt, commevt(commWorldCreate, 0, w, w)...)
		c.rec(t, 0, w, recCommEvt, commevt(commSelfCreate, 1+w, 0, w)...)
	}
	return c
}

// worldTable sets a table of the world and every rank's self.
func (c *craft) worldTable(world int) *craft {
	ids, kinds := []int32{0}, []int32{kindIntra}
	for w := range int32(world) {
		ids = append(ids, 1+w)
		kinds = append(kinds, kindUnknown)
	}
	return c.comms(ids, kinds)
}

// synthOptions shape a synthetic trace.
type synthOptions struct {
	ranks   int
	steps   int
	unit    tracefmt.Unit
	subComm bool // messages and collectives on a communicator of the even ranks
	markers bool
	nested  bool // overlapping starts of one state (oldest-first pairing)
}

// synth builds a timed trace the way other formats do: MPI states around
// messages and collectives, user states with info texts, markers, compute
// bursts and waits (which CLOG2 has no record for).
func synth(tb testing.TB, o synthOptions) *tracefmt.Trace {
	tb.Helper()
	P := o.ranks
	b := tracefmt.NewBuilder(P, true, o.unit)
	if o.nested {
		// CLOG2 pairs an end with the oldest open start (MPE's rule), so a
		// source must pair so too to survive the trip unchanged.
		b.SetPairing(tracefmt.PairOldest)
	}
	send, recv := b.State("MPI_Send"), b.State("MPI_Recv")
	bcast, allred := b.State("MPI_Bcast"), b.State("MPI_Allreduce")
	work := b.DefineState(tracefmt.StateDef{Name: "solve phase", Color: "#4080ff", Category: tracefmt.CatUser, Format: "iter=%d"})
	mark := b.Marker("checkpoint")
	var sub uint16
	if o.subComm {
		var members []int32
		for w := 0; w < P; w += 2 {
			members = append(members, int32(w))
		}
		var err error
		if sub, err = b.AddComm(tracefmt.Comm{Name: "evens", Ranks: members}); err != nil {
			tb.Fatal(err)
		}
	}
	scale := 1 / o.unit.Seconds() // ticks per second
	add := func(r int, e tracefmt.Event) {
		if _, err := b.Add(r, e); err != nil {
			tb.Fatal(err)
		}
	}
	for r := range P {
		t := float64(r) * 1e-6 * scale
		tick := func(d float64) float64 { t += d * scale; return t }
		for s := range o.steps {
			e := tracefmt.Enter(tick(1e-5), work)
			e.SetTextRef(b.Text(fmt.Sprintf("step %d of rank %d", s, r)))
			add(r, e)
			add(r, tracefmt.ComputeTime(tick(1e-6), 3e-5*scale))
			if o.nested {
				add(r, tracefmt.Enter(tick(1e-6), work))
			}
			add(r, tracefmt.Leave(tick(4e-5), work))
			if o.nested {
				add(r, tracefmt.Leave(tick(1e-6), work))
			}
			dst, src := (r+1)%P, (r+P-1)%P
			add(r, tracefmt.Enter(tick(1e-6), send))
			add(r, tracefmt.Send(tick(1e-6), dst, int32(s%5), 0, int64(1024*(s+1))))
			add(r, tracefmt.Leave(tick(2e-6), send))
			add(r, tracefmt.Enter(tick(1e-6), recv))
			add(r, tracefmt.Recv(tick(3e-6), src, int32(s%5), 0, int64(1024*(s+1))))
			add(r, tracefmt.Wait(tick(0), 0))
			add(r, tracefmt.Leave(tick(1e-6), recv))
			add(r, tracefmt.Enter(tick(1e-6), bcast))
			add(r, tracefmt.Collective(tick(1e-6), tracefmt.OpBcast, s%P, 0, 64, 0))
			add(r, tracefmt.Leave(tick(1e-6), bcast))
			if o.subComm && r%2 == 0 {
				add(r, tracefmt.Enter(tick(1e-6), allred))
				add(r, tracefmt.Collective(tick(1e-6), tracefmt.OpAllreduce, -1, sub, 8, 0))
				add(r, tracefmt.Leave(tick(1e-6), allred))
				E, k := (P+1)/2, r/2
				if E > 1 {
					dst, src := 2*((k+1)%E), 2*((k+E-1)%E)
					add(r, tracefmt.Enter(tick(1e-6), send))
					add(r, tracefmt.Send(tick(1e-6), dst, 99, sub, 16))
					add(r, tracefmt.Leave(tick(1e-6), send))
					add(r, tracefmt.Enter(tick(1e-6), recv))
					add(r, tracefmt.Recv(tick(1e-6), src, 99, sub, 16))
					add(r, tracefmt.Leave(tick(1e-6), recv))
				}
			}
			if o.markers && s%3 == 0 {
				m := tracefmt.Mark(tick(1e-6), mark)
				m.SetTextRef(b.Text("ckpt " + strconv.Itoa(s)))
				add(r, m)
			}
		}
	}
	tr, err := b.Finish()
	if err != nil {
		tb.Fatal(err)
	}
	tr.Format = "synthetic"
	return tr
}

// semantics lists what a trace says in MPI terms, rank by rank, in
// seconds: states with their info texts, messages with their matched
// partners, collectives, user markers. Compute bursts, waits and
// CLOG2 bookkeeping are left out.
func semantics(t *tracefmt.Trace) []string {
	// Index of each kept event among its rank's kept events.
	pos := make([][]int, t.Size())
	for r := range t.Ranks {
		pos[r] = make([]int, len(t.Ranks[r].Events))
		n := 0
		for i := range t.Ranks[r].Events {
			pos[r][i] = -1
			if keep(t, &t.Ranks[r].Events[i]) {
				pos[r][i] = n
				n++
			}
		}
	}
	comm := func(c uint16) string {
		if c == 0 {
			return "world"
		}
		return fmt.Sprint(t.Comms[c].Ranks)
	}
	var out []string
	for r := range t.Ranks {
		ev := t.Ranks[r].Events
		for i := range ev {
			e := &ev[i]
			if !keep(t, e) {
				continue
			}
			s := fmt.Sprintf("r%d %s t=%v", r, e.Kind, t.Seconds(e.Time))
			switch e.Kind {
			case tracefmt.KindEnter:
				st := t.States[e.State()]
				s += fmt.Sprintf(" %s color=%q cat=%s text=%q", st.Name, st.Color, st.Category, t.Text(e))
				if e.Match >= 0 {
					s += fmt.Sprintf(" leave@%d", pos[r][e.Match])
				}
			case tracefmt.KindLeave:
				s += " " + t.StateName(e.State())
			case tracefmt.KindSend, tracefmt.KindRecv:
				s += fmt.Sprintf(" peer=%d tag=%d size=%d comm=%s", e.Peer, e.Tag, e.Size, comm(e.Comm))
				if e.Match >= 0 {
					s += fmt.Sprintf(" match@%d", pos[e.Peer][e.Match])
				}
			case tracefmt.KindCollective:
				s += fmt.Sprintf(" %s root=%d size=%d comm=%s", e.Op(), e.Root(), e.Size, comm(e.Comm))
			case tracefmt.KindMarker:
				s += fmt.Sprintf(" %s text=%q", t.Markers[e.Marker()].Name, t.Text(e))
			}
			out = append(out, s)
		}
	}
	return out
}

func keep(t *tracefmt.Trace, e *tracefmt.Event) bool {
	switch e.Kind {
	case tracefmt.KindCompute, tracefmt.KindWait:
		return false
	case tracefmt.KindMarker:
		return !IsBookkeeping(t.Markers[e.Marker()].Name)
	}
	return true
}

func writeBytes(tb testing.TB, t *tracefmt.Trace) []byte {
	tb.Helper()
	var buf bytes.Buffer
	if err := Write(&buf, t); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

func readBytes(tb testing.TB, b []byte) *tracefmt.Trace {
	tb.Helper()
	t, err := Read(bytes.NewReader(b))
	if err != nil {
		tb.Fatal(err)
	}
	return t
}

// markerCounts counts marker events by marker name.
// markerCounts counts marker events by name, and the records Read kept
// out of the streams (Trace.Meta) by theirs.
func markerCounts(t *tracefmt.Trace) map[string]int {
	m := map[string]int{}
	for _, x := range t.Meta {
		m[x.Name]++
	}
	for r := range t.Ranks {
		for _, e := range t.Ranks[r].Events {
			if e.Kind == tracefmt.KindMarker {
				m[t.Markers[e.Marker()].Name]++
			}
		}
	}
	return m
}

// firstDiff describes where two byte slices first differ.
func firstDiff(a, b []byte) string {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return fmt.Sprintf("first difference at byte %d (block %d, offset %d in it): %#x vs %#x", i, (i-preambleLen)/65536, (i-preambleLen)%65536, a[i], b[i])
		}
	}
	return fmt.Sprintf("lengths %d and %d", len(a), len(b))
}

func diffLines(a, b []string) string {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return fmt.Sprintf("line %d:\n  %s\n  %s", i, a[i], b[i])
		}
	}
	return fmt.Sprintf("%d lines vs %d", len(a), len(b))
}
