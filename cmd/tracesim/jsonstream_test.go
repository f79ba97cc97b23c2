package main

import (
	"bytes"
	"encoding/json"
	"io"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/tracesim/tracesim/engine/netmodel"
	"github.com/tracesim/tracesim/engine/replay"
	"github.com/tracesim/tracesim/tracefmt/gen"
)

// indentedJSON is what `sim --json` printed before it streamed: the
// bytes of a json.Encoder with SetIndent("", "  ").
func indentedJSON(t *testing.T, v any) ([]byte, error) {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	err := enc.Encode(v)
	return b.Bytes(), err
}

// TestJSONStreamAsEncoder checks that the streamed document is the
// Encoder's byte for byte, on the results of real runs (five models,
// a fat tree's level shares, packet links, queues and NICs) and on
// hand-made results with empty and nil lists, a deadlock, HTML
// characters and omitted fields.
func TestJSONStreamAsEncoder(t *testing.T) {
	cg := writeGen(t, gen.Options{Pattern: "cg", Ranks: 16, Iters: 2, Compute: -1})
	ring := writeGen(t, gen.Options{Pattern: "ring", Compute: -1, Seed: 1})
	cases := map[string]simOutput{}
	for name, args := range map[string][]string{
		"puppet":  {cg, "--model", "puppet"},
		"loggops": {ring, "--model", "loggops"},
		"flow":    {cg, "--model", "flow"},
		"simgrid": {cg, "--model", "simgrid"},
		"torus":   {cg, "--model", "packet", "--topology", "torus:4x4"},
		"fattree": {cg, "--model", "packet", "--topology", "fattree:k=4,levels=3"},
	} {
		code, out, errs := simRun(t, append(args, "--json")...)
		if code != exitOK {
			t.Fatalf("%s: exit %d: %s", name, code, errs)
		}
		var o simOutput
		if err := json.Unmarshal([]byte(out), &o); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(o.Ranks) == 0 {
			t.Fatalf("%s: no ranks in %s", name, out)
		}
		cases[name] = o
	}
	if n := cases["fattree"].Network; n == nil || len(n.Links) == 0 || len(n.LevelShare) == 0 {
		t.Fatalf("fattree run has no links or level shares: %+v", n)
	}
	cases["zero"] = simOutput{}
	cases["empty lists"] = simOutput{
		File:    "<a&b>.tsim",
		Config:  map[string]string{},
		Results: replay.Results{Ranks: []replay.RankResult{}, Nodes: []replay.NodeResult{}, Notes: []string{}, Wildcards: []replay.WildcardMismatch{}, Network: &netmodel.Metrics{Links: []netmodel.LinkMetric{}}},
	}
	cases["deadlock"] = simOutput{
		File:   "d.tsim",
		Config: map[string]string{"model": "flow", "L": "1us"},
		Results: replay.Results{
			Ranks: []replay.RankResult{{Rank: 0}, {Rank: 1, Node: 1}},
			Notes: []string{"any-source \"free\" <chosen>"},
			Deadlock: &replay.Deadlock{Time: 1.5, Blocked: []replay.BlockedRank{{Rank: 1, Op: "MPI_Recv from 0", WaitsFor: []int{0}, Waiting: []string{}}},
				Cycle: []int{}, NetworkStall: &netmodel.Stall{Waiting: 3}},
		},
	}
	for name, v := range cases {
		want, err := indentedJSON(t, v)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var got bytes.Buffer
		if err := writeJSONStream(&got, v); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !bytes.Equal(got.Bytes(), want) {
			g, w := got.String(), string(want)
			i := 0
			for i < len(g) && i < len(w) && g[i] == w[i] {
				i++
			}
			t.Errorf("%s: streamed JSON differs from the Encoder's at byte %d of %d:\ngot  %q\nwant %q", name, i, len(w), g[max(0, i-80):min(len(g), i+80)], w[max(0, i-80):min(len(w), i+80)])
		}
	}
}

// TestJSONStreamNonFinite checks that a value JSON cannot hold (NaN,
// ±Inf, deep in a list, after more than a write buffer) gives the Encoder's error and writes nothing, as
// the Encoder did.
func TestJSONStreamNonFinite(t *testing.T) {
	for _, f := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		v := simOutput{File: "x", Results: replay.Results{
			Ranks:   make([]replay.RankResult, 5000), // more than a write buffer before the value
			Network: &netmodel.Metrics{Links: []netmodel.LinkMetric{{ID: 1}, {ID: 2, Utilisation: f}}},
		}}
		_, werr := indentedJSON(t, v)
		if werr == nil {
			t.Fatalf("%v: the Encoder took it", f)
		}
		var got bytes.Buffer
		err := writeJSONStream(&got, v)
		if err == nil || err.Error() != werr.Error() {
			t.Errorf("%v: error %v, want %v", f, err, werr)
		}
		if got.Len() != 0 {
			t.Errorf("%v: wrote %d bytes before failing: %q", f, got.Len(), got.String())
		}
		if !strings.Contains(werr.Error(), "unsupported value") {
			t.Errorf("%v: unexpected Encoder error %v", f, werr)
		}
	}
}

// BenchmarkJSONStream encodes the results of a run given by
// TRACESIM_SIMJSON (a `sim --json` output), streamed and as the Encoder did.
func BenchmarkJSONStream(b *testing.B) {
	path := os.Getenv("TRACESIM_SIMJSON")
	if path == "" {
		b.Skip("TRACESIM_SIMJSON names a sim --json output")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	var v simOutput
	if err := json.Unmarshal(data, &v); err != nil {
		b.Fatal(err)
	}
	b.Run("stream", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := writeJSONStream(io.Discard, v); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encoder", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			enc := json.NewEncoder(io.Discard)
			enc.SetIndent("", "  ")
			if err := enc.Encode(v); err != nil {
				b.Fatal(err)
			}
		}
	})
}
