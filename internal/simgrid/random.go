package simgrid

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// RandomProgram returns the time-independent actions of a random MPI
// program of ranks ranks, phase by phase (phase i's lines of rank r are
// prog[i][r]; Flatten gives rank r's lines for WriteRanks), the same for
// a given seed: a sequence of phases, each computation, non-blocking
// point-to-point messages between random pairs (every rank posts its
// receives and sends in a random order, then waits for all), blocking
// exchanges between the pairs of a random matching, a shifted sendRecv,
// or one of the collectives SimGrid's replayer knows, with random roots
// and sizes. Sizes are drawn around the thresholds the models care
// about (SMPI's detached-send limit of 65,536 B and its factors'
// breakpoints) as well as at random. Every program completes under MPI's
// semantics whatever the machine: no blocking send waits for a receive
// its peer posts only after a blocking send of its own.
func RandomProgram(seed uint64, ranks int) [][][]string {
	rng := rand.New(rand.NewPCG(seed, 0x7472616365))
	phases := 4 + rng.IntN(9)
	prog := make([][][]string, phases)
	for ph := range phases {
		lines := make([][]string, ranks)
		prog[ph] = lines
		add := func(r int, format string, args ...any) {
			lines[r] = append(lines[r], fmt.Sprintf(format, args...))
		}
		switch k := rng.IntN(10); {
		case k < 2:
			for r := range ranks {
				if rng.IntN(4) > 0 {
					add(r, "compute %d", rng.IntN(5_000_000))
				}
			}
		case k < 4:
			randomMessages(rng, ranks, ph, add)
		case k < 5 && ranks > 1:
			// Blocking exchanges over a random matching: the first of
			// each pair to send is random, the other receives first.
			perm := rng.Perm(ranks)
			for i := 0; i+1 < len(perm); i += 2 {
				a, b := perm[i], perm[i+1]
				if rng.IntN(2) == 0 {
					a, b = b, a
				}
				s1, s2 := randomSize(rng), randomSize(rng)
				add(a, "send %d %d %d 6", b, ph, s1)
				add(a, "recv %d %d %d 6", b, ph, s2)
				add(b, "recv %d %d %d 6", a, ph, s1)
				add(b, "send %d %d %d 6", a, ph, s2)
			}
		case k < 6 && ranks > 1:
			shift := 1 + rng.IntN(ranks-1)
			size := randomSize(rng)
			for r := range ranks {
				add(r, "sendRecv %d %d %d %d 6 6", size, (r+shift)%ranks, size, (r-shift+ranks)%ranks)
			}
		default:
			randomCollective(rng, ranks, add)
		}
	}
	return prog
}

// Flatten returns rank r's lines of the first phases phases of prog
// (all of them when phases is negative or beyond the program).
func Flatten(prog [][][]string, r, phases int) []string {
	if phases < 0 || phases > len(prog) {
		phases = len(prog)
	}
	var lines []string
	for _, ph := range prog[:phases] {
		lines = append(lines, ph[r]...)
	}
	return lines
}

// randomSize draws a message size in bytes: often at or next to a
// threshold, else anywhere from 0 to 4 MB on a log scale.
func randomSize(rng *rand.Rand) int {
	edges := []int{0, 1, 8, 1420, 4096, 32767, 65535, 65536, 65537, 320000}
	if rng.IntN(3) == 0 {
		return edges[rng.IntN(len(edges))]
	}
	exp := rng.Float64() * 22 // 1 B to 4 MB
	return int(float64(uint64(1)<<uint(exp)) * (1 + rng.Float64()))
}

// randomMessages adds a phase of non-blocking messages between random
// pairs: every rank posts its receives and sends in a random order, then
// waits for them all.
func randomMessages(rng *rand.Rand, ranks, tag int, add func(int, string, ...any)) {
	if ranks < 2 {
		return
	}
	ops := make([][]string, ranks)
	for k := range 1 + rng.IntN(2*ranks) {
		src := rng.IntN(ranks)
		dst := (src + 1 + rng.IntN(ranks-1)) % ranks
		size := randomSize(rng)
		// One receive in five takes MPI_ANY_SOURCE (-555) on a tag of
		// its own, so that its match does not depend on arrival order.
		from, t := fmt.Sprint(src), tag
		if rng.IntN(5) == 0 {
			from, t = "-555", 1000*(tag+1)+k
		}
		ops[src] = append(ops[src], fmt.Sprintf("isend %d %d %d 6", dst, t, size))
		ops[dst] = append(ops[dst], fmt.Sprintf("irecv %s %d %d 6", from, t, size))
	}
	for r, o := range ops {
		if len(o) == 0 {
			continue
		}
		// Shuffled, except that a rank's sends to one peer, and its
		// receives from one, keep their order: MPI matches them in order.
		order := rng.Perm(len(o))
		groups := map[string][]string{}
		for _, line := range o {
			k := kindOf(line) + " " + peerOf(line)
			groups[k] = append(groups[k], line)
		}
		shuffled := make([]string, len(o))
		for i, j := range order {
			k := kindOf(o[j]) + " " + peerOf(o[j])
			shuffled[i], groups[k] = groups[k][0], groups[k][1:]
		}
		o = shuffled
		for _, line := range o {
			add(r, "%s", line)
		}
		add(r, "waitall %d", len(o))
	}
}

func kindOf(line string) string { return strings.Fields(line)[0] }
func peerOf(line string) string { return strings.Fields(line)[1] }

// randomCollective adds one collective, the same on every rank.
func randomCollective(rng *rand.Rand, ranks int, add func(int, string, ...any)) {
	root := rng.IntN(ranks)
	size := randomSize(rng)
	flops := rng.IntN(1_000_000)
	counts := func() string {
		c := make([]string, ranks)
		for i := range c {
			c[i] = fmt.Sprint(size)
		}
		return strings.Join(c, " ")
	}
	var line string
	switch rng.IntN(12) {
	case 0:
		line = "barrier"
	case 1:
		line = fmt.Sprintf("bcast %d %d 6", size, root)
	case 2:
		line = fmt.Sprintf("reduce %d %d %d 6", size, flops, root)
	case 3:
		line = fmt.Sprintf("allreduce %d %d 6", size, flops)
	case 4:
		size /= ranks
		line = fmt.Sprintf("alltoall %d %d 6 6", size, size)
	case 5:
		size /= ranks
		line = fmt.Sprintf("allgather %d %d 6 6", size, size)
	case 6:
		size /= ranks
		line = fmt.Sprintf("gather %d %d %d 6 6", size, size, root)
	case 7:
		size /= ranks
		line = fmt.Sprintf("scatter %d %d %d 6 6", size, size, root)
	case 8:
		size /= ranks
		line = fmt.Sprintf("reducescatter %s %d 6", counts(), flops)
	case 9:
		size /= ranks
		line = fmt.Sprintf("allgatherv %d %s 6 6", size, counts())
	case 10:
		size /= ranks
		line = fmt.Sprintf("gatherv %d %s %d 6 6", size, counts(), root)
	default:
		size /= ranks
		line = fmt.Sprintf("scatterv %s %d %d 6 6", counts(), size, root)
	}
	for r := range ranks {
		add(r, "%s", line)
	}
}
