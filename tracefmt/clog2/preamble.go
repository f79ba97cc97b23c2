package clog2

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/tracesim/tracesim/tracefmt"
)

// Sniff reports whether head, the first bytes of a file, starts with a
// CLOG2 version string ("CLOG-02.").
func Sniff(head []byte) bool { return bytes.HasPrefix(head, []byte("CLOG-02.")) }

// preamble holds the values of a CLOG2 preamble.
type preamble struct {
	version      string
	minor        int // 40..44
	bigEndian    bool
	finalized    bool
	blockSize    int
	numBuffered  int
	worldSize    int
	threadCount  int
	hasThreads   bool
	commtable    int64 // 0 when absent or unknown
	hasCommtable bool
	ids          idRanges
}

// idRanges are the event and state id ranges of MPE's preamble.
type idRanges struct {
	knownEventStart, userEventStart       int
	knownSoloStart, userSoloStart         int
	knownStateCount, userStateCount       int
	knownSoloCount, userSoloCount         int
	hasKnownSoloStart, hasKnownSoloCount  bool
	hasUserSoloStart, hasUserSoloCount    bool
	hasKnownEventStart, hasUserEventStart bool
	hasKnownStateCount, hasUserStateCount bool
}

// Attr keys describing the source file.
const (
	attrVersion   = "clog2.version"
	attrBigEndian = "clog2.is_big_endian"
	attrFinalized = "clog2.is_finalized"
)

// parsePreamble reads the title/value strings of a preamble. Versions
// 02.40 to 02.44 differ in which fields they have (02.40 also misnames
// user_solo_eventID_start as a second user_eventID_start), so fields are
// recognised by title.
func parsePreamble(buf []byte) (*preamble, error) {
	type token struct {
		s   string
		off int
	}
	var toks []token
	for i := 0; i < len(buf); {
		j := bytes.IndexByte(buf[i:], 0)
		if j < 0 {
			j = len(buf) - i
		}
		if j > 0 {
			toks = append(toks, token{string(buf[i : i+j]), i})
		}
		i += j + 1
	}
	if len(toks) == 0 || !strings.HasPrefix(toks[0].s, "CLOG-02.") {
		got := ""
		if len(toks) > 0 {
			got = toks[0].s
			if len(got) > 16 {
				got = got[:16]
			}
		}
		return nil, errAt(0, -1, "bad magic %q: expected a CLOG2 version string \"CLOG-02.4x\"", got)
	}
	p := &preamble{version: toks[0].s, threadCount: 1}
	switch p.version {
	case "CLOG-02.40", "CLOG-02.41", "CLOG-02.42", "CLOG-02.43", "CLOG-02.44":
		p.minor, _ = strconv.Atoi(p.version[len("CLOG-02."):])
	default:
		return nil, errAt(0, -1, "unsupported version %q: expected CLOG-02.40 to CLOG-02.44", p.version)
	}
	seen := map[string]bool{}
	var haveEndian, haveBlock, haveWorld bool
	for i := 1; i < len(toks); i++ {
		title := toks[i].s
		if !strings.HasSuffix(title, "=") {
			return nil, errAt(int64(toks[i].off), -1, "preamble: expected a title ending in '=', found %q", clip(title))
		}
		nvals := 1
		if title == "commtable_fptr=" {
			nvals = 3
		}
		if i+nvals >= len(toks) {
			return nil, errAt(int64(toks[i].off), -1, "preamble: %s has no value", title)
		}
		vals := make([]int64, nvals)
		for k := range nvals {
			v := toks[i+1+k]
			if title == "is_big_endian=" || title == "is_finalzed=" {
				break
			}
			n, err := strconv.ParseInt(strings.TrimSpace(v.s), 10, 64)
			if err != nil {
				return nil, errAt(int64(v.off), -1, "preamble: %s value %q is not an integer", title, clip(v.s))
			}
			vals[k] = n
		}
		boolVal := func() bool {
			s := strings.TrimSpace(toks[i+1].s)
			return strings.EqualFold(s, "true") || strings.EqualFold(s, "yes")
		}
		v := int(vals[0])
		if int64(v) != vals[0] || v != int(int32(v)) {
			return nil, errAt(int64(toks[i+1].off), -1, "preamble: %s value %d out of range", title, vals[0])
		}
		switch title {
		case "is_big_endian=":
			p.bigEndian, haveEndian = boolVal(), true
		case "is_finalzed=":
			p.finalized = boolVal()
			seen[title] = true
		case "block_size=":
			p.blockSize, haveBlock = v, true
		case "num_buffered_blocks=":
			p.numBuffered = v
		case "max_comm_world_size=", "comm_world_size=":
			p.worldSize, haveWorld = v, true
		case "max_thread_count=":
			p.threadCount, p.hasThreads = v, true
		case "known_eventID_start=":
			p.ids.knownEventStart, p.ids.hasKnownEventStart = v, true
		case "user_eventID_start=":
			if p.ids.hasUserEventStart {
				// CLOG-02.40 titles user_solo_eventID_start so.
				p.ids.userSoloStart, p.ids.hasUserSoloStart = v, true
			} else {
				p.ids.userEventStart, p.ids.hasUserEventStart = v, true
			}
		case "known_solo_eventID_start=":
			p.ids.knownSoloStart, p.ids.hasKnownSoloStart = v, true
		case "user_solo_eventID_start=":
			p.ids.userSoloStart, p.ids.hasUserSoloStart = v, true
		case "known_stateID_count=":
			p.ids.knownStateCount, p.ids.hasKnownStateCount = v, true
		case "user_stateID_count=":
			p.ids.userStateCount, p.ids.hasUserStateCount = v, true
		case "known_solo_eventID_count=":
			p.ids.knownSoloCount, p.ids.hasKnownSoloCount = v, true
		case "user_solo_eventID_count=":
			p.ids.userSoloCount, p.ids.hasUserSoloCount = v, true
		case "commtable_fptr=":
			if vals[0] < 0 || vals[1] < 0 || vals[2] < 0 || vals[0] > 1<<20 {
				return nil, errAt(int64(toks[i+1].off), -1, "bad commtable_fptr %d*%d+%d", vals[0], vals[1], vals[2])
			}
			p.commtable = vals[0]*vals[1] + vals[2]
			p.hasCommtable = true
		default:
			return nil, errAt(int64(toks[i].off), -1, "preamble: unknown field %q", clip(title))
		}
		i += nvals
	}
	if !seen["is_finalzed="] {
		// Before 02.43 the flag did not exist; merged files are the
		// big-endian ones.
		p.finalized = p.bigEndian
	}
	switch {
	case !haveEndian:
		return nil, errAt(0, -1, "preamble has no is_big_endian= field")
	case !haveBlock:
		return nil, errAt(0, -1, "preamble has no block_size= field")
	case !haveWorld:
		return nil, errAt(0, -1, "preamble has no max_comm_world_size= field")
	case p.blockSize < minBlockSize || p.blockSize > maxBlockSize || p.blockSize%8 != 0:
		return nil, errAt(0, -1, "block_size %d: expected a multiple of 8 between %d and %d", p.blockSize, minBlockSize, maxBlockSize)
	case p.worldSize < 1 || p.worldSize > maxRanks:
		return nil, errAt(0, -1, "max_comm_world_size %d: expected 1 to %d ranks", p.worldSize, maxRanks)
	}
	if p.hasCommtable && p.commtable != 0 {
		if p.commtable < preambleLen+int64(p.blockSize) || (p.commtable-preambleLen)%int64(p.blockSize) != 0 {
			return nil, errAt(0, -1, "bad commtable_fptr %d: expected 1024 + k*block_size (block_size %d, k >= 1)", p.commtable, p.blockSize)
		}
	}
	return p, nil
}

func clip(s string) string {
	if len(s) > 32 {
		return s[:32] + "..."
	}
	return s
}

// numBlocks returns the number of data blocks the preamble announces, or
// -1 when it does not say (read until ENDLOG).
func (p *preamble) numBlocks() int64 {
	if !p.hasCommtable || p.commtable == 0 {
		return -1
	}
	return (p.commtable - preambleLen) / int64(p.blockSize)
}

// setAttrs records the preamble in the trace's attributes.
func (p *preamble) setAttrs(t *tracefmt.Trace) {
	t.SetAttr(attrVersion, p.version)
	t.SetAttr(attrBigEndian, strconv.FormatBool(p.bigEndian))
	t.SetAttr(attrFinalized, strconv.FormatBool(p.finalized))
	set := func(key string, v int, ok bool) {
		if ok {
			t.SetAttr(key, strconv.Itoa(v))
		}
	}
	set("clog2.block_size", p.blockSize, true)
	set("clog2.num_buffered_blocks", p.numBuffered, true)
	set("clog2.max_thread_count", p.threadCount, p.hasThreads)
	set("clog2.known_eventID_start", p.ids.knownEventStart, p.ids.hasKnownEventStart)
	set("clog2.user_eventID_start", p.ids.userEventStart, p.ids.hasUserEventStart)
	set("clog2.known_solo_eventID_start", p.ids.knownSoloStart, p.ids.hasKnownSoloStart)
	set("clog2.user_solo_eventID_start", p.ids.userSoloStart, p.ids.hasUserSoloStart)
	set("clog2.known_stateID_count", p.ids.knownStateCount, p.ids.hasKnownStateCount)
	set("clog2.user_stateID_count", p.ids.userStateCount, p.ids.hasUserStateCount)
	set("clog2.known_solo_eventID_count", p.ids.knownSoloCount, p.ids.hasKnownSoloCount)
	set("clog2.user_solo_eventID_count", p.ids.userSoloCount, p.ids.hasUserSoloCount)
}

// stateRange reports whether etype falls in a range of event types that
// MPE's converter treats as states even without a STATEDEF (known states
// from known_eventID_start, user states from user_eventID_start, two event
// types per state), and returns the state id and its start event type.
func (p *preamble) stateRange(etype int32) (id, start int32, ok bool) {
	ke, kc := int64(knownEventIDStart), int64(knownStateIDCount)
	ue, uc := int64(userEventIDStart), int64(0)
	if p.ids.hasKnownEventStart {
		ke = int64(p.ids.knownEventStart)
	}
	if p.ids.hasKnownStateCount {
		kc = int64(p.ids.knownStateCount)
	}
	if p.ids.hasUserEventStart {
		ue = int64(p.ids.userEventStart)
	}
	if p.ids.hasUserStateCount {
		uc = int64(p.ids.userStateCount)
	}
	e := int64(etype)
	if kc > 0 && e >= ke && e < ke+2*kc {
		return int32((e - ke) / 2), int32(ke + (e-ke)/2*2), true
	}
	if uc > 0 && e >= ue && e < ue+2*uc {
		return int32(kc + (e-ue)/2), int32(ue + (e-ue)/2*2), true
	}
	return 0, 0, false
}

// knownStates returns the number of known (MPI and MPE) state ids.
// isKnownSolo reports whether etype is one of MPE's own solo events
// (MPE_Comm_init, MPE_Comm_finalize: communicator bookkeeping that MPE's
// wrappers log, not the user).
func (p *preamble) isKnownSolo(etype int32) bool {
	// Older files say nothing of the range: MPE counts it down from -10
	// to -1.
	start, n := int64(knownSoloEventIDStart), int64(-knownSoloEventIDStart)
	if p.ids.hasKnownSoloStart && p.ids.hasKnownSoloCount {
		start, n = int64(p.ids.knownSoloStart), int64(p.ids.knownSoloCount)
	}
	return int64(etype) >= start && int64(etype) < start+n
}

func (p *preamble) knownStates() int32 {
	if p.ids.hasKnownStateCount {
		return int32(p.ids.knownStateCount)
	}
	return knownStateIDCount
}

// writePreamble renders a CLOG-02.44 preamble as MPE's CLOG_Preamble_write
// does: NUL-terminated strings, zero-filled to 1024 bytes.
func writePreamble(dst []byte, v *preambleValues, commtable int64) error {
	clear(dst[:preambleLen])
	strs := []string{
		"CLOG-02.44",
		"is_big_endian=", "TRUE ",
		"is_finalzed=", "TRUE ",
		"block_size=", strconv.Itoa(v.blockSize),
		"num_buffered_blocks=", strconv.Itoa(v.numBuffered),
		"max_comm_world_size=", strconv.Itoa(v.worldSize),
		"max_thread_count=", strconv.Itoa(v.threadCount),
		"known_eventID_start=", strconv.Itoa(v.knownEventStart),
		"user_eventID_start=", strconv.Itoa(v.userEventStart),
		"known_solo_eventID_start=", strconv.Itoa(v.knownSoloStart),
		"user_solo_eventID_start=", strconv.Itoa(v.userSoloStart),
		"known_stateID_count=", strconv.Itoa(v.knownStateCount),
		"user_stateID_count=", strconv.Itoa(v.userStateCount),
		"known_solo_eventID_count=", strconv.Itoa(v.knownSoloCount),
		"user_solo_eventID_count=", strconv.Itoa(v.userSoloCount),
		"commtable_fptr=", strconv.FormatInt(commtable/oneGiga, 10), strconv.Itoa(oneGiga), strconv.FormatInt(commtable%oneGiga, 10),
	}
	at := 0
	for _, s := range strs {
		if at+len(s)+1 > preambleLen {
			return fmt.Errorf("clog2: preamble longer than %d bytes", preambleLen)
		}
		at += copy(dst[at:], s) + 1
	}
	return nil
}

// preambleValues are the numbers a written preamble carries.
type preambleValues struct {
	blockSize, numBuffered, worldSize, threadCount int
	knownEventStart, userEventStart                int
	knownSoloStart, userSoloStart                  int
	knownStateCount, userStateCount                int
	knownSoloCount, userSoloCount                  int
}
