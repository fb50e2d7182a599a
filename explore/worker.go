package explore

import (
	"slices"
	"sync/atomic"

	"github.com/mcountsim/mcountsim/sched"
)

// worker is one goroutine's search state: its own machines (a Machine
// lineage shares its decode cache, so machines never cross goroutines),
// option buffers and counters.
type worker struct {
	e     *engine
	bound int   // the preemption bound this worker searches within
	tab   table // minimization's visited set (steps per state)
	pool  []*sched.Machine
	trie  []*sched.Machine // the exchanged split's replay of received paths
	bufs  [][]sched.Action
	path  []int32
	found []int32
	best  []int32
	hit   *atomic.Pointer[[]int32] // a hazard found by any worker
	halt  bool                     // abandon the current search
	// unbudgeted: the budgets are not checked (the frontier, which is
	// small and must be complete).
	unbudgeted bool
	// minimizing: advance is used by minimization (no counts, a visited
	// check after every forced step, a deadlock is no counterexample).
	minimizing bool
	// minLeft, when positive, is how many more states the minimization
	// may expand before the best counterexample so far stands.
	minLeft int

	pending [4]int64 // states, transitions, runs, states pruned by older views not yet published
	floors  []uint64 // scratch of seen: a state's stale floors
	tick    int
	recent  recent // keys this worker met in the visited set (seen)

	// The sleep sets (sleep.go): per depth, the options the child being
	// searched sleeps on, and the scratch of one branching state.
	sleeps [][]sched.Action
	scr    []*sleepScratch

	// Load balancing (share.go): the pool of the parallel search (nil
	// when this worker does not share: the frontier, minimization, one
	// worker), the branching states on the stack, the frontier item the
	// current piece is part of (-1 in the exchanged split).
	share  *pool
	frames []*frame
	spare  []int
	origin int
}

func (e *engine) newWorker(bound int) *worker { return &worker{e: e, bound: bound} }

// flush publishes the worker's pending counters.
func (w *worker) flush() {
	w.e.states.Add(w.pending[0])
	w.e.trans.Add(w.pending[1])
	w.e.runs.Add(w.pending[2])
	w.e.older.Add(w.pending[3])
	w.pending = [4]int64{}
}

// budget reports whether the search must stop, checking the shared flags
// every 256 calls.
func (w *worker) budget() bool {
	if w.unbudgeted {
		// The frontier counts no states against the budget, but a
		// timeout or the memory budget stops it too.
		w.tick++
		return w.tick&255 == 0 && w.e.stopped.Load() != nil
	}
	if w.halt {
		return true
	}
	w.tick++
	if w.tick&255 != 0 {
		return false
	}
	w.flush()
	e := w.e
	e.overStates()
	if e.reason() != "" || (w.hit != nil && w.hit.Load() != nil) {
		w.halt = true
	}
	return w.halt
}

func (w *worker) machine(depth int) *sched.Machine {
	for len(w.pool) <= depth {
		w.pool = append(w.pool, &sched.Machine{})
	}
	return w.pool[depth]
}

func (w *worker) options(depth int, m *sched.Machine) []sched.Action {
	for len(w.bufs) <= depth {
		w.bufs = append(w.bufs, make([]sched.Action, 0, 16))
	}
	w.bufs[depth] = m.OptionsWithin(w.bufs[depth], w.bound)
	return w.bufs[depth]
}

// replayPath applies a path of options to m. Runs of option 0 go through
// Machine.RunLocal, which is exactly Apply(Options()[0]) over the steps it
// takes: a path through a long thread-local stretch (a real function's
// loop) replays at the tight loop's speed, not an option list per
// instruction.
func (w *worker) replayPath(m *sched.Machine, path []int32) {
	for i := 0; i < len(path); {
		if path[i] == 0 {
			z := i
			for z < len(path) && path[z] == 0 {
				z++
			}
			if k := m.RunLocal(z - i); k > 0 {
				i += k
				continue
			}
		}
		m.Apply(w.options(0, m)[path[i]])
		i++
	}
}

// seen reports whether m's state, with its preemptions used, was already
// claimed by a search of this bound, and claims it otherwise. With older
// views the index of views stands for the visited set: a state claimed
// before has its floor-free key and floors recorded there, or floors all
// at most them, and is pruned by them as any newer state is.
func (w *worker) seen(m *sched.Machine) bool {
	if w.e.opts.Reduction == ReduceNone {
		return false
	}
	if v := w.e.views; v != nil {
		free, f := m.HashFloorFree(w.floors[:0])
		w.floors = f
		k := stateKey(free, m.Preemptions())
		full := floorsKey(k, f)
		if w.recent.has(v, full) {
			return true
		}
		w.recent.add(full)
		switch v.older(k, f) {
		case viewsNew:
			return false
		case viewsOlder:
			w.pending[3]++
		}
		return true
	}
	k := stateKey(m.Hash(), m.Preemptions())
	if w.recent.has(w.e.tab, k) {
		return true
	}
	w.recent.add(k)
	return !w.e.tab.claim(k)
}

// outcome is where advance stopped.
type outcome uint8

const (
	atBranch outcome = iota // a state with two or more options
	atEnd                   // the run's end (or, minimizing, a dead end)
	atHazard                // a hazard (or a deadlock, which is one)
	atLimit                 // the path reached its length limit
	atHalt                  // a budget ran out or another worker found a hazard
	atSeen                  // minimizing: a forced step reached a state seen in as few steps
	atMerged                // a thread-local run reached a site state already claimed
)

// siteStops reports whether advance looks up the states before a worker's
// thread-local fetch of a site in the visited set (explore's package doc):
// in the exhaustive search without sleep sets (whose visited set keeps
// options per state) and outside minimization.
func (w *worker) siteStops() bool {
	return !w.minimizing && !w.e.por && w.e.opts.Reduction != ReduceNone && !w.e.opts.noSiteStops
}

// siteSeen is seen for a state before a site. A shard that exchanges
// states sends one it does not own to its owner, as it does a branching
// state (dfs), so that every such key is continued once in all: the
// shards' steps then add up to the unsharded search's.
func (w *worker) siteSeen(m *sched.Machine) bool {
	return w.sentAway(m) || w.seen(m)
}

// sentAway reports whether m is another shard's state, in a shard that
// exchanges states: then it is sent to its owner, once per bound.
func (w *worker) sentAway(m *sched.Machine) bool {
	x := w.e.xch
	if x == nil {
		return false
	}
	k := stateKey(m.Hash(), m.Preemptions())
	o := owner(k, x.n)
	if o == x.idx {
		return false
	}
	if w.e.sent.claim(k) {
		w.e.xout.add(o, [][]int32{append([]int32(nil), w.path...)})
	}
	return true
}

const noLimit = int(^uint(0) >> 1)

// advance is the one step the exhaustive search, its frontier and
// minimization share: it takes, in place, every step that offers no
// choice (thread-local runs through Machine.RunLocal, then single
// options), appending a 0 to w.path for each, until m reaches a branching
// point (the options are returned), the end of its run, a hazard, or
// limit steps in all.
func (w *worker) advance(m *sched.Machine, depth, limit int) ([]sched.Action, outcome) {
	looked := false // m, before a site, was looked up (siteSeen)
	for {
		if len(w.path) >= limit {
			return nil, atLimit
		}
		if w.found != nil || w.budget() {
			return nil, atHalt
		}
		// Thread-local steps first, without building option lists: each
		// is the only option there (Machine.RunLocal).
		var k int
		var site bool
		if w.siteStops() {
			k, site = m.RunLocalToSite(min(localChunk, limit-len(w.path)), limit-len(w.path), !looked)
			looked = false
		} else {
			k = m.RunLocalChunk(min(localChunk, limit-len(w.path)), limit-len(w.path))
		}
		if k > 0 || site {
			if !w.minimizing {
				w.pending[1] += int64(k)
			}
			w.path = appendZeros(w.path, k)
			if len(m.Hazards()) > 0 {
				return nil, atHazard
			}
			if site {
				if w.siteSeen(m) {
					return nil, atMerged
				}
				looked = true
			}
			continue
		}
		if !w.minimizing {
			// The patcher's local steps, as many (minimization looks
			// every forced step up: below).
			if k := m.RunPatcher(limit - len(w.path)); k > 0 {
				w.pending[1] += int64(k)
				w.path = appendZeros(w.path, k)
				if len(m.Hazards()) > 0 {
					return nil, atHazard
				}
				continue
			}
		}
		opts := w.options(depth, m)
		switch {
		case len(opts) == 0 && w.minimizing:
			return nil, atEnd
		case len(opts) == 0 && !m.Done():
			// Nothing can run but the run is not over: a deadlock.
			m.Deadlock()
			return nil, atHazard
		case len(opts) == 0 && m.OutOfSteps():
			// A run that used up its step budget has no verdict.
			if m.PremiseBroken() {
				w.e.premise.Store(true)
			}
			w.e.stop(m.BudgetText())
			return nil, atHalt
		case len(opts) == 0:
			w.pending[2]++
			w.e.end(m)
			return nil, atEnd
		case len(opts) > 1:
			return opts, atBranch
		}
		// No choice here: step in place. The visited set is consulted
		// only where the search branches; merges happen there.
		m.Apply(opts[0])
		w.path = append(w.path, 0)
		if len(m.Hazards()) > 0 {
			return nil, atHazard
		}
		if w.minimizing {
			if w.seenAt(m) {
				return nil, atSeen
			}
		} else {
			w.pending[1]++
		}
	}
}

// searchItem explores the subtree of it from the initial state of sl, the
// slot of w. It returns the path of the first hazard it meets, and
// whether it searched the subtree to the end.
func (w *worker) searchItem(sl *xslot, it item) ([]int32, bool) {
	w.found = nil
	w.halt = false
	if it.hazard {
		return it.path, true
	}
	m := w.machine(0)
	if it.m != nil && it.from == sl {
		m.CopyFrom(it.m) // a state of this worker's lineage
	} else {
		m.CopyFrom(sl.root)
		w.replayPath(m, it.path)
	}
	w.path = append(w.path[:0], it.path...)
	if len(m.Hazards()) > 0 {
		// A piece split off a busy worker's stack ends at a step not
		// taken before.
		return append([]int32(nil), w.path...), true
	}
	w.dfs(m, 0, it.sleep)
	return w.found, !w.halt
}

// dfs explores every continuation of m (owned by this depth). It follows
// steps without a choice in place (advance) and branches where there is one.
// sleep is what the state m reaches sleeps on (sleep.go): options of the
// branching state before it that need not be taken there.
func (w *worker) dfs(m *sched.Machine, depth int, sleep []sched.Action) {
	opts, out := w.advance(m, depth, noLimit)
	if out == atHazard {
		w.found = append([]int32(nil), w.path...)
	}
	if out != atBranch {
		return
	}
	// The visited set is consulted where the search branches: runs that
	// merge meet again at the next choice.
	if w.sentAway(m) {
		return
	}
	// With the sleep sets (Options.POR, sleep.go) the visited set says
	// which options this arrival takes (a bit per option: masked);
	// without them every option of a new state.
	var take uint64
	masked := false
	if w.e.por {
		var first bool
		take, masked, first = w.claim(m, depth, opts, sleep)
		if first {
			w.pending[0]++
		}
		if take == 0 {
			return
		}
	} else {
		if w.seen(m) {
			return
		}
		w.pending[0]++
	}
	mark := len(w.path)
	last := len(opts) - 1
	for masked && last >= 0 && take>>last&1 == 0 {
		last--
	}
	f := w.frame(depth)
	ord := f.ord[:0]
	*f = frame{mark: mark, last: last, take: take, masked: masked}
	if !masked && w.e.views != nil {
		f.ord = w.order(m, opts, ord)
	}
	// f.last may shrink while the loop runs: donate hands options over.
	for n := 0; n <= f.last; n++ {
		i := f.opt(n)
		if masked && take>>i&1 == 0 {
			continue
		}
		f.cur = n
		if w.share != nil && w.share.want.Load() != 0 {
			w.donate(depth)
		}
		var next []sched.Action
		if masked {
			next = w.childSleep(depth, i)
		}
		// The last child takes over m itself: one copy fewer per
		// branching point.
		child := m
		if n < f.last {
			child = w.machine(depth + 1)
			child.CopyFrom(m)
		}
		child.Apply(w.bufs[depth][i])
		w.pending[1]++
		w.path = append(w.path[:mark], int32(i))
		if len(child.Hazards()) > 0 {
			w.found = append([]int32(nil), w.path...)
			return
		}
		w.dfs(child, depth+1, next)
		if w.found != nil || w.halt {
			return
		}
	}
}

// order is the order in which dfs takes the options of a branching state
// when older views prune states (views.go), or nil for the options' own:
// a worker's fetch variants oldest first, and the steps of the patcher's
// CPU after every other option. Either way the subtrees are the same and
// every option is taken; but a state whose views are older than another's
// (a fetch of old bytes, or a worker's pass of a site before the patcher
// stores to it, rather than a fetch of the new ones after) prunes the
// other only if it is claimed first. x86-O1-fentry d_bsearch(0,150)
// under text-poke-bp: 2,295,570 states in the options' own order,
// 1,426,719 in this one.
func (w *worker) order(m *sched.Machine, opts []sched.Action, ord []int32) []int32 {
	pc := int8(-1)
	for c := range m.Config().CPUs {
		if int(m.CPU(c).Cur) == m.Patcher() {
			pc = int8(c)
		}
	}
	patcher := func(a sched.Action) bool { return a.Kind == sched.ActRun && a.CPU == pc }
	variant := func(a, b sched.Action) bool {
		return a.Kind == sched.ActRun && b.Kind == sched.ActRun && a.CPU == b.CPU && a.Task == b.Task && a.Load == b.Load
	}
	same := true
	for i := range opts {
		if i > 0 && variant(opts[i-1], opts[i]) || patcher(opts[i]) && i < len(opts)-1 && !patcher(opts[i+1]) {
			same = false
			break
		}
	}
	if same {
		return nil
	}
	for _, pass := range [2]bool{false, true} {
		for i := 0; i < len(opts); {
			j := i + 1
			for j < len(opts) && variant(opts[i], opts[j]) {
				j++
			}
			if patcher(opts[i]) == pass {
				for k := j - 1; k >= i; k-- {
					ord = append(ord, int32(k))
				}
			}
			i = j
		}
	}
	return ord
}

// localChunk bounds the local steps executed between two budget checks (a
// memoized stretch begun within it may run past it: RunLocalChunk).
const localChunk = 4096

func appendZeros(p []int32, k int) []int32 {
	n := len(p)
	p = slices.Grow(p, k)[:n+k]
	clear(p[n:])
	return p
}

// end records the end state of a run that reached its end.
func (e *engine) end(m *sched.Machine) {
	h := m.Hash()
	e.endMu.Lock()
	if e.ends != nil { // nil outside the exhaustive bounds (e.g. minimization)
		e.ends[h] = struct{}{}
	}
	e.endMu.Unlock()
}
