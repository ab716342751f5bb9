package main

import (
	"math/bits"
	"sort"
)

// maxExact is the largest cycle whose best order is searched exactly
// (2^n states of n bits each).
const maxExact = 22

type result struct {
	cycles         [][]int // components of more than one file
	arrowsInCycles int
	levels         int
	back           []arc // a minimum set of arrows against the order, sorted
	heuristic      bool  // some component was ordered greedily: back is an upper bound
}

func (r result) filesInCycles() int {
	n := 0
	for _, c := range r.cycles {
		n += len(c)
	}
	return n
}

func (g *graph) analyse() result {
	comps, compOf := g.components()
	var r result
	for _, c := range comps {
		if len(c) > 1 {
			r.cycles = append(r.cycles, c)
		}
	}
	for a := range g.uses {
		if compOf[a.from] == compOf[a.to] {
			r.arrowsInCycles++
		}
	}
	r.levels = g.levels(comps, compOf)
	for _, c := range r.cycles {
		back, greedy := g.backArrows(c)
		r.back = append(r.back, back...)
		r.heuristic = r.heuristic || greedy
	}
	sortArcs(r.back)
	return r
}

// sortedArrows is every arrow, by file then by the file it uses.
func (g *graph) sortedArrows() []arc {
	out := make([]arc, 0, len(g.uses))
	for a := range g.uses {
		out = append(out, a)
	}
	sortArcs(out)
	return out
}

func sortArcs(arcs []arc) {
	sort.Slice(arcs, func(i, j int) bool {
		if arcs[i].from != arcs[j].from {
			return arcs[i].from < arcs[j].from
		}
		return arcs[i].to < arcs[j].to
	})
}

// components are the strongly connected components (Tarjan), each sorted;
// Tarjan emits them dependencies first.
func (g *graph) components() (comps [][]int, compOf []int) {
	n := len(g.files)
	index, low, compOf := make([]int, n), make([]int, n), make([]int, n)
	onStack := make([]bool, n)
	for i := range index {
		index[i], compOf[i] = -1, -1
	}
	var stack []int
	next := 0
	var visit func(v int)
	visit = func(v int) {
		index[v], low[v] = next, next
		next++
		stack = append(stack, v)
		onStack[v] = true
		for _, w := range g.out[v] {
			switch {
			case index[w] < 0:
				visit(w)
				low[v] = min(low[v], low[w])
			case onStack[w]:
				low[v] = min(low[v], index[w])
			}
		}
		if low[v] != index[v] {
			return
		}
		var c []int
		for {
			w := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			onStack[w] = false
			compOf[w] = len(comps)
			c = append(c, w)
			if w == v {
				break
			}
		}
		sort.Ints(c)
		comps = append(comps, c)
	}
	for v := range n {
		if index[v] < 0 {
			visit(v)
		}
	}
	return comps, compOf
}

// levels is the longest chain of components, counted in components.
func (g *graph) levels(comps [][]int, compOf []int) int {
	level := make([]int, len(comps))
	most := 0
	for ci, c := range comps { // dependencies first, so each used level is final
		level[ci] = 1
		for _, v := range c {
			for _, w := range g.out[v] {
				if cw := compOf[w]; cw != ci {
					level[ci] = max(level[ci], level[cw]+1)
				}
			}
		}
		most = max(most, level[ci])
	}
	return most
}

// backArrows orders the files of one component, each after as many of the
// files it uses as possible, and returns the arrows that still run forward
// (a file using one placed after it). greedy says the order is Eades-Lin-
// Smyth's rather than a best one.
func (g *graph) backArrows(comp []int) (back []arc, greedy bool) {
	uses := g.usesWithin(comp)
	order := bestOrder
	if greedy = len(comp) > maxExact; greedy {
		order = greedyOrder
	}
	return against(comp, uses, order(uses)), greedy
}

// usesWithin is, for each file of comp, the files of comp it uses, by
// position in comp.
func (g *graph) usesWithin(comp []int) [][]int {
	pos := map[int]int{}
	for i, v := range comp {
		pos[v] = i
	}
	uses := make([][]int, len(comp))
	for i, v := range comp {
		for _, w := range g.out[v] {
			if j, ok := pos[w]; ok {
				uses[i] = append(uses[i], j)
			}
		}
	}
	return uses
}

// against is the arrows of comp that run against order: from a file to one
// placed after it.
func against(comp []int, uses [][]int, order []int) []arc {
	placed := make([]bool, len(comp))
	var back []arc
	for _, i := range order {
		for _, j := range uses[i] {
			if !placed[j] {
				back = append(back, arc{comp[i], comp[j]})
			}
		}
		placed[i] = true
	}
	return back
}

// bestOrder is an order of at most maxExact files with the fewest
// back-arrows: cost[S] is the fewest back-arrows among the files of the set
// S when they come first; the file placed last of S pays its arrows into
// files outside S.
func bestOrder(uses [][]int) []int {
	n := len(uses)
	outMask := make([]uint32, n)
	for i, us := range uses {
		for _, j := range us {
			outMask[i] |= 1 << j
		}
	}
	full := uint32(1)<<n - 1
	cost := make([]int32, 1<<n)
	last := make([]int8, 1<<n)
	for s := uint32(1); s <= full; s++ {
		cost[s] = 1 << 30
		for rest := s; rest != 0; rest &= rest - 1 {
			v := bits.TrailingZeros32(rest)
			if c := cost[s&^(1<<v)] + int32(bits.OnesCount32(outMask[v]&^s)); c < cost[s] {
				cost[s], last[s] = c, int8(v)
			}
		}
	}
	order := make([]int, n)
	for s, i := full, n-1; s != 0; i-- {
		order[i] = int(last[s])
		s &^= 1 << last[s]
	}
	return order
}

// greedyOrder is the order of Eades, Lin and Smyth (1993) for arrows that
// should point backwards: while files are left, a file that uses none of
// them comes next, a file none of them uses comes last, and failing both the
// file used most beyond what it uses comes next.
func greedyOrder(uses [][]int) []int {
	n := len(uses)
	usedBy := make([][]int, n)
	for i, us := range uses {
		for _, j := range us {
			usedBy[j] = append(usedBy[j], i)
		}
	}
	left := make([]bool, n)
	for i := range left {
		left[i] = true
	}
	countLeft := func(xs []int) int {
		c := 0
		for _, x := range xs {
			if left[x] {
				c++
			}
		}
		return c
	}
	var first, last []int
	for remaining := n; remaining > 0; {
		progressed := false
		for v := range n {
			switch {
			case !left[v]:
			case countLeft(uses[v]) == 0:
				first, left[v], progressed = append(first, v), false, true
				remaining--
			case countLeft(usedBy[v]) == 0:
				last, left[v], progressed = append(last, v), false, true
				remaining--
			}
		}
		if progressed {
			continue
		}
		best, score := -1, 0
		for v := range n {
			if s := countLeft(usedBy[v]) - countLeft(uses[v]); left[v] && (best < 0 || s > score) {
				best, score = v, s
			}
		}
		first, left[best] = append(first, best), false
		remaining--
	}
	for i := len(last) - 1; i >= 0; i-- {
		first = append(first, last[i])
	}
	return first
}
