// Package arm encodes, decodes and executes the ARM A32 instructions that
// mcountsim places in, or loads into, its simulated text.
//
// Decoding goes through golang.org/x/arch/arm/armasm and nothing else: an
// instruction the simulator executes is always the decoding of the bytes in
// text at the moment of the fetch. armasm.Decode writes a package-level
// coverage table and is not safe for concurrent use, so every call here goes
// through one mutex (see Decode). A Cache keeps decoded instructions by
// address and proves on every hit that the bytes are unchanged, so a write to
// text can never leave a stale decoding behind.
//
// Exec runs one decoded instruction against a register file and a isa.Bus. The
// Bus sees every load and store with the register it came from or goes to:
// that is all a detector needs for stack-slot provenance. Exec reports how
// control left the instruction (isa.Flow) so that callers can follow calls and
// returns without re-decoding. Data processing without pc operands, word
// loads and stores with an immediate offset and one-register push and pop
// run on a fast path (fast.go), tested against the general path. Run is the
// same executor over a table of decodings (Resolved, the executor's part of
// an Inst), instruction after instruction, with data processing inline:
// the plain loop of package sched; Exec is Run over a table of one.
//
// The saturating forms (SSAT, USAT, SMLA<x><y>, SMLAW<y>) set the sticky
// Q flag on saturation or overflow; Q is not modelled, since nothing gcc
// emits reads it (MRS is unsupported).
//
// Imports: package isa (Flow, Bus, Fault and the sentinels every ISA shares),
// the standard library and armasm only. This package knows nothing
// of tasks, schedulers, strategies or the x86 package.
package arm
