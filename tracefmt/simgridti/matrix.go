package simgridti

import "math/bits"

// a2avMatrix invents the per-pair counts of an alltoallv call, which the
// trace model does not keep (only each rank's bytes sent and received):
// rank i sends rank j about S_i·R_j/T elements (T the total), rounded down,
// and the remainders, fewer than P per rank, are spread by the north-west
// corner rule. Row sums are then exactly S_i and column sums R_j, so the
// sizes read back are the same and every send fits its receive, as SimGrid
// requires. When the totals disagree (traces from other formats), senders
// send only what receivers expect, and receivers expecting more than is
// sent keep the excess as a self-receive: a rewrite of the result is then
// exact.
type a2avMatrix struct {
	dt   Datatype
	s, r []uint64 // elements sent and received by each rank
	t    uint64   // max(Σs, Σr)
	// a and b are the row and column remainders after rounding down; ap
	// and bp their prefix sums.
	a, b, ap, bp []uint64
}

func newA2avMatrix(S, R []int64, dt Datatype) *a2avMatrix {
	P := len(S)
	d := uint64(dt.Size())
	m := &a2avMatrix{dt: dt, s: make([]uint64, P), r: make([]uint64, P),
		a: make([]uint64, P), b: make([]uint64, P), ap: make([]uint64, P+1), bp: make([]uint64, P+1)}
	var ts, tr uint64
	for i := range P {
		m.s[i], m.r[i] = uint64(S[i])/d, uint64(R[i])/d
		ts += m.s[i]
		tr += m.r[i]
	}
	m.t = max(ts, tr)
	copy(m.a, m.s)
	copy(m.b, m.r)
	for i := range P {
		for j := range P {
			f := m.floor(i, j)
			m.a[i] -= f
			m.b[j] -= f
		}
	}
	for i := range P {
		m.ap[i+1] = m.ap[i] + m.a[i]
		m.bp[i+1] = m.bp[i] + m.b[i]
	}
	return m
}

// floor returns ⌊s_i·r_j/t⌋ without overflow (the quotient is at most r_j).
func (m *a2avMatrix) floor(i, j int) uint64 {
	if m.t == 0 {
		return 0
	}
	hi, lo := bits.Mul64(m.s[i], m.r[j])
	q, _ := bits.Div64(hi, lo, m.t)
	return q
}

// spread returns the remainder rank i sends rank j: the overlap of row
// i's and column j's intervals in the north-west corner order.
func (m *a2avMatrix) spread(i, j int) uint64 {
	lo := max(m.ap[i], m.bp[j])
	hi := min(m.ap[i+1], m.bp[j+1])
	if hi > lo {
		return hi - lo
	}
	return 0
}

// colLeft is what the spread could not place in column j (more expected
// than sent).
func (m *a2avMatrix) colLeft(j int) uint64 {
	covered := min(m.bp[j+1], m.ap[len(m.a)]) - min(m.bp[j], m.ap[len(m.a)])
	return m.b[j] - covered
}

// row returns rank i's send counts, in elements of m.dt.
func (m *a2avMatrix) row(i int) []int64 {
	out := make([]int64, len(m.s))
	for j := range out {
		out[j] = int64(m.floor(i, j) + m.spread(i, j))
	}
	return out
}

// col returns rank j's receive counts, in elements of m.dt.
func (m *a2avMatrix) col(j int) []int64 {
	out := make([]int64, len(m.r))
	for i := range out {
		out[i] = int64(m.floor(i, j) + m.spread(i, j))
	}
	out[j] += int64(m.colLeft(j))
	return out
}
