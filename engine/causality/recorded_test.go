package causality

import (
	"context"
	"strings"
	"testing"

	"github.com/tracesim/tracesim/engine/replay"
	"github.com/tracesim/tracesim/tracefmt/formats"
)

// TestCheckRecordedSends: check's causal replay replays the sends the
// recorded run buffered as buffered, so a trace that completed has no
// deadlock finding; replayed with the rendezvous protocol (--send auto)
// the finding explains the cause and the correction as sim does.
func TestCheckRecordedSends(t *testing.T) {
	// Two ranks MPI_Send 1 MiB and 512 KiB to each other, then receive;
	// the recorded run buffered both sends.
	tr, _, err := formats.Open(context.Background(), "../../testdata/tsim/unsafe-exchange.tsim", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	rep := check(t, tr, Options{Replay: ReplayOn})
	if !rep.Replayed || rep.Deadlock != nil || rep.Counts[KindDeadlock] != 0 {
		t.Fatalf("default: replayed %v, deadlock %+v", rep.Replayed, rep.Deadlock)
	}
	if want := "2 sends of 64KiB or more (the eager threshold) completed before their receive was posted in the recorded run; replayed as buffered"; len(rep.ReplayNotes) != 1 || !strings.HasPrefix(rep.ReplayNotes[0], want) {
		t.Errorf("replay notes %q, want one starting %q", rep.ReplayNotes, want)
	}
	cfg := replay.Default()
	cfg.Mode, cfg.Model, cfg.Send = replay.Causal, replay.ModelPuppet, replay.SendAuto
	rep = check(t, tr, Options{Replay: ReplayOn, ReplayConfig: &cfg})
	if rep.Counts[KindDeadlock] != 1 {
		t.Fatalf("--send auto: counts %v", counts(rep))
	}
	var f Finding
	for _, x := range rep.Findings() {
		if x.Kind == KindDeadlock {
			f = x
		}
	}
	d := rep.Detail(&f)
	for _, want := range []string{
		"cause: sends of 64KiB or more (the eager threshold) wait for their receive (rendezvous): rank 0's 1048576 B to rank 1, rank 1's 524288 B to rank 0",
		"the recorded run completed 2 of them before their receive was posted: its MPI buffered them",
		"correction: --eager-threshold 1025KiB replays them buffered (eager)",
	} {
		if !strings.Contains(d, want) {
			t.Errorf("detail %q\nlacks %q", d, want)
		}
	}
}
