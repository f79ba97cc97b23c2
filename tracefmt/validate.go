package tracefmt

import "fmt"

// validate checks t as Validate describes and, when match is set, pairs
// its messages as MatchMessages does: Builder.Finish's two steps in one
// walk over each rank's events (the sends queued and the receives listed
// while they are checked), then one walk over the receives alone. Two
// whole walks after the check, each loading every event again, were most
// of Finish's cost. On an error no message is matched.
func (t *Trace) validate(match bool) error {
	p := len(t.Ranks)
	if p == 0 {
		return fmt.Errorf("trace has no ranks")
	}
	if len(t.Comms) == 0 {
		return fmt.Errorf("trace has no communicators (MPI_COMM_WORLD missing)")
	}
	for ci, c := range t.Comms {
		for _, w := range c.Ranks {
			if w < 0 || int(w) >= p {
				return fmt.Errorf("communicator %d: world rank %d outside 0..%d", ci, w, p-1)
			}
		}
	}
	return t.walk(true, match)
}

// walk runs walker.rank over every rank, checking (when check is set) and
// queueing messages (when match is set), then matches the receives. It
// returns the error of the first broken event in rank order, whatever the
// order the ranks were walked in.
func (t *Trace) walk(check, match bool) error {
	p := len(t.Ranks)
	workers := t.rankWorkers()
	w := walker{t: t, check: check, msgs: make([][]int32, workers), lim: limits{
		p: uint(p), comms: uint(len(t.Comms)), states: uint(len(t.States)), markers: uint(len(t.Markers)), texts: len(t.Texts),
	}}
	if match {
		w.m = &matcher{t: t, senders: make([]sendTable, p), scratch: make([]matchScratch, workers)}
	}
	if workers <= 1 {
		for r := range p {
			if err := w.rank(0, r); err != nil {
				return err
			}
		}
	} else {
		// Each worker keeps its first error: its runs of ranks come in
		// increasing order, so it need not walk any rank after it.
		first := make([]rankError, workers)
		forRanks(p, workers, func(k, r int) {
			if f := &first[k]; f.err == nil {
				f.rank, f.err = r, w.rank(k, r)
			}
		})
		var err error
		at := p
		for _, f := range first {
			if f.err != nil && f.rank < at {
				at, err = f.rank, f.err
			}
		}
		if err != nil {
			return err
		}
	}
	if !match {
		return nil
	}
	m := w.m
	for k := range m.scratch {
		if m.scratch[k].stale {
			// A send carried a match of its own: the walk only read it
			// (a receive's check reads its partner's), so it is
			// discarded now, before the receives pair them again.
			forRanks(p, workers, m.unmatchSends)
			break
		}
	}
	forRanks(p, workers, m.recvs)
	return nil
}

// rankError is a worker's first error and its rank.
type rankError struct {
	rank int
	err  error
}

// walker holds what rank needs: the trace, whether to check it, the
// matcher (nil when messages are not matched) and each worker's list of
// the message events of the rank it walks.
type walker struct {
	t     *Trace
	check bool
	m     *matcher
	msgs  [][]int32
	lim   limits
}

// limits holds the sizes of the trace's tables that events refer to.
type limits struct {
	p, comms, states, markers uint
	texts                     int
}

// rank checks the events of rank r (see Validate) and queues its messages
// for the matcher. When check is off the tests still run, but a broken
// event is passed over (MatchMessages on a trace never validated).
//
// The loop runs once per event of every trace read, so it only tests: a
// kind's checks sit in their own case of a switch the compiler turns into
// a jump table, and no error is built in the loop. When a test fails, eventError (the checks of one event, written
// plainly) says what is wrong: every condition here is one of its
// conditions, so the error text and the first event reported are the same
// as checking event by event with it. It writes no event: a check of
// another rank may be reading this rank's matches meanwhile.
func (w *walker) rank(worker, r int) error {
	t := w.t
	ev := t.Ranks[r].Events
	n := uint(len(ev))
	// The table sizes are read through l where they are tested: kept in
	// registers they pushed the loop's own values to the stack.
	l := &w.lim
	// msgs lists the rank's sends (their indices) and receives (their
	// indices' complements) in order, for the matcher. As long as the
	// events (len(msgs) is n's value): k is at most i, so its store has
	// no other bound to test, and the loop keeps its few values in
	// registers.
	msgs := w.msgs[worker]
	if cap(msgs) < len(ev) {
		msgs = make([]int32, len(ev))
		w.msgs[worker] = msgs
	}
	msgs = msgs[:len(ev)]
	k := 0
	// leave is the index of the leave that the latest enter's tests
	// found paired with it: that leave's own tests (its state, its
	// pairing) are the same comparisons, so it only needs its
	// communicator's. Nested states pair the innermost this way; the
	// other leaves are tested in full.
	leave := -1
	for i := range ev {
		e := &ev[i]
		if uint(e.Comm) >= l.comms {
			goto bad
		}
		// uint(int(x)) >= n is x < 0 || x >= n in one test.
		switch e.Kind {
		case KindEnter:
			if uint(int(e.Peer)) >= l.states || int(e.aux)-1 >= l.texts {
				goto bad
			}
			if m := uint(int(e.Match)); int(m) >= 0 {
				if m >= n {
					goto bad
				}
				if o := &ev[m]; o.Match != int32(i) || o.Peer != e.Peer {
					goto bad
				}
				leave = int(m)
			}
		case KindLeave:
			if i == leave {
				continue
			}
			if uint(int(e.Peer)) >= l.states {
				goto bad
			}
			if m := uint(int(e.Match)); int(m) >= 0 {
				if m >= n {
					goto bad
				}
				if o := &ev[m]; o.Match != int32(i) || o.Peer != e.Peer {
					goto bad
				}
			}
		case KindSend:
			// Send and receive in separate cases (the same tests):
			// eight cases make a jump table, seven a binary search.
			msgs[k] = int32(i)
			k++
			if uint(int(e.Peer)) >= l.p || e.Size < 0 {
				goto bad
			}
			if e.Match >= 0 && !t.matchesBack(e, r, i) {
				goto bad
			}
		case KindRecv:
			msgs[k] = ^int32(i)
			k++
			if uint(int(e.Peer)) >= l.p || e.Size < 0 {
				goto bad
			}
			if e.Match >= 0 && !t.matchesBack(e, r, i) {
				goto bad
			}
		case KindWait:
		case KindCollective:
			// Root -1 (none) to p-1: Peer+1 below p+1.
			if uint(int(e.Peer)+1) >= l.p+1 || e.Size|e.aux < 0 {
				goto bad
			}
		case KindCompute:
			// A finite amount not below zero: the bits of +0 up to
			// +Inf, exclusive; -0 is valid too but rare enough to
			// take eventError's path.
			if uint64(e.aux) >= 0x7ff0000000000000 {
				goto bad
			}
		case KindMarker:
			if uint(int(e.Peer)) >= l.markers || int(e.aux)-1 >= l.texts {
				goto bad
			}
		default:
			goto bad
		}
		continue
	bad:
		if !w.check {
			// Unchecked, a message of an undefined communicator is
			// matched still: the test above skipped its listing.
			if uint(e.Comm) >= l.comms && (e.Kind == KindSend || e.Kind == KindRecv) {
				msgs[k] = int32(i)
				if e.Kind == KindRecv {
					msgs[k] = ^int32(i)
				}
				k++
			}
			continue
		}
		if err := t.eventError(r, i); err != nil {
			return err
		}
	}
	if w.m != nil {
		w.m.table(worker, r, msgs[:k])
	}
	return nil
}
