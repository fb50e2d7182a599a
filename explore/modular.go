package explore

import (
	"fmt"
	"time"
)

// Modular selects the thread-modular check (Options.Modular).
//
// The thread-modular check searches, for each worker f in turn, the
// machine in which f alone runs the workload and every other worker is a
// stand-in that loops on schedule() (sched/modular.go argues it): when
// every such machine is exhausted within the bound without a hazard, the
// check is SAFE, for the same space (bound, CPUs, tasks, preemption
// model). Its states grow with one worker's passes through the sites
// times the patcher's positions, not with the product of every worker's
// passes, which is what a function calling a traced function in a loop
// costs the whole search. Its premise, that no worker stores outside its
// own stack, is checked in the same search: a store outside a stack ends
// that machine's run with a fault. Any other outcome but SAFE (a hazard,
// which a stand-in's extra freedom may have made, the premise broken, a
// run the reference run's reductions cannot vouch for) runs the whole
// search with what is left of the budget, so every UNSAFE verdict comes
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
const modularReduction = "thread-modular (each worker searched against the patcher, the other workers stand-ins that loop on schedule(); no worker stored outside its stack) + "

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

// modularOrWhole is the exhaustive search: the thread-modular check first
// where it applies, then, unless that was SAFE or used up the budget, the
// whole search.
func (e *engine) modularOrWhole() (*Result, error) {
	if !e.modular() {
		return e.exhaustive()
	}
	res, err := e.modularCheck()
	if err != nil || res != nil {
		return res, err
	}
	return e.exhaustive()
}

// modularCheck searches every worker's modular machine in turn. It
// returns the SAFE result, the INCOMPLETE one of a budget used up, or nil
// when the whole search must decide.
func (e *engine) modularCheck() (*Result, error) {
	sc, opts := e.sc, e.opts
	res := &Result{Mode: "check", Space: space(sc, opts)}
	for f := 0; f < sc.Tasks; f++ {
		mc := *e.c
		mc.focus = f + 1
		me := newEngine(&mc, opts, e.start)
		r, err := me.exhaustive()
		me.close()
		if err != nil {
			return nil, err
		}
		res.States += r.States
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
			res.Verdict = Incomplete
			res.Space.Reduction = modularReduction + reductionText(opts, false)
			res.Space.BoundsDone = r.Space.BoundsDone
			res.Space.Coverage = fmt.Sprintf("thread-modular check of worker %d of %d: %s", f, sc.Tasks, r.Space.Coverage)
			res.Reason = fmt.Sprintf("%s: %s", me.reason(), res.Space.Coverage)
			res.Space.Description = describe(res)
			return res, nil
		}
		return nil, nil
	}
	res.Verdict = Safe
	res.Space.Exhaustive = true
	res.Space.BoundsDone = opts.bound() + 1
	res.Space.Reduction = modularReduction + reductionText(opts, false)
	res.Space.Modular = true
	res.Space.Description = describe(res)
	return res, nil
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
