package perfetto_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracesim/tracesim/internal/testshared"
	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/tracefmt/formats"
	"github.com/tracesim/tracesim/tracefmt/gen"
	"github.com/tracesim/tracesim/tracefmt/perfetto"
)

// want counts what a trace should become: one slice per state entered,
// one arrow per matched message, one instant per collective and marker,
// one named thread per rank.
func want(t *tracefmt.Trace) perfetto.Stats {
	var w perfetto.Stats
	for r := range t.Ranks {
		for i := range t.Ranks[r].Events {
			switch e := &t.Ranks[r].Events[i]; e.Kind {
			case tracefmt.KindEnter:
				w.Slices++
			case tracefmt.KindSend:
				if e.Match >= 0 {
					w.Flows++
				}
			case tracefmt.KindCollective, tracefmt.KindMarker:
				w.Instants++
			}
		}
	}
	w.Threads = t.Size()
	return w
}

// Every trace we have, written as JSON trace events, passes the format's
// rules (Check) with a slice per state, an arrow per message bound to the
// MPI calls at both ends, an instant per collective, a named thread per
// rank: the demo, our recordings, and every real sample in
// ../shared/testdata-external we read (CLOG2, CLOG, ALOG, OTF2, SimGrid TI
// given times at 1 Gf).
func TestWriteFollowsTheRules(t *testing.T) {
	demo, err := gen.Generate(gen.Options{Pattern: "cg", Ranks: 16, Iters: 8, Size: 8192, Compute: 200e-6, Jitter: 0.2, Skew: 3e-6, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	type tc struct {
		name string
		tr   *tracefmt.Trace
		// unbound arrow ends allowed: messages sent or received
		// outside any state (a hand-written tsim trace's bare events).
		unbound bool
	}
	cases := []tc{{"demo", demo, false}}
	files := []string{
		"../../testdata/mpe/allreduce.clog2", "../../testdata/mpe/colls.clog2", "../../testdata/mpe/masterworker.clog2",
		"../../testdata/tsim/features.tsim", "../../testdata/tsim/ring3.tsim",
		testshared.Dir() + "/clog2/cpilog.clog2",
		testshared.Dir() + "/clog/pmandel.clog",
		testshared.Dir() + "/alog/srtest.alog",
		testshared.Dir() + "/otf2/ping-pong/traces.otf2",
		testshared.Dir() + "/simgrid-ti/actions_with_isend.txt",
		"../../testdata/simgrid/halo.txt",
	}
	for _, f := range files {
		if _, err := os.Stat(f); errors.Is(err, os.ErrNotExist) && strings.Contains(f, "shared") {
			t.Logf("%s absent: skipped", f)
			continue
		}
		tr, _, err := formats.Open(context.Background(), f, "", nil)
		if err != nil {
			t.Fatal(err)
		}
		if !tr.Timed {
			// A SimGrid TI trace: times at 1 Gf, as convert
			// --cpu-speed 1Gf gives it.
			if tr, err = tracefmt.AssignTimes(tr, 1e9); err != nil {
				t.Fatal(err)
			}
		}
		cases = append(cases, tc{filepath.Base(f), tr, strings.HasSuffix(f, ".tsim")})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := perfetto.Write(&buf, c.tr); err != nil {
				t.Fatal(err)
			}
			st, err := perfetto.Check(bytes.NewReader(buf.Bytes()))
			if err != nil {
				t.Fatalf("%v\n%.2000s", err, buf.String())
			}
			w := want(c.tr)
			if st.Slices != w.Slices || st.Flows != w.Flows || st.Instants != w.Instants || st.Threads != w.Threads {
				t.Errorf("slices %d flows %d instants %d threads %d, want %d %d %d %d",
					st.Slices, st.Flows, st.Instants, st.Threads, w.Slices, w.Flows, w.Instants, w.Threads)
			}
			if !c.unbound && st.Unbound != 0 {
				t.Errorf("%d arrow ends outside any MPI call", st.Unbound)
			}
			t.Logf("%d events, %d slices, %d arrows (%d ends unbound), %d instants", st.Events, st.Slices, st.Flows, st.Unbound, st.Instants)
		})
	}
}

// Timestamps are microseconds, exact as far as doubles go: a
// picosecond-resolution trace keeps its picoseconds; overlapping states
// are clipped to nest; an unclosed state lasts to the rank's end; a
// thread's events come in time order, an arrow's end at a state's last
// instant before the state's end.
func TestTimesAndNesting(t *testing.T) {
	b := tracefmt.NewBuilder(2, true, tracefmt.Picosecond)
	a := b.State("A")
	c := b.State("B")
	b.Add(0, tracefmt.Enter(1, a))
	b.Add(0, tracefmt.Enter(3, c))
	b.Add(0, tracefmt.Leave(5, a)) // A ends inside B: B is clipped to 5
	b.Add(0, tracefmt.Leave(7, c))
	b.Add(0, tracefmt.Send(123456789012345, 1, 0, 0, 8))
	b.Add(1, tracefmt.Enter(123456789012346, a)) // never left
	b.Add(1, tracefmt.Recv(123456789012347, 0, 0, 0, 8))
	tr, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := perfetto.Write(&buf, tr); err != nil {
		t.Fatal(err)
	}
	if _, err := perfetto.Check(bytes.NewReader(buf.Bytes())); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		TraceEvents []map[string]any `json:"traceEvents"`
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range doc.TraceEvents {
		if e["ph"] == "M" {
			continue
		}
		s := e["ph"].(string) + " " + e["name"].(string)
		raw, _ := json.Marshal(e["ts"])
		s += " ts=" + string(raw)
		if d, ok := e["dur"]; ok {
			raw, _ := json.Marshal(d)
			s += " dur=" + string(raw)
		}
		if a, ok := e["args"].(map[string]any); ok && (a["clipped"] == true || a["unclosed"] == true) {
			s += " (clipped or unclosed)"
		}
		got = append(got, s)
	}
	wantEv := []string{
		"B A ts=0.000001",
		"B B ts=0.000003 (clipped or unclosed)",
		"E  ts=0.000005",
		"E  ts=0.000005",
		"s message ts=123456789.012345",
		"B A ts=123456789.012346 (clipped or unclosed)",
		"f message ts=123456789.012347", // inside the state that ends with it
		"E  ts=123456789.012347",
	}
	if strings.Join(got, "\n") != strings.Join(wantEv, "\n") {
		t.Errorf("events:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(wantEv, "\n"))
	}
	if !strings.Contains(buf.String(), `"ts":123456789.012345,`) {
		t.Errorf("the send's time is not written as 123456789.012345 µs:\n%s", buf.String())
	}
}

// Check names the rule a broken file breaks.
func TestCheckRejects(t *testing.T) {
	named := `{"ph":"M","name":"process_name","pid":1,"tid":0,"args":{"name":"p"}},{"ph":"M","name":"thread_name","pid":1,"tid":1,"args":{"name":"t"}},`
	for _, c := range []struct{ doc, want string }{
		{`[]`, "not a JSON trace event object"},
		{`{}`, "no traceEvents array"},
		{`{"traceEvents":[{"ph":"X","name":"a","pid":1,"tid":1,"ts":0}]}`, "traceEvents[0] (ph \"X\"): complete event without a non-negative dur"},
		{`{"traceEvents":[{"ph":"X","name":"a","pid":1,"tid":1,"ts":0,"dur":-1}]}`, "without a non-negative dur"},
		{`{"traceEvents":[{"ph":"X","name":"a","pid":1,"ts":0,"dur":1}]}`, "missing ph, name, pid or tid"},
		{`{"traceEvents":[` + named + `{"ph":"X","name":"a","pid":1,"tid":1,"ts":0,"dur":5},{"ph":"X","name":"b","pid":1,"tid":1,"ts":2,"dur":5}]}`, "slice [2, 7] overlaps [0, 5] without nesting in it"},
		{`{"traceEvents":[` + named + `{"ph":"E","name":"a","pid":1,"tid":1,"ts":0}]}`, "end without a begin"},
		{`{"traceEvents":[` + named + `{"ph":"B","name":"a","pid":1,"tid":1,"ts":3},{"ph":"E","name":"a","pid":1,"tid":1,"ts":2}]}`, "ts 2 before the thread's previous 3"},
		{`{"traceEvents":[` + named + `{"ph":"B","name":"a","pid":1,"tid":1,"ts":3}]}`, `"a" begun and never ended`},
		{`{"traceEvents":[` + named + `{"ph":"s","name":"m","cat":"c","id":1,"pid":1,"tid":1,"ts":3}]}`, "has a start at event 2 and a finish at event -1"},
		{`{"traceEvents":[` + named + `{"ph":"s","name":"m","cat":"c","id":1,"pid":1,"tid":1,"ts":3},{"ph":"s","name":"m","cat":"c","id":1,"pid":1,"tid":1,"ts":3}]}`, "flow id 1 started twice"},
		{`{"traceEvents":[` + named + `{"ph":"C","name":"u","pid":1,"tid":0,"ts":3,"args":{"x":"high"}}]}`, "counter x value high is not a number"},
		{`{"traceEvents":[` + named + `{"ph":"C","name":"u","pid":1,"tid":0,"ts":3,"args":{"x":1}},{"ph":"C","name":"u","pid":1,"tid":0,"ts":2,"args":{"x":1}}]}`, "counter u at 2 before its previous value at 3"},
		{`{"traceEvents":[{"ph":"X","name":"a","pid":1,"tid":1,"ts":0,"dur":1}]}`, "pid 1 (first used by traceEvents[0]) has no process_name"},
		{`{"traceEvents":[{"ph":"M","name":"process_name","pid":1,"tid":0,"args":{"name":"p"}},{"ph":"X","name":"a","pid":1,"tid":2,"ts":0,"dur":1}]}`, "pid 1 tid 2 (first used by traceEvents[1]) has no thread_name"},
	} {
		_, err := perfetto.Check(strings.NewReader(c.doc))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Check(%s):\n got %v\nwant …%s…", c.doc, err, c.want)
		}
	}
}

// FuzzCheck: Check reads any input, a file we wrote or a broken one,
// without panicking.
func FuzzCheck(f *testing.F) {
	tr, _, err := formats.Open(context.Background(), "../../testdata/tsim/ring3.tsim", "", nil)
	if err != nil {
		f.Fatal(err)
	}
	var buf bytes.Buffer
	if err := perfetto.Write(&buf, tr); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())
	f.Add([]byte(`{"traceEvents":[{"ph":"B","name":"a","pid":1,"tid":1,"ts":1}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		perfetto.Check(bytes.NewReader(data))
	})
}

// BenchmarkWrite measures writing a 16-rank CG trace (36,864 events)
// as JSON: bytes per second of output and events per second.
func BenchmarkWrite(b *testing.B) {
	tr, err := gen.Generate(gen.Options{Pattern: "cg", Ranks: 16, Iters: 64, Size: 8192, Compute: 200e-6, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	var n countingWriter
	for b.Loop() {
		if err := perfetto.Write(&n, tr); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(int64(n) / int64(b.N))
	b.ReportMetric(float64(tr.NumEvents())*float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

type countingWriter int

func (c *countingWriter) Write(p []byte) (int, error) {
	*c += countingWriter(len(p))
	return len(p), nil
}
