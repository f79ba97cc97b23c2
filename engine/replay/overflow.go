package replay

import (
	"fmt"

	"github.com/tracesim/tracesim/engine/des"
	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/tracefmt/units"
)

// TimeRangeError stops a run whose simulated time would pass the end of
// des.Time's range (des.Limit): the engine refuses to report a time that
// wrapped round or was capped.
type TimeRangeError struct {
	// At is the simulated time the run had reached.
	At des.Time
	// Rank is the rank whose action would end past the limit, or -1
	// when it is the network's.
	Rank int
	// Event is the index of that action's event in the rank's trace, or
	// -1.
	Event int
	// What describes the action and its duration.
	What string
}

func (e *TimeRangeError) Error() string {
	where := "in the network"
	if e.Rank >= 0 {
		where = fmt.Sprintf("at rank %d", e.Rank)
		if e.Event >= 0 {
			where += fmt.Sprintf(", event %d", e.Event)
		}
	}
	return fmt.Sprintf("replay: simulated time would exceed %s %s: %s, starting at %s",
		des.Limit, where, e.What, longDuration(e.At.Seconds()))
}

// longDuration formats seconds, in days too past one day: the limit is
// 106.75 days.
func longDuration(secs float64) string {
	if secs < 86400 {
		return units.FormatDuration(secs)
	}
	return fmt.Sprintf("%s (%.4g days)", units.FormatDuration(secs), secs/86400)
}

// burstRangeError describes a CPU burst of rank r that would end past the
// limit. d is the burst's duration, des.Never when it does not fit Time
// by itself; the description then works the duration out again in
// floating point from the event that asked for it.
func (s *Sim) burstRangeError(r int32, rk *rank, d des.Time, a Activity) error {
	err := &TimeRangeError{At: s.k.Now(), Rank: int(r), Event: int(rk.actEv)}
	secs := d.Seconds()
	e := s.at(rk, rk.actEv)
	if a != ActCompute || e == nil {
		if d == des.Never {
			err.What = "a CPU overhead longer than the limit"
		} else {
			err.What = "a CPU overhead of " + longDuration(secs)
		}
		return err
	}
	scale := ""
	if s.cfg.CPUScale != 1 {
		scale = fmt.Sprintf(" × cpu-scale %g", s.cfg.CPUScale)
	}
	switch {
	case e.Kind == tracefmt.KindCompute && e.Flags.Has(tracefmt.FlagWork):
		secs = e.Amount() * s.rankFlopPS(r) / 1e12
		speed := s.cfg.CPUSpeed
		if s.cfg.nodeSpeeds != nil {
			speed = s.cfg.nodeSpeeds[s.nodeOf[r]]
		}
		err.What = fmt.Sprintf("compute of %s at %s/s%s lasts %s", units.FormatFlops(e.Amount()), units.FormatFlops(speed), scale, longDuration(secs))
	case e.Kind == tracefmt.KindCompute:
		secs = e.Amount() * s.unitPS / 1e12
		err.What = fmt.Sprintf("compute of %s%s lasts %s", units.FormatDuration(e.Amount()*s.tr.Unit.Seconds()), scale, longDuration(secs))
	default:
		// The computation of a timed trace is the gap since the
		// previous event.
		gap := e.Time
		if prev := s.at(rk, rk.actEv-1); rk.actEv > 0 && prev != nil {
			gap -= prev.Time
		}
		secs = gap * s.unitPS / 1e12
		err.What = fmt.Sprintf("the computation before it (%s recorded%s) lasts %s", units.FormatDuration(gap*s.tr.Unit.Seconds()), scale, longDuration(secs))
	}
	return err
}

// kernelRangeError describes the event the kernel refused for lying past
// the limit (des.Kernel.Overflow).
func (s *Sim) kernelRangeError(o des.Event) error {
	err := &TimeRangeError{At: o.At, Rank: -1, Event: -1}
	switch {
	case o.Kind >= netKind:
		// The network's events name its own objects; the messages in
		// flight say what it was carrying.
		var big *message
		n := 0
		for i := range s.msgs {
			if m := &s.msgs[i]; m.live && !m.delivered {
				n++
				if big == nil || m.size > big.size {
					big = m
				}
			}
		}
		err.What = fmt.Sprintf("the %s network cannot deliver its traffic in time", s.net.Name())
		if big != nil {
			err.What += fmt.Sprintf(" (%d messages in flight, the largest %s from rank %d to rank %d)", n, units.FormatBytes(big.size), big.src, big.dst)
		}
	case o.Kind == evCPU:
		err.What = fmt.Sprintf("the ranks sharing node %d's CPU would finish their bursts past it", o.Obj)
	default:
		err.Rank = int(o.Obj)
		if rk := &s.ranks[o.Obj]; rk.actEv >= 0 && s.more(rk, rk.actEv) {
			err.Event = int(rk.actEv)
		}
		err.What = "its " + s.ranks[o.Obj].act.String() + " would end past it"
	}
	return err
}
