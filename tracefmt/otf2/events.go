package otf2

import (
	"bytes"
	"errors"
	"io"
)

// Event record types the reader turns into trace events.
const (
	evBufferFlush         = 10
	evEnter               = 12
	evLeave               = 13
	evMpiSend             = 14
	evMpiIsend            = 15
	evMpiIsendComplete    = 16
	evMpiIrecvRequest     = 17
	evMpiRecv             = 18
	evMpiIrecv            = 19
	evMpiRequestTest      = 20
	evMpiRequestCancelled = 21
	evMpiCollectiveBegin  = 22
	evMpiCollectiveEnd    = 23
	evOmpFork             = 24
	evOmpTaskCreate       = 28
	evOmpTaskSwitch       = 29
	evOmpTaskComplete     = 30
)

// singleton reports whether records of type t have a single compressed
// field and no length byte (the records of OTF2 1.0 and 1.1 that were
// written that way; later additions always have a length).
func singleton(t byte) bool {
	switch t {
	case evEnter, evLeave, evMpiIsendComplete, evMpiIrecvRequest, evMpiRequestTest,
		evMpiRequestCancelled, evOmpFork, evOmpTaskCreate, evOmpTaskSwitch, evOmpTaskComplete:
		return true
	}
	return false
}

// record is one decoded event record. Fields are set for the types that
// have them: a is the region (Enter, Leave), the peer rank in the
// communicator (sends and receives) or the root (collective end); n is a
// message length or the bytes sent; req a request id or the bytes
// received.
type record struct {
	time uint64
	typ  byte
	op   uint8
	a    uint32
	comm uint32
	tag  uint32
	n    uint64
	req  uint64
	// at is the record's byte offset in its file, for errors.
	at int64
}

// evtScanner reads the event records of one location's event file.
type evtScanner struct {
	s    *scanner
	time uint64
}

// newEvtScanner returns a scanner over an event file.
func newEvtScanner(name string, r io.Reader, chunk int) *evtScanner {
	return &evtScanner{s: newScanner(name, r, chunk)}
}

// next decodes the next event record into rec; errEnd at the end.
func (e *evtScanner) next(rec *record) error {
	s := e.s
	for {
		t, err := s.recordType()
		if err != nil {
			return err
		}
		switch t {
		case recTimestamp:
			v, err := s.full64(s.end, "timestamp")
			if err != nil {
				return err
			}
			e.time = v
			continue
		case recAttrList:
			if err := s.skip(); err != nil {
				return err
			}
			continue
		}
		*rec = record{time: e.time, typ: t, at: s.base + int64(s.rec)}
		if singleton(t) {
			what := "request id"
			if t == evEnter || t == evLeave {
				what = "region"
			}
			v, err := s.u64(s.end, what)
			if err != nil {
				return err
			}
			rec.a, rec.req = uint32(v), v
			if t == evEnter || t == evLeave {
				if v > 0xFFFFFFFF {
					return s.errAt(s.rec, "region id %d does not fit 32 bits", v)
				}
			}
			return nil
		}
		end, err := s.length()
		if err != nil {
			return err
		}
		switch t {
		case evMpiSend, evMpiIsend, evMpiRecv, evMpiIrecv:
			if rec.a, err = s.u32(end, "peer rank"); err != nil {
				return err
			}
			if rec.comm, err = s.u32(end, "communicator"); err != nil {
				return err
			}
			if rec.tag, err = s.u32(end, "message tag"); err != nil {
				return err
			}
			if rec.n, err = s.u64(end, "message length"); err != nil {
				return err
			}
			if t == evMpiIsend || t == evMpiIrecv {
				if rec.req, err = s.u64(end, "request id"); err != nil {
					return err
				}
			}
		case evMpiCollectiveEnd:
			if rec.op, err = s.byte1(end, "collective operation"); err != nil {
				return err
			}
			if rec.comm, err = s.u32(end, "communicator"); err != nil {
				return err
			}
			if rec.a, err = s.u32(end, "root"); err != nil {
				return err
			}
			if rec.n, err = s.u64(end, "bytes sent"); err != nil {
				return err
			}
			if rec.req, err = s.u64(end, "bytes received"); err != nil {
				return err
			}
		}
		s.pos = end
		return nil
	}
}

// countEvents decodes an event file held in data whole (chunks of
// chunkSize bytes) and returns its number of event records: the fuzz
// target's entry point, and a check that every record decodes.
func countEvents(data []byte, chunkSize int) (int, error) {
	e := newEvtScanner("events", bytes.NewReader(data), chunkSize)
	var rec record
	n := 0
	for {
		err := e.next(&rec)
		if errors.Is(err, errEnd) {
			return n, nil
		}
		if err != nil {
			return n, err
		}
		n++
	}
}
