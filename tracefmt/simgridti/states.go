package simgridti

import (
	"strings"

	"github.com/tracesim/tracesim/tracefmt"
)

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
	// A trace uses a handful of actions: a short list of them saves a
	// map lookup (hashing the name) on every line.
	for i := range p.nrecent {
		if r := &p.recent[i]; r.act == act {
			return r.id, true
		}
	}
	id, ok := p.stateIDs[act]
	if !ok {
		id = p.defineAction(act)
	}
	if p.nrecent < len(p.recent) {
		p.recent[p.nrecent] = recentAction{strings.Clone(act), id}
		p.nrecent++
	}
	return id, true
}

// defineAction defines the state of an action seen for the first time
// and returns its id.
func (p *parser) defineAction(act string) int32 {
	act = strings.Clone(act) // kept as a key; the line's text does not outlive it
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
			return int32(i)
		}
	}
	id := int32(len(p.states))
	p.states = append(p.states, tracefmt.StateDef{Name: name, Category: cat})
	if p.stateIDs == nil {
		p.stateIDs = map[string]int32{}
	}
	p.stateIDs[act] = id
	return id
}

// recentAction is an action actionState has seen and the id of its state.
type recentAction struct {
	act string
	id  int32
}
