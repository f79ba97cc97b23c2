package platform

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
)

// ParseHostfile reads an smpirun hostfile: one host name a line, optionally
// "NAME:N" for N slots (smpirun unrolls it into N lines), blank lines
// skipped. The result lists one entry per slot; rank r runs on slot
// r mod len(slots), as SMPI deploys ranks.
func ParseHostfile(r io.Reader, name string) ([]string, error) {
	var slots []string
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	line := 0
	for sc.Scan() {
		line++
		s := strings.TrimSpace(sc.Text())
		if s == "" {
			continue
		}
		host, count := s, 1
		// smpirun splits on the last colon: "(.*):(.*)".
		if i := strings.LastIndexByte(s, ':'); i >= 0 {
			n, err := strconv.Atoi(strings.TrimSpace(s[i+1:]))
			if err != nil || n < 0 {
				return nil, fmt.Errorf("%s:%d: %q: expected HOST or HOST:SLOTS with SLOTS a whole number", name, line, s)
			}
			host, count = strings.TrimSpace(s[:i]), n
			if host == "" {
				return nil, fmt.Errorf("%s:%d: %q: no host name before ':'", name, line, s)
			}
		}
		if len(slots)+count > 1<<24 {
			return nil, fmt.Errorf("%s:%d: more than %d slots", name, line, 1<<24)
		}
		for i := 0; i < count; i++ {
			slots = append(slots, host)
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, fmt.Errorf("%s:%d: line longer than 1 MiB", name, line+1)
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(slots) == 0 {
		return nil, fmt.Errorf("%s: the hostfile lists no host", name)
	}
	return slots, nil
}

// Place returns the node of each of ranks ranks as smpirun deploys them:
// rank r on the host of slot r mod len(slots), or, without a hostfile
// (slots nil), on the platform's hosts in SimGrid's order, which sorts
// them by name ("host-10" before "host-2").
func (p *Platform) Place(slots []string, ranks int) ([]int, error) {
	var nodes []int
	if slots == nil {
		nodes = make([]int, len(p.Hosts))
		for i := range nodes {
			nodes[i] = i
		}
		sort.SliceStable(nodes, func(a, b int) bool { return p.Hosts[nodes[a]] < p.Hosts[nodes[b]] })
	} else {
		index := make(map[string]int, len(p.Hosts))
		for i, h := range p.Hosts {
			index[h] = i
		}
		nodes = make([]int, len(slots))
		for i, h := range slots {
			n, ok := index[h]
			if !ok {
				return nil, fmt.Errorf("hostfile: host %q is not in platform %s (its hosts are %s)", h, p.File, hostList(p.Hosts))
			}
			nodes[i] = n
		}
	}
	out := make([]int, ranks)
	for r := range out {
		out[r] = nodes[r%len(nodes)]
	}
	return out, nil
}

func hostList(h []string) string {
	if len(h) <= 4 {
		return strings.Join(h, ", ")
	}
	return fmt.Sprintf("%s, %s, …, %s", h[0], h[1], h[len(h)-1])
}
