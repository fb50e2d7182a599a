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
// The unreduced search (Options.Unreduced) tries every sequence of options
// with no visited set; tests compare the two on small scenarios.
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
