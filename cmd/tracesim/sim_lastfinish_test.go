package main

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tracesim/tracesim/engine/replay"
)

// TestLastToFinish: sim's table of ranks lists the n that finish last,
// latest first, ties in rank order: what a stable sort of every rank's
// result by finish, latest first, gives in its first n rows.
func TestLastToFinish(t *testing.T) {
	stable := func(ranks []replay.RankResult, n int) []replay.RankResult {
		rows := slices.Clone(ranks)
		slices.SortStableFunc(rows, func(a, b replay.RankResult) int {
			switch {
			case a.Finish > b.Finish:
				return -1
			case a.Finish < b.Finish:
				return 1
			}
			return 0
		})
		return rows[:min(n, len(rows))]
	}
	finishes := func(fs ...float64) []replay.RankResult {
		rs := make([]replay.RankResult, len(fs))
		for i, f := range fs {
			rs[i] = replay.RankResult{Rank: i, Finish: f}
		}
		return rs
	}
	rng := rand.New(rand.NewPCG(1, 2))
	random := func(p, distinct int) []replay.RankResult {
		fs := make([]float64, p)
		for i := range fs {
			fs[i] = float64(rng.IntN(distinct))
		}
		return finishes(fs...)
	}
	ascending := make([]float64, 100)
	for i := range ascending {
		ascending[i] = float64(i)
	}
	cases := []struct {
		name  string
		ranks []replay.RankResult
		n     int
		want  []int // ranks listed, nil: the stable sort's
	}{
		{"ties keep rank order", finishes(1, 3, 3, 2, 3), 3, []int{1, 2, 4}},
		{"fewer ranks than rows", finishes(2, 5, 1), 32, []int{1, 0, 2}},
		{"ascending", finishes(ascending...), 4, []int{99, 98, 97, 96}},
		{"all equal", finishes(7, 7, 7, 7, 7), 2, []int{0, 1}},
		{"one row", finishes(1, 9, 9), 1, []int{1}},
		{"random, many ties", random(5000, 20), 32, nil},
		{"random, few ties", random(5000, 1<<30), 32, nil},
	}
	for _, c := range cases {
		got := lastToFinish(c.ranks, c.n)
		want := stable(c.ranks, c.n)
		if !slices.Equal(got, want) {
			t.Errorf("%s: got %v, want %v", c.name, got, want)
		}
		if c.want != nil {
			var listed []int
			for _, r := range got {
				listed = append(listed, r.Rank)
			}
			if !slices.Equal(listed, c.want) {
				t.Errorf("%s: ranks %v, want %v", c.name, listed, c.want)
			}
		}
	}
}
