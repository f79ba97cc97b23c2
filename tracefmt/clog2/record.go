package clog2

import (
	"encoding/binary"
	"math"
)

// record is one CLOG2 record on its way to a block.
type record struct {
	time                float64
	typ                 int32
	icomm, rank, thread int32
	pad                 [4]byte
	// Integer fields by type: STATEDEF id,start,end; EVENTDEF etype;
	// CONSTDEF etype,value; BARE/CARGO etype; MSGEVT etype,icomm,partner,
	// tag,size; COLLEVT etype,root,size; COMMEVT etype,icomm,rank,wrank,
	// rand; SRCLOC id,line.
	a, b, c, d, e int32
	// f is TIMESHIFT's shift or COMMEVT's UUID time.
	f float64
	// Strings by type: STATEDEF/EVENTDEF color,name,format; CONSTDEF name;
	// COMMEVT host; SRCLOC file.
	s1, s2, s3 string
	cargo      [cargoLen]byte
	// src is the world rank whose stream the record comes from.
	src int32
}

var be = binary.BigEndian

// putStr copies s into a fixed field of n bytes, NUL-padded. Strings that
// fill the field keep no terminator, as they were read.
func putStr(dst []byte, s string) {
	n := copy(dst, s)
	clear(dst[n:])
}

// encode writes r big-endian at the start of dst, which holds at least
// recSize[r.typ] bytes.
func (r *record) encode(dst []byte) {
	size := recSize[r.typ]
	dst = dst[:size]
	be.PutUint64(dst[0:], math.Float64bits(r.time))
	be.PutUint32(dst[8:], uint32(r.icomm))
	be.PutUint32(dst[12:], uint32(r.rank))
	be.PutUint32(dst[16:], uint32(r.thread))
	be.PutUint32(dst[20:], uint32(r.typ))
	if p := padAt[r.typ]; p != 0 {
		copy(dst[p:p+4], r.pad[:])
	}
	switch r.typ {
	case recStateDef:
		be.PutUint32(dst[24:], uint32(r.a))
		be.PutUint32(dst[28:], uint32(r.b))
		be.PutUint32(dst[32:], uint32(r.c))
		putStr(dst[40:64], r.s1)
		putStr(dst[64:96], r.s2)
		putStr(dst[96:136], r.s3)
	case recEventDef:
		be.PutUint32(dst[24:], uint32(r.a))
		putStr(dst[32:56], r.s1)
		putStr(dst[56:88], r.s2)
		putStr(dst[88:128], r.s3)
	case recConstDef:
		be.PutUint32(dst[24:], uint32(r.a))
		be.PutUint32(dst[28:], uint32(r.b))
		putStr(dst[32:64], r.s1)
	case recBareEvt:
		be.PutUint32(dst[24:], uint32(r.a))
	case recCargoEvt:
		be.PutUint32(dst[24:], uint32(r.a))
		copy(dst[32:64], r.cargo[:])
	case recMsgEvt:
		be.PutUint32(dst[24:], uint32(r.a))
		be.PutUint32(dst[28:], uint32(r.b))
		be.PutUint32(dst[32:], uint32(r.c))
		be.PutUint32(dst[36:], uint32(r.d))
		be.PutUint32(dst[40:], uint32(r.e))
	case recCollEvt:
		be.PutUint32(dst[24:], uint32(r.a))
		be.PutUint32(dst[28:], uint32(r.b))
		be.PutUint32(dst[32:], uint32(r.c))
	case recCommEvt:
		be.PutUint32(dst[24:], uint32(r.a))
		be.PutUint32(dst[28:], uint32(r.b))
		be.PutUint32(dst[32:], uint32(r.c))
		be.PutUint32(dst[36:], uint32(r.d))
		be.PutUint32(dst[40:], uint32(r.e))
		be.PutUint64(dst[44:], math.Float64bits(r.f))
		putStr(dst[52:72], r.s1)
	case recSrcLoc:
		be.PutUint32(dst[24:], uint32(r.a))
		be.PutUint32(dst[28:], uint32(r.b))
		putStr(dst[32:72], r.s1)
	case recTimeShift:
		be.PutUint64(dst[24:], math.Float64bits(r.f))
	}
}

// putHeader writes a terminator (ENDBLOCK or ENDLOG) header.
func putHeader(dst []byte, t float64, icomm, rank, thread, typ int32) {
	be.PutUint64(dst[0:], math.Float64bits(t))
	be.PutUint32(dst[8:], uint32(icomm))
	be.PutUint32(dst[12:], uint32(rank))
	be.PutUint32(dst[16:], uint32(thread))
	be.PutUint32(dst[20:], uint32(typ))
}
