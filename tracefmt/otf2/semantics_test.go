package otf2

import (
	"bufio"
	"bytes"
	"math"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/tracefmt/tsim"
)

// TestTimesMatchOTF2Print compares every Enter and Leave timestamp of an
// archive, converted back to ticks, with otf2-print's, which applies the
// locations' clock offsets and mapping tables as we must. The Score-P
// sample's second location has two clock offsets (−30 and −19 ticks), so
// its times are interpolated.
func TestTimesMatchOTF2Print(t *testing.T) {
	needTools(t, false)
	// Archives with one thread per rank: location i is rank i.
	for _, anchor := range seedArchives[:3] {
		t.Run(filepath.Base(filepath.Dir(anchor)), func(t *testing.T) {
			out, err := exec.Command("otf2-print", anchor).Output()
			if err != nil {
				t.Skipf("otf2-print %s: %v", anchor, err)
			}
			// Ticks of the ENTER and LEAVE lines, per location.
			want := map[int][]uint64{}
			sc := bufio.NewScanner(bytes.NewReader(out))
			for sc.Scan() {
				m := eventLine.FindStringSubmatch(sc.Text())
				if m == nil || (m[1] != "ENTER" && m[1] != "LEAVE") {
					continue
				}
				f := strings.Fields(sc.Text())
				loc, err1 := strconv.Atoi(f[1])
				tick, err2 := strconv.ParseUint(f[2], 10, 64)
				if err1 != nil || err2 != nil {
					t.Fatalf("otf2-print line %q", sc.Text())
				}
				want[loc] = append(want[loc], tick)
			}
			tr, err := ReadFile(anchor)
			if err != nil {
				t.Fatal(err)
			}
			res, _ := strconv.ParseFloat(attr(tr, "otf2.timer_resolution"), 64)
			off, _ := strconv.ParseUint(attr(tr, "otf2.global_offset"), 10, 64)
			perUnit := res * tr.Unit.Seconds()
			for r := range tr.Ranks {
				var got []uint64
				for _, e := range tr.Ranks[r].Events {
					if e.Kind == tracefmt.KindEnter || e.Kind == tracefmt.KindLeave {
						got = append(got, uint64(math.Round(e.Time*perUnit))+off)
					}
				}
				w := want[r]
				if len(got) != len(w) {
					t.Fatalf("rank %d: %d enter/leave times, otf2-print lists %d", r, len(got), len(w))
				}
				for i := range got {
					if got[i] != w[i] {
						t.Fatalf("rank %d: time %d is %d ticks, otf2-print says %d", r, i, got[i], w[i])
					}
				}
			}
		})
	}
}

// TestMapping reads archives the OTF2 library wrote (testdata/archives,
// from gen_archives.py) and checks, in the tsim text a user gets from
// convert, that communicator ranks, peers and roots are world ranks,
// non-blocking receives carry their sender and are completed by their
// wait, and threads' regions are states of their own.
func TestMapping(t *testing.T) {
	tests := []struct {
		archive string
		lines   []string
	}{
		{"subcomm", []string{
			"comm even id=1 ranks=0,2,4",
			"comm odd id=2 ranks=1,3,5",
			// bcast on "even" with root local 1, on "odd" with root local 2
			"20 0 coll bcast root=2 sent=256 recv=256 comm=even",
			"1020 1 coll bcast root=5 sent=256 recv=256 comm=odd",
			// local 0 -> local 1 of each sub-communicator
			"60 0 send to=2 tag=5 size=512 comm=even",
			"3060 3 recv from=1 tag=5 size=512 comm=odd",
			"90 0 coll allreduce sent=8 recv=8",
		}},
		{"isend_irecv", []string{
			// The receive stands at its completion (MpiIrecv, in the
			// wait); its posting (MpiIrecvRequest, 1020) is its
			// PostedAt (TestIrecvPostedAt).
			"1080 1 recv from=0 tag=7 size=1000 req=1 nb",
			"1050 1 send to=2 tag=7 size=2000 req=2 nb",
			"1080 1 wait req=1",
			"1110 1 wait req=2",
		}},
		{"threads", []string{
			`state "!$omp parallel (thread 1)" cat=user`,
			`state "compute (thread 2)" cat=compute`,
			`1010 1 enter "!$omp parallel (thread 2)"`,
			`1030 1 leave "compute (thread 1)"`,
			"20 0 send to=1 tag=1 size=100",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.archive, func(t *testing.T) {
			tr, err := ReadFile(filepath.Join("testdata/archives", tt.archive, "traces.otf2"))
			if err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			if err := tsim.Write(&b, tr); err != nil {
				t.Fatal(err)
			}
			have := map[string]bool{}
			for _, l := range strings.Split(b.String(), "\n") {
				have[l] = true
			}
			for _, l := range tt.lines {
				if !have[l] {
					t.Errorf("missing line %q in\n%s", l, b.String())
				}
			}
		})
	}
}

// TestIrecvPostedAt: a receive OTF2 records as MpiIrecvRequest (its
// posting, inside the MPI_Irecv region) and MpiIrecv (its completion, in
// the wait) stands at its completion, as every receive of the trace
// model stands at its arrival, and keeps its posting as Trace.PostedAt.
// It stood at its posting: the clock condition compared the send with
// the posting, and `check` found a reversal of 3.03 µs where the
// receive completed 2.94 µs before the send (rank 0 of the archive, whose
// clock the generator set 3 µs behind rank 3's), and the Timeline drew the
// message to the posting.
func TestIrecvPostedAt(t *testing.T) {
	tr, err := ReadFile("testdata/archives/isend_irecv/traces.otf2")
	if err != nil {
		t.Fatal(err)
	}
	for r := range tr.Ranks {
		ev := tr.Ranks[r].Events
		found := false
		for i := range ev {
			e := &ev[i]
			if e.Kind != tracefmt.KindRecv {
				continue
			}
			found = true
			ref := tracefmt.EventRef{Rank: int32(r), Index: int32(i)}
			base := float64(1000 * r)
			if got := tr.PostedAt(ref); got != base+20 {
				t.Errorf("rank %d: posted at %g, want %g (MpiIrecvRequest)", r, got, base+20)
			}
			if i+1 >= len(ev) || ev[i+1].Kind != tracefmt.KindWait || ev[i+1].Time != e.Time || e.Time <= base+30 {
				t.Errorf("rank %d: receive at %g, not at the wait that completes it", r, e.Time)
			}
		}
		if !found {
			t.Errorf("rank %d: no receive", r)
		}
	}
}

// TestIrecvEarlyClockCondition reads an archive the OTF2 library wrote
// of NAS CG's exchange on clocks that agree (gen_archives.py
// irecv_early): each MPI_Irecv is posted long before its sender sends
// and completes after. Every receive must stand after its send and keep
// its posting as PostedAt. Standing at its posting, each receive came
// before its send: `tracesim check` reported two clock reversals (1.03
// and 2.03 µs) in a trace that has none.
func TestIrecvEarlyClockCondition(t *testing.T) {
	needTools(t, true)
	tr, err := ReadFile(generate(t, "irecv_early"))
	if err != nil {
		t.Fatal(err)
	}
	msgs := 0
	for r := range tr.Ranks {
		for i, e := range tr.Ranks[r].Events {
			if e.Kind != tracefmt.KindSend || e.Match < 0 {
				continue
			}
			msgs++
			recv := tracefmt.EventRef{Rank: e.Peer, Index: e.Match}
			rv := tr.Event(recv)
			if rv.Time < e.Time {
				t.Errorf("message %d → %d: sent at %g, received at %g", r, e.Peer, e.Time, rv.Time)
			}
			if p := tr.PostedAt(recv); p >= e.Time {
				t.Errorf("message %d → %d (event %d): posted at %g, not before its send at %g", r, e.Peer, i, p, e.Time)
			}
		}
	}
	if msgs != 2 {
		t.Errorf("%d messages, want 2", msgs)
	}
}
