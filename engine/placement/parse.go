package placement

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/tracesim/tracesim/internal/linefields"
	"github.com/tracesim/tracesim/internal/userfile"
)

// Options configure Parse.
type Options struct {
	// Open opens the map file of a "file:" spec (nil: userfile.OS, by
	// path from the working directory). A server passes one confined to
	// its library. Whatever opens it, the file must be a regular file of
	// at most userfile.PlacementLimit bytes.
	Open userfile.Opener
	// Seed, when set, seeds a "random" placement that names no seed=:
	// the simulation's seed, so that a run's seed changes its random
	// placement as it changes its random routes. Nil: seed 1.
	Seed *uint64
}

// SpecError is a malformed placement spec.
type SpecError struct {
	Spec   string
	Offset int // byte offset in Spec
	Msg    string
}

func (e *SpecError) Error() string {
	return fmt.Sprintf("placement %q: at offset %d: %s", e.Spec, e.Offset, e.Msg)
}

// Kinds lists the placement keywords with an example each, for help texts
// and the TUI's form.
func Kinds() []string {
	return []string{"linear", "block:4", "roundrobin", "random:seed=7", "map:0,1,2", "file:map.txt"}
}

// TakesRunSeed reports whether spec is a random placement that names no
// seed=, whose choice is then the simulation's seed (Options.Seed): a
// run's seed changes it.
func TakesRunSeed(spec string) bool {
	kind, body, _ := strings.Cut(spec, ":")
	if strings.ToLower(strings.TrimSpace(kind)) != "random" {
		return false
	}
	for _, part := range strings.Split(body, ",") {
		if k, _, _ := strings.Cut(strings.TrimSpace(part), "="); k == "seed" {
			return false
		}
	}
	return true
}

// Parse places ranks on nodes following spec (see the package
// documentation); map files are read by path (userfile.OS).
func Parse(spec string, ranks, nodes int) (*Placement, error) {
	return ParseWith(spec, ranks, nodes, Options{})
}

// ParseWith is Parse with options.
func ParseWith(spec string, ranks, nodes int, opt Options) (*Placement, error) {
	if err := check(ranks, nodes); err != nil {
		return nil, err
	}
	kind, body, hasBody := strings.Cut(spec, ":")
	kind = strings.ToLower(strings.TrimSpace(kind))
	base := len(spec) - len(body)
	bad := func(off int, format string, args ...any) error {
		return &SpecError{Spec: spec, Offset: off, Msg: fmt.Sprintf(format, args...)}
	}
	noBody := func() error {
		if hasBody {
			return bad(base, "%s takes no parameters", kind)
		}
		return nil
	}
	switch kind {
	case "linear", "consecutive":
		if err := noBody(); err != nil {
			return nil, err
		}
		return Linear(ranks, nodes)
	case "roundrobin", "rr", "cyclic":
		if err := noBody(); err != nil {
			return nil, err
		}
		return RoundRobin(ranks, nodes)
	case "block":
		if !hasBody {
			return Block(ranks, nodes, 0)
		}
		k, err := strconv.Atoi(strings.TrimSpace(body))
		if err != nil || k < 1 {
			return nil, bad(base, "block: %q is not a positive number of ranks per node", body)
		}
		return Block(ranks, nodes, k)
	case "random":
		var seed uint64 = 1
		if opt.Seed != nil {
			seed = *opt.Seed
		}
		per := 0
		if hasBody {
			off := base
			for _, part := range strings.Split(body, ",") {
				k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
				switch {
				case !ok:
					return nil, bad(off, "random: expected seed=N or per=K, got %q", part)
				case k == "seed":
					s, err := strconv.ParseUint(v, 10, 64)
					if err != nil {
						return nil, bad(off, "random: seed %q is not a non-negative integer", v)
					}
					seed = s
				case k == "per":
					p, err := strconv.Atoi(v)
					if err != nil || p < 1 {
						return nil, bad(off, "random: per %q is not a positive number of ranks per node", v)
					}
					per = p
				default:
					return nil, bad(off, "random: unknown parameter %q (expected seed or per)", k)
				}
				off += len(part) + 1
			}
		}
		return Random(ranks, nodes, seed, per)
	case "map":
		if !hasBody || strings.TrimSpace(body) == "" {
			return nil, bad(len(spec), "map: expected node numbers, for example map:0,1,2")
		}
		var procs []int
		off := base
		for _, f := range strings.FieldsFunc(body, func(r rune) bool { return r == ',' || r == ' ' }) {
			i := strings.Index(spec[off:], f)
			off += i
			n, err := strconv.Atoi(f)
			if err != nil {
				return nil, bad(off, "map: %q is not a node number", f)
			}
			if n < 0 || n >= nodes {
				return nil, bad(off, "map: node %d out of range (the machine has nodes 0 to %d)", n, nodes-1)
			}
			procs = append(procs, n)
			off += len(f)
		}
		return Map(ranks, nodes, procs)
	case "file":
		path := strings.TrimSpace(body)
		if path == "" {
			return nil, bad(len(spec), "file: expected a file name")
		}
		f, err := userfile.Open(opt.Open, "placement", path, userfile.PlacementLimit)
		if err != nil {
			return nil, err // "placement file PATH: …"
		}
		defer f.Close()
		p, err := ParseMap(f, path, ranks, nodes)
		if err != nil {
			var le *userfile.LimitError
			if errors.As(err, &le) {
				return nil, le
			}
			return nil, fmt.Errorf("placement %q: %w", spec, err)
		}
		return p, nil
	case "":
		return nil, bad(0, "expected a placement (%s)", strings.Join(Kinds(), ", "))
	}
	return nil, bad(0, "unknown placement %q (expected one of %s)", kind, strings.Join(Kinds(), ", "))
}

// MapError is an error in a map file.
type MapError struct {
	File      string
	Line, Col int // 0 when the error concerns the whole file
	Msg       string
}

func (e *MapError) Error() string {
	if e.Line == 0 {
		return fmt.Sprintf("%s: %s", e.File, e.Msg)
	}
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg)
}

// ParseMap reads an explicit placement for ranks ranks on nodes nodes. The
// format (docs/topology.md): lines "RANK NODE" or "FIRST-LAST NODE", and
// optionally one "map P1 … Pn" line that places every rank not listed on
// P[rank mod n]; '#' starts a comment. Errors name file:line:column.
func ParseMap(r io.Reader, name string, ranks, nodes int) (*Placement, error) {
	if err := check(ranks, nodes); err != nil {
		return nil, err
	}
	nodeOf := make([]int32, ranks)
	lineOf := make([]int32, ranks) // line that placed the rank, 0 if none
	var wrap []int
	wrapLine := 0
	lineNo := 0
	errf := func(col int, format string, args ...any) error {
		return &MapError{File: name, Line: lineNo, Col: col, Msg: fmt.Sprintf(format, args...)}
	}
	nodeNum := func(f linefields.Field) (int, error) {
		n, err := strconv.Atoi(f.S)
		if err != nil {
			return 0, errf(f.Col, "%q is not a node number", f.S)
		}
		if n < 0 || n >= nodes {
			return 0, errf(f.Col, "node %d out of range (the machine has nodes 0 to %d)", n, nodes-1)
		}
		return n, nil
	}
	br := bufio.NewReader(r)
	for {
		line, rerr := br.ReadString('\n')
		if len(line) > 0 {
			lineNo++
			if len(line) > 1<<20 {
				return nil, errf(1, "line longer than 1 MiB")
			}
			fs := linefields.Split(line, ",")
			switch {
			case len(fs) == 0:
			case strings.EqualFold(fs[0].S, "map"):
				if wrapLine != 0 {
					return nil, errf(fs[0].Col, "second map line (the first is on line %d)", wrapLine)
				}
				if len(fs) == 1 {
					return nil, errf(fs[0].Col+3, "map: expected node numbers")
				}
				for _, f := range fs[1:] {
					n, err := nodeNum(f)
					if err != nil {
						return nil, err
					}
					wrap = append(wrap, n)
				}
				wrapLine = lineNo
			default:
				if len(fs) != 2 {
					col := fs[0].Col
					if len(fs) > 2 {
						col = fs[2].Col
					}
					return nil, errf(col, "expected RANK NODE, FIRST-LAST NODE or map P1 … Pn")
				}
				lo, hi := fs[0].S, fs[0].S
				if a, b, ok := strings.Cut(fs[0].S, "-"); ok {
					lo, hi = a, b
				}
				first, err1 := strconv.Atoi(lo)
				last, err2 := strconv.Atoi(hi)
				if err1 != nil || err2 != nil || first < 0 || last < first {
					return nil, errf(fs[0].Col, "%q is not a rank or a range FIRST-LAST", fs[0].S)
				}
				if last >= ranks {
					return nil, errf(fs[0].Col, "rank %d out of range (the trace has ranks 0 to %d)", last, ranks-1)
				}
				n, err := nodeNum(fs[1])
				if err != nil {
					return nil, err
				}
				for rk := first; rk <= last; rk++ {
					if lineOf[rk] != 0 {
						return nil, errf(fs[0].Col, "rank %d is already placed on line %d", rk, lineOf[rk])
					}
					nodeOf[rk], lineOf[rk] = int32(n), int32(lineNo)
				}
			}
		}
		if errors.Is(rerr, io.EOF) {
			break
		}
		if rerr != nil {
			return nil, fmt.Errorf("%s: %w", name, rerr)
		}
	}
	out := make([]int, ranks)
	for rk := range out {
		switch {
		case lineOf[rk] != 0:
			out[rk] = int(nodeOf[rk])
		case wrap != nil:
			out[rk] = wrap[rk%len(wrap)]
		default:
			return nil, &MapError{File: name, Msg: fmt.Sprintf("rank %d is not placed (list every rank 0 to %d, or add a 'map P1 … Pn' line for the rest)", rk, ranks-1)}
		}
	}
	return Explicit("file:"+name, nodes, out)
}
