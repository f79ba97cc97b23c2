package des

import (
	"math"
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
