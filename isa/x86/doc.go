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
// Exec runs one decoded instruction against a register file and a isa.Bus. The
// Bus sees every load and store with the register it came from or goes to
// (isa.RetAddr for the return address a CALL pushes, isa.PCReg for the load of a
// RET): that is all a detector needs for stack-slot provenance. Exec reports
// how control left the instruction (isa.Flow, with the same names and meanings
// as package isa/arm) so that callers can follow calls and returns without
// re-decoding. An INT3 is reported as an *isa.Fault wrapping isa.ErrBreakpoint with
// RIP left at the int3 itself, so that the caller can emulate the trap.
// The commonest forms (mov, the two-operand ALU instructions on a
// register, push and pop of a register, shifts of a register) run on a
// fast path inside Exec (fast.go), tested against the general path: one
// dense code per operation (a jump table), register operands read and
// written without a branch, and add, sub and cmp's six flags from one
// 64-bit addition with the operands at the top of the word (addTop). Run is the same executor
// over a table of decodings (Resolved, the executor's part of an Inst),
// instruction after instruction, the fast forms inline: the plain loop of
// package sched; Exec is Run over a table of one.
//
// Exec runs: CALL (rel32, r/m64), JMP (rel8, rel32, r/m64), Jcc (all 16
// conditions, rel8 and rel32), RET (and RET imm16), the NOP forms (90,
// 66 90, 0F 1F /0 of any length and prefixes, PAUSE), ENDBR64, INT3, PUSH
// (r64, imm, m64), POP (r64, m64), LEAVE, MOV (register, memory and
// immediate forms at 8, 16, 32 and 64 bits; 32-bit writes zero-extend),
// LEA, ADD, ADC, SUB, SBB, AND, OR, XOR, CMP, TEST, INC, DEC, NEG, NOT,
// MOVZX, MOVSX, MOVSXD, IMUL (one, two and three operands), MUL, DIV, IDIV,
// CBW/CWDE/CDQE, CWD/CDQ/CQO, SHL, SHR, SAR, ROL, ROR (by 1, an immediate
// or CL), SHLD, SHRD, BSWAP, BSF, BSR, TZCNT, LZCNT, POPCNT, BT, BTS, BTR,
// BTC, XADD, CMPXCHG (LOCK accepted: one CPU executes an instruction at a
// time), MOVBE, CMOVcc, SETcc, XCHG, RCL, RCR (by 1, an immediate or CL),
// CLC, STC, CMC, CLD, LAHF, SAHF, and the string instructions MOVS, STOS,
// LODS, SCAS and CMPS at every width with REP, REPE or REPNE (one
// iteration per Exec: RIP stays at the instruction, with isa.FlowBranch,
// until the count or the condition ends it, as the CPU makes each
// iteration interruptible; the direction flag is clear, as the ABI has it,
// and STD is refused; strops.go): the integer instructions gcc emits for
// kernel code at -O1, -O2 and -Os (TestFormsDifferential and
// TestStringDifferential check each form against the host CPU and
// qemu-x86_64). A DIV or IDIV by zero, or with a quotient
// that does not fit, is an *isa.Fault wrapping ErrDivide (#DE), with the
// registers left as they were. Anything else (SSE and x87 among them,
// refused by name), a 16-bit operand
// size on a stack or branch instruction, a 32-bit address size, an FS
// segment or a GS one on a string instruction, is an *isa.Fault wrapping
// isa.ErrUnsupported when executed. A GS segment adds Regs.GSBase (the
// kernel's per-CPU base) to the operand's address.
//
// x86asm quirks this package works around (v0.33.0): ENDBR64 is not known;
// the reserved-NOP opcodes 0F 19–0F 1E and 0F 1F with a nonzero reg field
// are rejected, where a CPU executes them as NOPs (Decode decodes them as
// NOPs of the same length: a torn write can leave them in text);
// a truncated instruction (and an unknown opcode after a prefix) decodes
// without error as a one-byte Inst whose Op is 0; branch targets are
// printed relative to "." when pc is 0; the GNU printer writes "callq",
// "retq" and "jmpq", prints "(%r12,%riz)" for an r12 base, and leaves out a
// zero displacement that objdump writes ("nopl 0x0(%rax,%rax,1)").
//
// Imports: package isa (Flow, Bus, Fault and the sentinels every ISA shares),
// the standard library and x86asm only. This package knows nothing
// of tasks, schedulers, strategies or the arm package.
package x86
