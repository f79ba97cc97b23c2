package simulate

import (
	"context"
	"errors"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/tracesim/tracesim/engine/des"
	"github.com/tracesim/tracesim/engine/netmodel"
	"github.com/tracesim/tracesim/engine/replay"
	"github.com/tracesim/tracesim/tracefmt"
)

// The simulation never runs in Update. Each piece of work is a slice: a
// tea.Cmd that advances the engine for at most one frame (frame) of host
// time on Bubble Tea's command goroutine and returns a sliceMsg with a
// fresh snapshot. While a slice is in flight Update does not touch the
// Sim; when the slice's message arrives, Update decides whether to start
// the next one. So the engine has one owner at a time, snapshots reach the
// UI at most 1/frame times a second, a key press is handled at once (it
// only changes what the next slice does), and a view that is dropped (the
// application opened another trace) simply stops the chain: no goroutine
// is left behind.

// frame is the host time of one slice: about 30 snapshots a second.
const frame = 33 * time.Millisecond

// op is what a slice does.
type op uint8

const (
	opRun     op = iota // run towards target at the chosen speed
	opEvent             // one event (Sim.Step)
	opMessage           // until one more message has completed
	opDelta             // for Δt of simulated time
)

// point is one sample of the throughput and latency charts.
type point struct {
	t          float64 // simulated time, seconds
	throughput float64 // bytes per second entering the network
	latency    float64 // mean message latency, seconds (negative: none)
	util       float64 // mean utilisation of the router links
	// links are the links busy in the period (packet model), for the
	// links × time strip.
	links []linkUtil
}

// linkUtil is one link's utilisation over one metrics period.
type linkUtil struct {
	id   int32
	util float32
}

// engine owns one replay.Sim. gen, tr, cfg and name are set when it is
// made and only read after; the other fields belong to the slice in
// flight (one at a time, handed over through Bubble Tea's message
// channel, which orders the accesses), never to Update.
type engine struct {
	gen  int
	tr   *tracefmt.Trace
	cfg  replay.Config
	name string // the configuration's name, for the history
	sim  *replay.Sim

	// samples collects the packet model's metrics periods between slices
	// (OnSample runs on the slice's goroutine).
	samples []point
	// clock is the simulated time reached: the engine's, or later when
	// the user ran to a time at which nothing happened.
	clock des.Time

	// last* are the counters of the previous slice, for the charts of
	// models without metrics samples.
	lastTime  des.Time
	lastBytes int64
}

// sliceMsg is the result of one slice.
type sliceMsg struct {
	gen  int
	snap *replay.Snapshot
	pts  []point
	wall time.Duration // host time spent simulating
	err  error
	// reached reports that an opRun got to its target time.
	reached bool
	// clock is the simulated time to show.
	clock des.Time
	// The final results, set once the run has ended.
	done    bool
	results *replay.Results
	trace   *tracefmt.Trace
	trErr   error
}

// slice returns the command that advances e by one slice of kind o.
// target bounds opRun in simulated time (des.Never: the end); rate is
// simulated seconds per host second for opRun (0: as fast as possible);
// dt is the step of opDelta.
func (e *engine) slice(ctx context.Context, o op, target des.Time, rate float64, dt des.Time) tea.Cmd {
	return func() tea.Msg {
		start := time.Now()
		msg := e.advance(ctx, o, target, rate, dt)
		msg.wall = time.Since(start)
		if o == opRun && rate > 0 && !msg.done && msg.err == nil {
			// Paced runs take a whole frame even when the engine was
			// quicker, so that simulated time flows at the chosen rate.
			select {
			case <-time.After(frame - msg.wall):
			case <-ctx.Done():
			}
		}
		return msg
	}
}

func (e *engine) advance(ctx context.Context, o op, target des.Time, rate float64, dt des.Time) sliceMsg {
	msg := sliceMsg{gen: e.gen}
	if e.sim == nil {
		sim, err := replay.New(e.tr, e.cfg, replay.Options{
			RecordTrace: true,
			CheckEvery:  512,
			OnSample:    e.onSample,
		})
		if err != nil {
			msg.err = err
			return msg
		}
		e.sim = sim
	}
	s := e.sim
	switch o {
	case opRun:
		until := target
		if rate > 0 {
			// Paced from the clock, not from the last event: during a
			// long computation no event happens, yet time flows.
			if t := max(e.clock, s.Now()) + des.Time(rate*frame.Seconds()*1e12); t < until {
				until = t
			}
		}
		cctx, cancel := context.WithTimeout(ctx, frame)
		err := s.RunUntil(cctx, until)
		cancel()
		switch {
		case err == nil:
			msg.reached = until == target
			if until != des.Never {
				e.clock = until
			}
		case !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled):
			msg.err = err
		}
	case opEvent:
		s.Step()
	case opMessage:
		// Event by event first (Step publishes a snapshot each time, so
		// this is exact but slow); then windows of simulated time that
		// double, so that a message far ahead is reached in a few dozen
		// calls, at the price of overshooting by at most the last window.
		before := s.Snapshot().Messages
		deadline := time.Now().Add(10 * frame)
		moved := func() bool { return s.Done() || s.Snapshot().Messages != before || time.Now().After(deadline) }
		for i := 0; i < 200 && !moved(); i++ {
			s.Step()
		}
		for win := des.Time(1000); !moved(); win *= 2 {
			if err := s.RunUntil(ctx, s.Now()+win); err != nil {
				msg.err = err
				break
			}
		}
	case opDelta:
		until := max(e.clock, s.Now()) + dt
		cctx, cancel := context.WithTimeout(ctx, 10*frame)
		switch err := s.RunUntil(cctx, until); {
		case err == nil:
			e.clock = until
		case !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled):
			msg.err = err
		}
		cancel()
	}
	msg.snap = s.Snapshot()
	// The clock shows the time the user asked to reach even when no
	// event happened at it; the engine's time once it is ahead or done.
	e.clock = max(e.clock, s.Now())
	if s.Done() {
		e.clock = s.Now()
	}
	msg.clock = e.clock
	msg.pts = e.takePoints(msg.snap)
	if s.Done() {
		msg.done = true
		if msg.err == nil {
			msg.err = s.Err()
		}
		r := s.Results()
		msg.results = &r
		msg.trace, msg.trErr = s.Trace()
	}
	return msg
}

// onSample turns the packet model's metrics periods into chart points.
func (e *engine) onSample(sm *netmodel.Sample) {
	p := point{t: sm.Time.Seconds(), util: sm.Utilisation, latency: -1}
	if sm.Period > 0 {
		p.throughput = float64(sm.InjectedBytes) / sm.Period.Seconds()
	}
	if sm.MessageLatency.Count > 0 {
		p.latency = sm.MessageLatency.Mean
	}
	// The Sample is reused after the call: copy what the strip needs.
	p.links = make([]linkUtil, len(sm.Links))
	for i, l := range sm.Links {
		p.links[i] = linkUtil{l.ID, float32(l.Utilisation)}
	}
	if len(e.samples) < maxPoints {
		e.samples = append(e.samples, p)
	}
}

// takePoints returns the chart points gathered since the last slice: the
// metrics samples when the model has them, else one point from the
// counters of the snapshot.
func (e *engine) takePoints(sn *replay.Snapshot) []point {
	if e.cfg.Model == replay.ModelPacket && e.cfg.SamplePeriod > 0 {
		// The metrics periods are the points; they depend on simulated
		// time only, not on how the run was sliced.
		pts := e.samples
		e.samples = nil
		return pts
	}
	if sn == nil || sn.Time <= e.lastTime {
		return nil
	}
	dt := (sn.Time - e.lastTime).Seconds()
	p := point{t: sn.Time.Seconds(), throughput: float64(sn.Bytes-e.lastBytes) / dt, latency: -1}
	e.lastTime, e.lastBytes = sn.Time, sn.Bytes
	return []point{p}
}

// maxPoints bounds the chart history.
const maxPoints = 1024
