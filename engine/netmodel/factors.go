package netmodel

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// SizeFactor is one step of a SizeFactors table.
type SizeFactor struct {
	// Above is the size the step starts after: messages of more than
	// Above bytes use Factor (until the next step).
	Above int64
	// Factor multiplies the bandwidth or latency.
	Factor float64
}

// SizeFactors is a size-dependent correction factor, as SMPI's
// smpi/bw-factor and smpi/lat-factor: steps sorted by Above. A message
// of s bytes (its envelope included) uses the factor of the last step
// whose Above is below s, and 1 when there is none — SimGrid's FactorSet,
// measured with smpirun 3.32: a 241-byte message (257 with the envelope)
// still uses the factor of "0:", a 242-byte one that of "257:".
type SizeFactors []SizeFactor

// At returns the factor for a message of s bytes.
func (f SizeFactors) At(s int64) float64 {
	out := 1.0
	for _, st := range f {
		if s <= st.Above {
			break
		}
		out = st.Factor
	}
	return out
}

// String writes the table as SimGrid does, largest threshold first:
// "65472:0.940694;15424:0.697866;…".
func (f SizeFactors) String() string {
	if len(f) == 1 && f[0].Above < 0 {
		return strconv.FormatFloat(f[0].Factor, 'g', -1, 64)
	}
	parts := make([]string, len(f))
	for i, st := range f {
		parts[len(f)-1-i] = strconv.FormatInt(st.Above, 10) + ":" + strconv.FormatFloat(st.Factor, 'g', -1, 64)
	}
	return strings.Join(parts, ";")
}

// ParseSizeFactors reads SimGrid's syntax: "SIZE:FACTOR;SIZE:FACTOR;…" in
// any order, or a single FACTOR for every size.
func ParseSizeFactors(v string) (SizeFactors, error) {
	v = strings.TrimSpace(v)
	factor := func(s string) (float64, error) {
		f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil || !(f > 0) || math.IsInf(f, 0) {
			return 0, fmt.Errorf("%q is not a positive factor", s)
		}
		return f, nil
	}
	if !strings.ContainsAny(v, ":;") {
		f, err := factor(v)
		if err != nil {
			return nil, err
		}
		return SizeFactors{{Above: -1, Factor: f}}, nil
	}
	var out SizeFactors
	for i, chunk := range strings.Split(v, ";") {
		if strings.TrimSpace(chunk) == "" {
			continue
		}
		size, fs, ok := strings.Cut(chunk, ":")
		if !ok {
			return nil, fmt.Errorf("chunk %d %q: expected SIZE:FACTOR", i+1, chunk)
		}
		n, err := strconv.ParseInt(strings.TrimSpace(size), 10, 64)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("chunk %d %q: %q is not a size in bytes", i+1, chunk, size)
		}
		f, err := factor(fs)
		if err != nil {
			return nil, fmt.Errorf("chunk %d %q: %v", i+1, chunk, err)
		}
		out = append(out, SizeFactor{Above: n, Factor: f})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%q: no SIZE:FACTOR chunk", v)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Above < out[j].Above })
	for i := 1; i < len(out); i++ {
		if out[i].Above == out[i-1].Above {
			return nil, fmt.Errorf("size %d given twice", out[i].Above)
		}
	}
	return out, nil
}

// SMPI's default factors in SimGrid 3.32 (smpi/bw-factor and
// smpi/lat-factor), fitted by the SimGrid team on a real cluster.
const (
	SMPIBandwidthFactors = "65472:0.940694;15424:0.697866;9376:0.58729;5776:1.08739;3484:0.77493;1426:0.608902;732:0.341987;257:0.338112;0:0.812084"
	SMPILatencyFactors   = "65472:11.6436;15424:3.48845;9376:2.59299;5776:2.18796;3484:1.88101;1426:1.61075;732:1.9503;257:1.95341;0:2.01467"
)
