package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracesim/tracesim/tracefmt/gen"
)

// A --sample-period that would write more than --max-output is refused
// before the run, with the estimate; a file that grows beyond the limit
// anyway stops there. Either way the previous output stays and no
// temporary file is left.
func TestSamplePeriodBound(t *testing.T) {
	path := writeGen(t, gen.Options{Pattern: "ring", Ranks: 8, Iters: 200, Size: 1 << 20, Compute: -1})
	dir := t.TempDir()
	out := filepath.Join(dir, "m.csv")
	const old = "the previous metrics\n"
	for _, tc := range []struct {
		name string
		args []string
		// code and stderr expected; "" stderr for a run that succeeds.
		code int
		err  string
	}{
		// The flow model's samples write six network lines at least, the
		// packet model's eleven: 240 and 440 bytes.
		{"1 ps under the default limit", []string{"--sample-period", "1ps"}, exitUsage,
			"a --sample-period of 1 ps over the trace's 230.1 ms is 2.3e+11 periods, at least 50.23 TiB of samples if the network is busy throughout, beyond --max-output 1 GiB"},
		{"1 ps, packet model", []string{"--sample-period", "1ps", "--model", "packet"}, exitUsage,
			"a --sample-period of 1 ps over the trace's 230.1 ms is 2.3e+11 periods, at least 92.09 TiB of samples if the network is busy throughout, beyond --max-output 1 GiB"},
		{"10 µs under 100 KiB", []string{"--sample-period", "10us", "--max-output", "100KiB"}, exitUsage,
			"is 2.3e+04 periods, at least 5.267 MiB of samples if the network is busy throughout, beyond --max-output 100 KiB"},
		// 230 periods: at least 98.88 KiB, but the link lines make more.
		{"estimate within the limit, file beyond it", []string{"--sample-period", "1ms", "--max-output", "200KiB"}, exitFail,
			"output larger than its limit (204800 bytes)"},
		{"a bad limit", []string{"--sample-period", "1ms", "--max-output", "lots"}, exitUsage,
			`--max-output "lots": expected a size such as 1GiB`},
		{"within the limit", []string{"--sample-period", "1ms"}, exitOK, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := os.WriteFile(out, []byte(old), 0o644); err != nil {
				t.Fatal(err)
			}
			args := append([]string{path, "--model", "flow", "--metrics-out", out}, tc.args...)
			code, _, errs := simRun(t, args...)
			if code != tc.code || !strings.Contains(errs, tc.err) {
				t.Fatalf("exit %d, stderr %q; want %d and %q", code, errs, tc.code, tc.err)
			}
			b, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			if kept := string(b) == old; kept != (tc.code != exitOK) {
				t.Errorf("previous output kept: %v (file of %d bytes)", kept, len(b))
			}
			if m, _ := filepath.Glob(filepath.Join(dir, ".m.csv.tmp-*")); len(m) > 0 {
				t.Errorf("temporary files left: %v", m)
			}
		})
	}
}
