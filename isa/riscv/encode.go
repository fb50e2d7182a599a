package riscv

import (
	"encoding/binary"
	"fmt"
)

// Section numbers below are those of The RISC-V Instruction Set Manual,
// Volume I: Unprivileged ISA, version 20191213 ("the spec").

// Word is one 32-bit instruction encoding.
type Word uint32

// Bytes returns the little-endian bytes of w, as they sit in memory (§1.5).
func (w Word) Bytes() []byte { return binary.LittleEndian.AppendUint32(make([]byte, 0, 4), uint32(w)) }

// String returns the word as eight hex digits.
func (w Word) String() string { return fmt.Sprintf("%08x", uint32(w)) }

// Half is one 16-bit compressed (RVC) instruction encoding.
type Half uint16

// Bytes returns the little-endian bytes of h.
func (h Half) Bytes() []byte { return []byte{byte(h), byte(h >> 8)} }

// String returns the halfword as four hex digits.
func (h Half) String() string { return fmt.Sprintf("%04x", uint16(h)) }

// Register numbers x0..x31 by their ABI names (psABI, "Integer Register
// Convention"). x0 always reads as zero.
const (
	Zero = 0
	RA   = 1 // return address (a link register, §2.5)
	SP   = 2
	GP   = 3
	TP   = 4
	T0   = 5 // the alternate link register (§2.5): ftrace's call sites link through it
	T1   = 6
	T2   = 7
	S0   = 8 // also fp
	S1   = 9
	A0   = 10
	A1   = 11
	A2   = 12
	A3   = 13
	A4   = 14
	A5   = 15
	A6   = 16
	A7   = 17
	S2   = 18
	S3   = 19
	S4   = 20
	S5   = 21
	S6   = 22
	S7   = 23
	S8   = 24
	S9   = 25
	S10  = 26
	S11  = 27
	T3   = 28
	T4   = 29
	T5   = 30
	T6   = 31
)

func itype(op, funct3 uint32, rd, rs1 int, imm int32) Word {
	if imm < -2048 || imm > 2047 {
		// Masking would silently encode a different immediate.
		panic(fmt.Sprintf("riscv: immediate %d out of range ±2048", imm))
	}
	return Word(uint32(imm)<<20 | uint32(rs1&31)<<15 | funct3<<12 | uint32(rd&31)<<7 | op)
}

func stype(funct3 uint32, rs2, rs1 int, imm int32) Word {
	if imm < -2048 || imm > 2047 {
		panic(fmt.Sprintf("riscv: store offset %d out of range ±2048", imm))
	}
	u := uint32(imm)
	return Word(u>>5<<25 | uint32(rs2&31)<<20 | uint32(rs1&31)<<15 | funct3<<12 | (u&31)<<7 | 0x23)
}

// Lui is LUI rd, imm20 (§2.4.1, U-type): rd = sext(imm20 << 12).
func Lui(rd int, imm20 uint32) Word { return Word(imm20&0xfffff<<12 | uint32(rd&31)<<7 | 0x37) }

// Auipc is AUIPC rd, imm20 (§2.4.1, U-type): rd = pc + sext(imm20 << 12).
// Auipc(T0, 0) is 00000297, the AUIPC_T0 of arch/riscv/include/asm/ftrace.h.
func Auipc(rd int, imm20 uint32) Word { return Word(imm20&0xfffff<<12 | uint32(rd&31)<<7 | 0x17) }

// Addi is ADDI rd, rs1, imm (§2.4.1, I-type). Like every encoder with a
// 12-bit immediate it panics unless -2048 <= imm <= 2047.
func Addi(rd, rs1 int, imm int32) Word { return itype(0x13, 0, rd, rs1, imm) }

// Nop is NOP, ADDI x0, x0, 0 (§2.4.1): 00000013, the kernel's NOP4.
func Nop() Word { return Addi(Zero, Zero, 0) }

// Mv is MV rd, rs, the pseudo-instruction ADDI rd, rs, 0 (§2.4.1).
func Mv(rd, rs int) Word { return Addi(rd, rs, 0) }

// Jalr is JALR rd, imm(rs1) (§2.5.1, I-type): rd = pc+4, pc = (rs1+imm) &^ 1.
// Jalr(T0, T0, 0) is 000282e7, the kernel's JALR_T0.
func Jalr(rd, rs1 int, imm int32) Word { return itype(0x67, 0, rd, rs1, imm) }

// Ret is RET, JALR x0, 0(ra) (§2.5.1): 00008067.
func Ret() Word { return Jalr(Zero, RA, 0) }

// Jr is JR rs, JALR x0, 0(rs). Jr(T0) is how the ftrace trampolines of the
// t0 eras return into the traced function.
func Jr(rs int) Word { return Jalr(Zero, rs, 0) }

// Jal is JAL rd, target from the instruction at pc (§2.5.1, J-type); ok is
// false when target-pc is odd or outside ±1 MiB.
func Jal(rd int, pc, target uint64) (Word, bool) {
	d := int64(target - pc)
	ok := d&1 == 0 && d >= -(1<<20) && d < 1<<20
	u := uint32(d)
	return Word(u>>20&1<<31 | u>>1&0x3ff<<21 | u>>11&1<<20 | u>>12&0xff<<12 | uint32(rd&31)<<7 | 0x6f), ok
}

func branch(funct3 uint32, rs1, rs2 int, pc, target uint64) (Word, bool) {
	d := int64(target - pc)
	ok := d&1 == 0 && d >= -(1<<12) && d < 1<<12
	u := uint32(d)
	return Word(u>>12&1<<31 | u>>5&0x3f<<25 | uint32(rs2&31)<<20 | uint32(rs1&31)<<15 | funct3<<12 |
		u>>1&0xf<<8 | u>>11&1<<7 | 0x63), ok
}

// Beq is BEQ rs1, rs2, target from the instruction at pc (§2.5.2, B-type);
// ok is false when target-pc is odd or outside ±4 KiB. The other branches
// are alike.
func Beq(rs1, rs2 int, pc, target uint64) (Word, bool) { return branch(0, rs1, rs2, pc, target) }

// Bne is BNE rs1, rs2, target (§2.5.2).
func Bne(rs1, rs2 int, pc, target uint64) (Word, bool) { return branch(1, rs1, rs2, pc, target) }

// Blt is BLT rs1, rs2, target (§2.5.2), signed.
func Blt(rs1, rs2 int, pc, target uint64) (Word, bool) { return branch(4, rs1, rs2, pc, target) }

// Bge is BGE rs1, rs2, target (§2.5.2), signed.
func Bge(rs1, rs2 int, pc, target uint64) (Word, bool) { return branch(5, rs1, rs2, pc, target) }

// Bltu is BLTU rs1, rs2, target (§2.5.2), unsigned.
func Bltu(rs1, rs2 int, pc, target uint64) (Word, bool) { return branch(6, rs1, rs2, pc, target) }

// Bgeu is BGEU rs1, rs2, target (§2.5.2), unsigned.
func Bgeu(rs1, rs2 int, pc, target uint64) (Word, bool) { return branch(7, rs1, rs2, pc, target) }

// Ld is LD rd, off(rs1) (§5.3, RV64I): a 64-bit load.
func Ld(rd, rs1 int, off int32) Word { return itype(0x03, 3, rd, rs1, off) }

// Lw is LW rd, off(rs1) (§2.6): a 32-bit load, sign-extended.
func Lw(rd, rs1 int, off int32) Word { return itype(0x03, 2, rd, rs1, off) }

// Lbu is LBU rd, off(rs1) (§2.6): a byte load, zero-extended.
func Lbu(rd, rs1 int, off int32) Word { return itype(0x03, 4, rd, rs1, off) }

// Sb is SB rs2, off(rs1) (§2.6): a byte store.
func Sb(rs2, rs1 int, off int32) Word { return stype(0, rs2, rs1, off) }

// Sd is SD rs2, off(rs1) (§5.3, RV64I): a 64-bit store.
func Sd(rs2, rs1 int, off int32) Word { return stype(3, rs2, rs1, off) }

// Sw is SW rs2, off(rs1) (§2.6): a 32-bit store.
func Sw(rs2, rs1 int, off int32) Word { return stype(2, rs2, rs1, off) }

// Fence is FENCE iorw, iorw (§2.7): 0ff0000f.
func Fence() Word { return 0x0ff0000f }

// FenceI is FENCE.I (§3, Zifencei): 0000100f.
func FenceI() Word { return 0x0000100f }

// Ecall is ECALL (§2.8): 00000073.
func Ecall() Word { return 0x00000073 }

// Ebreak is EBREAK (§2.8): 00100073.
func Ebreak() Word { return 0x00100073 }

// Call returns the AUIPC rd, hi + JALR link, lo(rd) pair that calls target
// from pc (the kernel's make_call_t0 with rd = link = T0, and with RA the
// -pg mcount call): hi is the offset rounded so that the sign-extended low
// 12 bits in the jalr add back to it. ok is false when target-pc does not
// fit in a signed 32-bit offset (the reach of auipc+jalr) or is odd.
func Call(link int, pc, target uint64) (auipc, jalr Word, ok bool) {
	d := int64(target - pc)
	ok = d&1 == 0 && d >= -(1<<31)-(1<<11) && d < 1<<31-(1<<11)
	hi := uint32((d + 0x800) >> 12)
	lo := int32(d << 52 >> 52) // the low 12 bits, sign-extended
	return Auipc(link, hi), Jalr(link, link, lo), ok
}

// CNop is C.NOP (§16.5): 0001, what -fpatchable-function-entry emits with RVC.
func CNop() Half { return 0x0001 }

// CJr is C.JR rs1 (§16.4): JALR x0, 0(rs1); rs1 must not be x0.
func CJr(rs1 int) Half { return Half(0x8002 | uint16(rs1&31)<<7) }

// CRet is C.JR ra (§16.4): 8082.
func CRet() Half { return CJr(RA) }

// CEbreak is C.EBREAK (§16.8): 9002.
func CEbreak() Half { return 0x9002 }

func rType(op, funct3, funct7 uint32, rd, rs1, rs2 int) Word {
	return Word(funct7<<25 | uint32(rs2&31)<<20 | uint32(rs1&31)<<15 | funct3<<12 | uint32(rd&31)<<7 | op)
}

// shiftImm is the I-type shift of §2.4.1 and §5.2: the shift amount in
// imm[5:0] (imm[4:0] for the W forms, whose bound is 32), funct6 above it.
func shiftImm(op, funct3, funct6 uint32, rd, rs1 int, sh uint, bound uint) Word {
	if sh >= bound {
		panic(fmt.Sprintf("riscv: shift amount %d out of range 0..%d", sh, bound-1))
	}
	return Word(funct6<<26 | uint32(sh)<<20 | uint32(rs1&31)<<15 | funct3<<12 | uint32(rd&31)<<7 | op)
}

// The register-register operations of §2.4.2 (and their RV64 W forms,
// §5.2, which operate on the low 32 bits and sign-extend the result).
func Add(rd, rs1, rs2 int) Word  { return rType(0x33, 0, 0x00, rd, rs1, rs2) }
func Sub(rd, rs1, rs2 int) Word  { return rType(0x33, 0, 0x20, rd, rs1, rs2) }
func Sll(rd, rs1, rs2 int) Word  { return rType(0x33, 1, 0x00, rd, rs1, rs2) }
func Slt(rd, rs1, rs2 int) Word  { return rType(0x33, 2, 0x00, rd, rs1, rs2) }
func Sltu(rd, rs1, rs2 int) Word { return rType(0x33, 3, 0x00, rd, rs1, rs2) }
func Xor(rd, rs1, rs2 int) Word  { return rType(0x33, 4, 0x00, rd, rs1, rs2) }
func Srl(rd, rs1, rs2 int) Word  { return rType(0x33, 5, 0x00, rd, rs1, rs2) }
func Sra(rd, rs1, rs2 int) Word  { return rType(0x33, 5, 0x20, rd, rs1, rs2) }
func Or(rd, rs1, rs2 int) Word   { return rType(0x33, 6, 0x00, rd, rs1, rs2) }
func And(rd, rs1, rs2 int) Word  { return rType(0x33, 7, 0x00, rd, rs1, rs2) }
func Addw(rd, rs1, rs2 int) Word { return rType(0x3b, 0, 0x00, rd, rs1, rs2) }
func Subw(rd, rs1, rs2 int) Word { return rType(0x3b, 0, 0x20, rd, rs1, rs2) }

// Mul is MUL rd, rs1, rs2 (§7.1, M): the low 64 bits of the product.
func Mul(rd, rs1, rs2 int) Word { return rType(0x33, 0, 0x01, rd, rs1, rs2) }

// Neg is NEG rd, rs, the pseudo-instruction SUB rd, x0, rs.
func Neg(rd, rs int) Word { return Sub(rd, Zero, rs) }

// The register-immediate operations of §2.4.1 (12-bit immediates; they
// panic outside -2048..2047, as Addi).
func Slti(rd, rs1 int, imm int32) Word  { return itype(0x13, 2, rd, rs1, imm) }
func Sltiu(rd, rs1 int, imm int32) Word { return itype(0x13, 3, rd, rs1, imm) }
func Xori(rd, rs1 int, imm int32) Word  { return itype(0x13, 4, rd, rs1, imm) }
func Ori(rd, rs1 int, imm int32) Word   { return itype(0x13, 6, rd, rs1, imm) }
func Andi(rd, rs1 int, imm int32) Word  { return itype(0x13, 7, rd, rs1, imm) }

// Addiw is ADDIW rd, rs1, imm (§5.2): the 32-bit sum, sign-extended;
// Addiw(rd, rs, 0) is SEXT.W rd, rs.
func Addiw(rd, rs1 int, imm int32) Word { return itype(0x1b, 0, rd, rs1, imm) }

// Slli, Srli and Srai shift by 0..63 (§5.2); the W forms by 0..31. They
// panic on a larger amount.
func Slli(rd, rs1 int, sh uint) Word  { return shiftImm(0x13, 1, 0x00, rd, rs1, sh, 64) }
func Srli(rd, rs1 int, sh uint) Word  { return shiftImm(0x13, 5, 0x00, rd, rs1, sh, 64) }
func Srai(rd, rs1 int, sh uint) Word  { return shiftImm(0x13, 5, 0x10, rd, rs1, sh, 64) }
func Slliw(rd, rs1 int, sh uint) Word { return shiftImm(0x1b, 1, 0x00, rd, rs1, sh, 32) }
func Srliw(rd, rs1 int, sh uint) Word { return shiftImm(0x1b, 5, 0x00, rd, rs1, sh, 32) }
func Sraiw(rd, rs1 int, sh uint) Word { return shiftImm(0x1b, 5, 0x10, rd, rs1, sh, 32) }

// Li32 returns LUI rd, hi + ADDIW rd, rd, lo: rd = v, sign-extended from
// 32 bits (the li pseudo-instruction for a 32-bit constant).
func Li32(rd int, v int32) (Word, Word) {
	lo := v << 20 >> 20
	hi := uint32(int64(v)-int64(lo)) >> 12
	return Lui(rd, hi), Addiw(rd, rd, lo)
}
