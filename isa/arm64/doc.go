// Package arm64 encodes, decodes and executes the A64 (AArch64)
// instructions that mcountsim places in, or loads into, its simulated text:
// the integer subset of kernel-style gcc -O2 output, the patchable
// function entries of -fpatchable-function-entry=2 and the -pg mcount
// call, and the ftrace trampolines of arch/arm64/kernel/entry-ftrace.S.
//
// Decoding goes through golang.org/x/arch/arm64/arm64asm and nothing else:
// an executed instruction is always the decoding of the word in text at the
// moment of the fetch. arm64asm.Decode writes a package-level coverage
// slice and is not safe for concurrent use, so every call here goes through
// one mutex (see Decode). arm64asm keeps most operand values in unexported
// fields, so compile reads them from the word by the encoding index of the
// ARM ARM (C4.1) and checks that arm64asm named an instruction of the same
// class; the executor then switches on a dense code resolved once. A Cache
// keeps decoded instructions by address and proves on every hit that the
// word is unchanged, so a write to text never leaves a stale decoding.
//
// Exec runs one decoded instruction against a register file and an
// isa.Bus (Run, the same executor over a table of decodings, Resolved, runs
// instruction after instruction: the plain loop of package sched; Exec is
// Run over a table of one). Its conventions:
//
//   - Calls: BL and BLR link x30 and report isa.FlowCall.
//   - Returns: RET Xn, with any register, reports isa.FlowReturn. The
//     architecture defines RET as a return (a hint to the return-address
//     predictor) whatever the register, and Linux's ftrace_caller (6.1
//     WITH_REGS and later WITH_ARGS) ends with "ret x9": x9 is reloaded
//     from the saved PC, the address its BL linked in x30 at entry, and
//     x30 gets back the caller's LR that "mov x9, x30" saved. So the
//     return to the instrumented function is a return, and a shadow stack
//     that pushed at the BL matches it. (With DIRECT_CALLS, 6.5 and later,
//     it is "ret x10", where x10 may be a direct trampoline instead: the
//     shadow stack then sees a return to an address no call pushed, which
//     is what that is.) BR Xn, even BR X30, is a branch (isa.FlowBranch).
//   - Taken B, B.cond, CBZ/CBNZ and TBZ/TBNZ are isa.FlowBranch; an
//     untaken conditional branch is isa.FlowSkipped.
//   - BRK fails with isa.ErrBreakpoint, leaving the registers and the pc
//     untouched; SVC, HVC, SMC, WFE and WFI are isa.ErrUnsupported.
//   - Hints execute as NOP (the CPU modelled has neither FEAT_PAuth nor
//     FEAT_BTI, so PACIASP, AUTIASP and BTI change nothing). ISB, DMB and
//     DSB complete at once (the machine is sequentially consistent);
//     (*Inst).IsISB tells the caller that this CPU synchronized its
//     instruction stream.
//   - BTI is not enforced: no page is guarded and BR/BLR set no branch
//     type (PSTATE.BTYPE), so a branch that lands on an instruction other
//     than a landing pad runs on, as on a CPU without FEAT_BTI or under a
//     kernel built without CONFIG_ARM64_BTI_KERNEL, whose text is not
//     guarded. Code built with -mbranch-protection=bti or standard runs as
//     it does there. The choice: Linux does not offer the option with gcc
//     (arch/arm64/Kconfig, ARM64_BTI_KERNEL "depends on !CC_IS_GCC", gcc
//     bug 106671), the compiler of the project's fixtures and corpus; and
//     with the built-in strategies a branch target exception could not
//     come from patching: they write no indirect branch, and a function's
//     landing pad is never a site word (package kernel places the sites
//     after it, or around it in a CALL_OPS site: Site.Gap), so enforcing
//     would check where the compiler put pads, not a race.
//   - Memory: every access goes to the Bus with the register it loads or
//     stores (0–30; 31 for XZR), a pair as two accesses, lower address
//     first. Normal loads and stores may be unaligned (SCTLR_EL1.A = 0, as
//     Linux runs), so the Bus sees any address; LDAR/STLR must be aligned;
//     an access whose base is SP faults unless SP is 16-byte aligned
//     (SCTLR_EL1.SA = 1, as Linux sets). Faults wrap isa.ErrMemory.
//   - The exclusives (LDXR, LDAXR, STXR, STLXR and their B and H forms;
//     CLREX) reach the executing CPU's monitor through the Bus (an
//     isa.ExclusiveBus; on any other Bus they are isa.ErrUnsupported): a
//     load-exclusive marks its bytes, a store-exclusive stores and writes
//     0 to Ws only while exactly its bytes are marked, else writes 1, and
//     opens the monitor either way; they must be aligned. The pairs
//     (LDXP/STXP) and the LSE atomics (CAS, LDADD, …: the CPU modelled
//     has no FEAT_LSE) are unsupported. Package sched clears monitors on
//     other CPUs' stores and on context switches; (*Inst).IsExclusive
//     names the exclusives.
//   - CONSTRAINED UNPREDICTABLE forms (writeback into a transferred
//     register, LDP with Rt == Rt2, a store-exclusive whose status
//     register is its data or base register) are isa.ErrUnsupported, not
//     guessed.
//
// StackOrLiteral and Literal classify memory operands for the partial-order
// reduction; InCMODXSet is the architecture's concurrent-modification set.
//
// Imports: package isa (Flow, Bus, Fault and the sentinels every ISA
// shares), arm64asm and the standard library only. This package knows
// nothing of tasks, schedulers, strategies or the other ISA packages.
package arm64
