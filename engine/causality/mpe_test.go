package causality

import (
	"bytes"
	"context"
	"testing"

	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/tracefmt/clog2"
	"github.com/tracesim/tracesim/tracefmt/formats"
	"github.com/tracesim/tracesim/tracefmt/gen"
)

// mpeTrace writes a generated trace as MPE would have logged it (its MPI
// calls as states, collectives with no record of their own) in CLOG2, and
// reads it back.
func mpeTrace(t *testing.T, o gen.Options) *tracefmt.Trace {
	t.Helper()
	tr, err := gen.Generate(o)
	if err != nil {
		t.Fatal(err)
	}
	tr.Remove(func(_ int, e *tracefmt.Event) bool { return e.Kind == tracefmt.KindCollective })
	var buf bytes.Buffer
	if err := clog2.Write(&buf, tr); err != nil {
		t.Fatal(err)
	}
	back, err := clog2.Read(&buf)
	if err != nil {
		t.Fatal(err)
	}
	return back
}

// TestMPECollectives: collectives logged only as MPE states take part in
// the check, over skewed clocks as in the MPI_Allreduce trace, and
// the correction leaves no violation.
func TestMPECollectives(t *testing.T) {
	tests := []struct {
		pattern string
		skew    float64
		want    bool // collective findings
	}{
		{"cg", 0, false},
		{"cg", 200e-6, true},
		{"alltoall", 0, false},
		{"alltoall", 200e-6, true},
	}
	for _, tt := range tests {
		t.Run(tt.pattern, func(t *testing.T) {
			tr := mpeTrace(t, gen.Options{Pattern: tt.pattern, Iters: 10, Compute: -1, Seed: 3, Skew: tt.skew})
			s := tracefmt.Summarize(tr)
			if s.Collectives == 0 {
				t.Fatal("no collective events derived from the MPE states")
			}
			rep := check(t, tr, Options{Replay: ReplayOff})
			if rep.Collectives == 0 {
				t.Errorf("check counts 0 collective calls in a trace of %d collective events", s.Collectives)
			}
			if got := rep.Counts[KindCollective] > 0; got != tt.want {
				t.Errorf("collective findings %d, want some: %v", rep.Counts[KindCollective], tt.want)
			}
			c := correct(t, tr, CorrectOptions{})
			if c.ViolationsAfter() != 0 {
				t.Errorf("%d violations left after the correction (%d before)", c.ViolationsAfter(), c.ViolationsBefore())
			}
			if after := check(t, c.Trace, Options{Replay: ReplayOff}); after.Counts[KindCollective] != 0 {
				t.Errorf("the corrected trace still has %d collective findings", after.Counts[KindCollective])
			}
		})
	}
}

// TestMPERecordings: real MPE2 2.4.6 recordings (testdata/mpe, see its
// build.sh). allreduce ran on clocks up to 32 ms apart without MPE's
// synchronisation: its MPI_Allreduce calls, logged as states only, have
// ranks that leave before another enters; the correction leaves none.
func TestMPERecordings(t *testing.T) {
	tests := []struct {
		file        string
		collectives int // calls over all members
		findings    bool
	}{
		{"allreduce.clog2", 10, true},
		{"colls.clog2", 30, true},
		{"masterworker.clog2", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			tr, _, err := formats.Open(context.Background(), "../../testdata/mpe/"+tt.file, "", nil)
			if err != nil {
				t.Fatal(err)
			}
			rep := check(t, tr, Options{Replay: ReplayOff})
			if rep.Collectives != tt.collectives {
				t.Errorf("%d collective calls, want %d", rep.Collectives, tt.collectives)
			}
			if got := rep.Counts[KindCollective] > 0; got != tt.findings {
				t.Errorf("%d collective findings, want some: %v", rep.Counts[KindCollective], tt.findings)
			}
			c := correct(t, tr, CorrectOptions{})
			if c.ViolationsAfter() != 0 {
				t.Errorf("%d violations left after the correction (%d before)", c.ViolationsAfter(), c.ViolationsBefore())
			}
		})
	}
}

// TestMPEIrecvNoFalseDeadlock: testdata/mpe/irecv.clog2 is MPE2's
// recording of irecv.c (NAS CG's MPI_Irecv, MPI_Send, MPI_Wait exchange
// of 100,000 B and a halo of MPI_Irecv, MPI_Isend, MPI_Waitall). MPE logs
// each receive in the wait that completed it; the causal replay reported
// a deadlock (each rank's rendezvous MPI_Send waiting for a receive
// posted only at its partner's wait), which the real run did not have.
// The replay now posts each receive at its MPI_Irecv call.
func TestMPEIrecvNoFalseDeadlock(t *testing.T) {
	tr, _, err := formats.Open(context.Background(), "../../testdata/mpe/irecv.clog2", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if s := tracefmt.Summarize(tr); s.Messages.Matched != 36 {
		t.Fatalf("%d messages matched, want MPE's 36", s.Messages.Matched)
	}
	rep := check(t, tr, Options{Replay: ReplayOn})
	if n := rep.Counts[KindDeadlock]; n != 0 {
		t.Errorf("%d deadlock findings: %v", n, rep.Findings())
	}
	if v := rep.Violations(); v != 0 {
		t.Errorf("%d violations: %v", v, rep.Findings())
	}
}
