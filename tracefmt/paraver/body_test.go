package paraver

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math/rand"
	"os"
	"reflect"
	"testing"

	"github.com/tracesim/tracesim/internal/testshared"
	"github.com/tracesim/tracesim/tracefmt"
)

// readSequential reads a .prv one line after the other on the calling
// goroutine, turning each record into events before the next line is
// read: the reference the split body (body.go) must agree with.
func readSequential(data, pcfText []byte) (*tracefmt.Trace, error) {
	p, err := readPCF("x.pcf", bytes.NewReader(pcfText))
	if err != nil {
		return nil, err
	}
	rd := &reader{name: "x.prv", pcf: p}
	return rd.readWith(bytes.NewReader(data), nil, func(br *bufio.Reader) error {
		for {
			line, err := readLine(br)
			if len(line) > 0 {
				rd.line++
				if perr := rd.record(line); perr != nil {
					return perr
				}
			} else if err == nil {
				rd.line++
			}
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return fmt.Errorf("%s:%d: %w", rd.name, rd.line+1, err)
			}
		}
	})
}

// readSplit reads a .prv through the split body, in batches of size
// bytes.
func readSplit(data, pcfText []byte, size int) (*tracefmt.Trace, error) {
	p, err := readPCF("x.pcf", bytes.NewReader(pcfText))
	if err != nil {
		return nil, err
	}
	rd := &reader{name: "x.prv", pcf: p, batchBytes: size}
	return rd.read(bytes.NewReader(data), nil)
}

// TestSplitBodyIsSequential reads traces, whole and damaged (cut short,
// a byte changed, blank lines inserted), through the split body with
// batches of one line to the default size, and line by line: the traces
// are the same and so are the errors, line numbers included.
func TestSplitBodyIsSequential(t *testing.T) {
	inputs := []struct {
		name     string
		prv, pcf []byte
		damaged  int
	}{
		{"synthetic", synthetic(16 << 10), []byte(testPCF), 80},
		{"synthetic-1MB", synthetic(1 << 20), []byte(testPCF), 0},
	}
	if prv, err := os.ReadFile(testshared.Dir() + "/paraver/qsort_beo3.prv"); err == nil {
		pcf, err := os.ReadFile(testshared.Dir() + "/paraver/qsort_beo3.pcf")
		if err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, struct {
			name     string
			prv, pcf []byte
			damaged  int
		}{"qsort_beo3", prv, pcf, 80})
	}
	rng := rand.New(rand.NewSource(2))
	for _, in := range inputs {
		t.Run(in.name, func(t *testing.T) {
			variants := [][]byte{in.prv}
			for k := range in.damaged {
				d := bytes.Clone(in.prv)
				switch k % 4 {
				case 0:
					d = d[:rng.Intn(len(d))]
				case 1:
					d[rng.Intn(len(d))] = "0123456789:-\n\r#c x"[rng.Intn(18)]
				case 2:
					i := rng.Intn(len(d))
					d = append(d[:i:i], append([]byte("\n\r\n"), d[i:]...)...)
				default:
					for range 3 {
						d[rng.Intn(len(d))] = byte(rng.Intn(256))
					}
				}
				variants = append(variants, d)
			}
			for k, d := range variants {
				want, wantErr := readSequential(d, in.pcf)
				if k == 0 && wantErr != nil {
					t.Fatal(wantErr)
				}
				for _, size := range []int{1, 100, 0} {
					got, err := readSplit(d, in.pcf, size)
					if fmt.Sprint(err) != fmt.Sprint(wantErr) {
						t.Fatalf("variant %d, batches of %d bytes: error %v, want %v", k, size, err, wantErr)
					}
					if !reflect.DeepEqual(got, want) {
						t.Fatalf("variant %d, batches of %d bytes: the trace differs from the line-by-line read", k, size)
					}
				}
			}
		})
	}
}
