package sched

import "github.com/mcountsim/mcountsim/kernel"

// Dead registers are cleared at a compiled function's boundaries
// (issue 21).
//
// The procedure call standard of every ISA here leaves some registers
// undefined at a function's entry (the temporaries, and the
// intra-procedure-call registers a veneer may corrupt) and more after its
// return (the argument registers that carry no result): isa/arm, arm64,
// riscv and x86 say which, in ClearDead, with the standards' sections.
// Compiled code never reads one of them before it writes it, and the
// kernel relies on that too: arm64's ftrace_caller writes x10 and
// returns through x9, riscv's through t0 or t1 (kernel/arm64.go,
// kernel/riscv.go, after entry-ftrace.S and mcount-dyn.S), because a
// patchable entry comes where those are dead.
//
// What they held still split states. A traced pass through an arm64
// function leaves x9 holding the site's return address and x10 the stack
// pointer ftrace_caller saw, an untraced pass x9 holding the caller's lr,
// and code built at -O1 never overwrites either: two runs that reached the
// same point of the workload, in the same memory and the same live
// registers, differed in leftovers (the corpus's a64-O1-pfe2 d_bsearch
// under arm64-nop-bl: 1,247,229 states, 745,496 once x9–x15 were left out
// of the hash).
//
// The machine therefore clears them when a call enters a compiled
// function (an object's function symbol, kernel.Symbol.Compiled) and when
// such a call returns as its shadow frame expects (a bad return is the
// detectors', and clears nothing): ClearDead(false) and ClearDead(true).
// Like the scrub of freed frames it is part of the model, not a reduction
// of the search: the state hash stays exact, and every search, replay and
// reference run clears alike. The layouts' own code (the workers,
// trampolines, libgcc helpers and stubs) is not a compiled function and
// keeps its own contracts; ftrace_caller's frame, returning into the
// middle of a traced function, is not one either.
//
// What it changes. A read of a cleared register before a write finds 0
// where it found a leftover; correct compiled code makes none. Code that
// does, as an instruction mix a race made (a bl to ftrace_caller whose
// mov x9, x30 never ran), now uses 0 where it used whatever the last pass
// left: on hardware the register holds what the caller's code left, so
// neither value is the hardware's, and 0, an address no text holds, makes
// such a path fail where a leftover could make it look right.
// Config.KeepDead keeps the leftovers; TestDeadRegsAgree (explore) and
// TestDeadRegsAgreeOnObjects (kernel) compare verdicts, hazard kinds,
// places and returns with and without it.

// compiledEntries returns the entries of img's compiled functions, nil
// when it has none.
func compiledEntries(img *kernel.Image) map[uint64]bool {
	var e map[uint64]bool
	for _, s := range img.Symbols {
		if s.Compiled {
			if e == nil {
				e = map[uint64]bool{}
			}
			e[s.Addr] = true
		}
	}
	return e
}
