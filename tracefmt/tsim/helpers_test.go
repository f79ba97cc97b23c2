package tsim

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/tracesim/tracesim/tracefmt"
)

func mustRead(t testing.TB, text string) *tracefmt.Trace {
	t.Helper()
	tr, err := Read(strings.NewReader(text))
	if err != nil {
		t.Fatalf("Read: %v\n%s", err, text)
	}
	return tr
}

func mustWrite(t testing.TB, tr *tracefmt.Trace) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := Write(&buf, tr); err != nil {
		t.Fatalf("Write: %v", err)
	}
	return buf.Bytes()
}

// evKey is what the format keeps of an event: the fields that have a
// meaning for its kind, texts by content.
type evKey struct {
	Time    uint64
	Kind    tracefmt.Kind
	Flags   tracefmt.Flags
	Match   int32
	Peer    int32
	Tag     int32
	Comm    uint16
	Size    int64
	Aux     int64
	HasText bool
	Text    string
}

func keyOf(t *tracefmt.Trace, e *tracefmt.Event) evKey {
	k := evKey{Kind: e.Kind, Flags: e.Flags &^ tracefmt.FlagWork, Match: e.Match}
	if t.Timed {
		k.Time = math.Float64bits(e.Time)
	}
	switch e.Kind {
	case tracefmt.KindEnter, tracefmt.KindMarker:
		k.Peer = e.Peer
		if e.TextRef() >= 0 {
			k.HasText, k.Text = true, t.Texts[e.TextRef()]
		}
	case tracefmt.KindLeave:
		k.Peer = e.Peer
	case tracefmt.KindSend, tracefmt.KindRecv:
		k.Peer, k.Tag, k.Comm, k.Size, k.Aux = e.Peer, e.Tag, e.Comm, e.Size, e.Request()
	case tracefmt.KindWait:
		k.Aux = e.Request()
	case tracefmt.KindCollective:
		k.Peer, k.Tag, k.Comm, k.Size, k.Aux = int32(e.Root()), int32(e.Op()), e.Comm, e.Size, e.RecvBytes()
	case tracefmt.KindCompute:
		k.Flags = e.Flags
		k.Aux = int64(math.Float64bits(e.Amount()))
	}
	return k
}

// diffTraces describes the first difference between a and b in what the
// format promises to keep, or returns "".
func diffTraces(a, b *tracefmt.Trace) string {
	switch {
	case a.Unit != b.Unit:
		return fmt.Sprintf("unit %s, %s", a.Unit, b.Unit)
	case a.Timed != b.Timed:
		return fmt.Sprintf("timed %v, %v", a.Timed, b.Timed)
	case len(a.Ranks) != len(b.Ranks):
		return fmt.Sprintf("ranks %d, %d", len(a.Ranks), len(b.Ranks))
	case !slices.Equal(a.States, b.States):
		return fmt.Sprintf("states\n%+v\n%+v", a.States, b.States)
	case !slices.Equal(a.Markers, b.Markers):
		return fmt.Sprintf("markers\n%+v\n%+v", a.Markers, b.Markers)
	case !slices.Equal(a.Attrs, b.Attrs):
		return fmt.Sprintf("attrs\n%q\n%q", a.Attrs, b.Attrs)
	case len(a.Comms) != len(b.Comms):
		return fmt.Sprintf("%d comms, %d", len(a.Comms), len(b.Comms))
	}
	for i := range a.Comms {
		ca, cb := a.Comms[i], b.Comms[i]
		if ca.Name != cb.Name || ca.ID != cb.ID || !slices.Equal(ca.Ranks, cb.Ranks) {
			return fmt.Sprintf("comm %d: %+v, %+v", i, ca, cb)
		}
	}
	for r := range a.Ranks {
		ea, eb := a.Ranks[r].Events, b.Ranks[r].Events
		if len(ea) != len(eb) {
			return fmt.Sprintf("rank %d: %d events, %d", r, len(ea), len(eb))
		}
		for i := range ea {
			if ka, kb := keyOf(a, &ea[i]), keyOf(b, &eb[i]); ka != kb {
				return fmt.Sprintf("rank %d event %d:\n%+v\n%+v", r, i, ka, kb)
			}
		}
	}
	return ""
}

// Pools of awkward values for random traces.
var (
	namePool = []string{"MPI_Send", "MPI_Recv", "MPI_Allreduce", "MPI_Waitall", "Compute", "my phase", "",
		"7", "a=b", "#hash", `quo"te`, "tab\there", "ünïcode", `back\slash`, "x#y", "-", "enter", "text=",
		"\x00\xff", "MPI_COMM_WORLD", "line\nbreak", "0x1"}
	colorPool = []string{"", "#ff0000", "red", "255 0 0", "ForestGreen", "#abc"}
	textPool  = []string{"", "dst=1 tag=3", "%d bytes", "a#b", "\"quoted\"", "multi\nline", "ünï", "\xfe", "plain"}
)

func pick(rng *rand.Rand, pool []string) string { return pool[rng.IntN(len(pool))] }

// randomTime returns a time that exercises the number formats.
func randomTime(rng *rand.Rand, prev float64) float64 {
	switch rng.IntN(12) {
	case 0:
		return prev - rng.Float64()*5 // clocks running backwards
	case 1:
		return 1e-7 * float64(rng.IntN(100))
	case 2:
		return 1e21 + float64(rng.IntN(1000))*1e6
	case 3:
		return math.Copysign(0, -1)
	case 4:
		return float64(rng.Int64())
	case 5:
		return math.SmallestNonzeroFloat64
	}
	return prev + rng.Float64()*10
}

func randomSize(rng *rand.Rand) int64 {
	switch rng.IntN(4) {
	case 0:
		return 0
	case 1:
		return rng.Int64N(math.MaxInt64)
	}
	return rng.Int64N(1 << 20)
}

func randomAmount(rng *rand.Rand) float64 {
	switch rng.IntN(5) {
	case 0:
		return 0
	case 1:
		return rng.Float64() * 1e-9
	case 2:
		return rng.Float64() * 1e30
	}
	return rng.Float64() * 1000
}

// randomTrace builds a trace through the Builder with every kind of
// event and table entry, awkward names and numbers included.
func randomTrace(t testing.TB, rng *rand.Rand) *tracefmt.Trace {
	t.Helper()
	P := 1 + rng.IntN(6)
	timed := rng.IntN(4) != 0
	units := []tracefmt.Unit{tracefmt.Second, tracefmt.Millisecond, tracefmt.Microsecond, tracefmt.Nanosecond, tracefmt.Picosecond}
	b := tracefmt.NewBuilder(P, timed, units[rng.IntN(len(units))])
	if rng.IntN(2) == 0 {
		b.SetPairing(tracefmt.PairOldest)
	}
	tr := b.Trace()
	src := func() tracefmt.SourceIDs {
		if rng.IntN(2) == 0 {
			return tracefmt.SourceIDs{}
		}
		return tracefmt.SourceIDs{ID: rng.Int32N(1000) - 10, Start: rng.Int32N(3) * rng.Int32(), End: rng.Int32N(3)}
	}
	for range rng.IntN(7) {
		d := tracefmt.StateDef{Name: pick(rng, namePool), Color: pick(rng, colorPool),
			Category: tracefmt.Category(rng.IntN(7)), Format: pick(rng, textPool), Source: src()}
		if _, dup := b.LookupState(d.Name); dup && rng.IntN(2) == 0 {
			tr.States = append(tr.States, d) // a second state of the same name
		} else {
			b.DefineState(d)
		}
	}
	for range rng.IntN(4) {
		d := tracefmt.MarkerDef{Name: pick(rng, namePool), Color: pick(rng, colorPool), Format: pick(rng, textPool), Source: src()}
		if rng.IntN(3) == 0 {
			tr.Markers = append(tr.Markers, d)
		} else {
			b.DefineMarker(d)
		}
	}
	members := func() []int32 {
		if rng.IntN(4) == 0 {
			return nil
		}
		return slices.Collect(func(yield func(int32) bool) {
			for _, r := range rng.Perm(P)[:1+rng.IntN(P)] {
				if !yield(int32(r)) {
					return
				}
			}
		})
	}
	if rng.IntN(3) == 0 {
		tr.Comms[0] = tracefmt.Comm{Name: pick(rng, namePool), ID: rng.Int32N(100), Ranks: members()}
	}
	for range rng.IntN(4) {
		if _, err := b.AddComm(tracefmt.Comm{Name: pick(rng, namePool), ID: rng.Int32N(5), Ranks: members()}); err != nil {
			t.Fatal(err)
		}
	}
	for range rng.IntN(3) {
		tr.Attrs = append(tr.Attrs, tracefmt.Attr{Key: pick(rng, namePool), Value: pick(rng, textPool)})
	}
	anyFlags := func() tracefmt.Flags { return tracefmt.Flags(rng.IntN(256)) &^ tracefmt.FlagWork }
	for r := range P {
		tm := rng.Float64() * 100
		for range rng.IntN(40) {
			if timed {
				tm = randomTime(rng, tm)
			} else {
				tm = 0
			}
			var e tracefmt.Event
			switch rng.IntN(9) {
			case 0, 1:
				s := b.State(pick(rng, namePool))
				if rng.IntN(2) == 0 {
					s = tracefmt.StateID(rng.IntN(len(tr.States)))
				}
				e = tracefmt.Enter(tm, s)
				if rng.IntN(3) == 0 {
					e.SetTextRef(b.Text(pick(rng, textPool)))
				}
			case 2:
				s := b.State(pick(rng, namePool))
				if rng.IntN(3) != 0 {
					s = tracefmt.StateID(rng.IntN(len(tr.States)))
				}
				e = tracefmt.Leave(tm, s)
			case 3, 4:
				tag := rng.Int32N(10)
				if rng.IntN(5) == 0 {
					tag = math.MinInt32 + rng.Int32N(3)
				}
				comm := uint16(rng.IntN(len(tr.Comms)))
				if rng.IntN(2) == 0 {
					e = tracefmt.Send(tm, rng.IntN(P), tag, comm, randomSize(rng))
				} else {
					e = tracefmt.Recv(tm, rng.IntN(P), tag, comm, randomSize(rng))
				}
				if rng.IntN(2) == 0 {
					e.SetRequest(rng.Int64() - rng.Int64())
				}
				e.Flags = anyFlags()
			case 5:
				if rng.IntN(2) == 0 {
					e = tracefmt.WaitAll(tm)
				} else {
					e = tracefmt.Wait(tm, rng.Int64N(5))
				}
				e.Flags |= anyFlags()
			case 6:
				e = tracefmt.Collective(tm, tracefmt.CollOp(rng.IntN(16)), rng.IntN(P+1)-1, uint16(rng.IntN(len(tr.Comms))), randomSize(rng), randomSize(rng))
				e.Flags = anyFlags()
			case 7:
				if rng.IntN(2) == 0 {
					e = tracefmt.ComputeTime(tm, randomAmount(rng))
				} else {
					e = tracefmt.ComputeWork(tm, randomAmount(rng))
				}
				e.Flags |= anyFlags()
			case 8:
				m := b.Marker(pick(rng, namePool))
				if rng.IntN(2) == 0 {
					m = tracefmt.MarkerID(rng.IntN(len(tr.Markers)))
				}
				e = tracefmt.Mark(tm, m)
				if rng.IntN(2) == 0 {
					e.SetTextRef(b.Text(pick(rng, textPool)))
				}
			}
			if _, err := b.Add(r, e); err != nil {
				t.Fatal(err)
			}
		}
	}
	out, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	return out
}
