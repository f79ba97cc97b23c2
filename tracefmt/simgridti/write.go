package simgridti

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/tracesim/tracesim/internal/atomicfile"
	"github.com/tracesim/tracesim/tracefmt"
)

// DefaultCPUSpeed is the speed (flops/s) used to turn time into flops when
// WriteOptions.CPUSpeed is zero: 1 Gf, the speed of SimGrid's example
// platforms.
const DefaultCPUSpeed = 1e9

// WriteOptions tune the writer.
type WriteOptions struct {
	// CPUSpeed (flops/s) converts time into the flops of compute actions:
	// the time a timed trace spends outside MPI states. Zero means
	// DefaultCPUSpeed.
	CPUSpeed float64
	// Datatype is the datatype counts are written in; the zero value is
	// MPI_DOUBLE (id 0). A message or collective whose byte counts are
	// not whole numbers of elements is written in MPI_BYTE, on every rank
	// taking part, so that SimGrid sees the same datatype on both sides.
	Datatype Datatype
	// ResolveWildcards writes wildcard receives with the source (and tag)
	// they matched instead of MPI_ANY_SOURCE (-555) and MPI_ANY_TAG
	// (-444). SimGrid then replays the matching the trace recorded; and
	// SimGrid 3.32, which files a wildcard irecv under source -556 and so
	// never finds it for "wait -555 …", waits for such receives at the
	// right place. The flags are lost when the file is read back.
	ResolveWildcards bool
}

func (o WriteOptions) cpuSpeed() float64 {
	if o.CPUSpeed > 0 {
		return o.CPUSpeed
	}
	return DefaultCPUSpeed
}

// Write writes t as one TI file holding every rank: the init actions
// first, then each rank's actions ending with finalize.
func Write(w io.Writer, t *tracefmt.Trace, opt WriteOptions) error {
	wr, err := newWriter(t, opt)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	for r := range t.Ranks {
		wr.line(r, "init")
		if _, err := bw.Write(wr.buf); err != nil {
			return fmt.Errorf("simgridti: %w", err)
		}
		wr.buf = wr.buf[:0]
	}
	for r := range t.Ranks {
		if err := wr.writeRank(bw, r, false); err != nil {
			return err
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("simgridti: %w", err)
	}
	return nil
}

// WriteIndex writes t in the layout of `smpirun -trace-ti`: an index file
// at path listing one file per rank, written as PATH_files/rank-N.txt (the
// index names them relative to its own directory). Every file is written
// atomically; the index last, so that it never names a missing file.
func WriteIndex(path string, t *tracefmt.Trace, opt WriteOptions) error {
	wr, err := newWriter(t, opt)
	if err != nil {
		return err
	}
	dir, base := filepath.Split(path)
	files := base + "_files"
	if err := os.MkdirAll(filepath.Join(dir, files), 0o755); err != nil {
		return err
	}
	names := make([]string, len(t.Ranks))
	for r := range t.Ranks {
		names[r] = files + "/rank-" + strconv.Itoa(r) + ".txt"
		// One directory gets every rank file: cleaning its stale temporary
		// files once, at the first, keeps the writes linear.
		err := atomicfile.WriteWith(filepath.Join(dir, filepath.FromSlash(names[r])), atomicfile.Options{KeepStale: r > 0}, func(w io.Writer) error {
			return wr.writeRank(w, r, true)
		})
		if err != nil {
			return err
		}
	}
	return atomicfile.Write(path, func(w io.Writer) error {
		_, err := io.WriteString(w, strings.Join(names, "\n")+"\n")
		return err
	})
}

// writer holds what writing any rank needs: the options and the
// collectives of every rank, so that vector collectives can list every
// rank's count.
type writer struct {
	t     *tracefmt.Trace
	opt   Datatype
	speed float64
	keep  bool // keep wildcards
	// colls lists each rank's collective events; the k-th ones of all
	// ranks form one collective call.
	colls [][]int32
	// matrices caches the count matrices of alltoallv calls, collTypes
	// the datatype of each collective call (-1: not decided yet).
	matrices  map[int]*a2avMatrix
	collTypes map[collKey]Datatype
	args      []arg
	buf       []byte
}

func newWriter(t *tracefmt.Trace, opt WriteOptions) (*writer, error) {
	if t.Size() == 0 {
		return nil, fmt.Errorf("simgridti: trace has no ranks")
	}
	if !opt.Datatype.Replayable() {
		return nil, fmt.Errorf("simgridti: datatype %d: SimGrid replays only ids 0 to 6 (MPI_DOUBLE to MPI_BYTE)", int(opt.Datatype))
	}
	if s := opt.CPUSpeed; s < 0 || math.IsNaN(s) || math.IsInf(s, 0) {
		return nil, fmt.Errorf("simgridti: CPU speed %v flops/s: expected a positive speed such as 1e9", s)
	}
	w := &writer{t: t, opt: opt.Datatype, speed: opt.cpuSpeed(), keep: !opt.ResolveWildcards,
		colls: make([][]int32, t.Size()), matrices: map[int]*a2avMatrix{}, collTypes: map[collKey]Datatype{}}
	P := t.Size()
	for r := range t.Ranks {
		ev := t.Ranks[r].Events
		for i := range ev {
			e := &ev[i]
			// A receive is written with the larger of its size and its
			// send's: both are checked here.
			if e.IsP2P() && e.Size >= maxStated {
				return nil, fmt.Errorf("simgridti: rank %d event %d: %s of %d bytes, more than the 2^53 a TI trace may state", r, i, e.Kind, e.Size)
			}
			if e.Kind != tracefmt.KindCollective {
				continue
			}
			if !w.worldComm(e.Comm) {
				return nil, fmt.Errorf("simgridti: rank %d event %d: %s on communicator %d (%s): SimGrid TI traces describe MPI_COMM_WORLD collectives only",
					r, i, e.Op(), e.Comm, t.Comms[e.Comm].Name)
			}
			if root := e.Root(); root >= P {
				return nil, fmt.Errorf("simgridti: rank %d event %d: %s root %d outside the world of %d ranks", r, i, e.Op(), root, P)
			}
			w.colls[r] = append(w.colls[r], int32(i))
		}
	}
	return w, nil
}

// worldComm reports whether communicator c has every rank in world order.
func (w *writer) worldComm(c uint16) bool {
	if int(c) >= len(w.t.Comms) {
		return false
	}
	ranks := w.t.Comms[c].Ranks
	if c == 0 || ranks == nil {
		return true
	}
	if len(ranks) != w.t.Size() {
		return false
	}
	for i, x := range ranks {
		if int(x) != i {
			return false
		}
	}
	return true
}

func (w *writer) line(r int, action string, args ...int64) {
	w.buf = strconv.AppendInt(w.buf, int64(r), 10)
	w.buf = append(w.buf, ' ')
	w.buf = append(w.buf, action...)
	for _, a := range args {
		w.buf = append(w.buf, ' ')
		w.buf = strconv.AppendInt(w.buf, a, 10)
	}
	w.buf = append(w.buf, '\n')
}

func (w *writer) floatLine(r int, action string, v float64) {
	w.buf = strconv.AppendInt(w.buf, int64(r), 10)
	w.buf = append(w.buf, ' ')
	w.buf = append(w.buf, action...)
	w.buf = append(w.buf, ' ')
	w.buf = strconv.AppendFloat(w.buf, v, 'g', -1, 64)
	w.buf = append(w.buf, '\n')
}

// reqKey is how a TI trace names a request: (sender, receiver, tag).
type reqKey struct{ src, dst, tag int64 }

// writeRank writes the actions of rank r; withInit adds its init line.
func (w *writer) writeRank(out io.Writer, r int, withInit bool) error {
	t := w.t
	ev := t.Ranks[r].Events
	w.buf = w.buf[:0]
	if withInit {
		w.line(r, "init")
	}
	reqs := map[int64]reqKey{}
	k := 0 // collective calls so far
	timed := t.Timed
	// Timed traces: compute is the time spent outside MPI states.
	depth := 0
	var last, gap float64
	if timed && len(ev) > 0 {
		last = ev[0].Time
	}
	flushGap := func() {
		if gap > 0 {
			// 12 significant digits hide the rounding of unit
			// conversions (3.9999999999999994e+08 flops).
			f, _ := strconv.ParseFloat(strconv.FormatFloat(t.Seconds(gap)*w.speed, 'g', 12, 64), 64)
			w.floatLine(r, "compute", f)
		}
		gap = 0
	}
	for i := 0; i < len(ev); i++ {
		e := &ev[i]
		if timed {
			if depth == 0 && e.Time > last {
				gap += e.Time - last
			}
			if e.Time > last {
				last = e.Time
			}
		}
		switch e.Kind {
		case tracefmt.KindEnter, tracefmt.KindLeave:
			if timed && w.isMPI(e.State()) {
				if e.Kind == tracefmt.KindEnter {
					depth++
				} else if depth > 0 {
					depth--
				}
			}
		case tracefmt.KindCompute:
			if timed {
				break // the gaps between MPI states carry the compute time
			}
			if e.Flags.Has(tracefmt.FlagWork) {
				w.floatLine(r, "compute", e.Amount())
			} else {
				w.floatLine(r, "sleep", t.Seconds(e.Amount()))
			}
		case tracefmt.KindMarker:
			if t.Markers[e.Marker()].Name == "location" {
				if file, ln, ok := splitLocation(t.Text(e)); ok {
					flushGap()
					w.buf = fmt.Appendf(w.buf, "%d location %s %d\n", r, file, ln)
				}
			}
		case tracefmt.KindSend:
			flushGap()
			if e.Flags.Has(tracefmt.FlagSendrecv) && i+1 < len(ev) && ev[i+1].Kind == tracefmt.KindRecv && ev[i+1].Flags.Has(tracefmt.FlagSendrecv) {
				w.sendRecv(r, e, &ev[i+1], reqs)
				i++
				if timed && ev[i].Time > last {
					last = ev[i].Time
				}
				break
			}
			w.send(r, e, reqs)
		case tracefmt.KindRecv:
			flushGap()
			w.recv(r, e, reqs)
		case tracefmt.KindWait:
			flushGap()
			w.wait(r, e, reqs)
		case tracefmt.KindCollective:
			flushGap()
			if b := w.collective(r, k, e); b >= maxStated {
				return fmt.Errorf("simgridti: rank %d event %d: %s: a count of %d bytes, more than the 2^53 a TI trace may state", r, i, e.Op(), b)
			}
			k++
		}
		if len(w.buf) >= 32<<10 {
			if _, err := out.Write(w.buf); err != nil {
				return fmt.Errorf("simgridti: %w", err)
			}
			w.buf = w.buf[:0]
		}
	}
	flushGap()
	w.line(r, "finalize")
	_, err := out.Write(w.buf)
	w.buf = w.buf[:0]
	if err != nil {
		return fmt.Errorf("simgridti: %w", err)
	}
	return nil
}

// isMPI reports whether time in state s is MPI time rather than compute:
// MPI categories, and MPI calls of no MPI category (MPI_Init, MPI_Finalize,
// MPI_Comm_split get CatOther).
func (w *writer) isMPI(s tracefmt.StateID) bool {
	if s < 0 || int(s) >= len(w.t.States) {
		return false
	}
	d := &w.t.States[s]
	return d.Category.IsMPI() || d.Category == tracefmt.CatOther && len(d.Name) > 4 && strings.EqualFold(d.Name[:4], "MPI_")
}

// splitLocation splits a location marker's "file:line" text.
func splitLocation(s string) (string, int, bool) {
	i := strings.LastIndexByte(s, ':')
	if i <= 0 || strings.ContainsAny(s[:i], " \t") {
		return "", 0, false
	}
	n, err := strconv.Atoi(s[i+1:])
	return s[:i], n, err == nil
}

// p2pType picks the datatype of a message: the option's when both ends'
// sizes are whole numbers of its elements, else MPI_BYTE.
func (w *writer) p2pType(e *tracefmt.Event, peer int) Datatype {
	d := w.opt.Size()
	// The sizes as written: a receive grows to its send's size, so the
	// choice is the same when the text is read back and written again.
	ok := w.writtenSize(e)%d == 0
	if e.Match >= 0 {
		ok = ok && w.writtenSize(&w.t.Ranks[peer].Events[e.Match])%d == 0
	}
	if ok {
		return w.opt
	}
	return Byte
}

// writtenSize is the size written for a send or a receive.
func (w *writer) writtenSize(e *tracefmt.Event) int64 {
	if e.Kind == tracefmt.KindRecv {
		return w.recvSize(e)
	}
	return e.Size
}

// recvSize is the size to write for a receive: never less than its
// matched send, since SimGrid aborts on a truncated message.
func (w *writer) recvSize(e *tracefmt.Event) int64 {
	if e.Match >= 0 {
		if s := w.t.Ranks[e.Peer].Events[e.Match].Size; s > e.Size {
			return s
		}
	}
	return e.Size
}

func (w *writer) send(r int, e *tracefmt.Event, reqs map[int64]reqKey) {
	dt := w.p2pType(e, int(e.Peer))
	n := e.Size / dt.Size()
	if e.Flags.Has(tracefmt.FlagNonBlocking) {
		if e.Request() > 0 {
			reqs[e.Request()] = reqKey{int64(r), int64(e.Peer), int64(e.Tag)}
		}
		w.line(r, "isend", int64(e.Peer), int64(e.Tag), n, int64(dt))
		return
	}
	w.line(r, "send", int64(e.Peer), int64(e.Tag), n, int64(dt))
}

// recvPeer returns the source and tag fields of a receive.
func (w *writer) recvPeer(e *tracefmt.Event) (int64, int64) {
	src, tag := int64(e.Peer), int64(e.Tag)
	if w.keep && e.Flags.Has(tracefmt.FlagAnySource) {
		src = anySource
	}
	if w.keep && e.Flags.Has(tracefmt.FlagAnyTag) {
		tag = anyTag
	}
	return src, tag
}

func (w *writer) recv(r int, e *tracefmt.Event, reqs map[int64]reqKey) {
	dt := w.p2pType(e, int(e.Peer))
	n := w.recvSize(e) / dt.Size()
	src, tag := w.recvPeer(e)
	// A non-blocking receive without a request (formats that log the
	// receive when its wait ends) is written where it completes.
	if e.Flags.Has(tracefmt.FlagNonBlocking) && e.Request() > 0 {
		reqs[e.Request()] = reqKey{src, int64(r), tag}
		w.line(r, "irecv", src, tag, n, int64(dt))
		return
	}
	w.line(r, "recv", src, tag, n, int64(dt))
}

// sendRecv writes a send and a receive of one MPI_Sendrecv call. SimGrid's
// sendRecv action has no tags (it uses tag 0): other tags are written as
// an isend, the receive and a wait, which replays the same way.
func (w *writer) sendRecv(r int, s, rv *tracefmt.Event, reqs map[int64]reqKey) {
	sdt := w.p2pType(s, int(s.Peer))
	if s.Tag != 0 || rv.Tag != 0 || rv.Flags.Has(tracefmt.FlagAnyTag) {
		w.line(r, "isend", int64(s.Peer), int64(s.Tag), s.Size/sdt.Size(), int64(sdt))
		w.recv(r, rv, reqs)
		w.line(r, "wait", int64(r), int64(s.Peer), int64(s.Tag))
		return
	}
	rdt := w.p2pType(rv, int(rv.Peer))
	src, _ := w.recvPeer(rv)
	w.line(r, "sendRecv", s.Size/sdt.Size(), int64(s.Peer), w.recvSize(rv)/rdt.Size(), src, int64(sdt), int64(rdt))
}

func (w *writer) wait(r int, e *tracefmt.Event, reqs map[int64]reqKey) {
	if e.Flags.Has(tracefmt.FlagAll) {
		w.line(r, "waitall")
		clear(reqs)
		return
	}
	k, ok := reqs[e.Request()]
	if !ok {
		return // nothing a TI trace could name
	}
	action := "wait"
	if e.Flags.Has(tracefmt.FlagTest) {
		action = "test"
	} else {
		delete(reqs, e.Request())
	}
	w.line(r, action, k.src, k.dst, k.tag)
}

// arg is a field of a collective's line: a byte count, written in
// elements of the call's datatype, or a plain number (root, flops).
type arg struct {
	v     int64
	count bool
}

// event returns rank q's event of collective call k, or nil when q has
// fewer collectives.
func (w *writer) event(q, k int) *tracefmt.Event {
	if k < len(w.colls[q]) {
		return &w.t.Ranks[q].Events[w.colls[q][k]]
	}
	return nil
}

// bytesOf returns f of rank q's event of collective call k when it is an
// op too (0 if not). A rank whose k-th collective is another operation (a
// trace no MPI program could produce) takes no part in the call: the
// line of one rank never depends on an unrelated call of another, which
// rewriting would change, so that the text reaches a fixed point at the
// first write.
func (w *writer) bytesOf(q, k int, op tracefmt.CollOp, f func(*tracefmt.Event) int64) int64 {
	if e := w.event(q, k); e != nil && e.Op() == op {
		return f(e)
	}
	return 0
}

func sent(e *tracefmt.Event) int64  { return e.Size }
func recvd(e *tracefmt.Event) int64 { return e.RecvBytes() }

// collArgs returns the action, the fields and the number of trailing
// datatype ids of rank q's line for collective call k, whose event on q
// is e. Counts the model does not keep (other ranks' counts of vector
// collectives, per-peer blocks) come from the other ranks' events of the
// same call.
func (w *writer) collArgs(k, q int, e *tracefmt.Event, out []arg) (string, []arg, int) {
	P := int64(w.t.Size())
	op := e.Op()
	root := int64(max(e.Root(), 0))
	num := func(v int64) arg { return arg{v: v} }
	cnt := func(v int64) arg { return arg{v: v, count: true} }
	switch op {
	case tracefmt.OpBcast:
		return "bcast", append(out, cnt(max(e.Size, e.RecvBytes())), num(root)), 1
	case tracefmt.OpReduce:
		return "reduce", append(out, cnt(e.Size), num(0), num(root)), 1
	case tracefmt.OpAllreduce, tracefmt.OpScan, tracefmt.OpExscan:
		return op.String(), append(out, cnt(e.Size), num(0)), 1
	case tracefmt.OpAlltoall:
		// Per-peer blocks: the buffers divided by the world size,
		// rounded up when a foreign trace's sizes do not divide.
		return "alltoall", append(out, cnt(ceilDiv(e.Size, P)), cnt(ceilDiv(e.RecvBytes(), P))), 2
	case tracefmt.OpAllgather:
		return "allgather", append(out, cnt(e.Size), cnt(ceilDiv(e.RecvBytes(), P))), 2
	case tracefmt.OpGather:
		rc := ceilDiv(w.bytesOf(int(root), k, op, recvd), P)
		return "gather", append(out, cnt(e.Size), cnt(rc), num(root)), 2
	case tracefmt.OpScatter:
		sc := ceilDiv(w.bytesOf(int(root), k, op, sent), P)
		return "scatter", append(out, cnt(sc), cnt(e.RecvBytes()), num(root)), 2
	case tracefmt.OpGatherv, tracefmt.OpAllgatherv:
		out = append(out, cnt(e.Size))
		for p := range w.t.Ranks {
			if op == tracefmt.OpGatherv && int64(q) != root {
				out = append(out, cnt(0)) // only the root's counts matter, as SimGrid's tracer writes
			} else {
				out = append(out, cnt(w.bytesOf(p, k, op, sent)))
			}
		}
		if op == tracefmt.OpGatherv {
			return "gatherv", append(out, num(root)), 2
		}
		return "allgatherv", out, 2
	case tracefmt.OpScatterv:
		for p := range w.t.Ranks {
			if int64(q) == root {
				out = append(out, cnt(w.bytesOf(p, k, op, recvd)))
			} else {
				out = append(out, cnt(0))
			}
		}
		return "scatterv", append(out, cnt(e.RecvBytes()), num(root)), 2
	case tracefmt.OpReduceScatter:
		for p := range w.t.Ranks {
			out = append(out, cnt(w.bytesOf(p, k, op, recvd)))
		}
		return "reducescatter", append(out, num(0)), 1
	case tracefmt.OpAlltoallv:
		m := w.matrix(k)
		row, col := m.row(q), m.col(q)
		d := int64(m.dt.Size())
		var ssum, rsum int64
		for p := range row {
			ssum += row[p]
			rsum += col[p]
		}
		out = append(out, cnt(ssum*d))
		for _, c := range row {
			out = append(out, cnt(c*d))
		}
		out = append(out, cnt(rsum*d))
		for _, c := range col {
			out = append(out, cnt(c*d))
		}
		return "alltoallv", out, 2
	}
	return "barrier", out, 0
}

// matrix returns the per-pair counts of alltoallv call k.
func (w *writer) matrix(k int) *a2avMatrix {
	if m := w.matrices[k]; m != nil {
		return m
	}
	S, R := make([]int64, w.t.Size()), make([]int64, w.t.Size())
	var ts, tr int64
	for q := range S {
		S[q], R[q] = w.bytesOf(q, k, tracefmt.OpAlltoallv, sent), w.bytesOf(q, k, tracefmt.OpAlltoallv, recvd)
		ts += S[q]
		tr += R[q]
	}
	m := newA2avMatrix(S, R, w.pick(S, R))
	if ts > tr {
		// More sent than received: the senders send only what the
		// receivers expect, so the bytes read back are the matrix's row
		// sums. Building the matrix from those (and their datatype) now
		// gives the text a rewrite would give.
		d := int64(m.dt.Size())
		for q := range S {
			S[q] = 0
			for _, c := range m.row(q) {
				S[q] += c * d
			}
		}
		m = newA2avMatrix(S, R, w.pick(S, R))
	}
	w.matrices[k] = m
	return m
}

// collKey names the ranks of collective call k whose call is op.
type collKey struct {
	k  int
	op tracefmt.CollOp
}

// collType returns the datatype of collective call k of operation op: the
// option's if every count of every line of the call is a whole number of
// its elements, else MPI_BYTE. It is decided once, so that all ranks
// agree; ranks whose call k is another operation (see bytesOf) are not
// part of it.
func (w *writer) collType(k int, op tracefmt.CollOp) Datatype {
	if dt, ok := w.collTypes[collKey{k, op}]; ok {
		return dt
	}
	dt := w.opt
	d := w.opt.Size()
	for q := range w.t.Ranks {
		e := w.event(q, k)
		if e == nil || e.Op() != op {
			continue
		}
		_, args, _ := w.collArgs(k, q, e, w.args[:0])
		w.args = args
		for _, a := range args {
			if a.count && a.v%d != 0 {
				dt = Byte
			}
		}
	}
	w.collTypes[collKey{k, op}] = dt
	return dt
}

// pick returns the option's datatype if every count divides by its size.
func (w *writer) pick(counts ...[]int64) Datatype {
	d := w.opt.Size()
	for _, cs := range counts {
		for _, c := range cs {
			if c%d != 0 {
				return Byte
			}
		}
	}
	return w.opt
}

func ceilDiv(a, b int64) int64 { return (a + b - 1) / b }

// maxStated bounds the bytes of one count in a TI trace: the reader
// refuses more (SimGrid parses counts as doubles), so the writer must not
// write it.
const maxStated = 1 << 53

// collective writes rank r's line for its collective call k. It returns
// the largest count written, in bytes, for the caller to refuse one the
// reader would (maxStated).
func (w *writer) collective(r, k int, e *tracefmt.Event) int64 {
	var dt Datatype
	if e.Op() == tracefmt.OpAlltoallv {
		dt = w.matrix(k).dt
	} else {
		dt = w.collType(k, e.Op())
	}
	d := dt.Size()
	action, args, ndt := w.collArgs(k, r, e, w.args[:0])
	w.args = args
	w.buf = strconv.AppendInt(w.buf, int64(r), 10)
	w.buf = append(w.buf, ' ')
	w.buf = append(w.buf, action...)
	var most int64
	for _, a := range args {
		v := a.v
		if a.count {
			most = max(most, v)
			v /= d
		}
		w.buf = append(w.buf, ' ')
		w.buf = strconv.AppendInt(w.buf, v, 10)
	}
	for range ndt {
		w.buf = append(w.buf, ' ')
		w.buf = strconv.AppendInt(w.buf, int64(dt), 10)
	}
	w.buf = append(w.buf, '\n')
	return most
}
