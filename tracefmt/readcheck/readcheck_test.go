package readcheck

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/tracesim/tracesim/tracefmt"
)

// recorder is a testing.TB that keeps its failure instead of stopping.
type recorder struct {
	testing.TB
	failure string
}

func (r *recorder) Helper()                      {}
func (r *recorder) Fatal(args ...any)            { r.failure = fmt.Sprint(args...) }
func (r *recorder) Fatalf(f string, args ...any) { r.failure = fmt.Sprintf(f, args...) }

func TestOutcome(t *testing.T) {
	place := regexp.MustCompile(`^f\.dim:[0-9]+: `)
	valid, err := tracefmt.NewBuilder(2, false, tracefmt.Microsecond).Finish()
	if err != nil {
		t.Fatal(err)
	}
	invalid := &tracefmt.Trace{Ranks: []tracefmt.Rank{{}}}
	if valid.Validate() != nil || invalid.Validate() == nil {
		t.Fatal("the traces of this test are not what they should be")
	}
	for _, c := range []struct {
		name     string
		tr       *tracefmt.Trace
		err      error
		accepted bool
		failure  string
	}{
		{"refusal with its place", nil, errors.New("f.dim:3: expected a record type"), false, ""},
		{"refusal without its place", nil, errors.New("expected a record type"), false, "error without the file name and place"},
		{"refusal naming another file", nil, errors.New("g.dim:3: bad"), false, "error without the file name and place"},
		{"valid trace", valid, nil, true, ""},
		{"invalid trace", invalid, nil, false, "accepted an invalid trace"},
		{"nothing at all", nil, nil, false, "no trace and no error"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := &recorder{}
			got := Outcome(r, c.tr, c.err, place)
			if got != c.accepted {
				t.Errorf("accepted = %v, want %v", got, c.accepted)
			}
			if (c.failure == "") != (r.failure == "") || !strings.Contains(r.failure, c.failure) {
				t.Errorf("failure %q, want one containing %q", r.failure, c.failure)
			}
		})
	}
}
