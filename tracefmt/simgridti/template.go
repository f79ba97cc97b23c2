package simgridti

import (
	"slices"

	"github.com/tracesim/tracesim/tracefmt"
)

// A line the memo gives again applies as it applied before, but for the
// request id it takes and where its events go, as long as nothing it
// depends on changed: its rank's default datatype, the grammar in use,
// the world (all changed by general lines or before any line), the
// states defined (a fast action's state, once defined, stays). The
// templates remember, for the latest lines the memo named (fastRec.id),
// the events applying the line wrote and what else it did to the rank,
// with the parser's generation (parser.gen, counted up by whatever may
// change how a line applies); a line found with the same generation
// copies its events and patches the links of its enter and leave and
// its request id, instead of checking its fields and building each
// event. What a first application notes once (the highest rank and
// peer and where they are, the grammar's evidence, wildcards seen)
// it has noted already.

// Template flags: what applying the line does besides its events.
const (
	tmplRequest   = 1 << iota // a non-blocking call: a request id, a pending request
	tmplAnySource             // a receive from MPI_ANY_SOURCE: counted
	tmplWaitall               // a waitall: no request pending any more
)

// lineTemplate is how the line the memo named id applied.
type lineTemplate struct {
	id    uint32 // 0: none
	r     int32
	rid   uint64 // r and id in one word: r<<32 | id
	gen   uint64
	n     int32 // events: 3 or 4
	flags uint8
	req   pendingReq // the pending request of a non-blocking call, but its id
	ev    [maxLineEvents]tracefmt.Event
}

// templates are the lines of one memo, applied, found by the id's low
// bits: as many as the memo has slots (ids are given in turn, so the
// lines a memo holds rarely share a template). Make them with
// newTemplates.
type templates []lineTemplate

// newTemplates returns the empty templates of a memo of 1<<bits slots.
func newTemplates(bits int) templates {
	return make(templates, 1<<bits)
}

// of returns the template of the line named id.
func (tm templates) of(id uint32) *lineTemplate {
	return &tm[id&uint32(len(tm)-1)]
}

// applyMemo is applyFast for a line decoded by the memo whose
// templates tm holds, applying it from its template when it has one.
func (p *parser) applyMemo(src *source, fr *fastRec, tm templates) bool {
	t := tm.of(fr.id)
	if fr.id == 0 || t.id != fr.id || t.gen != p.gen || src.rank >= 0 && int(t.r) != src.rank {
		return p.applyFirst(src, fr, t)
	}
	// As applyFast, from the template.
	r := int(t.r)
	rs := p.last
	if rs == nil || p.lastRank != r {
		rs = p.rank(r)
	}
	p.fromTemplate(rs, t)
	return true
}

// fromTemplate applies the line of template t to rank rs (the rank the
// template is of): its events, their links and its request.
func (p *parser) fromTemplate(rs *rankState, t *lineTemplate) {
	if cap(rs.events)-len(rs.events) < maxLineEvents {
		for cap(rs.events)-len(rs.events) < maxLineEvents {
			rs.grow()
		}
	}
	start := len(rs.events)
	ev := (*[maxLineEvents]tracefmt.Event)(rs.events[start : start+maxLineEvents])
	n := int(t.n)
	// Event by event, one statement each: a copy of the three at once
	// calls memmove, an assignment of the three goes through
	// temporaries.
	ev[0] = t.ev[0]
	ev[1] = t.ev[1]
	ev[2] = t.ev[2]
	if n == 4 {
		ev[3] = t.ev[3]
	}
	self := rs.base + int32(start)
	ev[0].Match = self + int32(n) - 1
	ev[(n-1)&(maxLineEvents-1)].Match = self
	if t.flags != 0 {
		if t.flags&tmplRequest != 0 {
			rs.nextReq++
			ev[1].SetRequest(rs.nextReq)
			q := t.req
			q.id = rs.nextReq
			rs.pending = append(rs.pending, q)
		}
		if t.flags&tmplAnySource != 0 {
			p.anySources++
		}
		if t.flags&tmplWaitall != 0 {
			rs.pending = rs.pending[:0]
		}
	}
	rs.events = rs.events[:start+n]
}

// applyTemplates applies lines (of src, from a block) from their
// templates while they are named lines whose templates hold, of the rank
// of the line before, and returns how many it applied. It is applyMemo's
// template path for a run of lines, with the rank's stream and requests
// kept at hand from line to line; any other line ends the run, for the
// caller to apply on its own.
func (p *parser) applyTemplates(src *source, lines []blockLine, tm templates) int {
	rs := p.last
	if rs == nil || src.rank >= 0 && p.lastRank != src.rank {
		return 0
	}
	// What a template must hold: the line's id, this rank, the
	// generation.
	rid, gen := uint64(uint32(p.lastRank))<<32, p.gen
	events, pending, nextReq := rs.events, rs.pending, rs.nextReq
	i := 0
run:
	for {
		// No call in this loop (it would keep the locals in memory):
		// it stops for room, which the outer loop makes.
		for ; i < len(lines); i++ {
			l := &lines[i]
			t := tm.of(l.id)
			if t.rid != rid|uint64(l.id) || t.gen != gen {
				break run
			}
			start := len(events)
			if cap(events)-start < maxLineEvents || len(pending) == cap(pending) && t.flags&tmplRequest != 0 {
				break
			}
			ev := (*[maxLineEvents]tracefmt.Event)(events[start : start+maxLineEvents])
			n := int(t.n)
			// As in fromTemplate (which this loop repeats, the rank's
			// stream and requests in locals).
			ev[0] = t.ev[0]
			ev[1] = t.ev[1]
			ev[2] = t.ev[2]
			if n == 4 {
				ev[3] = t.ev[3]
			}
			self := rs.base + int32(start)
			ev[0].Match = self + int32(n) - 1
			ev[(n-1)&(maxLineEvents-1)].Match = self
			if t.flags != 0 {
				if t.flags&tmplRequest != 0 {
					nextReq++
					ev[1].SetRequest(nextReq)
					k := len(pending)
					pending = pending[:k+1]
					pending[k] = t.req
					pending[k].id = nextReq
				}
				if t.flags&tmplAnySource != 0 {
					p.anySources++
				}
				if t.flags&tmplWaitall != 0 {
					pending = pending[:0]
				}
			}
			events = events[:start+n]
		}
		if i == len(lines) {
			break
		}
		// Room for line i's events and request.
		rs.events = events
		for cap(rs.events)-len(rs.events) < maxLineEvents {
			rs.grow()
		}
		events = rs.events
		pending = slices.Grow(pending, 1)
	}
	rs.events, rs.pending, rs.nextReq = events, pending, nextReq
	return i
}

// applyFirst is applyFast for a line the memo named but whose template
// t does not hold (or holds for an earlier generation): it applies the
// line and fills t with how it did, if a template can reproduce it.
func (p *parser) applyFirst(src *source, fr *fastRec, t *lineTemplate) bool {
	start := 0
	if rs := p.last; rs != nil && p.lastRank == int(fr.r) {
		start = len(rs.events)
	} else if r := int(fr.r); r < len(p.ranks) && p.ranks[r] != nil {
		start = len(p.ranks[r].events)
	}
	if !p.applyFast(src, fr) {
		return false
	}
	if fr.id == 0 {
		return true
	}
	rs := p.last
	n := len(rs.events) - start
	if n < 3 || rs.events[start].Kind != tracefmt.KindEnter {
		// No events (MPI_PROC_NULL, a wait skipped), or the stream
		// moved on (growing a streamed rank's room).
		return true
	}
	var flags uint8
	switch fr.act {
	case fastIsend, fastIrecv:
		flags = tmplRequest
		t.req = rs.pending[len(rs.pending)-1]
		t.req.id = 0
	case fastWaitall:
		flags = tmplWaitall
	case fastWait, fastTest:
		return true // which request it completes depends on those pending
	}
	if (fr.act == fastRecv || fr.act == fastIrecv) && fr.a == anySource {
		flags |= tmplAnySource
	}
	t.id, t.r, t.gen, t.n, t.flags = fr.id, fr.r, p.gen, int32(n), flags
	t.rid = uint64(uint32(fr.r))<<32 | uint64(fr.id)
	copy(t.ev[:], rs.events[start:start+n])
	return true
}
