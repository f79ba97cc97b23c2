package clog

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/tracesim/tracesim/tracefmt"
)

// logFile writes synthetic CLOG files the way MPE's merge does: records
// packed into blocks, a block closed with ENDBLOCK when the next record
// would leave less than 160 bytes (CLOG_MAX_REC_LEN), ENDLOG at t = 1e6,
// filler after the terminator.
type logFile struct {
	order  binary.ByteOrder
	bs     int
	filler byte
	out    []byte
	cur    []byte
}

func newLog() *logFile { return &logFile{order: binary.BigEndian, bs: BlockSize} }

func (f *logFile) header(t float64, typ, words, proc int32) []byte {
	h := make([]byte, headerLen)
	f.order.PutUint64(h, math.Float64bits(t))
	f.order.PutUint32(h[8:], uint32(typ))
	f.order.PutUint32(h[12:], uint32(words))
	f.order.PutUint32(h[16:], uint32(proc))
	return h
}

// rec appends a record whose length is derived from its body.
func (f *logFile) rec(t float64, typ, proc int32, body []byte) *logFile {
	return f.recWords(t, typ, int32(3+len(body)/8), proc, body)
}

// recWords appends a record with an explicit length field.
func (f *logFile) recWords(t float64, typ, words, proc int32, body []byte) *logFile {
	f.cur = append(f.cur, f.header(t, typ, words, proc)...)
	f.cur = append(f.cur, body...)
	if len(f.cur)+160 >= f.bs {
		f.cur = append(f.cur, f.header(t, recEndBlock, 3, 0)...)
		f.flush()
	}
	return f
}

func (f *logFile) flush() {
	for len(f.cur) < f.bs {
		f.cur = append(f.cur, f.filler)
	}
	f.out = append(f.out, f.cur...)
	f.cur = f.cur[:0]
}

// bytes ends the log with ENDLOG and returns the file.
func (f *logFile) bytes() []byte {
	f.cur = append(f.cur, f.header(1e6, recEndLog, 3, 0)...)
	f.flush()
	return f.out
}

func (f *logFile) ints(v ...int32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		f.order.PutUint32(b[4*i:], uint32(x))
	}
	return b
}

func str(s string, n int) []byte {
	b := make([]byte, n)
	copy(b, s)
	return b
}

// raw appends a RAW event.
func (f *logFile) raw(t float64, proc, etype, data int32, s string) *logFile {
	return f.rec(t, recRaw, proc, append(f.ints(etype, data, 900, 0), str(s, 16)...))
}

func (f *logFile) stateDef(proc, id, start, end int32, color, name string) *logFile {
	body := append(f.ints(id, start, end, 0), str(color, 24)...)
	return f.rec(0, recStateDef, proc, append(body, str(name, 16)...))
}

func (f *logFile) eventDef(proc, etype int32, name string) *logFile {
	return f.rec(0, recEventDef, proc, append(f.ints(etype, 0), str(name, 16)...))
}

func (f *logFile) send(t float64, proc, dst, tag, size int32) *logFile {
	return f.raw(t, proc, etypeSend, dst, fmt.Sprintf("%d %d", tag, size))
}

func (f *logFile) recv(t float64, proc, src, tag, size int32) *logFile {
	return f.raw(t, proc, etypeRecv, src, fmt.Sprintf("%d %d", tag, size))
}

// describe renders an event with every field the CLOG reader sets.
func describe(t *tracefmt.Trace, e *tracefmt.Event) string {
	var s string
	switch e.Kind {
	case tracefmt.KindEnter:
		s = "enter " + t.StateName(e.State())
	case tracefmt.KindLeave:
		s = "leave " + t.StateName(e.State())
	case tracefmt.KindSend:
		s = fmt.Sprintf("send>%d t%d %dB", e.Peer, e.Tag, e.Size)
	case tracefmt.KindRecv:
		s = fmt.Sprintf("recv<%d t%d %dB", e.Peer, e.Tag, e.Size)
	case tracefmt.KindMarker:
		s = "marker " + t.Markers[e.Marker()].Name
	default:
		s = e.Kind.String()
	}
	if txt := t.Text(e); txt != "" {
		s += fmt.Sprintf(" %q", txt)
	}
	return fmt.Sprintf("%g %s", e.Time, s)
}

func describeRanks(t *tracefmt.Trace) [][]string {
	out := make([][]string, t.Size())
	for r := range t.Ranks {
		out[r] = []string{}
		for i := range t.Ranks[r].Events {
			out[r] = append(out[r], describe(t, &t.Ranks[r].Events[i]))
		}
	}
	return out
}

// pairs lists every state interval as "rank: name start-end".
func pairs(t *tracefmt.Trace) []string {
	var out []string
	for r := range t.Ranks {
		ev := t.Ranks[r].Events
		for i := range ev {
			if ev[i].Kind == tracefmt.KindEnter {
				end := "open"
				if ev[i].Match >= 0 {
					end = fmt.Sprint(ev[ev[i].Match].Time)
				}
				out = append(out, fmt.Sprintf("%d: %s %g-%s", r, t.StateName(ev[i].State()), ev[i].Time, end))
			}
		}
	}
	return out
}

func mustRead(t *testing.T, b []byte) *tracefmt.Trace {
	t.Helper()
	tr, err := Read(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func joinRanks(rs [][]string) string {
	var b strings.Builder
	for r, evs := range rs {
		fmt.Fprintf(&b, "rank %d:\n", r)
		for _, e := range evs {
			b.WriteString("  " + e + "\n")
		}
	}
	return b.String()
}
