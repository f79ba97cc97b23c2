package export

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/tracesim/tracesim/engine/replay"
	"github.com/tracesim/tracesim/internal/duckdbtest"
	"github.com/tracesim/tracesim/internal/testshared"
	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/tracefmt/formats"
)

// duckDB runs statements in DuckDB (duckdbtest.Query).
func duckDB(t *testing.T, sql ...string) [][]map[string]any {
	t.Helper()
	return duckdbtest.Query(t, sql...)
}

// num reads a DuckDB JSON value (a string for wide numbers, a number for
// small ones) as a float64.
func num(t *testing.T, v any) float64 {
	t.Helper()
	switch x := v.(type) {
	case float64:
		return x
	case string:
		f, err := strconv.ParseFloat(x, 64)
		if err != nil {
			t.Fatalf("DuckDB value %q: %v", x, err)
		}
		return f
	}
	t.Fatalf("DuckDB value %v (%T): not a number", v, v)
	return 0
}

// TestDuckDB: DuckDB reads the Parquet tables of a trace (states,
// messages, collectives) and of a simulation (sim), and its counts, sums
// and GROUP BYs equal those computed from the trace model and the
// simulation's records.
func TestDuckDB(t *testing.T) {
	open := func(name string) *tracefmt.Trace {
		tr, _, err := formats.Open(context.Background(), "../../testdata/mpe/"+name, "", nil)
		if err != nil {
			t.Fatal(err)
		}
		return tr
	}
	mw, colls := open("masterworker.clog2"), open("colls.clog2")
	dir := t.TempDir()
	file := func(name string, write func(w io.Writer) error) string {
		path := filepath.Join(dir, name)
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := write(f); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		return "'" + path + "'"
	}
	states := file("states.parquet", func(w io.Writer) error { return Trace(w, Parquet, States, mw, nil) })
	messages := file("messages.parquet", func(w io.Writer) error { return Trace(w, Parquet, Messages, mw, nil) })
	collectives := file("collectives.parquet", func(w io.Writer) error { return Trace(w, Parquet, Collectives, colls, nil) })
	sim, err := replay.New(mw, replay.Default(), replay.Options{RecordMessages: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := sim.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	recs := sim.Messages()
	simFile := file("sim.parquet", func(w io.Writer) error { return SimMessages(w, Parquet, recs) })

	// The model's side, computed from the events, not from the tables.
	sec := mw.Unit.Seconds()
	var nStates int
	var stateTime float64
	sentBy := map[string]float64{} // bytes of matched sends per source rank
	var nMsgs int
	for r := range mw.Ranks {
		ev := mw.Ranks[r].Events
		for i, e := range ev {
			switch {
			case e.Kind == tracefmt.KindEnter:
				nStates++
				if m := int(e.Match); m > i {
					stateTime += (ev[m].Time - e.Time) * sec
				}
			case e.Kind == tracefmt.KindSend && e.Match >= 0:
				nMsgs++
				sentBy[strconv.Itoa(r)] += float64(e.Size)
			}
		}
	}
	perOp := map[string]float64{}
	var nColls int
	var collSent float64
	for r := range colls.Ranks {
		for _, e := range colls.Ranks[r].Events {
			if e.Kind == tracefmt.KindCollective {
				nColls++
				collSent += float64(e.Size)
				perOp[e.Op().String()]++
			}
		}
	}
	var simBytes, simEnd float64
	for _, m := range recs {
		simBytes += float64(m.Bytes)
		simEnd = max(simEnd, m.Completed)
	}

	res := duckDB(t,
		"select count(*) n, sum(duration_s) total from "+states,
		"select count(*) n from "+messages,
		"select src, sum(bytes) sent from "+messages+" group by src order by src",
		"select count(*) n, sum(sent_bytes) sent from "+collectives,
		"select op, count(*) n from "+collectives+" group by op order by op",
		"select count(*) n, sum(bytes) b, max(completed_s) done from "+simFile,
	)
	near := func(what string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-9*max(1, math.Abs(want)) {
			t.Errorf("%s: DuckDB %v, model %v", what, got, want)
		}
	}
	near("states", num(t, res[0][0]["n"]), float64(nStates))
	near("time in states (s)", num(t, res[0][0]["total"]), stateTime)
	near("messages", num(t, res[1][0]["n"]), float64(nMsgs))
	gotBy := map[string]float64{}
	for _, row := range res[2] {
		gotBy[fmt.Sprint(row["src"])] = num(t, row["sent"])
	}
	if fmt.Sprint(gotBy) != fmt.Sprint(sentBy) {
		t.Errorf("bytes sent per rank: DuckDB %v, model %v", gotBy, sentBy)
	}
	near("collectives", num(t, res[3][0]["n"]), float64(nColls))
	near("collective bytes sent", num(t, res[3][0]["sent"]), collSent)
	gotOp := map[string]float64{}
	for _, row := range res[4] {
		gotOp[fmt.Sprint(row["op"])] = num(t, row["n"])
	}
	if fmt.Sprint(gotOp) != fmt.Sprint(perOp) {
		t.Errorf("collectives per operation: DuckDB %v, model %v", gotOp, perOp)
	}
	near("sim messages", num(t, res[5][0]["n"]), float64(len(recs)))
	near("sim bytes", num(t, res[5][0]["b"]), simBytes)
	near("sim last completion (s)", num(t, res[5][0]["done"]), simEnd)
	if nStates == 0 || nMsgs == 0 || nColls == 0 || len(recs) == 0 {
		t.Errorf("a table is empty: %d states, %d messages, %d collectives, %d sim messages", nStates, nMsgs, nColls, len(recs))
	}
	t.Logf("%d states (%.6f s), %d messages, bytes per rank %v, %d collectives %v, %d sim messages", nStates, stateTime, nMsgs, sentBy, nColls, perOp, len(recs))
}

// TestDuckDBPhysicalTimes: the real Paraver qsort sample's messages, as
// Parquet, give DuckDB all four times: its 33 messages all left after
// their calls, and two arrived before their data left (the reversals
// tracesim check reports).
func TestDuckDBPhysicalTimes(t *testing.T) {
	sample := testshared.Dir() + "/paraver/qsort_beo3.prv"
	if _, err := os.Stat(sample); err != nil {
		t.Skipf("sample absent: %v", err)
	}
	tr, _, err := formats.Open(context.Background(), sample, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "messages.parquet")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := Trace(f, Parquet, Messages, tr, nil); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	res := duckDB(t, "select count(*) n, count(*) filter (where send_physical_s > send_s) later, "+
		"count(*) filter (where recv_s < send_physical_s) reversed, "+
		"count(*) filter (where recv_posted_s < recv_s) posted_before from '"+path+"'")
	row := res[0][0]
	for _, c := range []struct {
		col  string
		want float64
	}{{"n", 33}, {"later", 33}, {"reversed", 2}, {"posted_before", 33}} {
		if got := num(t, row[c.col]); got != c.want {
			t.Errorf("%s: DuckDB %v, want %v", c.col, got, c.want)
		}
	}
}
