package replay

import (
	"math"

	"github.com/tracesim/tracesim/engine/des"
)

// node is a CPU shared by the ranks placed on it. With one rank a burst
// simply lasts its work; with several, running ranks share the CPU
// equally (processor sharing, PUPPET §3.5.3): each of r running ranks
// progresses at 1/r of the CPU's speed, or with C cores (Config.Cores)
// at min(1, C/r) of one core's, as SimGrid shares a multicore host
// (each execution at most one core, all of them at most C).
type node struct {
	ranks int
	// v is the virtual time: the work, in picoseconds, each running rank
	// has received since the start; it advances at 1/len(jobs) of real
	// time.
	v     float64
	vLast des.Time
	jobs  []job
	gen   int64
}

type job struct {
	rank int32
	vEnd float64
}

// burst makes rank r busy for d picoseconds of CPU work.
func (s *Sim) burst(r int32, rk *rank, d des.Time, a Activity) {
	now := s.k.Now()
	rk.state = StateComputing
	rk.act = a
	rk.actEv = rk.pos
	rk.burstAct = a
	rk.burstWork = d
	rk.burstStart = now
	if a == ActCompute && s.rec != nil {
		rk.burstWrap = s.rec.enter(rk, s.rec.state("Compute", computeCategory), now)
	}
	if des.Add(now, d) == des.Never {
		// Past the end of simulated time: stop with the action named
		// rather than schedule a time that wrapped.
		s.err = s.burstRangeError(r, rk, d, a)
		return
	}
	n := &s.nodes[s.nodeOf[r]]
	if n.ranks <= s.cfg.Cores {
		s.k.Schedule(now+d, evBurstEnd, r, 0)
		return
	}
	s.nodeAdvance(n, now)
	n.jobs = append(n.jobs, job{rank: r, vEnd: n.v + float64(d)})
	s.nodeSchedule(s.nodeOf[r], n, now)
}

// burstEnd ends rank r's burst.
func (s *Sim) burstEnd(r int32) {
	rk := &s.ranks[r]
	now := s.k.Now()
	switch rk.burstAct {
	case ActCompute:
		rk.compute += rk.burstWork
	default:
		rk.overhead += rk.burstWork
	}
	rk.cpuWait += now - rk.burstStart - rk.burstWork
	if rk.burstWrap >= 0 {
		s.rec.leave(rk, rk.burstWrap, now)
		rk.burstWrap = -1
	}
	rk.state = StateReady
	rk.act = ActNone
	s.pushReady(r)
}

// nodeAdvance brings the node's virtual time up to now: each of its k
// jobs has received min(1, C/k) of the time since (C cores).
func (s *Sim) nodeAdvance(n *node, now des.Time) {
	if k := len(n.jobs); k > s.cfg.Cores {
		n.v += float64(now-n.vLast) * float64(s.cfg.Cores) / float64(k)
	} else if k > 0 {
		n.v += float64(now - n.vLast)
	}
	n.vLast = now
}

// nodeSchedule schedules the end of the node's next job.
func (s *Sim) nodeSchedule(id int32, n *node, now des.Time) {
	if len(n.jobs) == 0 {
		return
	}
	minV := n.jobs[0].vEnd
	for _, j := range n.jobs[1:] {
		minV = min(minV, j.vEnd)
	}
	dt := math.Ceil(minV - n.v)
	if k := len(n.jobs); k > s.cfg.Cores {
		dt = math.Ceil((minV - n.v) * float64(k) / float64(s.cfg.Cores))
	}
	n.gen++
	// Shared, the bursts stretch: the kernel refuses an end past the
	// range (des.Kernel.Overflow) and the run stops with an error.
	s.k.Schedule(des.Add(now, des.FromPS(dt)), evCPU, id, n.gen)
}

// cpuEvent ends the jobs of node id that have received their work.
func (s *Sim) cpuEvent(id int32, gen int64) {
	n := &s.nodes[id]
	if gen != n.gen {
		return // superseded by a later schedule
	}
	now := s.k.Now()
	s.nodeAdvance(n, now)
	minV := math.Inf(1)
	for _, j := range n.jobs {
		minV = min(minV, j.vEnd)
	}
	// The job that triggered the event is complete by construction
	// (the event time was rounded up); others within rounding too.
	n.v = max(n.v, minV)
	kept := n.jobs[:0]
	var ended []int32
	for _, j := range n.jobs {
		if j.vEnd <= n.v+0.5 {
			ended = append(ended, j.rank)
			continue
		}
		kept = append(kept, j)
	}
	n.jobs = kept
	s.nodeSchedule(id, n, now)
	for _, r := range ended {
		s.burstEnd(r)
	}
}
