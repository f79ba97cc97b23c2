// Package runner advances a replay in slices of bounded host time, for
// interactive front ends that must stay responsive while a simulation
// runs: each call to Advance simulates for at most about one frame of wall
// time (or one event, one message, one Δt of simulated time) and returns
// a consistent snapshot with the chart points gathered meanwhile.
//
// A Runner has one owner at a time. The TUI hands it to one goroutine per
// slice and waits for the slice's result before asking for the next, so a
// Runner needs no locks; a key press only changes what the next slice
// does. Nothing runs between slices, so dropping a Runner leaves no
// goroutine behind.
package runner

import (
	"context"
	"errors"
	"time"

	"github.com/tracesim/tracesim/engine/des"
	"github.com/tracesim/tracesim/engine/netmodel"
	"github.com/tracesim/tracesim/engine/replay"
	"github.com/tracesim/tracesim/tracefmt"
)

// MessageStepEvents bounds a Message step: with no message completed
// after this many engine events (a long computation), the step stops
// there, the snapshot showing how far it got.
const MessageStepEvents = 1 << 20

// Frame is the host time of one slice: about 30 snapshots a second.
const Frame = 33 * time.Millisecond

// MaxPoints bounds the chart history a front end should keep.
const MaxPoints = 1024

// Op is what a slice does.
type Op uint8

// Slice kinds.
const (
	// Run runs towards Request.Target at Request.Rate.
	Run Op = iota
	// Event processes one kernel event.
	Event
	// Message runs until one more message has completed.
	Message
	// Delta runs for Request.Dt of simulated time.
	Delta
	// Peek runs nothing: the slice reports the run as it is (with
	// Request.Trace, the predicted timeline so far).
	Peek
)

// Request says what one slice does.
type Request struct {
	Op Op
	// Target bounds a Run in simulated time (des.Never: the end).
	Target des.Time
	// Rate is simulated seconds per host second for a Run (0: as fast as
	// possible).
	Rate float64
	// Dt is the step of a Delta.
	Dt des.Time
	// Trace asks for the simulated trace of the run so far in the slice
	// (Slice.Trace) even when the run has not ended.
	Trace bool
}

// Point is one sample of the throughput and latency charts.
type Point struct {
	// T is the simulated time, seconds.
	T float64
	// Throughput is the bytes per second entering the network.
	Throughput float64
	// Latency is the mean message latency, seconds (negative: none).
	Latency float64
	// Util is the mean utilisation of the router links.
	Util float64
	// Links are the links busy in the period (packet and flow models),
	// for the links × time strips.
	Links []LinkUtil
}

// LinkUtil is one link's utilisation over one metrics period and, for
// the flow model, the time mean of the flows on it (0 for models that
// have no flows).
type LinkUtil struct {
	ID    int32
	Util  float32
	Flows float32
}

// Slice is the result of one Advance.
type Slice struct {
	Snap *replay.Snapshot
	// Points are the chart points gathered during the slice.
	Points []Point
	// Wall is the host time spent simulating.
	Wall time.Duration
	Err  error
	// Reached reports that a Run got to its target time, or a Delta to
	// the end of its step. A Delta cut short by the slice's host-time
	// bound is not reached: the next Delta request goes on to the same
	// end, so that a step of Δt always advances by Δt however loaded
	// the host is.
	Reached bool
	// Clock is the simulated time to show: the engine's, or later when
	// the user ran to a time at which nothing happened.
	Clock des.Time
	// Done is set once the run has ended, with its results and the
	// simulated run as a timed trace (before the end, Trace is the run
	// so far when the request asked for it).
	Done     bool
	Results  *replay.Results
	Trace    *tracefmt.Trace
	TraceErr error
}

// Runner owns one replay.Sim, made on the first slice.
type Runner struct {
	tr  *tracefmt.Trace
	cfg replay.Config
	sim *replay.Sim

	// samples collects the packet model's metrics periods between slices
	// (OnSample runs on the slice's goroutine).
	samples []Point
	clock   des.Time
	// stepTo is the end of a Delta step the last slice did not reach
	// (0: none); any other request abandons it.
	stepTo des.Time

	// last* are the counters of the previous slice, for the charts of
	// models without metrics samples.
	lastTime  des.Time
	lastBytes int64
}

// New returns a Runner of tr on the machine cfg. Nothing is simulated
// until the first Advance.
func New(tr *tracefmt.Trace, cfg replay.Config) *Runner {
	return &Runner{tr: tr, cfg: cfg}
}

// Config returns the configuration the Runner simulates.
func (r *Runner) Config() replay.Config { return r.cfg }

// Advance simulates one slice of kind q.Op and returns its result. Paced
// runs (q.Rate > 0) take a whole Frame even when the engine was quicker,
// so that simulated time flows at the chosen rate. Cancelling ctx makes
// Advance return promptly.
func (r *Runner) Advance(ctx context.Context, q Request) Slice {
	start := time.Now()
	s := r.advance(ctx, q)
	s.Wall = time.Since(start)
	if q.Op == Run && q.Rate > 0 && !s.Done && s.Err == nil {
		select {
		case <-time.After(Frame - s.Wall):
		case <-ctx.Done():
		}
	}
	return s
}

func (r *Runner) advance(ctx context.Context, q Request) Slice {
	var out Slice
	if r.sim == nil {
		sim, err := replay.New(r.tr, r.cfg, replay.Options{
			RecordTrace: true,
			CheckEvery:  512,
			OnSample:    r.onSample,
		})
		if err != nil {
			out.Err = err
			return out
		}
		r.sim = sim
	}
	s := r.sim
	if q.Op != Delta {
		r.stepTo = 0
	}
	switch q.Op {
	case Run:
		until := q.Target
		if q.Rate > 0 {
			// Paced from the clock, not from the last event: during a
			// long computation no event happens, yet time flows.
			// Checked: a fast rate late in a long run must saturate at
			// Never, not wrap into the past.
			if t := des.Add(max(r.clock, s.Now()), des.FromPS(q.Rate*Frame.Seconds()*1e12)); t < until {
				until = t
			}
		}
		cctx, cancel := context.WithTimeout(ctx, Frame)
		err := s.RunUntil(cctx, until)
		cancel()
		switch {
		case err == nil:
			out.Reached = until == q.Target
			if until != des.Never {
				r.clock = until
			}
		case !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled):
			out.Err = err
		}
	case Event:
		s.Step()
	case Message:
		// Event by event first (Step publishes a snapshot each time, so
		// this is exact but slow); then windows of simulated time that
		// double, so that a message far ahead is reached in a few dozen
		// calls, at the price of overshooting by at most the last window.
		// Bounded by engine events, not by host time: how far a step
		// goes must not depend on how loaded the host is.
		start := s.Snapshot()
		before, limit := start.Messages, start.Events+MessageStepEvents
		moved := func() bool {
			sn := s.Snapshot()
			return s.Done() || sn.Messages != before || sn.Events >= limit
		}
		for i := 0; i < 200 && !moved(); i++ {
			s.Step()
		}
		for win := des.Time(1000); !moved(); win = des.Mul(2, win) {
			if err := s.RunUntil(ctx, des.Add(s.Now(), win)); err != nil {
				out.Err = err
				break
			}
		}
	case Delta:
		// A step of Never (or one that would pass the end of Time's
		// range) runs to the end rather than wrapping to a negative
		// target that runs nothing.
		until := r.stepTo
		if until == 0 {
			until = des.Add(max(r.clock, s.Now()), max(q.Dt, 0))
		}
		r.stepTo = 0
		cctx, cancel := context.WithTimeout(ctx, 10*Frame)
		switch err := s.RunUntil(cctx, until); {
		case err == nil:
			r.clock, out.Reached = until, true
		case errors.Is(err, context.DeadlineExceeded):
			r.stepTo = until
		case !errors.Is(err, context.Canceled):
			out.Err = err
		}
		cancel()
	}
	out.Snap = s.Snapshot()
	// The clock shows the time the user asked to reach even when no
	// event happened at it; the engine's time once it is ahead or done.
	r.clock = max(r.clock, s.Now())
	if s.Done() {
		r.clock = s.Now()
	}
	out.Clock = r.clock
	out.Points = r.takePoints(out.Snap)
	if s.Done() {
		out.Done = true
		if out.Err == nil {
			out.Err = s.Err()
		}
		res := s.Results()
		out.Results = &res
		out.Trace, out.TraceErr = s.Trace()
	} else if q.Trace {
		out.Trace, out.TraceErr = s.TraceSoFar()
	}
	return out
}

// onSample turns the packet or flow model's metrics periods into chart
// points.
func (r *Runner) onSample(sm *netmodel.Sample) {
	p := Point{T: sm.Time.Seconds(), Util: sm.Utilisation, Latency: -1}
	if sm.Period > 0 {
		p.Throughput = float64(sm.InjectedBytes) / sm.Period.Seconds()
	}
	if sm.MessageLatency.Count > 0 {
		p.Latency = sm.MessageLatency.Mean
	}
	// The Sample is reused after the call: copy what the strip needs.
	p.Links = make([]LinkUtil, len(sm.Links))
	for i, l := range sm.Links {
		p.Links[i] = LinkUtil{l.ID, float32(l.Utilisation), float32(l.Flows)}
	}
	if len(r.samples) < MaxPoints {
		r.samples = append(r.samples, p)
	}
}

// takePoints returns the chart points gathered since the last slice: the
// metrics samples when the model has them, else one point from the
// counters of the snapshot.
func (r *Runner) takePoints(sn *replay.Snapshot) []Point {
	if r.cfg.Model.Measured() && r.cfg.SamplePeriod > 0 {
		// The metrics periods are the points; they depend on simulated
		// time only, not on how the run was sliced.
		pts := r.samples
		r.samples = nil
		return pts
	}
	if sn == nil || sn.Time <= r.lastTime {
		return nil
	}
	dt := (sn.Time - r.lastTime).Seconds()
	p := Point{T: sn.Time.Seconds(), Throughput: float64(sn.Bytes-r.lastBytes) / dt, Latency: -1}
	r.lastTime, r.lastBytes = sn.Time, sn.Bytes
	return []Point{p}
}
