package sweep

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/tracefmt/gen"
)

// genLoader generates "gen PATTERN" traces with 8 ranks and counts the
// loads.
type genLoader struct {
	loads atomic.Int32
}

func (g *genLoader) load(_ context.Context, ref TraceRef) (*tracefmt.Trace, error) {
	g.loads.Add(1)
	if ref.Gen == nil {
		return nil, errors.New("no such file")
	}
	return gen.Generate(gen.Options{Pattern: ref.Gen[0], Ranks: 8, Iters: 10, Compute: -1, Seed: 1})
}

const runnerSpec = `traces = ["gen ring", "gen alltoall"]
repetitions = 2
[axes]
topology = ["torus:2x4", "fattree:k=4,levels=2"]
placement = ["block", "random"]
bandwidth = ["1Gb/s", "100Gb/s"]
`

// runAll runs every point and returns the rows by point, wall time
// blanked.
func runAll(t *testing.T, s *Spec, jobs int, g *genLoader) [][]string {
	t.Helper()
	pts, err := s.Expand()
	if err != nil {
		t.Fatal(err)
	}
	rows := make([][]string, len(pts))
	wall := s.Columns()
	col := slices.Index(wall, "wall_s")
	err = s.Run(context.Background(), pts, Options{Jobs: jobs, Load: g.load}, func(p *Point, row []string) error {
		if rows[p.Index] != nil {
			t.Errorf("point %d handed twice", p.Index)
		}
		if len(row) != len(wall) {
			t.Fatalf("row of %d columns, want %d", len(row), len(wall))
		}
		row[col] = ""
		rows[p.Index] = row
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// TestRunDeterministic: the rows do not depend on the number of workers,
// and each worker loads each trace once.
func TestRunDeterministic(t *testing.T) {
	s := mustParse(t, runnerSpec)
	var want [][]string
	for _, jobs := range []int{1, 2, 3} {
		g := &genLoader{}
		rows := runAll(t, s, jobs, g)
		if n := int(g.loads.Load()); n > jobs*len(s.Traces) || n < len(s.Traces) {
			t.Errorf("jobs %d: %d trace loads, want %d to %d", jobs, n, len(s.Traces), jobs*len(s.Traces))
		}
		if want == nil {
			want = rows
			continue
		}
		for i := range rows {
			if g, w := strings.Join(rows[i], ","), strings.Join(want[i], ","); g != w {
				t.Errorf("jobs %d, point %d:\n got %s\nwant %s", jobs, i, g, w)
			}
		}
	}
	// The rows say what the user asked: point, trace, axes, rep, seed,
	// then a makespan that grows as the bandwidth falls.
	cols := s.Columns()
	if got := strings.Join(cols[:7], ","); got != "point,trace,topology,placement,bandwidth,rep,seed" {
		t.Errorf("columns start %s", got)
	}
	if got := strings.Join(want[3][:7], ","); got != "3,gen ring,torus:2x4,block,100Gb/s,1,2" {
		t.Errorf("row 3 starts %s", got)
	}
	mk := func(r []string) float64 {
		v, err := strconv.ParseFloat(r[7], 64)
		if err != nil {
			t.Fatalf("makespan %q: %v", r[7], err)
		}
		return v
	}
	if slow, fast := mk(want[0]), mk(want[2]); slow <= fast {
		t.Errorf("makespan at 1Gb/s %g, at 100Gb/s %g: want the slower network slower", slow, fast)
	}
}

// TestRunCancel: cancelled, Run returns context.Canceled and has handed
// only finished points.
func TestRunCancel(t *testing.T) {
	s := mustParse(t, runnerSpec)
	pts, _ := s.Expand()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var mu sync.Mutex
	n := 0
	g := &genLoader{}
	err := s.Run(ctx, pts, Options{Jobs: 2, Load: g.load}, func(p *Point, row []string) error {
		mu.Lock()
		defer mu.Unlock()
		n++
		if n == 3 {
			cancel()
		}
		if row[len(row)-1] != "" {
			t.Errorf("point %d has error %q", p.Index, row[len(row)-1])
		}
		return nil
	})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err %v, want context.Canceled", err)
	}
	if n < 3 || n >= len(pts) {
		t.Errorf("%d rows handed, want 3 to %d", n, len(pts)-1)
	}
}

// TestRunErrors: a trace that cannot load stops the sweep and names the
// trace; a point that cannot be simulated gets a row with its error.
func TestRunErrors(t *testing.T) {
	s := mustParse(t, "traces = [\"missing.tsim\"]\n[axes]\nlatency = [\"1us\", \"2us\"]\n")
	pts, _ := s.Expand()
	g := &genLoader{}
	err := s.Run(context.Background(), pts, Options{Jobs: 2, Load: g.load}, func(*Point, []string) error { return nil })
	if err == nil || err.Error() != "trace missing.tsim: no such file" {
		t.Errorf("err %v, want trace missing.tsim: no such file", err)
	}

	// 8 ranks on a 4-node torus, one rank per node.
	s = mustParse(t, "traces = [\"gen ring\"]\nmodel = \"packet\"\n[axes]\ntopology = [\"torus:2x2\"]\n")
	pts, _ = s.Expand()
	var row []string
	if err := s.Run(context.Background(), pts, Options{Jobs: 1, Load: g.load}, func(_ *Point, r []string) error { row = r; return nil }); err != nil {
		t.Fatal(err)
	}
	cols := s.Columns()
	get := func(c string) string {
		for i, n := range cols {
			if n == c {
				return row[i]
			}
		}
		return "?"
	}
	if get("error") == "" || get("makespan_s") != "" {
		t.Errorf("error %q, makespan %q: want an error and no makespan", get("error"), get("makespan_s"))
	}
}

func TestCSV(t *testing.T) {
	s := mustParse(t, "traces = [\"gen ring\"]\n[axes]\nlatency = [\"1us\", \"2us\", \"3us\"]\n")
	pts, _ := s.Expand()
	g := &genLoader{}
	tb := &Table{Columns: s.Columns()}
	var buf bytes.Buffer
	j, err := NewJournal(&buf, s.Columns())
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Run(context.Background(), pts, Options{Jobs: 1, Load: g.load}, func(_ *Point, r []string) error {
		tb.Rows = append(tb.Rows, r)
		return j.Append(r)
	}); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := tb.WriteCSV(&out); err != nil {
		t.Fatal(err)
	}
	if out.String() != buf.String() {
		t.Errorf("journal and table differ:\n%s\n%s", buf.String(), out.String())
	}
	lines := strings.Split(out.String(), "\n")
	if !strings.HasPrefix(lines[0], "point,trace,latency,makespan_s,") || !strings.HasPrefix(lines[2], "1,gen ring,2us,") {
		t.Errorf("CSV starts\n%s\n%s", lines[0], lines[2])
	}

	// A journal cut in the middle of its last line reads as the rows
	// before it.
	data := out.Bytes()
	cut := data[:len(data)-10]
	back, err := ReadCSV("r.csv", cut)
	if err != nil {
		t.Fatal(err)
	}
	if len(back.Rows) != 2 || back.Key(back.Rows[1]) != s.PointKey(&pts[1]) {
		t.Errorf("cut journal: %d rows", len(back.Rows))
	}

	for _, c := range []struct{ data, want string }{
		{"a,b\n1,2\n", "r.csv: line 1: not a sweep result"},
		{"point,trace,makespan_s\nx,t,1\n", `r.csv: line 2: point "x": expected a whole number`},
		{"point,trace,makespan_s\n1,t\n", "r.csv: record on line 2: wrong number of fields"},
	} {
		if _, err := ReadCSV("r.csv", []byte(c.data)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ReadCSV(%q): %v, want %q", c.data, err, c.want)
		}
	}

	// Merging: the same point twice is kept once; another point under
	// the same number is refused.
	a, _ := ReadCSV("a.csv", data)
	b, _ := ReadCSV("b.csv", data)
	if err := a.Merge("b.csv", b); err != nil || len(a.Rows) != 3 {
		t.Errorf("merge of a result with itself: %v, %d rows", err, len(a.Rows))
	}
	b.Rows[0][2] = "9us"
	if err := a.Merge("b.csv", b); err == nil || err.Error() != "b.csv: point 0 is another point than in the files before it (another spec?)" {
		t.Errorf("conflicting merge: %v", err)
	}
}

func FuzzReadCSV(f *testing.F) {
	f.Add([]byte("point,trace,makespan_s\n0,a,1\n1,b,2\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		tb, err := ReadCSV("f.csv", b)
		if err != nil {
			return
		}
		for _, r := range tb.Rows {
			if len(r) != len(tb.Columns) {
				t.Fatalf("row of %d cells, %d columns", len(r), len(tb.Columns))
			}
		}
	})
}

// TestRepetitionsFollowSeed: a random placement without seed= and a
// random routing draw from the point's seed, so repetitions give
// different rows (the audit found seeds 1 and 2, and 3 and 7, giving the
// same ones), and a seed gives the same row every time.
func TestRepetitionsFollowSeed(t *testing.T) {
	for _, tc := range []struct{ name, spec string }{
		{"random placement", "traces = [\"gen ring\"]\ntopology = \"torus:4x4\"\nplacement = \"random\"\nrepetitions = 3\n"},
		{"packet, random placement, adaptive", "traces = [\"gen ring\"]\nmodel = \"packet\"\ntopology = \"torus:4x4\"\nrouting = \"adaptive\"\nvcs = 3\nplacement = \"random\"\nseeds = [3, 7]\n"},
		{"packet, valiant", "traces = [\"gen ring\"]\nmodel = \"packet\"\ntopology = \"torus:4x4\"\nrouting = \"valiant\"\nvcs = 4\nseeds = [3, 7]\n"},
		{"flow, random placement", "traces = [\"gen alltoall\"]\nmodel = \"flow\"\ntopology = \"fattree:k=4,levels=2\"\nplacement = \"random\"\nseeds = [1, 2]\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := mustParse(t, tc.spec)
			rows := runAll(t, s, 2, &genLoader{})
			again := runAll(t, s, 1, &genLoader{})
			cols := s.Columns()
			mc := slices.Index(cols, "makespan_s")
			seen := map[string]int{}
			for i, r := range rows {
				if !slices.Equal(r, again[i]) {
					t.Errorf("seed %d: rows of two runs differ:\n%v\n%v", s.Seeds[i], r, again[i])
				}
				if r[mc] == "" {
					t.Fatalf("point %d failed: %v", i, r)
				}
				// The results: from the makespan on.
				res := strings.Join(r[mc:], ",")
				if j, dup := seen[res]; dup {
					t.Errorf("points %d and %d (seeds %d and %d): the same results %s", j, i, s.Seeds[j], s.Seeds[i], res)
				}
				seen[res] = i
			}
		})
	}
}
