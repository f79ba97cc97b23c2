package clog2

import (
	"fmt"
	"math"

	"github.com/tracesim/tracesim/tracefmt"
)

// stream turns one rank's events into its records, in order: the
// synthesized prologue (clock shift, communicator creation, constants),
// the events, and (rank 0) the synthesized definitions MPE writes at
// finalize.
type stream struct {
	wr       *writer
	w        int32
	ev       []tracefmt.Event
	i        int
	pre      []record
	post     []record
	pi, qi   int
	cur      record
	has      bool
	err      error
	pend     override
	havePend bool
}

func (wr *writer) newStream(w int32) (*stream, error) {
	s := &stream{wr: wr, w: w, ev: wr.t.Ranks[w].Events}
	t0, t1 := 0.0, 0.0
	if n := len(s.ev); n > 0 {
		t0, t1 = s.ev[0].Time*wr.scale, s.ev[n-1].Time*wr.scale
	}
	hdr := record{time: t0, icomm: 0, rank: w}
	if wr.needCommEvt[w] {
		if !wr.hasShift[w] {
			r := hdr
			r.typ, r.f = recTimeShift, math.Copysign(0, -1) // MPE stores -shift
			s.pre = append(s.pre, r)
		}
		world := wr.cp.entries[0]
		r := hdr
		r.typ, r.a, r.b, r.c, r.d, r.e, r.f, r.s1 = recCommEvt, commWorldCreate, world.id, w, w, world.rand, world.time, world.host
		s.pre = append(s.pre, r)
		self := wr.cp.entry(wr.cp.selfID[w])
		r = hdr
		r.typ, r.a, r.b, r.c, r.d, r.e, r.f, r.s1 = recCommEvt, commSelfCreate, self.id, 0, w, self.rand, self.time, self.host
		s.pre = append(s.pre, r)
		if !wr.cp.reproduce {
			for _, ci := range wr.cp.member[w] {
				e := wr.cp.entry(wr.pl.commID[ci])
				r = hdr
				r.typ, r.a, r.b, r.c, r.d, r.e, r.f, r.s1 = recCommEvt, commIntraCreate, e.id, wr.pl.localRank(ci, w), w, e.rand, e.time, e.host
				s.pre = append(s.pre, r)
			}
		}
	}
	if w == 0 && !wr.anyConstDef {
		for _, c := range []struct {
			name  string
			value int32
		}{{"MPI_PROC_NULL", defaultProcNull}, {"MPI_ANY_SOURCE", defaultAnySource}, {"MPI_ANY_TAG", defaultAnyTag}} {
			r := hdr
			r.typ, r.a, r.b, r.s1 = recConstDef, etypeConst, c.value, c.name
			s.pre = append(s.pre, r)
		}
	}
	if w == 0 {
		tail := hdr
		tail.time = t1
		if len(s.ev) == 0 {
			tail.time = t0
		}
		t := wr.t
		for i, st := range t.States {
			id := wr.pl.stateID(i)
			if wr.stateDefs[id] || wr.undefStates[id] {
				continue
			}
			r := tail
			r.typ, r.a, r.b, r.c = recStateDef, id, wr.pl.stStart[i], wr.pl.stEnd[i]
			r.s1, r.s2, r.s3 = cut(st.Color, colorLen), cut(st.Name, nameLen), cut(st.Format, formatLen)
			s.post = append(s.post, r)
		}
		for i, m := range t.Markers {
			et := wr.pl.mkEtype[i]
			if wr.pl.mkKind[i] != mkUser || wr.eventDefs[et] || wr.undefEvents[et] {
				continue
			}
			r := tail
			r.typ, r.a = recEventDef, et
			r.s1, r.s2, r.s3 = cut(m.Color, colorLen), cut(m.Name, nameLen), cut(m.Format, formatLen)
			s.post = append(s.post, r)
		}
	}
	return s, s.next()
}

// cut truncates a string to fit a field of n bytes with its terminator,
// as MPE's strncpy does.
func cut(s string, n int) string {
	if len(s) > n-1 {
		return s[:n-1]
	}
	return s
}

func (cp *commPlan) entry(id int32) commEntry {
	if cp.byID == nil {
		cp.byID = make(map[int32]int, len(cp.entries))
		for i := len(cp.entries) - 1; i >= 0; i-- {
			cp.byID[cp.entries[i].id] = i
		}
	}
	if i, ok := cp.byID[id]; ok {
		return cp.entries[i]
	}
	return commEntry{id: id, kind: kindUnknown}
}

func (s *stream) head() *record {
	if s.has {
		return &s.cur
	}
	return nil
}

func (s *stream) next() error {
	if s.err != nil {
		s.has = false
		return s.err
	}
	if s.pi < len(s.pre) {
		s.cur, s.has = s.pre[s.pi], true
		s.cur.src = s.w
		s.pi++
		return nil
	}
	for s.i < len(s.ev) {
		i := s.i
		s.i++
		ok, err := s.fromEvent(i)
		if err != nil {
			s.err, s.has = err, false
			return err
		}
		if ok {
			s.has = true
			s.cur.src = s.w
			return nil
		}
	}
	if s.havePend {
		s.err = fmt.Errorf("clog2: rank %d: a %q marker ends the stream; it must precede a record", s.w, markRecord)
		s.has = false
		return s.err
	}
	if s.qi < len(s.post) {
		s.cur, s.has = s.post[s.qi], true
		s.cur.src = s.w
		s.qi++
		return nil
	}
	s.has = false
	return nil
}

func (s *stream) fail(i int, format string, args ...any) error {
	return fmt.Errorf("clog2: rank %d event %d: %s", s.w, i, fmt.Sprintf(format, args...))
}

// fromEvent turns event i into s.cur and reports whether it is a record.
func (s *stream) fromEvent(i int) (bool, error) {
	wr, pl, t := s.wr, s.wr.pl, s.wr.t
	e := &s.ev[i]
	if e.Kind == tracefmt.KindWait || e.Kind == tracefmt.KindCompute {
		return false, nil
	}
	mk := mkUser
	if e.Kind == tracefmt.KindMarker {
		mk = pl.mkKind[e.Marker()]
		switch {
		case mk == mkRecord:
			if s.havePend {
				return false, s.fail(i, "two %q markers in a row", markRecord)
			}
			o, err := parseOverride(t.Text(e))
			if err != nil {
				return false, s.fail(i, "marker %q: %v", markRecord, err)
			}
			s.pend, s.havePend = o, true
			return false, nil
		case mk == mkCommEvt && !wr.cp.reproduce:
			return false, nil
		}
	}
	o := s.pend
	s.pend, s.havePend = override{}, false
	d := pl.derive(e, s.w)
	r := &s.cur
	*r = record{time: e.Time * wr.scale, icomm: d.icomm, rank: d.rank}
	if o.hasThread {
		r.thread = o.thread
	}
	if o.hasIcomm {
		r.icomm = o.icomm
	}
	if o.hasRank {
		r.rank = o.rank
	}
	if o.hasPad {
		r.pad = o.pad
	}
	if r.rank < 0 && !o.hasRank {
		return false, s.fail(i, "rank %d is not a member of communicator %d (%s)", s.w, e.Comm, t.Comms[e.Comm].Name)
	}
	etype := d.etype
	if o.hasEtype {
		etype = o.etype
	}
	switch e.Kind {
	case tracefmt.KindEnter, tracefmt.KindMarker:
		if mk != mkUser {
			return true, s.bookkeeping(i, e, mk)
		}
		r.a = etype
		r.typ = recBareEvt
		if e.TextRef() >= 0 {
			r.typ = recCargoEvt
			copy(r.cargo[:], t.Text(e))
		}
	case tracefmt.KindLeave:
		r.a = etype
		r.typ = recBareEvt
		switch {
		case o.noCgo:
		case o.hasCargo:
			r.typ, r.cargo = recCargoEvt, o.cargo
		case e.Match >= 0 && int(e.Match) < len(s.ev) && s.ev[e.Match].TextRef() >= 0:
			r.typ = recCargoEvt
			copy(r.cargo[:], t.Text(&s.ev[e.Match]))
		}
	case tracefmt.KindSend, tracefmt.KindRecv:
		r.typ, r.a, r.b, r.c, r.d = recMsgEvt, etype, d.mcomm, d.peer, e.Tag
		if o.hasMcomm {
			r.b = o.mcomm
		}
		if o.hasPeer {
			r.c = o.peer
		} else if d.peer < 0 {
			return false, s.fail(i, "peer %d is not a member of communicator %d (%s)", e.Peer, e.Comm, t.Comms[e.Comm].Name)
		}
		if e.Size < 0 || e.Size > math.MaxInt32 {
			return false, s.fail(i, "message size %d does not fit CLOG2's 32-bit field", e.Size)
		}
		r.e = int32(e.Size)
	case tracefmt.KindCollective:
		r.typ, r.a, r.b = recCollEvt, etype, d.peer
		if o.hasPeer {
			r.b = o.peer
		} else if e.Root() >= 0 && d.peer < 0 {
			return false, s.fail(i, "root %d is not a member of communicator %d (%s)", e.Root(), e.Comm, t.Comms[e.Comm].Name)
		}
		if e.Size < 0 || e.Size > math.MaxInt32 {
			return false, s.fail(i, "collective size %d does not fit CLOG2's 32-bit field", e.Size)
		}
		r.c = int32(e.Size)
	default:
		return false, nil
	}
	return true, nil
}

// bookkeeping turns a marker that keeps a CLOG2 record back into it.
func (s *stream) bookkeeping(i int, e *tracefmt.Event, mk uint8) error {
	p, err := parsePayload(s.wr.t.Text(e))
	if err != nil {
		return s.wr.markerErr(int(s.w), i, err)
	}
	rd := p.reader()
	r := &s.cur
	switch mk {
	case mkTimeShift:
		r.typ, r.f = recTimeShift, rd.float("shift")
	case mkCommEvt:
		r.typ = recCommEvt
		r.a, r.b, r.c, r.d = rd.int32("etype"), rd.int32("icomm"), rd.int32("rank"), rd.int32("wrank")
		r.e, r.f, r.s1 = rd.int32("rand"), rd.float("time"), rd.str("host", hostLen)
	case mkConstDef:
		r.typ, r.a, r.b, r.s1 = recConstDef, rd.int32("etype"), rd.int32("value"), rd.str("name", nameLen)
	case mkStateDef:
		r.typ, r.a, r.b, r.c = recStateDef, rd.int32("id"), rd.int32("start"), rd.int32("end")
		r.s1, r.s2, r.s3 = rd.str("color", colorLen), rd.str("name", nameLen), rd.str("format", formatLen)
	case mkEventDef:
		r.typ, r.a = recEventDef, rd.int32("etype")
		r.s1, r.s2, r.s3 = rd.str("color", colorLen), rd.str("name", nameLen), rd.str("format", formatLen)
	case mkSrcLoc:
		r.typ, r.a, r.b, r.s1 = recSrcLoc, rd.int32("id"), rd.int32("line"), rd.str("file", fileLen)
	case mkMsgEvt:
		r.typ = recMsgEvt
		r.a, r.b, r.c, r.d, r.e = rd.int32("etype"), rd.int32("icomm"), rd.int32("peer"), rd.int32("tag"), rd.int32("size")
	case mkCollEvt:
		r.typ, r.a, r.b, r.c = recCollEvt, rd.int32("etype"), rd.int32("root"), rd.int32("size")
	}
	if rd.err != nil {
		return s.wr.markerErr(int(s.w), i, rd.err)
	}
	return nil
}
