package main

import (
	"fmt"

	"github.com/tracesim/tracesim/engine/des"
	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/tracefmt/units"
)

// defaultMaxOutput is --max-output's default: 1 GiB.
const defaultMaxOutput = 1 << 30

// lineBytes is about the size of one network line of --metrics-out's CSV
// ("1.5e-05,network,all,messages_delivered,3").
const lineBytes = 40

// checkSampleOutput refuses, before the run, a --metrics-out whose
// sampling period would write more than limit bytes over the trace's
// recorded span, saying the estimate: each sample writes at least its
// network lines (lines: eleven for the packet model, six for the flow
// model, packet.NetworkLines), before any group, link or queue line. A
// trace without times gives no span; its file is then bounded while it
// is written (atomicfile's Limit).
func checkSampleOutput(t *tracefmt.Trace, period des.Time, limit int64, lines int) error {
	if period <= 0 || limit <= 0 || !t.Timed {
		return nil
	}
	start, end := t.Span()
	span := t.Seconds(end - start)
	periods := span / period.Seconds()
	est := periods * float64(lines*lineBytes)
	if est <= float64(limit) {
		return nil
	}
	return fmt.Errorf("--metrics-out: a --sample-period of %s over the trace's %s is %.3g periods, at least %s of samples if the network is busy throughout, beyond --max-output %s: give a longer period or a larger --max-output",
		units.FormatDuration(period.Seconds()), units.FormatDuration(span), periods, units.FormatBytes(int64(min(est, 1<<62))), units.FormatBytes(limit))
}
