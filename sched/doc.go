// Package sched is mcountsim's deterministic machine: CPUs, tasks with their
// own registers and stacks, the text they execute, a preemptible scheduler,
// and the kernel services a patcher uses (stop_machine, synchronize_sched,
// synchronize_rcu_tasks, sync_core, flush_icache_all).
//
// A Machine holds all state. It never decides anything by itself: at every
// step, Options lists what may happen next (which CPU steps, which bytes a
// CPU with a stale view of text fetches, whether a timer interrupt preempts
// the task it runs and what the CPU switches to, which runnable task a free
// CPU picks) and Apply performs one of them. Given the same sequence of
// choices a Machine always does the same thing: there are no maps iterated
// for order, no clocks and no goroutines inside. Explorers, replay, random
// search and fuzzing are all ways of choosing (package explore drives them
// all through one loop). Preemptions are listed last, so that an explorer
// bounds them by dropping the tail (OptionsWithin): the preemption bound is
// the explorer's, and one machine serves every bound.
//
// One step is one instruction on one CPU, one scheduler action, or one
// atomic action of the patcher task (a store, the start of a wait, a
// stop_machine phase). Instructions are fetched as bytes from text, through
// the fetching CPU's view (fetch.go: model.md §1a), and decoded with
// golang.org/x/arch; stores to text go through the same bytes, and every
// text byte remembers which write put it there. A return scrubs the frames
// it frees (freed.go): no kernel ABI keeps the stack below sp, and states
// that differ only in what freed frames left are one state. Likewise the
// entry and the return of an object's compiled function clear the
// registers the ISA's procedure call standard leaves undefined there
// (deadregs.go), which trampolines write and compiled code leaves be.
//
// The patcher is one task running its Program's ops in order, so the k-th
// write to text is always the same store (fetch.go numbers them so): text,
// its provenance and the site histories (up to a stop_machine's snapshot,
// taken once its stores are done) are functions of the number of writes.
// So a copy into a machine of the same lineage (CopyFrom) copies only the
// bytes of the writes between the two counts, the site histories are
// prefixes of one static sequence per site, and the state hash's sums over
// text and the CPUs' views after each write come from a table (machine.go:
// initHistSeq, initWriteSums); TestTaskDigestsHold checks every copy and
// every sum against the values computed afresh.
//
// # One core per ISA
//
// What differs between instruction sets lives in a core (core.go), chosen
// once when the machine is built: newCore is the only place in this
// package that names an architecture. A core owns every task's register
// file, fetch and decode through its decode cache, execution, the
// partial-order reduction's classifier of thread-local instructions, the
// link and return conventions the detectors need, which instructions
// synchronize fetch and which concurrent modifications the ISA defines,
// naming registers and rendering bytes, and its own tight loop over plain
// instructions (runPlain), so that straight-line code costs no interface
// call per instruction. The loops share their bookkeeping (core.go's
// plainTable: plain decodings copied densely, looked up per text byte once
// also known to be thread-local; the step budget checked once per loop;
// the detectors' tail only for a step that did more than fall through),
// and the ISA packages run their commonest forms on a fast path inside
// Exec. The cores are corearm.go (A32), corex86.go
// (x86-64), corearm64.go (A64) and coreriscv.go (RV64GC); the tracer
// kernel, laid out for ARM only, reaches the interrupt frame and the
// thread_info accesses it reasons about through tracerCore, which the ARM
// core implements (corearmtracer.go). Everything else
// is written once for every core: the worker step and the detectors
// (worker.go), instruction fetch through per-CPU views (fetch.go), the
// scheduler and Options/Apply (step.go), the patcher and the stoppers
// (patcher.go). Adding an ISA means adding a core, a kernel layout
// (package kernel) and built-in strategies (package patch).
//
// Detectors (package detect) observe the execution: calls and returns on a
// shadow stack, the register each stack slot was written from, the
// provenance of the bytes of each instruction fetched (torn fetches, the
// concurrent-modification rule), and site passes. They never see a
// strategy: the patcher runs a Program of plain operations. The
// wrong-result detector (results.go) compares each worker's returns from
// traced functions (the core's return register) and its stores outside the
// stacks inside traced calls with an uninstrumented reference run's
// (Config.Reference, shared and immutable), only where the reference's
// results cannot depend on the schedule (the rule and its proof are in
// detect/results.go); its state is a counter pair per task, in Hash. Events and
// hazards carry typed fields (the operation and its label, a hazard's kind,
// the stack slot, the error behind a fault), recorded only in Record mode.
//
// # Exclusive monitors
//
// Load- and store-exclusive (ARM ldrex/strex, arm64 ldxr/stxr, RISC-V
// lr/sc) execute in the ISA packages against the executing CPU's
// isa.Monitor, which the Machine hands them as an isa.ExclusiveBus
// (monitor.go). The machine clears a CPU's monitor on every context
// switch on it and on exception entry and return there (Linux's exception
// return paths do, and an arm64 ERET does by itself: monitor.go cites
// them), and every monitor that marks a byte another CPU (or the patcher)
// stores. An armed monitor so always belongs to the task running on its
// CPU, and the hash files it with that task. The granule is the marked
// bytes (the smallest the architectures allow); an SC fails only when the
// architecture says it must, and no spurious failure is offered (in the
// compilers' LL/SC loops a failure only retries: monitor.go). Exclusive
// instructions are never thread-local: the local classifier makes them
// visible whatever their address (own stack included), their footprint
// is a store to their bytes, and so they are never memo-safe. DMB and DSB
// order nothing in this sequentially consistent machine and run as
// no-ops; ISB synchronizes its CPU's instruction fetch (model.md §1a).
//
// # Thread-modular machines
//
// Config.Focus builds the machine of one worker's thread-modular check
// (modular.go, which states and proves what it shows): that worker runs
// the workload, every other worker is a stand-in looping on the text's
// schedule() hook, a run ends when the focus worker and the patcher have
// exited, and a worker's store outside its own stack is a fault, or,
// with Config.Env, a store to a shared data cell whose value is collected
// while the worker's loads of cells read any value of their value sets
// (envcells.go; the argument is modular.go's "Shared data cells").
//
// # Memoized stretches
//
// RunLocal remembers long thread-local stretches (memo.go): in an
// exhaustive search one task starts the same computation (a call of a
// long function with the same arguments) from many branching states that
// differ only in what the other CPUs and the patcher did, and each would
// execute its thousands of instructions again. This is not a reduction:
// the states, steps, verdicts and end states are the same with and without
// it (Config.NoMemo), only the time differs. The argument:
//
//   - A unit is a run of steps RunLocal takes on one worker t, started at
//     an iteration of its loop and ended before the first step that is not
//     memo-safe, or where the loop stops. A step is memo-safe when it is
//     not at a hook and the rule that made it local is the
//     state-independent one (classLocal: registers, the task's own stack,
//     immutable text), or it is a load or store that reaches only t's own
//     stack or loads a read-only or quiet page (classLoad, local in this
//     state), or it is a fetch of bytes the patcher writes that is local
//     in this state (classFetch: every byte of the instruction holds the
//     program's last write to it, and the CPU's view of it is the latest,
//     localFetch). Not memo-safe: classTI steps (the tracer's
//     thread_info), hooks, the exclusive accesses (classVisible
//     wherever they point: they read and write the CPU's monitor), and
//     loads of text bytes a store may write, even where they are final
//     and so local (the key does not hold them).
//     The memo is consulted only under the plain loop's own conditions (no
//     Record, no result recording, no open site pass, no tracer) and while
//     the run has no hazard; a unit is kept only if it ends with no site
//     pass open and the task outside a trap handler.
//   - Such steps read nothing but t's registers, t's stack words and their
//     provenance, t's shadow stack, site pass, link taint and results
//     cursor (the detectors of calls and returns, of site passes, and the
//     wrong-result detector's comparison with the reference, which is
//     immutable), text no store writes, read-only pages, and quiet pages,
//     and the bytes of classFetch steps, which are final ones the CPU
//     fetches exactly: a unit keeps the patchable bytes of the
//     instructions its classFetch steps fetched and of their fetch
//     windows, and applies only where the former are final and the CPU's
//     view of all of them is the latest (memoFits), so from such a state
//     of its key its classFetch steps are local again and fetch the same
//     bytes (no store can change a final byte, a view only moves forward,
//     and nothing moves either while the unit runs); one key may hold a
//     few units, which differ in those bytes (a site final in one state
//     of the key and not in another); a site pass through final bytes is checked against the
//     site's last state, which it matches, and is closed before the unit
//     ends. A quiet page holds its first
//     contents in a run without a hazard: a store to one ends the run or is a
//     hazard (quiet.go); and every machine that shares the table descends
//     from one New, with one image and one configuration. They write nothing
//     but t's registers, stack words (through storeWord, which keeps the
//     stack sums), shadow stack, site pass, link taint and results cursor,
//     the step counter and the Bus scratch of the step. Which step comes next, and
//     whether it is memo-safe and local, is decided by the same values.
//   - So from two states whose key (a 128-bit digest of t and of every value
//     above that is not immutable, the hasher of Hash) is equal, the first k
//     steps of the unit are the same steps and leave the same values, if
//     neither state's run stops inside them. A unit is kept only if it ended
//     with no new hazard, no fault and no budget stop (the run not done),
//     and applied only with k steps left in the call and with the step
//     budget not reached within them (steps+k < MaxSteps), so that the
//     applied unit is exactly the k steps the loop would take: RunLocal then
//     goes on from the state after them, as it would, and returns the true
//     count of steps (explore's paths record one option per step; replays
//     stay exact). A fault or a violation of the quiet premise (quiet.go)
//     inside a unit ends the run, so no such unit is kept, and from an equal
//     key it happens again when the steps are executed.
//   - Cost: a unit is recorded or looked up only at a text offset where a
//     RunLocal call of at least 1,000 steps started, or once a call has
//     taken that many steps, and no longer at an offset where at most one
//     in 16 of 4,096 or more lookups hit (a depth-first search meets each
//     of a loop's iterations at the stretch's offset before it meets any
//     again: judged on fewer lookups, a loop's stretch was given up before
//     its first hit); short stretches pay a byte load per
//     loop iteration. The table is shared by a machine and its clones (one
//     goroutine, as the decode caches), holds at most 32,768 units of 256
//     steps or more, and is emptied when full.
//
// TestMemoAgreesOnBuiltins and TestMemoObjects (kernel) compare the search
// with and without the memo, and with it memoizing every stretch
// (Config.MemoAll) in a check mode (Config.MemoCheck) that executes each
// applied one for real too, comparing the whole state; TestMemoSameRuns drives machines with and
// without it through the same random choices.
//
// Imports: isa and its leaves (isa/arm, isa/x86, isa/arm64, isa/riscv),
// kernel, detect, params and the standard library. sched knows nothing of
// strategies (package patch), explorers or reports.
package sched
