package analysis

import (
	"github.com/tracesim/tracesim/engine/placement"
	"github.com/tracesim/tracesim/tracefmt"
)

// MaxResolution bounds the side of a computed traffic matrix: traces with
// more ranks are folded into groups of consecutive ranks so that the
// matrix stays below a few tens of megabytes whatever the world size.
const MaxResolution = 1024

// Traffic is a sender × receiver matrix of point-to-point traffic. Row i,
// column j holds what the ranks of group i sent to the ranks of group j;
// a group is Scale consecutive ranks (1 unless the trace has more than
// MaxResolution ranks).
type Traffic struct {
	// Ranks is the world size of the trace.
	Ranks int
	// Scale is the number of consecutive ranks per row and column.
	Scale int
	// Bytes and Count are square, with ⌈Ranks/Scale⌉ rows.
	Bytes, Count [][]int64
	// Collectives and CollectiveBytes count the collective calls and the
	// bytes ranks sent in them, which the matrix does not show.
	Collectives     int64
	CollectiveBytes int64
}

// Size returns the number of rows (and columns) of the matrix.
func (t *Traffic) Size() int { return len(t.Bytes) }

// ComputeTraffic counts the point-to-point messages of a trace by sender
// and receiver, from the send events inside window w (unmatched sends
// included: they were sent) between the given ranks (nil: every rank;
// otherwise a message counts when both its sender and its receiver are
// among them). Collectives are not expanded into messages; those of the
// given ranks inside the window are counted apart.
func ComputeTraffic(tr *tracefmt.Trace, w Window, ranks []int) *Traffic {
	p := tr.Size()
	in := rankSet(ranks, p)
	scale := 1
	if p > MaxResolution {
		scale = (p + MaxResolution - 1) / MaxResolution
	}
	n := (p + scale - 1) / scale
	t := &Traffic{Ranks: p, Scale: scale, Bytes: Square(n), Count: Square(n)}
	all := w.IsAll()
	for r := range tr.Ranks {
		if in != nil && !in[r] {
			continue
		}
		ev := tr.Ranks[r].Events
		row := r / scale
		for i := range ev {
			e := &ev[i]
			if !all && !w.Contains(e.Time) {
				continue
			}
			if e.Kind == tracefmt.KindCollective {
				t.Collectives++
				t.CollectiveBytes += e.Size
			}
			if e.Kind != tracefmt.KindSend || e.Peer < 0 || int(e.Peer) >= p {
				continue
			}
			if in != nil && !in[e.Peer] {
				continue
			}
			col := int(e.Peer) / scale
			t.Bytes[row][col] += e.Size
			t.Count[row][col]++
		}
	}
	return t
}

// Square returns an n×n matrix backed by one allocation.
func Square(n int) [][]int64 {
	cells := make([]int64, n*n)
	m := make([][]int64, n)
	for i := range m {
		m[i] = cells[i*n : (i+1)*n : (i+1)*n]
	}
	return m
}

// Nodes carries the matrix into node space with k consecutive ranks per
// node (placement block:k), using the engine's placement so the view
// shows what a simulated machine would see. It returns nil when the
// matrix was already folded (Scale > 1) or k < 2.
func (t *Traffic) Nodes(k int) *Traffic {
	if k < 2 || t.Scale != 1 {
		return nil
	}
	nodes := (t.Ranks + k - 1) / k
	pl, err := placement.Block(t.Ranks, nodes, k)
	if err != nil {
		return nil
	}
	b, err := pl.NodeMatrix(t.Bytes)
	if err != nil {
		return nil
	}
	c, err := pl.NodeMatrix(t.Count)
	if err != nil {
		return nil
	}
	return &Traffic{Ranks: t.Ranks, Scale: k, Bytes: b, Count: c, Collectives: t.Collectives, CollectiveBytes: t.CollectiveBytes}
}
