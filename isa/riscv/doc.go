// Package riscv encodes, decodes and executes the RV64 instructions that
// mcountsim places in, or loads into, its simulated text: RV64I with the M,
// A and C extensions, fence and fence.i (RV64IMAC + Zifencei), which is what
// riscv64-linux-gnu-gcc -O2 emits for kernel-style C and what the ftrace
// trampolines of arch/riscv/kernel/mcount-dyn.S use. Floating point, Zicsr,
// the bit-manipulation extensions and vectors decode but are unsupported.
//
// Decoding goes through golang.org/x/arch/riscv64/riscv64asm and nothing
// else: an instruction the simulator executes is always the decoding of the
// bytes in text at the moment of the fetch. riscv64asm expands every
// compressed instruction to its base instruction and reports its length (2),
// which Inst keeps. riscv64asm.Decode writes a package-level coverage table
// and is not safe for concurrent use, so every call here goes through one
// mutex (see Decode). A Cache keeps decoded instructions by address and
// proves on every hit that the bytes are unchanged, so a write to text can
// never leave a stale decoding behind.
//
// Exec runs one decoded instruction against a register file and an isa.Bus.
// The Bus sees every load and store with the register it came from or goes
// to. Exec reports how control left the instruction (isa.Flow): jal and jalr
// that link a register are calls; jalr x0 through ra or t0 (ret, jr t0) are
// returns, following the spec's return-address-stack hints (§2.5.1), which is
// also how the t0-era ftrace trampolines return into the traced function;
// other jumps and taken branches are branches (see Exec for the exact rules).
// LR and SC reach the hart's reservation through the Bus
// (isa.ExclusiveBus, isa.Monitor; on any other Bus they are
// isa.ErrUnsupported): package sched clears it on other harts' stores to
// the reserved bytes and on context switches and trap returns.
// Inst.IsExclusive names them, and StackOrLiteral never calls them
// thread-local. Inst.IsFenceI marks fence.i, which the machine treats as the hart's
// instruction-fetch synchronization point (Ziccif and model.md §1a). Run is
// the same executor over a table of decodings (Resolved, the executor's
// part of an Inst), instruction after instruction: the plain loop of
// package sched; Exec is Run over a table of one.
//
// Imports: package isa (Flow, Bus, Fault and the sentinels every ISA shares),
// the standard library and riscv64asm only. This package knows nothing of
// tasks, schedulers, strategies or the other ISA packages.
package riscv
