package replay

import (
	"context"
	"fmt"
	"slices"

	"github.com/tracesim/tracesim/engine/des"
	"github.com/tracesim/tracesim/tracefmt"
)

const computeCategory = tracefmt.CatCompute

// recorder builds the simulated run as a timed trace.
type recorder struct {
	out    *tracefmt.Trace
	states map[string]tracefmt.StateID
}

func newRecorder(t *tracefmt.Trace) *recorder {
	rc := &recorder{
		out: &tracefmt.Trace{
			Format: "sim", Unit: tracefmt.Picosecond, Timed: true,
			States: slices.Clone(t.States), Markers: slices.Clone(t.Markers),
			Comms: slices.Clone(t.Comms), Texts: slices.Clone(t.Texts),
			Ranks: make([]tracefmt.Rank, t.Size()),
		},
		states: map[string]tracefmt.StateID{},
	}
	for i, d := range rc.out.States {
		if _, dup := rc.states[d.Name]; !dup {
			rc.states[d.Name] = tracefmt.StateID(i)
		}
	}
	return rc
}

// state returns the id of the named state, defining it if needed.
func (rc *recorder) state(name string, c tracefmt.Category) tracefmt.StateID {
	if id, ok := rc.states[name]; ok {
		return id
	}
	id := tracefmt.StateID(len(rc.out.States))
	rc.out.States = append(rc.out.States, tracefmt.StateDef{Name: name, Category: c})
	rc.states[name] = id
	return id
}

func (rc *recorder) add(rk *rank, e tracefmt.Event) int32 {
	e.Match = -1
	rk.rec.out = append(rk.rec.out, e)
	return int32(len(rk.rec.out) - 1)
}

func (rc *recorder) enter(rk *rank, st tracefmt.StateID, at des.Time) int32 {
	return rc.add(rk, tracefmt.Enter(float64(at), st))
}

func (rc *recorder) leave(rk *rank, enter int32, at des.Time) {
	k := rc.add(rk, tracefmt.Leave(float64(at), rk.rec.out[enter].State()))
	rk.rec.out[enter].Match = k
	rk.rec.out[k].Match = enter
}

// recCopy copies a trace event into the simulated run at the current
// time, pairing copied enters and leaves.
func (s *Sim) recCopy(rk *rank, e *tracefmt.Event) {
	// The check inlines into every event's path; the copy does not.
	if s.rec != nil {
		s.recordCopy(rk, e)
	}
}

// recordCopy is recCopy while recording.
func (s *Sim) recordCopy(rk *rank, e *tracefmt.Event) {
	c := *e
	c.Time = float64(s.k.Now())
	switch e.Kind {
	case tracefmt.KindEnter:
		rk.rec.open = append(rk.rec.open, s.rec.add(rk, c))
	case tracefmt.KindLeave:
		k := s.rec.add(rk, c)
		for i := len(rk.rec.open) - 1; i >= 0; i-- {
			j := rk.rec.open[i]
			if rk.rec.out[j].State() == e.State() {
				rk.rec.out[j].Match, rk.rec.out[k].Match = k, j
				rk.rec.open = append(rk.rec.open[:i], rk.rec.open[i+1:]...)
				break
			}
		}
	case tracefmt.KindSend, tracefmt.KindRecv:
		// Messages are recorded by recSend and recRecv.
	default:
		s.rec.add(rk, c)
	}
}

// wrapEnter opens a state for an MPI operation the trace shows without
// one (untimed traces).
func (s *Sim) wrapEnter(rk *rank, name string) {
	// The check inlines into every operation's path; the state does not.
	if s.rec != nil && rk.depth == 0 && rk.wrap < 0 {
		s.recordWrap(rk, name)
	}
}

// recordWrap is wrapEnter while recording.
func (s *Sim) recordWrap(rk *rank, name string) {
	c := tracefmt.CatP2P
	switch {
	case name == "MPI_Wait" || name == "MPI_Waitall" || name == "MPI_Test":
		c = tracefmt.CatWait
	case len(name) > 4 && (rk.coll != nil || tracefmt.CategoryOf(name) == tracefmt.CatCollective):
		c = tracefmt.CatCollective
	}
	rk.wrap = s.rec.enter(rk, s.rec.state(name, c), s.k.Now())
}

// recSend records the send of message m and returns its index.
func (s *Sim) recSend(rk *rank, m *message) int32 {
	if s.rec == nil {
		return -1
	}
	return s.recordSend(rk, m)
}

// recordSend is recSend while recording.
func (s *Sim) recordSend(rk *rank, m *message) int32 {
	e := tracefmt.Send(float64(s.k.Now()), int(m.dst), m.tag, m.comm, m.size)
	if src := s.at(rk, m.sendEv); m.sendEv >= 0 && !m.coll && src != nil {
		e.Flags = src.Flags
		e.SetRequest(src.Request())
	}
	return s.rec.add(rk, e)
}

// recRecv records the completion of receive op oid (trace event ev, or
// -1 for a collective's message) and links it to its send.
func (s *Sim) recRecv(rk *rank, oid int32, ev int32) {
	if s.rec != nil {
		s.recordRecv(rk, oid, ev)
	}
}

// recordRecv is recRecv while recording.
func (s *Sim) recordRecv(rk *rank, oid int32, ev int32) {
	o := &s.ops[oid]
	if !o.done() {
		return
	}
	or := s.opRec(oid)
	e := tracefmt.Recv(float64(s.k.Now()), int(or.mSrc), or.mTag, o.comm, or.mSize)
	if src := s.at(rk, ev); ev >= 0 && !o.coll() && src != nil {
		e.Flags = src.Flags
		e.SetRequest(src.Request())
	}
	k := s.rec.add(rk, e)
	if or.mOut >= 0 {
		sender := &s.ranks[or.mSrc]
		rk.rec.out[k].Match = or.mOut
		sender.rec.out[or.mOut].Match = k
	}
}

// Trace returns the simulated run as a timed trace (times in
// picoseconds): the trace's own states and events at their simulated
// times, the MPI operations of untimed traces as states named after
// their calls, a "Compute" state per CPU burst, and every message,
// collectives' included, matched with its receive. It needs
// Options.RecordTrace and a finished run.
func (s *Sim) Trace() (*tracefmt.Trace, error) {
	if s.rec == nil {
		return nil, fmt.Errorf("replay: the run was not recorded (Options.RecordTrace)")
	}
	if !s.done {
		return nil, fmt.Errorf("replay: the run has not finished")
	}
	t := s.rec.out
	for r := range s.ranks {
		t.Ranks[r].Events = s.ranks[r].rec.out
	}
	if err := t.Validate(); err != nil {
		return nil, fmt.Errorf("replay: simulated trace: %w", err)
	}
	return t, nil
}

// RunToTrace replays t on the machine cfg to the end and returns the
// simulated run as a timed trace (see Sim.Trace): the predicted timeline.
// It stops with ctx's error when ctx is cancelled.
func RunToTrace(ctx context.Context, t *tracefmt.Trace, cfg Config) (*tracefmt.Trace, error) {
	s, err := New(t, cfg, Options{RecordTrace: true})
	if err != nil {
		return nil, err
	}
	if err := s.Run(ctx); err != nil {
		return nil, err
	}
	return s.Trace()
}

// TraceSoFar returns the part of the simulated run replayed so far as a
// timed trace, a copy that the run does not change as it goes on: the
// predicted timeline of a run in progress. States still open are closed
// at the current simulated time; messages in flight have no receive yet.
// It needs Options.RecordTrace. After the end it is the same as Trace.
func (s *Sim) TraceSoFar() (*tracefmt.Trace, error) {
	if s.rec == nil {
		return nil, fmt.Errorf("replay: the run was not recorded (Options.RecordTrace)")
	}
	src := s.rec.out
	t := *src
	t.States = slices.Clone(src.States)
	t.Ranks = make([]tracefmt.Rank, len(s.ranks))
	now := float64(s.k.Now())
	for r := range s.ranks {
		ev := slices.Clone(s.ranks[r].rec.out)
		// Open states close now, innermost first.
		for i := len(ev) - 1; i >= 0; i-- {
			if ev[i].Kind == tracefmt.KindEnter && ev[i].Match < 0 {
				l := tracefmt.Leave(max(now, ev[len(ev)-1].Time), ev[i].State())
				l.Match = int32(i)
				ev[i].Match = int32(len(ev))
				ev = append(ev, l)
			}
		}
		t.Ranks[r].Events = ev
	}
	if err := t.Validate(); err != nil {
		return nil, fmt.Errorf("replay: simulated trace so far: %w", err)
	}
	return &t, nil
}
