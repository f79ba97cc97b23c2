package tsim

import (
	"encoding/binary"
	"math"
	"math/bits"

	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/tracefmt/units"
)

// decodeFast decodes a record of the common shape in one pass over its
// bytes, parsing numbers as it reads them: bare fields (no quotes), a
// time without sign or exponent, arguments whose values are plain. It
// reports false for anything else, mistakes included, and leaves the
// line to decode, which reads every shape and words the errors; where
// it reports true, r is what decode gives (FuzzDecodeFast checks it).
// Most of a large file's lines take this path.
func (f *recordFormat) decodeFast(line []byte, i int, out *rec) bool {
	n := len(line)
	var tm float64
	if f.timed {
		var mant uint64
		start := i
		for ; i < n && line[i]-'0' <= 9; i++ {
			mant = mant*10 + uint64(line[i]-'0')
		}
		digits, frac := i-start, 0
		if i < n && line[i] == '.' {
			i++
			fstart := i
			for ; i < n && line[i]-'0' <= 9; i++ {
				mant = mant*10 + uint64(line[i]-'0')
			}
			frac = i - fstart
			digits += frac
		}
		// As parseFloat's exact path: one division of an exact
		// integer by an exact power of ten.
		if digits == 0 || digits > 15 {
			return false
		}
		tm = float64(mant)
		if frac > 0 {
			tm /= pow10[frac]
		}
	} else {
		if line[i] != '-' {
			return false
		}
		i++
	}
	if i == n || !isBlank(line[i]) {
		return false
	}
	for i < n && isBlank(line[i]) {
		i++
	}
	rankOff := i
	var r int
	for ; i < n && line[i]-'0' <= 9; i++ {
		r = r*10 + int(line[i]-'0')
		if r >= f.ranks {
			return false
		}
	}
	// More than seven digits (leading zeros) are the general path's:
	// parseUint refuses more than 18.
	if i == rankOff || i-rankOff > 7 || i == n || !isBlank(line[i]) {
		return false
	}
	for i < n && isBlank(line[i]) {
		i++
	}
	kind, w := kindAt(line[i:])
	if w == 0 {
		return false
	}
	i += w
	start := i
	e := tracefmt.Event{Time: tm, Kind: kind}
	switch kind {
	case tracefmt.KindEnter, tracefmt.KindLeave, tracefmt.KindMarker, tracefmt.KindCollective:
		for i < n && isBlank(line[i]) {
			i++
		}
		start = i
		for i = skipName(line, i); i < n && byteClass[line[i]] == 0; i++ {
		}
		if i == start || i < n && byteClass[line[i]] != blank {
			return false
		}
		nm := line[start:i]
		if kind != tracefmt.KindCollective {
			out.name, out.named = tok{b: nm, off: start}, true
			e.Match = -1
			break
		}
		op, ok := tracefmt.ParseCollOp(string(nm))
		if !ok {
			return false
		}
		e = tracefmt.Collective(tm, op, -1, 0, 0, 0)
	}
	allowed := kindArgs[kind]
	var seen uint16
	var size, recvd int64
	var amount float64
	for {
		for i < n && isBlank(line[i]) {
			i++
		}
		if i == n || line[i] == '#' {
			break
		}
		start = i
		for i < n && byteClass[line[i]]&(blank|equals) == 0 {
			i++
		}
		if i == n || line[i] != '=' {
			// A flag.
			w := line[start:i]
			if fl, ok := flagBit(w); ok {
				e.Flags |= fl
			} else if kind == tracefmt.KindCollective && string(w) == "sizeunknown" {
				e.Flags |= tracefmt.FlagSizeUnknown
			} else {
				return false
			}
			continue
		}
		bit := argBit(line[start:i])
		if bit&allowed == 0 || seen&bit != 0 {
			return false
		}
		seen |= bit
		i++
		vstart := i
		for i < n && byteClass[line[i]] != blank {
			i++
		}
		v := line[vstart:i]
		if len(v) == 0 || v[0] == '"' {
			return false
		}
		switch bit {
		case argTo, argFrom:
			p, ok := smallUint(v)
			if !ok || p >= int64(f.ranks) {
				return false
			}
			e.Peer = int32(p)
		case argRoot:
			p, ok := parseInt(v)
			if !ok || p < -1 || p >= int64(f.ranks) {
				return false
			}
			e.Peer = int32(p)
		case argTag:
			t, ok := smallUint(v)
			if !ok {
				if t, ok = parseInt(v); !ok || t != int64(int32(t)) {
					return false
				}
			}
			e.Tag = int32(t)
		case argSize, argSent, argRecv:
			b, ok := parseUint(v)
			if !ok {
				var err error
				if allDigits(v) {
					return false
				}
				if b, err = units.ParseSize(string(v)); err != nil {
					return false
				}
			}
			if bit == argRecv {
				recvd = b
			} else {
				size = b
			}
		case argComm:
			c, ok := f.commFast(v)
			if !ok {
				return false
			}
			e.Comm = c
		case argReq:
			q, ok := smallUint(v)
			if !ok {
				if q, ok = parseInt(v); !ok {
					return false
				}
			}
			e.SetRequest(q)
		case argDur, argFlops:
			if seen&(argDur|argFlops) == argDur|argFlops {
				return false
			}
			var ok bool
			if bit == argDur {
				amount, ok = f.duration(v)
			} else {
				amount, ok = flops(v)
				e.Flags |= tracefmt.FlagWork
			}
			if !ok {
				return false
			}
		case argText:
			out.text, out.hasText = tok{b: v, off: vstart}, true
		}
	}
	switch kind {
	case tracefmt.KindSend:
		if seen&argTo == 0 {
			return false
		}
		e.Size = size
	case tracefmt.KindRecv:
		if seen&argFrom == 0 {
			return false
		}
		e.Size = size
	case tracefmt.KindCollective:
		if seen&argRoot == 0 && e.Op().Rooted() {
			return false
		}
		e.Size = size
		e.SetRequest(recvd)
	case tracefmt.KindCompute:
		if seen&(argDur|argFlops) == 0 {
			return false
		}
		e.SetRequest(int64(math.Float64bits(amount)))
	}
	out.e, out.rank, out.rankOff = e, int32(r), int32(rankOff)
	return true
}

// kindAt returns the record kind b starts with, and its length; 0 when
// b starts with no kind followed by a blank or the end. The words are
// compared as constants, which compiles to a load and a compare.
func kindAt(b []byte) (tracefmt.Kind, int) {
	var k tracefmt.Kind
	w := 0
	switch {
	case len(b) >= 5 && string(b[:5]) == "enter":
		k, w = tracefmt.KindEnter, 5
	case len(b) >= 5 && string(b[:5]) == "leave":
		k, w = tracefmt.KindLeave, 5
	case len(b) >= 4 && string(b[:4]) == "send":
		k, w = tracefmt.KindSend, 4
	case len(b) >= 4 && string(b[:4]) == "recv":
		k, w = tracefmt.KindRecv, 4
	case len(b) >= 4 && string(b[:4]) == "wait":
		k, w = tracefmt.KindWait, 4
	case len(b) >= 4 && string(b[:4]) == "coll":
		k, w = tracefmt.KindCollective, 4
	case len(b) >= 7 && string(b[:7]) == "compute":
		k, w = tracefmt.KindCompute, 7
	case len(b) >= 6 && string(b[:6]) == "marker":
		k, w = tracefmt.KindMarker, 6
	default:
		return 0, 0
	}
	if len(b) > w && !isBlank(b[w]) {
		return 0, 0
	}
	return k, w
}

// skipName returns the offset of the first byte at or after i that may
// end a bare name ('\x00'–'#' or '='), looking at eight bytes at a time
// while eight are left, else i: names are the longest fields of most
// records. The caller checks the byte it stops at and goes on byte by
// byte. (Reading the last bytes as the top of the line's last word
// counted more instructions.)
func skipName(line []byte, i int) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	for ; i+8 <= len(line); i += 8 {
		x := binary.LittleEndian.Uint64(line[i:])
		// The high bit of the first byte below '$' or equal to '='
		// is set in m: the borrows run upward only, so the lowest bit
		// set is exact.
		y := x ^ ones*'='
		if m := ((x-ones*'$')&^x | (y-ones)&^y) & highs; m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
	}
	return i
}

// smallUint parses 1 to 9 decimal digits, the common tag, request id
// or rank, in line: parseInt's general case costs more than the digits.
func smallUint(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > 9 {
		return 0, false
	}
	var n int64
	for _, c := range b {
		if c-'0' > 9 {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}

// Classes of the bytes that end a field of a common record.
const (
	blank  = 1 << iota // ' ' and '\t', between fields
	equals             // '=', in an argument
	other              // '"' and '#', which decode reads
)

// byteClass classifies bytes for decodeFast's loops over fields: one
// look-up a byte tells a byte inside a field from one that ends it.
var byteClass = [256]uint8{' ': blank, '\t': blank, '=': equals, '"': other, '#': other}

// commFast is commRef for a bare name or index, without the error.
func (f *recordFormat) commFast(v []byte) (uint16, bool) {
	if allDigits(v) {
		c, ok := parseUint(v)
		return uint16(c), ok && c < int64(f.ncomms)
	}
	c, ok := f.commIDs[string(v)]
	return c, ok
}
