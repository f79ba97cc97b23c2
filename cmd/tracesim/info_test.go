package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tracesim/tracesim/internal/testshared"
	"github.com/tracesim/tracesim/tracefmt/formats"
)

// On big runs `info` summarises the events per rank instead of printing
// a line for each; small runs keep the list.
func TestInfoEventsPerRank(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		ranks string
		want  string
		lines int // lines after "events per rank"
	}{
		{"4", "     3 ", 4},
		{"64", "min ", 1},
	} {
		path := filepath.Join(dir, "ring"+tc.ranks+".tsim")
		if code, _, errs := tracesim(t, "gen", "ring", "--ranks", tc.ranks, "--iters", "2", "-o", path); code != exitOK {
			t.Fatalf("gen: %d %s", code, errs)
		}
		code, out, errs := tracesim(t, "info", path)
		if code != exitOK {
			t.Fatalf("info: %d %s", code, errs)
		}
		_, list, ok := strings.Cut(out, "events per rank\n")
		if !ok || !strings.Contains(list, tc.want) {
			t.Errorf("%s ranks: events per rank %q, want %q in it", tc.ranks, list, tc.want)
		}
		if n := strings.Count(strings.TrimRight(list, "\n"), "\n") + 1; n != tc.lines {
			t.Errorf("%s ranks: %d lines of events per rank, want %d", tc.ranks, n, tc.lines)
		}
	}
}

// TestSizeUnknownWarnings: on an MPE trace whose MPI_Allreduce and
// MPI_Bcast calls have no recorded sizes (40 of each; MPE logs the sizes
// of its 40 MPI_Alltoall calls), `info` and `sim` say once how many.
func TestSizeUnknownWarnings(t *testing.T) {
	const path = "../../testdata/mpe/colls.clog2"
	const note = "80 collective calls have no recorded size"
	code, out, errs := tracesim(t, "info", path)
	if code != exitOK {
		t.Fatalf("info: %d %s", code, errs)
	}
	if !strings.Contains(out, "160 KiB in 120 collective calls\nwarning     "+note) || strings.Count(out, "no recorded size") != 1 {
		t.Errorf("info:\n%s\nwant 120 collective calls and one warning %q", out, note)
	}
	code, out, errs = tracesim(t, "info", "--json", path)
	if code != exitOK || !strings.Contains(out, `"collectives": 120,`) || !strings.Contains(out, `"collectives_size_unknown": 80,`) {
		t.Errorf("info --json (%d):\n%s%s", code, out, errs)
	}
	code, out, errs = tracesim(t, "sim", path)
	if code != exitOK {
		t.Fatalf("sim: %d %s", code, errs)
	}
	if strings.Count(errs, "tracesim sim: warning: "+note) != 1 || strings.Contains(out, "no recorded size") {
		t.Errorf("sim: stderr %q, want the warning once (and not on stdout)", errs)
	}
}

// TestMPERecordings: on real MPE2 recordings (testdata/mpe), `info --json`
// counts the MPI_Allreduce, MPI_Alltoall and MPI_Bcast calls MPE logs as
// states as collectives, with the bytes MPE logs for the alltoalls (4 KiB
// sent per call and rank); `sim` with a fast network predicts no more than
// the recorded span, and a slow network makes the alltoalls slower.
func TestMPERecordings(t *testing.T) {
	const dir = "../../testdata/mpe/"
	m := infoJSON(t, dir+"colls.clog2")
	if m["collectives"] != 120.0 || m["collective_bytes"] != float64(40*4096) || m["collectives_size_unknown"] != 80.0 {
		t.Errorf("colls: collectives %v, bytes %v, of unknown size %v; want 120, %d, 80",
			m["collectives"], m["collective_bytes"], m["collectives_size_unknown"], 40*4096)
	}
	sim := func(file, bw string) (makespan, recorded float64) {
		if !strings.Contains(file, "/") {
			file = dir + file
		}
		code, out, errs := tracesim(t, "sim", file, "--json", "--bandwidth", bw, "--latency", "1us")
		if code != exitOK {
			t.Fatalf("sim %s at %s: exit %d: %s", file, bw, code, errs)
		}
		var res struct {
			Makespan float64 `json:"makespan_s"`
			Recorded float64 `json:"recorded_s"`
		}
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		return res.Makespan, res.Recorded
	}
	files := []string{"colls.clog2", "allreduce.clog2", "masterworker.clog2"}
	if p := filepath.Join(testshared.Dir(), "clog2", "cpilog.clog2"); fileExists(p) {
		files = append(files, p)
	}
	for _, f := range files {
		fast, rec := sim(f, "100Gb/s")
		if !(fast > 0 && fast <= rec) {
			t.Errorf("%s: makespan %v s at 100 Gb/s, recorded %v s: want no more than recorded", f, fast, rec)
		}
	}
	fast, _ := sim("colls.clog2", "10Gb/s")
	slow, _ := sim("colls.clog2", "10Mb/s")
	if !(slow > fast) {
		t.Errorf("colls: %v s at 10 Mb/s, %v s at 10 Gb/s: want the slow network slower", slow, fast)
	}
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// wallFields matches the JSON fields of a run's own speed, which differ
// between two runs of one trace.
var wallFields = regexp.MustCompile(`(?m)^\s*"(wall_s|events_per_s|trace_events_per_s)": [^\n]*\n`)

// A gzipped trace gives the same `info` and `sim` as the file it holds
// (sim reads it whole, even under --stream on: a compressed file does
// not stream), and an xz one is refused with the command that
// decompresses it.
func TestCompressedTraceCommands(t *testing.T) {
	dir := t.TempDir()
	plain := filepath.Join(dir, "ring.tsim")
	if code, _, errs := tracesim(t, "gen", "ring", "--ranks", "8", "--iters", "20", "-o", plain); code != exitOK {
		t.Fatalf("gen: %d %s", code, errs)
	}
	data, err := os.ReadFile(plain)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	z := gzip.NewWriter(&b)
	z.Write(data)
	z.Close()
	gz := plain + ".gz"
	os.WriteFile(gz, b.Bytes(), 0o644)
	for _, args := range [][]string{{"info", "--json"}, {"sim", "--json", "--stream", "on"}, {"sim", "--json", "--model", "packet"}} {
		code, want, errs := tracesim(t, append(args, plain)...)
		if code != exitOK {
			t.Fatalf("%v plain: %d %s", args, code, errs)
		}
		code, got, errs := tracesim(t, append(args, gz)...)
		if code != exitOK {
			t.Fatalf("%v gzip: %d %s", args, code, errs)
		}
		if strip := func(s string) string {
			s = strings.ReplaceAll(s, gz, "FILE")
			s = strings.ReplaceAll(s, plain, "FILE")
			return wallFields.ReplaceAllString(s, "")
		}; strip(got) != strip(want) {
			t.Errorf("%v: the gzip file's output differs:\n%s\nplain:\n%s", args, got, want)
		}
	}
	// Outputs named .gz are written gzipped: a converted trace, and
	// sim's per-message table, which decompress to the plain outputs.
	for _, c := range []struct{ plainArgs, gzArgs []string }{
		{[]string{"convert", plain, "-o", filepath.Join(dir, "c.clog2")}, []string{"convert", plain, "-o", filepath.Join(dir, "c.clog2.gz")}},
		{[]string{"sim", plain, "--messages-out", filepath.Join(dir, "m.csv")}, []string{"sim", plain, "--messages-out", filepath.Join(dir, "m.csv.gz")}},
	} {
		for _, args := range [][]string{c.plainArgs, c.gzArgs} {
			if code, _, errs := tracesim(t, args...); code != exitOK {
				t.Fatalf("%v: %d %s", args, code, errs)
			}
		}
		want, _ := os.ReadFile(c.plainArgs[len(c.plainArgs)-1])
		f, err := os.Open(c.gzArgs[len(c.gzArgs)-1])
		if err != nil {
			t.Fatal(err)
		}
		z, err := gzip.NewReader(f)
		if err != nil {
			t.Fatalf("%v: not gzip: %v", c.gzArgs, err)
		}
		got, err := io.ReadAll(z)
		f.Close()
		if err != nil || len(want) == 0 || !bytes.Equal(got, want) {
			t.Errorf("%v: decompresses to %d bytes (%v), want the %d of the plain output", c.gzArgs, len(got), err, len(want))
		}
	}
	xz := filepath.Join(dir, "ring.tsim.xz")
	os.WriteFile(xz, []byte("\xfd7zXZ\x00\x00"), 0o644)
	if code, _, errs := tracesim(t, "info", xz); code == exitOK || !strings.Contains(errs, "xz-compressed: tracesim decompresses gzip and bzip2 only; decompress it first (unxz -k "+xz+")") {
		t.Errorf("xz: exit %d, %s", code, errs)
	}
}

// `tracesim formats` lists every format with what tracesim does with it,
// and says that compressed files are read and .gz outputs written.
func TestFormatsCommand(t *testing.T) {
	code, out, errs := tracesim(t, "formats")
	if code != exitOK {
		t.Fatalf("formats: %d %s", code, errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	all := formats.All()
	if len(lines) != len(all)+3 || strings.Join(strings.Fields(lines[0]), " ") != "NAME READ WRITE EXTENSIONS DESCRIPTION" {
		t.Fatalf("formats:\n%s", out)
	}
	for i, f := range all {
		fs := strings.Fields(lines[1+i])
		read, write := "-", "-"
		if f.Readable() {
			read = "yes"
		}
		if f.Writable() {
			write = "yes"
		}
		if len(fs) < 4 || fs[0] != f.Name || fs[1] != read || fs[2] != write {
			t.Errorf("line %q: want %s %s %s", lines[1+i], f.Name, read, write)
		}
	}
	if last := lines[len(lines)-1]; !strings.Contains(last, "gzip or bzip2") || !strings.Contains(last, "written gzipped") {
		t.Errorf("last line %q: want the compressed files' rule", last)
	}
}
