package replay

import (
	"context"
	"errors"
	"io/fs"
	"math"
	"strings"
	"testing"

	"github.com/tracesim/tracesim/internal/testshared"
	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/tracefmt/formats"
	"github.com/tracesim/tracesim/tracefmt/paraver"
	"github.com/tracesim/tracesim/tracefmt/tsim"
)

// realDir holds third-party traces (../shared/testdata-external); tests
// that need them skip when it is absent.
var realDir = testshared.Dir() + "/"

// openReal reads a third-party sample, skipping the test when absent.
func openReal(t *testing.T, rel string) *tracefmt.Trace {
	t.Helper()
	tr, _, err := formats.Open(context.Background(), realDir+rel, "", nil)
	if errors.Is(err, fs.ErrNotExist) {
		t.Skipf("%s absent", realDir+rel)
	}
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// mpitraceReduce is a Paraver trace as MPITrace wrote it on an MPI whose
// collectives call MPI_Send and MPI_Recv: ranks 1 and 2 reduce to rank 1
// on their own communicator (id 2), then rank 1 broadcasts to rank 2,
// each collective realised by one 8-byte message, each MPI_Reduce's exit
// written as a second MPI_Reduce event; rank 0 only computes.
const mpitraceReduce = "#Paraver (x):100_ns:1(3):1:3(1:1,1:1,1:1),2\n" +
	"c:1:1:3:1:2:3\n" +
	"c:1:2:2:2:3\n" +
	"1:1:1:1:1:0:40:1\n" +
	"2:2:1:2:1:10:50000002:9\n" +
	"4:2:1:2:1:10:2:0:8:10:1\n" +
	"2:3:1:3:1:10:50000002:9\n" +
	"4:3:1:3:1:10:2:8:0:10:0\n" +
	"2:3:1:3:1:12:50000001:1\n" +
	"3:3:1:3:1:12:12:2:1:2:1:20:20:8:11\n" +
	"2:3:1:3:1:14:50000001:0\n" +
	"2:2:1:2:1:15:50000001:2\n" +
	"2:3:1:3:1:16:50000002:9\n" +
	"2:3:1:3:1:18:50000002:7\n" +
	"4:3:1:3:1:18:2:0:8:1:0\n" +
	"2:3:1:3:1:19:50000001:2\n" +
	"2:2:1:2:1:20:50000001:0\n" +
	"2:2:1:2:1:22:50000002:9\n" +
	"2:2:1:2:1:23:50000002:7\n" +
	"4:2:1:2:1:23:2:8:0:1:1\n" +
	"2:2:1:2:1:24:50000001:1\n" +
	"3:2:1:2:1:24:24:3:1:3:1:30:30:8:2\n" +
	"2:2:1:2:1:26:50000001:0\n" +
	"2:2:1:2:1:27:50000002:0\n" +
	"2:3:1:3:1:30:50000001:0\n" +
	"2:3:1:3:1:31:50000002:0\n"

// TestCollectiveRealisedByMessages: a collective whose call holds the
// point-to-point messages the library realised it with is replayed as
// those messages, once; the repeated MPI_Reduce event that ends it is
// not a second reduce (read so, it was a reduce on every rank's world
// that rank 0 never joins: a deadlock of a trace that completed).
func TestCollectiveRealisedByMessages(t *testing.T) {
	tr, err := paraver.Read("reduce.prv", strings.NewReader(mpitraceReduce), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, model := range []string{"flow", "puppet", "loggops"} {
		t.Run(model, func(t *testing.T) {
			cfg := cfgWith(t, "model", model)
			_, res := simulate(t, tr, cfg, Options{})
			if !res.Complete || res.Deadlock != nil {
				t.Fatalf("incomplete: %+v", res.Deadlock)
			}
			if res.Messages.Count != 2 || res.Messages.Bytes != 16 || res.Messages.Unmatched != 0 || res.CollectivesAsMessages != 4 {
				t.Errorf("messages %d (%d B), unmatched %d, collectives as messages %d; want 2 (16 B), 0, 4",
					res.Messages.Count, res.Messages.Bytes, res.Messages.Unmatched, res.CollectivesAsMessages)
			}
			want := "4 collective calls replayed as the point-to-point messages the trace records inside them"
			if len(res.Notes) != 1 || !strings.HasPrefix(res.Notes[0], want) {
				t.Errorf("notes %q, want one starting %q", res.Notes, want)
			}
		})
	}
}

// TestQsortReplayMatchesInfo: the default replay of Extrae's qsort
// sample runs to completion (its 6 sends above the eager threshold that
// the recorded run buffered replay buffered) and delivers exactly the
// point-to-point messages `tracesim info` counts (its 45 collective
// records are realised by them), leaving none unmatched.
func TestQsortReplayMatchesInfo(t *testing.T) {
	tr := openReal(t, "paraver/qsort_beo3.prv")
	sum := tracefmt.Summarize(tr)
	if sum.Messages.Matched != 33 || sum.Bytes != 1216880 {
		t.Fatalf("info: %d matched, %d B; want 33, 1216880 B", sum.Messages.Matched, sum.Bytes)
	}
	_, res := simulate(t, tr, Default(), Options{})
	if !res.Complete || res.Deadlock != nil {
		t.Fatalf("incomplete: %+v", res.Deadlock)
	}
	if res.Messages.Count != uint64(sum.Messages.Matched) || res.Messages.Bytes != sum.Bytes || res.Messages.Unmatched != 0 {
		t.Errorf("replay: %d messages (%d B), %d unmatched; info: %d matched (%d B), 0 unmatched",
			res.Messages.Count, res.Messages.Bytes, res.Messages.Unmatched, sum.Messages.Matched, sum.Bytes)
	}
	if want := "6 sends of 64KiB or more (the eager threshold) completed before their receive was posted in the recorded run"; len(res.Notes) != 2 || !strings.HasPrefix(res.Notes[0], want) {
		t.Errorf("notes %q, want the first starting %q", res.Notes, want)
	}
	if res.CollectivesAsMessages != 27 {
		t.Errorf("%d collective calls replayed as messages, want 27 (9 reduces, 9 broadcasts, 9 allreduces)", res.CollectivesAsMessages)
	}
}

// TestRecordedSends: by default a send the recorded run completed
// before its receive was posted replays as buffered, and says so; under
// --send auto or synchronous the exchange deadlocks, and the report
// names both sends and their sizes, says the recorded run buffered them
// and gives the settings that replay them buffered.
func TestRecordedSends(t *testing.T) {
	// Two ranks MPI_Send 1 MiB and 512 KiB to each other, then receive;
	// the recorded run buffered both sends.
	tr, _, err := formats.Open(context.Background(), "../../testdata/tsim/unsafe-exchange.tsim", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	sends := "rank 0's 1048576 B to rank 1, rank 1's 524288 B to rank 0"
	tests := []struct {
		send    string
		notes   []string
		explain []string
	}{
		{"recorded", []string{"2 sends of 64KiB or more (the eager threshold) completed before their receive was posted in the recorded run; replayed as buffered (--send recorded, the default; --send auto replays them with the rendezvous protocol)"}, nil},
		{"auto", nil, []string{
			"cause: sends of 64KiB or more (the eager threshold) wait for their receive (rendezvous): " + sends,
			"the recorded run completed 2 of them before their receive was posted: its MPI buffered them",
			"correction: --eager-threshold 1025KiB replays them buffered (eager), --send buffered replays every send buffered, --send recorded (the default) those the recorded run buffered",
		}},
		{"synchronous", nil, []string{
			"cause: --send synchronous makes every send wait for its receive: " + sends,
			"the recorded run completed 2 of them before their receive was posted: its MPI buffered them",
			"correction: --send auto --eager-threshold 1025KiB replays them buffered (eager), --send buffered replays every send buffered, --send recorded (the default) those the recorded run buffered",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.send, func(t *testing.T) {
			cfg := Default()
			if err := cfg.Set("send", tt.send); err != nil {
				t.Fatal(err)
			}
			_, res := simulate(t, tr, cfg, Options{})
			if got := strings.Join(res.Notes, "\n"); got != strings.Join(tt.notes, "\n") {
				t.Errorf("notes\n%s\nwant\n%s", got, strings.Join(tt.notes, "\n"))
			}
			if tt.explain == nil {
				if !res.Complete || res.Deadlock != nil || res.Messages.Count != 2 {
					t.Fatalf("complete %v, %d messages, deadlock %+v", res.Complete, res.Messages.Count, res.Deadlock)
				}
				return
			}
			if res.Deadlock == nil {
				t.Fatal("no deadlock")
			}
			if got := strings.Join(res.Deadlock.Explanation, "\n"); got != strings.Join(tt.explain, "\n") {
				t.Errorf("explanation\n%s\nwant\n%s", got, strings.Join(tt.explain, "\n"))
			}
			if !strings.HasSuffix(res.Deadlock.Message, "; "+strings.Join(tt.explain, "; ")) {
				t.Errorf("message %q does not end with the explanation", res.Deadlock.Message)
			}
		})
	}
}

// TestUntimedUnsafeExchange: an untimed trace records no completion
// times, so the default replays it with MPI's protocol: the unsafe
// exchange deadlocks, and the report gives the cause and the correction
// without claiming what the recorded run did.
func TestUntimedUnsafeExchange(t *testing.T) {
	p := newProg(t, 2)
	p.send(0, 1, 0, 100000).recv(0, 1, 0, 100000)
	p.send(1, 0, 0, 100000).recv(1, 0, 0, 100000)
	_, res := simulate(t, p.trace(), Default(), Options{})
	if res.Deadlock == nil {
		t.Fatal("no deadlock")
	}
	want := []string{
		"cause: sends of 64KiB or more (the eager threshold) wait for their receive (rendezvous): rank 0's 100000 B to rank 1, rank 1's 100000 B to rank 0",
		"correction: --eager-threshold 98KiB replays them buffered (eager), --send buffered replays every send buffered",
	}
	if got := strings.Join(res.Deadlock.Explanation, "\n"); got != strings.Join(want, "\n") {
		t.Errorf("explanation\n%s\nwant\n%s", got, strings.Join(want, "\n"))
	}
	if len(res.Notes) != 0 {
		t.Errorf("notes %q", res.Notes)
	}
}

// launchTrace: rank 1 is launched 5 s after rank 0 (Paraver's "Not
// created"), both spend 1 s in MPI_Init and compute 2 s before a
// message, and rank 1 leaves MPI_Finalize 3 s after entering it.
const launchTrace = `tsim 1
ranks 2
unit s
timed
0 0 enter MPI_Init
1 0 leave MPI_Init
6 0 enter MPI_Recv
9 0 recv from=1 tag=0 size=8
9 0 leave MPI_Recv
9 0 enter MPI_Finalize
10 0 leave MPI_Finalize
0 1 enter "Not created"
5 1 leave "Not created"
5 1 enter MPI_Init
6 1 leave MPI_Init
8 1 enter MPI_Send
8 1 send to=0 tag=0 size=8
8 1 leave MPI_Send
8 1 enter MPI_Finalize
11 1 leave MPI_Finalize
`

// TestRecordedParts: the time before a rank's MPI_Init is its launch,
// not computation, and the recorded span splits into the start-up until
// every rank was past MPI_Init, the part the replay replays, and the
// teardown after every rank entered MPI_Finalize.
func TestRecordedParts(t *testing.T) {
	tr, err := tsim.Read(strings.NewReader(launchTrace))
	if err != nil {
		t.Fatal(err)
	}
	cfg := cfgWith(t, "startup", "0", "per-byte", "0")
	_, res := simulate(t, tr, cfg, Options{})
	if !res.Complete || res.Ranks[1].Compute != 2 || res.Ranks[0].Compute != 5 {
		t.Errorf("complete %v, compute %v s and %v s; want 5 s and 2 s (rank 1's 5 s before MPI_Init are its launch)",
			res.Complete, res.Ranks[0].Compute, res.Ranks[1].Compute)
	}
	want := RecordedParts{Startup: 6, App: 3, Teardown: 2}
	if res.Recorded != 11 || res.RecordedParts == nil || *res.RecordedParts != want {
		t.Errorf("recorded %v s, parts %+v; want 11 s, %+v", res.Recorded, res.RecordedParts, want)
	}
}

// TestRealRecordedParts pins where the recorded time of real samples
// goes: the OTF2 ping-pong spends 193.6 of its 199.5 ms in MPI_Init,
// DUMPI's test trace waits 1.9 ms for its last rank to start and spends
// 3.2 ms in MPI_Finalize; the replay predicts the rest.
func TestRealRecordedParts(t *testing.T) {
	tests := []struct {
		path                   string
		startup, app, teardown float64
		makespanLo, makespanHi float64
	}{
		{"otf2/ping-pong/traces.otf2", 193.6e-3, 5.886e-3, 47.11e-6, 9e-3, 10.5e-3},
		{"dumpi/testtrace.meta", 1.894e-3, 444e-6, 3.219e-3, 90e-6, 100e-6},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			tr := openReal(t, tt.path)
			_, res := simulate(t, tr, Default(), Options{})
			p := res.RecordedParts
			// Pinned to the four digits printed.
			close := func(a, b float64) bool { return math.Abs(a/b-1) < 1e-3 }
			if p == nil || !close(p.Startup, tt.startup) || !close(p.App, tt.app) || !close(p.Teardown, tt.teardown) {
				t.Errorf("parts %+v, want startup %v s, app %v s, teardown %v s", p, tt.startup, tt.app, tt.teardown)
			}
			if res.Makespan < tt.makespanLo || res.Makespan > tt.makespanHi {
				t.Errorf("makespan %v s, want %v–%v s", res.Makespan, tt.makespanLo, tt.makespanHi)
			}
		})
	}
}
