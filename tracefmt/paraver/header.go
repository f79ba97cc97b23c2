package paraver

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/tracesim/tracesim/tracefmt"
)

// header is a .prv's first line:
// "#Paraver (date):ftime[_ns|_us]:nodes[(cpus,...)]:nAppl:app[:app...]"
// where an application is "nTasks(threads:node,...)[,nComms]".
type header struct {
	date  string
	ftime int64
	unit  tracefmt.Unit
	// nodes holds the CPUs of each node (1 each when the header gives
	// only the count, as old traces do).
	nodes []int
	apps  []app
}

// app is one application of the header: its tasks' thread counts.
type app struct {
	threads []int
	comms   int
	// first is the world rank of its first task.
	first int
}

// ranks is the number of tasks over all applications.
func (h *header) ranks() int {
	n := 0
	for _, a := range h.apps {
		n += len(a.threads)
	}
	return n
}

// maxRanks bounds the tasks a header may declare: each costs a stream.
const maxRanks = 1 << 24

// parseHeader parses the header line (without its newline).
func parseHeader(s string) (*header, error) {
	const magic = "#Paraver "
	if !strings.HasPrefix(s, magic) {
		return nil, fmt.Errorf("expected a header starting %q, got %q", magic, clip(s))
	}
	rest := s[len(magic):]
	h := &header{}
	if strings.HasPrefix(rest, "(") {
		end := strings.Index(rest, ")")
		if end < 0 {
			return nil, fmt.Errorf("expected the date in parentheses, got %q", clip(rest))
		}
		h.date, rest = rest[1:end], rest[end+1:]
	}
	rest = strings.TrimPrefix(rest, ":")
	f := splitTop(rest, ':')
	if len(f) < 4 {
		return nil, fmt.Errorf("expected ftime:nodes:applications:application..., got %q", clip(rest))
	}
	ft := f[0]
	h.unit = tracefmt.Microsecond
	switch {
	case strings.HasSuffix(ft, "_ns"):
		ft, h.unit = strings.TrimSuffix(ft, "_ns"), tracefmt.Nanosecond
	case strings.HasSuffix(ft, "_us"):
		ft = strings.TrimSuffix(ft, "_us")
	}
	var err error
	if h.ftime, err = strconv.ParseInt(ft, 10, 64); err != nil || h.ftime < 0 {
		return nil, fmt.Errorf("expected the final time (an integer, optionally _ns or _us), got %q", f[0])
	}
	if h.nodes, err = parseNodes(f[1]); err != nil {
		return nil, err
	}
	nAppl, err := strconv.Atoi(f[2])
	if err != nil || nAppl < 1 {
		return nil, fmt.Errorf("expected the number of applications, got %q", f[2])
	}
	if len(f)-3 != nAppl {
		return nil, fmt.Errorf("header declares %d applications but lists %d", nAppl, len(f)-3)
	}
	first := 0
	for i, s := range f[3:] {
		a, err := parseApp(s)
		if err != nil {
			return nil, fmt.Errorf("application %d: %w", i+1, err)
		}
		a.first = first
		first += len(a.threads)
		if first > maxRanks {
			return nil, fmt.Errorf("more than %d tasks", maxRanks)
		}
		h.apps = append(h.apps, a)
	}
	return h, nil
}

// parseNodes parses "4" or "2(4,4)".
func parseNodes(s string) ([]int, error) {
	count, list, hasList := strings.Cut(s, "(")
	n, err := strconv.Atoi(count)
	if err != nil || n < 0 || n > maxRanks {
		return nil, fmt.Errorf("expected the number of nodes, got %q", s)
	}
	nodes := make([]int, n)
	for i := range nodes {
		nodes[i] = 1
	}
	if !hasList {
		return nodes, nil
	}
	if !strings.HasSuffix(list, ")") {
		return nil, fmt.Errorf("expected nodes(cpus,...), got %q", s)
	}
	cpus := strings.Split(strings.TrimSuffix(list, ")"), ",")
	if len(cpus) != n {
		return nil, fmt.Errorf("header declares %d nodes but lists %d CPU counts", n, len(cpus))
	}
	for i, c := range cpus {
		if nodes[i], err = strconv.Atoi(c); err != nil || nodes[i] < 0 {
			return nil, fmt.Errorf("expected a CPU count, got %q", c)
		}
	}
	return nodes, nil
}

// parseApp parses "nTasks(threads:node,...)[,nComms]".
func parseApp(s string) (app, error) {
	var a app
	open := strings.IndexByte(s, '(')
	end := strings.LastIndexByte(s, ')')
	if open < 0 || end < open {
		return a, fmt.Errorf("expected tasks(threads:node,...), got %q", clip(s))
	}
	n, err := strconv.Atoi(s[:open])
	if err != nil || n < 1 || n > maxRanks {
		return a, fmt.Errorf("expected the number of tasks, got %q", s[:open])
	}
	tasks := strings.Split(s[open+1:end], ",")
	if len(tasks) != n {
		return a, fmt.Errorf("declares %d tasks but lists %d", n, len(tasks))
	}
	a.threads = make([]int, n)
	for i, t := range tasks {
		th, _, _ := strings.Cut(t, ":")
		if a.threads[i], err = strconv.Atoi(th); err != nil || a.threads[i] < 1 {
			return a, fmt.Errorf("task %d: expected threads:node, got %q", i+1, t)
		}
	}
	if tail := s[end+1:]; tail != "" {
		c, ok := strings.CutPrefix(tail, ",")
		if a.comms, err = strconv.Atoi(c); !ok || err != nil || a.comms < 0 {
			return a, fmt.Errorf("expected ,communicators after the tasks, got %q", tail)
		}
	}
	return a, nil
}

// splitTop splits s at sep outside parentheses.
func splitTop(s string, sep byte) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(':
			depth++
		case ')':
			depth--
		case sep:
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}

// clip shortens a quoted input in an error.
func clip(s string) string {
	if len(s) > 60 {
		return s[:60] + "…"
	}
	return s
}
