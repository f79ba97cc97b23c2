package placement

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/tracesim/tracesim/internal/userfile"
)

func TestParse(t *testing.T) {
	tests := []struct {
		spec         string
		ranks, nodes int
		want         []int
		canonical    string
	}{
		{"map:0,1,2", 7, 3, []int{0, 1, 2, 0, 1, 2, 0}, "map:0,1,2"}, // PUPPET's worked case
		{"map:0 1 2", 7, 4, []int{0, 1, 2, 0, 1, 2, 0}, "map:0,1,2"},
		{"map:3,1", 5, 4, []int{3, 1, 3, 1, 3}, "map:3,1"},
		{"linear", 4, 8, []int{0, 1, 2, 3}, "linear"},
		{"Linear", 3, 3, []int{0, 1, 2}, "linear"},
		{"block:4", 10, 3, []int{0, 0, 0, 0, 1, 1, 1, 1, 2, 2}, "block:4"},
		{"block:1", 3, 3, []int{0, 1, 2}, "block:1"},
		{"block", 10, 4, []int{0, 0, 0, 1, 1, 1, 2, 2, 2, 3}, "block"},
		{"roundrobin", 7, 3, []int{0, 1, 2, 0, 1, 2, 0}, "roundrobin"},
		{"cyclic", 2, 5, []int{0, 1}, "roundrobin"},
	}
	for _, tt := range tests {
		p, err := Parse(tt.spec, tt.ranks, tt.nodes)
		if err != nil {
			t.Errorf("Parse(%q, %d, %d): %v", tt.spec, tt.ranks, tt.nodes, err)
			continue
		}
		if fmt.Sprint(p.NodeOf()) != fmt.Sprint(tt.want) || p.Spec() != tt.canonical {
			t.Errorf("Parse(%q, %d, %d) = %v (%s); want %v (%s)", tt.spec, tt.ranks, tt.nodes, p.NodeOf(), p.Spec(), tt.want, tt.canonical)
		}
		if p.Ranks() != tt.ranks || p.Nodes() != tt.nodes {
			t.Errorf("%s: ranks %d nodes %d", tt.spec, p.Ranks(), p.Nodes())
		}
		load := p.Load()
		for r := 0; r < p.Ranks(); r++ {
			if p.Node(r) != tt.want[r] {
				t.Errorf("%s: Node(%d) = %d", tt.spec, r, p.Node(r))
			}
		}
		for n, rs := range p.RanksOn() {
			if len(rs) != load[n] {
				t.Errorf("%s: node %d has %d ranks, load %d", tt.spec, n, len(rs), load[n])
			}
			for _, r := range rs {
				if p.Node(r) != n {
					t.Errorf("%s: RanksOn(%d) lists rank %d on node %d", tt.spec, n, r, p.Node(r))
				}
			}
		}
		again, err := Parse(p.Spec(), tt.ranks, tt.nodes)
		if err != nil || fmt.Sprint(again.NodeOf()) != fmt.Sprint(p.NodeOf()) {
			t.Errorf("%s does not round-trip: %v", p.Spec(), err)
		}
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		spec         string
		ranks, nodes int
		want         string
	}{
		{"linear", 8, 4, "8 ranks do not fit on 4 nodes one per node (use block:2, roundrobin or random)"},
		{"block:2", 9, 4, "9 ranks need 5 nodes, the machine has 4 (use block:3)"},
		{"block:0", 4, 4, `at offset 6: block: "0" is not a positive number`},
		{"block:x", 4, 4, `block: "x"`},
		{"map:0,1,5", 4, 4, "at offset 8: map: node 5 out of range (the machine has nodes 0 to 3)"},
		{"map:0,a", 4, 4, `at offset 6: map: "a" is not a node number`},
		{"map:", 4, 4, "map: expected node numbers"},
		{"map:-1", 4, 4, "node -1 out of range"},
		{"random:seed=x", 4, 4, `random: seed "x"`},
		{"random:per=0", 4, 4, `random: per "0"`},
		{"random:foo=1", 4, 4, `unknown parameter "foo"`},
		{"random:seed", 4, 4, "expected seed=N or per=K"},
		{"random:per=1", 5, 4, "5 ranks do not fit in 4 nodes × 1 per node"},
		{"linear:3", 4, 4, "at offset 7: linear takes no parameters"},
		{"roundrobin:2", 4, 4, "roundrobin takes no parameters"},
		{"spiral", 4, 4, `unknown placement "spiral" (expected one of linear, block:4, roundrobin, random:seed=7, map:0,1,2, file:map.txt)`},
		{"", 4, 4, "expected a placement"},
		{"linear", 0, 4, "0 ranks"},
		{"linear", 4, 0, "0 nodes"},
		{"file:", 4, 4, "file: expected a file name"},
		{"file:testdata/none.txt", 4, 4, "no such file"},
	}
	for _, tt := range tests {
		_, err := Parse(tt.spec, tt.ranks, tt.nodes)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Parse(%q, %d, %d) = %v; want %q", tt.spec, tt.ranks, tt.nodes, err, tt.want)
		}
	}
}

func TestRandom(t *testing.T) {
	tests := []struct {
		spec         string
		ranks, nodes int
		per          int
	}{
		{"random:seed=7", 16, 16, 1},
		{"random:seed=7", 10, 64, 1},
		{"random:seed=3,per=2", 12, 8, 2},
		{"random", 9, 4, 3},
		{"random:seed=18446744073709551615", 5, 5, 1},
	}
	for _, tt := range tests {
		p, err := Parse(tt.spec, tt.ranks, tt.nodes)
		if err != nil {
			t.Fatalf("%s: %v", tt.spec, err)
		}
		for n, l := range p.Load() {
			if l > tt.per {
				t.Errorf("%s: node %d has %d ranks, at most %d allowed", tt.spec, n, l, tt.per)
			}
		}
		again, _ := Parse(p.Spec(), tt.ranks, tt.nodes)
		if fmt.Sprint(again.NodeOf()) != fmt.Sprint(p.NodeOf()) {
			t.Errorf("%s: not deterministic: %v vs %v", tt.spec, p.NodeOf(), again.NodeOf())
		}
	}
	// Different seeds give different permutations; every permutation of a
	// 4-rank, 4-node placement appears over enough seeds.
	seen := map[string]bool{}
	for seed := uint64(0); seed < 500; seed++ {
		p, _ := Random(4, 4, seed, 0)
		seen[fmt.Sprint(p.NodeOf())] = true
	}
	if len(seen) != 24 {
		t.Errorf("500 seeds produced %d of the 24 permutations", len(seen))
	}
	a, _ := Random(16, 16, 1, 0)
	b, _ := Random(16, 16, 2, 0)
	if fmt.Sprint(a.NodeOf()) == fmt.Sprint(b.NodeOf()) {
		t.Error("seeds 1 and 2 give the same placement")
	}
}

func TestNodeMatrix(t *testing.T) {
	p, err := Parse("map:0,1,2", 7, 3) // 0 1 2 0 1 2 0
	if err != nil {
		t.Fatal(err)
	}
	m := make([][]int64, 7)
	for i := range m {
		m[i] = make([]int64, 7)
		for j := range m[i] {
			m[i][j] = int64(10*i + j)
		}
	}
	got, err := p.NodeMatrix(m)
	if err != nil {
		t.Fatal(err)
	}
	var total, gotTotal int64
	for i := range m {
		for j := range m {
			total += m[i][j]
		}
	}
	for a := range got {
		for b := range got[a] {
			var want int64
			for i := range m {
				for j := range m {
					if p.Node(i) == a && p.Node(j) == b {
						want += m[i][j]
					}
				}
			}
			if got[a][b] != want {
				t.Errorf("node matrix [%d][%d] = %d; want %d", a, b, got[a][b], want)
			}
			gotTotal += got[a][b]
		}
	}
	if gotTotal != total {
		t.Errorf("total %d; want %d", gotTotal, total)
	}
	// Ranks 0, 3, 6 on node 0: [0][0] = sum over i, j in {0,3,6} of 10i+j.
	if got[0][0] != 3*10*(0+3+6)+3*(0+3+6) {
		t.Errorf("[0][0] = %d", got[0][0])
	}
	if _, err := p.NodeMatrix(m[:3]); err == nil {
		t.Error("short matrix accepted")
	}
	m[2] = m[2][:4]
	if _, err := p.NodeMatrix(m); err == nil || !strings.Contains(err.Error(), "row 2 has 4 columns") {
		t.Errorf("ragged matrix: %v", err)
	}
}

func TestMapFile(t *testing.T) {
	p, err := ParseWith("file:map.txt", 10, 8, Options{Open: userfile.Dir("testdata")})
	if err != nil {
		t.Fatal(err)
	}
	// testdata/map.txt: ranks 0-3 on 7, rank 5 on 0, the rest wrap over 1 2.
	want := []int{7, 7, 7, 7, 1, 0, 1, 2, 1, 2}
	if fmt.Sprint(p.NodeOf()) != fmt.Sprint(want) || p.Spec() != "file:map.txt" {
		t.Errorf("map.txt → %v (%s); want %v", p.NodeOf(), p.Spec(), want)
	}
	tests := []struct {
		name, text   string
		ranks, nodes int
		want         string
	}{
		{"explicit", "0 3\n1 2\n2 1\n", 3, 4, ""},
		{"commas", "map 0,1,2\n", 7, 3, ""},
		{"missing rank", "0 1\n2 1\n", 3, 4, "m.txt: rank 1 is not placed"},
		{"duplicate", "0 1\n1 1\n0-1 2\n", 3, 4, "m.txt:3:1: rank 0 is already placed on line 1"},
		{"rank range", "0 1\n5 1\n", 3, 4, "m.txt:2:1: rank 5 out of range (the trace has ranks 0 to 2)"},
		{"node range", "0 1\n1  9\n", 3, 4, "m.txt:2:4: node 9 out of range (the machine has nodes 0 to 3)"},
		{"bad rank", "x 1\n", 3, 4, `m.txt:1:1: "x" is not a rank or a range FIRST-LAST`},
		{"backwards range", "2-1 1\n", 3, 4, `m.txt:1:1: "2-1" is not a rank or a range`},
		{"bad node", "0 y\n", 3, 4, `m.txt:1:3: "y" is not a node number`},
		{"extra", "0 1 2\n", 3, 4, "m.txt:1:5: expected RANK NODE"},
		{"lonely", "0\n", 3, 4, "m.txt:1:1: expected RANK NODE"},
		{"two maps", "map 0\n# x\nmap 1\n", 3, 4, "m.txt:3:1: second map line (the first is on line 1)"},
		{"empty map", "map\n", 3, 4, "m.txt:1:4: map: expected node numbers"},
		{"map node", "map 0 4\n", 3, 4, "m.txt:1:7: node 4 out of range"},
	}
	for _, tt := range tests {
		p, err := ParseMap(strings.NewReader(tt.text), "m.txt", tt.ranks, tt.nodes)
		if tt.want == "" {
			if err != nil || p.Ranks() != tt.ranks {
				t.Errorf("%s: %v", tt.name, err)
			}
			continue
		}
		if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("%s: error %v; want prefix %q", tt.name, err, tt.want)
		}
	}
}

func TestExplicitAndString(t *testing.T) {
	if _, err := Explicit("x", 2, []int{0, 2}); err == nil {
		t.Error("node out of range accepted")
	}
	p, _ := Explicit("x", 3, []int{2, 2, 1})
	if p.MaxPerNode() != 2 || p.String() != "x: 0→2 1→2 2→1" {
		t.Errorf("MaxPerNode %d String %q", p.MaxPerNode(), p.String())
	}
	big, _ := RoundRobin(40, 3)
	if !strings.HasSuffix(big.String(), " …") {
		t.Errorf("long String %q", big.String())
	}
}

func FuzzParseMap(f *testing.F) {
	f.Add("0 1\n1-3 2\nmap 0 1 2\n", 8, 4)
	f.Add("# only a comment\n", 1, 1)
	f.Add("0-999999999 0\n", 4, 4)
	f.Fuzz(func(t *testing.T, text string, ranks, nodes int) {
		ranks, nodes = 1+abs(ranks)%64, 1+abs(nodes)%64
		p, err := ParseMap(strings.NewReader(text), "fuzz", ranks, nodes)
		if err != nil {
			return
		}
		if p.Ranks() != ranks {
			t.Fatalf("%d ranks placed, want %d", p.Ranks(), ranks)
		}
		for r := 0; r < ranks; r++ {
			if n := p.Node(r); n < 0 || n >= nodes {
				t.Fatalf("rank %d on node %d", r, n)
			}
		}
	})
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"linear", "block:3", "roundrobin", "random:seed=9,per=2", "map:0,1,2", "map:1 1"} {
		f.Add(s, 7, 4)
	}
	f.Fuzz(func(t *testing.T, spec string, ranks, nodes int) {
		if strings.HasPrefix(strings.ToLower(strings.TrimSpace(spec)), "file") {
			return
		}
		ranks, nodes = 1+abs(ranks)%256, 1+abs(nodes)%256
		p, err := Parse(spec, ranks, nodes)
		if err != nil {
			return
		}
		for r := 0; r < ranks; r++ {
			if n := p.Node(r); n < 0 || n >= nodes {
				t.Fatalf("%q: rank %d on node %d", spec, r, n)
			}
		}
		again, err := Parse(p.Spec(), ranks, nodes)
		if err != nil || fmt.Sprint(again.NodeOf()) != fmt.Sprint(p.NodeOf()) {
			t.Fatalf("%q → %q does not round-trip: %v", spec, p.Spec(), err)
		}
	})
}

func abs(x int) int {
	if x < 0 {
		if x == -x {
			return 0
		}
		return -x
	}
	return x
}

// A random placement without seed= takes the run's seed (Options.Seed),
// seed 1 without one; seed= wins over it.
func TestRandomRunSeed(t *testing.T) {
	seed := func(n uint64) *uint64 { return &n }
	want := func(s uint64) []int {
		p, err := Random(16, 16, s, 0)
		if err != nil {
			t.Fatal(err)
		}
		return p.NodeOf()
	}
	for _, tc := range []struct {
		spec string
		run  *uint64
		want uint64
	}{
		{"random", nil, 1},
		{"random", seed(1), 1},
		{"random", seed(2), 2},
		{"random", seed(0), 0},
		{"random:per=1", seed(9), 9},
		{"random:seed=7", seed(2), 7},
		{"random:per=1,seed=7", seed(2), 7},
	} {
		p, err := ParseWith(tc.spec, 16, 16, Options{Seed: tc.run})
		if err != nil {
			t.Fatal(err)
		}
		if got := p.NodeOf(); !slices.Equal(got, want(tc.want)) {
			t.Errorf("%s with run seed %v: %v, want seed %d's %v", tc.spec, tc.run, got, tc.want, want(tc.want))
		}
		if TakesRunSeed(tc.spec) != !strings.Contains(tc.spec, "seed=") {
			t.Errorf("TakesRunSeed(%q) = %v", tc.spec, TakesRunSeed(tc.spec))
		}
	}
	if slices.Equal(want(1), want(2)) {
		t.Fatal("seeds 1 and 2 place alike: the test shows nothing")
	}
	for _, spec := range []string{"block", "linear", "map:0,1", "file:random"} {
		if TakesRunSeed(spec) {
			t.Errorf("TakesRunSeed(%q) = true", spec)
		}
	}
}
