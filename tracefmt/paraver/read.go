package paraver

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/tracesim/tracesim/tracefmt"
)

// Opener opens a file that sits beside the trace (its .pcf or .row), by
// base name.
type Opener func(name string) (io.ReadCloser, error)

// DirOpener opens the files beside a trace in dir.
func DirOpener(dir string) Opener {
	return func(name string) (io.ReadCloser, error) { return os.Open(filepath.Join(dir, name)) }
}

// Sniff reports whether head starts like a .prv.
func Sniff(head []byte) bool { return bytes.HasPrefix(head, []byte("#Paraver ")) }

// Source ids of the states and markers this package defines: End says
// which record they come from, so that the writer puts them back there.
const (
	fromState = 1 // a state record's value (Source.ID)
	fromEvent = 2 // an event type (Source.Start) and value (Source.ID)
)

// Attribute keys a trace read from Paraver carries.
const (
	AttrDate      = "paraver.date"
	AttrTaskNames = "paraver.task_names"
	// attrTypePrefix + type names an event type whose values are states.
	attrTypePrefix = "paraver.event_type."
)

// Read parses the .prv in r, named path, with the .pcf and .row beside it
// when open finds them (a nil open reads none).
func Read(path string, r io.Reader, open Opener) (*tracefmt.Trace, error) {
	name := filepath.Base(path)
	base := strings.TrimSuffix(name, filepath.Ext(name))
	p := newPCF()
	var taskNames []string
	if open != nil {
		err := sideFile(open, base+".pcf", func(name string, r io.Reader) (err error) {
			p, err = readPCF(name, r)
			return err
		})
		if err == nil {
			err = sideFile(open, base+".row", func(name string, r io.Reader) (err error) {
				taskNames, err = readRow(name, r)
				return err
			})
		}
		if err != nil {
			return nil, err
		}
	}
	rd := &reader{name: name, pcf: p}
	return rd.read(r, taskNames)
}

// sideFile reads the file beside the trace named name with read, when
// it exists.
func sideFile(open Opener, name string, read func(string, io.Reader) error) error {
	f, err := open(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	return read(name, f)
}

// readRow returns the task names of a .row ("LEVEL TASK SIZE n" and n
// names), or none.
func readRow(name string, r io.Reader) ([]string, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 16<<20)
	var names []string
	want, line := 0, 0
	inTask := false
	for sc.Scan() {
		line++
		s := strings.TrimSpace(sc.Text())
		if f := strings.Fields(s); len(f) == 4 && f[0] == "LEVEL" && f[2] == "SIZE" {
			n, err := strconv.Atoi(f[3])
			if err != nil || n < 0 {
				return nil, fmt.Errorf("%s:%d: expected LEVEL name SIZE n, got %q", name, line, s)
			}
			inTask, want = f[1] == "TASK", n
			continue
		}
		if inTask && want > 0 && s != "" {
			names = append(names, s)
			want--
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s:%d: %w", name, line+1, err)
	}
	return names, nil
}

// reader holds the state of one read.
type reader struct {
	name string
	pcf  *pcf
	h    *header
	b    *tracefmt.Builder
	line int
	// ranks holds per rank the events waiting for their time (state
	// leaves, receives) and the open state of each event type.
	ranks []rankState
	// states and markers map a record's identity to its definition.
	states  map[stateKey]tracefmt.StateID
	markers map[stateKey]tracefmt.MarkerID
	names   map[string]stateKey
	comms   map[int64]uint16
	// roots are the collectives whose record flags their rank as root.
	roots []tracefmt.EventRef
	// messages pairs each receive with the send of its record (see
	// pairAsRecorded).
	messages []recordedMessage
	seq      int64
	// batchBytes is the size of the body's batches, batchBytes when 0.
	batchBytes int
	// texts caches the text index of a marker's value, sparing the
	// formatting and string hashing of Builder.Text on every marker.
	texts map[int64]int
}

// text returns the index of a marker value's text in Trace.Texts.
func (rd *reader) text(value int64) int {
	if i, ok := rd.texts[value]; ok {
		return i
	}
	if rd.texts == nil {
		rd.texts = map[int64]int{}
	}
	i := rd.b.Text(strconv.FormatInt(value, 10))
	rd.texts[value] = i
	return i
}

// stateKey identifies a state or marker: the record it comes from, the
// event type (0 for state records), the value and the thread.
type stateKey struct {
	from   int32
	typ    int32
	value  int64
	thread int32
}

type rankState struct {
	pending pendingHeap
	open    map[[2]int32]tracefmt.StateID
	// nested are the open calls of each Extrae MPI type, innermost last.
	nested map[[2]int32][]tracefmt.StateID
	// times are the rank's physical sends and logical receives that
	// differ from the events' times (the calls, the arrivals), in stream
	// order: each is kept as its event gets its index.
	times []tracefmt.MessageTime
}

// keepTime keeps a MessageTime of event i of rank r (delta ≠ 0).
func (rd *reader) keepTime(r, i int, delta float64) {
	rs := &rd.ranks[r]
	rs.times = append(rs.times, tracefmt.MessageTime{Event: tracefmt.EventRef{Rank: int32(r), Index: int32(i)}, Delta: delta})
}

// pendingEvent is an event added once the rank's records reach its time.
type pendingEvent struct {
	seq int64
	ev  tracefmt.Event
	// delta is the event's MessageTime delta (a receive's posting
	// before its arrival), kept once the event has its index.
	delta float64
	// send is, for a receive, the index of its send in the sender's
	// (ev.Peer's) stream.
	send int32
}

// recordedMessage is a send and a receive that one communication record
// pairs.
type recordedMessage struct {
	send, recv tracefmt.EventRef
}

// pendingHeap is a min-heap by time, then arrival (typed, so that a push
// allocates nothing).
type pendingHeap []pendingEvent

func (h pendingHeap) less(i, j int) bool {
	if h[i].ev.Time != h[j].ev.Time {
		return h[i].ev.Time < h[j].ev.Time
	}
	return h[i].seq < h[j].seq
}

func (h *pendingHeap) push(p pendingEvent) {
	*h = append(*h, p)
	q := *h
	for i := len(q) - 1; i > 0; {
		parent := (i - 1) / 2
		if !q.less(i, parent) {
			break
		}
		q[i], q[parent] = q[parent], q[i]
		i = parent
	}
}

func (h *pendingHeap) pop() pendingEvent {
	q := *h
	top := q[0]
	last := len(q) - 1
	q[0] = q[last]
	q = q[:last]
	for i := 0; ; {
		l, m := 2*i+1, i
		if l < len(q) && q.less(l, m) {
			m = l
		}
		if r := l + 1; r < len(q) && q.less(r, m) {
			m = r
		}
		if m == i {
			break
		}
		q[i], q[m] = q[m], q[i]
		i = m
	}
	*h = q
	return top
}

func (rd *reader) errorf(format string, args ...any) error {
	return fmt.Errorf("%s:%d: %s", rd.name, rd.line, fmt.Sprintf(format, args...))
}

func (rd *reader) read(r io.Reader, taskNames []string) (*tracefmt.Trace, error) {
	return rd.readWith(r, taskNames, rd.body)
}

// readWith reads a .prv whose body (the lines after the header) body
// reads.
func (rd *reader) readWith(r io.Reader, taskNames []string, body func(*bufio.Reader) error) (*tracefmt.Trace, error) {
	br := bufio.NewReaderSize(r, 256*1024)
	first, err := readLine(br)
	rd.line = 1
	if err != nil && (err != io.EOF || len(first) == 0) {
		if err == io.EOF {
			return nil, rd.errorf("expected the #Paraver header, got an empty file")
		}
		return nil, rd.errorf("%v", err)
	}
	if rd.h, err = parseHeader(string(first)); err != nil {
		return nil, rd.errorf("%v", err)
	}
	n := rd.h.ranks()
	rd.b = tracefmt.NewLazyBuilder(n, true, rd.h.unit)
	t := rd.b.Trace()
	t.Format = "paraver"
	if rd.h.date != "" {
		t.SetAttr(AttrDate, rd.h.date)
	}
	if len(taskNames) == n {
		t.SetAttr(AttrTaskNames, strings.Join(taskNames, "|"))
	}
	rd.ranks = make([]rankState, 0, min(n, 1<<16))
	rd.states = map[stateKey]tracefmt.StateID{}
	rd.markers = map[stateKey]tracefmt.MarkerID{}
	rd.names = map[string]stateKey{}
	rd.comms = map[int64]uint16{}
	rd.definePCF()
	if err := body(br); err != nil {
		return nil, err
	}
	for r := range rd.ranks {
		if err := rd.flush(r, 0, true); err != nil {
			return nil, err
		}
	}
	if err := tracefmt.CheckBuilt(t, n); err != nil {
		// The header's task count made the world.
		return nil, fmt.Errorf("%s:1: the header's %d tasks: %w", rd.name, n, err)
	}
	// Every message is paired as its record names it (pairAsRecorded),
	// not first with first.
	rd.b.SkipMessageMatching()
	tr, err := rd.b.Finish()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", rd.name, err)
	}
	pairAsRecorded(tr, rd.messages)
	rd.messages = nil
	setRoots(tr, rd.roots)
	// Rank by rank in stream order: sorted as SetMessageTimes wants.
	kept := 0
	for r := range rd.ranks {
		kept += len(rd.ranks[r].times)
	}
	if kept > 0 {
		all := make([]tracefmt.MessageTime, 0, kept)
		for r := range rd.ranks {
			all = append(all, rd.ranks[r].times...)
			rd.ranks[r].times = nil
		}
		tr.SetMessageTimes(all)
	}
	return tr, nil
}

// readLine returns the next line without its end, however long.
func readLine(br *bufio.Reader) ([]byte, error) {
	line, err := br.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		buf := append([]byte(nil), line...)
		for err == bufio.ErrBufferFull {
			line, err = br.ReadSlice('\n')
			buf = append(buf, line...)
		}
		line = buf
	}
	for len(line) > 0 && (line[len(line)-1] == '\n' || line[len(line)-1] == '\r') {
		line = line[:len(line)-1]
	}
	return line, err
}

// definePCF defines the states of the .pcf up front, so that a writer
// puts every one of them back (also those no record uses).
func (rd *reader) definePCF() {
	for _, v := range sortedKeys(rd.pcf.states) {
		rd.state(stateKey{from: fromState, value: int64(v), thread: 1})
	}
	for _, ty := range sortedKeys(rd.pcf.types) {
		if !rd.stateType(ty) {
			continue
		}
		et := rd.pcf.types[ty]
		if et.name != "" {
			rd.b.Trace().SetAttr(attrTypePrefix+strconv.Itoa(int(ty)), et.name)
		}
		for _, v := range sortedKeys(et.values) {
			if v != 0 && v == int64(int32(v)) {
				rd.state(stateKey{from: fromEvent, typ: ty, value: v, thread: 1})
			}
		}
	}
}

// stateType reports whether values of event type ty enter states: the
// .pcf gives it a value 0 (the end), or it is one of Extrae's MPI types.
func (rd *reader) stateType(ty int32) bool {
	if ty/1000000 == 50 {
		return true
	}
	et := rd.pcf.types[ty]
	if et == nil {
		return false
	}
	_, ok := et.values[0]
	return ok
}

// state returns the state of a key, defining it on first use.
func (rd *reader) state(k stateKey) tracefmt.StateID {
	if id, ok := rd.states[k]; ok {
		return id
	}
	var name string
	var d tracefmt.StateDef
	if k.from == fromState {
		name = rd.pcf.states[int32(k.value)]
		if name == "" {
			name = "State " + strconv.FormatInt(k.value, 10)
		}
		d.Color = rd.pcf.colors[int32(k.value)]
		d.Category = tracefmt.CatOther
		if k.value == 1 {
			d.Category = tracefmt.CatCompute // Paraver's "Running"
		}
		d.Source = tracefmt.SourceIDs{ID: int32(k.value), End: fromState}
	} else {
		if et := rd.pcf.types[k.typ]; et != nil {
			if v, ok := et.values[k.value]; ok && genericValue(v) && et.name != "" {
				// A begin/end flag ("Application", "Flushing
				// Traces"): its type names it.
				name = et.name
			} else if ok {
				name = v
			}
		}
		if name == "" {
			name = ExtraeMPIName(int64(k.typ), k.value)
		}
		if name == "" {
			name = fmt.Sprintf("event %d value %d", k.typ, k.value)
		}
		d.Category = tracefmt.CategoryOf(name)
		if d.Category == tracefmt.CatOther && k.typ/1000000 != 50 {
			d.Category = tracefmt.CatUser
		}
		d.Source = tracefmt.SourceIDs{ID: int32(k.value), Start: k.typ, End: fromEvent}
	}
	d.Name = rd.unique(name, k)
	id := rd.b.DefineState(d)
	rd.states[k] = id
	return id
}

// genericValue reports whether a value's name says only that something
// begins, so that its type's name names the state better.
func genericValue(name string) bool {
	switch strings.ToLower(name) {
	case "", "begin", "start", "enabled", "on":
		return true
	}
	return false
}

// unique makes a state or marker name distinct from those of other keys.
func (rd *reader) unique(name string, k stateKey) string {
	if k.thread > 1 {
		name += fmt.Sprintf(" (thread %d)", k.thread)
	}
	if o, ok := rd.names[name]; ok && o != k {
		name += fmt.Sprintf(" [%d:%d]", k.typ, k.value)
	}
	rd.names[name] = k
	return name
}

// marker returns the marker of an event type.
func (rd *reader) marker(ty int32, thread int32) tracefmt.MarkerID {
	k := stateKey{from: fromEvent, typ: ty, thread: thread}
	if id, ok := rd.markers[k]; ok {
		return id
	}
	name := "event " + strconv.Itoa(int(ty))
	if et := rd.pcf.types[ty]; et != nil && et.name != "" {
		name = et.name
	}
	k2 := k
	k2.from = 3 // markers' names are apart from states'
	id := rd.b.DefineMarker(tracefmt.MarkerDef{Name: rd.unique(name, k2), Source: tracefmt.SourceIDs{Start: ty, End: fromEvent}})
	rd.markers[k] = id
	return id
}

// fields is a cursor over a record's colon-separated integers.
type fields struct {
	s   []byte
	pos int
	n   int // fields read
}

func (f *fields) more() bool { return f.pos < len(f.s) }

func (f *fields) int() (int64, bool) {
	i := f.pos
	neg := false
	if i < len(f.s) && f.s[i] == '-' {
		neg = true
		i++
	}
	start := i
	var v int64
	for i < len(f.s) && f.s[i] >= '0' && f.s[i] <= '9' {
		if v > (1<<63-1)/10 {
			return 0, false
		}
		v = v*10 + int64(f.s[i]-'0')
		i++
	}
	if i == start || v < 0 || (i < len(f.s) && f.s[i] != ':') {
		return 0, false
	}
	if i < len(f.s) {
		i++
	}
	f.pos = i
	f.n++
	if neg {
		v = -v
	}
	return v, true
}

// recordNames names the fields of each record type, for errors.
var recordNames = [256][]string{
	'1': {"cpu", "application", "task", "thread", "begin time", "end time", "state"},
	'2': {"cpu", "application", "task", "thread", "time", "event type", "event value"},
	'3': {"cpu", "application", "task", "thread", "logical send time", "physical send time",
		"receiver cpu", "receiver application", "receiver task", "receiver thread",
		"logical receive time", "physical receive time", "size", "tag"},
	'4': {"cpu", "application", "task", "thread", "time", "communicator", "bytes sent", "bytes received", "operation"},
}

// record parses one line of the body.
func (rd *reader) record(line []byte) error {
	switch {
	case line[0] == '#':
		return nil
	case line[0] == 'c' && len(line) > 1 && line[1] == ':':
		return rd.comm(line[2:])
	case len(line) < 2 || line[1] != ':' || recordNames[line[0]] == nil:
		return rd.errorf("expected a record 1: (state), 2: (event), 3: (communication), 4: (global operation) or c: (communicator), got %q", clip(string(line)))
	}
	names := recordNames[line[0]]
	f := &fields{s: line[2:]}
	var v [14]int64
	for i, name := range names {
		x, ok := f.int()
		if !ok {
			if line[0] == '2' && i > 4 && i == len(names)-1 {
				return rd.errorf("expected an event value after type %d, got %q", v[5], clip(string(line)))
			}
			return rd.errorf("record %c: expected field %d (%s) as an integer, got %q", line[0], i+1, name, clip(string(line)))
		}
		v[i] = x
	}
	return rd.parsed(line[0], v[:], f)
}

// parsed handles a record of type kind whose fixed fields (recordNames)
// are v, with f at the fields after them.
func (rd *reader) parsed(kind byte, v []int64, f *fields) error {
	rank, thread, err := rd.who(v[1], v[2], v[3])
	if err != nil {
		return err
	}
	switch kind {
	case '1':
		return rd.stateRecord(rank, thread, v[4], v[5], v[6], f)
	case '2':
		return rd.eventRecord(rank, thread, v[4], v[5], v[6], f)
	case '3':
		return rd.commRecord(rank, v, f)
	default:
		return rd.globalRecord(rank, v, f)
	}
}

// who returns the rank and thread of an application, task and thread.
func (rd *reader) who(appl, task, thread int64) (int, int32, error) {
	if appl < 1 || appl > int64(len(rd.h.apps)) {
		return 0, 0, rd.errorf("application %d outside the header's 1..%d", appl, len(rd.h.apps))
	}
	a := &rd.h.apps[appl-1]
	if task < 1 || task > int64(len(a.threads)) {
		return 0, 0, rd.errorf("task %d outside application %d's 1..%d", task, appl, len(a.threads))
	}
	if thread < 1 || thread > int64(a.threads[task-1]) {
		return 0, 0, rd.errorf("thread %d outside task %d's 1..%d", thread, task, a.threads[task-1])
	}
	r := a.first + int(task) - 1
	for len(rd.ranks) <= r {
		rd.ranks = append(rd.ranks, rankState{})
	}
	return r, int32(thread), nil
}

// flush adds rank r's pending events up to time t (all of them when all).
func (rd *reader) flush(r int, t float64, all bool) error {
	h := &rd.ranks[r].pending
	for len(*h) > 0 && (all || (*h)[0].ev.Time <= t) {
		p := h.pop()
		i, err := rd.b.Add(r, p.ev)
		if err != nil {
			return rd.errorf("%v", err)
		}
		if p.delta != 0 {
			rd.keepTime(r, i, p.delta)
		}
		if p.ev.Kind == tracefmt.KindRecv {
			rd.messages = append(rd.messages, recordedMessage{
				send: tracefmt.EventRef{Rank: p.ev.Peer, Index: p.send},
				recv: tracefmt.EventRef{Rank: int32(r), Index: int32(i)},
			})
		}
	}
	return nil
}

// add adds an event at its time, after the rank's pending events due by
// then.
func (rd *reader) add(r int, e tracefmt.Event) (int, error) {
	if err := rd.flush(r, e.Time, false); err != nil {
		return 0, err
	}
	i, err := rd.b.Add(r, e)
	if err != nil {
		return 0, rd.errorf("%v", err)
	}
	return i, nil
}

// later queues an event of rank r for when the rank's records reach its
// time.
func (rd *reader) later(r int, e tracefmt.Event) {
	rd.laterDelta(r, e, 0)
}

// laterDelta is later for a receive posted delta (≤ 0) from its arrival.
func (rd *reader) laterDelta(r int, e tracefmt.Event, delta float64) {
	rd.laterRecv(r, e, delta, -1)
}

// laterRecv is laterDelta for a receive whose send is event send of its
// source.
func (rd *reader) laterRecv(r int, e tracefmt.Event, delta float64, send int) {
	rd.seq++
	rd.ranks[r].pending.push(pendingEvent{seq: rd.seq, ev: e, delta: delta, send: int32(send)})
}

func (rd *reader) trailing(f *fields, what string) error {
	if f.more() {
		return rd.errorf("expected the end of the %s record, got %q", what, clip(string(f.s[f.pos:])))
	}
	return nil
}

func (rd *reader) stateRecord(r int, thread int32, begin, end, value int64, f *fields) error {
	if err := rd.trailing(f, "state"); err != nil {
		return err
	}
	if end == -1 {
		end = max(begin, rd.h.ftime)
	}
	if begin < 0 || end < begin {
		return rd.errorf("state from %d to %d: expected 0 ≤ begin ≤ end", begin, end)
	}
	if value < 0 || value > 1<<31-1 {
		return rd.errorf("state value %d outside 0..2^31-1", value)
	}
	if begin == end {
		return nil // Paraver shows nothing of an empty state either
	}
	s := rd.state(stateKey{from: fromState, value: value, thread: thread})
	if _, err := rd.add(r, tracefmt.Enter(float64(begin), s)); err != nil {
		return err
	}
	rd.later(r, tracefmt.Leave(float64(end), s))
	return nil
}

func (rd *reader) eventRecord(r int, thread int32, t, ty, value int64, f *fields) error {
	for {
		if ty < 0 || ty > 1<<31-1 {
			return rd.errorf("event type %d outside 0..2^31-1", ty)
		}
		if err := rd.event(r, thread, float64(t), int32(ty), value); err != nil {
			return err
		}
		if !f.more() {
			return nil
		}
		var ok bool
		if ty, ok = f.int(); !ok {
			return rd.errorf("expected an event type after value %d, got %q", value, clip(string(f.s[f.pos:])))
		}
		if value, ok = f.int(); !ok {
			return rd.errorf("expected an event value after type %d, got %q", ty, clip(string(f.s[f.pos:])))
		}
	}
}

// event handles one type:value pair. Values of a state type enter the
// value's state, leaving the type's state open on the thread; 0 leaves
// it. Extrae's MPI types nest instead (see mpiEvent). Other types are
// markers whose text is the value.
func (rd *reader) event(r int, thread int32, t float64, ty int32, value int64) error {
	if !rd.stateType(ty) || value != int64(int32(value)) || value < 0 {
		e := tracefmt.Mark(t, rd.marker(ty, thread))
		e.SetTextRef(rd.text(value))
		_, err := rd.add(r, e)
		return err
	}
	rs := &rd.ranks[r]
	if rs.open == nil {
		rs.open = map[[2]int32]tracefmt.StateID{}
	}
	k := [2]int32{thread, ty}
	if ty/1000000 == 50 {
		return rd.mpiEvent(r, rs, k, t, value)
	}
	if s, ok := rs.open[k]; ok {
		if _, err := rd.add(r, tracefmt.Leave(t, s)); err != nil {
			return err
		}
		delete(rs.open, k)
	}
	if value == 0 {
		return nil
	}
	s := rd.state(stateKey{from: fromEvent, typ: ty, value: value, thread: thread})
	if _, err := rd.add(r, tracefmt.Enter(t, s)); err != nil {
		return err
	}
	rs.open[k] = s
	return nil
}

// mpiEvent handles a value of an Extrae MPI type. Its calls nest: a call
// entered while another of the type is open was made inside it (old
// tracers such as MPITrace intercepted the MPI_Reduce and MPI_Bcast an
// MPI_Allreduce makes, and the MPI_Send and MPI_Recv those make), and 0
// leaves the innermost. A value equal to the innermost call's is that
// call's exit: MPITrace wrote MPI_Reduce's exit so, and reading it as a
// new call would invent an MPI_Reduce that no other rank made.
func (rd *reader) mpiEvent(r int, rs *rankState, k [2]int32, t float64, value int64) error {
	if rs.nested == nil {
		rs.nested = map[[2]int32][]tracefmt.StateID{}
	}
	st := rs.nested[k]
	if n := len(st); n > 0 && (value == 0 || rd.b.Trace().States[st[n-1]].Source.ID == int32(value)) {
		if _, err := rd.add(r, tracefmt.Leave(t, st[n-1])); err != nil {
			return err
		}
		rs.nested[k] = st[:n-1]
		return nil
	}
	if value == 0 {
		return nil
	}
	s := rd.state(stateKey{from: fromEvent, typ: k[1], value: value, thread: k[0]})
	if _, err := rd.add(r, tracefmt.Enter(t, s)); err != nil {
		return err
	}
	rs.nested[k] = append(st, s)
	return nil
}

func (rd *reader) commRecord(r int, v []int64, f *fields) error {
	if err := rd.trailing(f, "communication"); err != nil {
		return err
	}
	to, _, err := rd.who(v[7], v[8], v[9])
	if err != nil {
		return err
	}
	// The send event stands at the call (logical send) and the receive
	// at the arrival (physical receive), where their ranks' states put
	// them; the data's departure and the receive's posting are kept as
	// MessageTimes.
	lsend, psend, lrecv, precv, size, tag := v[4], v[5], v[10], v[11], v[12], v[13]
	if lsend < 0 || psend < 0 || lrecv < 0 || precv < 0 || size < 0 {
		return rd.errorf("communication: expected non-negative times and size")
	}
	if tag != int64(int32(tag)) {
		return rd.errorf("tag %d outside 32 bits", tag)
	}
	i, err := rd.add(r, tracefmt.Send(float64(lsend), to, int32(tag), 0, size))
	if err != nil {
		return err
	}
	if psend != lsend {
		rd.keepTime(r, i, float64(psend-lsend))
	}
	rd.laterRecv(to, tracefmt.Recv(float64(precv), r, int32(tag), 0, size), float64(lrecv-precv), i)
	return nil
}

// pairAsRecorded pairs every message as its communication record says.
// The builder pairs them in MPI's order (the n-th send of a channel with
// its n-th receive), but a record names both ends, and its ends can
// arrive out of that order: the reader keeps no communicator (messages of
// two communicators share a channel here), and a broken trace's clock can
// go back. The record is what the tracer saw.
func pairAsRecorded(t *tracefmt.Trace, messages []recordedMessage) {
	for _, m := range messages {
		t.Event(m.send).Match = m.recv.Index
		t.Event(m.recv).Match = m.send.Index
	}
}

// globalOps are the operation numbers of record 4 (Dimemas' numbering).
var globalOps = []tracefmt.CollOp{
	0: tracefmt.OpBarrier, 1: tracefmt.OpBcast, 2: tracefmt.OpGather, 3: tracefmt.OpGatherv,
	4: tracefmt.OpScatter, 5: tracefmt.OpScatterv, 6: tracefmt.OpAllgather, 7: tracefmt.OpAllgatherv,
	8: tracefmt.OpAlltoall, 9: tracefmt.OpAlltoallv, 10: tracefmt.OpReduce, 11: tracefmt.OpAllreduce,
	12: tracefmt.OpReduceScatter, 13: tracefmt.OpReduceScatter, // reduce-scatter block
	14: tracefmt.OpScan, 15: tracefmt.OpAlltoallv, // alltoallw
}

// GlobalOp returns the operation of a Dimemas global operation number
// (Paraver's record 4 and Dimemas' record 10 share the numbering);
// unknown numbers are "other".
func GlobalOp(id int64) tracefmt.CollOp {
	if id >= 0 && id < int64(len(globalOps)) {
		return globalOps[id]
	}
	return tracefmt.OpOther
}

// globalOpID returns the record-4 number of an operation, or -1.
func globalOpID(op tracefmt.CollOp) int {
	for i, o := range globalOps {
		if o == op {
			return i
		}
	}
	return -1
}

func (rd *reader) globalRecord(r int, v []int64, f *fields) error {
	root := int64(0)
	if f.more() {
		var ok bool
		if root, ok = f.int(); !ok {
			return rd.errorf("expected the root flag after the operation, got %q", clip(string(f.s[f.pos:])))
		}
	}
	if err := rd.trailing(f, "global operation"); err != nil {
		return err
	}
	t, comm, sent, recvd, op := v[4], v[5], v[6], v[7], v[8]
	ci, ok := rd.comms[comm]
	if !ok {
		return rd.errorf("communicator %d not defined by a c: line", comm)
	}
	if t < 0 || sent < 0 || recvd < 0 {
		return rd.errorf("global operation: expected non-negative time and sizes")
	}
	o := tracefmt.OpOther
	if op >= 0 && op < int64(len(globalOps)) {
		o = globalOps[op]
	}
	i, err := rd.add(r, tracefmt.Collective(float64(t), o, -1, ci, sent, recvd))
	if err != nil {
		return err
	}
	if root == 1 {
		rd.roots = append(rd.roots, tracefmt.EventRef{Rank: int32(r), Index: int32(i)})
	}
	return nil
}

// comm parses "appl:id:n:task...:task". The first communicator of every
// task of the first application in order is MPI_COMM_WORLD; a task -1
// (Extrae's MPI_COMM_SELF) gives a communicator without members.
func (rd *reader) comm(s []byte) error {
	f := &fields{s: s}
	appl, ok1 := f.int()
	id, ok2 := f.int()
	n, ok3 := f.int()
	if !ok1 || !ok2 || !ok3 || n < 0 {
		return rd.errorf("expected c:application:id:size:task..., got %q", clip(string(s)))
	}
	if appl < 1 || appl > int64(len(rd.h.apps)) {
		return rd.errorf("application %d outside the header's 1..%d", appl, len(rd.h.apps))
	}
	if _, dup := rd.comms[id]; dup {
		return rd.errorf("communicator %d defined twice", id)
	}
	a := &rd.h.apps[appl-1]
	members := make([]int32, 0, min(n, int64(len(a.threads))))
	identity := appl == 1 && n == int64(rd.h.ranks())
	for i := int64(0); i < n; i++ {
		task, ok := f.int()
		if !ok {
			return rd.errorf("communicator %d: expected %d tasks, got %q", id, n, clip(string(s)))
		}
		if task == -1 {
			continue
		}
		if task < 1 || task > int64(len(a.threads)) {
			return rd.errorf("communicator %d: task %d outside 1..%d", id, task, len(a.threads))
		}
		identity = identity && task == i+1
		members = append(members, int32(a.first)+int32(task)-1)
	}
	if err := rd.trailing(f, "communicator"); err != nil {
		return err
	}
	t := rd.b.Trace()
	if identity && t.Comms[0].ID == 0 && len(rd.comms) == 0 {
		t.Comms[0].ID = int32(id)
		rd.comms[id] = 0
		return nil
	}
	if id != int64(int32(id)) {
		return rd.errorf("communicator id %d outside 32 bits", id)
	}
	ci, err := rd.b.AddComm(tracefmt.Comm{Name: "comm " + strconv.FormatInt(id, 10), ID: int32(id), Ranks: members})
	if err != nil {
		return rd.errorf("%v", err)
	}
	rd.comms[id] = ci
	return nil
}

// setRoots gives each rooted collective its root: the rank whose record
// flags it or, in a file whose flags give no collective a root (old
// traces write 0 throughout), the one member that only sends (broadcast,
// scatter) or only receives (reduce, gather) in the instance. Instances
// are the k-th collective of each member on a communicator. Whether
// roots are inferred depends on the flags that take effect, not on any
// flag: a flag on an unrooted operation (a broken record) is not written
// back, so deciding on it would read the written trace differently.
func setRoots(t *tracefmt.Trace, flagged []tracefmt.EventRef) {
	isRoot := map[tracefmt.EventRef]bool{}
	for _, r := range flagged {
		isRoot[r] = true
	}
	insts := rootedInstances(t)
	set := 0
	if len(flagged) > 0 {
		for _, inst := range insts {
			set += setRoot(t, inst, isRoot, false)
		}
	}
	if set == 0 {
		for _, inst := range insts {
			setRoot(t, inst, nil, true)
		}
	}
}

// rootedInstances returns the instances of rooted collectives: per
// communicator, the k-th collective of each member, where the first
// member's is rooted.
func rootedInstances(t *tracefmt.Trace) [][]tracefmt.EventRef {
	// per communicator and member: the indices of its collectives
	byComm := make([]map[int][]int32, len(t.Comms))
	for r := range t.Ranks {
		for i, e := range t.Ranks[r].Events {
			if e.Kind != tracefmt.KindCollective {
				continue
			}
			m := byComm[e.Comm]
			if m == nil {
				m = map[int][]int32{}
				byComm[e.Comm] = m
			}
			m[r] = append(m[r], int32(i))
		}
	}
	var insts [][]tracefmt.EventRef
	for ci, m := range byComm {
		if m == nil {
			continue
		}
		members := t.Comms[ci].Ranks
		if ci == 0 || members == nil {
			members = make([]int32, len(t.Ranks))
			for i := range members {
				members[i] = int32(i)
			}
		}
		for k := 0; ; k++ {
			var inst []tracefmt.EventRef
			for _, w := range members {
				if k < len(m[int(w)]) {
					inst = append(inst, tracefmt.EventRef{Rank: w, Index: m[int(w)][k]})
				}
			}
			if len(inst) == 0 {
				break
			}
			if t.Event(inst[0]).Op().Rooted() {
				insts = append(insts, inst)
			}
		}
	}
	return insts
}

// setRoot gives the collectives of inst the root its flags name (or,
// when infer, the one that only sends or only receives) and returns 1
// if it did.
func setRoot(t *tracefmt.Trace, inst []tracefmt.EventRef, isRoot map[tracefmt.EventRef]bool, infer bool) int {
	op := t.Event(inst[0]).Op()
	root, found := -1, 0
	for _, ref := range inst {
		e := t.Event(ref)
		if e.Op() != op {
			return 0
		}
		only := (op.Shape() == tracefmt.ShapeOneToAll && e.Size > 0 && e.RecvBytes() == 0) ||
			(op.Shape() == tracefmt.ShapeAllToOne && e.RecvBytes() > 0 && e.Size == 0)
		if isRoot[ref] {
			root, found = int(ref.Rank), -100
		} else if infer && only && found >= 0 {
			root = int(ref.Rank)
			found++
		}
	}
	if found != 1 && found >= 0 {
		return 0
	}
	for _, ref := range inst {
		t.Event(ref).Peer = int32(root)
	}
	return 1
}
