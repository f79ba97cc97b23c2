package main

import (
	"strings"
	"testing"
)

// TestSimRecordedSends: `tracesim sim` of an unsafe exchange the recorded
// run completed replays to the end by default and says why on stderr; a
// protocol asked for (--send auto, or --eager-threshold alone) deadlocks
// with exit 3 and prints the cause and the correction under the blocked
// ranks.
func TestSimRecordedSends(t *testing.T) {
	const path = "../../testdata/tsim/unsafe-exchange.tsim"
	tests := []struct {
		name   string
		args   []string
		code   int
		stderr string
		stdout []string
	}{
		{"default", nil, exitOK,
			"tracesim sim: 2 sends of 64KiB or more (the eager threshold) completed before their receive was posted in the recorded run; replayed as buffered",
			[]string{"messages        2 (1.5 MiB)"}},
		{"send auto", []string{"--send", "auto"}, exitFindings, "", []string{
			"DEADLOCK at ",
			"  cause: sends of 64KiB or more (the eager threshold) wait for their receive (rendezvous): rank 0's 1048576 B to rank 1, rank 1's 524288 B to rank 0\n",
			"  the recorded run completed 2 of them before their receive was posted: its MPI buffered them\n",
			"  correction: --eager-threshold 1025KiB replays them buffered (eager), --send buffered replays every send buffered, --send recorded (the default) those the recorded run buffered\n",
		}},
		{"eager threshold alone", []string{"--eager-threshold", "512KiB"}, exitFindings, "", []string{
			"  cause: sends of 512KiB or more (the eager threshold) wait for their receive (rendezvous): rank 0's 1048576 B to rank 1, rank 1's 524288 B to rank 0\n",
			"  correction: --eager-threshold 1025KiB replays them buffered (eager)",
		}},
		{"eager threshold above", []string{"--eager-threshold", "1025KiB"}, exitOK, "", []string{"messages        2 (1.5 MiB)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errs := tracesim(t, append([]string{"sim", path}, tt.args...)...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d\n%s%s", code, tt.code, out, errs)
			}
			if tt.stderr == "" && errs != "" || !strings.Contains(errs, tt.stderr) {
				t.Errorf("stderr %q, want %q", errs, tt.stderr)
			}
			for _, want := range tt.stdout {
				if !strings.Contains(out, want) {
					t.Errorf("stdout lacks %q:\n%s", want, out)
				}
			}
		})
	}
}

// TestSimRecordedParts: when MPI start-up or teardown is most of a
// recorded run, `tracesim sim` says how long each part took and compares
// the prediction with the part it replays.
func TestSimRecordedParts(t *testing.T) {
	path := shared(t, "otf2/ping-pong/traces.otf2")
	code, out, errs := tracesim(t, "sim", path)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	want := "recorded parts  193.6 ms until every rank was past MPI_Init, 5.886 ms replayed (+64.9 %), 47.11 µs after every rank entered MPI_Finalize\n"
	if !strings.Contains(out, want) {
		t.Errorf("stdout lacks %q:\n%s", want, out)
	}
}

// TestCheckRecordedSends: `tracesim check` of the exchange the recorded
// run completed finds no deadlock and says why (its causal replay
// replays the buffered sends buffered).
func TestCheckRecordedSends(t *testing.T) {
	code, out, errs := tracesim(t, "check", "../../testdata/tsim/unsafe-exchange.tsim")
	if code != exitOK {
		t.Fatalf("exit %d:\n%s%s", code, out, errs)
	}
	want := "causal replay: ran to the end\n  note: 2 sends of 64KiB or more (the eager threshold) completed before their receive was posted in the recorded run; replayed as buffered"
	if !strings.Contains(out, want) {
		t.Errorf("stdout lacks %q:\n%s", want, out)
	}
}
