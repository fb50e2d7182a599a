package arm64

import (
	"encoding/binary"
	"fmt"
	"math/bits"
)

// Word is one A64 instruction encoding.
type Word uint32

// Bytes returns the little-endian bytes of w, as they sit in memory.
func (w Word) Bytes() []byte { return binary.LittleEndian.AppendUint32(make([]byte, 0, 4), uint32(w)) }

// String returns the word as eight hex digits.
func (w Word) String() string { return fmt.Sprintf("%08x", uint32(w)) }

// Register numbers as the encodings write them. 31 is SP or XZR depending
// on the operand: the encoders below say which.
const (
	X0, X1, X2, X3, X4, X5, X6, X7         = 0, 1, 2, 3, 4, 5, 6, 7
	X8, X9, X10, X11, X12, X13, X14, X15   = 8, 9, 10, 11, 12, 13, 14, 15
	X16, X17, X18, X19, X20, X21, X22, X23 = 16, 17, 18, 19, 20, 21, 22, 23
	X24, X25, X26, X27, X28, X29, X30      = 24, 25, 26, 27, 28, 29, 30
	FP                                     = 29 // frame pointer (AAPCS64)
	LR                                     = 30 // link register
	SP                                     = 31 // as a base or add/sub immediate operand
	XZR                                    = 31 // as a data operand
)

// Condition codes (ARM ARM C1.2.4).
const (
	EQ uint8 = iota
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

func reg(r int) Word {
	if r < 0 || r > 31 {
		panic(fmt.Sprintf("arm64: register %d out of range 0..31", r))
	}
	return Word(r)
}

// Nop is NOP (C6.2.202), the word the compiler's patchable entry holds.
func Nop() Word { return 0xd503201f }

// Hint is HINT #imm (C6.2.107): Hint(34) is "bti c", Hint(25) "paciasp",
// Hint(29) "autiasp".
func Hint(imm uint8) Word { return 0xd503201f | Word(imm&0x7f)<<5 }

// Isb is ISB SY (C6.2.114), a context synchronization event.
func Isb() Word { return 0xd5033fdf }

// Barrier options of DMB and DSB (C6.2.78).
const (
	OptISH   = 0xb
	OptISHST = 0xa
	OptSY    = 0xf
)

// Dmb is DMB <option> (C6.2.78).
func Dmb(option uint8) Word { return 0xd50330bf | Word(option&15)<<8 }

// Dsb is DSB <option> (C6.2.80).
func Dsb(option uint8) Word { return 0xd503309f | Word(option&15)<<8 }

// Brk is BRK #imm (C6.2.36).
func Brk(imm uint16) Word { return 0xd4200000 | Word(imm)<<5 }

// Svc is SVC #imm (C6.2.365).
func Svc(imm uint16) Word { return 0xd4000001 | Word(imm)<<5 }

// B is B target from the instruction at pc (C6.2.26); ok is false when
// the offset is not a multiple of 4 or outside ±128 MiB.
func B(pc, target uint64) (Word, bool) {
	off, ok := branchOffset(pc, target, 26)
	return 0x14000000 | off, ok
}

// BL is BL target from the instruction at pc (C6.2.33), the word
// ftrace_make_call writes (aarch64_insn_gen_branch_imm with LINK).
func BL(pc, target uint64) (Word, bool) {
	off, ok := branchOffset(pc, target, 26)
	return 0x94000000 | off, ok
}

// BCond is B.cond target from the instruction at pc (C6.2.27); ±1 MiB.
func BCond(cond uint8, pc, target uint64) (Word, bool) {
	off, ok := branchOffset(pc, target, 19)
	return 0x54000000 | off<<5 | Word(cond&15), ok
}

// Cbz is CBZ Xt, target (C6.2.48); Cbnz is CBNZ (C6.2.49); ±1 MiB.
func Cbz(rt int, pc, target uint64) (Word, bool) {
	off, ok := branchOffset(pc, target, 19)
	return 0xb4000000 | off<<5 | reg(rt), ok
}

// Cbnz is CBNZ Xt, target (C6.2.49).
func Cbnz(rt int, pc, target uint64) (Word, bool) {
	w, ok := Cbz(rt, pc, target)
	return w | 1<<24, ok
}

func branchOffset(pc, target uint64, n uint) (Word, bool) {
	d := int64(target - pc)
	lim := int64(1) << (n + 1) // in bytes: imm is d/4 in n signed bits
	ok := d&3 == 0 && d >= -lim && d < lim
	return Word(uint64(d>>2) & (1<<n - 1)), ok
}

// Br is BR Xn (C6.2.37).
func Br(rn int) Word { return 0xd61f0000 | reg(rn)<<5 }

// Blr is BLR Xn (C6.2.35).
func Blr(rn int) Word { return 0xd63f0000 | reg(rn)<<5 }

// Ret is RET Xn (C6.2.219); Ret(LR) is the plain "ret", Ret(X9) the
// return of arm64's ftrace_caller.
func Ret(rn int) Word { return 0xd65f0000 | reg(rn)<<5 }

// MovReg is MOV Xd, Xm, the alias of ORR Xd, XZR, Xm (C6.2.189):
// MovReg(X9, LR) is aa1e03e9, the word ftrace_init_nop writes. 31 means
// XZR here; use AddImm(SP, Xn, 0) to move to or from SP.
func MovReg(rd, rm int) Word { return 0xaa0003e0 | reg(rm)<<16 | reg(rd) }

// MovZ is MOVZ Xd, #imm, LSL #shift (C6.2.192); shift is 0, 16, 32 or 48.
func MovZ(rd int, imm uint16, shift uint) Word { return moveWide(0xd2800000, rd, imm, shift) }

// MovK is MOVK Xd, #imm, LSL #shift (C6.2.190).
func MovK(rd int, imm uint16, shift uint) Word { return moveWide(0xf2800000, rd, imm, shift) }

// MovN is MOVN Xd, #imm, LSL #shift (C6.2.191).
func MovN(rd int, imm uint16, shift uint) Word { return moveWide(0x92800000, rd, imm, shift) }

func moveWide(op Word, rd int, imm uint16, shift uint) Word {
	if shift%16 != 0 || shift > 48 {
		panic(fmt.Sprintf("arm64: move-wide shift %d is not 0, 16, 32 or 48", shift))
	}
	return op | Word(shift/16)<<21 | Word(imm)<<5 | reg(rd)
}

// AddImm is ADD Xd, Xn, #imm (C6.2.4); 31 means SP for both registers.
// imm must be below 4096, or a multiple of 4096 below 2^24 (LSL #12).
func AddImm(rd, rn int, imm uint64) (Word, bool) { return addSubImm(0x91000000, rd, rn, imm) }

// SubImm is SUB Xd, Xn, #imm (C6.2.357); 31 means SP.
func SubImm(rd, rn int, imm uint64) (Word, bool) { return addSubImm(0xd1000000, rd, rn, imm) }

// SubsImm is SUBS Xd, Xn, #imm (C6.2.363); rd 31 means XZR (CMP).
func SubsImm(rd, rn int, imm uint64) (Word, bool) { return addSubImm(0xf1000000, rd, rn, imm) }

// CmpImm is CMP Xn, #imm, the alias of SUBS XZR, Xn, #imm (C6.2.57).
func CmpImm(rn int, imm uint64) (Word, bool) { return SubsImm(XZR, rn, imm) }

func addSubImm(op Word, rd, rn int, imm uint64) (Word, bool) {
	switch {
	case imm < 1<<12:
		return op | Word(imm)<<10 | reg(rn)<<5 | reg(rd), true
	case imm&0xfff == 0 && imm < 1<<24:
		return op | 1<<22 | Word(imm>>12)<<10 | reg(rn)<<5 | reg(rd), true
	}
	return op | reg(rn)<<5 | reg(rd), false
}

// Pair forms of STP/LDP Xt1, Xt2 (C6.2.321 STP, C6.2.164 LDP): off is a
// multiple of 8 in -512..504, else they panic; 31 as rn means SP.
func StpPre(rt, rt2, rn int, off int) Word  { return pair(0xa9800000, rt, rt2, rn, off) }
func StpPost(rt, rt2, rn int, off int) Word { return pair(0xa8800000, rt, rt2, rn, off) }
func StpOff(rt, rt2, rn int, off int) Word  { return pair(0xa9000000, rt, rt2, rn, off) }
func LdpPre(rt, rt2, rn int, off int) Word  { return pair(0xa9c00000, rt, rt2, rn, off) }
func LdpPost(rt, rt2, rn int, off int) Word { return pair(0xa8c00000, rt, rt2, rn, off) }
func LdpOff(rt, rt2, rn int, off int) Word  { return pair(0xa9400000, rt, rt2, rn, off) }

func pair(op Word, rt, rt2, rn int, off int) Word {
	if off%8 != 0 || off < -512 || off > 504 {
		panic(fmt.Sprintf("arm64: pair offset %d is not a multiple of 8 in -512..504", off))
	}
	return op | Word(off/8&0x7f)<<15 | reg(rt2)<<10 | reg(rn)<<5 | reg(rt)
}

// LdrImm is LDR Xt, [Xn, #off] (C6.2.166, unsigned offset): off is a
// multiple of 8 in 0..32760, else it panics. StrImm is STR (C6.2.322).
func LdrImm(rt, rn int, off int) Word { return scaled(0xf9400000, rt, rn, off) }
func StrImm(rt, rn int, off int) Word { return scaled(0xf9000000, rt, rn, off) }

func scaled(op Word, rt, rn int, off int) Word {
	if off%8 != 0 || off < 0 || off > 8*4095 {
		panic(fmt.Sprintf("arm64: offset %d is not a multiple of 8 in 0..32760", off))
	}
	return op | Word(off/8)<<10 | reg(rn)<<5 | reg(rt)
}

// Pre- and post-indexed LDR/STR Xt (C6.2.166, C6.2.322) with off in
// -256..255, else they panic: StrPre(X0, SP, -16) is "str x0, [sp, #-16]!".
func LdrPre(rt, rn int, off int) Word  { return index9(0xf8400c00, rt, rn, off) }
func LdrPost(rt, rn int, off int) Word { return index9(0xf8400400, rt, rn, off) }
func StrPre(rt, rn int, off int) Word  { return index9(0xf8000c00, rt, rn, off) }
func StrPost(rt, rn int, off int) Word { return index9(0xf8000400, rt, rn, off) }

// Pre- and post-indexed LDRB/STRB Wt (C6.2.170, C6.2.326), a zero-extended
// byte load and a byte store, off in -256..255.
func LdrbPre(rt, rn int, off int) Word  { return index9(0x38400c00, rt, rn, off) }
func LdrbPost(rt, rn int, off int) Word { return index9(0x38400400, rt, rn, off) }
func StrbPre(rt, rn int, off int) Word  { return index9(0x38000c00, rt, rn, off) }
func StrbPost(rt, rn int, off int) Word { return index9(0x38000400, rt, rn, off) }

// Ldur is LDUR Xt, [Xn, #off] (C6.2.195), off in -256..255.
func Ldur(rt, rn int, off int) Word { return index9(0xf8400000, rt, rn, off) }

func index9(op Word, rt, rn int, off int) Word {
	if off < -256 || off > 255 {
		panic(fmt.Sprintf("arm64: offset %d outside -256..255", off))
	}
	return op | Word(off&0x1ff)<<12 | reg(rn)<<5 | reg(rt)
}

// LdrLit is LDR Xt, label (C6.2.167, literal) from the instruction at pc;
// ok is false unless target-pc is a multiple of 4 within ±1 MiB.
func LdrLit(rt int, pc, target uint64) (Word, bool) {
	off, ok := branchOffset(pc, target, 19)
	return 0x58000000 | off<<5 | reg(rt), ok
}

// Adr is ADR Xd, label (C6.2.10) from the instruction at pc (±1 MiB).
func Adr(rd int, pc, target uint64) (Word, bool) {
	d := int64(target - pc)
	ok := d >= -(1<<20) && d < 1<<20
	return 0x10000000 | Word(d&3)<<29 | Word(d>>2&0x7ffff)<<5 | reg(rd), ok
}

// Adrp is ADRP Xd, label (C6.2.11): the 4 KiB page of target, from the
// page of pc (±4 GiB).
func Adrp(rd int, pc, target uint64) (Word, bool) {
	d := int64(target&^0xfff-pc&^0xfff) >> 12
	ok := d >= -(1<<20) && d < 1<<20
	return 0x90000000 | Word(d&3)<<29 | Word(d>>2&0x7ffff)<<5 | reg(rd), ok
}

// InCMODXSet reports whether w is one of the instructions the ARMv8 ARM
// (DDI 0487, B2.2.5 "Concurrent modification and execution of
// instructions") allows another PE to modify while this one may execute
// it, with the result being either the old or the new instruction: B, BL,
// BRK, HVC, ISB, NOP, SMC and SVC. NOP is the NOP hint d503201f only
// (not the other hints, BTI included); ISB takes any option.
func InCMODXSet(w uint32) bool {
	switch {
	case w&0x7c000000 == 0x14000000: // B, BL
		return true
	case w&0xffe0001f == 0xd4200000: // BRK
		return true
	case w&0xffe0001c == 0xd4000000 && w&3 != 0: // SVC (01), HVC (10), SMC (11)
		return true
	case w&0xfffff0ff == 0xd50330df: // ISB
		return true
	case w == 0xd503201f: // NOP
		return true
	}
	return false
}

// Shift types of the shifted-register operand (C6.2, "shift").
const (
	ShiftLSL uint8 = iota
	ShiftLSR
	ShiftASR
)

// shifted is the 64-bit data-processing (shifted register) form
// (C4.1.87): op rd, rn, rm, shift #amount (0..63).
func shifted(op Word, rd, rn, rm int, sh uint8, amount uint) Word {
	if amount > 63 || sh > ShiftASR {
		panic(fmt.Sprintf("arm64: shift %d #%d out of range", sh, amount))
	}
	return op | Word(sh)<<22 | reg(rm)<<16 | Word(amount)<<10 | reg(rn)<<5 | reg(rd)
}

// AddReg is ADD Xd, Xn, Xm{, shift #amount} (C6.2.5); SubReg SUB
// (C6.2.357); AndReg AND (C6.2.13); OrrReg ORR (C6.2.230); EorReg EOR
// (C6.2.95). Register 31 is XZR.
func AddReg(rd, rn, rm int, sh uint8, amount uint) Word {
	return shifted(0x8b000000, rd, rn, rm, sh, amount)
}
func SubReg(rd, rn, rm int, sh uint8, amount uint) Word {
	return shifted(0xcb000000, rd, rn, rm, sh, amount)
}
func AndReg(rd, rn, rm int, sh uint8, amount uint) Word {
	return shifted(0x8a000000, rd, rn, rm, sh, amount)
}
func OrrReg(rd, rn, rm int, sh uint8, amount uint) Word {
	return shifted(0xaa000000, rd, rn, rm, sh, amount)
}
func EorReg(rd, rn, rm int, sh uint8, amount uint) Word {
	return shifted(0xca000000, rd, rn, rm, sh, amount)
}

// BicReg is BIC Xd, Xn, Xm{, shift #amount} (C6.2.30): Xn AND NOT Xm.
func BicReg(rd, rn, rm int, sh uint8, amount uint) Word {
	return shifted(0x8a200000, rd, rn, rm, sh, amount)
}

// Ldxr is LDXR Rt, [Xn] of size bytes (1, 2, 4 or 8: LDXRB, LDXRH, LDXR
// Wt, LDXR Xt; C6.2.135), LDAXR when acquire (C6.2.112); Stxr is STXR Ws,
// Rt, [Xn] (C6.2.325), STLXR when release (C6.2.312): Ws is 0 when it
// stored, 1 when not. Register 31 is SP as the base, XZR as Rt.
func Ldxr(size, rt, rn int, acquire bool) Word {
	return exclusiveEnc(0x085f7c00, size, rt, rn, acquire)
}
func Stxr(size, rs, rt, rn int, release bool) Word {
	return exclusiveEnc(0x08007c00, size, rt, rn, release) | reg(rs)<<16
}

func exclusiveEnc(op Word, size, rt, rn int, order bool) Word {
	w := op | Word(bits.TrailingZeros(uint(size))&3)<<30 | reg(rn)<<5 | reg(rt)
	if order {
		w |= 1 << 15
	}
	return w
}

// Clrex is CLREX (C6.2.56): it opens the CPU's exclusive monitor.
func Clrex() Word { return 0xd5033f5f }

// SubsReg is SUBS Xd, Xn, Xm{, shift #amount} (C6.2.363); CmpReg is its
// alias CMP Xn, Xm (Xd = XZR).
func SubsReg(rd, rn, rm int, sh uint8, amount uint) Word {
	return shifted(0xeb000000, rd, rn, rm, sh, amount)
}
func CmpReg(rn, rm int) Word { return SubsReg(XZR, rn, rm, ShiftLSL, 0) }

// Neg is NEG Xd, Xm, the alias of SUB Xd, XZR, Xm (C6.2.205).
func Neg(rd, rm int) Word { return SubReg(rd, XZR, rm, ShiftLSL, 0) }

// Lslv, Lsrv and Asrv shift Xn by Xm modulo 64 (C6.2.178, C6.2.182,
// C6.2.18).
func Lslv(rd, rn, rm int) Word { return 0x9ac02000 | reg(rm)<<16 | reg(rn)<<5 | reg(rd) }
func Lsrv(rd, rn, rm int) Word { return 0x9ac02400 | reg(rm)<<16 | reg(rn)<<5 | reg(rd) }
func Asrv(rd, rn, rm int) Word { return 0x9ac02800 | reg(rm)<<16 | reg(rn)<<5 | reg(rd) }

// Madd is MADD Xd, Xn, Xm, Xa: Xd = Xa + Xn*Xm (C6.2.189); Mul is its
// alias with Xa = XZR.
func Madd(rd, rn, rm, ra int) Word {
	return 0x9b000000 | reg(rm)<<16 | reg(ra)<<10 | reg(rn)<<5 | reg(rd)
}
func Mul(rd, rn, rm int) Word { return Madd(rd, rn, rm, XZR) }

// bitfieldEnc is the 64-bit UBFM/SBFM (C6.2.377, C6.2.266) with immr, imms
// in 0..63.
func bitfieldEnc(op Word, rd, rn int, immr, imms uint) Word {
	if immr > 63 || imms > 63 {
		panic(fmt.Sprintf("arm64: bitfield #%d, #%d out of range", immr, imms))
	}
	return op | Word(immr)<<16 | Word(imms)<<10 | reg(rn)<<5 | reg(rd)
}

// Ubfm and Sbfm are the 64-bit bitfield moves; LslImm, LsrImm, AsrImm and
// Ubfx are their aliases (C6.2.176, C6.2.180, C6.2.16, C6.2.376).
func Ubfm(rd, rn int, immr, imms uint) Word { return bitfieldEnc(0xd3400000, rd, rn, immr, imms) }
func Sbfm(rd, rn int, immr, imms uint) Word { return bitfieldEnc(0x93400000, rd, rn, immr, imms) }
func LslImm(rd, rn int, sh uint) Word       { return Ubfm(rd, rn, (64-sh)%64, 63-sh) }
func LsrImm(rd, rn int, sh uint) Word       { return Ubfm(rd, rn, sh, 63) }
func AsrImm(rd, rn int, sh uint) Word       { return Sbfm(rd, rn, sh, 63) }
func Ubfx(rd, rn int, lsb, width uint) Word { return Ubfm(rd, rn, lsb, lsb+width-1) }
