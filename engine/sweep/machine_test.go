package sweep

import (
	"strings"
	"testing"

	"github.com/tracesim/tracesim/engine/replay"
)

// The machine column writes the spec's base as the settings that differ
// from the defaults, and reads back to the same machine.
func TestMachineColumn(t *testing.T) {
	tests := []struct {
		name string
		spec string   // the spec's lines before [axes]
		want []string // in its machine column, in this order (the preset's cpu settings may follow)
	}{
		{"default", ``, nil},
		{"top level", "bandwidth = \"25Gb/s\"\nlatency = \"3us\"\n", []string{"bandwidth=25Gb/s;per-byte=320ps;latency=3us"}},
		{"preset", "preset = \"simgrid-cluster\"\n", []string{"model=simgrid;bandwidth=1Gb/s;per-byte=8ns;latency=5us"}},
		{"preset and top level", "preset = \"simgrid-cluster\"\nlatency = \"3us\"\n", []string{"model=simgrid;bandwidth=1Gb/s;per-byte=8ns;latency=3us"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := parse([]byte("traces = [\"gen ring --ranks 4\"]\n"+tc.spec+"[axes]\ncpu-speed = [\"1Gf\", \"2Gf\"]\n"), ".")
			if err != nil {
				t.Fatal(err)
			}
			got := s.Machine()
			rest := got
			for _, w := range tc.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("machine %q: want %q in this order", got, tc.want)
				}
				rest = rest[i+len(w):]
			}
			if tc.want == nil && got != "" {
				t.Errorf("machine %q of the default machine, want \"\"", got)
			}
			back, err := ParseMachine(got)
			if err != nil {
				t.Fatalf("ParseMachine(%q): %v", got, err)
			}
			for i, kv := range back.Values() {
				if want := s.Base.Values()[i]; kv != want {
					t.Errorf("%s = %q after reading %q back, want %q", kv[0], kv[1], got, want[1])
				}
			}
			row := s.Row(&Point{Values: []string{"1"}}, nil, 0, nil)
			if c := s.Columns(); c[len(c)-1] != MachineColumn || row[len(row)-1] != got {
				t.Errorf("last column %s = %q, want %s = %q", c[len(c)-1], row[len(row)-1], MachineColumn, got)
			}
		})
	}
}

// A value with ';' or a quote is quoted, and reads back.
func TestMachineQuoting(t *testing.T) {
	c := replay.Default()
	if err := c.Set("placement", "file:a;b.txt"); err != nil {
		t.Skipf("placement file names: %v", err)
	}
	got := FormatMachine(&c)
	if !strings.Contains(got, `placement="file:a;b.txt"`) {
		t.Errorf("machine %q: want the placement quoted", got)
	}
	back, err := ParseMachine(got)
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := back.Get("placement"); v != "file:a;b.txt" {
		t.Errorf("placement %q read back, want file:a;b.txt", v)
	}
}

func TestParseMachineErrors(t *testing.T) {
	tests := []struct{ in, want string }{
		{"bandwidth", `machine: "bandwidth": expected key=value`},
		{"nosuch=1", "machine: nosuch: unknown setting"},
		{"bandwidth=fast", "machine: bandwidth:"},
		{`placement="file:a`, "machine: placement: unterminated quoted value"},
		{`placement="x"y`, "machine: placement: expected ';' after the quoted value"},
	}
	for _, tc := range tests {
		_, err := ParseMachine(tc.in)
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("ParseMachine(%q) = %v, want an error starting %q", tc.in, err, tc.want)
		}
	}
}

// A result from before the machine column merges with one that has it
// (its rows take the machine), and two machines do not merge.
func TestMergeMachine(t *testing.T) {
	oldCols := []string{"point", "trace", "makespan_s"}
	newCols := []string{"point", "trace", "makespan_s", MachineColumn}
	tests := []struct {
		name    string
		a, b    *Table
		want    string // the merged rows, joined
		wantErr string
	}{
		{"old then new", &Table{oldCols, [][]string{{"0", "t", "1"}}}, &Table{newCols, [][]string{{"1", "t2", "2", "latency=3us"}}},
			"0,t,1,latency=3us|1,t2,2,latency=3us", ""},
		{"new then old", &Table{newCols, [][]string{{"0", "t", "1", "latency=3us"}}}, &Table{oldCols, [][]string{{"1", "t2", "2"}}},
			"0,t,1,latency=3us|1,t2,2,latency=3us", ""},
		{"two machines", &Table{newCols, [][]string{{"0", "t", "1", "latency=3us"}}}, &Table{newCols, [][]string{{"1", "t2", "2", ""}}},
			"", `b.csv: point 1: machine "" differs from "latency=3us" in the files before it (another spec?)`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := &Table{}
			err := m.Merge("a.csv", tc.a)
			if err == nil {
				err = m.Merge("b.csv", tc.b)
			}
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("error %v, want %s", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var rows []string
			for _, r := range m.Rows {
				rows = append(rows, strings.Join(r, ","))
			}
			if got := strings.Join(rows, "|"); got != tc.want {
				t.Errorf("merged %s, want %s", got, tc.want)
			}
		})
	}
}

// PointConfig builds a row's machine from the machine column, then the
// axes and the seed; without the column, from the caller's base.
func TestPointConfig(t *testing.T) {
	base := replay.Default()
	base.Seed = 9
	tests := []struct {
		name    string
		cols    []string
		row     []string
		want    map[string]string
		wantErr string
	}{
		{"machine column", []string{"point", "trace", "latency", "rep", "seed", "makespan_s", MachineColumn},
			[]string{"0", "t", "2us", "0", "5", "1", "bandwidth=10Gb/s;latency=7us"},
			map[string]string{"bandwidth": "10Gb/s", "latency": "2us", "seed": "5"}, ""},
		{"old result", []string{"point", "trace", "latency", "makespan_s"},
			[]string{"0", "t", "2us", "1"},
			map[string]string{"latency": "2us", "seed": "9"}, ""},
		{"bad machine", []string{"point", "trace", "makespan_s", MachineColumn},
			[]string{"0", "t", "1", "bandwidth=x"}, nil, "machine: bandwidth:"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tab := &Table{Columns: tc.cols}
			c, err := tab.PointConfig(tc.row, base)
			if tc.wantErr != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one starting %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for k, want := range tc.want {
				if got, _ := c.Get(k); got != want {
					t.Errorf("%s = %s, want %s", k, got, want)
				}
			}
		})
	}
}
