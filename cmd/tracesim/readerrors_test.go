package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInfoBrokenFileNamesPathOnce runs `info` on a broken file of every
// readable format: the error names the file by the path given exactly
// once (a reader naming it by base name under the CLI's own prefix said
// "/d/x.prv: x.prv:2: …"), followed by where in it the reader stopped.
func TestInfoBrokenFileNamesPathOnce(t *testing.T) {
	fpilog, err := os.ReadFile("../../tracefmt/clog/testdata/fpilog.clog")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		format string
		file   string
		// write makes the broken trace in dir, file its main file.
		write func(t *testing.T, dir string)
		// want is the message after "tracesim info: PATH"; DIR stands
		// for the directory of the trace.
		want string
	}{
		{"paraver", "x.prv", brokenText("x.prv", "#Paraver (01/01/70 at 00:00):100_ns:1(2):1:2(1:1,1:1),1\n2:1:1:1:1:zz:1:1\n"),
			`:2: record 2: expected field 5 (time) as an integer, got "2:1:1:1:1:zz:1:1"`},
		{"paraver .pcf", "y.prv", func(t *testing.T, dir string) {
			brokenText("y.prv", "#Paraver (01/01/70 at 00:00):100_ns:1(2):1:2(1:1,1:1),1\n")(t, dir)
			brokenText("y.pcf", "EVENT_TYPE\n0 zz name\n")(t, dir)
		}, `: y.pcf:2: expected gradient, type and name in EVENT_TYPE, got "0 zz name"`},
		{"dumpi .meta", "x.meta", brokenText("x.meta", "numprocs=x\nfileprefix=x\n"),
			`:1: expected numprocs as a number of ranks from 1 to 1048576, got "x"`},
		{"dumpi rank file", "x.bin", brokenText("x.bin", "\xff\xaa\xddDUMPI\x00\x00"),
			`: a DUMPI rank file, but not named PREFIX-NNNN.bin: open the trace's .meta`},
		{"dumpi .bin", "z.meta", func(t *testing.T, dir string) {
			brokenText("z.meta", "numprocs=1\nfileprefix=z\nversion=1\nsubversion=0\nsubsubversion=0\n")(t, dir)
			brokenText("z-0000.bin", "garbage")(t, dir)
		}, `: z-0000.bin: offset 0 (0x0): expected the DUMPI magic (8 bytes)`},
		{"goal", "x.goal", brokenText("x.goal", "num_ranks 2\nrank 0 {\nl1: frob 12b\n}\n"),
			`:3: expected send, recv, calc or LABEL requires|irequires LABEL, got "l1 : frob 12b"`},
		{"dimemas", "x.dim", brokenText("x.dim", "#DIMEMAS:butterfly_2_8:0:2(1,1),0\n2:0:0:1:8:0:0:0\n3:1:0:zz:8:0:0:0\n"),
			`:3: expected source as an integer, got "zz"`},
		{"alog", "x.alog", brokenText("x.alog", "-1 0 0 0 0 0 Me\nzz yy\n"),
			`: alog: 2:6: expected 6 integer fields`},
		{"ti", "x.ti", brokenText("x.ti", "0 init\n0 frobnicate 3\n"), `:2:3: unknown action "frobnicate"`},
		{"ti index", "idx.txt", func(t *testing.T, dir string) {
			brokenText("idx.txt", "r0.txt\nr1.txt\n")(t, dir)
			brokenText("r0.txt", "0 init\n0 send 1 8\n")(t, dir)
			brokenText("r1.txt", "1 init\n1 frob 8\n")(t, dir)
		}, `: r1.txt:2:3: unknown action "frob"`},
		{"tsim", "x.tsim", brokenText("x.tsim", "tsim 1\nranks 2\nbogus line\n"), `: tsim: line 3:1: expected a header line`},
		{"clog", "x.clog", brokenText("x.clog", string(fpilog[:100])),
			`: clog: offset 72: file ends inside a COMM record of 40 bytes (truncated?)`},
		{"clog2", "x.clog2", brokenRing("x.clog2", func(b []byte) []byte { return b[:40] }),
			`: clog2: offset 40: truncated preamble: the file ends after 40 of its 1024 bytes`},
		{"otf2", "x.otf2", func(t *testing.T, dir string) {
			brokenRing("x.otf2", nil)(t, dir)
			evt := filepath.Join(dir, "x", "0.evt")
			b, err := os.ReadFile(evt)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(evt, b[:len(b)/2], 0o644); err != nil {
				t.Fatal(err)
			}
		}, `: DIR/x/0.evt: offset `},
	} {
		t.Run(tc.format, func(t *testing.T) {
			dir := t.TempDir()
			tc.write(t, dir)
			path := filepath.Join(dir, tc.file)
			code, _, errs := tracesim(t, "info", path)
			if code == exitOK {
				t.Fatalf("info accepted the broken %s file", tc.format)
			}
			if n := strings.Count(errs, tc.file); n != 1 {
				t.Errorf("stderr names %s %d times, want once:\n%s", tc.file, n, errs)
			}
			if prefix := "tracesim info: " + path + strings.ReplaceAll(tc.want, "DIR", dir); !strings.HasPrefix(errs, prefix) {
				t.Errorf("stderr:\n%s\nwant it to begin\n%s", errs, prefix)
			}
		})
	}
}

// brokenText returns a writer of one file of the given content.
func brokenText(name, content string) func(*testing.T, string) {
	return func(t *testing.T, dir string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// brokenRing returns a writer of a two-rank ring trace `tracesim gen`
// writes as name (its format by extension), then passes through cut when
// given.
func brokenRing(name string, cut func([]byte) []byte) func(*testing.T, string) {
	return func(t *testing.T, dir string) {
		t.Helper()
		path := filepath.Join(dir, name)
		if code, _, errs := tracesim(t, "gen", "ring", "--ranks", "2", "--iters", "1", "-o", path); code != exitOK {
			t.Fatalf("gen: %d %s", code, errs)
		}
		if cut == nil {
			return
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, cut(b), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
