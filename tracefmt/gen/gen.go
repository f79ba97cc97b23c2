package gen

import (
	"context"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"strconv"

	"github.com/tracesim/tracesim/tracefmt"
)

// Generate produces the trace the options describe. The same options give
// the same trace.
func Generate(o Options) (*tracefmt.Trace, error) {
	return GenerateContext(context.Background(), o)
}

// GenerateContext is Generate stopping with ctx's error, within a few
// milliseconds, when ctx is cancelled: a trace of 10⁸ events takes a
// minute to make.
func GenerateContext(ctx context.Context, o Options) (t *tracefmt.Trace, err error) {
	s, err := lookup(o.Pattern)
	if err != nil {
		return nil, err
	}
	o, err = s.normalize(o)
	if err != nil {
		return nil, err
	}
	// The patterns' loops know nothing of ctx: add panics with stopped
	// when it is done, which ends up here.
	defer func() {
		if r := recover(); r != nil {
			st, ok := r.(stopped)
			if !ok {
				panic(r)
			}
			t, err = nil, fmt.Errorf("gen %s: %w", o.Pattern, st.err)
		}
	}()
	// A dry run counts each rank's events so that every stream is
	// allocated once, at its exact size (some patterns' per-rank counts
	// depend on the seed).
	dry := newGen(&o, nil)
	dry.ctx = ctx
	s.run(dry)
	b := tracefmt.NewBuilder(o.Ranks, true, tracefmt.Microsecond)
	for r, n := range dry.counts {
		b.Grow(r, n)
	}
	g := newGen(&o, b)
	g.ctx = ctx
	s.run(g)
	if g.err != nil {
		return nil, fmt.Errorf("gen %s: %w", o.Pattern, g.err)
	}
	t = b.Trace()
	t.Format = "gen"
	t.SetAttr("generator", describe(&o))
	out, err := b.Finish()
	if err != nil {
		return nil, fmt.Errorf("gen %s: %w", o.Pattern, err)
	}
	return out, nil
}

// describe returns the command line that regenerates a trace of the
// normalised options; the timing model's flags appear only when they are
// not the defaults.
func describe(o *Options) string {
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	s := fmt.Sprintf("tracesim gen %s --ranks %d --iters %d --size %d --compute %s --seed %d",
		o.Pattern, o.Ranks, o.Iters, o.Size, f(o.Compute), o.Seed)
	for _, x := range []struct {
		flag     string
		v, deflt float64
	}{
		{"skew", o.Skew, 0}, {"latency", o.Latency, DefaultLatency}, {"bandwidth", o.Bandwidth, DefaultBandwidth},
		{"overhead", o.Overhead, DefaultOverhead}, {"jitter", o.Jitter, 0},
	} {
		if x.v != x.deflt {
			s += " --" + x.flag + " " + f(x.v)
		}
	}
	return s
}

// Streams of the seeded generator, so that each use of randomness is
// independent of the others: adding skew does not change a pattern's
// choices.
const (
	streamPattern = 0x7061747465726e // "pattern"
	streamJitter  = 0x6a6974746572   // "jitter"
	streamSkew    = 0x736b6577       // "skew"
)

// The states the generator uses.
type stateKind uint8

const (
	stCompute stateKind = iota
	stSend
	stRecv
	stIsend
	stIrecv
	stSendrecv
	stWait
	stWaitall
	stAllreduce
	stAlltoall
	numStateKinds
)

// stateDefs returns the definitions of the generator's states.
func stateDefs() [numStateKinds]tracefmt.StateDef {
	return [numStateKinds]tracefmt.StateDef{
		stCompute:   {Name: "Compute", Color: "#9e9e9e", Category: tracefmt.CatCompute},
		stSend:      {Name: "MPI_Send", Color: "#1f77b4", Category: tracefmt.CatP2P},
		stRecv:      {Name: "MPI_Recv", Color: "#2ca02c", Category: tracefmt.CatP2P},
		stIsend:     {Name: "MPI_Isend", Color: "#6baed6", Category: tracefmt.CatP2P},
		stIrecv:     {Name: "MPI_Irecv", Color: "#98df8a", Category: tracefmt.CatP2P},
		stSendrecv:  {Name: "MPI_Sendrecv", Color: "#17becf", Category: tracefmt.CatP2P},
		stWait:      {Name: "MPI_Wait", Color: "#d62728", Category: tracefmt.CatWait},
		stWaitall:   {Name: "MPI_Waitall", Color: "#ff7f0e", Category: tracefmt.CatWait},
		stAllreduce: {Name: "MPI_Allreduce", Color: "#9467bd", Category: tracefmt.CatCollective},
		stAlltoall:  {Name: "MPI_Alltoall", Color: "#e377c2", Category: tracefmt.CatCollective},
	}
}

// gen is one run of a pattern: the timing model's per-rank clocks and the
// sink of the events. Model times are integer nanoseconds, so that the
// model is exact and the trace's microsecond times have three decimals.
type gen struct {
	o *Options
	p int
	// b receives the events; nil in a dry run, which only counts them.
	b      *tracefmt.Builder
	counts []int
	err    error
	states [numStateKinds]tracefmt.StateID

	lat, ovh  int64   // ns
	nsPerByte float64 // ns per byte
	wire      int64   // ns to transfer o.Size bytes
	computeNs int64

	clock   []int64 // model time of each rank, ns
	nextReq []int64
	// Skew: a rank's clock reads t + off + round(rate·t).
	skewed bool
	off    []int64
	rate   []float64

	ctx   context.Context // nil: never cancelled
	added int             // events made, for the checks of ctx

	rng *rand.Rand // the pattern's choices
	jit *rand.Rand // computation jitter
}

func newGen(o *Options, b *tracefmt.Builder) *gen {
	p := o.Ranks
	g := &gen{
		o: o, p: p, b: b,
		lat:       int64(math.Round(o.Latency * 1e9)),
		ovh:       int64(math.Round(o.Overhead * 1e9)),
		nsPerByte: 1e9 / o.Bandwidth,
		computeNs: computeNs(o),
		clock:     make([]int64, p),
		nextReq:   make([]int64, p),
		rng:       rand.New(rand.NewPCG(uint64(o.Seed), streamPattern)),
		jit:       rand.New(rand.NewPCG(uint64(o.Seed), streamJitter)),
	}
	g.wire = g.wireTime(o.Size)
	if b == nil {
		g.counts = make([]int, p)
	} else {
		for i := range g.states {
			g.states[i] = -1
		}
	}
	for r := range g.nextReq {
		g.nextReq[r] = 1
	}
	if o.Skew > 0 {
		g.skewed = true
		g.off = make([]int64, p)
		g.rate = make([]float64, p)
		sk := rand.New(rand.NewPCG(uint64(o.Seed), streamSkew))
		maxRate := min(o.Skew, 1e-3) // Skew seconds per second, at most 1000 ppm
		lowest := int64(math.MaxInt64)
		for r := range p {
			g.off[r] = int64(math.Round((2*sk.Float64() - 1) * o.Skew * 1e9))
			g.rate[r] = (2*sk.Float64() - 1) * maxRate
			lowest = min(lowest, g.off[r])
		}
		// Shift every clock so that the earliest rank starts at 0.
		for r := range p {
			g.off[r] -= lowest
		}
	}
	return g
}

// wireTime returns the time to transfer n bytes, ns.
func (g *gen) wireTime(n int64) int64 { return int64(math.Round(float64(n) * g.nsPerByte)) }

// arrival returns when a message of n bytes sent at ts has arrived.
func (g *gen) arrival(ts int64, n int64) int64 {
	if n == g.o.Size {
		return ts + g.lat + g.wire
	}
	return ts + g.lat + g.wireTime(n)
}

// read returns what rank r's clock reads at model time t, in µs.
func (g *gen) read(r int, t int64) float64 {
	return float64(g.readNs(r, t)) / 1e3
}

func (g *gen) readNs(r int, t int64) int64 {
	if g.skewed {
		// |rate| < 1, so the reading never goes backwards.
		t += g.off[r] + int64(math.Round(g.rate[r]*float64(t)))
	}
	return t
}

// stopped is what add panics with when the generation's context is
// done; GenerateContext recovers it.
type stopped struct{ err error }

// checkEvery is how many events add makes between two looks at the
// context: a few milliseconds' work.
const checkEvery = 1 << 15

func (g *gen) add(r int, e tracefmt.Event) {
	if g.added++; g.added%checkEvery == 0 && g.ctx != nil {
		if err := g.ctx.Err(); err != nil {
			panic(stopped{err})
		}
	}
	if g.b == nil {
		g.counts[r]++
		return
	}
	if _, err := g.b.Add(r, e); err != nil && g.err == nil {
		g.err = err
	}
}

func (g *gen) state(k stateKind) tracefmt.StateID {
	if g.b == nil {
		return 0
	}
	if g.states[k] < 0 {
		g.states[k] = g.b.DefineState(stateDefs()[k])
	}
	return g.states[k]
}

func (g *gen) enter(r int, k stateKind, t int64) {
	g.add(r, tracefmt.Enter(g.read(r, t), g.state(k)))
}

func (g *gen) leave(r int, k stateKind, t int64) {
	g.add(r, tracefmt.Leave(g.read(r, t), g.state(k)))
}

// burst returns the length of a compute burst, ns: 0 without
// computation, otherwise at least 1 ns so that every iteration has its
// burst.
func (g *gen) burst() int64 {
	if g.o.Jitter == 0 || g.computeNs == 0 {
		return g.computeNs
	}
	return max(1, int64(math.Round(float64(g.computeNs)*(1+g.o.Jitter*(2*g.jit.Float64()-1)))))
}

// taskTime returns the length of a master-worker task, ns: uniform in
// [0.5, 1.5) × Compute, at least 1 ns when there is computation.
func (g *gen) taskTime() int64 {
	if g.computeNs == 0 {
		return 0
	}
	return max(1, int64(math.Round(float64(g.computeNs)*(0.5+g.rng.Float64()))))
}

// compute runs a burst of d ns on rank r: a Compute state around a
// compute event whose amount is the burst as the rank's clock measures it.
func (g *gen) compute(r int, d int64) {
	if d <= 0 {
		return
	}
	t := g.clock[r]
	a, z := g.readNs(r, t), g.readNs(r, t+d)
	s := g.state(stCompute)
	g.add(r, tracefmt.Enter(float64(a)/1e3, s))
	g.add(r, tracefmt.ComputeTime(float64(a)/1e3, float64(z-a)/1e3))
	g.add(r, tracefmt.Leave(float64(z)/1e3, s))
	g.clock[r] = t + d
}

// send is a blocking MPI_Send from r: the send event is logged as the
// call starts; the call returns once the message is injected (eager
// protocol). It returns the send time.
func (g *gen) send(r, dst int, tag int32, n int64) int64 {
	t := g.clock[r]
	g.enter(r, stSend, t)
	g.add(r, tracefmt.Send(g.read(r, t), dst, tag, 0, n))
	end := t + g.ovh + g.wireTime(n)
	g.leave(r, stSend, end)
	g.clock[r] = end
	return t
}

// recv is a blocking MPI_Recv on r of a message that arrives at arr: it
// returns when the message is there, and the receive event is logged just
// before the call returns.
func (g *gen) recv(r, src int, tag int32, n int64, arr int64, f tracefmt.Flags) {
	t := g.clock[r]
	g.enter(r, stRecv, t)
	end := max(t+g.ovh, arr)
	e := tracefmt.Recv(g.read(r, end), src, tag, 0, n)
	e.Flags = f
	g.add(r, e)
	g.leave(r, stRecv, end)
	g.clock[r] = end
}

// sendrecv is an MPI_Sendrecv on r: send to dst at the start, receive
// from src (arriving at arr) at the end.
func (g *gen) sendrecv(r, dst, src int, tag int32, arr int64) {
	t := g.clock[r]
	g.enter(r, stSendrecv, t)
	s := tracefmt.Send(g.read(r, t), dst, tag, 0, g.o.Size)
	s.Flags = tracefmt.FlagSendrecv
	g.add(r, s)
	end := max(t+g.ovh+g.wire, arr)
	e := tracefmt.Recv(g.read(r, end), src, tag, 0, g.o.Size)
	e.Flags = tracefmt.FlagSendrecv
	g.add(r, e)
	g.leave(r, stSendrecv, end)
	g.clock[r] = end
}

// irecv posts a receive on r and returns its request. MPE logs nothing
// inside MPI_Irecv: the receive event goes into the wait that completes
// it.
func (g *gen) irecv(r int) int64 {
	t := g.clock[r]
	g.enter(r, stIrecv, t)
	g.leave(r, stIrecv, t+g.ovh)
	g.clock[r] = t + g.ovh
	req := g.nextReq[r]
	g.nextReq[r]++
	return req
}

// isend starts a send on r; it returns the send time and the request.
func (g *gen) isend(r, dst int, tag int32) (int64, int64) {
	t := g.clock[r]
	req := g.nextReq[r]
	g.nextReq[r]++
	g.enter(r, stIsend, t)
	e := tracefmt.Send(g.read(r, t), dst, tag, 0, g.o.Size)
	e.Flags = tracefmt.FlagNonBlocking
	e.SetRequest(req)
	g.add(r, e)
	g.leave(r, stIsend, t+g.ovh)
	g.clock[r] = t + g.ovh
	return t, req
}

// nbRecv returns the receive event of a completed non-blocking receive.
func (g *gen) nbRecv(r int, at int64, src int, tag int32, n int64, req int64) tracefmt.Event {
	e := tracefmt.Recv(g.read(r, at), src, tag, 0, n)
	e.Flags = tracefmt.FlagNonBlocking
	e.SetRequest(req)
	return e
}

// wait is an MPI_Wait on r for receive request req, whose message from
// src arrives at arr.
func (g *gen) wait(r int, req int64, src int, tag int32, n int64, arr int64) {
	t := g.clock[r]
	g.enter(r, stWait, t)
	end := max(t+g.ovh, arr)
	g.add(r, g.nbRecv(r, end, src, tag, n, req))
	g.add(r, tracefmt.Wait(g.read(r, end), req))
	g.leave(r, stWait, end)
	g.clock[r] = end
}

// collective runs an N×N collective on every rank: each rank enters at
// its own time and all leave at the last entry plus cost.
func (g *gen) collective(k stateKind, op tracefmt.CollOp, sent, recvd int64, cost int64) {
	last := int64(0)
	for _, t := range g.clock {
		last = max(last, t)
	}
	end := last + cost
	for r := range g.p {
		t := g.clock[r]
		g.enter(r, k, t)
		g.add(r, tracefmt.Collective(g.read(r, t), op, -1, 0, sent, recvd))
		g.leave(r, k, end)
		g.clock[r] = end
	}
}

// log2ceil returns ⌈log2 p⌉, the rounds of a tree or recursive-doubling
// collective.
func log2ceil(p int) int64 { return int64(bits.Len(uint(p - 1))) }

// allreduce is an MPI_Allreduce of n bytes on every rank, costed as
// recursive doubling.
func (g *gen) allreduce(n int64) {
	cost := g.ovh + log2ceil(g.p)*(g.lat+g.wireTime(n))
	g.collective(stAllreduce, tracefmt.OpAllreduce, n, n, cost)
}

// alltoall is an MPI_Alltoall of o.Size bytes per pair, costed as Bruck's
// algorithm (⌈log2 P⌉ rounds of P/2 blocks).
func (g *gen) alltoall() {
	p := int64(g.p)
	cost := g.ovh + log2ceil(g.p)*(g.lat+g.wireTime(g.o.Size*p/2))
	g.collective(stAlltoall, tracefmt.OpAlltoall, g.o.Size*p, g.o.Size*p, cost)
}
