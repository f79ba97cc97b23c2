package des

import "math/rand/v2"

// Kernel is a simulation clock with its event queue and random source.
// It is not safe for concurrent use: one goroutine runs a simulation.
type Kernel struct {
	// q holds the events in a calendar: the clock never goes back
	// (Schedule moves a late event to the present), which is all it
	// needs.
	q      calQueue
	now    Time
	events uint64
	late   uint64
	rng    *rand.Rand
	// over is the first event refused for lying at Never; overflow
	// says there is one.
	over     Event
	overflow bool
}

// NewKernel returns a kernel at time 0 whose random source is a PCG
// generator seeded with seed, so that two kernels with the same seed draw
// the same numbers.
func NewKernel(seed uint64) *Kernel {
	return &Kernel{q: newCalQueue(0), rng: rand.New(rand.NewPCG(seed, 0x7472616365736d))} // "tracesm"
}

// Now returns the current simulated time: the time of the last event
// taken from the queue.
func (k *Kernel) Now() Time { return k.now }

// Schedule queues an event at time at. An event in the past is moved to
// the present (and counted by Late), so that time never runs backwards.
// An event at Never — the result of Add or Mul past the end of Time's
// range — is not queued but kept for Overflow: its owner must stop the
// run with an error rather than report a time that wrapped.
func (k *Kernel) Schedule(at Time, kind uint8, obj int32, arg int64) {
	if at < k.now {
		at = k.now
		k.late++
	}
	if at == Never {
		if !k.overflow {
			k.overflow = true
			k.over = Event{At: k.now, Arg: arg, Obj: obj, Kind: kind}
		}
		return
	}
	k.q.Push(at, kind, obj, arg)
}

// Overflow returns the first event that was scheduled at Never, with its
// At set to the time it was scheduled; ok is false if there was none.
func (k *Kernel) Overflow() (e Event, ok bool) { return k.over, k.overflow }

// Overflowed reports whether an event was scheduled at Never (Overflow
// returns it): a check cheap enough for every step.
func (k *Kernel) Overflowed() bool { return k.overflow }

// Grow makes room in the queue for n more events at the present (a
// burst of start events).
func (k *Kernel) Grow(n int) { k.q.Grow(n) }

// Next removes the earliest event, advances the clock to its time and
// returns it; ok is false when no event is left.
func (k *Kernel) Next() (e Event, ok bool) {
	e, ok = k.q.Pop()
	if ok {
		k.now = e.At
		k.events++
	}
	return e, ok
}

// NextTime returns the time of the earliest queued event, or Never.
func (k *Kernel) NextTime() Time {
	if e, ok := k.q.Peek(); ok {
		return e.At
	}
	return Never
}

// Pending returns the number of queued events.
func (k *Kernel) Pending() int { return k.q.Len() }

// Events returns the number of events taken from the queue so far.
func (k *Kernel) Events() uint64 { return k.events }

// Late returns how many events were scheduled in the past and moved to
// the present; a correct model never does it.
func (k *Kernel) Late() uint64 { return k.late }

// Rand returns the kernel's random source. Models draw from it in event
// order, which keeps runs reproducible.
func (k *Kernel) Rand() *rand.Rand { return k.rng }
