package clog2

import (
	"encoding/binary"
	"slices"

	"github.com/tracesim/tracesim/tracefmt"
)

// attrDerivedColls marks a trace whose collective events Read derived from
// MPI collective states (MPE logs collectives as states, never as COLLEVT
// records): Write leaves those events out, as no record of the file holds
// them.
const attrDerivedColls = "clog2.derived_collectives"

// cargoSizes gives the byte counts MPE's wrappers log in the end event's
// cargo of MPI_Alltoall and MPI_Alltoallv: two big-endian int32, the bytes
// the rank sends and receives over the whole communicator (MPE_Log_pack
// 'd'). Other collectives log no sizes.
func (rs *resolver) cargoSizes(r, enter, leave int) (sent, recvd int64, ok bool) {
	t := rs.t
	e := &t.Ranks[r].Events[enter]
	op, _, _ := tracefmt.CollOpOfState(t.StateName(e.State()))
	if op != tracefmt.OpAlltoall && op != tracefmt.OpAlltoallv {
		return 0, 0, false
	}
	cs := rs.cargo[r]
	k, found := slices.BinarySearchFunc(cs, int32(leave), func(c leaveCargo, idx int32) int { return int(c.idx) - int(idx) })
	if !found {
		return 0, 0, false
	}
	var b [8]byte // the reader dropped trailing NULs
	copy(b[:], rs.rd.texts[cs[k].text])
	s, v := int32(binary.BigEndian.Uint32(b[:])), int32(binary.BigEndian.Uint32(b[4:]))
	if s < 0 || v < 0 {
		return 0, 0, false
	}
	return int64(s), int64(v), true
}

// recordsOf returns t as the writer needs it: the records Read kept out of
// the streams (Trace.Meta) back in place, and without the collective
// events Read derived from states. t itself when there is nothing to undo.
func recordsOf(t *tracefmt.Trace) *tracefmt.Trace {
	v, _ := t.Attr(attrDerivedColls)
	derived := v == "true"
	if len(t.Meta) == 0 && !derived {
		return t
	}
	c := t.WithMeta()
	if !derived {
		return c
	}
	if c == t {
		c = t.Clone()
	}
	c.Remove(func(_ int, e *tracefmt.Event) bool { return e.Kind == tracefmt.KindCollective })
	return c
}
