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
// The exclusive accesses (ldrex, strex and their b, h and d forms; clrex)
// reach the executing processor's monitor through the Bus (an
// isa.ExclusiveBus; on any other Bus they are isa.ErrUnsupported): a
// load-exclusive marks its bytes, a store-exclusive stores and writes 0
// to Rd only while exactly its bytes are marked, else writes 1 and stores
// nothing, and opens the monitor either way (A8.8.212); they must be
// aligned (an isa.ErrMemory fault otherwise). Who else clears a monitor
// (other CPUs' stores, context switches) is package sched's. IsExclusive
// names them, and StackOrLiteral never calls them thread-local. DMB and
// DSB execute as no-ops (the machine is sequentially consistent); ISB
// too, and IsISB tells the machine to synchronize the CPU's instruction
// fetch after it (model.md §1a).
//
// The saturating forms (SSAT, USAT, SMLA<x><y>, SMLAW<y>) set the sticky
// Q flag on saturation or overflow; Q is not modelled, since nothing gcc
// emits reads it (MRS is unsupported).
//
// Imports: package isa (Flow, Bus, Fault and the sentinels every ISA shares),
// the standard library and armasm only. This package knows nothing
// of tasks, schedulers, strategies or the x86 package.
package arm
