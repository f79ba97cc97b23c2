package analysis

import (
	"cmp"
	"slices"

	"github.com/tracesim/tracesim/tracefmt"
)

// Activity is what a rank is doing, as the profile bars show it.
type Activity int

// Activities, in bar order.
const (
	// Compute is computation: compute states, and time outside any state
	// (MPE logs only MPI calls; the gaps are the program's own work).
	Compute Activity = iota
	// User is time in user-defined states (MPE_Log_event phases).
	User
	// MPI is time inside point-to-point, collective and other MPI calls.
	MPI
	// Waiting is time in wait and test calls.
	Waiting
	// IO is time in I/O states.
	IO
	// NumActivities counts the activities.
	NumActivities
)

// String names the activity.
func (a Activity) String() string {
	return [...]string{"compute", "user", "MPI", "waiting", "I/O"}[a]
}

// activityOf maps a state category to an activity.
func activityOf(c tracefmt.Category) Activity {
	switch c {
	case tracefmt.CatP2P, tracefmt.CatCollective, tracefmt.CatOther:
		return MPI
	case tracefmt.CatWait:
		return Waiting
	case tracefmt.CatIO:
		return IO
	case tracefmt.CatUser:
		return User
	}
	return Compute
}

// RankProfile is where one rank's time went, in seconds.
type RankProfile struct {
	Rank int
	Time [NumActivities]float64
	// Span is the time from the rank's first to its last event.
	Span float64
	// Burst is the computation its compute events declare, in seconds,
	// and Work the work (flops) of those that declare work instead: all
	// an untimed trace says about computation.
	Burst, Work float64
	// Sends and Bytes count its point-to-point sends.
	Sends, Bytes int64
}

// FuncStat summarises the calls of one state (an MPI function).
type FuncStat struct {
	Name     string
	Category tracefmt.Category
	Calls    int
	// Total, Mean and Max are inclusive durations in seconds.
	Total, Max float64
}

// Mean returns the mean duration of a call in seconds.
func (f *FuncStat) Mean() float64 {
	if f.Calls == 0 {
		return 0
	}
	return f.Total / float64(f.Calls)
}

// Profile is the statistics the view shows.
type Profile struct {
	// Timed is false for traces that record only the order of events:
	// their ranks have no times, only compute amounts and messages.
	Timed bool
	Ranks []RankProfile
	Funcs []FuncStat
}

// ComputeProfile profiles the part of a trace inside window w, for the
// given ranks (nil: every rank): exclusive time per activity and rank
// (nested states count for the innermost one) and inclusive call
// statistics per state over those ranks. Times are clipped to the window,
// and a call counts when it overlaps the window, with the part inside as
// its duration; calls that were entered but never left count as calls of
// unknown duration. Ranks lists the chosen ranks in increasing order.
func ComputeProfile(tr *tracefmt.Trace, w Window, ranks []int) *Profile {
	in := rankSet(ranks, tr.Size())
	n := tr.Size()
	if in != nil {
		n = 0
		for _, ok := range in {
			if ok {
				n++
			}
		}
	}
	p := &Profile{Timed: tr.Timed, Ranks: make([]RankProfile, 0, n), Funcs: make([]FuncStat, len(tr.States))}
	for i, d := range tr.States {
		p.Funcs[i] = FuncStat{Name: d.Name, Category: d.Category}
	}
	start, end := w.Start, w.End
	sec := tr.Unit.Seconds()
	// overlap is the length of [a, b] inside the window, in seconds.
	overlap := func(a, b float64) float64 {
		return float64(max(0, min(b, end)-max(a, start)) * sec)
	}
	inside := func(t float64) bool { return t >= start && t <= end }
	var stack []tracefmt.StateID
	for r := range tr.Ranks {
		if in != nil && !in[r] {
			continue
		}
		ev := tr.Ranks[r].Events
		p.Ranks = append(p.Ranks, RankProfile{Rank: r})
		rp := &p.Ranks[len(p.Ranks)-1]
		stack = stack[:0]
		if len(ev) == 0 {
			continue
		}
		prev := ev[0].Time
		rp.Span = overlap(ev[0].Time, ev[len(ev)-1].Time)
		for i := range ev {
			e := &ev[i]
			if d := overlap(prev, e.Time); d > 0 {
				a := Compute
				if n := len(stack); n > 0 {
					a = activityOf(tr.States[stack[n-1]].Category)
				}
				rp.Time[a] += d
			}
			prev = e.Time
			switch e.Kind {
			case tracefmt.KindCompute:
				if !inside(e.Time) {
					break
				}
				if e.Flags.Has(tracefmt.FlagWork) {
					rp.Work += e.Amount()
				} else {
					rp.Burst += float64(e.Amount() * sec)
				}
			case tracefmt.KindSend:
				if inside(e.Time) {
					rp.Sends++
					rp.Bytes += e.Size
				}
			case tracefmt.KindEnter:
				s := e.State()
				stack = append(stack, s)
				f := &p.Funcs[s]
				if e.Match < 0 {
					if inside(e.Time) {
						f.Calls++
					}
					break
				}
				t1 := ev[e.Match].Time
				if d := overlap(e.Time, t1); d > 0 || (inside(e.Time) && inside(t1)) {
					f.Calls++
					f.Total += d
					f.Max = max(f.Max, d)
				}
			case tracefmt.KindLeave:
				// Pop to the state being left; a leave without its enter
				// changes nothing.
				for j := len(stack) - 1; j >= 0; j-- {
					if stack[j] == e.State() {
						stack = stack[:j]
						break
					}
				}
			}
		}
	}
	return p
}

// RankColumns returns the rank table's columns: the rank, then one per
// Activity; for untimed traces, what they record instead of times.
func RankColumns(timed bool) []string {
	if timed {
		return []string{"rank", "compute", "user", "MPI", "waiting", "I/O"}
	}
	return []string{"rank", "compute", "work", "sends", "bytes"}
}

// FuncColumns returns the function table's columns.
func FuncColumns() []string { return []string{"function", "calls", "total", "mean", "max", "%"} }

// RankValue is what column col of the rank table (RankColumns) holds
// for rp, as a number to sort by.
func (p *Profile) RankValue(rp *RankProfile, col int) float64 {
	if col == 0 {
		return float64(rp.Rank)
	}
	if p.Timed {
		return rp.Time[col-1]
	}
	switch col {
	case 1:
		return rp.Burst
	case 2:
		return rp.Work
	case 3:
		return float64(rp.Sends)
	}
	return float64(rp.Bytes)
}

// RankOrder returns the indices of p.Ranks sorted by column col of the
// rank table, ties in rank order.
func (p *Profile) RankOrder(col int, desc bool) []int {
	return sortedIndex(len(p.Ranks), desc, func(a, b int) int {
		if col == 0 {
			return cmp.Compare(a, b)
		}
		return cmp.Compare(p.RankValue(&p.Ranks[a], col), p.RankValue(&p.Ranks[b], col))
	})
}

// FuncOrder returns the indices of the functions of p that were called,
// sorted by column col of the function table (FuncColumns; the share
// column sorts as the total), ties in state order.
func (p *Profile) FuncOrder(col int, desc bool) []int {
	var used []int
	for i, f := range p.Funcs {
		if f.Calls > 0 {
			used = append(used, i)
		}
	}
	order := sortedIndex(len(used), desc, func(a, b int) int {
		x, y := &p.Funcs[used[a]], &p.Funcs[used[b]]
		switch col {
		case 0:
			return cmp.Compare(x.Name, y.Name)
		case 1:
			return cmp.Compare(x.Calls, y.Calls)
		case 3:
			return cmp.Compare(x.Mean(), y.Mean())
		case 4:
			return cmp.Compare(x.Max, y.Max)
		}
		return cmp.Compare(x.Total, y.Total)
	})
	for i, j := range order {
		order[i] = used[j]
	}
	return order
}

// AllTime returns the sum of the ranks' spans, the whole of which a
// function's share (the % column) is a part.
func (p *Profile) AllTime() float64 {
	var t float64
	for _, r := range p.Ranks {
		t += r.Span
	}
	return t
}

// Total returns the time of a rank's profile over all activities.
func (rp *RankProfile) Total() float64 {
	var total float64
	for _, t := range rp.Time {
		total += t
	}
	return total
}

// sortedIndex returns 0..n−1 sorted stably by c, ties in index order.
func sortedIndex(n int, desc bool, c func(a, b int) int) []int {
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		r := c(a, b)
		if desc {
			r = -r
		}
		if r == 0 {
			return cmp.Compare(a, b)
		}
		return r
	})
	return idx
}
