package clog2

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"sync"

	"github.com/tracesim/tracesim/tracefmt"
)

// Decoding blocks on several goroutines. A merged file's blocks have one
// size and, once commtable_fptr gives their number, the reader knows where
// each starts, so workers can decode blocks ahead of the one being taken in.
// Most records need nothing but their own bytes (an event on
// MPI_COMM_WORLD whose ranks are in the world); a worker decodes a block's
// records until the first that needs more (a COMMEVT, a definition, a
// communicator other than the world, a thread, anything wrong), and the
// reader's goroutine takes the blocks in file order: it does what depends
// on the records before (counts, texts, the block layout checks) for the
// decoded ones and decodes the rest of the block itself, record by record,
// as a sequential read does; then a worker copies the decoded events into
// the places the reader's goroutine gave them. Each record is parsed once.
// So the trace, and the first error in file order with its offset, are
// those of a sequential read.

// Bounds of parallel decoding: blocks of at most maxParBlock bytes, files
// of at least parDecodeBlocks blocks, and blocksPerWorker blocks per
// worker in flight (read, being decoded or waiting to be taken in), so the
// memory held does not grow with the file.
const (
	maxParBlock     = 1 << 20
	parDecodeBlocks = 16
	blocksPerWorker = 3
)

// blockJob is one block on its way through the workers: read, scanned by
// a worker (scan), taken in by the reader's goroutine in file order
// (takeBlock), its decoded events copied into the ranks' buffers by a
// worker (placeEvents).
type blockJob struct {
	k   int64
	buf []byte
	n   int   // bytes read
	err error // the read's error
	// done is closed once the block is scanned (or failed to read).
	done chan struct{}

	// What scan finds in the records it decodes, the block's first nrec,
	// ending at offset stop (the first record left to the reader's
	// goroutine): the world ranks they are on (touched, with loc[w] the
	// index in touched + 1) and how many each (cnt, by touched index); the
	// offsets of the CARGOEVT records; whether any is a COLLEVT; the offset
	// of the first that ends within a header of the block's end (near, -1
	// none); and their global order: sorted among themselves, the first and
	// last time and rank, and their order hash (see follow).
	nrec, stop    int
	loc           []int32
	touched       []int32
	cnt           []int32
	maxW          int32
	cargo, cargoN []int32 // offsets and record indexes
	// evs holds the block's first nrec events, decoded by scan in record
	// order (a CARGOEVT's text left for placeEvents), and at[n] where the
	// n-th goes: its rank's touched index and its place among the
	// block's events of that rank. So each record is parsed once.
	evs           []tracefmt.Event
	at            []evPlace
	coll          bool
	near          int
	sorted        bool
	firstT, lastT float64
	firstW, lastW int32
	hash          uint64

	// What takeBlock hands placeEvents: the places of the events of each
	// touched rank (by touched index) and the texts of the cargo records.
	// written is closed once they are filled; nil while not handed over.
	base    []int
	dst     [][]tracefmt.Event
	texts   []int32
	fill    bool
	written chan struct{}
}

// parallelDecode reports whether the file's blocks are decoded by
// workers: those of a merged big-endian file, as MPE writes them.
func (rd *reader) parallelDecode() bool {
	nb := rd.p.numBlocks()
	return rd.workers >= 2 && rd.p.finalized && !rd.le && rd.p.blockSize <= maxParBlock &&
		nb >= 2 && nb >= int64(rd.decodeMin)
}

// readBlocksParallel is readBlocks with workers decoding blocks ahead.
func (rd *reader) readBlocksParallel() error {
	nb := rd.p.numBlocks()
	B := rd.p.blockSize
	njobs := blocksPerWorker * rd.workers
	pool := make(chan *blockJob, njobs)
	// A job is in work at most once at a time (to be scanned, then to be
	// filled), so sends to it never block.
	work := make(chan *blockJob, njobs)
	order := make(chan *blockJob, njobs)
	quit := make(chan struct{})
	// The workers check the order within a block through MPE's post-order
	// table, which the reader's goroutine otherwise builds on the first
	// tie.
	if rd.ord.post == nil {
		rd.ord.post = postOrder(rd.P)
	}
	var wg sync.WaitGroup
	defer func() {
		close(quit)
		wg.Wait()
		rd.inflight = nil
	}()
	wg.Go(func() { rd.readAhead(nb, njobs, pool, work, order, quit) })
	for range rd.workers {
		wg.Go(func() {
			for {
				select {
				case j := <-work:
					if j.fill {
						rd.placeEvents(j)
						close(j.written)
					} else {
						rd.scan(j)
						close(j.done)
					}
				case <-quit:
					return
				}
			}
		})
	}
	var prev *blockJob
	for k := int64(0); k < nb; k++ {
		j := <-order
		<-j.done
		if j.err != nil {
			if j.err == io.ErrUnexpectedEOF {
				return errAt(rd.pos+int64(j.n), int(k), "truncated block: the file ends %d bytes into a block of %d", j.n, B)
			}
			return fmt.Errorf("clog2: reading block %d: %w", k, j.err)
		}
		rd.block = int(k)
		if prev != nil {
			rd.prev = prev.buf
		}
		last, err := rd.takeBlock(j, work)
		if err != nil {
			return err
		}
		rd.nBlock = k + 1
		if last {
			if k != nb-1 {
				return errAt(rd.pos, int(k), "ENDLOG in block %d, but commtable_fptr announces %d blocks", k, nb)
			}
			rd.pos += int64(B)
			rd.drain()
			return nil
		}
		if k == nb-1 {
			return errAt(rd.pos+int64(B)-1, int(k), "the last block (commtable_fptr announces %d) ends with ENDBLOCK: expected ENDLOG", nb)
		}
		// The block before is no longer needed for the filler check, and
		// once its events are written, its job can take another block.
		if prev != nil {
			rd.release(prev)
			pool <- prev
		}
		prev = j
		rd.pos += int64(B)
	}
	return nil
}

// drain waits until no worker writes events into the ranks' buffers, so
// that they can move.
func (rd *reader) drain() {
	for _, j := range rd.inflight {
		<-j.written
	}
	clear(rd.inflight)
	rd.inflight = rd.inflight[:0]
}

// release waits until the events of job j are written and forgets it.
func (rd *reader) release(j *blockJob) {
	if j.written == nil {
		return
	}
	<-j.written
	j.written = nil
	if len(rd.inflight) > 0 && rd.inflight[0] == j {
		// Jobs are handed over in file order and released in it.
		rd.inflight[0] = nil
		rd.inflight = rd.inflight[1:]
	}
}

// readAhead reads the nb blocks into jobs from the pool and hands them to
// the workers and, in file order, to the reader's goroutine. A read error
// ends the blocks with a job that carries it. Jobs are made as they are
// needed, njobs at most, so that a file shorter than its preamble says
// does not have the memory of all of them allocated.
func (rd *reader) readAhead(nb int64, njobs int, pool chan *blockJob, work, order chan *blockJob, quit chan struct{}) {
	made := 0
	for k := range nb {
		var j *blockJob
		select {
		case j = <-pool:
		default:
			if made < njobs {
				made++
				j = &blockJob{buf: make([]byte, rd.p.blockSize)}
				break
			}
			select {
			case j = <-pool:
			case <-quit:
				return
			}
		}
		j.k, j.nrec, j.stop, j.fill = k, 0, 0, false
		j.done = make(chan struct{})
		j.n, j.err = io.ReadFull(rd.src, j.buf)
		if j.err != nil {
			if errors.Is(j.err, io.EOF) {
				j.err = io.ErrUnexpectedEOF
			}
			close(j.done)
		} else {
			select {
			case work <- j:
			case <-quit:
				return
			}
		}
		select {
		case order <- j:
		case <-quit:
			return
		}
		if j.err != nil {
			return
		}
	}
}

// takeBlock takes in a block that a worker scanned up to j.stop: what
// record does for each scanned record that depends on the records before
// (places in the ranks' buffers, the global order, cargo texts, the block
// layout checks), then the rest of the block record by record; last it
// hands the scanned events to a worker to be copied into their places
// (or, without work, writes them itself). It reports whether the block
// ended with ENDLOG.
func (rd *reader) takeBlock(j *blockJob, work chan<- *blockJob) (bool, error) {
	buf := j.buf
	if j.nrec > 0 {
		if int(j.maxW) >= len(rd.ranks) {
			rd.growRanks(j.maxW)
		}
		// The places of each rank's events start where its buffer ends.
		j.base = j.base[:0]
		for _, w := range j.touched {
			j.base = append(j.base, len(rd.ranks[w].ev))
		}
		o := rd.ord
		if o.sorted && j.sorted && (o.nrec == 0 || j.firstT > o.lastT ||
			j.firstT == o.lastT && (j.firstW == o.lastW || o.post[o.lastW] < o.post[j.firstW])) {
			o.hash = o.hash*powMul(j.nrec) + j.hash
			o.lastT, o.lastW = j.lastT, j.lastW
			o.nrec += int64(j.nrec)
			for l, w := range j.touched {
				// Counted from the block's start: the rank's count so
				// far covers the blocks before (see grow).
				rd.reserve(&rd.ranks[w], int(j.cnt[l]), 0)
			}
		} else {
			// Out of order: record by record, as a sequential read.
			for u := 0; u < j.stop; u += recSize[rd.i32(buf[u+20:])] {
				w := rd.i32(buf[u+12:])
				rd.follow(rd.f64(buf[u:]), w)
				rd.reserve(&rd.ranks[w], 1, u)
			}
		}
		// The block layout checks look at the block's first record (after
		// an ENDBLOCK) and at the records that end within a header of the
		// block's end; they only ever clear packOK past the first.
		if rd.endU >= 0 {
			rd.checkPacking(rd.f64(buf), 0, recSize[rd.i32(buf[20:])])
		}
		if j.near >= 0 {
			for u := j.near; u < j.stop; {
				size := recSize[rd.i32(buf[u+20:])]
				rd.checkPacking(rd.f64(buf[u:]), u, size)
				u += size
			}
		}
		j.texts = j.texts[:0]
		for _, u := range j.cargo {
			j.texts = append(j.texts, rd.cargoText(buf[u+32:u+64]))
		}
		if j.coll {
			rd.anyColl = true
		}
		rd.inBlock += int64(j.nrec)
	}
	last, err := rd.parseFrom(buf, j.stop)
	if err != nil || j.nrec == 0 {
		return last, err
	}
	// The places are taken from the buffers as they are now: the rest of
	// the block may have moved them (see reserve).
	j.dst = j.dst[:0]
	for l, w := range j.touched {
		b := j.base[l]
		j.dst = append(j.dst, rd.ranks[w].ev[b:b+int(j.cnt[l])])
	}
	if work == nil {
		// A sequential read (readBlocks).
		rd.placeEvents(j)
		return last, nil
	}
	j.fill, j.written = true, make(chan struct{})
	rd.inflight = append(rd.inflight, j)
	work <- j
	return last, nil
}

// evPlace is where a scanned event goes: l, the touched index of its rank,
// and k, its place among the block's events of that rank.
type evPlace struct{ l, k int32 }

// scan decodes the records of a block from its start for as long as they
// need nothing but their own bytes (as record would decode them), into
// j.evs, and notes in j what takeBlock needs of them. It reads only what
// does not change while blocks are read. The file is big-endian
// (parallelDecode), so fields are read without asking the byte order each
// time, and the header's communicator and rank, thread and type are read
// as pairs.
func (rd *reader) scan(j *blockJob) {
	buf := j.buf
	B, P := len(buf), rd.P
	post := rd.ord.post
	if len(j.loc) < P {
		j.loc = make([]int32, P)
	}
	loc := j.loc
	for _, w := range j.touched {
		loc[w] = 0
	}
	// At most one event per 32 bytes, the smallest record; the block is
	// read, so this is proportional to the data.
	if len(j.evs) < B/32 {
		j.evs = make([]tracefmt.Event, B/32)
		j.at = make([]evPlace, B/32)
	}
	evs := j.evs[:B/32]
	at := j.at[:len(evs)]
	j.touched, j.cnt, j.cargo, j.cargoN, j.coll = j.touched[:0], j.cnt[:0], j.cargo[:0], j.cargoN[:0], false
	near := -1
	// Only a record that starts past nearU can end within a header of the
	// block's end (event records are at most 64 bytes).
	nearU := B - 64 - headerSize
	n, u := 0, 0
records:
	for n < len(evs) && u+32 <= B {
		h := (*[32]byte)(buf[u : u+32])
		// icomm<<32 | rank below P: a world rank on MPI_COMM_WORLD.
		cr := binary.BigEndian.Uint64(h[8:16])
		if cr >= uint64(P) {
			break
		}
		w := int32(cr)
		t := math.Float64frombits(binary.BigEndian.Uint64(h[0:8]))
		e := &evs[n]
		// thread<<32 | type: thread 0, an event record; then its pad 0.
		var size int
		switch binary.BigEndian.Uint64(h[16:24]) {
		case recBareEvt:
			if binary.BigEndian.Uint32(h[28:32]) != 0 {
				break records
			}
			*e = tracefmt.Event{Time: t, Match: w, Kind: provEvent, Peer: int32(binary.BigEndian.Uint32(h[24:28]))}
			size = 32
		case recCargoEvt:
			if u+64 > B || binary.BigEndian.Uint32(h[28:32]) != 0 {
				break records
			}
			// Its text is interned when the block is taken in and set
			// when the events are placed.
			j.cargo = append(j.cargo, int32(u))
			j.cargoN = append(j.cargoN, int32(n))
			*e = tracefmt.Event{Time: t, Match: w, Kind: provEvent, Peer: int32(binary.BigEndian.Uint32(h[24:28]))}
			size = 64
		case recMsgEvt:
			if u+48 > B {
				break records
			}
			rec := (*[48]byte)(buf[u : u+48])
			etype, partner := int32(binary.BigEndian.Uint32(rec[24:28])), binary.BigEndian.Uint32(rec[32:36])
			// Communicator 0, a world partner, a size of 0 or more, pad 0.
			if etype != etypeSend && etype != etypeRecv || binary.BigEndian.Uint32(rec[28:32]) != 0 ||
				partner >= uint32(P) || rec[40]&0x80 != 0 || binary.BigEndian.Uint32(rec[44:48]) != 0 {
				break records
			}
			var fl tracefmt.Flags
			if etype == etypeRecv {
				fl = 1
			}
			*e = tracefmt.Event{Time: t, Match: w, Kind: provMsg, Tag: int32(binary.BigEndian.Uint32(rec[36:40])),
				Size: int64(binary.BigEndian.Uint32(rec[40:44])), Peer: int32(partner), Flags: fl}
			e.SetRequest(int64(partner))
			size = 48
		case recCollEvt:
			if u+40 > B {
				break records
			}
			rec := (*[40]byte)(buf[u : u+40])
			root := binary.BigEndian.Uint32(rec[28:32])
			if rec[32]&0x80 != 0 || root != math.MaxUint32 && root >= uint32(P) || binary.BigEndian.Uint32(rec[36:40]) != 0 {
				break records
			}
			j.coll = true
			peer := int32(root) // -1: none (peerNone)
			*e = tracefmt.Event{Time: t, Match: w, Kind: provColl, Tag: int32(binary.BigEndian.Uint32(rec[24:28])),
				Size: int64(binary.BigEndian.Uint32(rec[32:36])), Peer: peer}
			e.SetRequest(int64(int32(root)))
			size = 40
		default:
			break records
		}
		if u > nearU && near < 0 && u+size+headerSize >= B {
			near = u
		}
		n++
		u += size
	}
	j.nrec, j.stop, j.near = n, u, near
	j.follow(evs[:n], at[:n], post)
}

// follow notes the global order of a block's scanned events (sorted among
// themselves, the first and last time and rank, their order hash) and
// where each goes. It runs after the decoding loop, over the events in
// the cache, so that neither loop runs out of registers.
func (j *blockJob) follow(evs []tracefmt.Event, at []evPlace, post []int32) {
	sorted, hash := true, uint64(0)
	var lastT float64
	lastW := int32(-1)
	if len(evs) > 0 {
		j.firstT, j.firstW = evs[0].Time, evs[0].Match
		lastT, lastW = evs[0].Time, evs[0].Match
		hash = uint64(lastW) + 1
	}
	// Two loops, each with few enough values for the registers: the
	// order and its hash, then the places.
	for n := 1; n < len(evs); n++ {
		t, w := evs[n].Time, evs[n].Match
		if !(t > lastT || t == lastT && (w == lastW || post[lastW] < post[w])) {
			sorted = false
		}
		lastT, lastW = t, w
		hash = hash*orderMul + uint64(w) + 1
	}
	j.sorted, j.lastT, j.lastW, j.hash = sorted, lastT, lastW, hash
	maxW := int32(-1)
	loc, cnt := j.loc, j.cnt
	at = at[:len(evs)]
	for n := range evs {
		w := evs[n].Match
		l := loc[w]
		if l == 0 {
			j.touched = append(j.touched, w)
			cnt = append(cnt, 0)
			maxW = max(maxW, w)
			l = int32(len(cnt))
			loc[w] = l
		}
		c := &cnt[l-1]
		at[n] = evPlace{l - 1, *c}
		*c++
	}
	j.cnt, j.maxW = cnt, maxW
}

// placeEvents copies the events scan decoded into the places takeBlock
// gave them, with the texts of their cargo.
func (rd *reader) placeEvents(j *blockJob) {
	evs := j.evs[:j.nrec]
	at := j.at[:len(evs)]
	for c, n := range j.cargoN {
		evs[n].SetTextRef(int(j.texts[c]))
	}
	dst := j.dst
	for n := range evs {
		p := at[n]
		dst[p.l][p.k] = evs[n]
	}
	// The places point into the ranks' buffers, which may move: a job
	// waiting in the pool must not keep their old arrays alive.
	clear(dst)
}
