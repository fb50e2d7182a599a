// Package x86 encodes, decodes and executes the x86-64 instructions that
// mcountsim places in, or loads into, its simulated text.
//
// Decoding goes through golang.org/x/arch/x86/x86asm and nothing else: an
// instruction the simulator executes is always the decoding of the bytes in
// text at the moment of the fetch. The one exception is ENDBR64
// (f3 0f 1e fa), which x86asm v0.33.0 does not know (it reports a lone REP
// prefix); Decode recognises those four bytes itself. A Cache keeps decoded
// instructions by address together with the bytes they were decoded from,
// and proves on every hit that the bytes now in text are the same, so a
// write to text (even a torn, byte-by-byte one) can never leave a stale
// decoding behind.
//
// Exec runs one decoded instruction against a register file and a Bus. The
// Bus sees every load and store with the register it came from or goes to
// (RetAddr for the return address a CALL pushes, RIPReg for the load of a
// RET): that is all a detector needs for stack-slot provenance. Exec reports
// how control left the instruction (Flow, with the same names and meanings
// as package isa/arm) so that callers can follow calls and returns without
// re-decoding. An INT3 is reported as an *Error wrapping ErrBreakpoint with
// RIP left at the int3 itself, so that the caller can emulate the trap.
//
// Imports: the standard library and x86asm only. This package knows nothing
// of tasks, schedulers, strategies or the arm package.
package x86
