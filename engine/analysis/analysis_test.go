package analysis

import (
	"math"
	"slices"
	"testing"

	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/tracefmt/gen"
)

// small is a three-rank trace in seconds, small enough to work out by
// hand: rank 0 sends 100 B to 1 inside MPI_Send [1, 2] and 3000 B to 2
// at 5; rank 1 sends 10 B to 0 at 3; rank 2 sends an empty message to 0
// at 4 and calls a collective at 4.5.
func small() *tracefmt.Trace {
	tr := &tracefmt.Trace{Unit: tracefmt.Second, Timed: true, Comms: []tracefmt.Comm{{}},
		States: []tracefmt.StateDef{{Name: "MPI_Send", Category: tracefmt.CatP2P}}}
	tr.Ranks = []tracefmt.Rank{
		{Events: []tracefmt.Event{tracefmt.Enter(1, 0), tracefmt.Send(1, 1, 0, 0, 100), tracefmt.Leave(2, 0), tracefmt.Send(5, 2, 0, 0, 3000)}},
		{Events: []tracefmt.Event{tracefmt.Recv(1, 0, 0, 0, 100), tracefmt.Send(3, 0, 0, 0, 10)}},
		{Events: []tracefmt.Event{tracefmt.Send(4, 0, 0, 0, 0), tracefmt.Collective(4.5, 0, 0, 0, 8, 8), tracefmt.Recv(5, 0, 0, 0, 3000)}},
	}
	tr.Ranks[0].Events[0].Match, tr.Ranks[0].Events[2].Match = 2, 0
	return tr
}

func TestProfileWindowsAndRanks(t *testing.T) {
	tr := small()
	tests := []struct {
		name  string
		w     Window
		ranks []int
		// per listed rank: rank, compute, MPI seconds, sends, bytes
		want  [][5]float64
		calls int
		total float64
	}{
		{"whole run", All(), nil, [][5]float64{{0, 3, 1, 2, 3100}, {1, 2, 0, 1, 10}, {2, 1, 0, 1, 0}}, 1, 1},
		{"window [1.5, 4]", Window{1.5, 4}, nil, [][5]float64{{0, 2, 0.5, 0, 0}, {1, 1.5, 0, 1, 10}, {2, 0, 0, 1, 0}}, 1, 0.5},
		{"window after the call", Window{2.5, 6}, nil, [][5]float64{{0, 2.5, 0, 1, 3000}, {1, 0.5, 0, 1, 10}, {2, 1, 0, 1, 0}}, 0, 0},
		{"ranks 1-2", All(), []int{1, 2}, [][5]float64{{1, 2, 0, 1, 10}, {2, 1, 0, 1, 0}}, 0, 0},
		{"rank 0 in a window", Window{0, 1.5}, []int{0}, [][5]float64{{0, 0, 0.5, 1, 100}}, 1, 0.5},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := ComputeProfile(tr, tc.w, tc.ranks)
			if len(p.Ranks) != len(tc.want) {
				t.Fatalf("%d ranks, want %d", len(p.Ranks), len(tc.want))
			}
			for i, w := range tc.want {
				rp := p.Ranks[i]
				got := [5]float64{float64(rp.Rank), rp.Time[Compute], rp.Time[MPI], float64(rp.Sends), float64(rp.Bytes)}
				if got != w {
					t.Errorf("rank row %d: (rank, compute, MPI, sends, bytes) = %v, want %v", i, got, w)
				}
			}
			if f := p.Funcs[0]; f.Calls != tc.calls || f.Total != tc.total {
				t.Errorf("MPI_Send: %d calls %g s, want %d calls %g s", f.Calls, f.Total, tc.calls, tc.total)
			}
		})
	}
}

func TestProfile(t *testing.T) {
	tr := profileTrace(t)
	p := ComputeProfile(tr, All(), nil)
	// Exclusive times of a rank add up to its span.
	for _, r := range p.Ranks {
		if math.Abs(r.Total()-r.Span) > 1e-12 {
			t.Errorf("rank %d: activities %g s, span %g s", r.Rank, r.Total(), r.Span)
		}
		if r.Time[Compute] <= 0 || r.Time[MPI] <= 0 {
			t.Errorf("rank %d: %v", r.Rank, r.Time)
		}
	}
	// Function totals agree with the trace summary.
	s := tracefmt.Summarize(tr)
	for _, ss := range s.States {
		for _, f := range p.Funcs {
			if f.Name == ss.Name && (f.Calls != ss.Count || math.Abs(f.Total-ss.Total) > 1e-12) {
				t.Errorf("%s: %d calls %g s, summary %d calls %g s", f.Name, f.Calls, f.Total, ss.Count, ss.Total)
			}
		}
	}
}

func profileTrace(t testing.TB) *tracefmt.Trace {
	t.Helper()
	tr, err := gen.Generate(gen.Options{Pattern: "stencil2d", Ranks: 12, Iters: 3, Seed: 1, Compute: -1, Jitter: 0.3})
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// The halves of a run add up to the whole, and a rank subset's functions
// add up with the other ranks' to every rank's.
func TestProfileSplits(t *testing.T) {
	tr := profileTrace(t)
	start, end := tr.Span()
	mid := (start + end) / 2
	whole, a, b := ComputeProfile(tr, All(), nil), ComputeProfile(tr, Window{start, mid}, nil), ComputeProfile(tr, Window{mid, end}, nil)
	for r := range whole.Ranks {
		for act := Activity(0); act < NumActivities; act++ {
			w, s := whole.Ranks[r].Time[act], a.Ranks[r].Time[act]+b.Ranks[r].Time[act]
			if math.Abs(w-s) > 1e-12 {
				t.Errorf("rank %d %v: whole %g, halves %g", r, act, w, s)
			}
		}
	}
	for i := range whole.Funcs {
		if w, s := whole.Funcs[i].Total, a.Funcs[i].Total+b.Funcs[i].Total; math.Abs(w-s) > 1e-12 {
			t.Errorf("%s: whole %g, halves %g", whole.Funcs[i].Name, w, s)
		}
		if a.Funcs[i].Calls > whole.Funcs[i].Calls || a.Funcs[i].Calls == 0 {
			t.Errorf("%s: %d calls in the first half of %d", whole.Funcs[i].Name, a.Funcs[i].Calls, whole.Funcs[i].Calls)
		}
	}
	lo, hi := ComputeProfile(tr, All(), []int{0, 1, 2, 3, 4}), ComputeProfile(tr, All(), []int{5, 6, 7, 8, 9, 10, 11})
	for i := range whole.Funcs {
		if w, s := whole.Funcs[i].Calls, lo.Funcs[i].Calls+hi.Funcs[i].Calls; w != s {
			t.Errorf("%s: %d calls, ranks 0-4 and 5-11 %d", whole.Funcs[i].Name, w, s)
		}
	}
	if lo.Ranks[4] != whole.Ranks[4] || hi.Ranks[0] != whole.Ranks[5] {
		t.Error("a rank's row depends on the other ranks chosen")
	}
}

func TestNesting(t *testing.T) {
	// A user state around an MPI call: the call's time counts as MPI, the
	// rest of the state as user time.
	tr := &tracefmt.Trace{Unit: tracefmt.Second, Timed: true, Comms: []tracefmt.Comm{{}},
		States: []tracefmt.StateDef{{Name: "phase", Category: tracefmt.CatUser}, {Name: "MPI_Send", Category: tracefmt.CatP2P}}}
	tr.Ranks = []tracefmt.Rank{{Events: []tracefmt.Event{
		tracefmt.Enter(0, 0), tracefmt.Enter(1, 1), tracefmt.Leave(3, 1), tracefmt.Leave(4, 0), tracefmt.Enter(4, 1), tracefmt.Leave(6, 1),
	}}}
	tr.Ranks[0].Events[0].Match, tr.Ranks[0].Events[3].Match = 3, 0
	tr.Ranks[0].Events[1].Match, tr.Ranks[0].Events[2].Match = 2, 1
	tr.Ranks[0].Events[4].Match, tr.Ranks[0].Events[5].Match = 5, 4
	p := ComputeProfile(tr, All(), nil)
	if got := p.Ranks[0].Time; got[User] != 2 || got[MPI] != 4 || got[Compute] != 0 {
		t.Errorf("times %v", got)
	}
	if f := p.Funcs[1]; f.Calls != 2 || f.Total != 4 || f.Max != 2 || f.Mean() != 2 {
		t.Errorf("MPI_Send %+v", f)
	}
}

func TestOrders(t *testing.T) {
	tr := small()
	p := ComputeProfile(tr, All(), nil)
	tests := []struct {
		name string
		col  int
		desc bool
		want []int
	}{
		{"by rank", 0, false, []int{0, 1, 2}},
		{"by rank, descending", 0, true, []int{2, 1, 0}},
		{"by compute, descending", 1, true, []int{0, 1, 2}},
		{"by compute", 1, false, []int{2, 1, 0}},
		{"by MPI, descending: ties in rank order", 3, true, []int{0, 1, 2}},
	}
	for _, tc := range tests {
		if got := p.RankOrder(tc.col, tc.desc); !slices.Equal(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
	if got := p.FuncOrder(2, true); !slices.Equal(got, []int{0}) {
		t.Errorf("functions: %v, want [0]", got)
	}
	if got := ComputeProfile(tr, Window{2.5, 6}, nil).FuncOrder(2, true); len(got) != 0 {
		t.Errorf("functions not called in the window are listed: %v", got)
	}
	if got := p.AllTime(); got != 4+2+1 {
		t.Errorf("all time %g, want 7", got)
	}
}

func TestTrafficWindowsAndRanks(t *testing.T) {
	tr := small()
	tests := []struct {
		name  string
		w     Window
		ranks []int
		// nonzero cells as sender, receiver, messages, bytes
		want  [][4]int64
		colls int64
	}{
		{"whole run", All(), nil, [][4]int64{{0, 1, 1, 100}, {0, 2, 1, 3000}, {1, 0, 1, 10}, {2, 0, 1, 0}}, 1},
		{"window [2, 4]", Window{2, 4}, nil, [][4]int64{{1, 0, 1, 10}, {2, 0, 1, 0}}, 0},
		{"ranks 0 and 2", All(), []int{0, 2}, [][4]int64{{0, 2, 1, 3000}, {2, 0, 1, 0}}, 1},
		{"rank 1 alone talks to nobody", All(), []int{1}, nil, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := ComputeTraffic(tr, tc.w, tc.ranks)
			var got [][4]int64
			for i := range m.Count {
				for j := range m.Count[i] {
					if m.Count[i][j] > 0 {
						got = append(got, [4]int64{int64(i), int64(j), m.Count[i][j], m.Bytes[i][j]})
					}
				}
			}
			if !slices.Equal(got, tc.want) || m.Collectives != tc.colls {
				t.Errorf("cells %v, %d collectives; want %v, %d", got, m.Collectives, tc.want, tc.colls)
			}
		})
	}
}

func TestSizesWindowsAndRanks(t *testing.T) {
	tr := small()
	tests := []struct {
		name  string
		w     Window
		ranks []int
		want  map[int][2]int64 // bin: messages, bytes
	}{
		{"whole run", All(), nil, map[int][2]int64{0: {1, 0}, 4: {1, 10}, 7: {1, 100}, 12: {1, 3000}}},
		{"window [3, 5]", Window{3, 5}, nil, map[int][2]int64{0: {1, 0}, 4: {1, 10}, 12: {1, 3000}}},
		{"rank 0", All(), []int{0}, map[int][2]int64{7: {1, 100}, 12: {1, 3000}}},
		{"ranks 1, 2 before 3.5", Window{0, 3.5}, []int{1, 2}, map[int][2]int64{4: {1, 10}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := SizeHistogram(tr, tc.w, tc.ranks)
			got := map[int][2]int64{}
			for k := range h.Count {
				if h.Count[k] > 0 {
					got[k] = [2]int64{h.Count[k], h.Bytes[k]}
				}
			}
			if len(got) != len(tc.want) {
				t.Fatalf("bins %v, want %v", got, tc.want)
			}
			for k, v := range tc.want {
				if got[k] != v {
					t.Errorf("bin %d: %v, want %v", k, got[k], v)
				}
			}
		})
	}
}

func TestParseWindow(t *testing.T) {
	// A trace in microseconds starting at 1000 µs.
	const origin, unit = 1000, 1e-6
	tests := []struct {
		spec    string
		want    Window
		wantErr string
	}{
		{"1ms:2ms", Window{2000, 3000}, ""},
		{"0:500us", Window{1000, 1500}, ""},
		{"1ms:", Window{2000, math.Inf(1)}, ""},
		{":1.5ms", Window{math.Inf(-1), 2500}, ""},
		{"2ms", Window{}, `"2ms": expected START:END, durations from the trace's start such as 1ms:2ms`},
		{"2ms:1ms", Window{}, `"2ms:1ms": the start is after the end`},
		{"1xs:2ms", Window{}, `start: "1xs": unknown time unit "xs" (expected ps, ns, us, ms, s)`},
		{"1ms:-2ms", Window{}, `end: "-2ms": duration must not be negative`},
	}
	for _, tc := range tests {
		got, err := ParseWindow(tc.spec, origin, unit)
		if tc.wantErr != "" {
			if err == nil || err.Error() != tc.wantErr {
				t.Errorf("%q: error %v, want %q", tc.spec, err, tc.wantErr)
			}
			continue
		}
		if err != nil || math.Abs(got.Start-tc.want.Start) > 1e-6 && !math.IsInf(got.Start, -1) || math.Abs(got.End-tc.want.End) > 1e-6 && !math.IsInf(got.End, 1) {
			t.Errorf("%q: %v %v, want %v", tc.spec, got, err, tc.want)
		}
	}
}

func TestParseRanks(t *testing.T) {
	tests := []struct {
		spec    string
		want    []int
		wantErr string
	}{
		{"0-3, 8, 10-", []int{0, 1, 2, 3, 8, 10, 11}, ""},
		{"5,5,4", []int{4, 5}, ""},
		{"x", nil, `"x" is not a rank or a range like 0-3`},
		{"3-12", nil, `"3-12" outside 0..11`},
		{",", nil, `no ranks in ","`},
	}
	for _, tc := range tests {
		got, err := ParseRanks(tc.spec, 12)
		if tc.wantErr != "" {
			if err == nil || err.Error() != tc.wantErr {
				t.Errorf("%q: error %v, want %q", tc.spec, err, tc.wantErr)
			}
			continue
		}
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("%q: %v %v, want %v", tc.spec, got, err, tc.want)
		}
	}
}

func TestTraffic(t *testing.T) {
	tr, err := gen.Generate(gen.Options{Pattern: "stencil2d", Ranks: 12, Iters: 3, Seed: 1, Compute: -1})
	if err != nil {
		t.Fatal(err)
	}
	tm := ComputeTraffic(tr, All(), nil)
	if tm.Size() != 12 || tm.Scale != 1 {
		t.Fatalf("size %d scale %d", tm.Size(), tm.Scale)
	}
	// Sum over the matrix equals the trace's point-to-point bytes.
	var b, c int64
	for i := range tm.Bytes {
		for j := range tm.Bytes[i] {
			b += tm.Bytes[i][j]
			c += tm.Count[i][j]
		}
	}
	s := tracefmt.Summarize(tr)
	if b != s.Bytes || c != int64(s.Messages.Matched) {
		t.Errorf("matrix %d B %d msgs, summary %d B %d msgs", b, c, s.Bytes, s.Messages.Matched)
	}
	// A 2D stencil only talks to grid neighbours: rank 0 (a corner of a
	// 4×3 grid) sends to 1 and 3 only.
	for j, v := range tm.Count[0] {
		if want := j == 1 || j == 3; (v > 0) != want {
			t.Errorf("rank 0 → %d: %d messages", j, v)
		}
	}
	n := tm.Nodes(4)
	if n.Size() != 3 {
		t.Fatalf("node matrix size %d", n.Size())
	}
	var nb int64
	for i := range n.Bytes {
		for j := range n.Bytes[i] {
			nb += n.Bytes[i][j]
		}
	}
	if nb != b {
		t.Errorf("node space %d B, rank space %d B", nb, b)
	}
}

func TestFolding(t *testing.T) {
	tr := &tracefmt.Trace{Ranks: make([]tracefmt.Rank, 3*MaxResolution)}
	tr.Ranks[0].Events = []tracefmt.Event{tracefmt.Send(0, len(tr.Ranks)-1, 0, 0, 100)}
	tm := ComputeTraffic(tr, All(), nil)
	if tm.Scale != 3 || tm.Size() != MaxResolution || tm.Bytes[0][MaxResolution-1] != 100 {
		t.Errorf("scale %d size %d", tm.Scale, tm.Size())
	}
}

func TestBins(t *testing.T) {
	for _, c := range []struct {
		size int64
		bin  int
	}{{0, 0}, {1, 1}, {2, 2}, {3, 2}, {4, 3}, {1023, 10}, {1024, 11}, {1 << 40, 41}} {
		if got := Bin(c.size); got != c.bin {
			t.Errorf("Bin(%d) = %d, want %d", c.size, got, c.bin)
		}
		lo, hi := BinRange(c.bin)
		if c.size < lo || c.size > hi {
			t.Errorf("%d outside BinRange(%d) = [%d, %d]", c.size, c.bin, lo, hi)
		}
	}
}

func TestHistogram(t *testing.T) {
	tr := sizesTrace(t)
	s := IndexSends(tr)
	all := s.Histogram(nil, All())
	count, bytes := all.Total()
	var wantC, wantB int64
	var perRank int64
	for r := range tr.Ranks {
		for _, e := range tr.Ranks[r].Events {
			if e.Kind == tracefmt.KindSend {
				wantC++
				wantB += e.Size
			}
		}
		h := s.Histogram([]int{r}, All())
		c, _ := h.Total()
		perRank += c
	}
	if count != wantC || bytes != wantB || perRank != wantC {
		t.Errorf("histogram %d msgs %d B (per rank %d), trace %d msgs %d B", count, bytes, perRank, wantC, wantB)
	}
	// A window keeps exactly the sends inside it.
	start, end := tr.Span()
	mid := (start + end) / 2
	a, b := s.Histogram(nil, Window{start, mid}), s.Histogram(nil, Window{mid + 1e-9, end})
	ca, _ := a.Total()
	cb, _ := b.Total()
	if ca+cb != count || ca == 0 || cb == 0 {
		t.Errorf("halves %d + %d, whole %d", ca, cb, count)
	}
}

// sizesTrace is a generated trace whose sends have sizes spread over
// many log2 bins, some empty (the generator sends one size per pattern).
func sizesTrace(t testing.TB) *tracefmt.Trace {
	t.Helper()
	tr, err := gen.Generate(gen.Options{Pattern: "random-pairs", Ranks: 8, Iters: 6, Seed: 2, Compute: -1})
	if err != nil {
		t.Fatal(err)
	}
	var sends []*tracefmt.Event
	for r := range tr.Ranks {
		for i := range tr.Ranks[r].Events {
			if e := &tr.Ranks[r].Events[i]; e.Kind == tracefmt.KindSend {
				sends = append(sends, e)
			}
		}
	}
	for n, e := range sends {
		e.Size = int64(n%11) << (n % 19)
	}
	return tr
}
