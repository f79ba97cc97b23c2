package replay

import (
	"context"
	"math"
	"testing"

	"github.com/tracesim/tracesim/tracefmt"
)

// prog builds an untimed trace rank by rank.
type prog struct {
	t    *testing.T
	b    *tracefmt.Builder
	reqs []int64
}

func newProg(t *testing.T, ranks int) *prog {
	t.Helper()
	return &prog{t: t, b: tracefmt.NewBuilder(ranks, false, tracefmt.Second), reqs: make([]int64, ranks)}
}

func (p *prog) add(r int, e tracefmt.Event) *prog {
	p.t.Helper()
	if _, err := p.b.Add(r, e); err != nil {
		p.t.Fatal(err)
	}
	return p
}

func (p *prog) compute(r int, sec float64) *prog { return p.add(r, tracefmt.ComputeTime(0, sec)) }
func (p *prog) work(r int, flops float64) *prog  { return p.add(r, tracefmt.ComputeWork(0, flops)) }
func (p *prog) send(r, dst int, tag int32, n int64) *prog {
	return p.add(r, tracefmt.Send(0, dst, tag, 0, n))
}
func (p *prog) ssend(r, dst int, tag int32, n int64) *prog {
	e := tracefmt.Send(0, dst, tag, 0, n)
	e.Flags |= tracefmt.FlagSync
	return p.add(r, e)
}
func (p *prog) recv(r, src int, tag int32, n int64) *prog {
	return p.add(r, tracefmt.Recv(0, src, tag, 0, n))
}
func (p *prog) anyRecv(r, recordedSrc int, tag int32, n int64) *prog {
	e := tracefmt.Recv(0, recordedSrc, tag, 0, n)
	e.Flags |= tracefmt.FlagAnySource
	return p.add(r, e)
}
func (p *prog) isend(r, dst int, tag int32, n int64) int64 {
	e := tracefmt.Send(0, dst, tag, 0, n)
	return p.nb(r, e)
}
func (p *prog) irecv(r, src int, tag int32, n int64) int64 {
	e := tracefmt.Recv(0, src, tag, 0, n)
	return p.nb(r, e)
}
func (p *prog) nb(r int, e tracefmt.Event) int64 {
	p.reqs[r]++
	e.Flags |= tracefmt.FlagNonBlocking
	e.SetRequest(p.reqs[r])
	p.add(r, e)
	return p.reqs[r]
}
func (p *prog) wait(r int, req int64) *prog { return p.add(r, tracefmt.Wait(0, req)) }
func (p *prog) waitall(r int) *prog         { return p.add(r, tracefmt.WaitAll(0)) }
func (p *prog) sendrecv(r, dst int, sn int64, src int, rn int64) *prog {
	s := tracefmt.Send(0, dst, 0, 0, sn)
	s.Flags |= tracefmt.FlagSendrecv
	e := tracefmt.Recv(0, src, 0, 0, rn)
	e.Flags |= tracefmt.FlagSendrecv
	return p.add(r, s).add(r, e)
}
func (p *prog) coll(op tracefmt.CollOp, root int, sent, recvd int64) *prog {
	for r := range p.b.Trace().Ranks {
		p.add(r, tracefmt.Collective(0, op, root, 0, sent, recvd))
	}
	return p
}

func (p *prog) trace() *tracefmt.Trace {
	p.t.Helper()
	tr, err := p.b.Finish()
	if err != nil {
		p.t.Fatal(err)
	}
	return tr
}

// cfgWith returns the default configuration with settings applied.
func cfgWith(t testing.TB, kv ...string) Config {
	t.Helper()
	c := Default()
	// The worked cases are PUPPET's unless they say otherwise.
	c.Model = ModelPuppet
	for i := 0; i+1 < len(kv); i += 2 {
		if err := c.Set(kv[i], kv[i+1]); err != nil {
			t.Fatal(err)
		}
	}
	return c
}

// simulate runs tr to its end.
func simulate(t *testing.T, tr *tracefmt.Trace, cfg Config, opts Options) (*Sim, Results) {
	t.Helper()
	s, err := New(tr, cfg, opts)
	return s, runToEnd(t, s, err)
}

// runToEnd runs s, which New or NewSource returned with err, to its end.
func runToEnd(t *testing.T, s *Sim, err error) Results {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !s.Done() {
		t.Fatal("run did not finish")
	}
	return s.Results()
}

// near reports whether a and b agree to 1 ps.
func near(a, b float64) bool { return math.Abs(a-b) < 1e-12 }

// puppetEthernet is the PUPPET thesis's Ethernet fit, all sends buffered.
var puppetEthernet = []string{
	"model", "puppet", "switching", "store-and-forward", "startup", "1449.848us",
	"per-byte", "1.008644us", "packet-size", "0", "send", "buffered",
}
