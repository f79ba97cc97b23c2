// Package dimemas reads Dimemas traces (.dim), the text traces BSC's
// Dimemas simulator replays (prv2dim writes them from Paraver traces).
//
// A .dim is a header "#DIMEMAS:"name":offsets:tasks(threads,...),comms",
// definitions ("d:1:id:n:task...", communicators), per-thread offsets
// ("s:task:offset..."), then records "op:task:thread:fields": 1 CPU burst
// (seconds), 2 send, 3 receive (recv, irecv, wait), 10 global operation,
// 20 event, 0 no-op. The trace has no timestamps: it is untimed, like a
// SimGrid TI trace (docs/formats.md).
package dimemas

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/tracefmt/paraver"
)

// Sniff reports whether head starts with a Dimemas header.
func Sniff(head []byte) bool { return bytes.HasPrefix(head, []byte("#DIMEMAS:")) }

// maxRanks bounds the tasks a header may declare.
const maxRanks = 1 << 24

// reader holds the state of one read.
type reader struct {
	name       string
	line       int
	ranks      int
	headerLine int // of the #DIMEMAS header, which gives the world
	b          *tracefmt.Builder
	comms      map[int64]uint16
	// irecvs holds per task the posted receives a wait (receive type 2)
	// completes: by source, tag and communicator, oldest first.
	irecvs  []map[[3]int64][]int64
	nextReq []int64
	roots   map[tracefmt.EventRef]bool
	states  map[[2]int64]tracefmt.StateID
	open    []map[int64]tracefmt.StateID
	markers map[int64]tracefmt.MarkerID
}

func (rd *reader) errorf(format string, args ...any) error {
	return fmt.Errorf("%s:%d: %s", rd.name, rd.line, fmt.Sprintf(format, args...))
}

// Read parses the .dim in r; name (the file's) prefixes errors.
func Read(name string, r io.Reader) (*tracefmt.Trace, error) {
	rd := &reader{name: name, comms: map[int64]uint16{}, roots: map[tracefmt.EventRef]bool{},
		states: map[[2]int64]tracefmt.StateID{}, markers: map[int64]tracefmt.MarkerID{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 64<<20)
	for sc.Scan() {
		rd.line++
		s := strings.TrimRight(sc.Text(), "\r")
		if rd.b == nil {
			if err := rd.header(s); err != nil {
				return nil, err
			}
			continue
		}
		if strings.TrimSpace(s) == "" {
			continue
		}
		if err := rd.record(s); err != nil {
			return nil, err
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s:%d: %w", name, rd.line+1, err)
	}
	if rd.b == nil {
		rd.line = 1 // a file's first line, though it has none
		return nil, rd.errorf("empty file: expected the #DIMEMAS header")
	}
	if err := tracefmt.CheckBuilt(rd.b.Trace(), rd.ranks); err != nil {
		return nil, fmt.Errorf("%s:%d: the header's %d tasks: %w", name, rd.headerLine, rd.ranks, err)
	}
	t, err := rd.b.Finish()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	setRoots(t, rd.roots)
	return t, nil
}

// header parses `#DIMEMAS:"name":offsets:tasks(threads,...),comms[,...]`
// (the name unquoted in old traces).
func (rd *reader) header(s string) error {
	rest, ok := strings.CutPrefix(s, "#DIMEMAS:")
	if !ok {
		return rd.errorf("expected a header starting #DIMEMAS:, got %q", clip(s))
	}
	var name string
	if strings.HasPrefix(rest, `"`) {
		end := strings.Index(rest[1:], `"`)
		if end < 0 {
			return rd.errorf("expected the trace's name in quotes, got %q", clip(rest))
		}
		name, rest = rest[1:end+1], rest[end+2:]
	} else {
		name, rest, _ = strings.Cut(rest, ":")
		rest = ":" + rest
	}
	rest, ok = strings.CutPrefix(rest, ":")
	if !ok {
		return rd.errorf("expected :offsets: after the name, got %q", clip(rest))
	}
	_, app, ok := strings.Cut(rest, ":")
	open, end := strings.IndexByte(app, '('), strings.IndexByte(app, ')')
	if !ok || open < 0 || end < open {
		return rd.errorf("expected tasks(threads,...),communicators after the offsets, got %q", clip(rest))
	}
	n, err := strconv.Atoi(app[:open])
	if err != nil || n < 1 || n > maxRanks {
		return rd.errorf("expected the number of tasks (1..%d), got %q", maxRanks, app[:open])
	}
	if th := strings.Split(app[open+1:end], ","); len(th) != n {
		return rd.errorf("header declares %d tasks but lists %d thread counts", n, len(th))
	}
	rd.ranks, rd.headerLine = n, rd.line
	rd.b = tracefmt.NewLazyBuilder(n, false, tracefmt.Second)
	t := rd.b.Trace()
	t.Format = "dimemas"
	if name != "" {
		t.SetAttr("dimemas.name", name)
	}
	rd.irecvs = make([]map[[3]int64][]int64, n)
	rd.nextReq = make([]int64, n)
	rd.open = make([]map[int64]tracefmt.StateID, n)
	return nil
}

// clip shortens a quoted input in an error.
func clip(s string) string {
	if len(s) > 60 {
		return s[:60] + "…"
	}
	return s
}

// ints parses colon-separated integers, naming each in errors.
func (rd *reader) ints(f []string, names ...string) ([]int64, error) {
	if len(f) != len(names) {
		return nil, rd.errorf("expected %d fields (%s), got %d", len(names), strings.Join(names, ":"), len(f))
	}
	out := make([]int64, len(f))
	for i, s := range f {
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return nil, rd.errorf("expected %s as an integer, got %q", names[i], s)
		}
		out[i] = v
	}
	return out, nil
}

func (rd *reader) record(s string) error {
	f := strings.Split(s, ":")
	switch f[0] {
	case "d":
		return rd.definition(f[1:])
	case "s":
		return nil // offsets of each thread's records: not needed reading in order
	}
	if len(f) < 3 {
		return rd.errorf("expected a record op:task:thread:..., a d: definition or s: offsets, got %q", clip(s))
	}
	head, err := rd.ints(f[:3], "record type", "task", "thread")
	if err != nil {
		return err
	}
	task, thread := head[1], head[2]
	if task < 0 || task >= int64(rd.ranks) {
		return rd.errorf("task %d outside 0..%d", task, rd.ranks-1)
	}
	if thread < 0 {
		return rd.errorf("thread %d is negative", thread)
	}
	r := int(task)
	args := f[3:]
	switch head[0] {
	case 0:
		return nil
	case 1, 11:
		if len(args) != 1 {
			return rd.errorf("expected the burst's duration in seconds after %s:%d:%d, got %q", f[0], task, thread, strings.Join(args, ":"))
		}
		d, err := strconv.ParseFloat(args[0], 64)
		if err != nil || d < 0 || math.IsInf(d, 0) || math.IsNaN(d) {
			return rd.errorf("expected a duration in seconds (≥ 0), got %q", args[0])
		}
		return rd.add(r, tracefmt.ComputeTime(0, d))
	case 2:
		return rd.send(r, args)
	case 3:
		return rd.recv(r, args)
	case 10:
		return rd.globalOp(r, args)
	case 20:
		v, err := rd.ints(args, "event type", "event value")
		if err != nil {
			return err
		}
		return rd.event(r, v[0], v[1])
	}
	return rd.errorf("expected a record type 0, 1, 2, 3, 10, 11 or 20, got %d", head[0])
}

func (rd *reader) add(r int, e tracefmt.Event) error {
	_, err := rd.addAt(r, e)
	return err
}

func (rd *reader) addAt(r int, e tracefmt.Event) (int, error) {
	i, err := rd.b.Add(r, e)
	if err != nil {
		return 0, rd.errorf("%v", err)
	}
	return i, nil
}

// definition parses "1:id:n:task..." (a communicator; other objects are
// skipped). The first communicator of every task in order is
// MPI_COMM_WORLD.
func (rd *reader) definition(f []string) error {
	if len(f) == 0 || f[0] != "1" {
		return nil
	}
	if len(f) < 3 {
		return rd.errorf("expected d:1:id:tasks:task..., got %q", "d:"+strings.Join(f, ":"))
	}
	v, err := rd.ints(f[1:3], "communicator id", "communicator size")
	if err != nil {
		return err
	}
	id, n := v[0], v[1]
	if n < 0 || n != int64(len(f)-3) {
		return rd.errorf("communicator %d declares %d tasks but lists %d", id, n, len(f)-3)
	}
	if _, dup := rd.comms[id]; dup {
		return rd.errorf("communicator %d defined twice", id)
	}
	if id != int64(int32(id)) {
		return rd.errorf("communicator id %d outside 32 bits", id)
	}
	members := make([]int32, 0, n)
	identity := n == int64(rd.ranks)
	for i, s := range f[3:] {
		m, err := strconv.Atoi(s)
		if err != nil || m < 0 || m >= rd.ranks {
			return rd.errorf("communicator %d: expected a task of 0..%d, got %q", id, rd.ranks-1, s)
		}
		identity = identity && m == i
		members = append(members, int32(m))
	}
	t := rd.b.Trace()
	if identity && len(rd.comms) == 0 {
		t.Comms[0].ID = int32(id)
		rd.comms[id] = 0
		return nil
	}
	ci, err := rd.b.AddComm(tracefmt.Comm{Name: "comm " + strconv.FormatInt(id, 10), ID: int32(id), Ranks: members})
	if err != nil {
		return rd.errorf("%v", err)
	}
	rd.comms[id] = ci
	return nil
}

// peerFields splits a send's or receive's fields: peer[:thread]:size:tag:comm:last.
func (rd *reader) peerFields(args []string, what string) (peer, size, tag, comm, last int64, err error) {
	names := []string{what, "size", "tag", "communicator", map[string]string{"destination": "synchronism", "source": "receive type"}[what]}
	if len(args) == 6 {
		args = append(args[:1:1], args[2:]...) // drop the thread
	}
	v, err := rd.ints(args, names...)
	if err != nil {
		return 0, 0, 0, 0, 0, err
	}
	peer, size, tag, comm, last = v[0], v[1], v[2], v[3], v[4]
	switch {
	case peer < 0 || peer >= int64(rd.ranks):
		err = rd.errorf("%s task %d outside 0..%d", what, peer, rd.ranks-1)
	case size < 0:
		err = rd.errorf("negative message size %d", size)
	case tag != int64(int32(tag)):
		err = rd.errorf("tag %d outside 32 bits", tag)
	}
	return
}

// send: synchronism bit 0 is a rendezvous (synchronous) send, bit 1 an
// immediate one (its completion is not recorded: an eager send here).
func (rd *reader) send(r int, args []string) error {
	peer, size, tag, comm, sync, err := rd.peerFields(args, "destination")
	if err != nil {
		return err
	}
	e := tracefmt.Send(0, int(peer), int32(tag), rd.comms[comm], size)
	if sync&1 != 0 {
		e.Flags |= tracefmt.FlagSync
	}
	return rd.add(r, e)
}

// recv: type 0 a blocking receive, 1 a posted receive, 2 the wait for
// the oldest posted receive of the same source, tag and communicator, 3 a
// wait for every posted receive.
func (rd *reader) recv(r int, args []string) error {
	peer, size, tag, comm, typ, err := rd.peerFields(args, "source")
	if err != nil {
		return err
	}
	e := tracefmt.Recv(0, int(peer), int32(tag), rd.comms[comm], size)
	key := [3]int64{peer, tag, comm}
	switch typ {
	case 0:
		return rd.add(r, e)
	case 1:
		rd.nextReq[r]++
		req := rd.nextReq[r]
		e.Flags |= tracefmt.FlagNonBlocking
		e.SetRequest(req)
		if rd.irecvs[r] == nil {
			rd.irecvs[r] = map[[3]int64][]int64{}
		}
		rd.irecvs[r][key] = append(rd.irecvs[r][key], req)
		return rd.add(r, e)
	case 2:
		q := rd.irecvs[r][key]
		if len(q) == 0 {
			return rd.errorf("wait for a receive from task %d with tag %d on communicator %d, which no receive type 1 above posted", peer, tag, comm)
		}
		rd.irecvs[r][key] = q[1:]
		return rd.add(r, tracefmt.Wait(0, q[0]))
	case 3:
		clear(rd.irecvs[r])
		return rd.add(r, tracefmt.WaitAll(0))
	}
	return rd.errorf("expected a receive type 0 (recv), 1 (irecv), 2 (wait) or 3 (waitall), got %d", typ)
}

// globalOp: op:comm:is_root:root_thread:sent:received[:synchronism].
func (rd *reader) globalOp(r int, args []string) error {
	names := []string{"operation", "communicator", "root flag", "root thread", "bytes sent", "bytes received", "synchronism"}
	if len(args) == 6 {
		names = names[:6]
	}
	v, err := rd.ints(args, names...)
	if err != nil {
		return err
	}
	ci, ok := rd.comms[v[1]]
	if !ok {
		return rd.errorf("communicator %d not defined by a d:1 line above", v[1])
	}
	if v[4] < 0 || v[5] < 0 {
		return rd.errorf("negative collective sizes %d, %d", v[4], v[5])
	}
	i, err := rd.addAt(r, tracefmt.Collective(0, paraver.GlobalOp(v[0]), -1, ci, v[4], v[5]))
	if err == nil && v[2] == 1 {
		rd.roots[tracefmt.EventRef{Rank: int32(r), Index: int32(i)}] = true
	}
	return err
}

// event: Extrae's MPI call types (50000000–50999999) enter a state (the
// MPI call Extrae numbers so, else "event T value V") on a non-zero value
// and leave the type's open state on 0; other
// types are markers with the value as their text.
func (rd *reader) event(r int, typ, value int64) error {
	if typ/1000000 != 50 && typ != 0 {
		id, ok := rd.markers[typ]
		if !ok {
			id = rd.b.Marker("event " + strconv.FormatInt(typ, 10))
			rd.markers[typ] = id
		}
		e := tracefmt.Mark(0, id)
		e.SetTextRef(rd.b.Text(strconv.FormatInt(value, 10)))
		return rd.add(r, e)
	}
	if rd.open[r] == nil {
		rd.open[r] = map[int64]tracefmt.StateID{}
	}
	if s, ok := rd.open[r][typ]; ok {
		delete(rd.open[r], typ)
		if err := rd.add(r, tracefmt.Leave(0, s)); err != nil {
			return err
		}
	}
	if value == 0 {
		return nil
	}
	k := [2]int64{typ, value}
	s, ok := rd.states[k]
	if !ok {
		name := paraver.ExtraeMPIName(typ, value)
		if name == "" {
			name = fmt.Sprintf("event %d value %d", typ, value)
		}
		s = rd.b.State(name)
		rd.states[k] = s
	}
	rd.open[r][typ] = s
	return rd.add(r, tracefmt.Enter(0, s))
}

// setRoots gives every member's collective of an instance (the k-th
// collective of each member on the communicator) the root whose record
// flags it.
func setRoots(t *tracefmt.Trace, flagged map[tracefmt.EventRef]bool) {
	if len(flagged) == 0 {
		return
	}
	byComm := make([]map[int][]int32, len(t.Comms))
	for r := range t.Ranks {
		for i, e := range t.Ranks[r].Events {
			if e.Kind == tracefmt.KindCollective {
				if byComm[e.Comm] == nil {
					byComm[e.Comm] = map[int][]int32{}
				}
				byComm[e.Comm][r] = append(byComm[e.Comm][r], int32(i))
			}
		}
	}
	for ci, m := range byComm {
		members := t.Comms[ci].Ranks
		if members == nil {
			members = make([]int32, len(t.Ranks))
			for i := range members {
				members[i] = int32(i)
			}
		}
		for k := 0; m != nil; k++ {
			var inst []tracefmt.EventRef
			root := -1
			for _, w := range members {
				if k < len(m[int(w)]) {
					ref := tracefmt.EventRef{Rank: w, Index: m[int(w)][k]}
					inst = append(inst, ref)
					if flagged[ref] {
						root = int(w)
					}
				}
			}
			if len(inst) == 0 {
				break
			}
			for _, ref := range inst {
				if e := t.Event(ref); e.Op().Rooted() {
					e.Peer = int32(root)
				}
			}
		}
	}
}
