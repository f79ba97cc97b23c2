package simgridti

import (
	"strings"

	"github.com/tracesim/tracesim/tracefmt"
)

// actSpan is the events [start, end) of a rank's stream that one action
// added, and the state (an index of parser.states) it becomes.
type actSpan struct {
	start, end int32
	state      int32
}

// mpiNames names the MPI call each action stands for; collectives and the
// actions not listed are named from the action ("barrier": MPI_Barrier).
var mpiNames = map[string]string{
	"sendrecv": "MPI_Sendrecv", "ssend": "MPI_Ssend", "issend": "MPI_Issend",
	"bsend": "MPI_Bsend", "ibsend": "MPI_Ibsend", "rsend": "MPI_Rsend", "irsend": "MPI_Irsend",
	"waitall": "MPI_Waitall", "waitany": "MPI_Waitany", "testany": "MPI_Testany",
	"testall": "MPI_Testall", "testsome": "MPI_Testsome", "startall": "MPI_Startall",
	"reducescatter": "MPI_Reduce_scatter", "exscan": "MPI_Exscan",
	"compute": "Compute", "sleep": "Sleep",
}

// actionState returns the state of an action (lower case), defining it on
// first use; location has none (it is a marker, not a call).
func (p *parser) actionState(act string) (int32, bool) {
	if act == "location" {
		return 0, false
	}
	if id, ok := p.stateIDs[act]; ok {
		return id, true
	}
	name, ok := mpiNames[act]
	if !ok {
		name = "MPI_" + strings.ToUpper(act[:1]) + act[1:]
	}
	cat := tracefmt.CategoryOf(name)
	if act == "compute" || act == "sleep" {
		cat = tracefmt.CatCompute
	}
	// Two spellings of one call (allReduce, allreduce) share a state.
	for i, d := range p.states {
		if d.Name == name {
			p.stateIDs[act] = int32(i)
			return int32(i), true
		}
	}
	id := int32(len(p.states))
	p.states = append(p.states, tracefmt.StateDef{Name: name, Category: cat})
	if p.stateIDs == nil {
		p.stateIDs = map[string]int32{}
	}
	p.stateIDs[act] = id
	return id, true
}

// withStates returns a rank's stream with each action's events between
// the enter and the leave of its state (paired here: the spans neither
// overlap nor nest). The trace is untimed: times stay zero.
func withStates(ev []tracefmt.Event, acts []actSpan) []tracefmt.Event {
	if len(acts) == 0 {
		return ev
	}
	out := make([]tracefmt.Event, 0, len(ev)+2*len(acts))
	next := int32(0)
	for _, a := range acts {
		out = append(out, ev[next:a.start]...)
		enter := int32(len(out))
		e := tracefmt.Enter(0, tracefmt.StateID(a.state))
		out = append(out, e)
		out = append(out, ev[a.start:a.end]...)
		l := tracefmt.Leave(0, tracefmt.StateID(a.state))
		l.Match = enter
		out[enter].Match = int32(len(out))
		out = append(out, l)
		next = a.end
	}
	return append(out, ev[next:]...)
}

// compactActs moves the action spans of a stream whose events marked
// removed (Kind 0) compact is about to drop.
func compactActs(ev []tracefmt.Event, acts []actSpan) {
	if len(acts) == 0 {
		return
	}
	// kept[i] is the number of events kept before index i.
	kept := make([]int32, len(ev)+1)
	for i := range ev {
		kept[i+1] = kept[i]
		if ev[i].Kind != 0 {
			kept[i+1]++
		}
	}
	out := acts[:0]
	for _, a := range acts {
		a.start, a.end = kept[a.start], kept[a.end]
		if a.end > a.start {
			out = append(out, a)
		}
	}
	clear(acts[len(out):])
}
