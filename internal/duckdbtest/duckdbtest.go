// Package duckdbtest runs SQL in DuckDB for tests, through
// scripts/duckdb-check: the peer the Parquet files tracesim writes are
// checked against.
package duckdbtest

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Query runs statements in one in-memory DuckDB and returns each one's
// rows (values as DuckDB's JSON strings). It skips the test, saying why,
// when node or npm is missing or DuckDB cannot be installed (no
// network).
func Query(t testing.TB, sql ...string) [][]map[string]any {
	t.Helper()
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("DuckDB check needs %s: %v", tool, err)
		}
	}
	script, err := scriptPath()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	install := exec.Command(script)
	install.Stderr = &stderr
	if err := install.Run(); err != nil {
		t.Skipf("DuckDB could not be installed (%v): %s", err, stderr.String())
	}
	stderr.Reset()
	run := exec.Command(script, sql...)
	run.Stderr = &stderr
	out, err := run.Output()
	if err != nil {
		t.Fatalf("duckdb-check: %v: %s", err, stderr.String())
	}
	dec := json.NewDecoder(bytes.NewReader(out))
	var res [][]map[string]any
	for {
		var rows []map[string]any
		if err := dec.Decode(&rows); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("duckdb-check output %q: %v", out, err)
		}
		res = append(res, rows)
	}
	if len(res) != len(sql) {
		t.Fatalf("%d results for %d statements: %s", len(res), len(sql), out)
	}
	return res
}

// scriptPath finds scripts/duckdb-check at the module's root, above the
// test's directory.
func scriptPath() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(dir, "scripts", "duckdb-check"), nil
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", errors.New("duckdbtest: no go.mod above the test's directory")
		}
		dir = up
	}
}
