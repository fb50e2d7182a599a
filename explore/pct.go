package explore

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"sync/atomic"

	"github.com/mcountsim/mcountsim/sched"
)

// Default sizes of the sampling searches.
const (
	DefaultRuns  = 1000
	DefaultDepth = 3
)

// sample runs the PCT or random search: opts.Runs independent runs, run i
// driven by a generator seeded with (opts.Seed, i), spread over the
// workers. The counterexample is that of the lowest-numbered run that
// reaches a hazard, so neither it nor the counts depend on the number of
// workers. A search that finds nothing is INCOMPLETE, never SAFE.
func (e *engine) sample() (*Result, error) {
	sc, opts := e.sc, e.opts
	res := &Result{Mode: "check", Space: space(sc, opts)}
	root, err := e.c.machine(false, !opts.Reduction.por())
	if err != nil {
		return nil, err
	}
	// PCT's k must bound the length of every run: the theorem draws the
	// d-1 change points from 1..k. It is the longest of the default run
	// (every choice 0) and of pctPilot uniformly random runs; after the
	// sampling, a run longer than k voids the guarantee and the result
	// says so (pctHolds).
	k := 0
	if opts.Search == PCT {
		m := root.Clone()
		if err := drive(m, opts.bound(), defaultRun{}, nil); err != nil {
			return nil, err
		}
		k = m.Steps()
		pilot := &sampler{root: root, m: &sched.Machine{}, bound: opts.bound()}
		for i := uint64(0); i < pctPilot; i++ {
			pilot.run(opts.Seed^pctPilotSalt, i)
			k = max(k, pilot.m.Steps())
		}
	}
	nTasks := sc.Tasks + 1 // the workers and the patcher
	steps := make([]int32, opts.Runs)
	paths := make([][]int32, opts.Runs)
	var first atomic.Int64
	first.Store(int64(opts.Runs))
	var next atomic.Int64
	e.total.Store(int64(opts.Runs))
	n := e.workers()
	if n > opts.Runs {
		n = opts.Runs
	}
	var wg sync.WaitGroup
	var errOnce sync.Once
	var firstErr error
	for g := 0; g < n; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := e.c.machine(false, !opts.Reduction.por())
			if err != nil {
				errOnce.Do(func() { firstErr = err })
				return
			}
			s := &sampler{root: r, m: &sched.Machine{}, bound: opts.bound(), depth: opts.Depth, k: k, n: nTasks, pct: opts.Search == PCT}
			for {
				i := next.Add(1) - 1
				if i >= int64(opts.Runs) || e.reason() != "" || i > first.Load() {
					return
				}
				hit := s.run(opts.Seed, uint64(i))
				if s.outOfSteps && !hit {
					e.stop(s.m.BudgetText())
				}
				steps[i] = int32(s.m.Steps())
				e.trans.Add(int64(s.m.Steps()))
				e.runs.Add(1)
				e.states.Add(1)
				e.done.Add(1)
				if opts.MaxStates > 0 && e.states.Load() >= int64(opts.MaxStates) {
					e.stop(fmt.Sprintf("run budget of %d used up (--max-states counts runs in a sampling search)", opts.MaxStates))
				}
				if hit {
					paths[i] = append([]int32(nil), s.path...)
					for {
						f := first.Load()
						if i >= f || first.CompareAndSwap(f, i) {
							break
						}
					}
				}
			}
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	f := int(first.Load())
	runs := opts.Runs
	if f < opts.Runs {
		runs = f + 1
	}
	var trans int64
	for i := 0; i < runs; i++ {
		trans += int64(steps[i])
	}
	res.States, res.Transitions, res.Runs = runs, int(trans), runs
	if opts.Search == PCT {
		res.PCT = pctBound(opts.Runs, opts.Depth, opts.Seed, nTasks, k)
		pctHolds(res.PCT, steps[:runs])
	}
	if f < opts.Runs {
		return e.shrink(res, paths[f])
	}
	res.Verdict = Incomplete
	if why := e.reason(); why != "" {
		done := e.done.Load()
		res.Space.Coverage = fmt.Sprintf("%d of %d runs", done, opts.Runs)
		res.Reason = why + ": " + res.Space.Coverage
		res.Runs = int(done)
	} else {
		res.Reason = fmt.Sprintf("no hazard in %d runs (a sampling search is never exhaustive)", opts.Runs)
	}
	res.Space.Description = describe(res)
	return res, nil
}

// pctPilot is the number of uniformly random runs whose longest, with the
// default run, is PCT's k; pctPilotSalt separates their seeds from the
// sampled runs'.
const (
	pctPilot     = 64
	pctPilotSalt = 0x9e3779b97f4a7c15
)

// pctHolds checks PCT's k against the sampled runs: k bounds them all, or
// the guarantee does not hold and the bound says so (probability 0).
func pctHolds(b *PCTBound, steps []int32) {
	longest := 0
	for _, n := range steps {
		longest = max(longest, int(n))
	}
	if longest <= b.K {
		b.Text += fmt.Sprintf(" (k bounds every run: the longest sampled run took %d steps)", longest)
		return
	}
	b.Probability, b.Miss = 0, 1
	b.Text = fmt.Sprintf("PCT: no guarantee: a sampled run took %d steps, more than the k = %d steps its change points were drawn from", longest, b.K)
}

// pctBound is PCT's guarantee (Burckhardt et al., ASPLOS 2010, Theorem 9):
// with n tasks and k steps, a run finds a given hazard of depth d with
// probability at least 1/(n·k^(d-1)).
func pctBound(runs, d int, seed uint64, n, k int) *PCTBound {
	p := 1 / (float64(n) * math.Pow(float64(k), float64(d-1)))
	miss := math.Pow(1-p, float64(runs))
	return &PCTBound{Runs: runs, Depth: d, Seed: seed, N: n, K: k, Probability: p, Miss: miss,
		Text: fmt.Sprintf("PCT: each run finds a depth-%d hazard with probability at least 1/(n·k^(d-1)) = 1/(%d·%d^%d) = %.3g (n = %d tasks, k = %d steps); %d runs miss it with probability at most %.3g",
			d, n, k, d-1, p, n, k, runs, miss)}
}

// shrink turns the counterexample of a sampling search into the canonical
// one: the exhaustive search at each bound below its preemptions (fewest
// preemptions), then minimization (fewest steps). When a budget runs out
// the best so far stands.
func (e *engine) shrink(res *Result, path []int32) (*Result, error) {
	opts := e.opts
	m, err := e.c.machine(false, !opts.Reduction.por())
	if err != nil {
		return nil, err
	}
	if err := drive(m, opts.bound(), &pathRun{path: path}, nil); err != nil {
		return nil, err
	}
	pre := m.Preemptions()
	bound := pre
	for b := 0; b < pre && e.reason() == ""; b++ {
		e.bound.Store(int64(b))
		e.tab = newShared()
		items, err := e.frontier(b)
		if err != nil {
			return nil, err
		}
		all := make([]int, len(items))
		for i := range all {
			all[i] = i
		}
		f, _, err := e.searchItems(b, items, all)
		if err != nil {
			return nil, err
		}
		if f != nil {
			path, bound = f, b
			break
		}
	}
	e.tab = nil
	return e.unsafe(res, path, bound)
}

// sampler runs one sampled run at a time on its own machine.
type sampler struct {
	firstHazard
	outOfSteps bool // a run used up its step budget
	root       *sched.Machine
	m          *sched.Machine
	bound      int
	rng        *rand.Rand
	buf        []sched.Action
	path       []int32
	pct        bool
	depth      int
	k, n       int
	prio       [sched.MaxTasks]int
	chg        []int
}

// run performs run i and reports whether it reached a hazard (the choices
// are in s.path).
func (s *sampler) run(seed, i uint64) bool {
	rng := rand.New(rand.NewPCG(seed, i))
	m := s.m
	m.CopyFrom(s.root)
	s.path = s.path[:0]
	if s.pct {
		// Random distinct priorities d..d+n-1 for the tasks, and d-1
		// change points in 1..k that lower the running task to 1..d-1.
		perm := rng.Perm(s.n)
		for t := 0; t < s.n; t++ {
			s.prio[t] = s.depth + perm[t]
		}
		s.chg = s.chg[:0]
		for j := 1; j < s.depth; j++ {
			s.chg = append(s.chg, 1+rng.IntN(max(s.k, 1)))
		}
	}
	s.rng = rng
	if err := drive(m, s.bound, s, &s.path); err != nil {
		return false
	}
	// A run that broke a premise of the reference's reductions is only
	// not a sample (the machine ends it where it broke the premise).
	if m.OutOfSteps() && !m.PremiseBroken() {
		s.outOfSteps = true
	}
	return len(m.Hazards()) > 0
}

// choose is the sampler as a chooser: a uniform choice, or PCT's.
func (s *sampler) choose(m *sched.Machine, opts []sched.Action) (int, error) {
	s.buf = opts
	if !s.pct {
		if len(opts) > 1 {
			return s.rng.IntN(len(opts)), nil
		}
		return 0, nil
	}
	step := m.Steps() + 1
	o := s.best()
	for j, c := range s.chg {
		if c == step {
			// Change point j+1: the task about to run drops below every
			// initial priority.
			if t := s.taskOf(opts[o]); t >= 0 {
				s.prio[t] = s.depth - 1 - j
			}
			o = s.best()
		}
	}
	return o, nil
}

// taskOf is the task an action runs: the stopper acts for the patcher.
func (s *sampler) taskOf(a sched.Action) int {
	m := s.m
	p := m.Patcher()
	switch a.Kind {
	case sched.ActPick, sched.ActPreempt:
		if a.Task == sched.Stopper {
			return p
		}
		return int(a.Task)
	}
	cpu := m.CPU(int(a.CPU))
	if cpu.Stopper || cpu.Cur < 0 {
		return p
	}
	return int(cpu.Cur)
}

// best is the option PCT takes: the one that runs the task of highest
// priority (a preemption only for a task of higher priority than the one
// it preempts); the first such option on a tie.
func (s *sampler) best() int {
	bo, bp := 0, math.MinInt
	for i, a := range s.buf {
		t := s.taskOf(a)
		p := s.prio[t]
		if a.Kind == sched.ActPreempt {
			cur := s.m.CPU(int(a.CPU)).Cur
			if cur >= 0 && s.prio[cur] >= p {
				continue
			}
		}
		if p > bp {
			bo, bp = i, p
		}
	}
	return bo
}
