package analysis

import (
	"math"

	"github.com/tracesim/tracesim/tracefmt"
)

// FinishShift returns, for each rank of the recorded trace rec, its
// predicted finish in pred minus its recorded finish, each counted from
// its own run's start, in seconds: what the Timeline prints at the end of
// a rank's predicted row (+1.2 ms: the prediction finishes later). A rank
// is NaN when rec is untimed (it recorded no finish) or pred lacks it.
// Shifts within a billionth of the recorded run are 0: they are the
// rounding of times converted between the two traces' units, not a
// prediction.
func FinishShift(rec, pred *tracefmt.Trace) []float64 {
	out := make([]float64, len(rec.Ranks))
	fr, fp := rec.FinishTimes(), pred.FinishTimes()
	r0, re := rec.Span()
	p0, _ := pred.Span()
	tiny := rec.Seconds(re-r0) * 1e-9
	for r := range out {
		if !rec.Timed || r >= len(fp) {
			out[r] = math.NaN()
			continue
		}
		out[r] = float64(pred.Seconds(fp[r]-p0)) - float64(rec.Seconds(fr[r]-r0))
		if math.Abs(out[r]) <= tiny {
			out[r] = 0
		}
	}
	return out
}
