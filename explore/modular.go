package explore

import (
	"fmt"
	"strings"
	"time"

	"github.com/mcountsim/mcountsim/sched"
)

// Modular selects the thread-modular check (Options.Modular).
//
// The thread-modular check searches, for each worker f in turn, the
// machine in which f alone runs the workload and every other worker is a
// stand-in that loops on schedule() (sched/modular.go argues it): when
// every such machine is exhausted within the bound without a hazard, the
// check is SAFE, for the same space (bound, CPUs, tasks, preemption
// model). When the workers are alike, worker 0's machine stands for every
// worker's unless its search meets an odd state (sched/modular.go:
// Mirror). Its states grow with one worker's passes through the sites
// times the patcher's positions, not with the product of every worker's
// passes, which is what a function calling a traced function in a loop
// costs the whole search. Where the workers store outside their stacks,
// to shared data cells, the check runs in rounds (sched/modular.go,
// "Shared data cells"): in each, a worker's load of a cell reads, by the
// search's choice, any value of the cell's value set (its initial value,
// the reference run's stores, and what the rounds before collected), and
// every value a machine stores outside its cell's set is collected; a
// round that collects nothing and is exhausted without a hazard is SAFE,
// and one that collects something starts the next, up to envRounds,
// after which the whole search decides. What the value sets cannot vouch
// for (accesses of mixed sizes, a read-modify-write or exclusive access
// of a cell, a stored pointer into a stack) ends that machine's run with
// a fault. Any other outcome but SAFE (a hazard,
// which a stand-in's extra freedom may have made, the premise broken, a
// run the reference run's reductions cannot vouch for) runs the check's
// own machine with what is left of the budget (after a hazard, random
// runs first: hunt; then the whole search; a few random runs come before
// the modular check too), so every UNSAFE verdict comes
// from the check's own machine, with its counterexample; a budget that
// runs out inside the modular searches makes the check INCOMPLETE.
type Modular uint8

const (
	// ModularAuto: on for a workload linked from an object
	// (Scenario.Image), off for the built-in texts.
	ModularAuto Modular = iota
	// ModularOn: on wherever it applies (two or more workers, no tracer
	// kernel, the whole exhaustive search with a reduction).
	ModularOn
	// ModularOff: the whole search only.
	ModularOff
)

var modularNames = [...]string{"auto", "on", "off"}

func (m Modular) String() string {
	if int(m) < len(modularNames) {
		return modularNames[m]
	}
	return fmt.Sprintf("Modular(%d)", m)
}

// ParseModular returns the Modular named s.
func ParseModular(s string) (Modular, error) {
	for i, n := range modularNames {
		if n == s {
			return Modular(i), nil
		}
	}
	return 0, fmt.Errorf("unknown modular mode %q (want auto, on or off)", s)
}

// modularReduction is what a SAFE modular check's Space.Reduction says
// before the reduction of each machine's search.
const modularReduction = "thread-modular (each worker searched against the patcher, the other workers stand-ins that loop on schedule(); no worker stored outside its stack but to stable data bytes) + "

// modularMirrored is modularReduction when worker 0's machine stood for
// every worker's (the workers alike, no state odd: sched/modular.go).
const modularMirrored = "thread-modular (worker 0 searched against the patcher, the other workers stand-ins that loop on schedule(), its machine the mirror image of every other worker's; no worker stored outside its stack but to stable data bytes) + "

// modular reports whether the exhaustive search e starts with the
// thread-modular check.
func (e *engine) modular() bool {
	sc, o := e.sc, e.opts
	switch {
	case o.Modular == ModularOff, o.Modular == ModularAuto && sc.Image == nil:
		return false
	}
	return sc.Tasks > 1 && sc.Tracer == nil && o.Shard.Whole() && o.Exchange == "" && o.Reduction != ReduceNone && e.c.focus == 0
}

// firstBound is the bound e's exhaustive search starts at: 0, searching
// the bounds in increasing order so that the first counterexample has the
// fewest preemptions, but the bound itself for a modular machine. Its
// search is there to prove the check SAFE, which only the last bound
// does: a hazard it meets is not the verdict (the check's own machine is
// searched then, bound by bound), so the bounds below would only repeat,
// at a third or more of the cost (x86 text-poke-bp on corpus2's
// d_bsearch at x86-O1: 510,544 of 1,426,719 states), the last bound's
// runs with fewer preemptions. So a modular search that runs out of its
// budget claims no bound below.
func (e *engine) firstBound() int {
	if e.c.focus > 0 {
		return e.opts.bound()
	}
	return 0
}

// modularOrWhole is the exhaustive search: the thread-modular check first
// where it applies, then, unless that was SAFE or used up the budget, the
// whole search.
func (e *engine) modularOrWhole() (*Result, error) {
	if !e.modular() {
		return e.whole()
	}
	// A few random runs of the check's own machine first: where the
	// strategy is unsafe they usually meet a hazard at once, which the
	// modular search, bound by bound, may reach only after seconds.
	if res, err := e.hunt(0, preHuntRuns, "before the thread-modular check, "); err != nil || res != nil {
		return res, err
	}
	res, hazard, err := e.modularCheck()
	if err != nil || res != nil {
		return res, err
	}
	if hazard {
		if res, err := e.hunt(preHuntRuns, huntRuns, "the thread-modular check met a hazard; "); err != nil || res != nil {
			return res, err
		}
	}
	return e.whole()
}

// unaidedReduction begins the reduction text of a search made again with
// the reductions that rest on the reference run off (whole).
const unaidedReduction = "without the reductions that rest on the reference run (searched again: %s) + "

// AsSearched returns sc as the search of res had it: with the reductions
// that rest on the reference run off when a run broke their premise
// (Space.NoReferenceReductions), which its schedule's replay needs.
func AsSearched(sc Scenario, res *Result) Scenario {
	if res != nil && res.Space.NoReferenceReductions {
		sc.NoQuiet, sc.NoStable = true, true
	}
	return sc
}

// whole is the whole exhaustive search. When a run of it broke a premise
// of the reductions that rest on the reference run (quiet data pages,
// text no worker reached, stable data bytes: sched.Machine.PremiseBroken),
// which makes it INCOMPLETE, the search is made again with them off
// (Scenario.NoQuiet, NoStable), with what is left of the budget; the
// result's Space.NoReferenceReductions says so, and its counterexample
// replays with them off.
func (e *engine) whole() (*Result, error) {
	res, err := e.exhaustive()
	sc := &e.c.sc
	if err != nil || res.Verdict != Incomplete || !e.premise.Load() || e.budgetGone(e) ||
		sc.NoQuiet && sc.NoStable || !e.opts.Shard.Whole() || e.xch != nil {
		return res, err
	}
	why := e.reason()                    // the run's own words (sched.Machine.BudgetText)
	sc.NoQuiet, sc.NoStable = true, true // the compiled scenario: replays follow
	me := newEngine(e.c, e.opts, e.start)
	r, err := me.exhaustive()
	me.close()
	if err != nil {
		return nil, err
	}
	r.States += res.States
	r.OlderViews += res.OlderViews
	r.Transitions += res.Transitions
	r.Runs += res.Runs
	r.Subtrees += res.Subtrees
	r.Space.NoReferenceReductions = true
	r.Space.Reduction = fmt.Sprintf(unaidedReduction, why) + r.Space.Reduction
	r.Space.Description = describe(r)
	return r, nil
}

// preHuntRuns random runs of the check's machine come before the modular
// check, and runs preHuntRuns..huntRuns-1 after a modular machine met a
// hazard; huntSalt separates their seeds from a random search's.
const (
	preHuntRuns = 16
	huntRuns    = 256
	huntSalt    = 0x6d6f64756c6172
	// huntMinStates bounds the minimization of a hunted counterexample:
	// a random run's thousands of steps leave the canonical one's branch
	// and bound (every shorter run) far too much to search.
	huntMinStates = 50_000
)

// hunt looks for a hazard of the check's own machine with random runs
// from to to-1 (why says when: before the modular check, or after a
// modular machine met one): when a hazard is there, such runs reach it in
// few tries where the whole search would first exhaust the lower bounds,
// whose states grow with the product of the workers' passes. A run that
// reaches one is minimized and replayed like any counterexample
// (engine.unsafe); the lower bounds are not searched, so the result does
// not claim the fewest preemptions. Nil when no run reached a hazard: the
// search goes on.
func (e *engine) hunt(from, to int, why string) (*Result, error) {
	opts := e.opts
	root, err := e.c.machine(false, !opts.Reduction.por())
	if err != nil {
		return nil, err
	}
	s := &sampler{root: root, m: &sched.Machine{}, bound: opts.bound()}
	for i := from; i < to && e.reason() == ""; i++ {
		hit := s.run(opts.Seed^huntSalt, uint64(i))
		e.trans.Add(int64(s.m.Steps()))
		if !hit {
			continue
		}
		res := &Result{Mode: "check", Space: space(e.sc, opts), Runs: i + 1 - from, Transitions: int(e.trans.Load())}
		res.Space.Found = fmt.Sprintf("%srandom run %d of the check's own machine (%d steps in all) reached this one, then shortened (%d states at most); the bounds below its preemptions were not searched", why, i+1, e.trans.Load(), huntMinStates)
		return e.unsafeWithin(res, append([]int32(nil), s.path...), opts.bound(), huntMinStates)
	}
	return nil, nil
}

// envRounds caps the rounds of the value sets' fixpoint: a round that
// collects a value its set lacked runs the modular check again with the
// larger sets, up to this many rounds; then the whole search decides (a
// counter in shared data grows its set every round).
const envRounds = 4

// modularCheck runs the rounds of the thread-modular check
// (sched/modular.go, "Shared data cells"): each round searches every
// worker's modular machine in turn (modularRound) with the value sets of
// the shared data cells, the first seeded with the data stores of the
// reference run; a round whose searches are exhausted without a hazard and
// collected no value outside the sets is SAFE. It returns the SAFE result,
// the INCOMPLETE one of a budget used up, or nil when the whole search
// must decide (hazard: a modular machine met one).
func (e *engine) modularCheck() (res *Result, hazard bool, err error) {
	env := sched.NewEnvCells()
	if e.c.ref != nil {
		for _, t := range e.c.ref.Tasks {
			for _, s := range t.Stores {
				env.Seed(s.Addr, int(s.Size), s.Value)
			}
		}
	}
	if env.Check() != nil {
		return nil, false, nil // mixed sizes: the whole search
	}
	var total Result
	for round := 1; ; round++ {
		res, hazard, err = e.modularRound(env, &total, round)
		if err != nil || res == nil || res.Verdict != Safe || !env.Grew() {
			return res, hazard, err
		}
		if round == envRounds {
			return nil, false, nil
		}
		if env, err = env.Next(); err != nil {
			return nil, false, nil // mixed sizes: the whole search
		}
	}
}

// modularRound searches every worker's modular machine in turn, with the
// value sets env, adding its counts to those of the rounds before in
// total. It returns the result, SAFE when every machine was exhausted
// without a hazard (the round decides only if env did not grow), the
// INCOMPLETE one of a budget used up, or nil when the whole search must
// decide (hazard: a modular machine met one).
func (e *engine) modularRound(env *sched.EnvCells, total *Result, round int) (res *Result, hazard bool, err error) {
	sc, opts := e.sc, e.opts
	res = total
	res.Mode, res.Space = "check", space(sc, opts)
	var mirror sched.Mirror
	mirrored := false
	for f := 0; f < sc.Tasks; f++ {
		if f > 0 && mirror.Holds() {
			// Worker 0's machine stood for this one (sched/modular.go).
			mirrored = true
			continue
		}
		mc := *e.c
		mc.focus = f + 1
		mc.env = env
		if f == 0 {
			mc.mirror = &mirror
		}
		me := newEngine(&mc, opts, e.start)
		r, err := me.exhaustive()
		me.close()
		if err != nil {
			return nil, false, err
		}
		res.States += r.States
		res.OlderViews += r.OlderViews
		res.Transitions += r.Transitions
		res.Runs += r.Runs
		res.Subtrees += r.Subtrees
		res.Space.Frontier = r.Space.Frontier
		if r.TableBytes > res.TableBytes {
			res.TableBytes, res.TableStates = r.TableBytes, r.TableStates
		}
		if r.Verdict == Safe {
			continue
		}
		if r.Verdict == Incomplete && e.budgetGone(me) {
			if f == 0 && mirror.Holds() {
				mirrored = true // as far as it went
			}
			res.Verdict = Incomplete
			res.Space.Reduction = modularText(mirrored, env, round) + reductionText(opts, false)
			res.Space.BoundsDone = r.Space.BoundsDone
			res.Space.Coverage = fmt.Sprintf("thread-modular check of worker %d of %d: %s", f, sc.Tasks, r.Space.Coverage)
			if env.Cells() > 0 || round > 1 {
				res.Space.Coverage += fmt.Sprintf(" (round %d of the value sets)", round)
			}
			res.Reason = fmt.Sprintf("%s: %s", me.reason(), res.Space.Coverage)
			res.Space.Description = describe(res)
			return res, false, nil
		}
		return nil, r.Verdict == Unsafe, nil
	}
	res.Verdict = Safe
	res.Space.Exhaustive = true
	res.Space.BoundsDone = opts.bound() + 1
	res.Space.Reduction = modularText(mirrored, env, round) + reductionText(opts, false)
	res.Space.Modular = true
	res.Space.Description = describe(res)
	return res, false, nil
}

// modularText is what a modular check's Space.Reduction says before the
// reduction of each machine's search: modularReduction or
// modularMirrored, the clause on the stores outside the stacks saying,
// where the workers share data cells, how many, with how many values in
// their sets, and after how many rounds.
func modularText(mirrored bool, env *sched.EnvCells, round int) string {
	s := modularReduction
	if mirrored {
		s = modularMirrored
	}
	if env.Cells() == 0 && round == 1 {
		return s
	}
	cells := fmt.Sprintf("no worker stored outside its stack but to stable data bytes and to %d shared data cell(s), whose loads read any value of the cells' value sets (%d values), which hold every value any worker stored there; %d round(s)", env.Cells(), env.Values(), round)
	return strings.Replace(s, "no worker stored outside its stack but to stable data bytes", cells, 1)
}

// budgetGone reports whether the modular search me stopped because the
// check's budget ran out (time, cancellation, states, memory), rather than
// for a reason of its machine (a run out of steps or one the reference
// cannot vouch for), after which the whole search still has its chance.
func (e *engine) budgetGone(me *engine) bool {
	o := e.opts
	switch {
	case o.Context != nil && o.Context.Err() != nil,
		o.Timeout > 0 && time.Since(e.clock()) >= o.Timeout,
		me.statesOver.Load(),
		me.memoryOver.Load():
		return true
	}
	return false
}

// stableNote adds to the reduction text of an exhaustive search that the
// machines took loads and stores of stable data bytes as thread-local
// steps (sched/stable.go), and of how many.
func (c *compiled) stableNote(res *Result, opts Options) error {
	if opts.Search != Exhaustive || c.sc.NoStable || !opts.Reduction.por() {
		return nil
	}
	m, err := c.machine(false, false)
	if err != nil {
		return err
	}
	if n := m.StableBytes(); n > 0 {
		res.Space.Reduction += fmt.Sprintf(" + thread-local loads and stores of %d stable data bytes (each stored with one value only)", n)
	}
	return nil
}
