package explore

import (
	"fmt"
	"runtime"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"time"
)

// engine is the state shared by the workers of one check: budgets, the
// stop flag, the progress counters.
type engine struct {
	c     *compiled
	sc    Scenario
	opts  Options
	start time.Time
	// por: the sleep sets apply (sleep.go).
	por bool

	stopped atomic.Pointer[string] // why the search stopped early
	states  atomic.Int64
	trans   atomic.Int64
	runs    atomic.Int64
	older   atomic.Int64 // states pruned by older views (views.go), every bound
	done    atomic.Int64 // frontier subtrees (or sampled runs) finished
	total   atomic.Int64
	bound   atomic.Int64
	minim   atomic.Bool
	tab     *shared                // the visited set of the bound being searched, or nil
	views   *views                 // its index of older views (views.go), standing for tab, or nil
	xch     *exchange              // the exchanged split (Options.Exchange), or nil
	tabp    atomic.Pointer[shared] // tab, for the progress reports
	viewsp  atomic.Pointer[views]  // views, for the progress reports
	s0      atomic.Int64           // states before the bound being searched
	xout    *outbox                // what the workers send this round
	sent    *shared                // the states sent to other shards this bound

	// slots: the workers and their machine lineages, kept from bound to
	// bound (engine.slot).
	slotMu sync.Mutex
	slots  []*xslot

	endMu sync.Mutex
	ends  map[[2]uint64]struct{} // end states of finished runs, this bound

	quit chan struct{}
	wg   sync.WaitGroup

	// statesOver: the search stopped because it claimed more than
	// MaxStates states (see overStates).
	statesOver atomic.Bool
	// memoryOver: it stopped because the heap outgrew MaxMemory.
	memoryOver atomic.Bool
	// premise: it stopped because a run broke a premise of the reductions
	// that rest on the reference run (sched.Machine.PremiseBroken).
	premise atomic.Bool
}

func newEngine(c *compiled, opts Options, start time.Time) *engine {
	e := &engine{c: c, sc: c.sc, opts: opts, start: start, quit: make(chan struct{}), por: opts.sleepSets()}
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
	clock := e.clock()
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
			if e.opts.Timeout > 0 && now.Sub(clock) >= e.opts.Timeout {
				e.stop(fmt.Sprintf("timeout of %v reached", e.opts.Timeout))
			}
			if e.opts.MaxMemory > 0 {
				metrics.Read(sample)
				if used := int64(sample[0].Value.Uint64()); used > e.opts.MaxMemory {
					e.memoryOver.Store(true)
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

// clock is when the Timeout's clock started: Options.Start, or the search's start.
func (e *engine) clock() time.Time {
	if !e.opts.Start.IsZero() {
		return e.opts.Start
	}
	return e.start
}

func mib(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }

func (e *engine) progress() Progress {
	var tb, ts int64
	if tab, v := e.tabp.Load(), e.viewsp.Load(); tab != nil || v != nil {
		tb, ts = e.setBytesOf(tab, v), e.states.Load()-e.s0.Load()
	}
	return Progress{TableBytes: tb, TableStates: ts, Elapsed: time.Since(e.start), States: e.states.Load(), Transitions: e.trans.Load(), Runs: e.runs.Load(),
		Bound: int(e.bound.Load()), Done: int(e.done.Load()), Total: int(e.total.Load()), Minimizing: e.minim.Load()}
}

// setBytes is the memory of the bound's visited set: its table, or the
// index of older views that stands for it.
func (e *engine) setBytes() int64 { return e.setBytesOf(e.tab, e.views) }

func (e *engine) setBytesOf(tab *shared, v *views) int64 {
	if v != nil {
		return v.bytes()
	}
	return tab.bytes()
}

// report sends the final progress line.
func (e *engine) report() {
	if e.opts.Progress != nil {
		e.opts.Progress(e.progress())
	}
}
