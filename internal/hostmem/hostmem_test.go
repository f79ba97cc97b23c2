package hostmem

import "testing"

func TestTotal(t *testing.T) {
	meminfo := []byte("MemTotal:       24684160 kB\nMemFree:        15008372 kB\n")
	for _, c := range []struct {
		name            string
		meminfo, cgroup []byte
		want            int64
	}{
		{"machine", meminfo, nil, 24684160 << 10},
		{"cgroup without a limit", meminfo, []byte("max\n"), 24684160 << 10},
		{"cgroup smaller", meminfo, []byte("4294967296\n"), 4 << 30},
		{"cgroup larger", meminfo, []byte("99999999999999\n"), 24684160 << 10},
		{"cgroup alone", nil, []byte("1073741824\n"), 1 << 30},
		{"nothing known", nil, nil, 0},
		{"no MemTotal line", []byte("MemFree: 1 kB\n"), nil, 0},
	} {
		if got := total(c.meminfo, c.cgroup); got != c.want {
			t.Errorf("%s: total = %d, want %d", c.name, got, c.want)
		}
	}
	if Total() < 0 {
		t.Error("Total is negative")
	}
}
