package sched

import (
	"fmt"
	"sync/atomic"

	"github.com/mcountsim/mcountsim/kernel"
)

// Thread-modular checks (issue 21): one worker at a time against the
// patcher, the other workers replaced by stand-ins.
//
// Why. When a function calls a traced function in a loop, every pass of
// every worker through that site is a branching point while the patcher
// may still write it, and where each store falls among worker 1's passes
// and among worker 2's passes are independent choices: an exact search
// holds about (passes of worker 1) x (passes of worker 2) states per
// patcher position, and no partial-order reduction merges them (each
// fetch conflicts with the store). But when the workers cannot affect
// each other except through the scheduler, a hazard of worker f depends
// only on f, the patcher and the CPUs: the other workers' positions are
// irrelevant to it, and f can be checked alone, in a machine whose other
// workers do nothing but give the scheduler what any worker could.
//
// The modular machine of worker f (Config.Focus = f+1) is the machine of
// the check with one change: every worker but f is a stand-in. A stand-in
// starts at the schedule() hook of the text and stays there: each time it
// runs it fetches and executes that hook's instruction, a voluntary
// context switch, and resumes at the same address (for (;;) schedule();).
// It is never preempted (its voluntary switch, which it may make at any
// of its steps, does what a preemption would: below), it never exits,
// and it has no site, no store and no result. A run ends
// when f and the patcher have exited (checkDone). Nothing else differs:
// the CPUs, the run queue, the preemption bound, the patcher's program
// and its waits are those of the check.
//
// Premise: no worker stores outside its own stack (with Config.Env, the
// weaker premise of "Shared data cells" below). Then a worker's
// registers, stack, shadow stack and results depend only on its own steps,
// on text and the patcher's data (which the patcher alone writes), and on
// its CPU's view of text; each detector reads only the state of the task
// it watches (detect, the hazards of worker.go, fetch.go, integrity.go,
// results.go, scratch.go and badcall.go all name one task). The tracer
// kernel, whose per-CPU counters and thread_info stores every worker
// shares, has no modular machine (New refuses one).
//
// Claim: under the premise, every run R of the check's machine with a
// hazard of worker f within preemption bound b projects to a run of f's
// modular machine with the same hazard within bound b. The projection
// keeps every step of f, of the patcher and of the CPUs' stoppers, IPIs
// and views, and replaces each other worker w by its stand-in s:
//   - while w is on CPU c, s is on c (picked where w was picked); where w
//     leaves c, preempted, switching voluntarily or exiting, s executes
//     its hook, a voluntary switch, and c then picks what R's switch put
//     there (the task a preemption chose, or the stopper); after w's exit
//     s stays in the run queue and is never picked again, so a CPU that
//     idled in R idles here (not picking is always an option: another
//     CPU steps instead). The projection makes no preemption R does not
//     (those of w are gone), so it is within R's bound;
//   - a voluntary switch differs from a preemption in three ways, each of
//     which only adds runs: it counts no preemption; it is a quiescent
//     state of synchronize_rcu_tasks() for s (where w's preemption was
//     none), so a grace period may end earlier, which only makes the
//     patcher runnable earlier (being runnable forces nothing: the CPUs
//     may pick other tasks, s included, until R's patcher runs); and s
//     does not resume through an exception return, which would
//     synchronize c's view of text (a staler view only adds choices:
//     below). The same holds for the extra switches s makes when it is
//     picked where R's CPU idled or s stands for an exited w;
//   - w's instructions are dropped. They wrote only w's stack (the
//     premise), which no other task reads (a load from another task's
//     stack faults), and they changed no CPU state another task observes:
//     a synchronizing instruction or exception return of w only refreshes
//     c's view of text, and an exclusive monitor w armed on c is cleared
//     when w leaves c (monitor.go), before any other task runs there, and a staler view only adds choices (a CPU with a
//     stale view may still fetch the newest bytes: tickMatters);
//   - what w did to the scheduler and the patcher, s allows as well:
//     synchronize_sched() waits for a context switch on each CPU, which s's
//     switches and preemptions give where w's did (leave); a
//     synchronize_rcu_tasks() grace period that started while w lived waits
//     for its voluntary switch, which s makes where w made it (exit
//     included); after w's exit a grace period waits for s as well, which
//     s gives by being picked by a free CPU and switching (a CPU is free
//     there: the patcher's, which blocked; the steps taken do not touch f
//     or the patcher); w inside the int3 handler delays text_poke_bp's
//     bp_off, takes no IPI and cannot be preempted, while s never is in
//     the handler: the modular machine only has the more freedom. A
//     timer tick that R's machine offers only while a synchronize_sched()
//     waits (tickMatters) is a quiescent state and a synchronization of
//     the CPU's view; where the projection's grace period has already
//     ended it offers none, and the tick's two effects are moot there.
// So f's steps read the same values in the projection (its state, text,
// the site histories, its CPU's view) and its detectors fire alike. A
// check in which no modular machine of any worker has a hazard within
// bound b therefore has none: SAFE. The premise itself is checked the same
// way: the first store outside a stack in a run of the check, by worker f,
// ends a prefix in which the premise held, whose projection is a run of
// f's modular machine making that store, where it is a fault (Store). So a
// check whose modular machines all finish without a hazard satisfies the
// premise. A hazard of a modular machine may not be one of the check (a
// stand-in switches where no worker could): explore then runs the whole
// search, whose counterexample replays on the check's own machine.
//
// Shared data cells (Config.Env, envcells.go). Where workers share data
// outside their stacks (corpus4's g_optable stores one of two function
// pointers into a global and calls through it) the premise fails, and the
// check weakens it. A cell is the size bytes at an address outside every
// stack that a worker's store wrote; its value set V is its initial value
// and every value stored there, in any worker's modular machine, in a
// round before, or by the reference run (seeds: a larger set is only a
// coarser over-approximation). In worker f's modular machine with the
// sets V:
//   - a load of exactly a cell x reads any value of V(x), by the
//     explorer's choice: Options offers one step per value (Action.Load),
//     where the core's memAddr says that the instruction loads x, and such
//     a load is never thread-local (localAccess: RunLocal, runPlain and
//     the memo never take it), so every value is explored;
//   - a store outside the stacks writes nothing (no load reads the cells'
//     bytes, so the data of every state is the image's and the data hash
//     of symmetric states stays equal); its value, when V(x) lacks it or
//     its bytes are no cell yet, is collected for the next round;
//   - refused, with the fault that ends the run and sends the check to the
//     whole search, saying why: a load or store that overlaps a cell
//     without being it; a load of a cell that Options offered no values
//     for (an instruction memAddr does not foresee, one that loads two
//     cells, a read-modify-write such as amo* or an x86 locked or plain
//     add to memory, which memAddr reports as a store); a second cell
//     loaded by one instruction; a store of a value in the stack window
//     (a pointer into a task's stack, which the projection below could not
//     rename); an exclusive access (ldrex/strex, ldxr/stxr, lr/sc) that
//     loads a cell or stores outside the stacks (its monitor is no value).
//     Cells that overlap each other (stores of mixed sizes) refuse the
//     next round (EnvCells.Next).
// A round searches every worker's modular machine (worker 0's for all,
// under the mirror: below) with fixed sets V; if any value was collected
// the explorer runs another round with V grown by them (explore caps the
// rounds, then runs the whole search). V is closed when a round's
// searches were exhausted without a hazard and collected nothing.
//
// Claim, with V closed: every run R of the check's machine with a hazard
// of worker f within bound b projects to a run of f's modular machine with
// the sets V and the same hazard within b. First, by induction over R,
// (I): every store of a worker outside its stack and the stable data
// bytes writes exactly a cell x with a value of V(x), and no access of R
// is one the rule refuses; so at every point of R each cell holds a value
// of its set and every other data byte but the stable ones the image's. Take the first step of R that breaks (I), by
// worker w, at the end of a prefix P of R in which (I) held. P projects to
// a run of w's modular machine as in the claim above, with one change: a
// load by w of a cell x read in R a value of V(x), by (I), and the
// projection takes the load variant of that value (w's registers being
// those of R, memAddr names x and Options offers all of V(x)); every other
// data load reads the image's bytes in both. The dropped workers'
// instructions wrote, besides their own stacks, only cells, which no load
// of w's machine reads as memory; so the rest of the argument above
// holds, and w's steps compute the same values. At the breaking step w's
// machine makes the same access: a refused one is a fault of that machine
// (a hazard: the round was not hazard-free), and a store of a value V(x)
// lacks, or to bytes that are no cell, is collected (the round collected
// something). Either contradicts V closed, so (I) holds in all of R, and
// the same projection of R up to f's hazard is a run of f's machine in
// which f's steps, reading the same values, meet the same hazard (each
// detector reads f's own state). Stable data bytes (stable.go) are no
// cells: their loads and stores are those of the modular machine without
// cells, under the premises stable.go checks, and a seed that lies in them
// is passed by; a load of a cell carries no store's knowledge (it returns
// before stableLoaded), which only makes stable.go's check of P2 stricter. The reductions that rest on
// the reference run (quiet.go, stable.go) check their premises in every
// run of these machines too; a run that breaks one (a value of V that
// leads to text the reference never ran, a store to a page it never
// wrote) ends without a verdict (PremiseBroken), the round is INCOMPLETE
// for a reason of its machine, and the check runs the whole search.
//
// One machine for every worker (Config.Mirror). Two workers differ in
// their stacks' addresses and their indices only, when the wrong-result
// detector owes them alike results (refSymmetric, the condition of task
// symmetry: symmetry.go). Then the modular machine of worker f is the
// image of worker 0's under the permutation that swaps tasks 0 and f
// (and the CPUs they start on: CPUs are identical) and moves each stack's
// contents with its task: the focus runs the same program from the same
// entry with the same arguments, the stand-ins sit at the same hook, and
// the argument of symmetry.go maps each run of one, step for step, to a
// run of the other with the same options, preemptions and hazards on
// the renamed tasks (with cells, the same sets V for both: a stored value
// is never in the stack window, so the renaming leaves it alone, and
// worker 0's machine collects exactly what worker f's would). That
// argument rests on the premise task symmetry
// rests on, that a task's stack addresses come from its stack pointer
// (the workloads compute no numbers in the stack area), and holds at
// every state that is not odd: no data byte holds a value in the stack
// window and no worker's register a value in ownTag's range (a worker's
// value in the window, in its own stack or not, moves with the worker:
// symmetry.go). So the search of worker 0's machine checks every
// state it hashes (mirrorOdd), and its result stands for every worker's
// only when none was odd (Mirror.Holds); otherwise, and whenever the
// workers are not alike, each worker's machine is searched.

// Mirror is shared by the machines of worker 0's modular search (every
// search goroutine's, and their clones): it records whether that search
// met a state that keeps its machine from standing for the other
// workers' (above). Safe for concurrent use.
type Mirror struct{ odd atomic.Bool }

// Holds reports whether worker 0's modular machine stands for every
// worker's: the workers are alike and no state hashed so far was odd.
func (x *Mirror) Holds() bool { return !x.odd.Load() }

// initMirror marks x broken when m cannot stand for the other workers'
// machines (New).
func (m *Machine) initMirror() {
	x := m.cfg.Mirror
	if x != nil && (m.cfg.Focus != 1 || m.cfg.NoSymmetry || m.cfg.Tasks < 2 || !m.refSymmetric(m.cfg.Reference)) {
		x.odd.Store(true)
	}
}

// checkMirror records in Config.Mirror a state whose permuted image the
// argument above does not cover (hashExact calls it, with the stack sums
// exact).
func (m *Machine) checkMirror() {
	x := m.cfg.Mirror
	if x == nil || x.odd.Load() || !m.mirrorOdd() {
		return
	}
	x.odd.Store(true)
}

// mirrorOdd reports whether the state is odd in the sense of hashSym: a
// data byte holds a value in the stack window, or a live worker's
// register a value in ownTag's range.
func (m *Machine) mirrorOdd() bool {
	if m.dataStack != 0 {
		return true
	}
	for t := 0; t < int(m.patcher); t++ {
		if m.tasks[t].State == Exited {
			continue
		}
		if _, odd := m.taskDigest(t); odd { // (kept between calls)
			return true
		}
	}
	return false
}

// standIn reports whether worker t is a stand-in of a modular machine.
func (m *Machine) standIn(t int8) bool {
	return m.cfg.Focus > 0 && t != int8(m.cfg.Focus-1) && t < m.patcher
}

// initStandIns starts every stand-in at the text's schedule() hook.
func (m *Machine) initStandIns() error {
	f := m.cfg.Focus
	if f == 0 {
		return nil
	}
	if f < 0 || f > m.cfg.Tasks {
		return fmt.Errorf("%w: focus worker %d of %d", ErrConfig, f-1, m.cfg.Tasks)
	}
	if m.img.Tracer != nil {
		return fmt.Errorf("%w: the tracer kernel has no thread-modular machine (its workers share per-CPU counters)", ErrConfig)
	}
	at := uint64(0)
	for _, h := range m.img.Hooks {
		if h.Kind == kernel.HookSchedule {
			at = h.Addr
			break
		}
	}
	if at == 0 {
		return fmt.Errorf("%w: the text has no schedule() hook for a stand-in", ErrConfig)
	}
	for t := range m.cfg.Tasks {
		if m.standIn(int8(t)) {
			m.core.reset(int8(t), at, m.stackTop(t))
		}
	}
	return nil
}

// sharedStore is a worker's store outside its own stack in a modular
// machine without Config.Env: the premise of the modular check is broken,
// and the run ends with a fault so that the check runs the whole search
// instead.
func (m *Machine) sharedStore(a uint64, size int) {
	t := m.cur
	m.fault(int8(m.tasks[t].CPU), t, m.core.pc(t), fmt.Sprintf("a store of %d bytes at %#x, outside the task's stack: the workers are not independent, and a thread-modular check does not apply", size, a))
}
