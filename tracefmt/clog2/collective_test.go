package clog2

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strings"
	"testing"

	"github.com/tracesim/tracesim/tracefmt"
)

// mpeSizes is the cargo MPE's MPI_Alltoall wrapper logs with the end
// event: the bytes sent and received, big-endian int32 (MPE_Log_pack 'd').
func mpeSizes(sent, recvd int32) string {
	var b [8]byte
	binary.BigEndian.PutUint32(b[:], uint32(sent))
	binary.BigEndian.PutUint32(b[4:], uint32(recvd))
	return string(b[:])
}

// TestMPECollectives: collectives that MPE logs as states become
// collective events on their communicator, with the sizes MPE logs
// (MPI_Alltoall) or marked "size unknown" (MPI_Allreduce, MPI_Bcast); the
// definitions rank 0 writes at finalize are no events; the file is
// written back byte for byte.
func TestMPECollectives(t *testing.T) {
	c := newCraft(true, 2, 65536).worldCommEvts(2, 0)
	for _, x := range []struct {
		t     float64
		etype int32
		cargo string
	}{
		{0.10, 4, ""}, {0.20, 5, ""}, // MPI_Allreduce
		{0.30, 6, ""}, {0.40, 7, "x"}, // MPI_Alltoall
		{0.50, 12, ""}, {0.60, 13, ""}, // MPI_Bcast
	} {
		for r := range int32(2) {
			tm := x.t + 0.01*float64(r)
			if x.cargo == "" {
				c.rec(tm, 0, r, recBareEvt, bare(x.etype)...)
			} else {
				c.rec(tm, 0, r, recCargoEvt, cargo(x.etype, mpeSizes(1024*(r+1), 3072))...)
			}
		}
	}
	c.rec(0.9, 0, 0, recStateDef, statedef(2, 4, 5, "purple", "MPI_Allreduce")...)
	c.rec(0.9, 0, 0, recStateDef, statedef(3, 6, 7, "green", "MPI_Alltoall")...)
	c.rec(0.9, 0, 0, recStateDef, statedef(6, 12, 13, "cyan", "MPI_Bcast")...)
	data := c.end(recEndLog, maxTime).worldTable(2).bytes()
	tr := readBytes(t, data)

	var got []string
	for r := range tr.Ranks {
		for _, e := range tr.Ranks[r].Events {
			if e.Kind != tracefmt.KindCollective {
				continue
			}
			size := fmt.Sprintf("sent %d recvd %d", e.Size, e.RecvBytes())
			if !e.SizeKnown() {
				size = "size unknown"
			}
			got = append(got, fmt.Sprintf("%d %s %g comm %d root %d %s", r, e.Op(), e.Time, e.Comm, e.Root(), size))
		}
	}
	want := []string{
		"0 allreduce 0.1 comm 0 root -1 size unknown",
		"0 alltoall 0.3 comm 0 root -1 sent 1024 recvd 3072",
		"0 bcast 0.5 comm 0 root -1 size unknown",
		"1 allreduce 0.11 comm 0 root -1 size unknown",
		"1 alltoall 0.31 comm 0 root -1 sent 2048 recvd 3072",
		"1 bcast 0.51 comm 0 root -1 size unknown",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("collectives:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	s := tracefmt.Summarize(tr)
	if s.Collectives != 6 || s.CollectiveBytes != 1024+2048 || tr.UnknownSizeCollectives() != 4 {
		t.Errorf("summary: %d collectives, %d bytes, %d of unknown size; want 6, 3072, 4", s.Collectives, s.CollectiveBytes, tr.UnknownSizeCollectives())
	}
	if start, end := tr.Span(); start != 0.1 || end != 0.61 {
		t.Errorf("span [%v, %v], want [0.1, 0.61]: the STATEDEFs at 0.9 are no events", start, end)
	}
	if out := writeBytes(t, tr); !bytes.Equal(out, data) {
		t.Errorf("rewrite differs: %s", firstDiff(out, data))
	}
}
