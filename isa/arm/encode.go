package arm

import (
	"fmt"
)

// Word is one A32 instruction encoding.
type Word uint32

// Bytes returns the little-endian bytes of w, as they sit in memory.
func (w Word) Bytes() []byte { return wordBytes(uint32(w)) }

// If returns w with its condition field set to c (ARM ARM A8.3).
func (w Word) If(c Cond) Word { return w&0x0fffffff | Word(c)<<28 }

// String returns the word as eight hex digits.
func (w Word) String() string { return fmt.Sprintf("%08x", uint32(w)) }

// Cond is an A32 condition code (ARM ARM A8.3, table A8-1).
type Cond uint8

// The A32 condition codes.
const (
	EQ Cond = iota
	NE
	CS
	CC
	MI
	PL
	VS
	VC
	HI
	LS
	GE
	LT
	GT
	LE
	AL
)

// Register numbers, as armasm numbers them.
const (
	R0  = 0
	R1  = 1
	R2  = 2
	R3  = 3
	R4  = 4
	R5  = 5
	R6  = 6
	R7  = 7
	R8  = 8
	R9  = 9
	R10 = 10
	R11 = 11
	R12 = 12
	SP  = 13
	LR  = 14
	PC  = 15
)

const always = Word(AL) << 28

// Nop is the architectural NOP hint (A8.8.119, ARMv6K and later).
func Nop() Word { return 0xe320f000 }

// MovReg is MOV Rd, Rm (A8.8.105). MovReg(R0, R0) is the classic
// "mov r0,r0" no-op that recordmcount and early ftrace wrote.
func MovReg(rd, rm int) Word { return always | 0x01a00000 | Word(rd)<<12 | Word(rm) }

// MovImm is MOV Rd, #imm (A8.8.102). It reports false when imm is not an
// 8-bit value rotated right by an even amount.
func MovImm(rd int, imm uint32) (Word, bool) {
	enc, ok := modImm(imm)
	return always | 0x03a00000 | Word(rd)<<12 | enc, ok
}

// AddImm is ADD Rd, Rn, #imm (A8.8.5); ok is false if imm cannot be encoded.
func AddImm(rd, rn int, imm uint32) (Word, bool) {
	enc, ok := modImm(imm)
	return always | 0x02800000 | Word(rn)<<16 | Word(rd)<<12 | enc, ok
}

// SubImm is SUB Rd, Rn, #imm (A8.8.222); ok is false if imm cannot be encoded.
func SubImm(rd, rn int, imm uint32) (Word, bool) {
	enc, ok := modImm(imm)
	return always | 0x02400000 | Word(rn)<<16 | Word(rd)<<12 | enc, ok
}

// SubsImm is SUBS Rd, Rn, #imm: SUB that sets the flags.
func SubsImm(rd, rn int, imm uint32) (Word, bool) {
	w, ok := SubImm(rd, rn, imm)
	return w | 1<<20, ok
}

// CmpImm is CMP Rn, #imm (A8.8.37); ok is false if imm cannot be encoded.
func CmpImm(rn int, imm uint32) (Word, bool) {
	enc, ok := modImm(imm)
	return always | 0x03500000 | Word(rn)<<16 | enc, ok
}

// modImm encodes imm as an A32 modified immediate (A5.2.4): 8 bits rotated
// right by twice a 4-bit amount.
func modImm(imm uint32) (Word, bool) {
	for rot := uint32(0); rot < 16; rot++ {
		v := imm<<(2*rot) | imm>>(32-2*rot)
		if rot == 0 {
			v = imm
		}
		if v <= 0xff {
			return Word(rot<<8 | v), true
		}
	}
	return 0, false
}

// B is B target, from the instruction at pc (A8.8.18). The offset is
// relative to pc+8; ok is false when it does not fit in ±32 MiB or is not a
// multiple of 4.
func B(pc, target uint32) (Word, bool) {
	off, ok := branchOffset(pc, target)
	return always | 0x0a000000 | off, ok
}

// BL is BL target, from the instruction at pc (A8.8.25); it is the
// arm_gen_branch_link of arch/arm/kernel/insn.c.
func BL(pc, target uint32) (Word, bool) {
	off, ok := branchOffset(pc, target)
	return always | 0x0b000000 | off, ok
}

func branchOffset(pc, target uint32) (Word, bool) {
	d := int64(target) - int64(pc) - 8
	ok := d&3 == 0 && d >= -(1<<25) && d < 1<<25
	return Word(uint32(d>>2) & 0x00ffffff), ok
}

// BX is BX Rm (A8.8.27); BX(LR) is the ordinary return.
func BX(rm int) Word { return always | 0x012fff10 | Word(rm) }

// PushOne is the single-register push STR Rt, [SP, #-4]! (A8.8.133, encoding
// A2), the form GCC emits for the mcount "push {lr}" (e52de004).
func PushOne(rt int) Word { return always | 0x052d0004 | Word(rt)<<12 }

// PopOne is the single-register pop LDR Rt, [SP], #4 (A8.8.131, A2).
func PopOne(rt int) Word { return always | 0x049d0004 | Word(rt)<<12 }

// Push is PUSH {list} as STMDB SP!, {list} (A8.8.133, A1). list is a bit
// mask of registers (bit n = Rn).
func Push(list uint16) Word { return always | 0x092d0000 | Word(list) }

// Pop is POP {list} as LDMIA SP!, {list} (A8.8.131, A1). Pop(1<<LR) is
// e8bd4000, the "pop {lr}" that Linux wrote over the bl from 2010 to 2022.
func Pop(list uint16) Word { return always | 0x08bd0000 | Word(list) }

// LdrImm is LDR Rt, [Rn, #off] (A8.8.63, offset addressing). Like the
// other load/store encoders it panics unless -4095 <= off <= 4095.
func LdrImm(rt, rn int, off int32) Word { return memImm(0x05100000, rt, rn, off) }

// LdrPost is LDR Rt, [Rn], #off (post-indexed).
func LdrPost(rt, rn int, off int32) Word { return memImm(0x04100000, rt, rn, off) }

// StrImm is STR Rt, [Rn, #off] (A8.8.204, offset addressing).
func StrImm(rt, rn int, off int32) Word { return memImm(0x05000000, rt, rn, off) }

// StrPre is STR Rt, [Rn, #off]! (pre-indexed with writeback).
func StrPre(rt, rn int, off int32) Word { return memImm(0x05200000, rt, rn, off) }

// LdrbPost is LDRB Rt, [Rn], #off (A8.8.68, post-indexed): a zero-extended
// byte load; LdrbPre the pre-indexed form with writeback, [Rn, #off]!.
func LdrbPost(rt, rn int, off int32) Word { return memImm(0x04500000, rt, rn, off) }
func LdrbPre(rt, rn int, off int32) Word  { return memImm(0x05700000, rt, rn, off) }

// StrbPost is STRB Rt, [Rn], #off (A8.8.207, post-indexed); StrbPre the
// pre-indexed form with writeback.
func StrbPost(rt, rn int, off int32) Word { return memImm(0x04400000, rt, rn, off) }
func StrbPre(rt, rn int, off int32) Word  { return memImm(0x05600000, rt, rn, off) }

func memImm(base Word, rt, rn int, off int32) Word {
	if off < -4095 || off > 4095 {
		// Masking would silently encode a different offset.
		panic(fmt.Sprintf("arm: load/store offset %d out of range ±4095", off))
	}
	u := Word(1 << 23)
	if off < 0 {
		u, off = 0, -off
	}
	return always | base | u | Word(rn)<<16 | Word(rt)<<12 | Word(off&0xfff)
}

// RegList returns the register-list mask of regs.
func RegList(regs ...int) uint16 {
	var m uint16
	for _, r := range regs {
		m |= 1 << r
	}
	return m
}

// Op is a data-processing opcode (ARM ARM A5.2.1, bits 24:21).
type Op uint8

// The data-processing opcodes.
const (
	AND Op = iota
	EOR
	SUB
	RSB
	ADD
	ADC
	SBC
	RSC
	TST
	TEQ
	CMP
	CMN
	ORR
	MOV
	BIC
	MVN
)

// Shift is a shift type of a register operand (A8.4.1).
type Shift uint8

// The shift types.
const (
	LSL Shift = iota
	LSR
	ASR
	ROR
)

// dp is the data-processing word shared by DPReg, DPRegShift and DPImm.
// TST, TEQ, CMP and CMN always set the flags (they exist only with S).
func dp(op Op, s bool, rd, rn int) Word {
	w := always | Word(op)<<21 | Word(rn)<<16 | Word(rd)<<12
	if s || op >= TST && op <= CMN {
		w |= 1 << 20
	}
	return w
}

// DPReg is a data-processing instruction with a register operand shifted
// by an immediate, "op{s} rd, rn, rm, sh #n" (A8.8.x "(register)", e.g.
// ADD A8.8.7); n is 0-31 (LSR #32 and ASR #32 are written n = 0). MOV and
// MVN ignore rn, TST..CMN ignore rd: pass 0.
func DPReg(op Op, s bool, rd, rn, rm int, sh Shift, n uint32) Word {
	return dp(op, s, rd, rn) | Word(n&31)<<7 | Word(sh)<<5 | Word(rm)
}

// DPRegShift is a data-processing instruction with a register operand
// shifted by a register, "op{s} rd, rn, rm, sh rs" (A8.8.x
// "(register-shifted register)", e.g. ADD A8.8.8).
func DPRegShift(op Op, s bool, rd, rn, rm int, sh Shift, rs int) Word {
	return dp(op, s, rd, rn) | Word(rs)<<8 | Word(sh)<<5 | 1<<4 | Word(rm)
}

// DPImm is a data-processing instruction with a modified immediate,
// "op{s} rd, rn, #imm" (A8.8.x "(immediate)"); ok is false if imm cannot
// be encoded.
func DPImm(op Op, s bool, rd, rn int, imm uint32) (Word, bool) {
	enc, ok := modImm(imm)
	return dp(op, s, rd, rn) | 1<<25 | enc, ok
}

// Mul is MUL rd, rn, rm (A8.8.114): rd = rn*rm (low 32 bits).
func Mul(rd, rn, rm int) Word { return always | Word(rd)<<16 | Word(rm)<<8 | 0x90 | Word(rn) }

// Umull is UMULL rdlo, rdhi, rn, rm (A8.8.257): rdhi:rdlo = rn*rm.
func Umull(rdlo, rdhi, rn, rm int) Word {
	return always | 0x00800090 | Word(rdhi)<<16 | Word(rdlo)<<12 | Word(rm)<<8 | Word(rn)
}

// Clz is CLZ rd, rm (A8.8.33, ARMv5T and later).
func Clz(rd, rm int) Word { return always | 0x016f0f10 | Word(rd)<<12 | Word(rm) }
