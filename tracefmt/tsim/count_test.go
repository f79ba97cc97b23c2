package tsim

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"github.com/tracesim/tracesim/internal/hugepage"
	"github.com/tracesim/tracesim/tracefmt"
)

// TestCountRecords: the count pass counts, per rank, the lines that
// start with a time and a rank, whatever their length, line ends and
// where the reads cut them, and leaves header lines, comments, blank
// lines and ranks from limit on alone.
func TestCountRecords(t *testing.T) {
	long := "1 2 marker M text=\"" + strings.Repeat("x", 3*countBuf/2) + "\"\n"
	cases := []struct {
		name, in string
		limit    int
		want     []int32
	}{
		{"header and records", "tsim 1\nranks 3\nstate S\n\n# c\n0 0 enter S\n1.5 2 leave S\n2 0 compute dur=1\n", 3, []int32{2, 0, 1}},
		{"untimed and signs", "- 1 compute dur=1\n-0 1 leave S\n+1 0 x\n.5 0 x\n", 9, []int32{2, 2}},
		{"blanks and CRLF", "  \t3   1 enter A\r\n3\t1\tleave A\r\n", 9, []int32{0, 2}},
		{"no newline at the end", "1 0 x\n2 1 x", 9, []int32{1, 1}},
		{"not a rank", "1 x compute\n1 1x compute\n1\n1 \nx 0 y\n", 9, nil},
		{"no kind after the rank", "1 0\n1 0 \n1 0 7\n1 0 Enter\n1 0\tenter\n", 9, []int32{1}},
		{"rank from limit on", "1 3 x\n1 99999999999999999999 x\n1 2 x\n", 3, []int32{0, 0, 1}},
		{"a line longer than a read", "1 0 x\n" + long + long + "1 1 x\n", 9, []int32{1, 1, 2}},
		{"a long line at the end", "1 0 x\n" + strings.TrimSuffix(long, "\n"), 9, []int32{1, 0, 1}},
	}
	for _, c := range cases {
		// In one piece, and cut into pieces counted apart (countPart,
		// as countRecords calls it on a large input), at every offset
		// for the short inputs: a line is counted once whichever
		// piece it starts in.
		got := countInPieces(t, c.in, []int64{0}, c.limit)
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: counts %v, want %v", c.name, got, c.want)
		}
		for cut := int64(1); cut < int64(len(c.in)); cut++ {
			if len(c.in) > 200 && cut%997 != 0 && cut != int64(len(c.in))-3 {
				continue
			}
			for _, cuts := range [][]int64{{0, cut}, {0, cut / 2, cut}} {
				if got := countInPieces(t, c.in, cuts, c.limit); !reflect.DeepEqual(got, c.want) {
					t.Fatalf("%s, pieces from %v: counts %v, want %v", c.name, cuts, got, c.want)
				}
			}
		}
	}
	// From an offset: the lines before it are not counted.
	in := "9 1 x\n9 0 x\n"
	got, err := countRecords(context.Background(), strings.NewReader(in), 6, 0, 1, 9)
	if err != nil || !reflect.DeepEqual(got, []int32{1}) {
		t.Errorf("from offset 6: %v, %v, want [1]", got, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := countRecords(ctx, strings.NewReader(in), 0, 0, 1, 9); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v, want context.Canceled", err)
	}
}

// countInPieces counts in with countPart from each offset of cuts to
// the next, as countRecords does, and sums the pieces' counts without
// trailing zeros.
func countInPieces(t *testing.T, in string, cuts []int64, limit int) []int32 {
	t.Helper()
	var total []int32
	for k, from := range cuts {
		end := int64(-1)
		if k+1 < len(cuts) {
			end = cuts[k+1]
		}
		c, err := countPart(context.Background(), strings.NewReader(in), from, end, k == 0, limit)
		if err != nil {
			t.Fatalf("pieces %v: %v", cuts, err)
		}
		for len(total) < len(c) {
			total = append(total, 0)
		}
		for r, n := range c {
			total[r] += n
		}
	}
	for len(total) > 0 && total[len(total)-1] == 0 {
		total = total[:len(total)-1]
	}
	return total
}

// TestCountRecordsInParts: the count of a large input shared between
// goroutines is the count in one piece.
func TestCountRecordsInParts(t *testing.T) {
	var b strings.Builder
	b.WriteString("tsim 1\nranks 7\n")
	for i := 0; b.Len() < 3*minCountPart+12345; i++ {
		fmt.Fprintf(&b, "%d %d compute dur=%d\n", i, (i*i)%7, i%1000)
	}
	in := b.String()
	one, err := countRecords(context.Background(), strings.NewReader(in), 0, int64(len(in)), 1, 7)
	if err != nil {
		t.Fatal(err)
	}
	for _, parts := range []int{2, 3} {
		got, err := countRecords(context.Background(), strings.NewReader(in), 0, int64(len(in)), parts, 7)
		if err != nil {
			t.Fatal(err)
		}
		// Trailing zeros are room, not counts.
		for len(got) > len(one) && got[len(got)-1] == 0 {
			got = got[:len(got)-1]
		}
		if !reflect.DeepEqual(got, one) {
			t.Errorf("in %d parts: %v, want %v", parts, got, one)
		}
	}
	sum := 0
	for _, n := range one {
		sum += int(n)
	}
	if lines := strings.Count(in, "\n") - 2; sum != lines {
		t.Errorf("%d records counted, want %d", sum, lines)
	}
}

// otherAt is an input whose ReadAt gives other bytes than its Read: a
// file that changed between the count pass and the parse.
type otherAt struct {
	io.Reader
	at *strings.Reader
}

func (o otherAt) ReadAt(p []byte, off int64) (int, error) { return o.at.ReadAt(p, off) }

// failingAt is an input whose ReadAt fails.
type failingAt struct{ io.Reader }

func (failingAt) ReadAt([]byte, int64) (int, error) { return 0, errors.New("disk on fire") }

// TestCountsAreHints: counts that are wrong (more records on a rank
// than counted, fewer on another, ranks counted that have none, none
// counted at all, a count pass that failed) give the trace of the read
// without counts, serially and in blocks.
func TestCountsAreHints(t *testing.T) {
	line := func(i int) string {
		return fmt.Sprintf("%d %d enter S\n%d %d send to=%d tag=0 size=8\n%d %d leave S\n%d %d recv from=%d tag=0 size=8\n",
			i, i%4, i, i%4, (i+1)%4, i, i%4, i, (i+1)%4, i%4)
	}
	text := "tsim 1\nranks 5\nstate S\n" + repeat(3000, line)
	counted := map[string]string{
		"fewer counted": "tsim 1\nranks 5\nstate S\n" + repeat(1000, line),
		"more counted":  "tsim 1\nranks 5\nstate S\n" + repeat(5000, line),
		"other ranks":   "tsim 1\nranks 5\n" + strings.Repeat("1 4 compute dur=1\n1 0 compute dur=1\n", 7000),
		"none counted":  "",
	}
	want, err := read(context.Background(), strings.NewReader(text), readOptions{workers: 1, noCount: true})
	if err != nil {
		t.Fatal(err)
	}
	for name, other := range counted {
		for _, o := range []readOptions{{workers: 1}, {workers: 3, blockSize: 4096}} {
			got, err := read(context.Background(), otherAt{strings.NewReader(text), strings.NewReader(other)}, o)
			if err != nil {
				t.Fatalf("%s, %+v: %v", name, o, err)
			}
			if d := diffTraces(want, got); d != "" {
				t.Errorf("%s, %+v: %s", name, o, d)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s, %+v: the trace differs from the one read without counts", name, o)
			}
		}
	}
	got, err := read(context.Background(), failingAt{strings.NewReader(text)}, readOptions{workers: 2})
	if err != nil {
		t.Fatalf("a failed count pass: %v", err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("a failed count pass: the trace differs from the one read without counts")
	}
}

// TestCountedReadAllocatesTheEventsOnce: read from an input that can be
// read twice, the events are decoded into streams of their size, handed
// to the builder as they are: the read allocates little more than the
// events, where reading in chunks allocates them twice (the chunks and
// the streams they are copied into), whose peak needed collections of
// the whole process during the read to stay near the trace's size.
func TestCountedReadAllocatesTheEventsOnce(t *testing.T) {
	data := mustWrite(t, benchTrace(t, 400_000, 16))
	evBytes := 0.0
	for _, o := range []readOptions{{workers: 1}, {workers: 2}, {workers: 1, noCount: true}, {workers: 2, noCount: true}} {
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		tr, err := read(context.Background(), bytes.NewReader(data), o)
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatal(err)
		}
		evBytes = float64(tr.NumEvents()) * float64(unsafe.Sizeof(tracefmt.Event{}))
		ratio := float64(after.TotalAlloc-before.TotalAlloc) / evBytes
		t.Logf("%+v: allocated %.2f× the events", o, ratio)
		// The pipeline's blocks are a few MB whatever the trace's size.
		if !o.noCount && ratio > 1.55 {
			t.Errorf("%+v: the read allocated %.2f× the events' %.0f bytes, want at most 1.55×", o, ratio, evBytes)
		}
		if o.noCount && ratio < 1.8 {
			t.Errorf("%+v: the read in chunks allocated %.2f× the events, want at least 1.8× (what does the test measure?)", o, ratio)
		}
	}
}

// TestCountRecordsAsLines: the count pass, which looks at a read's bytes
// without cutting them into lines first, counts what the rule counts on
// each line alone (refCount), on random lines made of the bytes that
// matter to it: blanks, line ends, signs, digits, letters, control bytes.
func TestCountRecordsAsLines(t *testing.T) {
	const alphabet = " \t\r\n\x00\x01-+.09581azeZ=\"#\xc2"
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 3000 {
		var b strings.Builder
		for range rng.IntN(40) {
			// Mostly records, with a random byte here and there.
			line := []byte(fmt.Sprintf("%d.%d%s%d%senter S", rng.IntN(100), rng.IntN(1000), []string{" ", "\t", "  "}[rng.IntN(3)], rng.IntN(12), []string{" ", "\t", " \t"}[rng.IntN(3)]))
			for range rng.IntN(4) {
				line[rng.IntN(len(line))] = alphabet[rng.IntN(len(alphabet))]
			}
			if rng.IntN(8) == 0 {
				line = line[:rng.IntN(len(line)+1)]
			}
			b.Write(line)
			b.WriteString([]string{"\n", "\r\n", "\n\n"}[rng.IntN(3)])
		}
		in := b.String()
		if rng.IntN(2) == 0 {
			in = strings.TrimSuffix(in, "\n")
		}
		limit := 1 + rng.IntN(12)
		want := refCount(in, limit)
		got, err := countRecords(context.Background(), strings.NewReader(in), 0, 0, 1, limit)
		if err != nil {
			t.Fatal(err)
		}
		for len(got) > 0 && got[len(got)-1] == 0 {
			got = got[:len(got)-1]
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("trial %d, limit %d, %q: counts %v, want %v", trial, limit, in, got, want)
		}
	}
}

// TestCountRecordsAsLinesAcrossReads: the same over inputs of several
// reads, whose line breaks are found a word at a time: bytes one above
// a line break ('\v') right after one must not pass for breaks, and
// lines cut by a read's end count once.
func TestCountRecordsAsLinesAcrossReads(t *testing.T) {
	const alphabet = " \t\r\n\v\x0b\x00\x01-09a"
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 6 {
		var b strings.Builder
		for b.Len() < 3*countBuf {
			line := []byte(fmt.Sprintf("%d.%d %d %s S", rng.IntN(100), rng.IntN(1000), rng.IntN(12), []string{"enter", "leave", "send to=3 tag=1 size=8"}[rng.IntN(3)]))
			for range rng.IntN(3) {
				line[rng.IntN(len(line))] = alphabet[rng.IntN(len(alphabet))]
			}
			b.Write(line)
			b.WriteString([]string{"\n", "\n\v", "\n\v\n", "\n\x0b\x0b"}[rng.IntN(4)])
		}
		in := b.String()
		want := refCount(in, 10)
		got, err := countRecords(context.Background(), strings.NewReader(in), 0, 0, 1, 10)
		if err != nil {
			t.Fatal(err)
		}
		for len(got) > 0 && got[len(got)-1] == 0 {
			got = got[:len(got)-1]
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("trial %d: counts %v, want %v", trial, got, want)
		}
	}
}

// refCount counts the records of in by rank below limit as the count
// pass's rule says, line by line: blanks, a field that starts with a
// digit, '-', '+' or '.', blanks, a rank, blanks and a lower-case letter.
func refCount(in string, limit int) []int32 {
	var counts []int32
	for _, line := range strings.Split(in, "\n") {
		f := strings.TrimLeft(line, " \t")
		if f == "" || !strings.ContainsAny(f[:1], "0123456789-+.") {
			continue
		}
		i := strings.IndexAny(f, " \t")
		if i < 0 {
			continue
		}
		f = strings.TrimLeft(f[i:], " \t")
		j := 0
		for j < len(f) && f[j] >= '0' && f[j] <= '9' {
			j++
		}
		if j == 0 || j == len(f) || f[j] != ' ' && f[j] != '\t' {
			continue
		}
		r, err := strconv.Atoi(f[:j])
		if err != nil || r >= limit {
			continue
		}
		f = strings.TrimLeft(f[j:], " \t")
		if f == "" || f[0] < 'a' || f[0] > 'z' {
			continue
		}
		for len(counts) <= r {
			counts = append(counts, 0)
		}
		counts[r]++
	}
	return counts
}

// TestCountedEventsInHugePages: the streams a counted read decodes into
// are advised as huge pages before their first touch (Linux), so that
// filling them faults once every 2 MiB rather than every 4 KiB. Each
// read runs in a process of its own, whose heap has not yet touched the
// memory the streams get, and checks the advice on their mapping.
func TestCountedEventsInHugePages(t *testing.T) {
	if path := os.Getenv("TSIM_HUGE_TRACE"); path != "" {
		hugePagesChild(t, path)
		return
	}
	if runtime.GOOS != "linux" {
		t.Skip("transparent huge pages are a Linux feature")
	}
	if b, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled"); err != nil || !bytes.Contains(b, []byte("[madvise]")) && !bytes.Contains(b, []byte("[always]")) {
		t.Skipf("transparent huge pages not given to madvised memory here (%q, %v)", b, err)
	}
	path := filepath.Join(t.TempDir(), "t.tsim")
	if err := os.WriteFile(path, mustWrite(t, benchTrace(t, 400_000, 4)), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, workers := range []string{"1", "2"} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestCountedEventsInHugePages$", "-test.v")
		cmd.Env = append(os.Environ(), "TSIM_HUGE_TRACE="+path, "TSIM_HUGE_WORKERS="+workers)
		out, err := cmd.CombinedOutput()
		if err != nil || !bytes.Contains(out, []byte("--- PASS")) {
			t.Errorf("%s workers: %v\n%s", workers, err, out)
		}
	}
}

// hugePagesChild reads the trace at path and checks that rank 1's
// events lie in memory advised as huge pages.
func hugePagesChild(t *testing.T, path string) {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	workers, _ := strconv.Atoi(os.Getenv("TSIM_HUGE_WORKERS"))
	tr, err := read(context.Background(), bytes.NewReader(data), readOptions{workers: workers})
	if err != nil {
		t.Fatal(err)
	}
	ev := tr.Ranks[1].Events
	m, err := hugepage.MappingOf(unsafe.Pointer(&ev[len(ev)/2]))
	if err != nil {
		t.Fatal(err)
	}
	// Whether the kernel then finds free huge pages is its choice.
	if !m.Advised {
		t.Errorf("%d workers: the mapping of rank 1's %d events is not advised as huge pages (%d KiB in huge pages)", workers, len(ev), m.HugeKB)
	}
	runtime.KeepAlive(tr)
}

// TestPeekRecordAsCountLine: the count pass's quick look at a line's
// first fields (peekRecord, a word at a time over the first field)
// counts what countLine counts, for plain records, long first fields,
// control and UTF-8 bytes, CRLF and lines cut at the end of the input,
// and for random lines of the bytes that matter.
func TestPeekRecordAsCountLine(t *testing.T) {
	lines := []string{
		"0 0 enter S", "200.5 63 send to=1", "123456789.123456 1 leave S", "1234567 2 x", "12345678 2 x",
		"123456789012345678901234 3 x", "1\x01 2 x", "1\x00 2 x", "1\r 2 x", "1\r", "1 2\r", "1 2 x\r",
		"1é 2 x", "é 2 x", "1\t\t2\tx", "  1 2 x", "1 2", "1 2 ", "1 2 X", "1 02 x", "1 8 x", "1 7 x",
		"- 1 x", "+ 1 x", ". 1 x", "1 - x", "", " ", "#", "1", "1 ", "1 \x01 x", "1 2\x01x",
	}
	rng := rand.New(rand.NewPCG(19, 2))
	const alphabet = "0123456789 \t.-+xé\x01\r#"
	for range 3000 {
		b := make([]byte, rng.IntN(24))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		lines = append(lines, string(b))
	}
	for _, line := range lines {
		want := countLine(nil, []byte(line), 8)
		for _, in := range []string{line + "\n", line} {
			got, err := countRange(context.Background(), strings.NewReader(in), 0, -1, false, 8)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%q: the count pass counts %v, countLine %v", in, got, want)
			}
		}
	}
}

// TestCountRun: the count pass's quick reading of common record lines
// counts the rank and ends at the line break peekRecord and the search
// for the line break give, and leaves every other line to them.
func TestCountRun(t *testing.T) {
	for _, tc := range []struct {
		text string
		ok   bool
		rank int
	}{
		{"500.44 41 leave MPI_Irecv\n", true, 41},
		{"0 0 enter Compute\n", true, 0},
		{"12345678.123456 007 send to=13 tag=1 size=8192\nnext", true, 7},
		{"1 65535 enter A\n", true, 65535},
		{"1 65536 enter A\n", false, 0}, // the limit: peekRecord's
		{"1  3 enter A\n", false, 0},
		{"1\t3 enter A\n", false, 0},
		{"- 3 enter A\n", false, 0},
		{" 1 3 enter A\n", false, 0},
		{"1 3 Enter A\n", false, 0},
		{"1 3\n", false, 0},
		{"1 x enter\n", false, 0},
		{"1 3xenter A\n", false, 0},
		{"1 3 e", false, 0}, // cut by the read: its break is the padding's
	} {
		var b countArr
		n := copy(b[:], tc.text)
		copy(b[n:], "\n\n\n\n\n\n\n\n")
		counts := make([]int32, 65536)
		// One line at most: the next starts at or after stop.
		pos := countRun(&b, 0, n, 1, 65536, counts)
		if ok := pos > 0; ok != tc.ok || ok && counts[tc.rank] != 1 {
			t.Errorf("%q: countRun = %d, rank's count %d; want a line counted: %v, rank %d", tc.text, pos, counts[tc.rank], tc.ok, tc.rank)
			continue
		}
		if !tc.ok {
			if slices.ContainsFunc(counts, func(c int32) bool { return c != 0 }) {
				t.Errorf("%q: countRun counted a line it left", tc.text)
			}
			continue
		}
		pr, j, st := peekRecord(b[:n+countPad], 0, 65536)
		nl := strings.IndexByte(string(b[j:n+countPad]), '\n') + j
		if st != peekRecordOf || pr != tc.rank || nl != pos-1 {
			t.Errorf("%q: countRun ended at %d; peekRecord %d (verdict %d) ending at %d", tc.text, pos-1, pr, st, nl)
		}
	}
}

// TestCountedRanksHaveTheirEvents: the events written through the ranks'
// fill slots (a counted rank's cursor in the shared array) are the ranks'
// when the read ends: a world of more than tracefmt.MaxEmptyRanks ranks,
// every one with an event, is not refused as empty, serially and in
// blocks, and each rank has its event.
func TestCountedRanksHaveTheirEvents(t *testing.T) {
	const ranks = tracefmt.MaxEmptyRanks + 2
	var b strings.Builder
	fmt.Fprintf(&b, "tsim 1\nranks %d\n", ranks)
	for r := range ranks {
		fmt.Fprintf(&b, "%d %d compute dur=1\n", r, r)
	}
	text := b.String()
	for _, o := range []readOptions{{workers: 1}, {workers: 3, blockSize: 4096}} {
		tr, err := read(context.Background(), strings.NewReader(text), o)
		if err != nil {
			t.Fatalf("%+v: %v", o, err)
		}
		for r := range tr.Ranks {
			if ev := tr.Ranks[r].Events; len(ev) != 1 || ev[0].Time != float64(r) {
				t.Fatalf("%+v: rank %d has %d events (%v), want its one at %d", o, r, len(ev), ev, r)
			}
		}
	}
}
