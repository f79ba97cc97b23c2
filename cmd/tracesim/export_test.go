package main

import (
	"bytes"
	"encoding/csv"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tracesim/tracesim/internal/tabular"
	"github.com/tracesim/tracesim/internal/testshared"
	"github.com/tracesim/tracesim/tracefmt/clog2"
	"github.com/tracesim/tracesim/tracefmt/gen"
	"github.com/tracesim/tracesim/tracefmt/perfetto"
)

// readRows reads a CSV or Parquet table as rows of text, the header
// (the column names) first.
func readRows(t *testing.T, path string) [][]string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(path, ".parquet") {
		rows, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		return rows
	}
	tb, err := tabular.Read(path, bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	var head []string
	for _, c := range tb.Columns {
		head = append(head, c.Name)
	}
	return append([][]string{head}, tb.Rows...)
}

// numeric respells the cells that are numbers in one form.
func numeric(rows [][]string) [][]string {
	for _, r := range rows {
		for i, c := range r {
			if f, err := strconv.ParseFloat(c, 64); err == nil {
				r[i] = strconv.FormatFloat(f, 'g', -1, 64)
			}
		}
	}
	return rows
}

func sameTables(t *testing.T, what string, got, want [][]string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d rows, want %d", what, len(got), len(want))
	}
	for i := range got {
		if g, w := strings.Join(got[i], ","), strings.Join(want[i], ","); g != w {
			t.Fatalf("%s: row %d:\n got %s\nwant %s", what, i, g, w)
		}
	}
}

// `tracesim export` writes each table as CSV (to standard output or a
// file) and as Parquet with the same rows; the header and the first row
// are what docs/formats.md describes.
func TestExportTables(t *testing.T) {
	dir := t.TempDir()
	mw, colls := "../../testdata/mpe/masterworker.clog2", "../../testdata/mpe/colls.clog2"
	trace := mw
	for _, c := range []struct {
		trace, what, header, first string
		rows                       int
	}{
		{mw, "states", "rank,name,category,start_s,end_s,duration_s,unclosed,info", "0,MPI_Comm_rank,other,0.0003704549999383744,0.00037063499985379167,1.7999991541728377e-07,false,", 174},
		{mw, "messages", "src,dst,tag,comm,bytes,send_s,recv_s,send_event,recv_event,send_physical_s,recv_posted_s", "0,1,1,0,4,0.00037783799984936195,0.01087398399988615,5,5,0.00037783799984936195,0.01087398399988615", 83},
		{colls, "collectives", "rank,op,comm,seq,root,sent_bytes,recv_bytes,time_s,event", "0,allreduce,0,0,,0,0,0.000258263999967312,5", 120},
		{mw, "sim", "src,dst,tag,bytes,collective,send_event,recv_event,sent_s,matched_s,delivered_s,completed_s", "", 83},
	} {
		t.Run(c.what, func(t *testing.T) {
			code, out, errs := tracesim(t, "export", c.trace, "--what", c.what)
			if code != exitOK {
				t.Fatalf("exit %d: %s", code, errs)
			}
			rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(rows[0], ","); got != c.header {
				t.Errorf("header %s, want %s", got, c.header)
			}
			if len(rows)-1 != c.rows {
				t.Errorf("%d rows, want %d", len(rows)-1, c.rows)
			}
			if c.first != "" && strings.Join(rows[1], ",") != c.first {
				t.Errorf("first row %s, want %s", strings.Join(rows[1], ","), c.first)
			}
			pq := filepath.Join(dir, c.what+".parquet")
			if code, _, errs := tracesim(t, "export", c.trace, "--what", c.what, "-o", pq); code != exitOK {
				t.Fatalf("parquet: exit %d: %s", code, errs)
			}
			sameTables(t, c.what, readRows(t, pq), rows)
		})
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"export", trace}, "tracesim export: --what: unknown table \"\" (known: states, messages, collectives, sim)"},
		{[]string{"export", trace, "--what", "states", "--to", "parquet"}, "Parquet needs an output file: give -o OUT.parquet"},
		{[]string{"export", trace, "--what", "states", "--to", "xlsx"}, `--to "xlsx": expected csv or parquet`},
		{[]string{"export", trace, "--what", "states", "--preset", "smpi"}, "--preset and --config choose the machine of --what sim"},
		{[]string{"export", trace, "--what", "states", "-o", trace}, "is also an input"},
		{[]string{"export", "../../testdata/tsim/untimed.tsim", "--what", "states"}, "the trace is untimed: give --cpu-speed"},
	} {
		code, _, errs := tracesim(t, c.args...)
		if code == exitOK || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, stderr %q, want …%s…", c.args, code, errs, c.want)
		}
	}
	if code, out, errs := tracesim(t, "export", "../../testdata/tsim/untimed.tsim", "--what", "messages", "--cpu-speed", "1Gf"); code != exitOK || !strings.HasPrefix(out, "src,dst,") {
		t.Errorf("untimed with --cpu-speed: exit %d: %s%s", code, out, errs)
	}
}

// sim's --messages-out and --metrics-out write Parquet for a .parquet
// file, with the rows of their CSV; --perfetto-out writes the predicted
// run with the network's counters, and it passes the format's rules.
func TestSimTableAndPerfettoOutputs(t *testing.T) {
	path := writeGen(t, gen.Options{Pattern: "stencil2d", Ranks: 16, Iters: 2, Compute: -1})
	dir := t.TempDir()
	out := func(name string) string { return filepath.Join(dir, name) }
	args := []string{"--model", "packet", "--topology", "torus:4x4", "--sample-period", "20us"}
	if code, _, errs := simRun(t, append(append([]string{path}, args...), "--messages-out", out("m.csv"), "--metrics-out", out("n.csv"), "--perfetto-out", out("run.json"))...); code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if code, _, errs := simRun(t, append(append([]string{path}, args...), "--messages-out", out("m.parquet"), "--metrics-out", out("n.parquet"))...); code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	sameTables(t, "messages", readRows(t, out("m.parquet")), readRows(t, out("m.csv")))
	// The metrics CSV spells a whole value as an integer (4096), the
	// Parquet DOUBLE reads back in Go's shortest form (4.096e+03 for
	// large ones): the same numbers.
	sameTables(t, "metrics", numeric(readRows(t, out("n.parquet"))), numeric(readRows(t, out("n.csv"))))
	if n := len(readRows(t, out("m.csv"))) - 1; n < 96 {
		t.Errorf("%d messages, want the stencil's 96 and more", n)
	}
	f, err := os.Open(out("run.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, err := perfetto.Check(f)
	if err != nil {
		t.Fatal(err)
	}
	if st.Threads != 16 || st.Slices == 0 || st.Flows < 96 || st.Unbound != 0 || st.Counters == 0 {
		t.Errorf("predicted run: %d threads, %d slices, %d arrows (%d ends unbound), %d counter events; want 16 threads, slices, 96+ arrows bound to calls, counters",
			st.Threads, st.Slices, st.Flows, st.Unbound, st.Counters)
	}
	// An analytic model (LogGOPS) has no network to measure: the run alone.
	if code, _, errs := simRun(t, path, "--model", "loggops", "--perfetto-out", out("analytic.json")); code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	data, _ := os.ReadFile(out("analytic.json"))
	if st, err := perfetto.Check(bytes.NewReader(data)); err != nil || st.Counters != 0 || st.Flows < 96 {
		t.Errorf("analytic run: %+v, %v", st, err)
	}
}

// `convert --to perfetto`, `export` and `sim --perfetto-out` honour
// SIGINT and SIGTERM within a second while they write, and leave neither
// the output nor its temporary file behind.
func TestLongWritesStopOnSignal(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command and writes a million events")
	}
	bin := buildTracesim(t)
	dir := t.TempDir()
	trace := filepath.Join(dir, "big.clog2")
	tr, err := gen.Generate(gen.Options{Pattern: "cg", Ranks: 64, Iters: 400, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(trace)
	if err != nil {
		t.Fatal(err)
	}
	if err := clog2.Write(f, tr); err != nil {
		t.Fatal(err)
	}
	f.Close()
	for _, c := range []struct {
		name string
		sig  syscall.Signal
		out  string
		args []string
		said string
	}{
		{"convert perfetto SIGINT", syscall.SIGINT, "big.json", []string{"convert", trace, "-o"}, "interrupted: context canceled"},
		{"export parquet SIGTERM", syscall.SIGTERM, "big.parquet", []string{"export", trace, "--what", "states", "-o"}, "interrupted: context canceled"},
		{"export csv SIGINT", syscall.SIGINT, "big.csv", []string{"export", trace, "--what", "messages", "-o"}, "interrupted: context canceled"},
		{"sim perfetto SIGTERM", syscall.SIGTERM, "sim.json", []string{"sim", trace, "--model", "flow", "--perfetto-out"}, "interrupted at simulated time"},
	} {
		t.Run(c.name, func(t *testing.T) {
			outDir := t.TempDir()
			cmd := exec.Command(bin, append(c.args, filepath.Join(outDir, c.out))...)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			// The temporary file appears once the trace is loaded and
			// the write has begun.
			took, err := interruptWhen(t, cmd, c.sig, 20*time.Second, func() bool {
				tmp, _ := filepath.Glob(filepath.Join(outDir, ".*.tmp-*"))
				return len(tmp) > 0
			})
			if took > time.Second {
				t.Errorf("took %v to stop, want under a second", took)
			}
			t.Logf("stopped %v after %v", took, c.sig)
			if err == nil {
				t.Fatalf("exit status 0: the write finished before the signal (stderr %q)", stderr.String())
			}
			if !strings.Contains(stderr.String(), c.said) {
				t.Errorf("stderr %q, want it to say interrupted", stderr.String())
			}
			if left, _ := os.ReadDir(outDir); len(left) != 0 {
				t.Errorf("left behind: %v", left)
			}
		})
	}
}

// interruptWhen starts cmd, sends it sig once ready says so (or after
// wait), and returns how long the command took to stop after the signal
// and how it ended.
func interruptWhen(t *testing.T, cmd *exec.Cmd, sig os.Signal, wait time.Duration, ready func() bool) (time.Duration, error) {
	t.Helper()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(wait); time.Now().Before(deadline) && !ready(); {
		time.Sleep(time.Millisecond)
	}
	sent := time.Now()
	cmd.Process.Signal(sig)
	err := cmd.Wait()
	return time.Since(sent), err
}

// Every readable format converts to every writable one (an untimed
// source given --cpu-speed): the messages survive each conversion, and
// the Perfetto output passes the format's rules with an arrow per
// message.
func TestConvertEveryPair(t *testing.T) {
	dir := t.TempDir()
	cg := filepath.Join(dir, "cg.clog2")
	if code, _, errs := tracesim(t, "gen", "cg", "--ranks", "8", "--iters", "3", "-o", cg); code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	sources := []string{cg}
	for _, ext := range []string{"otf2", "tsim", "ti"} {
		p := filepath.Join(dir, "cg."+ext)
		if code, _, errs := tracesim(t, "convert", cg, "-o", p); code != exitOK {
			t.Fatalf("to %s: exit %d: %s", ext, code, errs)
		}
		sources = append(sources, p)
	}
	for _, p := range []string{testshared.Dir() + "/clog/pmandel.clog", testshared.Dir() + "/alog/srtest.alog"} {
		if _, err := os.Stat(p); err == nil {
			sources = append(sources, p)
		}
	}
	for _, src := range sources {
		want := messages(infoJSON(t, src))["matched"]
		for _, to := range []string{"clog2", "otf2", "tsim", "ti", "perfetto"} {
			ext := to
			if to == "perfetto" {
				ext = "json"
			}
			out := filepath.Join(t.TempDir(), "out."+ext)
			code, _, errs := tracesim(t, "convert", src, "-o", out, "--cpu-speed", "1Gf")
			if code != exitOK {
				t.Errorf("%s → %s: exit %d: %s", filepath.Base(src), to, code, errs)
				continue
			}
			if to != "perfetto" {
				if got := messages(infoJSON(t, out))["matched"]; got != want {
					t.Errorf("%s → %s: %v messages, want %v", filepath.Base(src), to, got, want)
				}
				continue
			}
			data, _ := os.ReadFile(out)
			st, err := perfetto.Check(bytes.NewReader(data))
			if err != nil || float64(st.Flows) != want {
				t.Errorf("%s → perfetto: %d arrows (%v), want %v", filepath.Base(src), st.Flows, err, want)
			}
		}
	}
}
