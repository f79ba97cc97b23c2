package tracefmt

import (
	"fmt"

	"github.com/tracesim/tracesim/tracefmt/units"
)

// MaxEmptyRanks is the most ranks without a single event that a trace may
// declare. Every rank of an MPI run records at least its init and
// finalize, so empty ranks are rare in real traces; a tiny file that
// claims a world of a million ranks would otherwise cost gigabytes in
// every analysis that keeps per-rank state, for no information.
const MaxEmptyRanks = 1 << 16

// RankBytes estimates the memory one rank costs the readers, the checks
// and the simulation even when it has no events (measured on `check` and
// `sim` of a world of 2^20 empty ranks).
const RankBytes = 2 << 10

// CheckWorld refuses a declared world of world ranks of which only
// withEvents have any event, when more than MaxEmptyRanks are empty. The
// error gives the memory the empty ranks would cost, so that a reader can
// tell a corrupt or hostile size from a real need. Readers call it before
// allocating anything per rank.
func CheckWorld(world, withEvents int) error {
	empty := world - withEvents
	if empty <= MaxEmptyRanks {
		return nil
	}
	return fmt.Errorf("the world has %d ranks but only %d of them have events: its %d empty ranks would need about %s of memory to check or simulate, and at most %d may be empty",
		world, withEvents, empty, units.FormatBytes(int64(empty)*RankBytes), MaxEmptyRanks)
}

// CheckBuilt is CheckWorld for a trace a lazy Builder is filling: it
// counts the ranks of t that have events. A reader calls it before
// Builder.Finish, which refuses such a world too but cannot say where in
// the file the world was declared.
func CheckBuilt(t *Trace, world int) error {
	withEvents := 0
	for i := range t.Ranks {
		if len(t.Ranks[i].Events) > 0 {
			withEvents++
		}
	}
	return CheckWorld(world, withEvents)
}
