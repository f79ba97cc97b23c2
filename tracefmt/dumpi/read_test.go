package dumpi

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracesim/tracesim/internal/testshared"
	"github.com/tracesim/tracesim/tracefmt"
)

// sampleDir holds SST DUMPI's test trace (testtrace.meta, 4 .bin).
var sampleDir = filepath.Join(testshared.Dir(), "dumpi")

// sampleFiles reads the sample's files, skipping when they are absent.
func sampleFiles(t testing.TB) memFiles {
	t.Helper()
	files := memFiles{}
	for _, n := range []string{"testtrace.meta", "testtrace-0000.bin", "testtrace-0001.bin", "testtrace-0002.bin", "testtrace-0003.bin"} {
		b, err := os.ReadFile(filepath.Join(sampleDir, n))
		if os.IsNotExist(err) {
			t.Skipf("sample %s absent", n)
		}
		if err != nil {
			t.Fatal(err)
		}
		files[n] = b
	}
	return files
}

// memFiles serves a trace's files from memory.
type memFiles map[string][]byte

func (m memFiles) open(name string) (io.ReadCloser, error) {
	b, ok := m[name]
	if !ok {
		return nil, fs.ErrNotExist
	}
	return io.NopCloser(bytes.NewReader(b)), nil
}

func (m memFiles) read(name string) (*tracefmt.Trace, error) {
	return Read(name, bytes.NewReader(m[name]), m.open)
}

// describe lists rank r's events without states' enter and leave.
func describe(tr *tracefmt.Trace, r int) string {
	var out []string
	for _, e := range tr.Ranks[r].Events {
		switch e.Kind {
		case tracefmt.KindSend, tracefmt.KindRecv:
			out = append(out, fmt.Sprintf("%s %d:%d:%d req %d", e.Kind, e.Peer, e.Tag, e.Size, e.Request()))
		case tracefmt.KindWait:
			out = append(out, fmt.Sprintf("wait %d", e.Request()))
		case tracefmt.KindCollective:
			out = append(out, fmt.Sprintf("%s %d/%d", e.Op(), e.Size, e.RecvBytes()))
		case tracefmt.KindEnter:
			out = append(out, tr.StateName(e.State()))
		}
	}
	return strings.Join(out, ", ")
}

// TestSample pins DUMPI's test trace: 4 ranks, each Init, Comm_rank,
// Comm_size, Barrier, Isend, Recv, Wait, Allreduce, Finalize (the footers'
// call counts agree, or the read fails); opening a rank's .bin reads the
// trace its .meta names.
func TestSample(t *testing.T) {
	files := sampleFiles(t)
	for _, open := range []string{"testtrace.meta", "testtrace-0002.bin"} {
		t.Run(open, func(t *testing.T) {
			tr, err := files.read(open)
			if err != nil {
				t.Fatal(err)
			}
			s := tracefmt.Summarize(tr)
			if s.Ranks != 4 || s.Events != 92 || s.Messages.Matched != 4 || s.Messages.UnmatchedSends+s.Messages.UnmatchedRecvs != 0 || s.Collectives != 8 {
				t.Errorf("%d ranks, %d events, %+v, %d collectives; want 4, 92, 4 matched, 8", s.Ranks, s.Events, s.Messages, s.Collectives)
			}
			// A ring: an int to the next rank with tag 1337, one from the
			// previous; Isend's request 2 completed by the Wait.
			want := "MPI_Init, MPI_Comm_rank, MPI_Comm_size, MPI_Barrier, barrier 0/0, MPI_Isend, send 1:1337:4 req 2, MPI_Recv, recv 3:1337:4 req 0, MPI_Wait, wait 2, MPI_Allreduce, allreduce 4/4, MPI_Finalize"
			if got := describe(tr, 0); got != want {
				t.Errorf("rank 0:\n%s\nwant\n%s", got, want)
			}
			if s.Duration <= 0 || s.Duration > 1 || tr.Unit != tracefmt.Nanosecond {
				t.Errorf("duration %v s, unit %v", s.Duration, tr.Unit)
			}
		})
	}
}

// TestErrors: damaged files fail with the file, the offset and what was
// expected there.
func TestErrors(t *testing.T) {
	files := sampleFiles(t)
	bin := files["testtrace-0001.bin"]
	patch := func(off int, b ...byte) []byte {
		c := bytes.Clone(bin)
		copy(c[off:], b)
		return c
	}
	tests := []struct {
		name string
		meta string
		bin  []byte
		want string
	}{
		{"meta line", "numprocs=4\nbogus\n", bin, "testtrace.meta:2: expected key=value, got \"bogus\""},
		{"meta ranks", "numprocs=0\nfileprefix=testtrace\n", bin, `testtrace.meta:1: expected numprocs as a number of ranks from 1 to 1048576, got "0"`},
		{"meta prefix path", "numprocs=2\nfileprefix=../x\n", bin, `testtrace.meta:2: expected fileprefix as a file's base name, got "../x"`},
		{"meta version", "numprocs=2\nfileprefix=testtrace\nsubversion=one\n", bin, `testtrace.meta:3: expected subversion as an integer, got "one"`},
		{"meta prefix", "numprocs=2\n", bin, "testtrace.meta:1: expected a fileprefix= line, found none before the end of the file"},
		{"magic", "", patch(0, 0), "testtrace-0001.bin: offset 0 (0x0): expected the DUMPI magic ff aa dd 44 'UMPI', got 00 aa dd 44 55 4d 50 49"},
		{"truncated", "", bin[:100], "testtrace-0001.bin: offset 100 (0x64): expected CPU nanoseconds (4 bytes), got the end of the file"},
		{"label", "", patch(16, 0x7f, 0xff), "testtrace-0001.bin: offset 16 (0x10): expected a function label (0..293), got 32767"},
		{"footer", "", patch(0x1b0+8+4*82+3, 9), "testtrace-0001.bin: offset 768: the footer counts 9 calls of MPI_Comm_rank, the file holds 1"},
		{"index", "", bin[:len(bin)-1], "testtrace-0001.bin: offset 2959: expected the index (DUMPI magic and offsets) at the end of the file"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := memFiles{}
			for k, v := range files {
				m[k] = v
			}
			if tc.meta != "" {
				m["testtrace.meta"] = []byte(tc.meta)
			}
			m["testtrace-0001.bin"] = tc.bin
			_, err := m.read("testtrace.meta")
			if err == nil || err.Error() != tc.want {
				t.Errorf("error %v\nwant  %s", err, tc.want)
			}
		})
	}
}

// TestDatatypeSizes: the trailer's datatype sizes size the messages
// (rank 0's table patched to make MPI_INT, index 9, 8 bytes).
func TestDatatypeSizes(t *testing.T) {
	files := sampleFiles(t)
	b := bytes.Clone(files["testtrace-0000.bin"])
	const int9 = 0xadc + 4*9
	if b[int9+3] != 4 {
		t.Fatalf("sample's MPI_INT size is %d, not 4", b[int9+3])
	}
	b[int9+3] = 8
	files["testtrace-0000.bin"] = b
	tr, err := files.read("testtrace.meta")
	if err != nil {
		t.Fatal(err)
	}
	var sizes []int64
	for _, e := range tr.Ranks[0].Events {
		if e.Kind == tracefmt.KindSend {
			sizes = append(sizes, e.Size)
		}
	}
	if len(sizes) != 1 || sizes[0] != 8 {
		t.Errorf("rank 0's sends of one MPI_INT: %v bytes, want [8]", sizes)
	}
}
