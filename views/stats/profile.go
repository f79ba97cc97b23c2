package stats

import (
	"math"

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

// ComputeProfile profiles a trace: exclusive time per activity and rank
// (nested states count for the innermost one) and inclusive call
// statistics per state. Calls that were entered but never left count as
// calls of unknown duration.
func ComputeProfile(tr *tracefmt.Trace) *Profile {
	return ComputeProfileIn(tr, math.Inf(-1), math.Inf(1))
}

// ComputeProfileIn profiles the part of a timed trace inside [start, end]
// (trace units): times are clipped to the window, and a call counts when
// it overlaps the window, with the part inside as its duration.
func ComputeProfileIn(tr *tracefmt.Trace, start, end float64) *Profile {
	p := &Profile{Timed: tr.Timed, Ranks: make([]RankProfile, tr.Size()), Funcs: make([]FuncStat, len(tr.States))}
	for i, d := range tr.States {
		p.Funcs[i] = FuncStat{Name: d.Name, Category: d.Category}
	}
	sec := tr.Unit.Seconds()
	// overlap is the length of [a, b] inside the window, in seconds.
	overlap := func(a, b float64) float64 {
		return max(0, min(b, end)-max(a, start)) * sec
	}
	inside := func(t float64) bool { return t >= start && t <= end }
	var stack []tracefmt.StateID
	for r := range tr.Ranks {
		ev := tr.Ranks[r].Events
		rp := &p.Ranks[r]
		rp.Rank = r
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
					rp.Burst += e.Amount() * sec
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
