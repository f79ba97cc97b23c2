package clog2

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Names of the markers that keep CLOG2 records with no MPI meaning. Their
// info text lists the record's fields as key=value pairs (strings quoted
// as in Go, times as exact decimal floats).
const (
	markTimeShift = "CLOG2 TIMESHIFT" // shift=S (the merged file's value)
	markCommEvt   = "CLOG2 COMMEVT"   // etype icomm rank wrank rand time host
	markConstDef  = "CLOG2 CONSTDEF"  // etype value name
	markStateDef  = "CLOG2 STATEDEF"  // id start end color name format
	markEventDef  = "CLOG2 EVENTDEF"  // etype color name format
	markSrcLoc    = "CLOG2 SRCLOC"    // id line file
	markMsgEvt    = "CLOG2 MSGEVT"    // a message record whose peer is no rank
	markCollEvt   = "CLOG2 COLLEVT"   // a collective record whose root is no rank
	// markRecord lists fields of the record that follows it which differ
	// from what the writer derives from the model.
	markRecord = "CLOG2 record"
)

// IsBookkeeping reports whether a name is one of those under which Read
// keeps CLOG2 records that have no MPI meaning (communicator creation,
// clock shifts, definitions, record details) in Trace.Meta, out of the
// event streams.
func IsBookkeeping(name string) bool {
	switch name {
	case markTimeShift, markCommEvt, markConstDef, markStateDef, markEventDef,
		markSrcLoc, markMsgEvt, markCollEvt, markRecord:
		return true
	}
	return false
}

// fields builds a payload text.
type fields struct{ b strings.Builder }

func (f *fields) sep() {
	if f.b.Len() > 0 {
		f.b.WriteByte(' ')
	}
}

func (f *fields) int(key string, v int64) *fields {
	f.sep()
	f.b.WriteString(key)
	f.b.WriteByte('=')
	f.b.WriteString(strconv.FormatInt(v, 10))
	return f
}

func (f *fields) float(key string, v float64) *fields {
	f.sep()
	f.b.WriteString(key)
	f.b.WriteByte('=')
	f.b.WriteString(formatFloat(v))
	return f
}

// str writes a fixed-size string field: its bytes up to the last non-NUL
// byte, quoted (so bytes after an inner NUL survive).
func (f *fields) str(key string, raw []byte) *fields {
	f.sep()
	f.b.WriteString(key)
	f.b.WriteByte('=')
	f.b.WriteString(strconv.Quote(string(trimNUL(raw))))
	return f
}

func (f *fields) hex(key string, raw []byte) *fields {
	f.sep()
	f.b.WriteString(key)
	f.b.WriteByte('=')
	f.b.WriteString(hex.EncodeToString(raw))
	return f
}

func (f *fields) word(key, v string) *fields {
	f.sep()
	f.b.WriteString(key)
	f.b.WriteByte('=')
	f.b.WriteString(v)
	return f
}

func (f *fields) String() string { return f.b.String() }

// formatFloat renders v so that parseFloat gives back the same bits.
func formatFloat(v float64) string {
	if math.IsNaN(v) {
		return fmt.Sprintf("nan:%016x", math.Float64bits(v))
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

func parseFloat(s string) (float64, error) {
	if h, ok := strings.CutPrefix(s, "nan:"); ok {
		bits, err := strconv.ParseUint(h, 16, 64)
		if err != nil {
			return 0, err
		}
		return math.Float64frombits(bits), nil
	}
	return strconv.ParseFloat(s, 64)
}

func trimNUL(b []byte) []byte {
	return bytes.TrimRight(b, "\x00")
}

// payload is a parsed key=value text.
type payload struct {
	keys, vals []string
}

func parsePayload(s string) (payload, error) {
	var p payload
	for s = strings.TrimLeft(s, " "); s != ""; s = strings.TrimLeft(s, " ") {
		eq := strings.IndexByte(s, '=')
		if eq <= 0 {
			return p, fmt.Errorf("expected key=value at %q", clip(s))
		}
		key := s[:eq]
		s = s[eq+1:]
		var val string
		if strings.HasPrefix(s, `"`) {
			q, err := strconv.QuotedPrefix(s)
			if err != nil {
				return p, fmt.Errorf("bad quoted value of %s", key)
			}
			if val, err = strconv.Unquote(q); err != nil {
				return p, fmt.Errorf("bad quoted value of %s", key)
			}
			s = s[len(q):]
		} else {
			end := strings.IndexByte(s, ' ')
			if end < 0 {
				end = len(s)
			}
			val, s = s[:end], s[end:]
		}
		p.keys = append(p.keys, key)
		p.vals = append(p.vals, val)
	}
	return p, nil
}

func (p payload) get(key string) (string, bool) {
	for i, k := range p.keys {
		if k == key {
			return p.vals[i], true
		}
	}
	return "", false
}

// reader returns an accessor that records the first error.
func (p payload) reader() *payloadReader { return &payloadReader{p: p} }

type payloadReader struct {
	p   payload
	err error
}

func (r *payloadReader) int32(key string) int32 {
	s, ok := r.p.get(key)
	if !ok {
		r.fail(fmt.Errorf("missing %s", key))
		return 0
	}
	v, err := strconv.ParseInt(s, 10, 32)
	if err != nil {
		r.fail(fmt.Errorf("%s=%q is not a 32-bit integer", key, clip(s)))
	}
	return int32(v)
}

func (r *payloadReader) float(key string) float64 {
	s, ok := r.p.get(key)
	if !ok {
		r.fail(fmt.Errorf("missing %s", key))
		return 0
	}
	v, err := parseFloat(s)
	if err != nil {
		r.fail(fmt.Errorf("%s=%q is not a number", key, clip(s)))
	}
	return v
}

// str returns a string field, at most n bytes long.
func (r *payloadReader) str(key string, n int) string {
	s, ok := r.p.get(key)
	if !ok {
		r.fail(fmt.Errorf("missing %s", key))
		return ""
	}
	if len(s) > n {
		r.fail(fmt.Errorf("%s is %d bytes long, the field holds %d", key, len(s), n))
	}
	return s
}

func (r *payloadReader) fail(err error) {
	if r.err == nil {
		r.err = err
	}
}
