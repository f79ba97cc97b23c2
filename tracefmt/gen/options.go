package gen

import (
	"fmt"
	"math"
	"math/bits"
	"strings"

	"github.com/tracesim/tracesim/tracefmt/units"
)

// Model defaults, used when the corresponding Options field is zero.
const (
	// DefaultLatency is the network latency of the timing model: 2 µs.
	DefaultLatency = 2e-6
	// DefaultBandwidth is the network bandwidth of the timing model: 1 GB/s.
	DefaultBandwidth = 1e9
	// DefaultOverhead is the CPU time of one MPI call: 0.5 µs.
	DefaultOverhead = 0.5e-6
)

// Limits that keep a request within what the generator (and the machine
// holding the trace) can do.
const (
	// MaxRanks is the largest world size the generator accepts.
	MaxRanks = 1 << 20
	// MaxEvents is the largest trace the generator produces: 2^30 events,
	// 40 GiB of events in memory.
	MaxEvents = 1 << 30
	// MaxSkew is the largest clock skew accepted: 1 s.
	MaxSkew = 1.0
	// maxIters bounds Iters so that counts never overflow.
	maxIters = 1 << 31
	// maxSize bounds Size (1 TiB) so that byte counts never overflow.
	maxSize = 1 << 40
	// maxRunSeconds bounds the modelled run (about 30 years) so that
	// nanosecond clocks never overflow.
	maxRunSeconds = 1e9
)

// Options says what to generate. Zero values select defaults, except
// Compute, whose default is selected by a negative value (0 means no
// computation at all).
type Options struct {
	// Pattern is one of the names Patterns lists.
	Pattern string
	// Ranks is the world size; 0 selects the pattern's default.
	Ranks int
	// Iters is the number of iterations; 0 selects the pattern's
	// default. For master-worker it is the number of tasks per worker
	// (the master hands out Iters × (Ranks−1) tasks in all).
	Iters int
	// Size is the size of a point-to-point message in bytes; 0 selects
	// the pattern's default.
	Size int64
	// Compute is the computation per iteration per rank, in seconds; a
	// negative value selects the pattern's default and 0 generates no
	// computation. For master-worker it is the mean task time.
	Compute float64
	// Seed makes the output deterministic: the same options give the same
	// trace.
	Seed int64
	// Skew is the largest per-rank clock offset, in seconds; 0 means
	// perfect clocks. See the package documentation for the drift that
	// comes with it.
	Skew float64
	// Latency is the network latency of the timing model, in seconds;
	// 0 selects DefaultLatency.
	Latency float64
	// Bandwidth is the network bandwidth of the timing model, in bytes
	// per second; 0 selects DefaultBandwidth.
	Bandwidth float64
	// Overhead is the CPU time of one MPI call, in seconds; 0 selects
	// DefaultOverhead.
	Overhead float64
	// Jitter spreads computation times: each burst lasts
	// Compute × (1 + u) with u uniform in [−Jitter, +Jitter). 0 (the
	// default) gives every rank the same burst; it must be below 1.
	// master-worker ignores it: its task times always vary.
	Jitter float64
}

// Pattern describes a communication pattern and its defaults.
type Pattern struct {
	// Name is what Options.Pattern and `tracesim gen` take.
	Name string
	// Description says in a line what the pattern does.
	Description string
	// Ranks names the world sizes the pattern accepts.
	Ranks string
	// DefaultRanks, DefaultIters, DefaultSize and DefaultCompute are
	// used for zero (negative for Compute) Options fields.
	DefaultRanks   int
	DefaultIters   int
	DefaultSize    int64
	DefaultCompute float64
}

// patternSpec is a pattern with its rules and its generator.
type patternSpec struct {
	Pattern
	// check reports why a world size does not fit, or nil.
	check func(p int) error
	// count returns what a trace of the normalised options holds.
	count func(o *Options) Counts
	// run emits the pattern's events.
	run func(g *gen)
}

// specs returns the pattern table in the order Patterns lists it.
func specs() []patternSpec {
	return []patternSpec{
		{
			Pattern: Pattern{
				Name:         "ring",
				Description:  "each iteration every rank computes, then MPI_Sendrecv: sends to rank+1 and receives from rank−1 (a ring shift)",
				Ranks:        "2 or more",
				DefaultRanks: 8, DefaultIters: 100, DefaultSize: 4 << 10, DefaultCompute: 100e-6,
			},
			check: atLeast(2), count: countRing, run: runRing,
		},
		{
			Pattern: Pattern{
				Name:         "pingpong",
				Description:  "rank 0 sends to rank 1 (MPI_Send), rank 1 answers; one round trip per iteration",
				Ranks:        "exactly 2",
				DefaultRanks: 2, DefaultIters: 1000, DefaultSize: 1 << 10, DefaultCompute: 0,
			},
			check: exactly(2), count: countPingpong, run: runPingpong,
		},
		{
			Pattern: Pattern{
				Name:         "stencil2d",
				Description:  "2D grid (non-periodic): compute, MPI_Irecv/MPI_Isend halo exchange with up to 4 neighbours, MPI_Waitall, MPI_Allreduce",
				Ranks:        "a 2D grid with at least 2 ranks per side (4, 6, 8, 9, 10, 12, …)",
				DefaultRanks: 16, DefaultIters: 100, DefaultSize: 32 << 10, DefaultCompute: 500e-6,
			},
			check: checkGrid, count: countStencil, run: runStencil,
		},
		{
			Pattern: Pattern{
				Name:         "alltoall",
				Description:  "each iteration every rank computes, then MPI_Alltoall (Size bytes to every rank)",
				Ranks:        "2 or more",
				DefaultRanks: 8, DefaultIters: 100, DefaultSize: 1 << 10, DefaultCompute: 200e-6,
			},
			check: atLeast(2), count: countAlltoall, run: runAlltoall,
		},
		{
			Pattern: Pattern{
				Name:         "master-worker",
				Description:  "rank 0 hands out Iters tasks per worker; results come back through MPI_Recv(MPI_ANY_SOURCE); task times vary",
				Ranks:        "2 or more (1 master + workers)",
				DefaultRanks: 8, DefaultIters: 20, DefaultSize: 1 << 10, DefaultCompute: 1e-3,
			},
			check: atLeast(2), count: countMasterWorker, run: runMasterWorker,
		},
		{
			Pattern: Pattern{
				Name:         "bcast-tree",
				Description:  "each iteration every rank computes, then rank 0 broadcasts Size bytes along a binomial tree of MPI_Send/MPI_Recv",
				Ranks:        "2 or more",
				DefaultRanks: 8, DefaultIters: 100, DefaultSize: 64 << 10, DefaultCompute: 100e-6,
			},
			check: atLeast(2), count: countBcastTree, run: runBcastTree,
		},
		{
			Pattern: Pattern{
				Name:         "cg",
				Description:  "NAS CG-like: compute, row reduction (log2 row length MPI_Irecv/MPI_Send/MPI_Wait steps), transpose exchange, two MPI_Allreduce",
				Ranks:        "a power of two, 2 or more",
				DefaultRanks: 16, DefaultIters: 100, DefaultSize: 8 << 10, DefaultCompute: 200e-6,
			},
			check: checkPowerOfTwo, count: countCG, run: runCG,
		},
		{
			Pattern: Pattern{
				Name:         "random-pairs",
				Description:  "each iteration a random perfect matching of the ranks; partners exchange Size bytes with MPI_Sendrecv (one rank idles when the count is odd)",
				Ranks:        "2 or more",
				DefaultRanks: 8, DefaultIters: 100, DefaultSize: 4 << 10, DefaultCompute: 100e-6,
			},
			check: atLeast(2), count: countRandomPairs, run: runRandomPairs,
		},
	}
}

// Patterns lists the patterns the generator knows, with their defaults.
func Patterns() []Pattern {
	s := specs()
	out := make([]Pattern, len(s))
	for i := range s {
		out[i] = s[i].Pattern
	}
	return out
}

// PatternNames returns the names of the known patterns.
func PatternNames() []string {
	s := specs()
	out := make([]string, len(s))
	for i := range s {
		out[i] = s[i].Name
	}
	return out
}

func lookup(name string) (patternSpec, error) {
	for _, s := range specs() {
		if s.Name == name {
			return s, nil
		}
	}
	if name == "" {
		return patternSpec{}, fmt.Errorf("gen: no pattern given (known: %s)", strings.Join(PatternNames(), ", "))
	}
	return patternSpec{}, fmt.Errorf("gen: unknown pattern %q (known: %s)", name, strings.Join(PatternNames(), ", "))
}

func atLeast(n int) func(int) error {
	return func(p int) error {
		if p < n {
			return fmt.Errorf("needs at least %d ranks, got %d", n, p)
		}
		return nil
	}
}

func exactly(n int) func(int) error {
	return func(p int) error {
		if p != n {
			return fmt.Errorf("needs exactly %d ranks, got %d", n, p)
		}
		return nil
	}
}

func checkGrid(p int) error {
	rows, cols := gridDims(p)
	switch {
	case cols >= 2:
		return nil
	case p < 4:
		return fmt.Errorf("needs a 2D process grid with at least 2 ranks per side: 4 or more ranks, got %d", p)
	}
	lo, hi := p-1, p+1
	for {
		if _, c := gridDims(lo); c >= 2 {
			break
		}
		lo--
	}
	for {
		if _, c := gridDims(hi); c >= 2 {
			break
		}
		hi++
	}
	return fmt.Errorf("needs a 2D process grid with at least 2 ranks per side: %d ranks only form a %d×%d grid (try %d or %d)", p, rows, cols, lo, hi)
}

func checkPowerOfTwo(p int) error {
	if p >= 2 && p&(p-1) == 0 {
		return nil
	}
	if p < 2 {
		return fmt.Errorf("needs a power-of-two number of ranks, 2 or more, got %d", p)
	}
	hi := 1 << bits.Len(uint(p))
	return fmt.Errorf("needs a power-of-two number of ranks (NAS CG's process grid), got %d (try %d or %d)", p, hi/2, hi)
}

// Normalize checks o and returns it with every default filled in: the
// pattern's ranks, iterations, size and computation, and the timing
// model's latency, bandwidth and overhead. Errors name the option and
// what it accepts.
func (o Options) Normalize() (Options, error) {
	s, err := lookup(o.Pattern)
	if err != nil {
		return o, err
	}
	return s.normalize(o)
}

func (s *patternSpec) normalize(o Options) (Options, error) {
	bad := func(format string, args ...any) (Options, error) {
		return o, fmt.Errorf("gen %s: %s", s.Name, fmt.Sprintf(format, args...))
	}
	finite := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
	switch {
	case o.Ranks < 0:
		return bad("ranks must be positive, got %d", o.Ranks)
	case o.Ranks > MaxRanks:
		return bad("ranks must be at most %d, got %d", MaxRanks, o.Ranks)
	case o.Iters < 0:
		return bad("iterations must be positive, got %d", o.Iters)
	case o.Iters > maxIters:
		return bad("iterations must be at most %d, got %d", maxIters, o.Iters)
	case o.Size < 0:
		return bad("message size must be positive, got %d bytes", o.Size)
	case o.Size > maxSize:
		return bad("message size must be at most %s, got %s", units.FormatBytes(maxSize), units.FormatBytes(o.Size))
	case !finite(o.Compute):
		return bad("computation time %v is not a number of seconds", o.Compute)
	case !finite(o.Skew) || o.Skew < 0:
		return bad("clock skew must be a duration of 0 or more, got %v", o.Skew)
	case o.Skew > MaxSkew:
		return bad("clock skew must be at most %s, got %s", units.FormatDuration(MaxSkew), units.FormatDuration(o.Skew))
	case !finite(o.Latency) || o.Latency < 0:
		return bad("latency must be a duration of 0 or more, got %v", o.Latency)
	case !finite(o.Bandwidth) || o.Bandwidth < 0:
		return bad("bandwidth must be positive, got %v", o.Bandwidth)
	case !finite(o.Overhead) || o.Overhead < 0:
		return bad("call overhead must be a duration of 0 or more, got %v", o.Overhead)
	case !finite(o.Jitter) || o.Jitter < 0 || o.Jitter >= 1:
		return bad("jitter must be in [0, 1), got %v", o.Jitter)
	}
	if o.Ranks == 0 {
		o.Ranks = s.DefaultRanks
	}
	if o.Iters == 0 {
		o.Iters = s.DefaultIters
	}
	if o.Size == 0 {
		o.Size = s.DefaultSize
	}
	if o.Compute < 0 {
		o.Compute = s.DefaultCompute
	}
	if o.Latency == 0 {
		o.Latency = DefaultLatency
	}
	if o.Bandwidth == 0 {
		o.Bandwidth = DefaultBandwidth
	}
	if o.Overhead == 0 {
		o.Overhead = DefaultOverhead
	}
	if err := s.check(o.Ranks); err != nil {
		return bad("%v", err)
	}
	if o.Compute > maxRunSeconds/float64(o.Iters) {
		return bad("%d iterations of %s of computation exceed the generator's limit of %s", o.Iters, units.FormatDuration(o.Compute), units.FormatDuration(maxRunSeconds))
	}
	// A generous bound on the modelled run, so that nanosecond clocks
	// cannot overflow: every rank does at most 8·P calls per iteration,
	// each costing no more than the terms below.
	step := 2*o.Compute + o.Latency + o.Overhead + float64(o.Size)*float64(o.Ranks)/o.Bandwidth
	if run := float64(o.Iters) * float64(o.Ranks) * 8 * step; run > maxRunSeconds {
		return bad("the modelled run would last about %s, beyond the generator's limit of %s: lower iterations, size or computation, or raise the bandwidth",
			units.FormatDuration(run), units.FormatDuration(maxRunSeconds))
	}
	if c := s.count(&o); c.Events > MaxEvents {
		return bad("%d ranks × %d iterations would make %d events, more than the generator's limit of %d", o.Ranks, o.Iters, c.Events, MaxEvents)
	}
	return o, nil
}

// Counts says what a generated trace holds.
type Counts struct {
	// Events is the number of events over all ranks.
	Events int
	// Messages is the number of point-to-point messages; all of them are
	// matched.
	Messages int
	// Collectives is the number of collective events (one per rank per
	// collective call), as tracefmt.Summary counts them.
	Collectives int
	// WildcardRecvs is the number of receives posted with MPI_ANY_SOURCE.
	WildcardRecvs int
}

// Expect returns what Generate(o) will produce, without generating it.
func Expect(o Options) (Counts, error) {
	s, err := lookup(o.Pattern)
	if err != nil {
		return Counts{}, err
	}
	n, err := s.normalize(o)
	if err != nil {
		return Counts{}, err
	}
	return s.count(&n), nil
}

// computeEvents is the number of events of one compute burst: a Compute
// state around a compute event, or nothing without computation.
func computeEvents(o *Options) int {
	if computeNs(o) > 0 {
		return 3
	}
	return 0
}

// computeNs is the computation per iteration in the model's
// nanoseconds: times below half a nanosecond mean no computation.
func computeNs(o *Options) int64 { return int64(math.Round(o.Compute * 1e9)) }

// Event counts per pattern; the tests derive the same numbers by hand.

func countRing(o *Options) Counts {
	p, k, c := o.Ranks, o.Iters, computeEvents(o)
	// Per rank and iteration: a burst and an MPI_Sendrecv (enter, send,
	// receive, leave).
	return Counts{Events: p * k * (c + 4), Messages: p * k}
}

func countPingpong(o *Options) Counts {
	k, c := o.Iters, computeEvents(o)
	// Per rank and iteration: a burst, an MPI_Send and an MPI_Recv of
	// three events each.
	return Counts{Events: 2 * k * (c + 6), Messages: 2 * k}
}

func countStencil(o *Options) Counts {
	p, k, c := o.Ranks, o.Iters, computeEvents(o)
	rows, cols := gridDims(p)
	m := 2 * (rows*(cols-1) + cols*(rows-1)) // messages per iteration
	// Per rank and iteration with n neighbours: a burst, n MPI_Irecv
	// (enter, leave), n MPI_Isend (enter, send, leave), MPI_Waitall
	// (enter, n receives, wait, leave) and MPI_Allreduce (enter,
	// collective, leave): c + 6 + 6n. Summed over ranks, Σn = m.
	return Counts{Events: k * (p*(c+6) + 6*m), Messages: k * m, Collectives: k * p}
}

func countAlltoall(o *Options) Counts {
	p, k, c := o.Ranks, o.Iters, computeEvents(o)
	return Counts{Events: p * k * (c + 3), Collectives: p * k}
}

func countMasterWorker(o *Options) Counts {
	w, c := o.Ranks-1, computeEvents(o)
	t := o.Iters * w // tasks
	// Master: an MPI_Send per task and per stop message, an MPI_Recv per
	// result. Worker: per task an MPI_Recv, a burst and an MPI_Send; one
	// final MPI_Recv of the stop message. Three events per call.
	return Counts{Events: 3*(t+w) + 3*t + t*(6+c) + 3*w, Messages: 2*t + w, WildcardRecvs: t}
}

func countBcastTree(o *Options) Counts {
	p, k, c := o.Ranks, o.Iters, computeEvents(o)
	// A binomial tree has p−1 edges, each an MPI_Send and an MPI_Recv.
	return Counts{Events: k * (p*c + 6*(p-1)), Messages: k * (p - 1)}
}

func countCG(o *Options) Counts {
	p, k, c := o.Ranks, o.Iters, computeEvents(o)
	_, cols := cgDims(p)
	l2 := bits.Len(uint(cols)) - 1
	// Per rank and iteration: a burst, l2+1 exchanges (MPI_Irecv: enter,
	// leave; MPI_Send: enter, send, leave; MPI_Wait: enter, receive,
	// wait, leave) and two MPI_Allreduce of three events.
	return Counts{Events: p * k * (c + 9*(l2+1) + 6), Messages: p * k * (l2 + 1), Collectives: 2 * p * k}
}

func countRandomPairs(o *Options) Counts {
	p, k, c := o.Ranks, o.Iters, computeEvents(o)
	pairs := p / 2
	return Counts{Events: k * (p*c + 8*pairs), Messages: 2 * k * pairs}
}

// gridDims returns the stencil's process grid, rows ≥ cols, as square as
// possible (as MPI_Dims_create does).
func gridDims(p int) (rows, cols int) {
	cols = 1
	for d := 2; d*d <= p; d++ {
		if p%d == 0 {
			cols = d
		}
	}
	return p / cols, cols
}

// cgDims returns NAS CG's process grid for a power of two p: square when
// log2 p is even, otherwise twice as many columns as rows.
func cgDims(p int) (rows, cols int) {
	k := bits.Len(uint(p)) - 1
	rows = 1 << (k / 2)
	return rows, p / rows
}
