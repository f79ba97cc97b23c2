package otf2

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracesim/tracesim/tracefmt"
)

// readerAfter reads an archive like Read and returns the reader, whose
// definitions and rank files are still those of the archive.
func readerAfter(t *testing.T, anchor string, files map[string][]byte) (*reader, *tracefmt.Trace) {
	t.Helper()
	a, err := readAnchor(anchor, bytes.NewReader(files["traces.otf2"]))
	if err != nil {
		t.Fatal(err)
	}
	rd := &reader{anchor: a, open: mapOpener(files), base: "traces", dir: filepath.Dir(anchor), stats: &Stats{}, workers: 2}
	if err := rd.readDefs(); err != nil {
		t.Fatal(err)
	}
	tr, err := rd.readEvents()
	if err != nil {
		t.Fatal(err)
	}
	return rd, tr
}

// recordTypes are the event records that can make an event of a kind.
var recordTypes = map[tracefmt.Kind][]byte{
	tracefmt.KindEnter: {evEnter},
	tracefmt.KindLeave: {evLeave},
	tracefmt.KindSend:  {evMpiSend, evMpiIsend},
	tracefmt.KindRecv:  {evMpiRecv, evMpiIrecv, evMpiIrecvRequest},
}

// TestFinishErrorNamesRecord: an error of the builder's Finish about an
// event names the event file, the location and the byte offset of the
// record that made the event (it named only the event's index in the
// rank, and the master location's file whatever the event's thread).
// Every enter, leave, send and receive of the archives is blamed in turn;
// the record at the named offset must be of the event's kind, and, on a
// rank of one location, the k-th record of that kind in its file.
func TestFinishErrorNamesRecord(t *testing.T) {
	for _, name := range []string{"isend_irecv", "threads", "subcomm"} {
		t.Run(name, func(t *testing.T) {
			anchor := "testdata/archives/" + name + "/traces.otf2"
			files := archiveFiles(t, anchor)
			rd, tr := readerAfter(t, anchor, files)
			// The records of each event file in order: offset -> type.
			types := map[string]map[int64]byte{}
			ordered := map[string][]record{}
			for fname, data := range files {
				if !strings.HasSuffix(fname, ".evt") {
					continue
				}
				full := filepath.Join(filepath.Dir(anchor), fname)
				types[full] = map[int64]byte{}
				e := newEvtScanner(full, bytes.NewReader(data), maxChunkSize)
				for {
					var rec record
					if e.next(&rec) != nil {
						break
					}
					types[full][rec.at] = rec.typ
					ordered[full] = append(ordered[full], rec)
				}
			}
			blamed, threads := 0, 0
			for r := range tr.Ranks {
				seen := map[tracefmt.Kind]int{}
				for i, e := range tr.Ranks[r].Events {
					want, ok := recordTypes[e.Kind]
					if !ok {
						continue
					}
					err := rd.finishError(&tracefmt.EventError{Rank: r, Index: i, Kind: e.Kind, Msg: "message match broken"})
					var fe *FormatError
					if !errors.As(err, &fe) {
						t.Fatalf("rank %d event %d: %v is no FormatError", r, i, err)
					}
					typ, ok := types[fe.File][fe.Offset]
					if !ok {
						t.Fatalf("rank %d event %d: %v: no record at that offset", r, i, err)
					}
					if !bytes.Contains(want, []byte{typ}) {
						t.Errorf("rank %d event %d (%s): %v: record of type %d", r, i, e.Kind, err, typ)
					}
					var loc uint64
					for _, l := range rd.ranks[r] {
						if fe.File == rd.fileName(fmt.Sprintf("traces/%d.evt", l.ID)) {
							loc = l.ID + 1
						}
					}
					if loc-1 != rd.ranks[r][0].ID {
						threads++
					}
					if loc == 0 {
						t.Errorf("rank %d event %d: %v: not a file of the rank's locations", r, i, err)
					}
					if wantMsg := fmt.Sprintf("location %d (rank %d): %s: the rank's event %d (%s): message match broken", loc-1, r, recName(typ), i, e.Kind); fe.Msg != wantMsg {
						t.Errorf("message %q, want %q", fe.Msg, wantMsg)
					}
					if len(rd.ranks[r]) == 1 && e.Kind != tracefmt.KindRecv {
						k := seen[e.Kind]
						seen[e.Kind]++
						n := 0
						for _, rec := range ordered[fe.File] {
							if bytes.Contains(want, []byte{rec.typ}) {
								if n == k && rec.at != fe.Offset {
									t.Errorf("rank %d: %s number %d blamed at offset %d, its record is at %d", r, e.Kind, k, fe.Offset, rec.at)
								}
								n++
							}
						}
					}
					blamed++
				}
			}
			if blamed < 10 {
				t.Errorf("only %d events blamed", blamed)
			}
			if name == "threads" && threads == 0 {
				t.Error("no event blamed on a thread's location")
			}
			t.Logf("%d events blamed, %d on threads' locations", blamed, threads)
		})
	}
}
