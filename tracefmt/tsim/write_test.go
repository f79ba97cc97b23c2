package tsim

import (
	"bytes"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/tracesim/tracesim/tracefmt"
)

func build(t *testing.T, ranks int, timed bool, u tracefmt.Unit, setup func(b *tracefmt.Builder)) *tracefmt.Trace {
	t.Helper()
	b := tracefmt.NewBuilder(ranks, timed, u)
	setup(b)
	tr, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func add(t *testing.T, b *tracefmt.Builder, r int, e tracefmt.Event) {
	t.Helper()
	if _, err := b.Add(r, e); err != nil {
		t.Fatal(err)
	}
}

// TestWriteMergeOrder: a timed trace is written by (time, rank), and a
// rank whose clock runs backwards keeps its own order.
func TestWriteMergeOrder(t *testing.T) {
	tr := build(t, 2, true, tracefmt.Second, func(b *tracefmt.Builder) {
		m := b.Marker("m")
		for _, x := range []float64{5, 1, 7} {
			add(t, b, 0, tracefmt.Mark(x, m))
		}
		for _, x := range []float64{1, 5, 2} {
			add(t, b, 1, tracefmt.Mark(x, m))
		}
	})
	got := string(mustWrite(t, tr))
	want := `tsim 1
ranks 2
unit s
timed
marker m

# TIME RANK KIND ARGUMENTS
1 1 marker m
5 0 marker m
1 0 marker m
5 1 marker m
2 1 marker m
7 0 marker m
`
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// TestWriteSpelling pins the writer's choices: quoting, references by
// index, number formats, defaults left out, rank-by-rank untimed order.
func TestWriteSpelling(t *testing.T) {
	tr := build(t, 3, false, tracefmt.Microsecond, func(b *tracefmt.Builder) {
		tt := b.Trace()
		tt.Attrs = []tracefmt.Attr{{Key: "#key", Value: ""}, {Key: "k", Value: "v w"}}
		tt.Comms[0].ID = 7
		if _, err := b.AddComm(tracefmt.Comm{Name: "row", Ranks: []int32{0, 1, 2}}); err != nil {
			t.Fatal(err)
		}
		if _, err := b.AddComm(tracefmt.Comm{Name: "3", ID: -2, Ranks: []int32{2, 0}}); err != nil {
			t.Fatal(err)
		}
		if _, err := b.AddComm(tracefmt.Comm{Name: "row", Ranks: []int32{0, 1, 2, 0}}); err != nil {
			t.Fatal(err)
		}
		b.DefineState(tracefmt.StateDef{Name: "a b", Color: "#fff", Category: tracefmt.CatIO})
		b.DefineState(tracefmt.StateDef{Name: "", Format: "x=%d"})
		tt.States = append(tt.States, tracefmt.StateDef{Name: "a b", Source: tracefmt.SourceIDs{ID: 1}})
		b.DefineState(tracefmt.StateDef{Name: "7", Source: tracefmt.SourceIDs{ID: 1, End: 3}})
		x := b.State("x#y")
		b.DefineMarker(tracefmt.MarkerDef{Name: "#m"})

		add(t, b, 1, tracefmt.Enter(0, 0))
		add(t, b, 1, tracefmt.Leave(0, 2))
		add(t, b, 1, tracefmt.Enter(0, 1))
		add(t, b, 1, tracefmt.Enter(0, 3))
		e := tracefmt.Enter(0, x)
		e.SetTextRef(b.Text("said \"hi\""))
		add(t, b, 1, e)
		s := tracefmt.Send(0, 2, -1, 1, 1<<20)
		s.SetRequest(4)
		s.Flags = tracefmt.FlagNonBlocking | tracefmt.FlagSync
		add(t, b, 0, s)
		add(t, b, 0, tracefmt.Recv(0, 2, 0, 2, 0))
		add(t, b, 0, tracefmt.Recv(0, 2, 0, 3, 0))
		add(t, b, 0, tracefmt.Collective(0, tracefmt.OpBarrier, -1, 0, 0, 0))
		add(t, b, 0, tracefmt.Collective(0, tracefmt.OpBcast, -1, 0, 0, 8))
		tenth := 0.1
		add(t, b, 0, tracefmt.ComputeTime(0, tenth+0.2))
		add(t, b, 0, tracefmt.ComputeTime(0, 1e-7))
		add(t, b, 0, tracefmt.ComputeWork(0, 1e21))
		add(t, b, 0, tracefmt.ComputeWork(0, 123456789))
		add(t, b, 0, tracefmt.WaitAll(0))
		add(t, b, 0, tracefmt.Wait(0, 4))
		m := tracefmt.Mark(0, 0)
		m.SetTextRef(b.Text(""))
		add(t, b, 2, m)
	})
	got := string(mustWrite(t, tr))
	want := `tsim 1
ranks 3
unit us
untimed
attr "#key" ""
attr k "v w"
world MPI_COMM_WORLD id=7
comm row ranks=0-2
comm "3" id=-2 ranks=2,0
comm row ranks=0-2,0
state "a b" cat=io color=#fff
state "" cat=other format="x=%d"
state "a b" cat=other src=1
state "7" cat=other src=1,0,3
state x#y cat=user
marker "#m"

# TIME RANK KIND ARGUMENTS
- 0 send to=2 tag=-1 size=1048576 comm=1 req=4 nb sync
- 0 recv from=2 tag=0 size=0 comm="3"
- 0 recv from=2 tag=0 size=0 comm=3
- 0 coll barrier
- 0 coll bcast root=-1 recv=8
- 0 compute dur=0.30000000000000004us
- 0 compute dur=1e-07us
- 0 compute flops=1e+21
- 0 compute flops=123456789
- 0 wait all
- 0 wait req=4
- 1 enter 0
- 1 leave 2
- 1 enter 1
- 1 enter "7"
- 1 enter x#y text="said \"hi\""
- 2 marker "#m" text=""
`
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if d := diffTraces(tr, mustRead(t, got)); d != "" {
		t.Errorf("read back: %s", d)
	}
}

// TestWritePairing: "pairing oldest" appears only when newest-first
// pairing would pair the states differently.
func TestWritePairing(t *testing.T) {
	for _, tt := range []struct {
		name    string
		pairing tracefmt.Pairing
		overlap bool
		want    bool
	}{
		{"newest overlapping", tracefmt.PairNewest, true, false},
		{"oldest overlapping", tracefmt.PairOldest, true, true},
		{"oldest nested once", tracefmt.PairOldest, false, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tr := build(t, 1, true, tracefmt.Second, func(b *tracefmt.Builder) {
				b.SetPairing(tt.pairing)
				s := b.State("S")
				add(t, b, 0, tracefmt.Enter(1, s))
				if tt.overlap {
					add(t, b, 0, tracefmt.Enter(2, s))
					add(t, b, 0, tracefmt.Leave(3, s))
				}
				add(t, b, 0, tracefmt.Leave(4, s))
			})
			text := mustWrite(t, tr)
			if got := bytes.Contains(text, []byte("\npairing oldest\n")); got != tt.want {
				t.Errorf("pairing line written: %v, want %v\n%s", got, tt.want, text)
			}
			if d := diffTraces(tr, mustRead(t, string(text))); d != "" {
				t.Error(d)
			}
		})
	}
}

type failWriter struct{ after int }

var errFull = errors.New("disk full")

func (w *failWriter) Write(p []byte) (int, error) {
	if w.after <= 0 {
		return 0, errFull
	}
	w.after--
	return len(p), nil
}

func TestWriteErrors(t *testing.T) {
	ok := func() *tracefmt.Trace {
		return build(t, 2, true, tracefmt.Second, func(b *tracefmt.Builder) {
			add(t, b, 0, tracefmt.Collective(1, tracefmt.OpBarrier, -1, 0, 0, 0))
		})
	}
	tests := []struct {
		name   string
		mangle func(tr *tracefmt.Trace)
		want   string
	}{
		{"odd unit", func(tr *tracefmt.Trace) { tr.Unit = -5 }, "tsim: time unit 1e-5s cannot be written (tsim knows s, ms, us, ns, ps)"},
		{"NaN time", func(tr *tracefmt.Trace) { tr.Ranks[0].Events[0].Time = math.NaN() }, "tsim: rank 0 event 0 (coll): time NaN cannot be written"},
		{"infinite time", func(tr *tracefmt.Trace) { tr.Ranks[0].Events[0].Time = math.Inf(-1) }, "tsim: rank 0 event 0 (coll): time -Inf cannot be written"},
		{"unknown op", func(tr *tracefmt.Trace) { tr.Ranks[0].Events[0].Tag = 200 }, "tsim: rank 0 event 0: unknown collective operation 200"},
		{"unknown category", func(tr *tracefmt.Trace) {
			tr.States = append(tr.States, tracefmt.StateDef{Name: "S", Category: 42})
		}, `tsim: state "S": unknown category 42`},
		{"invalid trace", func(tr *tracefmt.Trace) { tr.Ranks[0].Events[0].Comm = 9 },
			"tsim: invalid trace: rank 0 event 0 (coll): communicator 9 not defined"},
		{"no ranks", func(tr *tracefmt.Trace) { tr.Ranks = nil }, "tsim: invalid trace: trace has no ranks"},
		{"too many communicators", func(tr *tracefmt.Trace) { tr.Comms = make([]tracefmt.Comm, 0x10001) },
			"tsim: 65537 communicators, more than the 65536 the format allows"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := ok()
			tt.mangle(tr)
			var buf bytes.Buffer
			err := Write(&buf, tr)
			if err == nil || err.Error() != tt.want {
				t.Errorf("error %v, want %s", err, tt.want)
			}
			if buf.Len() != 0 {
				t.Errorf("wrote %d bytes before failing", buf.Len())
			}
		})
	}
	t.Run("writer fails", func(t *testing.T) {
		for _, after := range []int{0, 1} {
			tr := build(t, 1, true, tracefmt.Second, func(b *tracefmt.Builder) {
				for i := range 20000 {
					add(t, b, 0, tracefmt.Mark(float64(i), b.Marker("m")))
				}
			})
			err := Write(&failWriter{after: after}, tr)
			if !errors.Is(err, errFull) || !strings.HasPrefix(err.Error(), "tsim: write: ") {
				t.Errorf("after %d writes: error %v", after, err)
			}
		}
	})
}

// TestWriteIsDeterministic: the same trace gives the same bytes.
func TestWriteIsDeterministic(t *testing.T) {
	tr := readFile(t, "features.tsim")
	a, b := mustWrite(t, tr), mustWrite(t, tr)
	if !bytes.Equal(a, b) {
		t.Error("two writes differ")
	}
}
