package explore

import (
	"fmt"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcountsim/mcountsim/sched"
)

// frontierTarget is how many subtrees the exhaustive search splits each
// bound into (at least, when the space is that wide). It is a constant, not
// a function of the number of workers, so that the subtrees, and with them
// every count and the counterexample, are the same for any number of
// workers and any partition into shards.
const frontierTarget = 64

// frontierLevels caps the depth (in branching points) of the split: one
// goroutine builds it, and the workers balance the load (share.go), so a
// narrow bound is split shallowly rather than searched serially.
const frontierLevels = 6

// Check explores sc within opts and returns the verdict.
func Check(sc Scenario, opts Options) (*Result, error) {
	sc = sc.WithDefaults()
	start := time.Now()
	if opts.Bound < NoPreemptions {
		return nil, fmt.Errorf("bound must be >= 0 (or NoPreemptions), got %d", opts.Bound)
	}
	if opts.Shard.Count > 1 && opts.Search != Exhaustive {
		return nil, fmt.Errorf("shards apply to the exhaustive search only")
	}
	if opts.Shard.Count > 1 && (opts.Shard.Index < 0 || opts.Shard.Index >= opts.Shard.Count) {
		return nil, fmt.Errorf("bad shard %d/%d", opts.Shard.Index, opts.Shard.Count)
	}
	c, err := compile(sc)
	if err != nil {
		return nil, err
	}
	c.noSym = opts.NoSymmetry
	if opts.Runs <= 0 {
		opts.Runs = DefaultRuns
	}
	if opts.Depth <= 0 {
		opts.Depth = DefaultDepth
	}
	e := newEngine(c, opts, start)
	defer e.close()
	if opts.Exchange != "" {
		if opts.Shard.Whole() || opts.Search != Exhaustive {
			return nil, fmt.Errorf("an exchange directory needs an exhaustive search of 2 or more shards")
		}
		x := &exchange{dir: opts.Exchange, idx: opts.Shard.Index, n: opts.Shard.Count, pollWait: 2 * time.Millisecond, slots: make(chan *xslot, e.workers())}
		if err := x.check(); err != nil {
			return nil, err
		}
		e.xch = x
		defer x.finish()
	}
	var res *Result
	switch opts.Search {
	case Exhaustive:
		res, err = e.modularOrWhole()
	case PCT, Random:
		res, err = e.sample()
	default:
		return nil, fmt.Errorf("unknown search mode %v", opts.Search)
	}
	if err != nil {
		return nil, err
	}
	if err := c.stableNote(res, opts); err != nil {
		return nil, err
	}
	if err := c.withReturns(res, opts.bound()); err != nil {
		return nil, err
	}
	res.Elapsed = time.Since(start)
	tracerResult(res, sc, c.stats, nil)
	if opts.Search == Exhaustive {
		res.throughput()
	}
	e.report()
	return res, nil
}

// item is one subtree of the frontier: the options that lead to it from
// the initial state. A hazard item ends at a hazard found while splitting.
type item struct {
	path   []int32
	hazard bool
	// m is the state path leads to, of the machine lineage of from (the
	// frontier's): the worker holding from starts there instead of
	// replaying path. Nil in a piece split off a worker's stack.
	m    *sched.Machine
	from *xslot
	// sleep is what the subtree's root sleeps on (sleep.go).
	sleep []sched.Action
}

// exhaustive runs iterative preemption bounding; each bound is split into
// a frontier of subtrees that the workers search with one shared visited
// set. A modular machine's search starts at the bound itself (firstBound).
func (e *engine) exhaustive() (*Result, error) {
	sc, opts := e.sc, e.opts
	res := &Result{Mode: "check", Space: space(sc, opts)}
	var found []int32
	foundBound := -1
	var states, trans, runs int64
	first := e.firstBound()
	for b := first; b <= opts.bound(); b++ {
		e.bound.Store(int64(b))
		if opts.olderViews() {
			e.tab, e.views = nil, newViews()
		} else {
			e.tab = newShared()
		}
		e.ends = map[[2]uint64]struct{}{}
		s0, t0, r0 := e.states.Load(), e.trans.Load(), e.runs.Load()
		e.s0.Store(s0)
		e.tabp.Store(e.tab)
		e.viewsp.Store(e.views)
		var f []int32
		var err error
		ndone, nmine := 0, 0
		if e.xch != nil {
			f, err = e.exchanged(b, e.xch, res)
		} else {
			var items []item
			if items, err = e.frontier(b); err != nil {
				return nil, err
			}
			res.Space.Frontier = len(items)
			// This shard's items: every Count-th, from Index.
			var mine []int
			for i := range items {
				if opts.Shard.Whole() || i%opts.Shard.Count == opts.Shard.Index {
					mine = append(mine, i)
				}
			}
			nmine = len(mine)
			e.done.Store(0)
			e.total.Store(int64(nmine))
			res.Subtrees += nmine
			f, ndone, err = e.searchItems(b, items, mine)
		}
		if err != nil {
			return nil, err
		}
		if f != nil {
			found, foundBound = f, b
			break
		}
		if why := e.reason(); why != "" && e.xch != nil {
			res.Space.Coverage = fmt.Sprintf("exhaustive through bound %d", b-1)
			if b == first {
				res.Space.Coverage = fmt.Sprintf("bound %d not exhausted", b)
			}
			res.Reason = why + ": " + res.Space.Coverage
			if !e.xch.peerHazard {
				// (After another shard's hazard, the counts are
				// those of the bounds finished, as in an UNSAFE
				// result.)
				states, trans, runs = e.states.Load(), e.trans.Load(), e.runs.Load()
			}
			break
		} else if why != "" && e.statesOver.Load() {
			// The state budget: a bound needs more states than it allows
			// whichever worker claimed them, so the coverage names no
			// subtree count (which depends on timing).
			res.Space.Coverage = statesCoverage(first, b, opts.MaxStates)
			res.Reason = why + ": " + res.Space.Coverage
			states, trans, runs = e.states.Load(), e.trans.Load(), e.runs.Load()
			break
		} else if why != "" {
			pct := 0.0
			if nmine > 0 {
				pct = 100 * float64(ndone) / float64(nmine)
			}
			cov := fmt.Sprintf("bound %d: %.0f%% of frontier (%d of %d subtrees)", b, pct, ndone, nmine)
			if b > first {
				cov = fmt.Sprintf("exhaustive through bound %d; %s", b-1, cov)
			}
			res.Space.Coverage = cov
			res.Reason = why + ": " + cov
			states, trans, runs = e.states.Load(), e.trans.Load(), e.runs.Load()
			break
		}
		// A finished bound: its counts are exact (every state with its
		// preemptions expanded once), so they are kept. A bound that
		// ended past the state budget before a worker noticed is over
		// budget all the same: the verdict depends on the count only.
		if e.xch == nil && e.overStates() {
			res.Space.Coverage = statesCoverage(first, b, opts.MaxStates)
			res.Reason = e.reason() + ": " + res.Space.Coverage
			states, trans, runs = e.states.Load(), e.trans.Load(), e.runs.Load()
			break
		}
		states += e.states.Load() - s0
		trans += e.trans.Load() - t0
		runs += e.runs.Load() - r0
		if tb := e.setBytes(); tb > res.TableBytes {
			res.TableBytes, res.TableStates = tb, int(e.states.Load()-s0)
		}
		res.Space.BoundsDone = b + 1
		// Every run within bound b is within bound b+1: the end states
		// of the largest finished bound are all of them.
		res.Runs = len(e.ends)
		if e.xch != nil || !opts.Shard.Whole() {
			res.EndStates = res.EndStates[:0]
			for h := range e.ends {
				res.EndStates = append(res.EndStates, fmt.Sprintf("%016x%016x", h[0], h[1]))
			}
			sort.Strings(res.EndStates)
		}
	}
	e.tab, e.views = nil, nil
	e.tabp.Store(nil)
	e.viewsp.Store(nil)
	_ = runs
	res.States, res.Transitions = int(states), int(trans)
	res.OlderViews = int(e.older.Load())
	switch {
	case found != nil && e.c.focus > 0:
		// A modular machine's hazard: the check runs the whole search
		// (modular.go), so no counterexample is made here.
		res.Verdict = Unsafe
		return res, nil
	case found != nil:
		return e.unsafe(res, found, foundBound)
	case e.reason() != "":
		res.Verdict = Incomplete
	default:
		res.Verdict = Safe
		res.Space.Exhaustive = opts.Shard.Whole()
	}
	res.Space.Description = describe(res)
	return res, nil
}

// unsafe minimizes a counterexample found at bound and fills in res. The
// counts are those of the bounds searched to the end (the bound in which
// the hazard was found was cut short where the first worker met one, a
// point that depends on timing).
func (e *engine) unsafe(res *Result, found []int32, bound int) (*Result, error) {
	return e.unsafeWithin(res, found, bound, 0)
}

// unsafeWithin is unsafe with the minimization cut after budget states
// (0: none).
func (e *engine) unsafeWithin(res *Result, found []int32, bound, budget int) (*Result, error) {
	opts := e.opts
	res.FoundSteps = len(found)
	if opts.Reduction != ReduceNone && e.reason() == "" {
		m, err := e.c.machine(false, !opts.Reduction.por())
		if err != nil {
			return nil, err
		}
		w := e.newWorker(bound)
		w.minLeft = budget
		e.minim.Store(true)
		found = w.minimize(m, found)
		e.minim.Store(false)
	}
	return e.unsafeAt(res, found, bound)
}

// unsafeAt fills in res for the counterexample path found within bound.
// Option numbers do not depend on the bound (preemptions are listed
// last), so the path replays unchanged within the requested bound.
func (e *engine) unsafeAt(res *Result, found []int32, bound int) (*Result, error) {
	opts := e.opts
	res.Verdict = Unsafe
	res.Schedule = fromPath(found).String()
	run, err := e.c.replay(fromPath(found), opts.bound(), true, !opts.Reduction.por())
	if err != nil {
		return nil, fmt.Errorf("internal error: counterexample does not replay: %v", err)
	}
	res.Replay = run
	res.Hazards = run.Hazards
	if len(run.Hazards) > 0 {
		h := run.Hazards[0]
		res.Hazard = &h
	}
	res.Preemptions, res.Steps = run.Preemptions, run.Steps
	res.Space.Description = describe(res)
	return res, nil
}

// frontier splits the space of bound b into subtrees: it expands the
// branching points level by level, in option order, until there are at
// least frontierTarget open subtrees or frontierLevels levels are
// expanded. Expansion in place keeps the items in depth-first
// (lexicographic) order. The states it expands are claimed in the shared
// visited set like any other, and its work is counted.
func (e *engine) frontier(b int) ([]item, error) {
	fs, err := e.slot(b)
	if err != nil {
		return nil, err
	}
	defer e.release(fs)
	w := fs.w
	w.unbudgeted = true
	defer func() { w.unbudgeted = false }()
	defer w.flush()
	// Each open item carries its machine (the state its path leads to):
	// the split never replays a path, which for a real function's long
	// thread-local stretches costs as much as the search itself. The
	// machines are recycled (fs.free): an expanded state's last child
	// takes it over, a closed item's goes back, and so do the open ones'
	// at the end, for the next bound.
	spare := func() *sched.Machine {
		if n := len(fs.free); n > 0 {
			m := fs.free[n-1]
			fs.free = fs.free[:n-1]
			return m
		}
		return &sched.Machine{}
	}
	root := spare()
	root.CopyFrom(fs.root)
	open := []item{{m: root}}
	for level := 0; level < frontierLevels; level++ {
		var next []item
		expanded := false
		for k, it := range open {
			if it.hazard || len(next)+len(open)-k >= frontierTarget {
				next = append(next, it)
				continue
			}
			m := it.m
			w.path = append(w.path[:0], it.path...)
			opts, out := w.advance(m, 0, noLimit)
			switch {
			case out == atHazard:
				next = append(next, item{path: append([]int32(nil), w.path...), hazard: true})
				fs.free = append(fs.free, m)
			case out != atBranch, w.seen(m):
				fs.free = append(fs.free, m)
			default:
				// Every option of a frontier state is taken (the state
				// is claimed sleeping on nothing); its children sleep as
				// in the search.
				w.pending[0]++
				expanded = true
				w.prepare(m, 0, opts)
				for o := range opts {
					// The sleep set first: it reads m, which the last
					// child takes over.
					sleep := w.childSleepInto(nil, 0, o)
					child := m
					if o < len(opts)-1 {
						child = spare()
						child.CopyFrom(m)
					}
					child.Apply(opts[o])
					w.pending[1]++
					// A child that is a hazard right away is marked now,
					// so that an item's search starts from a hazard-free
					// state.
					next = append(next, item{path: append(append([]int32(nil), w.path...), int32(o)), hazard: len(child.Hazards()) > 0, m: child, sleep: sleep})
				}
			}
		}
		open = next
		if !expanded || len(open) >= frontierTarget {
			break
		}
	}
	for k := range open {
		switch {
		case open[k].hazard && open[k].m != nil:
			fs.free = append(fs.free, open[k].m)
			open[k].m = nil
		case open[k].m != nil:
			open[k].from = fs
		}
	}
	return open, nil
}

// recycle returns the machines of items to their lineages' spares (no
// worker holds a slot).
func recycle(items []item) {
	for k := range items {
		if it := &items[k]; it.m != nil {
			it.from.free = append(it.from.free, it.m)
			it.m = nil
		}
	}
}

// slot returns a worker for bound b with the initial state of its own
// machine lineage, kept from bound to bound (release returns it).
func (e *engine) slot(b int) (*xslot, error) {
	e.slotMu.Lock()
	if n := len(e.slots); n > 0 {
		s := e.slots[n-1]
		e.slots = e.slots[:n-1]
		e.slotMu.Unlock()
		s.w.bound = b
		return s, nil
	}
	e.slotMu.Unlock()
	root, err := e.c.machine(false, !e.opts.Reduction.por())
	if err != nil {
		return nil, err
	}
	return &xslot{root: root, w: e.newWorker(b)}, nil
}

func (e *engine) release(s *xslot) {
	s.w.hit, s.w.share, s.w.found, s.w.halt = nil, nil, nil, false
	e.slotMu.Lock()
	e.slots = append(e.slots, s)
	e.slotMu.Unlock()
}

// searchItems explores items[i] for every i in mine on the workers,
// which balance the load by splitting their subtrees (share.go). It
// returns the path of a hazard if one was found (which one depends on
// timing; minimization makes it canonical), and how many items were
// searched to the end.
func (e *engine) searchItems(b int, items []item, mine []int) ([]int32, int, error) {
	var found atomic.Pointer[[]int32]
	var errOnce sync.Once
	var firstErr error
	var ndone atomic.Int64
	// More workers than subtrees help (they split them), but not more
	// than the CPUs then: each costs a machine lineage.
	n := min(e.workers(), max(len(mine), runtime.GOMAXPROCS(0)))
	if len(mine) == 0 {
		n = 0
	}
	p := newPool(items, mine, n, e.opts.splitAlways, func() bool { return e.reason() != "" || found.Load() != nil })
	var wg sync.WaitGroup
	for g := 0; g < n; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Each goroutine has its own machine lineage (clones share
			// their decode caches), kept from bound to bound.
			sl, err := e.slot(b)
			if err != nil {
				errOnce.Do(func() { firstErr = err })
				p.halt()
				return
			}
			defer e.release(sl)
			w := sl.w
			w.hit = &found
			if n > 1 {
				w.share = p
			}
			defer w.flush()
			for {
				pc, ok := p.take()
				if !ok {
					return
				}
				w.origin = pc.origin
				f, done := w.searchItem(sl, pc.it)
				if f != nil {
					found.CompareAndSwap(nil, &f)
					p.halt()
					return
				}
				if done && p.finished(pc.origin) {
					ndone.Add(1)
					e.done.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	recycle(items)
	if firstErr != nil {
		return nil, 0, firstErr
	}
	if p := found.Load(); p != nil {
		return *p, int(ndone.Load()), nil
	}
	return nil, int(ndone.Load()), nil
}
