package simgridti

import (
	"bytes"
	"strconv"
	"strings"
)

// sniffActions are the actions a TI trace's lines may carry, lower-cased.
var sniffActions = map[string]bool{
	"init": true, "finalize": true, "comm_size": true, "comm_split": true, "comm_dup": true,
	"compute": true, "sleep": true, "location": true, "send": true, "isend": true, "ssend": true,
	"issend": true, "bsend": true, "ibsend": true, "rsend": true, "irsend": true, "recv": true,
	"irecv": true, "sendrecv": true, "wait": true, "test": true, "waitall": true, "waitany": true,
	"testany": true, "testall": true, "testsome": true, "start": true, "startall": true,
	"barrier": true, "bcast": true, "reduce": true, "allreduce": true, "alltoall": true,
	"alltoallv": true, "gather": true, "gatherv": true, "allgather": true, "allgatherv": true,
	"scatter": true, "scatterv": true, "reducescatter": true, "scan": true, "exscan": true,
}

// Sniff reports whether head, the first bytes of a file, looks like a TI
// trace: every complete line (up to 16, blank and # lines skipped) is a
// rank or actor name followed by a known action and numeric arguments
// (location takes a file name), or every line is a lone path of a
// per-rank file as in the index files of `smpirun -trace-ti`.
func Sniff(head []byte) bool {
	// Only complete lines count, unless head holds the whole file.
	if i := bytes.LastIndexByte(head, '\n'); i >= 0 {
		head = head[:i]
	}
	lines, actions, paths := 0, 0, 0
	for _, raw := range strings.Split(string(head), "\n") {
		line := strings.TrimSuffix(raw, "\r")
		if skipLine([]byte(line)) {
			continue
		}
		if lines++; lines > 16 {
			break
		}
		fs := strings.Fields(line)
		switch {
		case len(fs) == 1 && looksLikePath(fs[0]):
			paths++
		case len(fs) >= 2 && tiLine(fs):
			actions++
		default:
			return false
		}
	}
	return lines > 0 && (actions == 0 || paths == 0) && (actions > 0 || paths > 0)
}

func tiLine(fs []string) bool {
	if _, ok := parseRank(fs[0]); !ok {
		return false
	}
	action := strings.ToLower(fs[1])
	if !sniffActions[action] {
		return false
	}
	for i, a := range fs[2:] {
		if action == "location" && i == 0 {
			continue
		}
		if _, ok := parseRank(a); ok {
			continue // peers may be actor names (p1)
		}
		if _, err := strconv.ParseFloat(a, 64); err != nil {
			return false
		}
	}
	return true
}

// looksLikePath accepts the names SimGrid's tracer and WriteIndex list:
// path characters only, with a directory or an extension, and not a number.
func looksLikePath(s string) bool {
	if _, err := strconv.ParseFloat(s, 64); err == nil {
		return false
	}
	if !strings.ContainsAny(s, "./") {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("._-/+~:\\", c) >= 0) {
			return false
		}
	}
	return true
}
