package x86

import (
	"encoding/binary"
	"fmt"
	"math"
)

// Section references are to the Intel 64 and IA-32 Architectures Software
// Developer's Manual, Volume 2 ("SDM"): chapter 2 for the encoding rules
// (REX §2.2.1, ModR/M and SIB tables 2-2 and 2-3) and chapters 3–5 for the
// instruction pages named on each encoder.

// Reg is a 64-bit general-purpose register, numbered as the hardware
// encodes it (the low three bits go in ModR/M or the opcode, bit 3 in REX).
type Reg uint8

// The general-purpose registers.
const (
	RAX Reg = iota
	RCX
	RDX
	RBX
	RSP
	RBP
	RSI
	RDI
	R8
	R9
	R10
	R11
	R12
	R13
	R14
	R15
)

var regNames = [...]string{"rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi",
	"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15"}

// String returns the register's name without the AT&T "%".
func (r Reg) String() string {
	if int(r) < len(regNames) {
		return regNames[r]
	}
	return fmt.Sprintf("Reg(%d)", uint8(r))
}

// Cond is an x86 condition code, the cccc field of Jcc, SETcc and CMOVcc
// (SDM Vol. 1 appendix B, table B-1).
type Cond uint8

// The condition codes.
const (
	O  Cond = iota // overflow: OF=1
	NO             // OF=0
	B              // below (carry): CF=1
	AE             // above or equal (no carry): CF=0
	E              // equal (zero): ZF=1
	NE             // ZF=0
	BE             // below or equal: CF=1 or ZF=1
	A              // above: CF=0 and ZF=0
	S              // sign: SF=1
	NS             // SF=0
	P              // parity even: PF=1
	NP             // PF=0
	L              // less: SF≠OF
	GE             // SF=OF
	LE             // ZF=1 or SF≠OF
	G              // ZF=0 and SF=OF
)

var condNames = [...]string{"o", "no", "b", "ae", "e", "ne", "be", "a",
	"s", "ns", "p", "np", "l", "ge", "le", "g"}

// String returns the condition's suffix as in "jne".
func (c Cond) String() string {
	if int(c) < len(condNames) {
		return condNames[c]
	}
	return fmt.Sprintf("Cond(%d)", uint8(c))
}

func rel32(from, target uint64) ([]byte, bool) {
	d := int64(target - from)
	var b [4]byte
	binary.LittleEndian.PutUint32(b[:], uint32(d))
	return b[:], d >= math.MinInt32 && d <= math.MaxInt32
}

func fits8(d int64) bool { return d >= math.MinInt8 && d <= math.MaxInt8 }

// CallRel32 is CALL rel32 at pc (SDM "CALL—Call Procedure", E8 cd): the
// displacement is target-(pc+5). ok is false when target is out of range.
func CallRel32(pc, target uint64) ([]byte, bool) {
	rel, ok := rel32(pc+5, target)
	return append([]byte{0xe8}, rel...), ok
}

// JmpRel8 is JMP rel8 at pc (SDM "JMP—Jump", EB cb): the displacement is
// target-(pc+2). ok is false when target is out of range.
func JmpRel8(pc, target uint64) ([]byte, bool) {
	d := int64(target - (pc + 2))
	return []byte{0xeb, byte(d)}, fits8(d)
}

// JmpRel32 is JMP rel32 at pc (SDM "JMP—Jump", E9 cd): the displacement is
// target-(pc+5). ok is false when target is out of range.
func JmpRel32(pc, target uint64) ([]byte, bool) {
	rel, ok := rel32(pc+5, target)
	return append([]byte{0xe9}, rel...), ok
}

// Jcc is a conditional jump at pc (SDM "Jcc—Jump if Condition Is Met"): the
// two-byte 70+cc rel8 form when target is within reach, else the six-byte
// 0F 80+cc rel32 form. ok is false when target is out of range of both.
func Jcc(c Cond, pc, target uint64) ([]byte, bool) {
	if d := int64(target - (pc + 2)); fits8(d) {
		return []byte{0x70 | byte(c&15), byte(d)}, true
	}
	rel, ok := rel32(pc+6, target)
	return append([]byte{0x0f, 0x80 | byte(c&15)}, rel...), ok
}

// Nop5 is the five-byte NOP 0F 1F 44 00 00, "nopl 0x0(%rax,%rax,1)" (SDM
// "NOP—No Operation", table 4-12). It is x86_nops[5], the disabled form of
// an ftrace site on x86-64.
func Nop5() []byte { return []byte{0x0f, 0x1f, 0x44, 0x00, 0x00} }

// Int3 is the breakpoint CC (SDM "INT n/INTO/INT3/INT1—Call to Interrupt
// Procedure").
func Int3() []byte { return []byte{0xcc} }

// Ret is the near return C3 (SDM "RET—Return From Procedure").
func Ret() []byte { return []byte{0xc3} }

// Endbr64 is F3 0F 1E FA (SDM "ENDBR64—Terminate an Indirect Branch in
// 64-bit Mode"); it executes as a no-op here.
func Endbr64() []byte { return []byte{0xf3, 0x0f, 0x1e, 0xfa} }

// rex returns the REX prefix with W set as asked and R, B taken from bit 3
// of reg and rm (SDM §2.2.1), or 0 when no prefix is needed.
func rex(w bool, reg, rm Reg) byte {
	p := byte(0)
	if w {
		p |= 8
	}
	if reg&8 != 0 {
		p |= 4
	}
	if rm&8 != 0 {
		p |= 1
	}
	if p != 0 {
		p |= 0x40
	}
	return p
}

func withRex(p byte, rest ...byte) []byte {
	if p == 0 {
		return rest
	}
	return append([]byte{p}, rest...)
}

// Push is PUSH r64 (SDM "PUSH—Push Word, Doubleword, or Quadword Onto the
// Stack", 50+rd; REX.B for r8–r15).
func Push(r Reg) []byte { return withRex(rex(false, 0, r), 0x50|byte(r&7)) }

// Pop is POP r64 (SDM "POP—Pop a Value From the Stack", 58+rd; REX.B for
// r8–r15).
func Pop(r Reg) []byte { return withRex(rex(false, 0, r), 0x58|byte(r&7)) }

// MovRegReg is MOV r/m64, r64 with a register destination (SDM "MOV—Move",
// REX.W 89 /r): "mov %src,%dst".
func MovRegReg(dst, src Reg) []byte {
	return withRex(rex(true, src, dst), 0x89, 0xc0|byte(src&7)<<3|byte(dst&7))
}

// modrmMem encodes the ModR/M byte (and SIB and displacement) for
// [base+disp] with reg in the reg field (SDM tables 2-2 and 2-3): rsp and
// r12 as a base need a SIB byte; rbp and r13 with mod=00 would mean
// RIP-relative or disp32-only, so they always carry a displacement.
func modrmMem(reg, base Reg, disp int32) []byte {
	var mod byte
	switch {
	case disp == 0 && base&7 != 5:
		mod = 0
	case fits8(int64(disp)):
		mod = 1
	default:
		mod = 2
	}
	b := []byte{mod<<6 | byte(reg&7)<<3 | byte(base&7)}
	if base&7 == 4 {
		b = append(b, 0x24) // scale 1, no index, base = rsp/r12
	}
	switch mod {
	case 1:
		b = append(b, byte(disp))
	case 2:
		b = binary.LittleEndian.AppendUint32(b, uint32(disp))
	}
	return b
}

// MovLoad is MOV r64, r/m64 from memory (SDM "MOV—Move", REX.W 8B /r):
// "mov disp(%base),%dst".
func MovLoad(dst, base Reg, disp int32) []byte {
	return withRex(rex(true, dst, base), append([]byte{0x8b}, modrmMem(dst, base, disp)...)...)
}

// MovStore is MOV r/m64, r64 to memory (SDM "MOV—Move", REX.W 89 /r):
// "mov %src,disp(%base)".
func MovStore(base Reg, disp int32, src Reg) []byte {
	return withRex(rex(true, src, base), append([]byte{0x89}, modrmMem(src, base, disp)...)...)
}

// group1 encodes a group-1 ALU operation with an immediate on a 64-bit
// register: REX.W 83 /digit ib when imm fits in a signed byte, else
// REX.W 81 /digit id.
func group1(digit byte, r Reg, imm int32) []byte {
	modrm := 0xc0 | digit<<3 | byte(r&7)
	if fits8(int64(imm)) {
		return withRex(rex(true, 0, r), 0x83, modrm, byte(imm))
	}
	return withRex(rex(true, 0, r), binary.LittleEndian.AppendUint32([]byte{0x81, modrm}, uint32(imm))...)
}

// AddImm is ADD r/m64, imm (SDM "ADD—Add", REX.W 83 /0 ib or 81 /0 id).
func AddImm(r Reg, imm int32) []byte { return group1(0, r, imm) }

// SubImm is SUB r/m64, imm (SDM "SUB—Subtract", REX.W 83 /5 ib or 81 /5 id).
func SubImm(r Reg, imm int32) []byte { return group1(5, r, imm) }

// CmpImm is CMP r/m64, imm (SDM "CMP—Compare Two Operands", REX.W 83 /7 ib
// or 81 /7 id).
func CmpImm(r Reg, imm int32) []byte { return group1(7, r, imm) }
