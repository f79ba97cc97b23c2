package tracefmt

import (
	"fmt"
	"strings"
)

// FlagSizeUnknown marks a collective whose byte counts the trace does not
// record (MPE logs most collectives as states only): its Size and
// RecvBytes are 0 and mean "unknown". It shares its bit with FlagWork,
// which only compute events use.
const FlagSizeUnknown = FlagWork

// SizeKnown reports whether the byte counts of a collective event are
// recorded (always true for other kinds).
func (e *Event) SizeKnown() bool {
	return e.Kind != KindCollective || !e.Flags.Has(FlagSizeUnknown)
}

// CollOpOfState returns the collective operation an MPI state stands for,
// from its name ("MPI_Allreduce", "MPI_Ibcast", "MPI_Reduce_scatter", or
// MPE 1.x's "BCAST"), and whether it is the non-blocking form; ok is false
// for other names.
func CollOpOfState(name string) (op CollOp, nonBlocking, ok bool) {
	n := strings.TrimPrefix(strings.ToLower(name), "mpi_")
	look := func(s string) (CollOp, bool) {
		switch s {
		case "reduce_scatter", "reduce_scatter_block":
			return OpReduceScatter, true
		case "alltoallw":
			return OpAlltoallv, true
		case "other":
			return 0, false
		}
		return ParseCollOp(s)
	}
	if o, ok := look(n); ok {
		return o, false, true
	}
	if strings.HasPrefix(n, "i") {
		if o, ok := look(n[1:]); ok {
			return o, true, true
		}
	}
	return 0, false, false
}

// CollSizes gives the bytes rank r sends and receives in the collective
// call whose enter and leave are events enter and leave of its stream;
// ok is false when the trace does not record them.
type CollSizes func(r, enter, leave int) (sent, recvd int64, ok bool)

// DeriveCollectives adds a collective event after the enter of every MPI
// collective state (CollOpOfState) whose interval holds neither a
// collective nor the point-to-point messages of its implementation, for formats
// that log collectives only as states (MPE's CLOG2, CLOG and ALOG): at
// the enter's time, on the enter's communicator, with no root (MPE does
// not log it), FlagNonBlocking for the non-blocking forms, and the bytes
// sizes gives, else FlagSizeUnknown (a barrier moves no bytes). It
// returns the number of events added.
func (t *Trace) DeriveCollectives(sizes CollSizes) int {
	type stateOp struct {
		op     CollOp
		nb, ok bool
	}
	ops := make([]stateOp, len(t.States))
	any := false
	for i, s := range t.States {
		// A user state may be called "Allreduce"; MPI states are
		// collective, or other when the name guesser did not know the
		// call (MPI_Iallgather).
		mpi := s.Category == CatOther && strings.HasPrefix(strings.ToLower(s.Name), "mpi_")
		if s.Category != CatCollective && !mpi {
			continue
		}
		op, nb, ok := CollOpOfState(s.Name)
		ops[i] = stateOp{op, nb, ok}
		any = any || ok
	}
	if !any {
		return 0
	}
	ins := make([][]Insertion, len(t.Ranks))
	n := 0
	for r := range t.Ranks {
		ev := t.Ranks[r].Events
		for i := range ev {
			e := &ev[i]
			if e.Kind != KindEnter || int(e.State()) >= len(ops) || !ops[e.State()].ok {
				continue
			}
			so := ops[e.State()]
			end := len(ev)
			if e.Match > int32(i) {
				end = int(e.Match)
			}
			// A call that holds its implementation's messages (MPICH-1
			// logged them inside MPE 1.x's states) is those messages.
			has := false
			for j := i + 1; j < end && !has; j++ {
				has = ev[j].Kind == KindCollective || ev[j].IsP2P()
			}
			if has {
				continue
			}
			c := Collective(e.Time, so.op, -1, e.Comm, 0, 0)
			switch {
			case so.op == OpBarrier:
			case sizes != nil && e.Match > int32(i):
				if s, rv, ok := sizes(r, i, int(e.Match)); ok {
					c.Size, c.aux = s, rv
					break
				}
				c.Flags |= FlagSizeUnknown
			default:
				c.Flags |= FlagSizeUnknown
			}
			if so.nb {
				c.Flags |= FlagNonBlocking
			}
			ins[r] = append(ins[r], Insertion{Pos: int32(i + 1), Event: c})
			n++
		}
	}
	if n > 0 {
		t.Insert(ins)
	}
	return n
}

// SizeUnknownNote says, in the words `info`, `sim` and the Machine tab
// use, what n collective calls without a recorded size mean.
func SizeUnknownNote(n int) string {
	calls := "calls have"
	if n == 1 {
		calls = "call has"
	}
	return fmt.Sprintf("%d collective %s no recorded size (MPE logs sizes only for MPI_Alltoall and MPI_Alltoallv): they count as 0 bytes, and a replay moves no data for them", n, calls)
}

// UnknownSizeCollectives counts the collective events whose bytes the
// trace does not record.
func (t *Trace) UnknownSizeCollectives() int {
	n := 0
	for r := range t.Ranks {
		ev := t.Ranks[r].Events
		for i := range ev {
			if ev[i].Kind == KindCollective && ev[i].Flags.Has(FlagSizeUnknown) {
				n++
			}
		}
	}
	return n
}
