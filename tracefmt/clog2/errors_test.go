package clog2

import (
	"bytes"
	"errors"
	"runtime"
	"strings"
	"testing"
)

// TestReadErrors: every corruption gives a ParseError that names the
// byte offset and what was expected.
func TestReadErrors(t *testing.T) {
	const B = 1024
	// base returns a merged file of 2 ranks with the world's COMMEVTs
	// (6 records, 352 bytes, at offset 1024) and leaves the block open.
	base := func() *craft { return newCraft(true, 2, B).worldCommEvts(2, 0) }
	finish := func(c *craft) []byte { return c.end(recEndLog, maxTime).worldTable(2).bytes() }
	const firstFree = preambleLen + 352 // offset of the first record after base's
	valid := finish(base())
	withTokens := func(edit func([]string) []string) []byte {
		c := base()
		c.tokens = edit(c.tokens)
		return finish(c)
	}
	setTok := func(title, value string) func([]string) []string {
		return func(toks []string) []string {
			for i, s := range toks {
				if s == title {
					toks[i+1] = value
				}
			}
			return toks
		}
	}
	tests := []struct {
		name  string
		data  []byte
		off   int64
		block int
		want  string
	}{
		{"empty file", nil, 0, -1, "not a CLOG2 file"},
		{"truncated preamble", valid[:500], 500, -1, "truncated preamble"},
		{"bad magic", append([]byte("SLOG 2.0.6\x00"), valid[11:]...), 0, -1, "bad magic"},
		{"bad version", append([]byte("CLOG-02.30\x00"), valid[11:]...), 0, -1, "unsupported version \"CLOG-02.30\""},
		{"small block size", withTokens(setTok("block_size=", "100")), 0, -1, "block_size 100"},
		{"no world", withTokens(setTok("max_comm_world_size=", "0")), 0, -1, "max_comm_world_size 0"},
		{"world too large", withTokens(setTok("max_comm_world_size=", "2000000")), 0, -1, "at most 1048576 ranks"},
		{"world implausible for the file", withTokens(setTok("max_comm_world_size=", "100000")), 0, -1, "implausible"},
		{"garbage value", withTokens(setTok("num_buffered_blocks=", "12x")), 89, -1, "not an integer"},
		{"bad commtable_fptr", func() []byte { c := base(); c.fptr = preambleLen + 1000; return finish(c) }(), 0, -1, "bad commtable_fptr 2024"},
		{"record type out of range", func() []byte {
			c := base()
			c.end(recEndBlock, 1)
			c.rec(1, 0, 0, 57, bare(0)...)
			return finish(c)
		}(), preambleLen + B, 1, "record type 57 out of range 0..11"},
		{"record crossing its block end", func() []byte {
			c := base()
			for range 19 {
				c.rec(1, 0, 0, recBareEvt, bare(5000)...) // up to offset 960 of the block
			}
			c.rec(1, 0, 0, recStateDef, statedef(300, 600, 601, "red", "x")...)
			return finish(c)
		}(), preambleLen + 960, 0, "STATEDEF record of 136 bytes crosses the block end (64 bytes left)"},
		{"no room for a header", func() []byte {
			c := base()
			for range 19 {
				c.rec(1, 0, 0, recBareEvt, bare(5000)...)
			}
			c.rec(1, 0, 0, recMsgEvt, msg(etypeSend, 0, 1, 0, 8)...) // ends 16 bytes before the block end
			return finish(c)                                         // whose ENDLOG does not fit
		}(), preambleLen + B - 16, 0, "16 bytes left in the block, too few for a record header"},
		{"negative message size", func() []byte {
			c := base()
			c.rec(1, 0, 0, recMsgEvt, msg(etypeSend, 0, 1, 0, -8)...)
			return finish(c)
		}(), firstFree, 0, "negative message size -8"},
		{"negative collective size", func() []byte {
			c := base()
			c.rec(1, 0, 0, recCollEvt, coll(4, -1, -1)...)
			return finish(c)
		}(), firstFree, 0, "negative collective size -1"},
		{"message event type", func() []byte {
			c := base()
			c.rec(1, 0, 0, recMsgEvt, msg(-103, 0, 1, 0, 8)...)
			return finish(c)
		}(), firstFree, 0, "MSGEVT event type -103"},
		{"rank outside the world", func() []byte {
			c := base()
			c.rec(1, 0, 9, recBareEvt, bare(5000)...)
			return finish(c)
		}(), firstFree, 0, "rank 9 outside the world of 2 ranks"},
		{"partner outside the world", func() []byte {
			c := base()
			c.rec(1, 0, 0, recMsgEvt, msg(etypeSend, 0, 2, 0, 8)...)
			return finish(c)
		}(), firstFree, 0, "partner rank 2 outside the world of 2 ranks"},
		{"negative partner without CONSTDEF", func() []byte {
			c := base()
			c.rec(1, 0, 0, recMsgEvt, msg(etypeRecv, 0, -7, 0, 8)...)
			return finish(c)
		}(), firstFree, 0, "partner rank -7 outside the world"},
		{"collective root outside the world", func() []byte {
			c := base()
			c.rec(1, 0, 0, recCollEvt, coll(4, 5, 8)...)
			return finish(c)
		}(), firstFree, 0, "COLLEVT root rank 5 outside the world of 2 ranks"},
		{"communicator out of range", func() []byte {
			c := base()
			c.rec(1, 70000, 0, recBareEvt, bare(5000)...)
			return finish(c)
		}(), firstFree, 0, "header communicator id 70000 out of range"},
		{"communicator without COMMEVT", func() []byte {
			c := base()
			c.rec(1, 4, 0, recBareEvt, bare(5000)...)
			return finish(c)
		}(), firstFree, 0, "communicator 4 rank 0, which no earlier COMMEVT maps"},
		{"world COMMEVT of another rank", func() []byte {
			c := base()
			c.rec(1, 0, 1, recCommEvt, commevt(commWorldCreate, 0, 1, 0)...)
			return finish(c)
		}(), firstFree, 0, "MPI_COMM_WORLD rank 1 to world rank 0"},
		{"COMMEVT world rank", func() []byte {
			c := base()
			c.rec(1, 0, 1, recCommEvt, commevt(commIntraCreate, 5, 0, 3)...)
			return finish(c)
		}(), firstFree, 0, "COMMEVT world rank 3 outside the world of 2 ranks"},
		{"truncated block", valid[:preambleLen+600], preambleLen + 600, 0, "truncated block"},
		{"ENDLOG before the last block", func() []byte {
			c := base()
			c.end(recEndLog, maxTime)
			c.rec(1, 0, 0, recBareEvt, bare(5000)...)
			return finish(c)
		}(), preambleLen, 0, "ENDLOG in block 0, but commtable_fptr announces 2 blocks"},
		{"last block ends with ENDBLOCK", func() []byte {
			return base().end(recEndBlock, 1).worldTable(2).bytes()
		}(), preambleLen + B - 1, 0, "ends with ENDBLOCK: expected ENDLOG"},
		{"truncated communicator table", valid[:len(valid)-50], int64(len(valid) - 50), -1, "announced, the file ends in entry"},
		{"truncated table count", valid[:preambleLen+B+2], preambleLen + B + 2, -1, "4-byte count"},
		{"table of no entries", func() []byte {
			c := base().end(recEndLog, maxTime)
			c.table = []byte{0, 0, 0, 0}
			return c.bytes()
		}(), preambleLen + B, -1, "communicator table of 0 entries"},
		{"table without the world first", func() []byte {
			return base().end(recEndLog, maxTime).comms([]int32{1, 0, 2}, []int32{1, 1, 1}).bytes()
		}(), preambleLen + B + 4 + 32, -1, "expected MPI_COMM_WORLD, id 0"},
		{"communicator missing from the table", func() []byte {
			return base().end(recEndLog, maxTime).comms([]int32{0, 1}, []int32{1, 1}).bytes()
		}(), preambleLen + B, -1, "communicator 2, which the communicator table lacks"},
		{"data after the table", append(bytes.Clone(valid), 0), int64(len(valid)), -1, "unexpected data after the communicator table"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tr, err := Read(bytes.NewReader(tc.data))
			if err == nil {
				t.Fatalf("no error; read %d ranks", tr.Size())
			}
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("%v is not a *ParseError", err)
			}
			if pe.Offset != tc.off || pe.Block != tc.block || !strings.Contains(pe.Msg, tc.want) {
				t.Errorf("got offset %d block %d %q\nwant offset %d block %d, containing %q", pe.Offset, pe.Block, pe.Msg, tc.off, tc.block, tc.want)
			}
			if !strings.HasPrefix(err.Error(), "clog2: offset ") {
				t.Errorf("message %q does not start with the offset", err)
			}
		})
	}
	if _, err := Read(bytes.NewReader(valid)); err != nil {
		t.Fatalf("the unbroken file: %v", err)
	}
}

// TestHostileCounts: counts in a small file (world size, block size, table
// entries, communicator ranks) do not make the reader allocate much more
// than the file.
func TestHostileCounts(t *testing.T) {
	setTok := func(c *craft, title, value string) {
		for i, s := range c.tokens {
			if s == title {
				c.tokens[i+1] = value
			}
		}
	}
	tests := []struct {
		name string
		data func() []byte
		want string
	}{
		{"a million ranks", func() []byte {
			c := newCraft(true, 2, 1024)
			setTok(c, "max_comm_world_size=", "1048576")
			c.rec(1, 0, 1048575, recBareEvt, bare(5000)...)
			return c.end(recEndLog, maxTime).worldTable(2).bytes()
		}, "implausible"},
		{"a gigabyte block", func() []byte {
			c := newCraft(true, 2, 1024).worldCommEvts(2, 0)
			setTok(c, "block_size=", "1073741824")
			c.fptr = preambleLen + 1<<30
			return c.end(recEndLog, maxTime).worldTable(2).bytes()
		}, "truncated block"},
		{"a huge communicator table", func() []byte {
			c := newCraft(true, 2, 1024).worldCommEvts(2, 0).end(recEndLog, maxTime)
			c.table = []byte{0, 1, 0, 0} // 65536 entries, none there
			return c.bytes()
		}, "truncated communicator table"},
		{"communicators of sparse ranks", func() []byte {
			c := newCraft(true, 60000, 1<<20)
			c.rec(0, 0, 0, recCommEvt, commevt(commWorldCreate, 0, 0, 0)...)
			for ic := int32(1); ic < 10000; ic++ {
				c.rec(0, 0, 0, recCommEvt, commevt(commIntraCreate, ic, 59999, 0)...)
			}
			ids, kinds := []int32{0}, []int32{kindIntra}
			for ic := int32(1); ic < 10000; ic++ {
				ids, kinds = append(ids, ic), append(kinds, kindUnknown)
			}
			return c.end(recEndLog, maxTime).comms(ids, kinds).bytes()
		}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			data := tc.data()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			_, err := Read(bytes.NewReader(data))
			runtime.ReadMemStats(&after)
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64<<20+8*uint64(len(data)) {
				t.Errorf("read of %d bytes allocated %d MB (error: %v)", len(data), alloc>>20, err)
			}
			if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
}
