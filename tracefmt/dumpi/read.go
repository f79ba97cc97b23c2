package dumpi

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/tracesim/tracesim/tracefmt"
)

// magic opens every .bin and its index.
var magic = []byte{0xff, 0xaa, 0xdd, 0x44, 'U', 'M', 'P', 'I'}

// Labels with a meaning of their own.
const (
	labelAll         = 290 // the footer's total of all calls
	labelEnter       = 291 // a profiled user function entered
	labelExit        = 292
	labelEndOfStream = 293
)

// Mask bits of a record.
const (
	maskStatus  = 3
	maskCPU     = 1 << 2
	maskWall    = 1 << 3
	maskThread  = 1 << 6
	maskPerf    = 1 << 7
	commWorld   = 2
	commSelf    = 3
	anySource   = -1
	procNull    = -3
	maxRanks    = 1 << 20
	maxArray    = 1 << 24
	maxPerfVals = 255
)

// Opener opens a file of the trace by base name.
type Opener func(name string) (io.ReadCloser, error)

// DirOpener opens the trace's files in dir.
func DirOpener(dir string) Opener {
	return func(name string) (io.ReadCloser, error) { return os.Open(filepath.Join(dir, name)) }
}

// Sniff reports whether head is a DUMPI .meta (key=value lines naming
// numprocs and fileprefix) or a rank's .bin.
func Sniff(head []byte) bool {
	if bytes.HasPrefix(head, magic) {
		return true
	}
	return bytes.Contains(head, []byte("numprocs=")) && bytes.Contains(head, []byte("fileprefix=")) &&
		bytes.IndexByte(head, 0) < 0
}

// meta is what a .meta says.
type meta struct {
	ranks   int
	prefix  string
	version [3]int
	start   int64
}

// binName matches a rank's file, PREFIX-NNNN.bin.
// It is compiled at first use, not at every start of the program.
var binName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(.*)-[0-9]{4,}\.bin$`) })

// Read reads the trace whose .meta (or one of whose .bin files) is r, at
// path; open opens the trace's other files by base name.
func Read(path string, r io.Reader, open Opener) (*tracefmt.Trace, error) {
	name := filepath.Base(path)
	br := bufio.NewReader(r)
	if head, _ := br.Peek(len(magic)); bytes.Equal(head, magic) {
		// A rank's file: the trace is named by the .meta beside it.
		m := binName().FindStringSubmatch(name)
		if m == nil {
			return nil, fmt.Errorf("%s: a DUMPI rank file, but not named PREFIX-NNNN.bin: open the trace's .meta", name)
		}
		name = m[1] + ".meta"
		f, err := open(name)
		if err != nil {
			return nil, fmt.Errorf("%s is a DUMPI rank file; its trace's %s: %w", filepath.Base(path), name, err)
		}
		defer f.Close()
		br = bufio.NewReader(f)
	}
	m, err := readMeta(name, br)
	if err != nil {
		return nil, err
	}
	b := tracefmt.NewBuilder(m.ranks, true, tracefmt.Nanosecond)
	t := b.Trace()
	t.Format = "dumpi"
	t.SetAttr("dumpi.version", fmt.Sprintf("%d.%d.%d", m.version[0], m.version[1], m.version[2]))
	st := &state{b: b, m: m, states: map[string]tracefmt.StateID{},
		creates: make([][]create, m.ranks), fixes: make([][]fix, m.ranks)}
	for rank := 0; rank < m.ranks; rank++ {
		file := fmt.Sprintf("%s-%04d.bin", m.prefix, rank)
		f, err := open(file)
		if err != nil {
			return nil, fmt.Errorf("%s: rank %d's file: %w", name, rank, err)
		}
		err = st.readRank(file, rank, f)
		f.Close()
		if err != nil {
			return nil, err
		}
	}
	if err := st.resolveComms(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if st.unmapped > 0 {
		t.SetAttr("dumpi.unmapped_comm_events", strconv.Itoa(st.unmapped))
	}
	if st.anySources > 0 {
		t.SetAttr(tracefmt.AttrUnrecordedSources, strconv.Itoa(st.anySources))
	}
	tr, err := b.Finish()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return tr, nil
}

// readMeta parses the key=value lines of a .meta.
func readMeta(name string, r io.Reader) (*meta, error) {
	m := &meta{version: [3]int{1, 0, 0}}
	sc := bufio.NewScanner(r)
	line := 0
	seen := map[string]bool{}
	for sc.Scan() {
		line++
		s := strings.TrimSpace(sc.Text())
		if s == "" {
			continue
		}
		k, v, ok := strings.Cut(s, "=")
		if !ok {
			return nil, fmt.Errorf("%s:%d: expected key=value, got %q", name, line, s)
		}
		seen[k] = true
		var err error
		want := k + " as an integer"
		switch k {
		case "numprocs":
			want = fmt.Sprintf("numprocs as a number of ranks from 1 to %d", maxRanks)
			m.ranks, err = strconv.Atoi(v)
			if err == nil && (m.ranks < 1 || m.ranks > maxRanks) {
				err = errors.New("out of range")
			}
		case "fileprefix":
			want = "fileprefix as a file's base name"
			if v == "" || strings.ContainsAny(v, `/\`) {
				err = errors.New("not a base name")
			}
			m.prefix = v
		case "version", "subversion", "subsubversion":
			i := map[string]int{"version": 0, "subversion": 1, "subsubversion": 2}[k]
			m.version[i], err = strconv.Atoi(v)
		case "startime":
			m.start, err = strconv.ParseInt(v, 10, 64)
		}
		if err != nil {
			return nil, fmt.Errorf("%s:%d: expected %s, got %q", name, line, want, v)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s:%d: %w", name, line+1, err)
	}
	if line == 0 {
		return nil, fmt.Errorf("%s:1: empty file: expected numprocs= and fileprefix= lines", name)
	}
	for _, k := range []string{"numprocs", "fileprefix"} {
		if !seen[k] {
			// Said at the end of the file, where the reader gave up looking.
			return nil, fmt.Errorf("%s:%d: expected a %s= line, found none before the end of the file", name, line, k)
		}
	}
	return m, nil
}

// state is what a read keeps across ranks.
type state struct {
	// creates and fixes hold per rank the communicators it created and
	// its events on communicators not yet resolved.
	creates    [][]create
	fixes      [][]fix
	b          *tracefmt.Builder
	m          *meta
	states     map[string]tracefmt.StateID
	unmapped   int
	anySources int
}

// stream decodes one rank's file, counting offsets for errors.
type stream struct {
	name string
	r    *bufio.Reader
	off  int64
	err  error
	buf  [8]byte
}

// fail records the first error, naming the file, the offset and what
// was expected.
func (s *stream) fail(off int64, format string, args ...any) {
	if s.err == nil {
		s.err = fmt.Errorf("%s: offset %d (0x%x): %s", s.name, off, off, fmt.Sprintf(format, args...))
	}
}

func (s *stream) bytes(n int, what string) []byte {
	if s.err != nil {
		return s.buf[:n]
	}
	if _, err := io.ReadFull(s.r, s.buf[:n]); err != nil {
		s.fail(s.off, "expected %s (%d bytes), got the end of the file", what, n)
		return s.buf[:n]
	}
	s.off += int64(n)
	return s.buf[:n]
}

func (s *stream) u8(what string) uint8   { return s.bytes(1, what)[0] }
func (s *stream) u16(what string) uint16 { return binary.BigEndian.Uint16(s.bytes(2, what)) }
func (s *stream) u32(what string) uint32 { return binary.BigEndian.Uint32(s.bytes(4, what)) }
func (s *stream) u64(what string) uint64 { return binary.BigEndian.Uint64(s.bytes(8, what)) }
func (s *stream) i32(what string) int32  { return int32(s.u32(what)) }

// count reads an array length.
func (s *stream) count(what string) int {
	off := s.off
	n := s.i32(what + " count")
	if n < 0 || n > maxArray {
		s.fail(off, "expected a %s count of 0..%d, got %d", what, maxArray, n)
		return 0
	}
	return int(n)
}

// skip discards n bytes.
func (s *stream) skip(n int, what string) {
	if s.err != nil {
		return
	}
	k, err := s.r.Discard(n)
	s.off += int64(k)
	if err != nil {
		s.fail(s.off, "expected %s (%d more bytes), got the end of the file", what, n-k)
	}
}

// status is one MPI_Status as recorded.
type status struct {
	bytes, source, tag int32
}

// value is one decoded field: a number, or the elements of an int array.
type value struct {
	n    int64
	arr  []int32
	stat []status
	// arrs holds the elements of an array of int arrays (the ranges of
	// MPI_Group_range_incl/excl).
	arrs [][]int32
}

// call is one record.
type call struct {
	label      int
	off        int64
	start, end float64
	vals       []value
}

func (c *call) i(k int) int64 {
	if k < len(c.vals) {
		return c.vals[k].n
	}
	return 0
}

func (c *call) arr(k int) []int32 {
	if k < len(c.vals) {
		return c.vals[k].arr
	}
	return nil
}

func (c *call) stat(k int) []status {
	if k < len(c.vals) {
		return c.vals[k].stat
	}
	return nil
}

// readRank reads one rank's file into the builder.
func (st *state) readRank(name string, rank int, r io.Reader) error {
	s := &stream{name: name, r: bufio.NewReaderSize(r, 64*1024)}
	if m := s.bytes(8, "the DUMPI magic"); s.err == nil && !bytes.Equal(m, magic) {
		s.fail(0, "expected the DUMPI magic ff aa dd 44 'UMPI', got % x", m)
	}
	s.u32("the CPU time offset")
	wallOff := int64(s.u32("the wall time offset"))
	base := st.m.start
	if base == 0 {
		base = wallOff
	}
	rd := &rankReader{st: st, s: s, rank: rank, reqs: map[int32]pending{}, sized: map[int]sizedBy{}, persist: map[int32]*call{}, dups: map[int64]bool{commWorld: true}, gen: map[int64]int{}}
	for s.err == nil {
		off := s.off
		label := int(s.u16("a function label"))
		if s.err != nil {
			break
		}
		if label == labelEndOfStream {
			break
		}
		if label >= len(functions) || functions[label].fields == "-" {
			s.fail(off, "expected a function label (0..%d), got %d", len(functions)-1, label)
			break
		}
		c := call{label: label, off: off}
		mask := s.u8("the record's mask")
		if mask&maskThread != 0 {
			s.u16("the thread")
		}
		var cpu [2]float64
		if mask&maskCPU != 0 {
			for i := range cpu {
				sec := int64(s.u16("CPU seconds"))
				cpu[i] = float64(float64(sec)*1e9) + float64(s.u32("CPU nanoseconds"))
			}
		}
		if mask&maskWall != 0 {
			for i := 0; i < 2; i++ {
				sec := int64(s.u16("wall seconds")) + wallOff - base
				t := float64(float64(sec)*1e9) + float64(s.u32("wall nanoseconds"))
				if i == 0 {
					c.start = t
				} else {
					c.end = t
				}
			}
		} else {
			c.start, c.end = cpu[0], cpu[1]
		}
		if mask&maskPerf != 0 {
			s.skip(16*int(s.u8("the counter count")), "counter values")
		}
		rd.mask = mask
		c.vals = rd.fields(&c)
		if s.err != nil {
			break
		}
		if c.end < c.start {
			s.fail(off, "%s ends (%.0f ns) before it starts (%.0f ns)", functions[label].name, c.end, c.start)
			break
		}
		if err := rd.events(&c); err != nil {
			s.fail(off, "%v", err)
		}
		if label < len(rd.calls) {
			// Profiled user functions (enter, exit) have no count in
			// the footer.
			rd.calls[label]++
		}
	}
	if s.err != nil {
		return s.err
	}
	return rd.trailer()
}

// maxTrailer bounds the bytes after the calls: header, footer, tables and
// index are a few KiB in the files DUMPI writes.
const maxTrailer = 64 << 20

// footMagic opens the footer.
const footMagic = 0xf007fee7

// trailer reads what follows the calls: the index at the end locates the
// footer, whose call counts must equal the calls read, and the names of
// profiled user functions.
func (rd *rankReader) trailer() error {
	s := rd.s
	start := s.off
	data, err := io.ReadAll(io.LimitReader(s.r, maxTrailer+1))
	if err != nil {
		return fmt.Errorf("%s: offset %d: %w", s.name, start, err)
	}
	if len(data) > maxTrailer {
		return fmt.Errorf("%s: offset %d: expected a trailer of at most %d bytes after the calls, got more", s.name, start, maxTrailer)
	}
	// The index is magic then 4 to 7 offsets (older files have fewer),
	// the last four the header, body, footer and key-value record.
	pos := -1
	for n := 8; n >= 5; n-- {
		if p := len(data) - 8*n; p >= 0 && bytes.Equal(data[p:p+8], magic) {
			pos = p
			break
		}
	}
	end := start + int64(len(data))
	if pos < 0 {
		return fmt.Errorf("%s: offset %d: expected the index (DUMPI magic and offsets) at the end of the file", s.name, end)
	}
	idx := func(k int) int64 { return int64(binary.BigEndian.Uint64(data[pos+8+8*k:])) }
	n := (len(data)-pos)/8 - 1
	at := func(off int64, need int, what string) ([]byte, error) {
		if off < start || off-start+int64(need) > int64(len(data)) {
			return nil, fmt.Errorf("%s: offset %d: the index places the %s at %d, outside the trailer %d..%d", s.name, end-int64(len(data)-pos), what, off, start, end)
		}
		return data[off-start:], nil
	}
	if foot := idx(n - 2); foot > 0 {
		b, err := at(foot, 8+4*len(rd.calls), "footer")
		if err != nil {
			return err
		}
		if m := binary.BigEndian.Uint64(b); m != footMagic {
			return fmt.Errorf("%s: offset %d: expected the footer magic 0x%x, got 0x%x", s.name, foot, footMagic, m)
		}
		for label := range rd.calls {
			want := binary.BigEndian.Uint32(b[8+4*label:])
			if label < labelAll && want != rd.calls[label] {
				return fmt.Errorf("%s: offset %d: the footer counts %d calls of %s, the file holds %d", s.name, foot+8+4*int64(label), want, functions[label].name, rd.calls[label])
			}
		}
	}
	if n == 7 {
		if sizes := idx(0); sizes > 0 {
			if err := rd.datatypeSizes(at, sizes); err != nil {
				return err
			}
		}
		if addr := idx(1); addr > 0 {
			return rd.functionNames(at, addr)
		}
	}
	return nil
}

// datatypeSizes resizes the rank's point-to-point events by the
// trailer's table of datatype sizes.
func (rd *rankReader) datatypeSizes(at func(int64, int, string) ([]byte, error), off int64) error {
	b, err := at(off, 4, "datatype sizes")
	if err != nil {
		return err
	}
	n := int64(binary.BigEndian.Uint32(b))
	if _, err := at(off, int(4+4*min(n, maxArray)), "datatype sizes"); err != nil || n > maxArray {
		return fmt.Errorf("%s: offset %d: expected %d datatype sizes, the trailer ends first", rd.s.name, off, n)
	}
	ev := rd.st.b.Trace().Ranks[rd.rank].Events
	for i, s := range rd.sized {
		if s.dt >= 0 && s.dt < n && s.count >= 0 {
			ev[i].Size = s.count * int64(int32(binary.BigEndian.Uint32(b[4+4*s.dt:])))
			ev[i].Size = max(ev[i].Size, 0)
		}
	}
	return nil
}

// functionNames names the states of profiled user functions by the
// trailer's address table.
func (rd *rankReader) functionNames(at func(int64, int, string) ([]byte, error), off int64) error {
	b, err := at(off, 4, "function addresses")
	if err != nil {
		return err
	}
	count := int(binary.BigEndian.Uint32(b))
	b = b[4:]
	t := rd.st.b.Trace()
	for i := 0; i < count; i++ {
		if len(b) < 10 {
			return fmt.Errorf("%s: offset %d: expected %d function addresses, the trailer ends after %d", rd.s.name, off, count, i)
		}
		addr, l := binary.BigEndian.Uint64(b), int(binary.BigEndian.Uint16(b[8:]))
		if len(b) < 10+l {
			return fmt.Errorf("%s: offset %d: expected %d function addresses, the trailer ends after %d", rd.s.name, off, count, i)
		}
		name := string(b[10 : 10+l])
		b = b[10+l:]
		if id, ok := rd.st.states[fmt.Sprintf("function %#x", addr)]; ok && name != "" {
			t.States[id].Name = name
		}
	}
	return nil
}

// commKey is a rank's communicator handle in one generation.
type commKey struct {
	h   int64
	gen int
}

// create is a communicator a rank created: MPI_Comm_dup, _split (colour
// and key) or _create (its group, nil when the trace did not build it).
type create struct {
	kind       string
	old, new   commKey
	color, key int64
	group      *group
}

// Kinds of events fixed once communicators are resolved.
const (
	fixPeer   = iota // a send's or receive's peer
	fixColl          // a collective's communicator and root
	fixRooted        // a bcast or reduce: also who sends and receives n bytes
)

// fix is an event on a communicator whose members were not known when
// it was read.
type fix struct {
	index int
	comm  commKey
	local int64
	kind  uint8
	n     int64
	// per holds a collective's bytes per member of the communicator
	// (sent, received) where that side counts one block per member
	// (perSent, perRecv in perSides), or per all members (divided).
	per      [2]int64
	perSides uint8
}

// Sides of a collective whose bytes depend on the communicator's size.
const (
	perSent = 1 << iota // sent bytes are per[0] × members
	perRecv             // received bytes are per[1] × members
	divRecv             // received bytes are per[1] ÷ members
)

// bySize returns a collective's (sent, received) bytes on a communicator
// of n members: base as given, scaled on the sides marked.
func bySize(base [2]int64, sides uint8, n int64) (sent, recvd int64) {
	sent, recvd = base[0], base[1]
	if sides&perSent != 0 {
		sent *= n
	}
	switch {
	case sides&perRecv != 0:
		recvd *= n
	case sides&divRecv != 0:
		recvd /= max(n, 1)
	}
	return sent, recvd
}

// sizedBy is the count and datatype an event's bytes come from.
type sizedBy struct{ count, dt int64 }

// pending is a request that is not complete.
type pending struct {
	index int // the event's index in the rank's stream
	recv  bool
}

// rankReader turns one rank's calls into events.
type rankReader struct {
	st   *state
	s    *stream
	rank int
	mask uint8
	reqs map[int32]pending
	// sized holds the point-to-point events whose bytes are a count of
	// elements of a datatype, by event index: the trailer's datatype
	// sizes replace the defaults.
	sized map[int]sizedBy
	// calls counts the calls of each function, checked against the
	// footer's counts.
	calls [labelEnter]uint32
	// persist holds the calls that made persistent requests
	// (MPI_Send_init, MPI_Recv_init), which each MPI_Start starts.
	persist map[int32]*call
	// dups are the communicators that are MPI_COMM_WORLD or a duplicate
	// of it.
	dups map[int64]bool
	gen  map[int64]int
	// groups are the process groups the rank built, by handle, for
	// MPI_Comm_create.
	groups map[int64]*group
}

// fields decodes a record's arguments by its function's layout.
func (rd *rankReader) fields(c *call) []value {
	layout := functions[c.label].fields
	if layout == "*" {
		return rd.special(c)
	}
	vals := make([]value, 0, len(layout))
	for _, f := range layout {
		vals = append(vals, rd.field(byte(f)))
	}
	return vals
}

// field decodes one field of the given kind (see functions).
func (rd *rankReader) field(kind byte) value {
	s := rd.s
	switch kind {
	case 'i':
		return value{n: int64(s.i32("an int"))}
	case 'h':
		return value{n: int64(s.u16("a handle"))}
	case 'b':
		return value{n: int64(s.u8("a byte"))}
	case 'l':
		return value{n: int64(s.u64("an int64"))}
	case 's':
		return value{stat: rd.statuses()}
	case 'a':
		n := s.count("int array")
		arr := make([]int32, 0, min(n, 1024))
		for i := 0; i < n && s.err == nil; i++ {
			arr = append(arr, s.i32("an array element"))
		}
		return value{arr: arr}
	case 'd':
		s.skip(2*s.count("handle array"), "handle array")
	case 'B':
		s.skip(s.count("byte array"), "byte array")
	case 'c':
		s.skip(s.count("string"), "string")
	case 'C':
		for n := s.count("string array"); n > 0 && s.err == nil; n-- {
			s.skip(s.count("string"), "string")
		}
	case 'A':
		var arrs [][]int32
		for n := s.count("array of arrays"); n > 0 && s.err == nil; n-- {
			m := s.count("int array")
			arr := make([]int32, 0, min(m, 1024))
			for i := 0; i < m && s.err == nil; i++ {
				arr = append(arr, s.i32("an array element"))
			}
			arrs = append(arrs, arr)
		}
		return value{arrs: arrs}
	case 'X':
		for n := s.count("array of string arrays"); n > 0 && s.err == nil; n-- {
			for m := s.count("string array"); m > 0 && s.err == nil; m-- {
				s.skip(s.count("string"), "string")
			}
		}
	}
	return value{}
}

// statuses reads recorded statuses (none when the mask says none).
func (rd *rankReader) statuses() []status {
	if rd.mask&maskStatus == 0 {
		return nil
	}
	s := rd.s
	n := s.count("status")
	v := rd.st.m.version
	withTag := v[0] > 0 || v[1] > 6 || v[1] == 6 && v[2] >= 3
	out := make([]status, 0, min(n, 1024))
	for i := 0; i < n && s.err == nil; i++ {
		st := status{bytes: s.i32("status bytes"), source: s.i32("status source"), tag: -1}
		s.u8("status cancelled")
		s.u8("status error")
		if withTag {
			st.tag = s.i32("status tag")
		}
		out = append(out, st)
	}
	return out
}

// special decodes the records whose fields depend on their values.
func (rd *rankReader) special(c *call) []value {
	s := rd.s
	name := functions[c.label].name
	f := func(kinds string) []value {
		var out []value
		for _, k := range kinds {
			out = append(out, rd.field(byte(k)))
		}
		return out
	}
	switch name {
	case "MPI_Init", "MPI_Init_thread":
		v := rd.st.m.version
		argc := s.count("argument")
		if name == "MPI_Init" && v[0] == 0 && (v[1] < 6 || v[1] == 6 && v[2] < 2) {
			s.u32("the repeated argument count")
		}
		for ; argc > 0 && s.err == nil; argc-- {
			s.skip(s.count("argument"), "argument")
		}
		if name == "MPI_Init_thread" {
			return f("bb")
		}
		return nil
	case "MPI_Gather", "MPI_Scatter":
		// commrank, count, type, root, comm, then at the root the other
		// side's count and type.
		out := f("iihih")
		if out[0].n == out[3].n {
			out = append(out, f("ih")...)
		}
		return out
	case "MPI_Gatherv":
		out := f("iiihih")
		if out[0].n == out[4].n {
			out = append(out, f("aa")...)
		} else {
			out = append(out, value{}, value{})
		}
		return append(out, f("h")...)
	case "MPI_Scatterv":
		out := f("iihihih")
		if out[0].n == out[5].n {
			out = append(out, f("aa")...)
		}
		return out
	case "MPI_Type_struct":
		v := rd.st.m.version
		out := f("ia")
		if v[0] > 0 || v[1] > 6 || v[1] == 6 && v[2] >= 9 {
			out = append(out, f("a")...)
		} else {
			out = append(out, f("i")...)
		}
		return append(out, f("dh")...)
	}
	s.fail(c.off, "records of %s are not supported", name)
	return nil
}

// typeSizes are the sizes (MPI_Type_size: data bytes, no padding) of
// DUMPI's predefined datatypes on 64-bit Linux, by DUMPI's datatype index,
// used until a rank's trailer gives its own table.
var typeSizes = []int64{0, 0, 1, 1, 1, 1, 4, 2, 2, 4, 4, 8, 8, 4, 8, 16, 8, 8, 8, 1, 0, 0, 8, 12, 12, 6, 8, 20}

// size returns count elements of datatype dt in bytes (user types, whose
// size the trace's trailer would give, count as bytes).
func size(count, dt int64) int64 {
	if count < 0 {
		return 0
	}
	if dt >= 0 && dt < int64(len(typeSizes)) {
		return count * typeSizes[dt]
	}
	return count
}

// world maps a communicator-local rank to a world rank: the identity on
// MPI_COMM_WORLD and its duplicates, the rank itself on MPI_COMM_SELF;
// on other communicators (whose members the trace does not record) the
// local rank is kept and counted.
func (rd *rankReader) world(comm, local int64) int {
	if comm == commSelf {
		return rd.rank
	}
	return int(local)
}

// known reports whether ranks on comm are world ranks as read: on
// MPI_COMM_WORLD, its duplicates and MPI_COMM_SELF. Events on other
// communicators are fixed once every rank is read (resolveComms).
func (rd *rankReader) known(comm int64) bool { return comm == commSelf || rd.dups[comm] }

// key names communicator handle h as it is now (handles may be reused
// after MPI_Comm_free: each creation starts a new generation).
func (rd *rankReader) key(h int64) commKey { return commKey{h, rd.gen[h]} }

// defer records an event on a communicator whose members are not known
// yet: local is the peer's or root's rank in it.
func (rd *rankReader) deferTo(index int, comm, local int64, kind uint8, n int64) {
	rd.st.fixes[rd.rank] = append(rd.st.fixes[rd.rank], fix{index: index, comm: rd.key(comm), local: local, kind: kind, n: n})
}

// state returns the state of an MPI function.
func (rd *rankReader) state(name string) tracefmt.StateID {
	if id, ok := rd.st.states[name]; ok {
		return id
	}
	id := rd.st.b.State(name)
	rd.st.states[name] = id
	return id
}

func (rd *rankReader) add(e tracefmt.Event) (int, error) {
	return rd.st.b.Add(rd.rank, e)
}

// peerOK reports whether a peer is a rank of the world.
func (rd *rankReader) peerOK(p int) bool { return p >= 0 && p < rd.st.m.ranks }

// events adds a call's events: the enter of its state at its start, what
// it did, the leave at its end.
func (rd *rankReader) events(c *call) error {
	name := functions[c.label].name
	if c.label == labelEnter || c.label == labelExit {
		s := rd.state(fmt.Sprintf("function %#x", uint64(c.i(0))))
		e := tracefmt.Enter(c.start, s)
		if c.label == labelExit {
			e = tracefmt.Leave(c.start, s)
		}
		_, err := rd.add(e)
		return err
	}
	s := rd.state(name)
	if _, err := rd.add(tracefmt.Enter(c.start, s)); err != nil {
		return err
	}
	if err := rd.mpi(c, strings.TrimPrefix(name, "MPI_")); err != nil {
		return err
	}
	_, err := rd.add(tracefmt.Leave(c.end, s))
	return err
}

// send adds a send of count elements of dt to dest on comm.
func (rd *rankReader) send(t float64, count, dt, dest, tag, comm int64, flags tracefmt.Flags, req int32) error {
	if dest == procNull {
		return nil
	}
	p := rd.rank // until the communicator's members are known
	if rd.known(comm) {
		p = rd.world(comm, dest)
	}
	if !rd.peerOK(p) {
		return fmt.Errorf("send to rank %d outside 0..%d", p, rd.st.m.ranks-1)
	}
	e := tracefmt.Send(t, p, int32(tag), 0, size(count, dt))
	e.Flags |= flags
	if flags.Has(tracefmt.FlagNonBlocking) {
		e.SetRequest(int64(req))
	}
	i, err := rd.add(e)
	if err == nil {
		if !rd.known(comm) {
			rd.deferTo(i, comm, dest, fixPeer, 0)
		}
		rd.sized[i] = sizedBy{count, dt}
		if flags.Has(tracefmt.FlagNonBlocking) {
			rd.reqs[req] = pending{index: i}
		}
	}
	return err
}

// recv adds a receive: from the status when the source was a wildcard.
func (rd *rankReader) recv(t float64, count, dt, src, tag, comm int64, st []status, flags tracefmt.Flags, req int32) error {
	if src == procNull {
		return nil
	}
	sz, fromStatus := size(count, dt), false
	if len(st) > 0 && !flags.Has(tracefmt.FlagNonBlocking) {
		sz, fromStatus = int64(st[0].bytes), true
		if src == anySource {
			src, flags = int64(st[0].source), flags|tracefmt.FlagAnySource
		}
		if tag < 0 {
			tag, flags = int64(st[0].tag), flags|tracefmt.FlagAnyTag
		}
	}
	peer := rd.rank
	if src == anySource {
		// Filled in by the wait's status; a guess until then.
		flags |= tracefmt.FlagAnySource
		rd.st.anySources++
	} else if rd.known(comm) {
		peer = rd.world(comm, src)
	}
	if !rd.peerOK(peer) {
		return fmt.Errorf("receive from rank %d outside 0..%d", peer, rd.st.m.ranks-1)
	}
	e := tracefmt.Recv(t, peer, int32(tag), 0, max(sz, 0))
	e.Flags |= flags
	if flags.Has(tracefmt.FlagNonBlocking) {
		e.SetRequest(int64(req))
	}
	i, err := rd.add(e)
	if err == nil {
		if !rd.known(comm) && src != anySource {
			rd.deferTo(i, comm, src, fixPeer, 0)
		}
		if !fromStatus {
			rd.sized[i] = sizedBy{count, dt}
		}
		if flags.Has(tracefmt.FlagNonBlocking) {
			rd.reqs[req] = pending{index: i, recv: true}
		}
	}
	return err
}

// complete adds the wait of request req at t, filling a wildcard receive
// in from its status.
func (rd *rankReader) complete(t float64, req int32, st *status, test bool) error {
	p, ok := rd.reqs[req]
	if !ok {
		return nil // a request this trace never started (or null)
	}
	delete(rd.reqs, req)
	if p.recv && st != nil {
		e := &rd.st.b.Trace().Ranks[rd.rank].Events[p.index]
		if e.Flags.Has(tracefmt.FlagAnySource) && rd.peerOK(int(st.source)) {
			e.Peer = st.source
			rd.st.anySources--
		}
		if e.Tag < 0 {
			e.Tag = st.tag
		}
		if st.bytes >= 0 {
			e.Size = int64(st.bytes)
			delete(rd.sized, p.index)
		}
	}
	w := tracefmt.Wait(t, int64(req))
	if test {
		w.Flags |= tracefmt.FlagTest
	}
	_, err := rd.add(w)
	return err
}

// completeAll completes the listed requests (all of them, or those at
// indices) with their statuses in order.
func (rd *rankReader) completeAll(t float64, reqs []int32, indices []int32, st []status, test bool) error {
	pick := reqs
	if indices != nil {
		pick = make([]int32, 0, len(indices))
		for _, i := range indices {
			if i >= 0 && int(i) < len(reqs) {
				pick = append(pick, reqs[i])
			}
		}
	}
	for k, r := range pick {
		var s *status
		if k < len(st) {
			s = &st[k]
		}
		if err := rd.complete(t, r, s, test); err != nil {
			return err
		}
	}
	return nil
}

// collective adds a collective on comm with the rank's bytes.
func (rd *rankReader) collective(t float64, op tracefmt.CollOp, root, comm, sent, recvd int64) error {
	r := -1
	if op.Rooted() && rd.known(comm) {
		r = rd.world(comm, root)
		if !rd.peerOK(r) {
			return fmt.Errorf("%s root %d outside 0..%d", op, r, rd.st.m.ranks-1)
		}
	}
	i, err := rd.add(tracefmt.Collective(t, op, r, 0, max(sent, 0), max(recvd, 0)))
	if err == nil && !rd.known(comm) {
		rd.deferTo(i, comm, root, fixColl, 0)
	}
	return err
}

// blocks adds a collective whose bytes count blocks per member of the
// communicator (sides, see bySize): on a communicator whose size is known
// as read at once, else with the world's size until resolveComms knows
// the members.
func (rd *rankReader) blocks(t float64, op tracefmt.CollOp, root, comm int64, base [2]int64, sides uint8) error {
	n := int64(rd.st.m.ranks)
	if comm == commSelf {
		n = 1
	}
	sent, recvd := bySize(base, sides, n)
	if err := rd.collective(t, op, root, comm, sent, recvd); err != nil || rd.known(comm) {
		return err
	}
	f := &rd.st.fixes[rd.rank][len(rd.st.fixes[rd.rank])-1]
	f.per, f.perSides = base, sides
	return nil
}

// rootedSizes adds a broadcast (the root sends n, the others receive
// it) or a reduce (all send n, the root receives it), deciding who the
// root is once the communicator's members are known when they are not.
func (rd *rankReader) rootedSizes(t float64, op tracefmt.CollOp, n, root, comm int64) error {
	if rd.known(comm) {
		isRoot := rd.world(comm, root) == rd.rank
		switch {
		case op == tracefmt.OpBcast && isRoot:
			return rd.collective(t, op, root, comm, n, 0)
		case op == tracefmt.OpBcast:
			return rd.collective(t, op, root, comm, 0, n)
		case isRoot:
			return rd.collective(t, op, root, comm, n, n)
		}
		return rd.collective(t, op, root, comm, n, 0)
	}
	i, err := rd.add(tracefmt.Collective(t, op, -1, 0, 0, 0))
	if err == nil {
		rd.deferTo(i, comm, root, fixRooted, n)
	}
	return err
}

func sum(a []int32) int64 {
	var s int64
	for _, x := range a {
		s += int64(x)
	}
	return s
}

// mpi adds the events of one MPI call (fn without "MPI_").
func (rd *rankReader) mpi(c *call, fn string) error {
	t0, t1 := c.start, c.end
	nb := tracefmt.FlagNonBlocking
	switch fn {
	case "Send", "Bsend", "Rsend":
		return rd.send(t0, c.i(0), c.i(1), c.i(2), c.i(3), c.i(4), 0, 0)
	case "Ssend":
		return rd.send(t0, c.i(0), c.i(1), c.i(2), c.i(3), c.i(4), tracefmt.FlagSync, 0)
	case "Isend", "Ibsend", "Irsend":
		return rd.send(t0, c.i(0), c.i(1), c.i(2), c.i(3), c.i(4), nb, int32(c.i(5)))
	case "Issend":
		return rd.send(t0, c.i(0), c.i(1), c.i(2), c.i(3), c.i(4), nb|tracefmt.FlagSync, int32(c.i(5)))
	case "Recv":
		return rd.recv(t1, c.i(0), c.i(1), c.i(2), c.i(3), c.i(4), c.stat(5), 0, 0)
	case "Irecv":
		return rd.recv(t0, c.i(0), c.i(1), c.i(2), c.i(3), c.i(4), nil, nb, int32(c.i(5)))
	case "Sendrecv":
		if err := rd.send(t0, c.i(0), c.i(1), c.i(2), c.i(3), c.i(8), tracefmt.FlagSendrecv, 0); err != nil {
			return err
		}
		return rd.recv(t1, c.i(4), c.i(5), c.i(6), c.i(7), c.i(8), c.stat(9), tracefmt.FlagSendrecv, 0)
	case "Sendrecv_replace":
		if err := rd.send(t0, c.i(0), c.i(1), c.i(2), c.i(3), c.i(6), tracefmt.FlagSendrecv, 0); err != nil {
			return err
		}
		return rd.recv(t1, c.i(0), c.i(1), c.i(4), c.i(5), c.i(6), c.stat(7), tracefmt.FlagSendrecv, 0)
	case "Send_init", "Bsend_init", "Ssend_init", "Rsend_init", "Recv_init":
		cc := *c
		rd.persist[int32(c.i(5))] = &cc
	case "Start":
		return rd.start(t0, int32(c.i(0)))
	case "Startall":
		for _, r := range c.arr(1) {
			if err := rd.start(t0, r); err != nil {
				return err
			}
		}
	case "Request_free":
		delete(rd.persist, int32(c.i(0)))
	case "Wait":
		return rd.completeAll(t1, []int32{int32(c.i(0))}, nil, c.stat(1), false)
	case "Test":
		if c.i(1) != 0 {
			return rd.completeAll(t1, []int32{int32(c.i(0))}, nil, c.stat(2), true)
		}
	case "Waitall":
		return rd.completeAll(t1, c.arr(1), nil, c.stat(2), false)
	case "Testall":
		if c.i(2) != 0 {
			return rd.completeAll(t1, c.arr(1), nil, c.stat(3), true)
		}
	case "Waitany":
		return rd.completeAll(t1, c.arr(1), []int32{int32(c.i(2))}, c.stat(3), false)
	case "Testany":
		if c.i(3) != 0 {
			return rd.completeAll(t1, c.arr(1), []int32{int32(c.i(2))}, c.stat(4), true)
		}
	case "Waitsome", "Testsome":
		return rd.completeAll(t1, c.arr(1), c.arr(3), c.stat(4), fn == "Testsome")
	case "Comm_group":
		rd.setGroup(c.i(1), &group{op: groupComm, base: rd.key(c.i(0))})
	case "Group_incl", "Group_excl":
		rd.setGroup(c.i(3), rd.derive(c.i(0), fn, c.arr(2)))
	case "Group_range_incl", "Group_range_excl":
		var ranges [][]int32
		if len(c.vals) > 2 {
			ranges = c.vals[2].arrs
		}
		var flat []int32
		for _, r := range ranges {
			if len(r) != 3 {
				flat = nil // not a (first, last, stride) triple: unknown
				break
			}
			flat = append(flat, r...)
		}
		g := rd.derive(c.i(0), fn, flat)
		if flat == nil && c.i(1) > 0 {
			g = nil
		}
		rd.setGroup(c.i(3), g)
	case "Group_union", "Group_intersection", "Group_difference":
		a, b := rd.group(c.i(0)), rd.group(c.i(1))
		var g *group
		if a != nil && b != nil {
			g = &group{op: fn, a: a, b: b}
		}
		rd.setGroup(c.i(2), g)
	case "Group_free":
		delete(rd.groups, c.i(0))
	case "Comm_dup", "Comm_split", "Comm_create":
		// old communicator first, new one last; a split's colour and key
		// between, a create's group.
		old, nw := c.i(0), c.i(len(c.vals)-1)
		cr := create{kind: fn, old: rd.key(old)}
		switch fn {
		case "Comm_split":
			cr.color, cr.key = c.i(1), c.i(2)
		case "Comm_create":
			cr.group = rd.groups[c.i(1)]
		}
		rd.gen[nw]++
		cr.new = rd.key(nw)
		rd.dups[nw] = fn == "Comm_dup" && rd.dups[old]
		rd.st.creates[rd.rank] = append(rd.st.creates[rd.rank], cr)
	case "Barrier":
		return rd.collective(t0, tracefmt.OpBarrier, -1, c.i(0), 0, 0)
	case "Bcast":
		return rd.rootedSizes(t0, tracefmt.OpBcast, size(c.i(0), c.i(1)), c.i(2), c.i(3))
	case "Reduce":
		return rd.rootedSizes(t0, tracefmt.OpReduce, size(c.i(0), c.i(1)), c.i(3), c.i(4))
	case "Allreduce":
		n := size(c.i(0), c.i(1))
		return rd.collective(t0, tracefmt.OpAllreduce, -1, c.i(3), n, n)
	case "Scan", "Exscan":
		n := size(c.i(0), c.i(1))
		op := tracefmt.OpScan
		if fn == "Exscan" {
			op = tracefmt.OpExscan
		}
		return rd.collective(t0, op, -1, c.i(3), n, n)
	case "Allgather":
		return rd.blocks(t0, tracefmt.OpAllgather, -1, c.i(4), [2]int64{size(c.i(0), c.i(1)), size(c.i(2), c.i(3))}, perRecv)
	case "Alltoall":
		return rd.blocks(t0, tracefmt.OpAlltoall, -1, c.i(4), [2]int64{size(c.i(0), c.i(1)), size(c.i(2), c.i(3))}, perSent|perRecv)
	case "Allgatherv":
		return rd.collective(t0, tracefmt.OpAllgatherv, -1, c.i(6), size(c.i(1), c.i(2)), size(sum(c.arr(3)), c.i(5)))
	case "Alltoallv":
		return rd.collective(t0, tracefmt.OpAlltoallv, -1, c.i(7), size(sum(c.arr(1)), c.i(3)), size(sum(c.arr(4)), c.i(6)))
	case "Reduce_scatter":
		n := size(sum(c.arr(1)), c.i(2))
		return rd.blocks(t0, tracefmt.OpReduceScatter, -1, c.i(4), [2]int64{n, n}, divRecv)
	case "Gather", "Scatter":
		// The rank's own side; the root also moves one block of the
		// other per member.
		mine, block := size(c.i(1), c.i(2)), int64(0)
		if c.i(0) == c.i(3) {
			block = size(c.i(5), c.i(6))
		}
		if fn == "Gather" {
			return rd.blocks(t0, tracefmt.OpGather, c.i(3), c.i(4), [2]int64{mine, block}, perRecv)
		}
		return rd.blocks(t0, tracefmt.OpScatter, c.i(3), c.i(4), [2]int64{block, mine}, perSent)
	case "Gatherv":
		return rd.collective(t0, tracefmt.OpGatherv, c.i(4), c.i(5), size(c.i(2), c.i(3)), size(sum(c.arr(6)), c.i(8)))
	case "Scatterv":
		return rd.collective(t0, tracefmt.OpScatterv, c.i(5), c.i(6), size(sum(c.arr(7)), c.i(2)), size(c.i(3), c.i(4)))
	}
	return nil
}

// start starts a persistent request.
func (rd *rankReader) start(t float64, req int32) error {
	c, ok := rd.persist[req]
	if !ok {
		return nil
	}
	if functions[c.label].name == "MPI_Recv_init" {
		return rd.recv(t, c.i(0), c.i(1), c.i(2), c.i(3), c.i(4), nil, tracefmt.FlagNonBlocking, req)
	}
	return rd.send(t, c.i(0), c.i(1), c.i(2), c.i(3), c.i(4), tracefmt.FlagNonBlocking, req)
}
