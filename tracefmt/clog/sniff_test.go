package clog

import (
	"encoding/binary"
	"os"
	"testing"
)

const sniffLen = 4096 // what tracefmt/formats passes to Sniff

func head(b []byte) []byte { return b[:min(len(b), sniffLen)] }

func TestSniffFiles(t *testing.T) {
	tests := []struct {
		path string
		want bool
	}{
		{"testdata/fpilog.clog", true},
		{sharedDir + "pmandel.clog", true},
		{sharedDir + "../clog2/cpilog.clog2", false},
		{sharedDir + "../slog2/fpilog.slog2", false},
		{sharedDir + "../dumpi/testtrace-0000.bin", false},
		{sharedDir + "../dumpi/testtrace.meta", false},
		{sharedDir + "../otf2/ping-pong/traces.otf2", false},
		{sharedDir + "../otf2/ping-pong/traces/0.evt", false},
		{sharedDir + "../paraver/qsort_beo3.prv", false},
		{sharedDir + "../alog/srtest.alog", false},
		{sharedDir + "../alog/sam_hyp.16.log", false},
		{sharedDir + "../simgrid-ti/actions_with_isend.txt", false},
		{sharedDir + "../goal/binary_tree_32.goal", false},
	}
	for _, tc := range tests {
		t.Run(tc.path, func(t *testing.T) {
			b, err := os.ReadFile(tc.path)
			if os.IsNotExist(err) {
				t.Skipf("%s absent", tc.path)
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := Sniff(head(b)); got != tc.want {
				t.Errorf("Sniff = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestSniffSynthetic(t *testing.T) {
	small := func(o binary.ByteOrder, bs int) []byte {
		f := newLog()
		f.order, f.bs = o, bs
		f.raw(1, 0, 5, 0, "")
		f.raw(2, 1, 6, 0, "")
		return f.bytes()
	}
	oneRecord := small(binary.BigEndian, BlockSize)[:56+10]
	garbageSecond := append(small(binary.BigEndian, BlockSize)[:56], []byte("this is not a record header at all")...)
	clog2 := append([]byte("CLOG-02.44\x00\x00is_big_endian=\x00TRUE \x00"), make([]byte, 1000)...)
	slog2 := append([]byte{0x00, 0x0a, 'S', 'L', 'O', 'G', ' ', '2', '.', '0', '.', '6'}, make([]byte, 100)...)
	dumpi := append([]byte{0xff, 0xaa, 0xdd, 'D', 'U', 'M', 'P', 'I'}, make([]byte, 100)...)
	endlogOnly := newLog().bytes()
	tests := []struct {
		name string
		data []byte
		want bool
	}{
		{"big-endian 64 KiB blocks", small(binary.BigEndian, BlockSize), true},
		{"little-endian", small(binary.LittleEndian, BlockSize), true},
		{"1 KiB blocks", small(binary.BigEndian, OldBlockSize), true},
		{"one record then the end of head", oneRecord, false},
		{"garbage after the first record", garbageSecond, false},
		{"empty log (ENDLOG first)", endlogOnly, false},
		{"CLOG2 preamble", clog2, false},
		{"SLOG-2 header", slog2, false},
		{"DUMPI header", dumpi, false},
		{"zeros", make([]byte, sniffLen), false},
		{"short", []byte{0x3f, 0x47, 0x8f}, false},
		{"nil", nil, false},
		{"ALOG text", []byte("-1 0 0 0 0 0 Me\n-2 0 0 102 0 0\n-3 0 0 3 0 0\n"), false},
		{"TI text", []byte("0 init\n1 init\n0 send 1 1e6\n1 recv 0 1e6\n"), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Sniff(head(tc.data)); got != tc.want {
				t.Errorf("Sniff = %v, want %v", got, tc.want)
			}
		})
	}
}
