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
// as a sequential read does. So the trace, and the first error in file
// order with its offset, are those of a sequential read.

// Bounds of parallel decoding: blocks of at most maxParBlock bytes, files
// of at least parDecodeBlocks blocks, and blocksPerWorker blocks per
// worker in flight (read, being decoded or waiting to be taken in), so the
// memory held does not grow with the file.
const (
	maxParBlock     = 1 << 20
	parDecodeBlocks = 16
	blocksPerWorker = 3
)

// blockJob is one block on its way through the workers.
type blockJob struct {
	k   int64
	buf []byte
	n   int   // bytes read
	err error // the read's error
	// bat holds the events decoded by a worker, stop the offset of the
	// first record it left to the reader's goroutine.
	bat  *batch
	stop int
	done chan struct{}
	// home gets bat back from the scatter goroutine; out says bat was
	// sent there and not back yet.
	home chan *batch
	out  bool
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
	rd.startScatter()
	defer rd.stopScatter()
	nb := rd.p.numBlocks()
	B := rd.p.blockSize
	njobs := blocksPerWorker * rd.workers
	pool := make(chan *blockJob, njobs)
	work := make(chan *blockJob, njobs)
	order := make(chan *blockJob, njobs)
	quit := make(chan struct{})
	var wg sync.WaitGroup
	defer func() {
		close(quit)
		wg.Wait()
	}()
	wg.Go(func() { rd.readAhead(nb, njobs, pool, work, order, quit) })
	for range rd.workers {
		wg.Go(func() {
			for j := range work {
				j.stop = rd.predecode(j.buf, j.bat)
				close(j.done)
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
		last, err := rd.takeBlock(j)
		if err != nil {
			return err
		}
		rd.flush()
		rd.nBlock = k + 1
		if last {
			if k != nb-1 {
				return errAt(rd.pos, int(k), "ENDLOG in block %d, but commtable_fptr announces %d blocks", k, nb)
			}
			rd.pos += int64(B)
			return nil
		}
		if k == nb-1 {
			return errAt(rd.pos+int64(B)-1, int(k), "the last block (commtable_fptr announces %d) ends with ENDBLOCK: expected ENDLOG", nb)
		}
		// The block before is no longer needed for the filler check.
		if prev != nil {
			pool <- prev
		}
		prev = j
		rd.pos += int64(B)
	}
	return nil
}

// readAhead reads the nb blocks into jobs from the pool and hands them to
// the workers and, in file order, to the reader's goroutine. A read error
// ends the blocks with a job that carries it. Jobs are made as they are
// needed, njobs at most, so that a file shorter than its preamble says
// does not have the memory of all of them allocated.
func (rd *reader) readAhead(nb int64, njobs int, pool chan *blockJob, work, order chan *blockJob, quit chan struct{}) {
	defer close(work)
	made := 0
	for k := range nb {
		var j *blockJob
		select {
		case j = <-pool:
		default:
			if made < njobs {
				made++
				B := rd.p.blockSize
				j = &blockJob{
					buf:  make([]byte, B),
					bat:  &batch{ev: make([]pendingEvent, B/32+1)},
					home: make(chan *batch, 1),
				}
				break
			}
			select {
			case j = <-pool:
			case <-quit:
				return
			}
		}
		if j.out {
			select {
			case <-j.home:
			case <-quit:
				return
			}
			j.out = false
		}
		j.k, j.bat.n, j.stop = k, 0, 0
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

// takeBlock takes in a block that a worker decoded up to j.stop: what
// record does for each decoded event that depends on the records before,
// then the rest of the block record by record. It reports whether the
// block ended with ENDLOG.
func (rd *reader) takeBlock(j *blockJob) (bool, error) {
	buf := j.buf
	B := len(buf)
	b := j.bat
	evs := b.ev[:b.n]
	if len(evs) > 0 {
		if int(b.maxW) >= len(rd.seen) {
			seen := make([]rankState, min(max(int(b.maxW)+1, 2*len(rd.seen), 16), rd.P))
			copy(seen, rd.seen)
			rd.seen = seen
		}
		seen := rd.seen
		for _, w := range b.touched {
			seen[w].n += int(b.cnt[w])
			b.cnt[w] = 0
		}
		b.touched = b.touched[:0]
		// next is where the record after event i starts.
		next := func(i int) int {
			if i+1 < len(evs) {
				return int(evs[i+1].u)
			}
			return j.stop
		}
		// The block layout checks look at the block's first record (after
		// an ENDBLOCK) and at the records that end within a header of the
		// block's end, which are the last ones; they only ever clear
		// packOK past the first, so the order of the calls does not matter.
		if rd.endU >= 0 {
			rd.checkPacking(evs[0].e.Time, int(evs[0].u), next(0)-int(evs[0].u))
		}
		for i := len(evs) - 1; i >= 0 && next(i)+headerSize >= B; i-- {
			rd.checkPacking(evs[i].e.Time, int(evs[i].u), next(i)-int(evs[i].u))
		}
		for _, i := range b.cargo {
			p := &evs[i]
			p.e.SetTextRef(int(rd.cargoText(buf[p.u+32 : p.u+64])))
		}
		b.cargo = b.cargo[:0]
		if b.coll {
			rd.anyColl = true
		}
	}
	rd.inBlock += int64(b.n)
	if b.n > 0 {
		b.block = rd.block
		b.home = j.home
		j.out = true
		rd.flush()
		rd.full <- b
	}
	return rd.parseFrom(buf, j.stop)
}

// predecode decodes the records of a block from its start, as record
// does, for as long as they need nothing but their own bytes, into b; it
// returns the offset of the first record it leaves (a terminator at the
// latest). It reads only what does not change while blocks are read. The
// file is big-endian (parallelDecode): reading the fields without asking
// the byte order each time takes a fifth off the decoding.
func (rd *reader) predecode(buf []byte, b *batch) int {
	B, P := len(buf), uint32(rd.P)
	i32 := func(b []byte) int32 { return int32(binary.BigEndian.Uint32(b)) }
	b.touched, b.cargo, b.maxW, b.coll = b.touched[:0], b.cargo[:0], -1, false
	u := 0
	for {
		// Every record decoded here has 32 bytes or more: the header and
		// the event type through h, whose length the compiler knows.
		if u+32 > B {
			return u
		}
		h := (*[32]byte)(buf[u : u+32])
		rt := i32(h[20:24])
		if rt < recBareEvt || rt > recCollEvt {
			return u
		}
		size := recSize[rt]
		if u+size > B {
			return u
		}
		rec := buf[u : u+size]
		icomm, hrank, thread := i32(h[8:12]), i32(h[12:16]), i32(h[16:20])
		if icomm != 0 || uint32(hrank) >= P || thread != 0 || binary.LittleEndian.Uint32(rec[padAt[rt]:]) != 0 {
			return u
		}
		p := &b.ev[b.n]
		p.w, p.u = hrank, int32(u)
		e := &p.e
		*e = tracefmt.Event{Time: math.Float64frombits(binary.BigEndian.Uint64(h[0:8])), Match: hrank}
		switch rt {
		case recBareEvt, recCargoEvt:
			// A cargo's text is interned when the block is taken in.
			e.Kind, e.Peer = provEvent, i32(h[24:28])
			if rt == recCargoEvt {
				b.cargo = append(b.cargo, int32(b.n))
			}
		case recMsgEvt:
			etype, mc, partner, tag, size := i32(rec[24:]), i32(rec[28:]), i32(rec[32:]), i32(rec[36:]), i32(rec[40:])
			if etype != etypeSend && etype != etypeRecv || size < 0 || mc != 0 || uint32(partner) >= P {
				return u
			}
			e.Kind, e.Tag, e.Size, e.Peer = provMsg, tag, int64(size), partner
			e.SetRequest(int64(uint32(partner)))
			if etype == etypeRecv {
				e.Flags = 1
			}
		case recCollEvt:
			etype, root, size := i32(rec[24:]), i32(rec[28:]), i32(rec[32:])
			if size < 0 || root != -1 && uint32(root) >= P {
				return u
			}
			e.Kind, e.Tag, e.Size = provColl, etype, int64(size)
			b.coll = true
			e.SetRequest(int64(root))
			e.Peer = peerNone
			if root != -1 {
				e.Peer = root
			}
		default:
			return u
		}
		// Count the event for takeBlock.
		if int(hrank) >= len(b.cnt) {
			b.cnt = append(b.cnt, make([]int32, int(hrank)+1-len(b.cnt))...)
		}
		if b.cnt[hrank] == 0 {
			b.touched = append(b.touched, hrank)
			b.maxW = max(b.maxW, hrank)
		}
		b.cnt[hrank]++
		b.n++
		u += size
	}
}
