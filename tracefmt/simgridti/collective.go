package simgridti

import (
	"fmt"
	"strings"

	"github.com/tracesim/tracesim/tracefmt"
)

// sizedOp reports whether an operation needs the world size to read its
// arguments or compute its byte counts.
func sizedOp(op tracefmt.CollOp) bool {
	switch op {
	case tracefmt.OpAlltoall, tracefmt.OpAlltoallv, tracefmt.OpGather, tracefmt.OpGatherv,
		tracefmt.OpAllgather, tracefmt.OpAllgatherv, tracefmt.OpScatter, tracefmt.OpScatterv,
		tracefmt.OpReduceScatter:
		return true
	}
	return false
}

func (l *line) collective(op tracefmt.CollOp) error {
	if sizedOp(op) && l.p.world == 0 {
		// The world size of a single-file trace is known at its end:
		// keep the slots and parse the arguments then.
		d := deferredColl{
			rank: l.rank, action: cloneField(l.act), args: cloneFields(l.args),
			pos: position{l.src.name, l.src.line, l.act.col}, defaultT: l.rs.dtDefault,
		}
		d.index = l.add(tracefmt.Collective(0, op, -1, 0, 0, 0))
		if op == tracefmt.OpReduceScatter {
			l.add(tracefmt.ComputeWork(0, 0))
		}
		l.p.deferred = append(l.p.deferred, d)
		return nil
	}
	c, err := l.parseColl(op, l.p.world)
	if err != nil {
		return err
	}
	l.add(tracefmt.Collective(0, op, c.root, 0, c.sent, c.recvd))
	if c.flops > 0 {
		// SimGrid runs the reduction operator's flops once the
		// communication is done.
		l.add(tracefmt.ComputeWork(0, c.flops))
	}
	return nil
}

// cloneField returns f with its own copy of the text, which outlives
// the line.
func cloneField(f field) field { return field{strings.Clone(f.s), f.col} }

func cloneFields(fs []field) []field {
	out := make([]field, len(fs))
	for i, f := range fs {
		out[i] = cloneField(f)
	}
	return out
}

// collArgs is a parsed collective: this rank's bytes, the root (-1 when
// unrooted) and the flops of the reduction operator.
type collArgs struct {
	root        int
	sent, recvd int64
	flops       float64
}

// parseColl parses the arguments of a collective of a world of size P
// (P is unused by the operations that do not need it).
func (l *line) parseColl(op tracefmt.CollOp, P int) (collArgs, error) {
	c := collArgs{root: -1}
	a := l.args
	me := l.rank
	var err error
	rootAt := func(i int) error {
		c.root = 0
		if i < len(a) {
			if c.root, err = l.peer(a[i], false, "root"); err != nil {
				return err
			}
			if c.root == procNull {
				return l.errAt(a[i], "root cannot be MPI_PROC_NULL")
			}
		}
		return nil
	}
	flopsAt := func(i int) error {
		c.flops, err = l.number(a[i], "flop count")
		return err
	}
	switch op {
	case tracefmt.OpBarrier:
		return c, l.arity(0, 0, "none")
	case tracefmt.OpBcast:
		if err := l.arity(1, 3, "count [root [datatype]]"); err != nil {
			return c, err
		}
		if err := rootAt(1); err != nil {
			return c, err
		}
		dt, err := l.datatype(2)
		if err != nil {
			return c, err
		}
		n, err := l.bytes(a[0], dt)
		if err != nil {
			return c, err
		}
		if me == c.root {
			c.sent = n
		} else {
			c.recvd = n
		}
	case tracefmt.OpReduce:
		if err := l.arity(2, 4, "count flops [root [datatype]]"); err != nil {
			return c, err
		}
		if err := flopsAt(1); err != nil {
			return c, err
		}
		if err := rootAt(2); err != nil {
			return c, err
		}
		dt, err := l.datatype(3)
		if err != nil {
			return c, err
		}
		if c.sent, err = l.bytes(a[0], dt); err != nil {
			return c, err
		}
		if me == c.root {
			c.recvd = c.sent
		}
	case tracefmt.OpAllreduce, tracefmt.OpScan, tracefmt.OpExscan:
		if err := l.arity(2, 3, "count flops [datatype]"); err != nil {
			return c, err
		}
		if err := flopsAt(1); err != nil {
			return c, err
		}
		dt, err := l.datatype(2)
		if err != nil {
			return c, err
		}
		if c.sent, err = l.bytes(a[0], dt); err != nil {
			return c, err
		}
		c.recvd = c.sent
	case tracefmt.OpAlltoall, tracefmt.OpAllgather, tracefmt.OpGather, tracefmt.OpScatter:
		rooted := op == tracefmt.OpGather || op == tracefmt.OpScatter
		dtAt := 2
		if rooted {
			dtAt = 3
			if err := l.arity(2, 5, "sendcount recvcount [root [send-datatype [recv-datatype]]]"); err != nil {
				return c, err
			}
			if err := rootAt(2); err != nil {
				return c, err
			}
		} else if err := l.arity(2, 4, "sendcount recvcount [send-datatype [recv-datatype]]"); err != nil {
			return c, err
		}
		sdt, err := l.datatype(dtAt)
		if err != nil {
			return c, err
		}
		rdt, err := l.datatype(dtAt + 1)
		if err != nil {
			return c, err
		}
		s, err := l.bytes(a[0], sdt)
		if err != nil {
			return c, err
		}
		r, err := l.bytes(a[1], rdt)
		if err != nil {
			return c, err
		}
		P64 := int64(P)
		switch op {
		case tracefmt.OpAlltoall:
			c.sent, c.recvd = s*P64, r*P64
		case tracefmt.OpAllgather:
			c.sent, c.recvd = s, r*P64
		case tracefmt.OpGather:
			c.sent = s
			if me == c.root {
				c.recvd = r * P64
			}
		case tracefmt.OpScatter:
			c.recvd = r
			if me == c.root {
				c.sent = s * P64
			}
		}
	case tracefmt.OpAlltoallv:
		if err := l.arity(2*P+2, 2*P+4, fmt.Sprintf("sendsize %d×sendcount recvsize %d×recvcount [send-datatype [recv-datatype]]", P, P)); err != nil {
			return c, err
		}
		for _, i := range []int{0, P + 1} {
			if _, err := l.count(a[i]); err != nil {
				return c, err
			}
		}
		sdt, err := l.datatype(2*P + 2)
		if err != nil {
			return c, err
		}
		rdt, err := l.datatype(2*P + 3)
		if err != nil {
			return c, err
		}
		if c.sent, _, err = l.sumBytes(a[1:P+1], sdt); err != nil {
			return c, err
		}
		if c.recvd, _, err = l.sumBytes(a[P+2:2*P+2], rdt); err != nil {
			return c, err
		}
	case tracefmt.OpGatherv:
		if err := l.arity(P+1, P+4, fmt.Sprintf("sendcount %d×recvcount [root [send-datatype [recv-datatype]]]", P)); err != nil {
			return c, err
		}
		if err := rootAt(P + 1); err != nil {
			return c, err
		}
		sdt, err := l.datatype(P + 2)
		if err != nil {
			return c, err
		}
		rdt, err := l.datatype(P + 3)
		if err != nil {
			return c, err
		}
		if c.sent, err = l.bytes(a[0], sdt); err != nil {
			return c, err
		}
		sum, _, err := l.sumBytes(a[1:P+1], rdt)
		if err != nil {
			return c, err
		}
		if me == c.root {
			c.recvd = sum
		}
	case tracefmt.OpAllgatherv:
		// sendcount P×recvcount [datatype [datatype]] [P×displacement]:
		// like SimGrid, the first datatype serves both buffers.
		n := len(a)
		ndt := n - (P + 1)
		if n > P+3 {
			ndt = n - (2*P + 1)
		}
		if n < P+1 || ndt < 0 || ndt > 2 {
			return c, l.arity(P+1, 2*P+3, fmt.Sprintf("sendcount %d×recvcount [datatype [datatype]] [%d×displacement]", P, P))
		}
		dt, err := l.datatype(P + 1)
		if err != nil {
			return c, err
		}
		if ndt == 2 {
			if _, err := l.datatype(P + 2); err != nil {
				return c, err
			}
		}
		for _, f := range a[P+1+ndt:] {
			if _, err := l.integer(f, "a displacement"); err != nil {
				return c, err
			}
		}
		if c.sent, err = l.bytes(a[0], dt); err != nil {
			return c, err
		}
		if c.recvd, _, err = l.sumBytes(a[1:P+1], dt); err != nil {
			return c, err
		}
	case tracefmt.OpScatterv:
		if err := l.arity(P+1, P+4, fmt.Sprintf("%d×sendcount recvcount [root [send-datatype [recv-datatype]]]", P)); err != nil {
			return c, err
		}
		if err := rootAt(P + 1); err != nil {
			return c, err
		}
		sdt, err := l.datatype(P + 2)
		if err != nil {
			return c, err
		}
		rdt, err := l.datatype(P + 3)
		if err != nil {
			return c, err
		}
		sum, _, err := l.sumBytes(a[:P], sdt)
		if err != nil {
			return c, err
		}
		if me == c.root {
			c.sent = sum
		}
		if c.recvd, err = l.bytes(a[P], rdt); err != nil {
			return c, err
		}
	case tracefmt.OpReduceScatter:
		if err := l.arity(P+1, P+2, fmt.Sprintf("%d×recvcount flops [datatype]", P)); err != nil {
			return c, err
		}
		if err := flopsAt(P); err != nil {
			return c, err
		}
		dt, err := l.datatype(P + 1)
		if err != nil {
			return c, err
		}
		sum, each, err := l.sumBytes(a[:P], dt)
		if err != nil {
			return c, err
		}
		c.sent, c.recvd = sum, each[me]
	}
	return c, nil
}
