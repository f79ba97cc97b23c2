package tsim

import (
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/tracefmt/rankmerge"
)

// Write writes t in the tsim format. The output depends only on t: the
// header lists every attribute, communicator, state and marker definition
// in table order, then the records follow, merged by (time, rank) for a
// timed trace (each rank's events stay in their order even where its
// clock runs backwards) and rank by rank for an untimed one. Reading the
// output gives back an equal trace (see the package documentation for
// what "equal" covers).
func Write(w io.Writer, t *tracefmt.Trace) error {
	if err := checkWritable(t); err != nil {
		return err
	}
	wr := &writer{w: w, t: t, buf: make([]byte, 0, 64<<10)}
	wr.header()
	if t.Timed {
		wr.merged()
	} else {
		for r := range t.Ranks {
			for i := range t.Ranks[r].Events {
				wr.record(r, &t.Ranks[r].Events[i])
			}
		}
	}
	wr.flush()
	if wr.err != nil {
		return fmt.Errorf("tsim: write: %w", wr.err)
	}
	return nil
}

// checkWritable rejects what the format cannot express.
func checkWritable(t *tracefmt.Trace) error {
	if len(t.Ranks) > MaxRanks {
		return fmt.Errorf("tsim: %d ranks, more than the %d the format allows", len(t.Ranks), MaxRanks)
	}
	if _, ok := tracefmt.ParseUnit(t.Unit.String()); !ok {
		return fmt.Errorf("tsim: time unit %s cannot be written (tsim knows s, ms, us, ns, ps)", t.Unit)
	}
	if err := t.Validate(); err != nil {
		return fmt.Errorf("tsim: invalid trace: %w", err)
	}
	if len(t.Comms) > 0x10000 {
		return fmt.Errorf("tsim: %d communicators, more than the 65536 the format allows", len(t.Comms))
	}
	members := 0
	for _, c := range t.Comms {
		members += len(c.Ranks)
	}
	if members > maxMembers {
		return fmt.Errorf("tsim: %d communicator members in all, more than the %d the format allows", members, maxMembers)
	}
	for _, s := range t.States {
		if _, ok := tracefmt.ParseCategory(s.Category.String()); !ok {
			return fmt.Errorf("tsim: state %q: unknown category %d", s.Name, uint8(s.Category))
		}
	}
	for r := range t.Ranks {
		ev := t.Ranks[r].Events
		for i := range ev {
			e := &ev[i]
			if t.Timed && (math.IsNaN(e.Time) || math.IsInf(e.Time, 0)) {
				return fmt.Errorf("tsim: rank %d event %d (%s): time %v cannot be written", r, i, e.Kind, e.Time)
			}
			if e.Kind == tracefmt.KindCollective {
				if _, ok := tracefmt.ParseCollOp(e.Op().String()); !ok {
					return fmt.Errorf("tsim: rank %d event %d: unknown collective operation %d", r, i, uint8(e.Op()))
				}
			}
		}
	}
	return nil
}

type writer struct {
	w   io.Writer
	t   *tracefmt.Trace
	buf []byte
	err error
	// References to table entries as records write them.
	states, markers, comms []string
	unit                   string
}

func (w *writer) flush() {
	if w.err == nil && len(w.buf) > 0 {
		_, w.err = w.w.Write(w.buf)
	}
	w.buf = w.buf[:0]
}

// endLine terminates a line and writes the buffer out when it is full.
func (w *writer) endLine() {
	w.buf = append(w.buf, '\n')
	if len(w.buf) >= 60<<10 {
		w.flush()
	}
}

func (w *writer) header() {
	t := w.t
	w.buf = fmt.Appendf(w.buf, "tsim %d\nranks %d\nunit %s\n", Version, len(t.Ranks), t.Unit)
	w.unit = t.Unit.String()
	if t.Timed {
		w.buf = append(w.buf, "timed\n"...)
	} else {
		w.buf = append(w.buf, "untimed\n"...)
	}
	if pairingOf(t) == tracefmt.PairOldest {
		w.buf = append(w.buf, "pairing oldest\n"...)
	}
	for _, a := range t.Attrs {
		w.buf = append(w.buf, "attr "...)
		w.buf = appendString(w.buf, a.Key)
		w.buf = append(w.buf, ' ')
		w.buf = appendString(w.buf, a.Value)
		w.endLine()
	}
	for i, c := range t.Comms {
		if i == 0 && c.Name == "MPI_COMM_WORLD" && c.ID == 0 && len(c.Ranks) == 0 {
			continue
		}
		if i == 0 {
			w.buf = append(w.buf, "world "...)
		} else {
			w.buf = append(w.buf, "comm "...)
		}
		w.buf = appendName(w.buf, c.Name)
		if c.ID != 0 {
			w.buf = append(w.buf, " id="...)
			w.buf = strconv.AppendInt(w.buf, int64(c.ID), 10)
		}
		if len(c.Ranks) > 0 {
			w.buf = append(w.buf, " ranks="...)
			w.buf = appendRankList(w.buf, c.Ranks)
		}
		w.endLine()
	}
	for _, s := range t.States {
		w.buf = append(w.buf, "state "...)
		w.buf = appendName(w.buf, s.Name)
		w.buf = append(w.buf, " cat="...)
		w.buf = append(w.buf, s.Category.String()...)
		w.definition(s.Color, s.Format, s.Source)
	}
	for _, m := range t.Markers {
		w.buf = append(w.buf, "marker "...)
		w.buf = appendName(w.buf, m.Name)
		w.definition(m.Color, m.Format, m.Source)
	}
	w.buf = append(w.buf, "\n# TIME RANK KIND ARGUMENTS\n"...)
	w.flush()

	w.states = refs(len(t.States), func(i int) string { return t.States[i].Name })
	w.markers = refs(len(t.Markers), func(i int) string { return t.Markers[i].Name })
	w.comms = refs(len(t.Comms), func(i int) string { return t.Comms[i].Name })
}

// definition ends a state or marker line with its optional arguments.
func (w *writer) definition(color, format string, src tracefmt.SourceIDs) {
	if color != "" {
		w.buf = append(w.buf, " color="...)
		w.buf = appendValue(w.buf, color)
	}
	if format != "" {
		w.buf = append(w.buf, " format="...)
		w.buf = appendValue(w.buf, format)
	}
	if src != (tracefmt.SourceIDs{}) {
		w.buf = append(w.buf, " src="...)
		w.buf = strconv.AppendInt(w.buf, int64(src.ID), 10)
		if src.Start != 0 || src.End != 0 {
			w.buf = append(w.buf, ',')
			w.buf = strconv.AppendInt(w.buf, int64(src.Start), 10)
		}
		if src.End != 0 {
			w.buf = append(w.buf, ',')
			w.buf = strconv.AppendInt(w.buf, int64(src.End), 10)
		}
	}
	w.endLine()
}

// refs returns how records refer to each entry of a table: by name when
// the name is unique and not empty, else by index.
func refs(n int, name func(int) string) []string {
	count := make(map[string]int, n)
	for i := range n {
		count[name(i)]++
	}
	out := make([]string, n)
	for i := range n {
		s := name(i)
		if s == "" || count[s] > 1 {
			out[i] = strconv.Itoa(i)
		} else {
			out[i] = string(appendName(nil, s))
		}
	}
	return out
}

// appendRankList writes world ranks as "0,2,4-7".
func appendRankList(dst []byte, ranks []int32) []byte {
	for i := 0; i < len(ranks); {
		j := i
		for j+1 < len(ranks) && ranks[j+1] == ranks[j]+1 {
			j++
		}
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = strconv.AppendInt(dst, int64(ranks[i]), 10)
		switch {
		case j-i >= 2:
			dst = append(dst, '-')
			dst = strconv.AppendInt(dst, int64(ranks[j]), 10)
		case j == i+1:
			// Two consecutive ranks read better as a pair than a range.
			dst = append(dst, ',')
			dst = strconv.AppendInt(dst, int64(ranks[j]), 10)
		}
		i = j + 1
	}
	return dst
}

// pairingOf returns the pairing rule that reproduces the trace's
// enter/leave matches: PairOldest only when PairNewest does not and
// PairOldest does.
func pairingOf(t *tracefmt.Trace) tracefmt.Pairing {
	if pairs(t, tracefmt.PairNewest) || !pairs(t, tracefmt.PairOldest) {
		return tracefmt.PairNewest
	}
	return tracefmt.PairOldest
}

// pairs reports whether pairing rule p gives the trace's matches. Open
// enters are kept per state (a stack, or a queue read from head), so that
// the check is linear however deep states nest.
func pairs(t *tracefmt.Trace, p tracefmt.Pairing) bool {
	type openList struct {
		index []int32
		head  int
	}
	open := map[tracefmt.StateID]*openList{}
	for r := range t.Ranks {
		ev := t.Ranks[r].Events
		clear(open)
		for i := range ev {
			e := &ev[i]
			switch e.Kind {
			case tracefmt.KindEnter:
				l := open[e.State()]
				if l == nil {
					l = &openList{}
					open[e.State()] = l
				}
				l.index = append(l.index, int32(i))
			case tracefmt.KindLeave:
				l := open[e.State()]
				if l == nil || l.head == len(l.index) {
					if e.Match != -1 {
						return false
					}
					continue
				}
				var k int32
				if p == tracefmt.PairOldest {
					k = l.index[l.head]
					l.head++
				} else {
					k = l.index[len(l.index)-1]
					l.index = l.index[:len(l.index)-1]
				}
				if e.Match != k || ev[k].Match != int32(i) {
					return false
				}
			}
		}
		for _, l := range open {
			for _, k := range l.index[l.head:] {
				if ev[k].Match != -1 {
					return false
				}
			}
		}
	}
	return true
}

// merged writes the records of a timed trace ordered by (time, rank),
// each rank's events in their own order (see rankmerge).
func (w *writer) merged() {
	t := w.t
	count := func(r int) int { return len(t.Ranks[r].Events) }
	key := func(r, i int) float64 { return t.Ranks[r].Events[i].Time }
	for r, i := range rankmerge.Merge(len(t.Ranks), count, key) {
		if w.err != nil {
			return
		}
		w.record(r, &t.Ranks[r].Events[i])
	}
}

// record writes one event.
func (w *writer) record(r int, e *tracefmt.Event) {
	b := w.buf
	if w.t.Timed {
		b = appendFloat(b, e.Time)
	} else {
		b = append(b, '-')
	}
	b = append(b, ' ')
	b = strconv.AppendInt(b, int64(r), 10)
	b = append(b, ' ')
	b = append(b, e.Kind.String()...)
	flags := e.Flags
	switch e.Kind {
	case tracefmt.KindEnter, tracefmt.KindLeave:
		b = append(b, ' ')
		b = append(b, w.states[e.State()]...)
		if e.Kind == tracefmt.KindEnter {
			b = w.appendText(b, e)
		}
	case tracefmt.KindMarker:
		b = append(b, ' ')
		b = append(b, w.markers[e.Marker()]...)
		b = w.appendText(b, e)
	case tracefmt.KindSend, tracefmt.KindRecv:
		if e.Kind == tracefmt.KindSend {
			b = append(b, " to="...)
		} else {
			b = append(b, " from="...)
		}
		b = strconv.AppendInt(b, int64(e.Peer), 10)
		b = append(b, " tag="...)
		b = strconv.AppendInt(b, int64(e.Tag), 10)
		b = append(b, " size="...)
		b = strconv.AppendInt(b, e.Size, 10)
		b = w.appendComm(b, e.Comm)
		b = appendReq(b, e.Request())
	case tracefmt.KindWait:
		b = appendReq(b, e.Request())
	case tracefmt.KindCollective:
		b = append(b, ' ')
		b = append(b, e.Op().String()...)
		if e.Root() != -1 || e.Op().Rooted() {
			b = append(b, " root="...)
			b = strconv.AppendInt(b, int64(e.Root()), 10)
		}
		if e.Size != 0 {
			b = append(b, " sent="...)
			b = strconv.AppendInt(b, e.Size, 10)
		}
		if e.RecvBytes() != 0 {
			b = append(b, " recv="...)
			b = strconv.AppendInt(b, e.RecvBytes(), 10)
		}
		b = w.appendComm(b, e.Comm)
		if flags.Has(tracefmt.FlagSizeUnknown) {
			b = append(b, " sizeunknown"...)
		}
	case tracefmt.KindCompute:
		if flags.Has(tracefmt.FlagWork) {
			b = append(b, " flops="...)
			b = appendFloat(b, e.Amount())
			flags &^= tracefmt.FlagWork
		} else {
			b = append(b, " dur="...)
			b = appendFloat(b, e.Amount())
			b = append(b, w.unit...)
		}
	}
	b = appendFlags(b, flags)
	w.buf = b
	w.endLine()
}

func (w *writer) appendText(b []byte, e *tracefmt.Event) []byte {
	if e.TextRef() < 0 {
		return b
	}
	b = append(b, " text="...)
	return appendValue(b, w.t.Texts[e.TextRef()])
}

func (w *writer) appendComm(b []byte, c uint16) []byte {
	if c == 0 {
		return b
	}
	b = append(b, " comm="...)
	return append(b, w.comms[c]...)
}

func appendReq(b []byte, req int64) []byte {
	if req == 0 {
		return b
	}
	b = append(b, " req="...)
	return strconv.AppendInt(b, req, 10)
}

// flagWords names the flags in bit order; FlagWork is written as flops=.
var flagWords = [8]string{"nb", "sendrecv", "sync", "anysrc", "anytag", "", "all", "test"}

func appendFlags(b []byte, f tracefmt.Flags) []byte {
	for i, name := range flagWords {
		if f&(1<<i) != 0 && name != "" {
			b = append(b, ' ')
			b = append(b, name...)
		}
	}
	return b
}

// appendFloat writes x so that parsing it gives x again: plain decimals
// for the magnitudes of times and amounts, exponent notation otherwise.
func appendFloat(b []byte, x float64) []byte {
	if a := math.Abs(x); a == 0 || a >= 1e-5 && a < 1e21 {
		return strconv.AppendFloat(b, x, 'f', -1, 64)
	}
	return strconv.AppendFloat(b, x, 'g', -1, 64)
}

// bareSafe reports whether c may appear in a name written without quotes.
func bareSafe(c byte) bool {
	switch {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		return true
	}
	switch c {
	case '_', '-', '.', ':', '/', '+', '@', '%', '&', '*', '(', ')', '[', ']', '{', '}', '<', '>', '?', '!', '~', '^', ',', ';', '$', '\'', '|', '#':
		return true
	}
	return false
}

// appendString writes a field s bare when it reads back as is, else in
// quotes (Go syntax).
func appendString(b []byte, s string) []byte {
	if s == "" || s[0] == '#' || needsQuotes(s) {
		return strconv.AppendQuote(b, s)
	}
	return append(b, s...)
}

// appendValue is appendString for the value of a KEY=VALUE argument,
// where a leading # does not start a comment (color=#ff0000).
func appendValue(b []byte, s string) []byte {
	if s == "" || needsQuotes(s) {
		return strconv.AppendQuote(b, s)
	}
	return append(b, s...)
}

// appendName is appendString for names, which are quoted also when made
// of digits only (a bare number in a record is a table index).
func appendName(b []byte, s string) []byte {
	if allDigits([]byte(s)) {
		return strconv.AppendQuote(b, s)
	}
	return appendString(b, s)
}

func needsQuotes(s string) bool {
	for i := 0; i < len(s); i++ {
		if !bareSafe(s[i]) {
			return true
		}
	}
	return false
}
