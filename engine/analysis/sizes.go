package analysis

import (
	"math/bits"
	"sort"

	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/tracefmt/units"
)

// NumBins is the number of log2 size bins: bin 0 holds empty messages,
// bin k ≥ 1 holds sizes in [2^(k−1), 2^k).
const NumBins = 64

// Bin returns the log2 bin of a message size.
func Bin(size int64) int {
	if size <= 0 {
		return 0
	}
	return bits.Len64(uint64(size))
}

// BinRange returns the smallest and largest size of bin k.
func BinRange(k int) (lo, hi int64) {
	if k <= 0 {
		return 0, 0
	}
	lo = int64(1) << (k - 1)
	return lo, lo*2 - 1
}

// BinLabel names bin k's size range as the Sizes tab shows it: "0 B",
// "1 B", "2 B–4 B" (the upper bound excluded).
func BinLabel(k int) string {
	if k == 0 {
		return "0 B"
	}
	lo, hi := BinRange(k)
	if lo == hi {
		return units.FormatBytes(lo)
	}
	return units.FormatBytes(lo) + "–" + units.FormatBytes(hi+1)
}

// Histogram counts messages and bytes per log2 size bin.
type Histogram struct {
	Count [NumBins]int64
	Bytes [NumBins]int64
}

// Total returns the number of messages and bytes in h.
func (h Histogram) Total() (count, bytes int64) {
	for k := range h.Count {
		count += h.Count[k]
		bytes += h.Bytes[k]
	}
	return count, bytes
}

// send is one point-to-point send: when and how big.
type send struct {
	time float64
	size int64
}

// Sends indexes the point-to-point sends of a trace per rank, in time
// order, so that histograms of any rank and any time window cost a binary
// search and one pass over the sends inside.
type Sends struct {
	ranks [][]send
	// Collectives counts the collective calls, which are not messages
	// here.
	Collectives int64
}

// IndexSends builds the index from a trace's send events.
func IndexSends(tr *tracefmt.Trace) *Sends {
	s := &Sends{ranks: make([][]send, tr.Size())}
	for r := range tr.Ranks {
		ev := tr.Ranks[r].Events
		var out []send
		for i := range ev {
			switch ev[i].Kind {
			case tracefmt.KindSend:
				out = append(out, send{ev[i].Time, ev[i].Size})
			case tracefmt.KindCollective:
				s.Collectives++
			}
		}
		// Broken clocks can run backwards; the index must be sorted.
		if !sort.SliceIsSorted(out, func(i, j int) bool { return out[i].time < out[j].time }) {
			sort.SliceStable(out, func(i, j int) bool { return out[i].time < out[j].time })
		}
		s.ranks[r] = out
	}
	return s
}

// Ranks returns the number of ranks indexed.
func (s *Sends) Ranks() int { return len(s.ranks) }

// Histogram bins the sends of the given ranks (nil: every rank) whose
// time lies in window w.
func (s *Sends) Histogram(ranks []int, w Window) Histogram {
	var h Histogram
	add := func(list []send) {
		if !w.IsAll() {
			lo := sort.Search(len(list), func(i int) bool { return list[i].time >= w.Start })
			hi := sort.Search(len(list), func(i int) bool { return list[i].time > w.End })
			list = list[lo:hi]
		}
		for _, m := range list {
			k := Bin(m.size)
			h.Count[k]++
			h.Bytes[k] += m.size
		}
	}
	if ranks == nil {
		for _, list := range s.ranks {
			add(list)
		}
		return h
	}
	for _, r := range ranks {
		if r >= 0 && r < len(s.ranks) {
			add(s.ranks[r])
		}
	}
	return h
}

// SizeHistogram bins the point-to-point sends of the given ranks (nil:
// every rank) inside window w by log2 size.
func SizeHistogram(tr *tracefmt.Trace, w Window, ranks []int) Histogram {
	return IndexSends(tr).Histogram(ranks, w)
}
