package x86

import (
	"golang.org/x/arch/x86/x86asm"
)

// The fast path of Exec: the commonest forms of compiled code (mov between
// registers, immediates and memory, the two-operand ALU instructions on a
// register, push and pop of a register, shifts of a register) run in Exec's own switch, without
// the general path's calls. compile marks them (Inst.fast); the result is
// the general path's, register for register, flag for flag and access for
// access (TestFastPathIsTheGeneralPath).

// Fast forms. Each ALU operation has its own, so that Run dispatches on
// one dense code (a jump table) rather than on the form and then on Op.
const (
	fastNone  uint8 = iota
	fastMov         // MOV reg, reg/imm
	fastLoad        // MOV reg, mem
	fastStore       // MOV mem, reg/imm
	fastPush        // PUSH reg64
	fastPop         // POP reg64
	fastShift       // SHL, SHR, SAR reg, imm/CL
	fastAdd         // ADD reg, reg/imm, and so on to fastSbb
	fastSub
	fastCmp
	fastAnd
	fastTest
	fastOr
	fastXor
	fastAdc
	fastSbb
	fastLast = fastSbb
)

// fastALU is the fast form of each two-operand ALU operation.
var fastALU = map[x86asm.Op]uint8{
	x86asm.ADD: fastAdd, x86asm.SUB: fastSub, x86asm.CMP: fastCmp, x86asm.AND: fastAnd, x86asm.TEST: fastTest,
	x86asm.OR: fastOr, x86asm.XOR: fastXor, x86asm.ADC: fastAdc, x86asm.SBB: fastSbb,
}

// fastForm returns the fast form of a compiled inst, or fastNone.
func fastForm(inst *Resolved) uint8 {
	if inst.err != nil || inst.int3 {
		return fastNone
	}
	d, s := inst.dst.kind, inst.src.kind
	switch inst.Op {
	case x86asm.MOV:
		switch {
		case d == kindReg && (s == kindReg || s == kindImm):
			return fastMov
		case d == kindReg && s == kindMem:
			return fastLoad
		case d == kindMem && (s == kindReg || s == kindImm):
			return fastStore
		}
	case x86asm.ADD, x86asm.ADC, x86asm.SUB, x86asm.SBB, x86asm.AND, x86asm.OR, x86asm.XOR,
		x86asm.CMP, x86asm.TEST:
		if d == kindReg && (s == kindReg || s == kindImm) {
			return fastALU[inst.Op]
		}
	case x86asm.SHL, x86asm.SHR, x86asm.SAR:
		if d == kindReg && (s == kindImm || s == kindReg) {
			return fastShift
		}
	case x86asm.PUSH:
		if d == kindReg && inst.dst.size == 8 {
			return fastPush
		}
	case x86asm.POP:
		if d == kindReg && inst.dst.size == 8 {
			return fastPop
		}
	}
	return fastNone
}

// value reads a register or immediate source operand of size bytes.
func (r *Regs) value(o *operand, size uint8) uint64 {
	if o.kind == kindReg {
		return r.get(o)
	}
	return uint64(o.val) & sizeMask[size&15]
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}
