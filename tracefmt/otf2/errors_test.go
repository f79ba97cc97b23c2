package otf2

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/tracesim/tracesim/tracefmt"
)

// recordAt returns the file offset of the first event record of type typ
// in an event file.
func recordAt(t *testing.T, evt []byte, typ byte) int {
	t.Helper()
	e := newEvtScanner("x", bytes.NewReader(evt), maxChunkSize)
	var rec record
	for {
		if err := e.next(&rec); err != nil {
			t.Fatalf("no record of type %d: %v", typ, err)
		}
		if rec.typ == typ {
			return int(rec.at)
		}
	}
}

// commGroupAt returns the offsets of the first communicator record of a
// global definition file and of its group field (a compressed integer:
// its byte count, then its bytes).
func commGroupAt(t *testing.T, def []byte) (rec, group int) {
	t.Helper()
	s := newScanner("traces.def", bytes.NewReader(def), maxChunkSize)
	for {
		typ, err := s.recordType()
		if err != nil {
			t.Fatalf("no communicator record: %v", err)
		}
		at := s.rec
		end, err := s.length()
		if err != nil {
			t.Fatal(err)
		}
		if typ == defComm {
			for _, what := range []string{"id", "name"} {
				if _, err := s.u32(end, what); err != nil {
					t.Fatal(err)
				}
			}
			return at, s.pos
		}
		s.pos = end
	}
}

// TestErrors corrupts an archive the OTF2 library wrote and checks the
// error a user gets: the file, the byte offset and what was expected.
func TestErrors(t *testing.T) {
	orig := archiveFiles(t, "testdata/archives/isend_irecv/traces.otf2")
	isend := recordAt(t, orig["traces/0.evt"], evMpiIsend)
	defs, err := readGlobalDefs("traces.def", bytes.NewReader(orig["traces.def"]), maxChunkSize)
	if err != nil {
		t.Fatal(err)
	}
	loc2 := slices.IndexFunc(defs.Locations, func(l Location) bool { return l.ID == 2 })
	comm, group := commGroupAt(t, orig["traces.def"])
	tests := []struct {
		name   string
		file   string
		change func(b []byte) []byte
		want   string
	}{
		{"anchor magic", "traces.otf2", func(b []byte) []byte { b[3] = 'X'; return b },
			`traces.otf2: offset 2: expected the magic string "OTF2"`},
		{"anchor truncated", "traces.otf2", func(b []byte) []byte { return b[:20] },
			"traces.otf2: offset 8: anchor file ends inside its header (38 bytes of versions, chunk sizes and counts expected)"},
		{"event chunk size", "traces.otf2", func(b []byte) []byte { clear(b[12:20]); return b },
			"traces.otf2: offset 12: event chunk size 0, expected 262144..16777216"},
		{"compressed archive", "traces.otf2", func(b []byte) []byte { b[29] = 2; return b },
			"traces.otf2: offset 29: compression 2: only uncompressed archives (1) are read"},
		{"chunk header", "traces/0.evt", func(b []byte) []byte { b[0] = 9; return b },
			"traces/0.evt: offset 0: expected a chunk header (byte 3), found byte 9"},
		{"endianness", "traces/0.evt", func(b []byte) []byte { b[1] = 'X'; return b },
			"traces/0.evt: offset 1: expected an endianness byte (0x42 little, 0x23 big), found 0x58"},
		{"compressed size", "traces/0.evt", func(b []byte) []byte { b[28] = 9; return b },
			"traces/0.evt: offset 28: compressed region: size byte 9, expected 0..8 or 255"},
		{"record length", "traces/0.evt", func(b []byte) []byte { b[isend+1] = 200; return b },
			"traces/0.evt: offset 88: record of 200 bytes runs past the chunk's 152 remaining bytes"},
		{"peer outside", "traces/0.evt", func(b []byte) []byte { b[isend+3] = 9; return b },
			"traces/0.evt: offset 86: MpiIsend: rank 9 of MPI_COMM_WORLD, which has 4 ranks"},
		{"region undefined", "traces/0.evt", func(b []byte) []byte { b[40] = 77; return b },
			"traces/0.evt: offset 38: region 77 is not defined"},
		{"truncated chunk header", "traces/1.evt", func(b []byte) []byte { return b[:5] },
			"traces/1.evt: offset 5: truncated chunk header: 5 of 18 bytes"},
		{"no global definitions", "traces.def", nil,
			"traces.def: global definitions of the archive: file does not exist"},
		{"no event file", "traces/2.evt", nil,
			fmt.Sprintf("traces/2.evt: events of location 2 (traces.def offset %d: %d events): file does not exist", defs.Locations[loc2].At, defs.Locations[loc2].Events)},
		// Checked once every definition is read, said at the record.
		{"communicator's group undefined", "traces.def", func(b []byte) []byte { b[group+1] = 99; return b },
			fmt.Sprintf("traces.def: offset %d: communicator 0 names group 99, which is not defined", comm)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := map[string][]byte{}
			for k, v := range orig {
				files[k] = bytes.Clone(v)
			}
			if tt.change == nil {
				delete(files, tt.file)
			} else {
				files[tt.file] = tt.change(files[tt.file])
			}
			_, _, err := Read("traces.otf2", bytes.NewReader(files["traces.otf2"]), mapOpener(files))
			if err == nil {
				t.Fatal("read without error")
			}
			if err.Error() != tt.want {
				t.Errorf("error\n%s\nwant\n%s", err, tt.want)
			}
			var fe *FormatError
			if tt.change != nil && !errors.As(err, &fe) {
				t.Errorf("%T is no FormatError", err)
			}
		})
	}
}

// TestGroupsBeforeOTF21_2: an archive whose group records end after their
// members (OTF2 before 1.2) names its MPI groups by the old group types;
// the reader finds the ranks and communicators all the same.
func TestGroupsBeforeOTF21_2(t *testing.T) {
	files := archiveFiles(t, "testdata/archives/subcomm/traces.otf2")
	// Cut the three fields of 1.2 (type, paradigm, flags: 3 bytes when the
	// flags are 0) off every group record and shorten its length.
	def := files["traces.def"]
	s := newScanner("traces.def", bytes.NewReader(def), maxChunkSize)
	var out []byte
	last := 0
	for {
		typ, err := s.recordType()
		if err != nil {
			break
		}
		at := s.rec
		end, err := s.length()
		if err != nil {
			t.Fatal(err)
		}
		s.pos = end
		if typ == defGroup {
			out = append(out, def[last:at]...)
			out = append(out, typ, def[at+1]-3)
			out = append(out, def[at+2:end-3]...)
			last = end
		}
	}
	files["traces.def"] = append(out, def[last:]...)
	tr, _, err := Read("traces.otf2", bytes.NewReader(files["traces.otf2"]), mapOpener(files))
	if err != nil {
		t.Fatal(err)
	}
	if tr.Size() != 6 || len(tr.Comms) != 3 || tr.Comms[1].Name != "even" || fmt.Sprint(tr.Comms[1].Ranks) != "[0 2 4]" {
		t.Errorf("%d ranks, communicators %+v; want 6 ranks, world, even [0 2 4], odd", tr.Size(), tr.Comms)
	}
}

// TestReusedRequestID reads an archive whose rank posts a second
// MPI_Irecv under the id of one still pending (the fuzzer's find: the
// first receive was left naming no sender, and the error named no
// file). The first receive becomes a marker; the trace is valid.
func TestReusedRequestID(t *testing.T) {
	b := tracefmt.NewBuilder(2, true, tracefmt.Nanosecond)
	add := func(r int, e tracefmt.Event) {
		if _, err := b.Add(r, e); err != nil {
			t.Fatal(err)
		}
	}
	irecv := func(tm float64, req int64) tracefmt.Event {
		e := tracefmt.Recv(tm, 0, 5, 0, 64)
		e.Flags |= tracefmt.FlagNonBlocking
		e.SetRequest(req)
		return e
	}
	add(0, tracefmt.Send(10, 1, 5, 0, 64))
	add(0, tracefmt.Send(20, 1, 5, 0, 64))
	add(1, irecv(1, 7))
	add(1, irecv(2, 9))
	add(1, tracefmt.Wait(30, 7))
	add(1, tracefmt.Wait(40, 9))
	src, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	anchor := writeArchive(t, src, dir)
	files := archiveFiles(t, anchor)
	var evt string
	for name, data := range files {
		// IrecvRequest records are singletons: type 17, then the
		// compressed id (one byte of size, one of value).
		if strings.HasSuffix(name, ".evt") && bytes.Contains(data, []byte{evMpiIrecvRequest, 1, 9}) {
			files[name] = bytes.Replace(data, []byte{evMpiIrecvRequest, 1, 9}, []byte{evMpiIrecvRequest, 1, 7}, 1)
			evt = name
		}
	}
	if evt == "" {
		t.Fatal("no event file holds MpiIrecvRequest 9")
	}
	tr, _, err := Read(anchor, bytes.NewReader(files["traces.otf2"]), mapOpener(files))
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	if err := tr.Validate(); err != nil {
		t.Fatalf("Validate: %v", err)
	}
	var recvs, marks int
	for _, e := range tr.Ranks[1].Events {
		switch e.Kind {
		case tracefmt.KindRecv:
			recvs++
			if e.Peer != 0 {
				t.Errorf("receive at %g from %d, want 0", e.Time, e.Peer)
			}
		case tracefmt.KindMarker:
			marks++
		}
	}
	if recvs != 2 || marks != 1 {
		t.Errorf("rank 1 has %d receives and %d markers, want 2 and 1", recvs, marks)
	}
}
