package replay

import (
	"math"
	"os"
	"strings"
	"testing"

	"github.com/tracesim/tracesim/internal/testshared"
	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/tracefmt/clog"
)

// mpe builds an MPE-like timed trace: states around calls, message events
// without request ids.
type mpe struct {
	t *testing.T
	b *tracefmt.Builder
}

func newMPE(t *testing.T, ranks int) *mpe {
	return &mpe{t: t, b: tracefmt.NewBuilder(ranks, true, tracefmt.Second)}
}

func (m *mpe) add(r int, es ...tracefmt.Event) *mpe {
	for _, e := range es {
		if _, err := m.b.Add(r, e); err != nil {
			m.t.Fatal(err)
		}
	}
	return m
}

// call adds a state from t0 to t1 around events.
func (m *mpe) call(r int, name string, t0, t1 float64, inside ...tracefmt.Event) *mpe {
	st := m.b.State(name)
	m.add(r, tracefmt.Enter(t0, st))
	m.add(r, inside...)
	return m.add(r, tracefmt.Leave(t1, st))
}

func (m *mpe) trace() *tracefmt.Trace {
	tr, err := m.b.Finish()
	if err != nil {
		m.t.Fatal(err)
	}
	return tr
}

// An MPE MPI_Isend carries no request id: an MPI_Wait state holding no
// receive waits for the rank's oldest isend, which matters for a
// rendezvous-sized message.
func TestMPEAnonymousIsend(t *testing.T) {
	build := func(n int64) *tracefmt.Trace {
		m := newMPE(t, 2)
		m.call(0, "MPI_Init", 0, 0)
		m.call(0, "MPI_Isend", 0, 0, tracefmt.Send(0, 1, 0, 0, n))
		m.call(0, "MPI_Wait", 0, 0.1)
		m.call(1, "MPI_Init", 0, 0)
		m.call(1, "MPI_Irecv", 1, 1)
		m.call(1, "MPI_Wait", 1, 1.1, tracefmt.Recv(1.1, 0, 0, 0, n))
		return m.trace()
	}
	cfg := cfgWith(t, "switching", "store-and-forward", "startup", "0", "per-byte", "1ns")
	tests := []struct {
		n            int64
		sender, recv float64
	}{
		{1 << 20, 1 + (1<<20)*1e-9, 1 + (1<<20)*1e-9}, // rendezvous: the wait blocks until the data is there
		{1000, 0, 1}, // eager: the wait returns at once; the data arrived long ago
	}
	for _, tc := range tests {
		_, res := simulate(t, build(tc.n), cfg, Options{})
		if !res.Complete || !near(res.Ranks[0].Finish, tc.sender) || !near(res.Ranks[1].Finish, tc.recv) {
			t.Errorf("%d B: complete %v, finishes %v %v, want %v %v", tc.n, res.Complete, res.Ranks[0].Finish, res.Ranks[1].Finish, tc.sender, tc.recv)
		}
	}
}

// The receives of one MPI_Waitall are posted together: two messages that
// arrive in the opposite order of the records still complete the call at
// the later arrival, and a send issued inside a call must complete before
// the call's leave.
func TestMPEWaitallAndBlockingSend(t *testing.T) {
	m := newMPE(t, 3)
	for r := range 3 {
		m.call(r, "MPI_Init", 0, 0)
	}
	m.call(0, "MPI_Waitall", 0, 5, tracefmt.Recv(5, 1, 0, 0, 10), tracefmt.Recv(5, 2, 0, 0, 10))
	m.call(1, "MPI_Send", 2, 2, tracefmt.Send(2, 0, 0, 0, 10)) // computes 2 s first
	m.call(2, "MPI_Send", 1, 1, tracefmt.Send(1, 0, 0, 0, 10)) // computes 1 s first
	cfg := cfgWith(t, "switching", "store-and-forward", "startup", "1ms", "per-byte", "0", "send", "synchronous")
	_, res := simulate(t, m.trace(), cfg, Options{})
	if !res.Complete || !near(res.Ranks[0].Finish, 2.001) || !near(res.Ranks[1].Finish, 2.001) || !near(res.Ranks[2].Finish, 1.001) {
		t.Errorf("finishes %v %v %v", res.Ranks[0].Finish, res.Ranks[1].Finish, res.Ranks[2].Finish)
	}
}

// Real MPE traces (CLOG, from ../shared/testdata-external) replay to
// completion; their computation dominates, so the prediction lands near
// the recorded run (pinned within 10 %).
func TestRealMPETraces(t *testing.T) {
	for _, name := range []string{"pmandel.clog", "fpilog.clog"} {
		f, err := os.Open(testshared.Dir() + "/clog/" + name)
		if err != nil {
			t.Skip("shared test data absent")
		}
		tr, err := clog.Read(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		s, res := simulate(t, tr, Default(), Options{RecordTrace: true})
		if !res.Complete || res.Deadlock != nil {
			t.Fatalf("%s: incomplete: %+v", name, res.Deadlock)
		}
		if d := math.Abs(res.Makespan-res.Recorded) / res.Recorded; d > 0.1 {
			t.Errorf("%s: predicted %v s, recorded %v s", name, res.Makespan, res.Recorded)
		}
		out, err := s.Trace()
		if err != nil {
			t.Fatal(err)
		}
		if c, w := out.CountMessages(), tr.CountMessages(); c.Matched < w.Matched || c.UnmatchedRecvs+c.UnmatchedSends != 0 {
			t.Errorf("%s: simulated messages %+v, trace %+v", name, c, w)
		}
	}
}

// docs/sim.md documents every setting.
func TestDocsListEverySetting(t *testing.T) {
	data, err := os.ReadFile("../../docs/sim.md")
	if err != nil {
		t.Skip("docs/sim.md absent")
	}
	for _, s := range Settings() {
		if !strings.Contains(string(data), "`--"+s.Key+"`") {
			t.Errorf("docs/sim.md does not document --%s", s.Key)
		}
	}
}

// Config files are a parser: bad input gives errors, never panics.
func FuzzConfigDecode(f *testing.F) {
	f.Add([]byte("model = \"loggops\"\nL = \"3us\"\n[coll-alg]\nbcast = \"ring\"\n"), "toml")
	f.Add([]byte(`{"map": [0, 1], "bandwidth": 1e9}`), "json")
	f.Add([]byte(`{"mode": true}`), "")
	f.Fuzz(func(t *testing.T, data []byte, format string) {
		c := Default()
		if err := c.Decode(data, format); err != nil {
			return
		}
		// What decodes must encode and decode again.
		out, err := c.Encode("toml")
		if err != nil {
			t.Fatal(err)
		}
		d := Default()
		if err := d.Decode(out, "toml"); err != nil {
			t.Fatalf("re-decoding %q: %v", out, err)
		}
	})
}

// FuzzReplay replays arbitrary small traces under assorted settings: the
// engine must end (finished or deadlocked) without panicking, and its
// accounting must hold.
func FuzzReplay(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13}, uint8(0))
	f.Add([]byte{1, 1, 0, 0, 9, 9, 2, 2, 3, 0, 3, 1}, uint8(7))
	f.Add([]byte{6, 0, 6, 1, 6, 2, 7, 0, 7, 1, 5, 5}, uint8(3))
	f.Fuzz(func(t *testing.T, prog []byte, knobs uint8) {
		const P = 3
		b := tracefmt.NewBuilder(P, knobs&64 != 0, tracefmt.Second)
		reqs := make([]int64, P)
		clock := make([]float64, P)
		st := b.State("MPI_Send")
		for i := 0; i+1 < len(prog) && i < 200; i += 2 {
			op, arg := prog[i], prog[i+1]
			r := int(op>>4) % P
			peer := int(arg) % P
			size := int64(arg) * 997
			clock[r] += float64(arg) * 1e-3
			tm := clock[r]
			var e tracefmt.Event
			switch op % 10 {
			case 0:
				e = tracefmt.Send(tm, peer, int32(arg%2), 0, size)
			case 1:
				e = tracefmt.Recv(tm, peer, int32(arg%2), 0, size)
			case 2, 3:
				if op%10 == 2 {
					e = tracefmt.Send(tm, peer, 0, 0, size)
				} else {
					e = tracefmt.Recv(tm, peer, 0, 0, size)
				}
				reqs[r]++
				e.Flags |= tracefmt.FlagNonBlocking
				e.SetRequest(reqs[r])
			case 4:
				e = tracefmt.Wait(tm, int64(arg)%(reqs[r]+1))
			case 5:
				e = tracefmt.WaitAll(tm)
			case 6:
				e = tracefmt.Collective(tm, tracefmt.CollOp(arg%16), int(arg)%P, 0, size, size)
			case 7:
				e = tracefmt.ComputeWork(tm, float64(arg)*1e6)
			case 8:
				e = tracefmt.Recv(tm, peer, 0, 0, size)
				e.Flags |= tracefmt.FlagAnySource
			case 9:
				b.Add(r, tracefmt.Enter(tm, st))
				e = tracefmt.Leave(tm+1e-6, st)
			}
			if _, err := b.Add(r, e); err != nil {
				t.Fatal(err)
			}
		}
		tr, err := b.Finish()
		if err != nil {
			return
		}
		cfg := Default()
		cfg.Mode = Mode(knobs % 3)
		cfg.Send = SendMode(knobs / 3 % 4)
		cfg.Model = ModelKind(knobs / 12 % 3)
		cfg.AnySource = AnySource(knobs >> 7)
		if knobs&32 != 0 {
			cfg.Collectives = CollAnalytic
			cfg.Handshake = HandshakeRTSCTS
		}
		if knobs&16 != 0 {
			cfg.RanksPerNode = 2
		}
		s, err := New(tr, cfg, Options{RecordTrace: true, RecordMessages: true})
		if err != nil {
			t.Fatal(err)
		}
		for steps := 0; s.Step(); steps++ {
			if steps > 1_000_000 {
				t.Fatal("the replay does not end")
			}
		}
		res := s.Results()
		if res.Complete == (res.Deadlock != nil) {
			t.Fatalf("complete %v with deadlock %+v", res.Complete, res.Deadlock)
		}
		for _, rr := range res.Ranks {
			if rr.Finish < 0 || rr.Blocked < 0 || rr.Finish > res.Makespan+1e-12 {
				t.Fatalf("rank %+v, makespan %v", rr, res.Makespan)
			}
		}
		if res.Complete {
			if _, err := s.Trace(); err != nil {
				t.Fatal(err)
			}
		}
	})
}
