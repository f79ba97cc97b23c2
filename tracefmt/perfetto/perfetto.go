// Package perfetto writes traces in the Chrome trace event format (JSON),
// which ui.perfetto.dev and chrome://tracing open: one thread per rank
// with its states as slices (begin and end events), messages as flow arrows from
// the sender's slice to the receiver's, collectives and markers as
// instant events, and counter ("C") tracks such as a simulated network's
// link utilisation.
//
// The output is written as it is produced: a trace's events go out rank
// by rank, so that only one rank's slices are held at a time.
// Timestamps are microseconds, written in the shortest decimal that
// reads back to the same double.
package perfetto

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/tracesim/tracesim/tracefmt"
)

// Process ids of the tracks: the ranks are threads of one process, the
// counters another process below it.
const (
	RanksPID    = 1
	CountersPID = 2
)

// Writer writes a JSON trace event file.
type Writer struct {
	w      *bufio.Writer
	n      int // events written
	num    []byte
	counts bool // the counters process is named
}

// NewWriter starts a JSON trace on w; Close ends it.
func NewWriter(w io.Writer) *Writer {
	pw := &Writer{w: bufio.NewWriterSize(w, 64<<10)}
	pw.w.WriteString(`{"displayTimeUnit":"ns","traceEvents":[`)
	return pw
}

// next starts an event object.
func (w *Writer) next() {
	if w.n > 0 {
		w.w.WriteString(",\n")
	} else {
		w.w.WriteString("\n")
	}
	w.n++
}

func (w *Writer) str(s string) {
	w.w.WriteByte('"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				w.w.WriteByte('\\')
				w.w.WriteByte(c)
			case c < 0x20:
				fmt.Fprintf(w.w, `\u%04x`, c)
			default:
				w.w.WriteByte(c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			// Invalid UTF-8 from a binary trace's name field: JSON
			// readers reject it, so it becomes U+FFFD.
			w.w.WriteString("\ufffd")
		} else {
			w.w.WriteString(s[i : i+size])
		}
		i += size
	}
	w.w.WriteByte('"')
}

func (w *Writer) float(f float64) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		// JSON has no NaN or infinity.
		w.w.WriteString("0")
		return
	}
	w.num = strconv.AppendFloat(w.num[:0], f, 'f', -1, 64)
	w.w.Write(w.num)
}

func (w *Writer) int(n int64) {
	w.num = strconv.AppendInt(w.num[:0], n, 10)
	w.w.Write(w.num)
}

// head writes the fields every event has.
func (w *Writer) head(ph byte, name string, pid, tid int) {
	w.next()
	w.w.WriteString(`{"ph":"`)
	w.w.WriteByte(ph)
	w.w.WriteString(`","name":`)
	w.str(name)
	w.w.WriteString(`,"pid":`)
	w.int(int64(pid))
	w.w.WriteString(`,"tid":`)
	w.int(int64(tid))
}

// meta writes a metadata event: process_name, thread_name and their
// sort indices.
func (w *Writer) meta(name string, pid, tid int, key string, value func()) {
	w.head('M', name, pid, tid)
	w.w.WriteString(`,"args":{"`)
	w.w.WriteString(key)
	w.w.WriteString(`":`)
	value()
	w.w.WriteString("}}")
}

// Process names process pid.
func (w *Writer) Process(pid int, name string, sort int) {
	w.meta("process_name", pid, 0, "name", func() { w.str(name) })
	w.meta("process_sort_index", pid, 0, "sort_index", func() { w.int(int64(sort)) })
}

// Thread names thread tid of process pid.
func (w *Writer) Thread(pid, tid int, name string) {
	w.meta("thread_name", pid, tid, "name", func() { w.str(name) })
	w.meta("thread_sort_index", pid, tid, "sort_index", func() { w.int(int64(tid)) })
}

// Counter writes the values of counter name at ts (µs): one track per
// series, under the counters process.
func (w *Writer) Counter(name string, ts float64, series []string, values []float64) {
	if !w.counts {
		w.counts = true
		w.Process(CountersPID, "network", CountersPID)
	}
	w.head('C', name, CountersPID, 0)
	w.w.WriteString(`,"ts":`)
	w.float(ts)
	w.w.WriteString(`,"args":{`)
	for i, s := range series {
		if i > 0 {
			w.w.WriteByte(',')
		}
		w.str(s)
		w.w.WriteByte(':')
		w.float(values[i])
	}
	w.w.WriteString("}}")
}

// Close ends the JSON document and flushes it; it returns the first
// error of any write.
func (w *Writer) Close() error {
	w.w.WriteString("\n]}\n")
	return w.w.Flush()
}

// Events returns how many events were written so far.
func (w *Writer) Events() int { return w.n }

// Write writes t as a whole JSON trace to w.
func Write(w io.Writer, t *tracefmt.Trace) error {
	pw := NewWriter(w)
	if err := pw.Trace(t, nil); err != nil {
		return err
	}
	return pw.Close()
}

// slice is a state interval of one rank, in trace units.
type slice struct {
	start, end float64
	state      tracefmt.StateID
	text       string
	clipped    bool
	open       bool
}

// Trace writes t's ranks, states, messages, collectives and markers.
// stop, when not nil, is asked between ranks and every few thousand
// events whether to give up (a cancelled write); its error is returned.
// t must be timed.
func (w *Writer) Trace(t *tracefmt.Trace, stop func() error) error {
	if !t.Timed {
		return fmt.Errorf("perfetto: the trace is untimed: it needs timestamps (give a CPU speed)")
	}
	us := microsOf(t.Unit)
	name := "trace"
	if t.Format != "" {
		name = t.Format + " trace"
	}
	w.Process(RanksPID, fmt.Sprintf("%s (%d ranks)", name, t.Size()), RanksPID)
	// A message's flow id is its send's position in the whole trace
	// (the events of earlier ranks, then its index): both ends know it
	// without a table of messages.
	first := make([]int64, t.Size()+1)
	for r := range t.Ranks {
		first[r+1] = first[r] + int64(len(t.Ranks[r].Events))
	}
	var rs []slice
	var ops []sliceOp
	for r := range t.Ranks {
		if stop != nil {
			if err := stop(); err != nil {
				return err
			}
		}
		tid := r + 1 // tid 0 is the process's own track in some viewers
		w.Thread(RanksPID, tid, fmt.Sprintf("rank %d", r))
		ev := t.Ranks[r].Events
		rs = rankSlices(t, ev, rs[:0])
		// Begin and end events rather than complete ones: a viewer
		// turns microseconds into integer nanoseconds, and a start and
		// a duration rounded apart can end a slice after the next one
		// starts; rounding one timestamp per event keeps the order.
		ops = sliceOps(rs, ops[:0])
		k := 0
		// emit writes the begins and ends up to time at: the begins at
		// at too, its ends not, so that an arrow or instant at a call's
		// first or last instant lands inside the call for a viewer that
		// keeps the file's order among equal times.
		emit := func(at float64) {
			for ; k < len(ops) && (ops[k].ts < at || (ops[k].ts == at && ops[k].s != nil)); k++ {
				if ops[k].s != nil {
					w.begin(t, ops[k].s, us, tid)
				} else {
					w.end(us.of(ops[k].ts), tid)
				}
			}
		}
		for i := range ev {
			if stop != nil && i&0xfff == 0xfff {
				if err := stop(); err != nil {
					return err
				}
			}
			switch ev[i].Kind {
			case tracefmt.KindSend, tracefmt.KindRecv, tracefmt.KindCollective, tracefmt.KindMarker:
				emit(ev[i].Time)
			}
			e := &ev[i]
			switch e.Kind {
			case tracefmt.KindSend:
				if e.Match < 0 {
					continue
				}
				w.flowEvent('s', first[r]+int64(i), e, tid, us)
			case tracefmt.KindRecv:
				if e.Match < 0 || int(e.Peer) < 0 || int(e.Peer) >= t.Size() {
					continue
				}
				w.flowEvent('f', first[e.Peer]+int64(e.Match), e, tid, us)
			case tracefmt.KindCollective:
				w.head('i', e.Op().String(), RanksPID, tid)
				w.w.WriteString(`,"cat":"collective","s":"t","ts":`)
				w.float(us.of(e.Time))
				w.w.WriteString(`,"args":{"comm":`)
				w.int(int64(e.Comm))
				if e.Op().Rooted() {
					w.w.WriteString(`,"root":`)
					w.int(int64(e.Root()))
				}
				w.w.WriteString(`,"sent_bytes":`)
				w.int(e.Size)
				w.w.WriteString(`,"recv_bytes":`)
				w.int(e.RecvBytes())
				w.w.WriteString("}}")
			case tracefmt.KindMarker:
				mk := fmt.Sprintf("marker %d", e.Marker())
				if m := int(e.Marker()); m >= 0 && m < len(t.Markers) {
					mk = t.Markers[m].Name
				}
				w.head('i', mk, RanksPID, tid)
				w.w.WriteString(`,"cat":"marker","s":"t","ts":`)
				w.float(us.of(e.Time))
				if txt := t.Text(e); txt != "" {
					w.w.WriteString(`,"args":{"info":`)
					w.str(txt)
					w.w.WriteString("}")
				}
				w.w.WriteString("}")
			}
		}
		emit(math.Inf(1))
	}
	return nil
}

// begin writes the begin event of slice s, with its arguments.
func (w *Writer) begin(t *tracefmt.Trace, s *slice, us micros, tid int) {
	w.head('B', t.StateName(s.state), RanksPID, tid)
	w.w.WriteString(`,"cat":`)
	cat := "state"
	if int(s.state) >= 0 && int(s.state) < len(t.States) {
		cat = t.States[s.state].Category.String()
	}
	w.str(cat)
	w.w.WriteString(`,"ts":`)
	w.float(us.of(s.start))
	if s.text != "" || s.clipped || s.open {
		w.w.WriteString(`,"args":{`)
		sep := ""
		if s.text != "" {
			w.w.WriteString(`"info":`)
			w.str(s.text)
			sep = ","
		}
		if s.clipped {
			w.w.WriteString(sep + `"clipped":true`)
			sep = ","
		}
		if s.open {
			w.w.WriteString(sep + `"unclosed":true`)
		}
		w.w.WriteString("}")
	}
	w.w.WriteString("}")
}

// end writes the end event of the innermost open slice of thread tid.
func (w *Writer) end(ts float64, tid int) {
	w.head('E', "", RanksPID, tid)
	w.w.WriteString(`,"ts":`)
	w.float(ts)
	w.w.WriteString("}")
}

// sliceOp is a begin (s set) or an end of a slice, in the order a
// thread's events must come.
type sliceOp struct {
	ts float64
	s  *slice
}

// sliceOps turns nested slices in start order into their begins and ends
// in time order: a slice ends before the next one that starts at or after
// its end begins.
func sliceOps(rs []slice, ops []sliceOp) []sliceOp {
	var open []float64
	for i := range rs {
		s := &rs[i]
		for n := len(open); n > 0 && open[n-1] <= s.start; n = len(open) {
			ops = append(ops, sliceOp{ts: open[n-1]})
			open = open[:n-1]
		}
		ops = append(ops, sliceOp{ts: s.start, s: s})
		open = append(open, s.end)
	}
	for n := len(open); n > 0; n = len(open) {
		ops = append(ops, sliceOp{ts: open[n-1]})
		open = open[:n-1]
	}
	return ops
}

// flowEvent writes one end of a message's arrow; "bp":"e" binds it to the
// slice that encloses it on its thread (the MPI call).
func (w *Writer) flowEvent(ph byte, id int64, e *tracefmt.Event, tid int, us micros) {
	w.head(ph, "message", RanksPID, tid)
	w.w.WriteString(`,"cat":"message","id":`)
	w.int(id + 1)
	w.w.WriteString(`,"bp":"e","ts":`)
	w.float(us.of(e.Time))
	w.w.WriteString(`,"args":{"tag":`)
	w.int(int64(e.Tag))
	w.w.WriteString(`,"bytes":`)
	w.int(e.Size)
	w.w.WriteString("}}")
}

// micros converts times in a trace's unit to microseconds.
type micros struct {
	mul, div float64
}

// microsOf returns the converter of unit u. A unit finer than a
// microsecond divides by an exact power of ten, which rounds correctly
// (5 ps is 0.000005 µs; multiplying by 1e-6, itself inexact, gives
// 0.0000049999999999999996).
func microsOf(u tracefmt.Unit) micros {
	if u < tracefmt.Microsecond {
		return micros{mul: 1, div: math.Pow10(int(tracefmt.Microsecond - u))}
	}
	return micros{mul: math.Pow10(int(u - tracefmt.Microsecond)), div: 1}
}

func (m micros) of(x float64) float64 { return x * m.mul / m.div }

// rankSlices returns the state intervals of one rank's events in start
// order (the longer first at equal starts), each nested in the one
// before it that encloses its start: a slice that would end after its
// parent (overlapping states of a broken or interleaved trace) is
// clipped to the parent's end, since the format's slices on one thread
// must nest. An enter without a leave lasts to the rank's last event.
func rankSlices(t *tracefmt.Trace, ev []tracefmt.Event, out []slice) []slice {
	last := math.Inf(-1)
	for i := range ev {
		last = max(last, ev[i].Time)
	}
	for i := range ev {
		e := &ev[i]
		if e.Kind != tracefmt.KindEnter {
			continue
		}
		s := slice{start: e.Time, state: e.State(), text: t.Text(e)}
		if m := int(e.Match); m > i && m < len(ev) {
			s.end = ev[m].Time
		} else {
			s.end, s.open = last, true
		}
		if s.end < s.start {
			// A clock that ran backwards inside a state.
			s.end, s.clipped = s.start, true
		}
		out = append(out, s)
	}
	slices.SortStableFunc(out, func(a, b slice) int {
		if c := cmp.Compare(a.start, b.start); c != 0 {
			return c
		}
		return cmp.Compare(b.end, a.end)
	})
	var stack []float64 // ends of the enclosing slices
	for i := range out {
		s := &out[i]
		for len(stack) > 0 && stack[len(stack)-1] <= s.start {
			stack = stack[:len(stack)-1]
		}
		if n := len(stack); n > 0 && s.end > stack[n-1] {
			s.end, s.clipped = stack[n-1], true
		}
		stack = append(stack, s.end)
	}
	return out
}
