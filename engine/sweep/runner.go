package sweep

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"time"

	"github.com/tracesim/tracesim/engine/replay"
	"github.com/tracesim/tracesim/tracefmt"
)

// Loader reads or generates a trace of the sweep.
type Loader func(ctx context.Context, ref TraceRef) (*tracefmt.Trace, error)

// Options tune Run.
type Options struct {
	// Jobs is the number of workers (≤ 0: one per CPU).
	Jobs int
	// Load reads a trace. Each worker calls it once per trace it meets
	// and keeps the trace for its next points, so that loading costs
	// nothing per point.
	Load Loader
	// Started, when set, is called as a worker starts a point (from the
	// worker's goroutine).
	Started func(p *Point)
}

// Run simulates the points on a pool of workers and hands each finished
// point's row to done, from one goroutine at a time, in the order they
// finish. A point whose simulation fails gets a row with its error; a
// trace that cannot be loaded stops the sweep. When ctx is cancelled the
// running simulations stop within a few milliseconds, their points are
// dropped (they have no row), and Run returns ctx's error once every
// worker has returned: every row handed to done is a finished point.
func (s *Spec) Run(ctx context.Context, points []Point, o Options, done func(p *Point, row []string) error) error {
	jobs := o.Jobs
	if jobs <= 0 {
		jobs = runtime.NumCPU()
	}
	jobs = min(jobs, max(len(points), 1))
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)

	type result struct {
		p   *Point
		row []string
	}
	todo := make(chan *Point)
	results := make(chan result)
	var wg sync.WaitGroup
	for range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			traces := map[int]*tracefmt.Trace{}
			for p := range todo {
				t, ok := traces[p.Trace]
				if !ok {
					var err error
					if t, err = o.Load(ctx, s.Traces[p.Trace]); err != nil {
						cancel(fmt.Errorf("trace %s: %w", s.Traces[p.Trace].Name, err))
						return
					}
					traces[p.Trace] = t
				}
				if o.Started != nil {
					o.Started(p)
				}
				row, err := s.runPoint(ctx, t, p)
				if err != nil {
					// Cancelled: the point did not finish.
					return
				}
				select {
				case results <- result{p, row}:
				case <-ctx.Done():
					return
				}
			}
		}()
	}
	go func() {
		defer close(todo)
		for i := range points {
			select {
			case todo <- &points[i]:
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() {
		wg.Wait()
		close(results)
	}()
	for r := range results {
		if err := done(r.p, r.row); err != nil {
			cancel(err)
		}
	}
	if err := context.Cause(ctx); err != nil {
		return err
	}
	return nil
}

// RunPoint simulates one point on a loaded trace and returns its row.
// The error is ctx's when it was cancelled; a failed simulation is a row
// with its error column set.
func (s *Spec) RunPoint(ctx context.Context, t *tracefmt.Trace, p *Point) ([]string, error) {
	return s.runPoint(ctx, t, p)
}

func (s *Spec) runPoint(ctx context.Context, t *tracefmt.Trace, p *Point) ([]string, error) {
	start := time.Now()
	sim, err := replay.New(t, p.Config, replay.Options{})
	if err != nil {
		return s.Row(p, nil, time.Since(start).Seconds(), err), nil
	}
	if err := sim.Run(ctx); err != nil {
		if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
			return nil, err
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return s.Row(p, nil, time.Since(start).Seconds(), err), nil
	}
	res := sim.Results()
	return s.Row(p, &res, time.Since(start).Seconds(), nil), nil
}
