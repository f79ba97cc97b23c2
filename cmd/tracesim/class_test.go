package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tracesim/tracesim/internal/classdb"
)

// classFixture writes a class database: Ada finished "ring" (one wrong
// answer, then right), Bob is on step 1 of "skew", Cy started nothing.
func classFixture(t *testing.T) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "class.db")
	at := time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC)
	db, err := classdb.Open(file, classdb.Options{Now: func() time.Time { return at }})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	for _, f := range []func() error{
		func() error { return db.Seen(ctx, "SHA256:ada", "Ada") },
		func() error { return db.Seen(ctx, "SHA256:bob", "Bob") },
		func() error { return db.Seen(ctx, "SHA256:cy", "Cy") },
		func() error { return db.Reached(ctx, "SHA256:ada", "ring", 0, 2) },
		func() error { return db.Answered(ctx, "SHA256:ada", "ring", 0, "12", false) },
		func() error { return db.Answered(ctx, "SHA256:ada", "ring", 0, "42", true) },
		func() error { return db.Reached(ctx, "SHA256:ada", "ring", 2, 2) },
		func() error { return db.Reached(ctx, "SHA256:bob", "skew", 1, 3) },
	} {
		if err := f(); err != nil {
			t.Fatal(err)
		}
	}
	return file
}

func TestClassReport(t *testing.T) {
	file := classFixture(t)
	for _, tt := range []struct {
		name string
		args []string
		code int
		want []string // lines (or parts) of stdout, or of stderr on failure
	}{
		{"table", []string{"--class-db", file}, exitOK, []string{
			"student  lesson  step  finished  solved  right  wrong\n",
			"Ada      ring    2/2   true      1       1      1\n",
			"Bob      skew    1/3   false     0       0      0\n",
			"Cy                     false     0       0      0\n",
		}},
		{"csv", []string{"--class-db", file, "--csv"}, exitOK, []string{
			"key,name,sessions,lesson,step,steps,finished,solved,right,wrong,updated",
			"SHA256:ada,Ada,1,ring,2,2,true,1,1,1,2026-11-26T09:00:00Z",
			"SHA256:bob,Bob,1,skew,1,3,false,0,0,0,2026-11-26T09:00:00Z",
			"SHA256:cy,Cy,1,,0,0,false,0,0,0,2026-11-26T09:00:00Z",
		}},
		{"json", []string{"--class-db", file, "--json"}, exitOK, []string{
			`"name": "Ada"`, `"answer": "12"`, `"correct": false`, `"answer": "42"`, `"correct": true`, `"lesson": "skew"`, `"answers": []`,
		}},
		{"no file", nil, exitUsage, []string{"tracesim class report: --class-db FILE is required"}},
		{"both formats", []string{"--class-db", file, "--csv", "--json"}, exitUsage, []string{"--csv and --json exclude each other"}},
		{"missing", []string{"--class-db", filepath.Join(t.TempDir(), "none.db")}, exitFail, []string{"tracesim class report: class db ", "none.db"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errs := tracesim(t, append([]string{"class", "report"}, tt.args...)...)
			got := out
			if tt.code != exitOK {
				got = errs
			}
			if code != tt.code {
				t.Fatalf("exit %d, want %d; stderr %s", code, tt.code, errs)
			}
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("no %q in\n%s", w, got)
				}
			}
		})
	}
	code, _, errs := tracesim(t, "class")
	if code != exitUsage || !strings.Contains(errs, "expected `tracesim class report") {
		t.Errorf("class without report: exit %d, %q", code, errs)
	}
}

func TestServeClassUsageErrors(t *testing.T) {
	dir := t.TempDir()
	hk := filepath.Join(dir, "hk")
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--library", dir, "--allow-anonymous", "--class-db", "c.db"}, "--class-db and --teacher-keys need --lessons DIR"},
		{[]string{"--library", dir, "--allow-anonymous", "--teacher-keys", "tk"}, "--class-db and --teacher-keys need --lessons DIR"},
		{[]string{"--lessons", dir, "--allow-anonymous", "--class-db", "c.db"}, "give --authorized-keys, not --allow-anonymous"},
		{[]string{"--lessons", dir, "--allow-anonymous", "--stuck", "0s"}, "--stuck must be positive"},
	} {
		code, _, errs := tracesim(t, append([]string{"serve", "--host-key", hk}, tt.args...)...)
		if code != exitUsage || !strings.Contains(errs, tt.want) {
			t.Errorf("%q: exit %d, stderr %q; want %q", tt.args, code, errs, tt.want)
		}
	}
}
