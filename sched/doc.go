// Package sched is mcountsim's deterministic machine: CPUs, tasks with their
// own registers and stacks, the text they execute, a preemptible scheduler,
// and the kernel services a patcher uses (stop_machine, synchronize_sched,
// synchronize_rcu_tasks, sync_core).
//
// A Machine holds all state. It never decides anything by itself: at every
// step, Options lists what may happen next (which CPU steps, whether a timer
// interrupt preempts the task it runs and what the CPU switches to, which
// runnable task a free CPU picks) and Apply performs one of them. Given the
// same sequence of choices a Machine always does the same thing: there are
// no maps iterated for order, no clocks and no goroutines inside. Explorers,
// replay, random search and fuzzing are all ways of choosing.
//
// One step is one instruction on one CPU, one scheduler action, or one
// atomic action of the patcher task (a store, the start of a wait, a
// stop_machine phase). Instructions are fetched as bytes from text and
// decoded with golang.org/x/arch; stores to text go through the same bytes,
// and every text byte remembers which write put it there.
//
// Detectors (package detect) observe the execution: calls and returns on a
// shadow stack, the register each stack slot was written from, and the
// provenance of the bytes of each instruction fetched from a site. They
// never see a strategy: the patcher runs a Program of plain operations.
//
// Imports: isa/arm, isa/x86, isa/riscv, kernel, detect and the standard library. sched
// knows nothing of strategies (package patch), explorers or reports.
package sched
