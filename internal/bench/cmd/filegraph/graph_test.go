package main

import (
	"fmt"
	"testing"
)

// graphOf builds a graph of files named "0", "1", ... from arrows "from>to".
func graphOf(n int, arrows ...[2]int) *graph {
	g := &graph{out: make([][]int, n), uses: map[arc][]string{}}
	for i := range n {
		g.files = append(g.files, fmt.Sprint(i))
	}
	for _, a := range arrows {
		g.out[a[0]] = append(g.out[a[0]], a[1])
		g.uses[arc{a[0], a[1]}] = []string{"x"}
	}
	return g
}

func TestAnalyse(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		g                           *graph
		cycles, inCycles, back, lvl int
	}{
		"chain":       {graphOf(3, [2]int{0, 1}, [2]int{1, 2}), 0, 0, 0, 3},
		"diamond":     {graphOf(4, [2]int{0, 1}, [2]int{0, 2}, [2]int{1, 3}, [2]int{2, 3}), 0, 0, 0, 3},
		"pair":        {graphOf(3, [2]int{0, 1}, [2]int{1, 0}, [2]int{1, 2}), 1, 2, 1, 2},
		"triangle":    {graphOf(3, [2]int{0, 1}, [2]int{1, 2}, [2]int{2, 0}, [2]int{0, 2}), 1, 4, 1, 1},
		"two cycles":  {graphOf(4, [2]int{0, 1}, [2]int{1, 0}, [2]int{2, 3}, [2]int{3, 2}, [2]int{0, 2}), 2, 4, 2, 2},
		"both ways 2": {graphOf(3, [2]int{0, 1}, [2]int{1, 0}, [2]int{1, 2}, [2]int{2, 1}, [2]int{0, 2}, [2]int{2, 0}), 1, 6, 3, 1},
	} {
		r := tc.g.analyse()
		if len(r.cycles) != tc.cycles || r.arrowsInCycles != tc.inCycles || len(r.back) != tc.back || r.levels != tc.lvl || r.heuristic {
			t.Errorf("%s: %d cycles, %d arrows in them, %d back-arrows %v, %d levels; want %d, %d, %d, %d",
				name, len(r.cycles), r.arrowsInCycles, len(r.back), r.back, r.levels, tc.cycles, tc.inCycles, tc.back, tc.lvl)
		}
	}
}

// Removing the back-arrows leaves no cycle, and the greedy order (used for
// large cycles) finds no fewer than the exact one.
func TestBackArrowsBreakEveryCycle(t *testing.T) {
	t.Parallel()
	var arrows [][2]int
	for i := range 12 { // a ring with chords both ways: many cycles
		arrows = append(arrows, [2]int{i, (i + 1) % 12}, [2]int{(i + 5) % 12, i})
	}
	g := graphOf(12, arrows...)
	r := g.analyse()
	uses := g.usesWithin(r.cycles[0])
	greedyBack := against(r.cycles[0], uses, greedyOrder(uses))
	if len(r.back) == 0 || len(greedyBack) < len(r.back) {
		t.Fatalf("exact %d back-arrows, greedy %d", len(r.back), len(greedyBack))
	}
	for name, back := range map[string][]arc{"exact": r.back, "greedy": greedyBack} {
		var kept [][2]int
		for _, a := range arrows {
			if !containsArc(back, arc{a[0], a[1]}) {
				kept = append(kept, a)
			}
		}
		if left := graphOf(12, kept...).analyse(); len(left.cycles) != 0 {
			t.Errorf("%s: without the back-arrows %v, cycles remain: %v", name, back, left.cycles)
		}
	}
}

func containsArc(arcs []arc, a arc) bool {
	for _, x := range arcs {
		if x == a {
			return true
		}
	}
	return false
}
