package explore

import (
	"fmt"
	"runtime"
	"runtime/metrics"
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
const frontierTarget = 256

// frontierLevels caps the depth (in branching points) of the split.
const frontierLevels = 64

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
		res, err = e.exhaustive()
	case PCT, Random:
		res, err = e.sample()
	default:
		return nil, fmt.Errorf("unknown search mode %v", opts.Search)
	}
	if err != nil {
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

// engine is the state shared by the workers of one check: budgets, the
// stop flag, the progress counters.
type engine struct {
	c     *compiled
	sc    Scenario
	opts  Options
	start time.Time

	stopped atomic.Pointer[string] // why the search stopped early
	states  atomic.Int64
	trans   atomic.Int64
	runs    atomic.Int64
	done    atomic.Int64 // frontier subtrees (or sampled runs) finished
	total   atomic.Int64
	bound   atomic.Int64
	minim   atomic.Bool
	tab     *shared                // the visited set of the bound being searched
	xch     *exchange              // the exchanged split (Options.Exchange), or nil
	tabp    atomic.Pointer[shared] // tab, for the progress reports
	s0      atomic.Int64           // states before the bound being searched
	xout    *outbox                // what the workers send this round
	sent    *shared                // the states sent to other shards this bound

	endMu sync.Mutex
	ends  map[[2]uint64]struct{} // end states of finished runs, this bound

	quit chan struct{}
	wg   sync.WaitGroup

	// statesOver: the search stopped because it claimed more than
	// MaxStates states (see overStates).
	statesOver atomic.Bool
}

func newEngine(c *compiled, opts Options, start time.Time) *engine {
	e := &engine{c: c, sc: c.sc, opts: opts, start: start, quit: make(chan struct{})}
	if opts.Timeout > 0 || opts.Context != nil || opts.MaxMemory > 0 || opts.Progress != nil {
		e.wg.Add(1)
		go e.monitor()
	}
	return e
}

func (e *engine) close() {
	close(e.quit)
	e.wg.Wait()
}

func (e *engine) stop(why string) { e.stopped.CompareAndSwap(nil, &why) }

// reason is why the search stopped, or "".
func (e *engine) reason() string {
	if p := e.stopped.Load(); p != nil {
		return *p
	}
	return ""
}

func (e *engine) workers() int {
	if e.opts.Workers > 0 {
		return e.opts.Workers
	}
	return runtime.GOMAXPROCS(0)
}

// monitor enforces the time and memory budgets and reports progress.
func (e *engine) monitor() {
	defer e.wg.Done()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	every := e.opts.ProgressEvery
	if every <= 0 {
		every = time.Second
	}
	next := e.start.Add(every)
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	var ctxDone <-chan struct{}
	if e.opts.Context != nil {
		ctxDone = e.opts.Context.Done()
	}
	for {
		select {
		case <-e.quit:
			return
		case <-ctxDone:
			e.stop("cancelled")
			ctxDone = nil
		case now := <-tick.C:
			if e.opts.Timeout > 0 && now.Sub(e.start) >= e.opts.Timeout {
				e.stop(fmt.Sprintf("timeout of %v reached", e.opts.Timeout))
			}
			if e.opts.MaxMemory > 0 {
				metrics.Read(sample)
				if used := int64(sample[0].Value.Uint64()); used > e.opts.MaxMemory {
					e.stop(fmt.Sprintf("memory budget of %s used up (heap %s)", mib(e.opts.MaxMemory), mib(used)))
				}
			}
			if e.opts.Progress != nil && now.After(next) {
				next = now.Add(every)
				e.opts.Progress(e.progress())
			}
		}
	}
}

func mib(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }

func (e *engine) progress() Progress {
	var tb, ts int64
	if tab := e.tabp.Load(); tab != nil {
		tb, ts = tab.bytes(), e.states.Load()-e.s0.Load()
	}
	return Progress{TableBytes: tb, TableStates: ts, Elapsed: time.Since(e.start), States: e.states.Load(), Transitions: e.trans.Load(), Runs: e.runs.Load(),
		Bound: int(e.bound.Load()), Done: int(e.done.Load()), Total: int(e.total.Load()), Minimizing: e.minim.Load()}
}

// report sends the final progress line.
func (e *engine) report() {
	if e.opts.Progress != nil {
		e.opts.Progress(e.progress())
	}
}

// item is one subtree of the frontier: the options that lead to it from
// the initial state. A hazard item ends at a hazard found while splitting.
type item struct {
	path   []int32
	hazard bool
}

// exhaustive runs iterative preemption bounding; each bound is split into
// a frontier of subtrees that the workers search with one shared visited
// set.
func (e *engine) exhaustive() (*Result, error) {
	sc, opts := e.sc, e.opts
	res := &Result{Mode: "check", Space: space(sc, opts)}
	var found []int32
	foundBound := -1
	var states, trans, runs int64
	for b := 0; b <= opts.bound(); b++ {
		e.bound.Store(int64(b))
		e.tab = newShared()
		e.ends = map[[2]uint64]struct{}{}
		s0, t0, r0 := e.states.Load(), e.trans.Load(), e.runs.Load()
		e.s0.Store(s0)
		e.tabp.Store(e.tab)
		if e.xch != nil {
			f, err := e.exchanged(b, e.xch, res)
			if err != nil {
				return nil, err
			}
			if f != nil {
				found, foundBound = f, b
				res.Space.BoundsDone = b
				break
			}
			if why := e.reason(); why != "" {
				res.Space.Coverage = fmt.Sprintf("exhaustive through bound %d", b-1)
				if b == 0 {
					res.Space.Coverage = "bound 0 not exhausted"
				}
				res.Reason = why + ": " + res.Space.Coverage
				if !e.xch.peerHazard {
					// (After another shard's hazard, the counts are
					// those of the bounds finished, as in an UNSAFE
					// result.)
					states, trans, runs = e.states.Load(), e.trans.Load(), e.runs.Load()
				}
				break
			}
			states += e.states.Load() - s0
			trans += e.trans.Load() - t0
			runs += e.runs.Load() - r0
			res.Space.BoundsDone = b + 1
			if tb := e.tab.bytes(); tb > res.TableBytes {
				res.TableBytes, res.TableStates = tb, int(e.states.Load()-s0)
			}
			res.Runs = len(e.ends)
			res.EndStates = res.EndStates[:0]
			for h := range e.ends {
				res.EndStates = append(res.EndStates, fmt.Sprintf("%016x%016x", h[0], h[1]))
			}
			sort.Strings(res.EndStates)
			continue
		}
		items, err := e.frontier(b)
		if err != nil {
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
		e.done.Store(0)
		e.total.Store(int64(len(mine)))
		res.Subtrees += len(mine)
		f, ndone, err := e.searchItems(b, items, mine)
		if err != nil {
			return nil, err
		}
		if f != nil {
			found, foundBound = f, b
			res.Space.BoundsDone = b
			break
		}
		if why := e.reason(); why != "" && e.statesOver.Load() {
			// The state budget: a bound needs more states than it allows
			// whichever worker claimed them, so the coverage names no
			// subtree count (which depends on timing).
			res.Space.Coverage = statesCoverage(b, opts.MaxStates)
			res.Reason = why + ": " + res.Space.Coverage
			states, trans, runs = e.states.Load(), e.trans.Load(), e.runs.Load()
			break
		} else if why != "" {
			pct := 0.0
			if len(mine) > 0 {
				pct = 100 * float64(ndone) / float64(len(mine))
			}
			cov := fmt.Sprintf("bound %d: %.0f%% of frontier (%d of %d subtrees)", b, pct, ndone, len(mine))
			if b > 0 {
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
		if e.overStates() {
			res.Space.Coverage = statesCoverage(b, opts.MaxStates)
			res.Reason = e.reason() + ": " + res.Space.Coverage
			states, trans, runs = e.states.Load(), e.trans.Load(), e.runs.Load()
			break
		}
		states += e.states.Load() - s0
		trans += e.trans.Load() - t0
		runs += e.runs.Load() - r0
		if tb := e.tab.bytes(); tb > res.TableBytes {
			res.TableBytes, res.TableStates = tb, int(e.states.Load()-s0)
		}
		res.Space.BoundsDone = b + 1
		// Every run within bound b is within bound b+1: the end states
		// of the largest finished bound are all of them.
		res.Runs = len(e.ends)
		if !opts.Shard.Whole() {
			res.EndStates = res.EndStates[:0]
			for h := range e.ends {
				res.EndStates = append(res.EndStates, fmt.Sprintf("%016x%016x", h[0], h[1]))
			}
			sort.Strings(res.EndStates)
		}
	}
	e.tab = nil
	e.tabp.Store(nil)
	_ = runs
	res.States, res.Transitions = int(states), int(trans)
	switch {
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
	opts := e.opts
	res.FoundSteps = len(found)
	if opts.Reduction != ReduceNone && e.reason() == "" {
		m, err := e.c.machine(false, !opts.Reduction.por())
		if err != nil {
			return nil, err
		}
		w := e.newWorker(bound)
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
// least frontierTarget open subtrees. Expansion in place keeps the items in
// depth-first (lexicographic) order. The states it expands are claimed in
// the shared visited set like any other, and its work is counted.
func (e *engine) frontier(b int) ([]item, error) {
	root, err := e.c.machine(false, !e.opts.Reduction.por())
	if err != nil {
		return nil, err
	}
	w := e.newWorker(b)
	w.unbudgeted = true
	defer w.flush()
	m := &sched.Machine{}
	open := []item{{}}
	for level := 0; level < frontierLevels; level++ {
		var next []item
		expanded := false
		for k, it := range open {
			if it.hazard || len(next)+len(open)-k >= frontierTarget {
				next = append(next, it)
				continue
			}
			m.CopyFrom(root)
			w.replayPath(m, it.path)
			w.path = append(w.path[:0], it.path...)
			opts, out := w.advance(m, 0, noLimit)
			switch {
			case out == atHazard:
				next = append(next, item{path: append([]int32(nil), w.path...), hazard: true})
			case out != atBranch:
			case w.seen(m):
			default:
				w.pending[0]++
				expanded = true
				for o := range opts {
					child := append(append([]int32(nil), w.path...), int32(o))
					w.pending[1]++
					next = append(next, item{path: child})
				}
			}
		}
		open = next
		if !expanded || len(open) >= frontierTarget {
			break
		}
	}
	// Children that are hazards right away are marked now, so that an
	// item's search starts from a hazard-free state.
	for k := range open {
		if open[k].hazard {
			continue
		}
		m.CopyFrom(root)
		w.replayPath(m, open[k].path)
		if len(m.Hazards()) > 0 {
			open[k].hazard = true
		}
	}
	return open, nil
}

// searchItems explores items[i] for every i in mine on the workers. It
// returns the path of a hazard if one was found (which one depends on
// timing; minimization makes it canonical), and how many items were
// searched to the end.
func (e *engine) searchItems(b int, items []item, mine []int) ([]int32, int, error) {
	var next atomic.Int64
	var found atomic.Pointer[[]int32]
	var errOnce sync.Once
	var firstErr error
	var ndone atomic.Int64
	n := e.workers()
	if n > len(mine) {
		n = len(mine)
	}
	var wg sync.WaitGroup
	for g := 0; g < n; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Each goroutine has its own machine lineage: clones share
			// their decode caches.
			root, err := e.c.machine(false, !e.opts.Reduction.por())
			if err != nil {
				errOnce.Do(func() { firstErr = err })
				return
			}
			w := e.newWorker(b)
			w.hit = &found
			defer w.flush()
			for {
				k := int(next.Add(1) - 1)
				if k >= len(mine) || e.reason() != "" || found.Load() != nil {
					return
				}
				f, done := w.searchItem(root, items[mine[k]])
				if f != nil {
					found.CompareAndSwap(nil, &f)
					return
				}
				if done {
					ndone.Add(1)
					e.done.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return nil, 0, firstErr
	}
	if p := found.Load(); p != nil {
		return *p, int(ndone.Load()), nil
	}
	return nil, int(ndone.Load()), nil
}

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

	pending [3]int64 // states, transitions, runs not yet published
	tick    int
}

func (e *engine) newWorker(bound int) *worker { return &worker{e: e, bound: bound} }

// flush publishes the worker's pending counters.
func (w *worker) flush() {
	w.e.states.Add(w.pending[0])
	w.e.trans.Add(w.pending[1])
	w.e.runs.Add(w.pending[2])
	w.pending = [3]int64{}
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

// replayPath applies a path of options to m.
func (w *worker) replayPath(m *sched.Machine, path []int32) {
	for _, o := range path {
		m.Apply(w.options(0, m)[o])
	}
}

// seen reports whether m's state, with its preemptions used, was already
// claimed by a search of this bound, and claims it otherwise.
func (w *worker) seen(m *sched.Machine) bool {
	if w.e.opts.Reduction == ReduceNone {
		return false
	}
	return !w.e.tab.claim(stateKey(m.Hash(), m.Preemptions()))
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
)

const noLimit = int(^uint(0) >> 1)

// advance is the one step the exhaustive search, its frontier and
// minimization share: it takes, in place, every step that offers no
// choice (thread-local runs through Machine.RunLocal, then single
// options), appending a 0 to w.path for each, until m reaches a branching
// point (the options are returned), the end of its run, a hazard, or
// limit steps in all.
func (w *worker) advance(m *sched.Machine, depth, limit int) ([]sched.Action, outcome) {
	for {
		if len(w.path) >= limit {
			return nil, atLimit
		}
		if w.found != nil || w.budget() {
			return nil, atHalt
		}
		// Thread-local steps first, without building option lists: each
		// is the only option there (Machine.RunLocal).
		if k := m.RunLocal(min(localChunk, limit-len(w.path))); k > 0 {
			if !w.minimizing {
				w.pending[1] += int64(k)
			}
			w.path = appendZeros(w.path, k)
			if len(m.Hazards()) > 0 {
				return nil, atHazard
			}
			continue
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

// searchItem explores the subtree of it from root. It returns the path of
// the first hazard it meets, and whether it searched the subtree to the end.
func (w *worker) searchItem(root *sched.Machine, it item) ([]int32, bool) {
	w.found = nil
	w.halt = false
	if it.hazard {
		return it.path, true
	}
	m := w.machine(0)
	m.CopyFrom(root)
	if w.e.xch != nil {
		w.replayFast(m, it.path)
	} else {
		w.replayPath(m, it.path)
	}
	w.path = append(w.path[:0], it.path...)
	w.dfs(m, 0)
	return w.found, !w.halt
}

// dfs explores every continuation of m (owned by this depth). It follows
// steps without a choice in place (advance) and branches where there is one.
func (w *worker) dfs(m *sched.Machine, depth int) {
	opts, out := w.advance(m, depth, noLimit)
	if out == atHazard {
		w.found = append([]int32(nil), w.path...)
	}
	if out != atBranch {
		return
	}
	// The visited set is consulted where the search branches: runs that
	// merge meet again at the next choice.
	if x := w.e.xch; x != nil {
		k := stateKey(m.Hash(), m.Preemptions())
		if o := owner(k, x.n); o != x.idx {
			// Another shard's state: sent to it once per bound.
			if w.e.sent.claim(k) {
				w.e.xout.add(o, [][]int32{append([]int32(nil), w.path...)})
			}
			return
		}
	}
	if w.seen(m) {
		return
	}
	w.pending[0]++
	mark := len(w.path)
	last := len(opts) - 1
	for i := range opts {
		// The last child takes over m itself: one copy fewer per
		// branching point.
		child := m
		if i < last {
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
		w.dfs(child, depth+1)
		if w.found != nil || w.halt {
			return
		}
	}
}

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
// order. The budgets apply; when one runs out the best so far stands.
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

// localChunk bounds the local steps taken between two budget checks.
const localChunk = 4096

func appendZeros(p []int32, k int) []int32 {
	for ; k > 0; k-- {
		p = append(p, 0)
	}
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
