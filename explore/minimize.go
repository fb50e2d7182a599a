package explore

import (
	"github.com/mcountsim/mcountsim/sched"
)

// minimize turns a counterexample found at its bound (the search found
// none with fewer preemptions) into the canonical one: the first, in option
// order, of the shortest runs to a hazard within that bound. Pass 1 is a
// depth-first branch and bound that finds the shortest length, starting
// from found's; pass 2 is a depth-first search cut at that length that
// stops at its first hazard. In both a state (keyed with its preemptions
// used) is revisited only when reached in fewer steps. The result depends
// only on the scenario and the bound, never on which counterexample the
// workers met first: a later-visited state on the first shortest path
// would give, through the earlier visit, a run as short and first in option
// order. The budgets apply; when one runs out the best so far stands. So
// does it after minLeft states when that is set (a hunted counterexample,
// whose bound holds no claim of fewest preemptions: engine.hunt), which
// keeps the result a function of the scenario and the bound.
func (w *worker) minimize(m *sched.Machine, found []int32) []int32 {
	start := &sched.Machine{}
	start.CopyFrom(m)
	w.best = found
	w.halt = false
	w.minimizing = true
	defer func() { w.minimizing = false }()
	w.tab.reset()
	w.path = w.path[:0]
	w.dfsMin(m, 0, false)
	if !w.halt {
		w.tab.reset()
		w.path = w.path[:0]
		w.dfsMin(start, 0, true)
	}
	w.tab = table{}
	return w.best
}

// dfsMin explores continuations of m shorter than w.best (first: as short,
// stopping at the first hazard).
func (w *worker) dfsMin(m *sched.Machine, depth int, first bool) bool {
	limit := len(w.best) - 1
	if first {
		limit = len(w.best)
	}
	opts, out := w.advance(m, depth, limit)
	if out == atHazard {
		w.best = append([]int32(nil), w.path...)
		return first
	}
	if out != atBranch {
		return false
	}
	mark := len(w.path)
	for i := range opts {
		if !first && len(w.path[:mark]) >= len(w.best)-1 {
			return false
		}
		if w.minLeft > 0 {
			if w.minLeft--; w.minLeft == 0 {
				w.halt = true // the budget of a hunted counterexample
				return false
			}
		}
		child := w.machine(depth + 1)
		child.CopyFrom(m)
		child.Apply(w.bufs[depth][i])
		w.path = append(w.path[:mark], int32(i))
		if len(child.Hazards()) > 0 {
			w.best = append([]int32(nil), w.path...)
			if first {
				return true
			}
			continue
		}
		if !w.seenAt(child) && w.dfsMin(child, depth+1, first) {
			return true
		}
		if w.halt {
			return false
		}
	}
	return false
}

// seenAt reports whether m's state (with its preemptions used) was already
// reached in as few steps, and records the step count otherwise.
func (w *worker) seenAt(m *sched.Machine) bool {
	return w.tab.visit(stateKey(m.Hash(), m.Preemptions()), int32(m.Steps()))
}
