package goal

import (
	"bufio"
	"bytes"
	"cmp"
	"container/heap"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/tracesim/tracesim/tracefmt"
)

// Sniff reports whether head starts like a GOAL schedule: comments and
// blank lines, then "num_ranks N".
func Sniff(head []byte) bool {
	for len(head) > 0 {
		line, rest, _ := bytes.Cut(head, []byte("\n"))
		head = rest
		s := bytes.TrimSpace(line)
		switch {
		case len(s) == 0, bytes.HasPrefix(s, []byte("//")):
			continue
		}
		f := bytes.Fields(s)
		if len(f) != 2 || string(f[0]) != "num_ranks" {
			return false
		}
		_, err := strconv.ParseUint(string(f[1]), 10, 31)
		return err == nil
	}
	return false
}

// opKind is what a schedule line does.
type opKind uint8

const (
	opSend opKind = iota + 1
	opRecv
	opCalc
)

// op is one operation of a rank's schedule.
type op struct {
	kind opKind
	line int
	size uint64 // bytes, or the calc's amount
	peer int64  // -1: any source
	tag  int64  // -1: any tag
	// reqs are the operations that must complete first, ireqs those that
	// must have started.
	reqs, ireqs []int32
}

// reader holds the state of one read.
type reader struct {
	name      string
	line      int
	ranks     int
	ranksLine int // where num_ranks was given
	b         *tracefmt.Builder
	seen      []bool
	states    [4]tracefmt.StateID
	// wild lists the receives from any source, resolved once every rank
	// is read.
	wild []tracefmt.EventRef
	// sends counts the sends per (source, destination, tag).
	sends map[[3]int64]int
	// recvs lists the receives naming their source, to take from sends.
	recvs [][3]int64
}

func (rd *reader) errorf(format string, args ...any) error {
	return fmt.Errorf("%s:%d: %s", rd.name, rd.line, fmt.Sprintf(format, args...))
}

// maxRanks bounds num_ranks: each rank costs a stream.
const maxRanks = 1 << 24

// Read parses the GOAL schedule in r; name (the file's) prefixes errors.
func Read(name string, r io.Reader) (*tracefmt.Trace, error) {
	rd := &reader{name: name, sends: map[[3]int64]int{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 16<<20)
	inComment := false
	rank := -1
	var ops []op
	labels := map[string]int32{}
	for sc.Scan() {
		rd.line++
		s := sc.Text()
		s, inComment = stripComments(s, inComment)
		f := strings.Fields(punct.Replace(s))
		if len(f) == 0 {
			continue
		}
		switch {
		case f[0] == "num_ranks":
			if rd.b != nil {
				return nil, rd.errorf("expected num_ranks once, got it again")
			}
			n, err := strconv.Atoi(at(f, 1))
			if len(f) != 2 || err != nil || n < 1 || n > maxRanks {
				return nil, rd.errorf("expected num_ranks N (1..%d), got %q", maxRanks, s)
			}
			rd.ranks, rd.ranksLine = n, rd.line
			rd.b = tracefmt.NewLazyBuilder(n, false, tracefmt.Nanosecond)
			rd.b.Trace().Format = "goal"
			rd.seen = make([]bool, n)
			for i, name := range []string{"", "MPI_Isend", "MPI_Irecv", "MPI_Wait"} {
				if i > 0 {
					rd.states[i] = rd.b.State(name)
				}
			}
		case f[0] == "rank":
			if rd.b == nil {
				return nil, rd.errorf("expected num_ranks N before the first rank")
			}
			if rank >= 0 {
				return nil, rd.errorf("expected } closing rank %d before rank", rank)
			}
			r, err := strconv.Atoi(at(f, 1))
			if len(f) != 3 || f[2] != "{" || err != nil {
				return nil, rd.errorf("expected rank R {, got %q", strings.TrimSpace(s))
			}
			if r < 0 || r >= rd.ranks {
				return nil, rd.errorf("rank %d outside 0..%d (num_ranks %d)", r, rd.ranks-1, rd.ranks)
			}
			if rd.seen[r] {
				return nil, rd.errorf("rank %d scheduled twice", r)
			}
			rd.seen[r] = true
			rank, ops = r, ops[:0]
			clear(labels)
		case f[0] == "}":
			if rank < 0 || len(f) != 1 {
				return nil, rd.errorf("expected } only to close a rank, got %q", strings.TrimSpace(s))
			}
			if err := rd.emit(rank, ops, labels); err != nil {
				return nil, err
			}
			rank = -1
		default:
			if rank < 0 {
				return nil, rd.errorf("expected num_ranks, rank R { or a comment, got %q", strings.TrimSpace(s))
			}
			var err error
			if ops, err = rd.statement(f, ops, labels); err != nil {
				return nil, err
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s:%d: %w", name, rd.line+1, err)
	}
	if rd.b == nil && rd.line == 0 {
		rd.line = 1 // a file's first line, though it has none
		return nil, rd.errorf("empty file: expected num_ranks N")
	}
	if rd.b == nil {
		return nil, rd.errorf("expected num_ranks N, got the end of the file")
	}
	if rank >= 0 {
		return nil, rd.errorf("expected } closing rank %d, got the end of the file", rank)
	}
	rd.resolveWildcards()
	if n := rd.anySources(); n > 0 {
		// The senders given are a guess: a replay lets them match any.
		rd.b.Trace().SetAttr(tracefmt.AttrUnrecordedSources, strconv.Itoa(n))
	}
	if err := tracefmt.CheckBuilt(rd.b.Trace(), rd.ranks); err != nil {
		return nil, fmt.Errorf("%s:%d: num_ranks %d: %w", name, rd.ranksLine, rd.ranks, err)
	}
	t, err := rd.b.Finish()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return t, nil
}

// punct spaces out the punctuation txt2bin needs no space around
// ("l1:send", "rank 0{").
var punct = strings.NewReplacer(":", " : ", "{", " { ", "}", " } ")

// at returns f[i], or "".
func at(f []string, i int) string {
	if i < len(f) {
		return f[i]
	}
	return ""
}

// stripComments removes // and /* */ comments from a line; inComment says
// whether the line starts inside a block comment.
func stripComments(s string, inComment bool) (string, bool) {
	var out strings.Builder
	for len(s) > 0 {
		if inComment {
			end := strings.Index(s, "*/")
			if end < 0 {
				return out.String(), true
			}
			s, inComment = s[end+2:], false
			continue
		}
		i := strings.Index(s, "/")
		if i < 0 || i+1 >= len(s) {
			out.WriteString(s)
			break
		}
		switch s[i+1] {
		case '/':
			out.WriteString(s[:i])
			return out.String(), false
		case '*':
			out.WriteString(s[:i])
			out.WriteByte(' ')
			s, inComment = s[i+2:], true
		default:
			out.WriteString(s[:i+1])
			s = s[i+1:]
		}
	}
	return out.String(), inComment
}

// validLabel reports whether s is a GOAL identifier.
func validLabel(s string) bool {
	if s == "" || !(s[0] >= 'a' && s[0] <= 'z' || s[0] >= 'A' && s[0] <= 'Z') {
		return false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// statement parses an operation or a dependency of the current rank.
func (rd *reader) statement(f []string, ops []op, labels map[string]int32) ([]op, error) {
	line := strings.Join(f, " ")
	if len(f) == 3 && (f[1] == "requires" || f[1] == "irequires") {
		a, ok1 := labels[f[0]]
		b, ok2 := labels[f[2]]
		switch {
		case !ok1:
			return nil, rd.errorf("%s names label %s, which no operation above defines", f[1], f[0])
		case !ok2:
			return nil, rd.errorf("%s names label %s, which no operation above defines", f[1], f[2])
		case a == b:
			return nil, rd.errorf("label %s %s itself", f[0], f[1])
		}
		if f[1] == "requires" {
			ops[a].reqs = append(ops[a].reqs, b)
		} else {
			ops[a].ireqs = append(ops[a].ireqs, b)
		}
		return ops, nil
	}
	label := ""
	if len(f) >= 2 && f[1] == ":" {
		label, f = f[0], f[2:]
		if !validLabel(label) {
			return nil, rd.errorf("expected a label (a letter, then letters, digits, _), got %q", label)
		}
		if _, dup := labels[label]; dup {
			return nil, rd.errorf("label %s defined twice in the rank", label)
		}
	}
	o := op{line: rd.line, peer: -1, tag: 0}
	switch at(f, 0) {
	case "calc":
		o.kind = opCalc
		n, err := strconv.ParseUint(at(f, 1), 10, 63)
		if err != nil {
			return nil, rd.errorf("expected calc AMOUNT [cpu N], got %q", line)
		}
		o.size = n
		rest := f[2:]
		if len(rest) == 2 && rest[0] == "cpu" {
			rest = nil
		}
		if len(rest) > 0 {
			return nil, rd.errorf("expected calc AMOUNT [cpu N], got %q", line)
		}
	case "send", "recv":
		dir := "to"
		o.kind = opSend
		if f[0] == "recv" {
			o.kind, dir = opRecv, "from"
		}
		f = f[1:]
		usage := fmt.Sprintf("expected %s SIZEb %s RANK [tag T] [cpu N] [nic N]", map[opKind]string{opSend: "send", opRecv: "recv"}[o.kind], dir)
		sz := at(f, 0)
		if strings.HasSuffix(sz, "b") {
			sz = strings.TrimSuffix(sz, "b")
			f = f[1:]
		} else if at(f, 1) == "b" {
			f = f[2:]
		} else {
			return nil, rd.errorf("%s, got %q", usage, line)
		}
		n, err := strconv.ParseUint(sz, 10, 63)
		if err != nil || at(f, 0) != dir {
			return nil, rd.errorf("%s, got %q", usage, line)
		}
		o.size = n
		p, err := strconv.ParseInt(at(f, 1), 10, 64)
		if err != nil || p < -1 || p == -1 && o.kind == opSend || p >= int64(rd.ranks) {
			return nil, rd.errorf("%s (0..%d%s), got %q", usage, rd.ranks-1, map[bool]string{true: " or -1", false: ""}[o.kind == opRecv], line)
		}
		o.peer = p
		for f = f[2:]; len(f) > 0; f = f[2:] {
			v, err := strconv.ParseInt(at(f, 1), 10, 64)
			if err != nil || len(f) < 2 {
				return nil, rd.errorf("%s, got %q", usage, line)
			}
			switch f[0] {
			case "tag":
				if v < -1 || v > 1<<31-1 {
					return nil, rd.errorf("tag %d outside -1..2^31-1", v)
				}
				o.tag = v
			case "cpu", "nic":
			default:
				return nil, rd.errorf("%s, got %q", usage, line)
			}
		}
	default:
		return nil, rd.errorf("expected send, recv, calc or LABEL requires|irequires LABEL, got %q", line)
	}
	if len(ops) >= 1<<31-1 {
		return nil, rd.errorf("more than 2^31 operations in a rank")
	}
	if label != "" {
		labels[label] = int32(len(ops))
	}
	return append(ops, o), nil
}

// anySources counts the receives from any source.
func (rd *reader) anySources() int {
	n := 0
	t := rd.b.Trace()
	for _, ref := range rd.wild {
		if t.Ranks[ref.Rank].Events[ref.Index].Flags.Has(tracefmt.FlagAnySource) {
			n++
		}
	}
	return n
}

// opHeap orders ready operations by their place in the file.
type opHeap []int32

func (h opHeap) Len() int           { return len(h) }
func (h opHeap) Less(i, j int) bool { return h[i] < h[j] }
func (h opHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *opHeap) Push(x any)        { *h = append(*h, x.(int32)) }
func (h *opHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// emit turns a rank's schedule into its stream: the operations in the
// order of the file as far as the dependencies allow (Kahn's topological
// sort, taking the earliest ready line first); sends and receives are
// non-blocking, and an operation that requires a send or receive to
// complete waits for its request first. Requests no operation waits for
// complete in a waitall at the end.
func (rd *reader) emit(rank int, ops []op, labels map[string]int32) error {
	indeg := make([]int32, len(ops))
	next := make([][]int32, len(ops))
	for i := range ops {
		for _, d := range append(ops[i].reqs, ops[i].ireqs...) {
			indeg[i]++
			next[d] = append(next[d], int32(i))
		}
	}
	ready := &opHeap{}
	for i := range ops {
		if indeg[i] == 0 {
			*ready = append(*ready, int32(i))
		}
	}
	heap.Init(ready)
	req := make([]int64, len(ops)) // request of a send or receive, 0 once waited
	outstanding := 0
	done := 0
	add := func(e tracefmt.Event) (int, error) {
		i, err := rd.b.Add(rank, e)
		if err != nil {
			return 0, rd.errorf("%v", err)
		}
		return i, nil
	}
	wrap := func(state int, e tracefmt.Event) (int, error) {
		if _, err := add(tracefmt.Enter(0, rd.states[state])); err != nil {
			return 0, err
		}
		i, err := add(e)
		if err != nil {
			return 0, err
		}
		_, err = add(tracefmt.Leave(0, rd.states[state]))
		return i, err
	}
	nextReq := int64(0)
	for ready.Len() > 0 {
		i := heap.Pop(ready).(int32)
		o := &ops[i]
		done++
		for _, d := range o.reqs {
			if req[d] != 0 {
				if _, err := wrap(3, tracefmt.Wait(0, req[d])); err != nil {
					return err
				}
				req[d] = 0
				outstanding--
			}
		}
		switch o.kind {
		case opCalc:
			if _, err := add(tracefmt.ComputeTime(0, float64(o.size))); err != nil {
				return err
			}
		case opSend, opRecv:
			nextReq++
			var e tracefmt.Event
			state := 1
			tag := int32(o.tag)
			if o.kind == opSend {
				e = tracefmt.Send(0, int(o.peer), tag, 0, int64(o.size))
			} else {
				state = 2
				peer := int(o.peer)
				if peer < 0 {
					peer = rank // resolved once every rank is read
				}
				e = tracefmt.Recv(0, peer, tag, 0, int64(o.size))
				if o.peer < 0 {
					e.Flags |= tracefmt.FlagAnySource
				}
				if o.tag < 0 {
					e.Flags |= tracefmt.FlagAnyTag
				}
			}
			e.Flags |= tracefmt.FlagNonBlocking
			e.SetRequest(nextReq)
			idx, err := wrap(state, e)
			if err != nil {
				return err
			}
			req[i] = nextReq
			outstanding++
			key := [3]int64{o.peer, int64(rank), o.tag}
			switch {
			case o.kind == opSend:
				rd.sends[[3]int64{int64(rank), o.peer, o.tag}]++
			case o.peer < 0 || o.tag < 0:
				rd.wild = append(rd.wild, tracefmt.EventRef{Rank: int32(rank), Index: int32(idx)})
			default:
				rd.recvs = append(rd.recvs, key)
			}
		}
		for _, n := range next[i] {
			if indeg[n]--; indeg[n] == 0 {
				heap.Push(ready, n)
			}
		}
	}
	if done < len(ops) {
		// Name the blocked label earliest in the file, so that the same
		// schedule always gives the same error (labels is a map).
		first, name := int32(-1), ""
		for l, i := range labels {
			if indeg[i] > 0 && (first < 0 || i < first) {
				first, name = i, l
			}
		}
		if first >= 0 {
			rd.line = ops[first].line
			return rd.errorf("rank %d: the dependencies of label %s form a cycle (or depend on one)", rank, name)
		}
		return rd.errorf("rank %d: the dependencies form a cycle", rank)
	}
	if outstanding > 0 {
		if _, err := wrap(3, tracefmt.WaitAll(0)); err != nil {
			return err
		}
	}
	return nil
}

// resolveWildcards gives each receive from any source (or with any tag)
// the sender and tag of a send to its rank that no receive naming its
// source takes: the lowest such source rank, then the lowest tag,
// receives in rank order. It returns how many found none (they keep
// their own rank as the source).
func (rd *reader) resolveWildcards() int {
	for _, k := range rd.recvs {
		if rd.sends[k] > 0 {
			rd.sends[k]--
		}
	}
	if len(rd.wild) == 0 {
		return 0
	}
	byDst := map[int64][][3]int64{}
	for k, n := range rd.sends {
		if n > 0 {
			byDst[k[1]] = append(byDst[k[1]], k)
		}
	}
	for _, ks := range byDst {
		slices.SortFunc(ks, func(a, b [3]int64) int {
			if a[0] != b[0] {
				return cmp.Compare(a[0], b[0])
			}
			return cmp.Compare(a[2], b[2])
		})
	}
	left := 0
	t := rd.b.Trace()
	for _, ref := range rd.wild {
		e := &t.Ranks[ref.Rank].Events[ref.Index]
		found := false
		for _, k := range byDst[int64(ref.Rank)] {
			if rd.sends[k] == 0 || (!e.Flags.Has(tracefmt.FlagAnySource) && k[0] != int64(e.Peer)) ||
				(!e.Flags.Has(tracefmt.FlagAnyTag) && k[2] != int64(e.Tag)) {
				continue
			}
			e.Peer, e.Tag = int32(k[0]), int32(k[2])
			rd.sends[k]--
			found = true
			break
		}
		if !found {
			left++
		}
	}
	return left
}
