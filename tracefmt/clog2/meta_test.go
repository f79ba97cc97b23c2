package clog2

import (
	"bytes"
	"fmt"
	"math"
	"reflect"
	"testing"

	"github.com/tracesim/tracesim/tracefmt"
)

// TestMetaAsMoveToMeta: Read keeps bookkeeping records out of the streams
// as it resolves them; the trace is the one Trace.MoveToMeta makes, after
// collectives are derived, of the streams with those records in place
// (recordsOf: Meta back in the streams, derived collectives out): the
// same streams, markers (ids and table) and Meta records, places
// included.
func TestMetaAsMoveToMeta(t *testing.T) {
	read := 0
	inputs := resolveInputs(t)
	for name, data := range inputs {
		t.Run(name, func(t *testing.T) {
			for _, workers := range []int{1, 3} {
				parMin := math.MaxInt
				if workers > 1 {
					parMin = 0
				}
				rd := newReader(bytes.NewReader(data), parMin, workers)
				tr, err := rd.read()
				if err != nil {
					return // TestParallelResolveSame compares the errors
				}
				read++
				if len(tr.Meta) == 0 {
					t.Fatal("no records in Meta")
				}
				want := recordsOf(tr)
				if v, _ := tr.Attr(attrDerivedColls); v == "true" {
					want.DeriveCollectives(nil)
				}
				want.MoveToMeta(func(m *tracefmt.MarkerDef) bool { return IsBookkeeping(m.Name) || rd.p.isKnownSolo(m.Source.ID) })
				if !reflect.DeepEqual(tr.Meta, want.Meta) {
					t.Errorf("%d workers: Meta\n%s\nwant (MoveToMeta)\n%s", workers, metaList(tr), metaList(want))
				}
				if !reflect.DeepEqual(tr.Markers, want.Markers) {
					t.Errorf("%d workers: markers %v, want %v", workers, tr.Markers, want.Markers)
				}
				for r := range tr.Ranks {
					if got, w := kinds(tr.Ranks[r].Events), kinds(want.Ranks[r].Events); got != w {
						t.Errorf("%d workers: rank %d's stream\n%s\nwant (MoveToMeta)\n%s", workers, r, got, w)
					}
				}
			}
		})
	}
	if read < len(inputs) {
		t.Errorf("%d reads of %d inputs, 2 each", read, len(inputs))
	}
}

func metaList(t *tracefmt.Trace) string {
	var b bytes.Buffer
	for _, m := range t.Meta {
		fmt.Fprintf(&b, "rank %d before %d: %s %q\n", m.Rank, m.Before, m.Name, m.Text)
	}
	return b.String()
}

// oddCollectiveRecords is a file whose MPI_Allreduce states (from which
// Read derives collective events) hold records that go to Meta: a leave
// with a thread the writer does not derive, a message to MPI_PROC_NULL.
func oddCollectiveRecords() []byte {
	const P = 2
	c := newCraft(true, P, 512)
	c.auto = true
	c.worldCommEvts(P, 0)
	c.rec(0.001, 0, 0, recConstDef, constdef(-1, "MPI_PROC_NULL")...)
	tm := 0.01
	for step := range 3 {
		for r := range int32(P) {
			tm += 0.001
			c.rec(tm, 0, r, recBareEvt, bare(160)...)
			if (int(r)+step)%2 == 0 {
				c.rec(tm, 0, r, recMsgEvt, msg(etypeSend, 0, -1, 1, 8)...)
			}
			c.thread = 3
			c.rec(tm, 0, r, recBareEvt, bare(161)...)
			c.thread = 0
		}
	}
	c.rec(tm+1, 0, 0, recStateDef, statedef(80, 160, 161, "blue", "MPI_Allreduce")...)
	return c.end(recEndLog, maxTime).worldTable(P).bytes()
}

// kinds lists a stream's events: kind, time, match and (markers) marker
// id; a derived collective's sizes are left out.
func kinds(ev []tracefmt.Event) string {
	var b bytes.Buffer
	for i := range ev {
		e := &ev[i]
		fmt.Fprintf(&b, "%s %g %d", e.Kind, e.Time, e.Match)
		if e.Kind == tracefmt.KindMarker {
			fmt.Fprintf(&b, " marker %d", e.Marker())
		}
		b.WriteByte('\n')
	}
	return b.String()
}
