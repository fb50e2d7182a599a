// Package explore searches the schedules of a scenario for hazards, and
// replays one schedule with a full trace.
//
// # Search
//
// Check explores every run of the machine (package sched) within a
// preemption bound: at each step the machine lists its options (which CPU
// steps, whether a timer interrupt or a stopper preempts the task a CPU runs
// and what the CPU switches to, which runnable task a free CPU picks) and the
// explorer tries each. Bounds are searched in increasing order (0, 1, …,
// Bound), so the first counterexample found uses the fewest preemptions.
//
// # Reduction, and why it cannot hide a hazard
//
// The reduced search keeps a visited set of machine states. A state is the
// complete machine: text bytes that any store may write and the provenance of
// each, the site histories, every task's registers, flags, scheduler state,
// shadow call stack (and site-pass record in strict mode), every stack byte
// and the register each stack word was written from, the CPUs, the run
// queue, the patcher's progress and the waits in flight. What happens next
// depends only on that state and on the preemptions still allowed; the step
// counter and recorded traces do not influence any later step. So two paths
// that reach the same state have the same futures, except that the one with
// fewer preemptions used has more of them: the visited set keeps, per state,
// the fewest preemptions it was reached with, and a state is explored again
// when it is reached with fewer. Hazards are checked on every step before
// the visited-set lookup, so a pruned path has already had its hazards
// checked up to the merge point, and its continuations are the explored
// ones. States are identified by a 128-bit hash (two independent 64-bit
// lanes), not stored: a collision would merge two different states, with a
// probability below 2^-100 for the state counts mcountsim reaches.
//
// The machine's partial-order reduction: a worker whose next instruction
// touches only its own registers and stack (and immutable text) is stepped
// alone, with no other option and no preemption offered. Such a step is
// independent of every other CPU's actions (nothing another task does can
// change its effect, and it changes nothing another task can see), so
// running it first loses no ordering of visible actions. Withholding the
// preemption before it loses no hazard either: a run that preempts a task
// just before a local step L and resumes it later is matched, step for step
// on every other task, by the run that executes L (and the local steps after
// it) first and preempts the task just before its next visible step — with
// the same number of preemptions — and every detector of a local step
// depends on that task's state alone. Visible steps are fetches of bytes a
// store may write, the scheduler hooks, loads and stores not based on sp or
// pc, and everything the patcher and the stoppers do. Runs always end (the
// workload is finite and waiting CPUs offer no step), so the state graph is
// acyclic and the reduction needs no cycle proviso.
//
// Options.Reduction selects weaker searches: ReduceStates (visited set, no
// partial-order reduction) and ReduceNone (every sequence of options). Tests
// compare all three on small scenarios.
//
// # Schedules
//
// A schedule is the list of choices that differ from the default (option 0:
// the CPU that stepped last goes on running its task), written as
// "step:option" pairs, e.g. "14:1,20:2". Replaying a schedule re-runs the
// machine deterministically; a schedule that names a step the run does not
// reach, or an option that does not exist there, is an error.
//
// Imports: sched, patch, kernel, detect and the standard library.
package explore
