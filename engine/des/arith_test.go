package des

import (
	"math"
	"math/big"
	"testing"
)

func TestAddMulFromPSSaturateAtNever(t *testing.T) {
	tests := []struct {
		name      string
		got, want Time
	}{
		{"add small", Add(3, 4), 7},
		{"add to just below the limit", Add(Never-10, 9), Never - 1},
		{"add reaching the limit", Add(Never-10, 10), Never},
		{"add past the limit", Add(Never/2+1, Never/2+1), Never},
		{"add Never", Add(Never, 0), Never},
		{"add to Never", Add(5, Never), Never},
		{"mul small", Mul(1000, 3), 3000},
		{"mul zero times Never", Mul(0, Never), 0},
		{"mul by zero", Mul(math.MaxInt64, 0), 0},
		{"mul just fits", Mul(2, Never/2), Never - 1},
		{"mul overflows", Mul(3, Never/2), Never},
		{"mul 1 GiB × 8e12 ps", Mul(1<<30, 8e12), Never},
		{"mul one Never", Mul(1, Never), Never},
		{"mul Never once", Mul(math.MaxInt64, 1), Never},
		{"mul one just below Never", Mul(1, Never-1), Never - 1},
		{"mul three thirds to just below Never", Mul(3, (Never-1)/3), Never - 1},
		{"mul 2^32 × 2^31 = 2^63", Mul(1<<32, 1<<31), Never},
		{"mul 2^32 × 2^32", Mul(1<<32, 1<<32), Never},
		{"FromPS rounds", FromPS(2.5), 3},
		{"FromPS negative", FromPS(-4), 0},
		{"FromPS NaN", FromPS(math.NaN()), 0},
		{"FromPS 1e7 s", FromPS(1e19), Never},
		{"FromPS +Inf", FromPS(math.Inf(1)), Never},
		{"FromPS just below 2^63", FromPS(0x1p63 - 1024), Time(1<<63 - 1024)},
	}
	for _, tc := range tests {
		if tc.got != tc.want {
			t.Errorf("%s: got %d, want %d", tc.name, tc.got, tc.want)
		}
	}
}

func TestKernelRefusesEventsAtNever(t *testing.T) {
	k := NewKernel(1)
	k.Schedule(100, 1, 7, 0)
	k.Next()
	if _, ok := k.Overflow(); ok {
		t.Fatal("Overflow reported before any event at Never")
	}
	k.Schedule(Add(k.Now(), Never-50), 4, 9, 42) // past the range
	k.Schedule(Never, 5, 1, 0)                   // a second one is not kept
	e, ok := k.Overflow()
	if !ok || e.Kind != 4 || e.Obj != 9 || e.Arg != 42 || e.At != 100 {
		t.Fatalf("Overflow = %+v, %v; want kind 4, obj 9, arg 42 at 100", e, ok)
	}
	if k.Pending() != 0 {
		t.Fatalf("%d events queued; an event at Never must not be", k.Pending())
	}
}

// Mul is n × t exactly while the product is below Never, and Never from
// there on, as the product computed with math/big says.
func TestMulMatchesExactProduct(t *testing.T) {
	vals := []int64{1, 2, 3, 7, 1000, 1 << 20, 1<<31 - 1, 1 << 31, 1 << 32, 3037000499, 3037000500,
		1e12, 8e12, 1 << 62, math.MaxInt64 / 3, math.MaxInt64 / 2, math.MaxInt64 - 1, math.MaxInt64}
	limit := big.NewInt(int64(Never))
	for _, n := range vals {
		for _, v := range vals {
			want := Never
			if p := new(big.Int).Mul(big.NewInt(n), big.NewInt(v)); p.Cmp(limit) < 0 {
				want = Time(p.Int64())
			}
			if got := Mul(n, Time(v)); got != want {
				t.Errorf("Mul(%d, %d) = %d, want %d", n, v, got, want)
			}
		}
	}
}
