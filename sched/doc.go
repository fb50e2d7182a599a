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
// that differ only in what freed frames left are one state.
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
// Imports: isa and its leaves (isa/arm, isa/x86, isa/arm64, isa/riscv),
// kernel, detect, params and the standard library. sched knows nothing of
// strategies (package patch), explorers or reports.
package sched
