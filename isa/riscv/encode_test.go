package riscv

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"github.com/mcountsim/mcountsim/internal/isatest"
	"github.com/mcountsim/mcountsim/internal/oracle"
	"os"
	execpkg "os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/arch/riscv64/riscv64asm"
)

// encCase is one encoder result with what riscv64asm, Decode and objdump
// must make of it.
type encCase struct {
	name string
	b    []byte // the encoding's bytes
	ok   bool   // what the encoder reported (true for encoders without ok)
	want string // the expected encoding, as objdump shows it (hex word or halfword)
	op   riscv64asm.Op
	x    xop
	rd   uint8
	rs1  uint8
	rs2  uint8
	imm  int64
	// objdump is GNU objdump's text (mnemonic and operands, before any "#"
	// comment; binutils 2.40 shows an addi with a negative immediate as
	// "add"). %t stands for the target as objdump prints it when the
	// instruction sits at offset off of a raw binary: off + rel.
	objdump string
	rel     int64
}

func w(x Word) ([]byte, bool)            { return x.Bytes(), true }
func wok(x Word, ok bool) ([]byte, bool) { return x.Bytes(), ok }
func h(x Half) ([]byte, bool)            { return x.Bytes(), true }

func encCases() []encCase {
	c := func(name string, b []byte, ok bool, want string, op riscv64asm.Op, x xop, rd, rs1, rs2 uint8, imm int64, objdump string) encCase {
		return encCase{name: name, b: b, ok: ok, want: want, op: op, x: x, rd: rd, rs1: rs1, rs2: rs2, imm: imm, objdump: objdump}
	}
	br := func(e encCase, rel int64) encCase { e.rel = rel; return e }
	call := func(link int, pc, target uint64) (Word, Word) {
		a, j, ok := Call(link, pc, target)
		if !ok {
			panic("Call out of range")
		}
		return a, j
	}
	a1, j1 := call(T0, 0x1000, 0x1000)
	a2, j2 := call(T0, 0x1000, 0x1800)               // lo = -2048: hi rounds up
	a3, j3 := call(RA, 0x80001000, 0x80000000+0x7fe) // backwards, lo = 0x7fe
	li1, li2 := Li32(A0, 0x55555555)
	li3, li4 := Li32(A0, 0x0f0f0f0f)
	return []encCase{
		c("Nop()", first(w(Nop())), true, "00000013", riscv64asm.ADDI, xADDI, 0, 0, 0, 0, "nop"),
		c("Addi(SP,SP,-16)", first(w(Addi(SP, SP, -16))), true, "ff010113", riscv64asm.ADDI, xADDI, SP, SP, 0, -16, "add sp,sp,-16"),
		c("Addi(A0,ZERO,2047)", first(w(Addi(A0, Zero, 2047))), true, "7ff00513", riscv64asm.ADDI, xADDI, A0, 0, 0, 2047, "li a0,2047"),
		c("Addi(A0,A1,-2048)", first(w(Addi(A0, A1, -2048))), true, "80058513", riscv64asm.ADDI, xADDI, A0, A1, 0, -2048, "add a0,a1,-2048"),
		c("Mv(A0,RA)", first(w(Mv(A0, RA))), true, "00008513", riscv64asm.ADDI, xADDI, A0, RA, 0, 0, "mv a0,ra"),
		c("Lui(A5,0x12345)", first(w(Lui(A5, 0x12345))), true, "123457b7", riscv64asm.LUI, xLUI, A5, 0, 0, 0x12345000, "lui a5,0x12345"),
		c("Lui(A5,0xfffff)", first(w(Lui(A5, 0xfffff))), true, "fffff7b7", riscv64asm.LUI, xLUI, A5, 0, 0, -4096, "lui a5,0xfffff"),
		c("Auipc(T0,0)", first(w(Auipc(T0, 0))), true, "00000297", riscv64asm.AUIPC, xAUIPC, T0, 0, 0, 0, "auipc t0,0x0"),
		c("Auipc(RA,0)", first(w(Auipc(RA, 0))), true, "00000097", riscv64asm.AUIPC, xAUIPC, RA, 0, 0, 0, "auipc ra,0x0"),
		c("Jalr(T0,T0,0)", first(w(Jalr(T0, T0, 0))), true, "000282e7", riscv64asm.JALR, xJALR, T0, T0, 0, 0, "jalr t0,t0"),
		c("Jalr(RA,RA,0)", first(w(Jalr(RA, RA, 0))), true, "000080e7", riscv64asm.JALR, xJALR, RA, RA, 0, 0, "jalr ra"),
		c("Jalr(T0,T0,-2048)", first(w(Jalr(T0, T0, -2048))), true, "800282e7", riscv64asm.JALR, xJALR, T0, T0, 0, -2048, "jalr t0,-2048(t0)"),
		c("Ret()", first(w(Ret())), true, "00008067", riscv64asm.JALR, xJALR, 0, RA, 0, 0, "ret"),
		c("Jr(T0)", first(w(Jr(T0))), true, "00028067", riscv64asm.JALR, xJALR, 0, T0, 0, 0, "jr t0"),
		c("Call(T0,0x1000,0x1000).auipc", first(w(a1)), true, "00000297", riscv64asm.AUIPC, xAUIPC, T0, 0, 0, 0, "auipc t0,0x0"),
		c("Call(T0,0x1000,0x1000).jalr", first(w(j1)), true, "000282e7", riscv64asm.JALR, xJALR, T0, T0, 0, 0, "jalr t0,t0"),
		c("Call(T0,0x1000,0x1800).auipc", first(w(a2)), true, "00001297", riscv64asm.AUIPC, xAUIPC, T0, 0, 0, 0x1000, "auipc t0,0x1"),
		c("Call(T0,0x1000,0x1800).jalr", first(w(j2)), true, "800282e7", riscv64asm.JALR, xJALR, T0, T0, 0, -2048, "jalr t0,-2048(t0)"),
		c("Call(RA,back).auipc", first(w(a3)), true, "fffff097", riscv64asm.AUIPC, xAUIPC, RA, 0, 0, -4096, "auipc ra,0xfffff"),
		c("Call(RA,back).jalr", first(w(j3)), true, "7fe080e7", riscv64asm.JALR, xJALR, RA, RA, 0, 2046, "jalr 2046(ra)"),
		br(c("Jal(RA,0x1000,0x1010)", first(wok(Jal(RA, 0x1000, 0x1010))), true, "010000ef", riscv64asm.JAL, xJAL, RA, 0, 0, 16, "jal %t"), 16),
		br(c("Jal(ZERO,0x1000,0x1000-4)", first(wok(Jal(Zero, 0x1000, 0xffc))), true, "ffdff06f", riscv64asm.JAL, xJAL, 0, 0, 0, -4, "j %t"), -4),
		br(c("Jal(T0,0,1MiB-2)", first(wok(Jal(T0, 0, 1<<20-2))), true, "7ffff2ef", riscv64asm.JAL, xJAL, T0, 0, 0, 1<<20-2, "jal t0,%t"), 1<<20-2),
		br(c("Jal(ZERO,1MiB,0)", first(wok(Jal(Zero, 1<<20, 0))), true, "8000006f", riscv64asm.JAL, xJAL, 0, 0, 0, -(1<<20), "j %t"), -(1 << 20)),
		br(c("Beq(A0,A1,+8)", first(wok(Beq(A0, A1, 0x100, 0x108))), true, "00b50463", riscv64asm.BEQ, xBEQ, 0, A0, A1, 8, "beq a0,a1,%t"), 8),
		br(c("Bne(A0,ZERO,-4)", first(wok(Bne(A0, Zero, 0x100, 0xfc))), true, "fe051ee3", riscv64asm.BNE, xBNE, 0, A0, 0, -4, "bnez a0,%t"), -4),
		br(c("Blt(A0,A1,+4094)", first(wok(Blt(A0, A1, 0, 4094))), true, "7eb54fe3", riscv64asm.BLT, xBLT, 0, A0, A1, 4094, "blt a0,a1,%t"), 4094),
		br(c("Bge(A0,A1,-4096)", first(wok(Bge(A0, A1, 4096, 0))), true, "80b55063", riscv64asm.BGE, xBGE, 0, A0, A1, -4096, "bge a0,a1,%t"), -4096),
		br(c("Bltu(T0,T1,+2)", first(wok(Bltu(T0, T1, 0, 2))), true, "0062e163", riscv64asm.BLTU, xBLTU, 0, T0, T1, 2, "bltu t0,t1,%t"), 2),
		br(c("Bgeu(S0,S1,+16)", first(wok(Bgeu(S0, S1, 0, 16))), true, "00947863", riscv64asm.BGEU, xBGEU, 0, S0, S1, 16, "bgeu s0,s1,%t"), 16),
		c("Add(A0,A1,A2)", first(w(Add(A0, A1, A2))), true, "00c58533", riscv64asm.ADD, xADD, A0, A1, A2, 0, "add a0,a1,a2"),
		c("Sub(T0,T1,T2)", first(w(Sub(T0, T1, T2))), true, "407302b3", riscv64asm.SUB, xSUB, T0, T1, T2, 0, "sub t0,t1,t2"),
		c("Neg(A0,A1)", first(w(Neg(A0, A1))), true, "40b00533", riscv64asm.SUB, xSUB, A0, 0, A1, 0, "neg a0,a1"),
		c("Sll(A0,A0,A2)", first(w(Sll(A0, A0, A2))), true, "00c51533", riscv64asm.SLL, xSLL, A0, A0, A2, 0, "sll a0,a0,a2"),
		c("Slt(A0,A1,A2)", first(w(Slt(A0, A1, A2))), true, "00c5a533", riscv64asm.SLT, xSLT, A0, A1, A2, 0, "slt a0,a1,a2"),
		c("Sltu(A0,A1,A2)", first(w(Sltu(A0, A1, A2))), true, "00c5b533", riscv64asm.SLTU, xSLTU, A0, A1, A2, 0, "sltu a0,a1,a2"),
		c("Xor(A0,A1,A2)", first(w(Xor(A0, A1, A2))), true, "00c5c533", riscv64asm.XOR, xXOR, A0, A1, A2, 0, "xor a0,a1,a2"),
		c("Srl(A0,A1,A2)", first(w(Srl(A0, A1, A2))), true, "00c5d533", riscv64asm.SRL, xSRL, A0, A1, A2, 0, "srl a0,a1,a2"),
		c("Sra(A0,A1,A2)", first(w(Sra(A0, A1, A2))), true, "40c5d533", riscv64asm.SRA, xSRA, A0, A1, A2, 0, "sra a0,a1,a2"),
		c("Or(A0,A1,A2)", first(w(Or(A0, A1, A2))), true, "00c5e533", riscv64asm.OR, xOR, A0, A1, A2, 0, "or a0,a1,a2"),
		c("And(A0,A1,A2)", first(w(And(A0, A1, A2))), true, "00c5f533", riscv64asm.AND, xAND, A0, A1, A2, 0, "and a0,a1,a2"),
		c("Addw(A0,A1,A2)", first(w(Addw(A0, A1, A2))), true, "00c5853b", riscv64asm.ADDW, xADDW, A0, A1, A2, 0, "addw a0,a1,a2"),
		c("Subw(A0,A1,A2)", first(w(Subw(A0, A1, A2))), true, "40c5853b", riscv64asm.SUBW, xSUBW, A0, A1, A2, 0, "subw a0,a1,a2"),
		c("Mul(A0,A1,A2)", first(w(Mul(A0, A1, A2))), true, "02c58533", riscv64asm.MUL, xMUL, A0, A1, A2, 0, "mul a0,a1,a2"),
		c("Slti(A0,A1,-1)", first(w(Slti(A0, A1, -1))), true, "fff5a513", riscv64asm.SLTI, xSLTI, A0, A1, 0, -1, "slti a0,a1,-1"),
		c("Sltiu(A0,A1,1)", first(w(Sltiu(A0, A1, 1))), true, "0015b513", riscv64asm.SLTIU, xSLTIU, A0, A1, 0, 1, "seqz a0,a1"),
		c("Xori(A0,A1,-1)", first(w(Xori(A0, A1, -1))), true, "fff5c513", riscv64asm.XORI, xXORI, A0, A1, 0, -1, "not a0,a1"),
		c("Ori(A0,A1,0x7ff)", first(w(Ori(A0, A1, 0x7ff))), true, "7ff5e513", riscv64asm.ORI, xORI, A0, A1, 0, 0x7ff, "or a0,a1,2047"),
		c("Andi(A0,A1,255)", first(w(Andi(A0, A1, 255))), true, "0ff5f513", riscv64asm.ANDI, xANDI, A0, A1, 0, 255, "zext.b a0,a1"),
		c("Addiw(A0,A1,0)", first(w(Addiw(A0, A1, 0))), true, "0005851b", riscv64asm.ADDIW, xADDIW, A0, A1, 0, 0, "sext.w a0,a1"),
		c("Slli(A0,A1,63)", first(w(Slli(A0, A1, 63))), true, "03f59513", riscv64asm.SLLI, xSLLI, A0, A1, 0, 63, "sll a0,a1,0x3f"),
		c("Srli(A0,A1,32)", first(w(Srli(A0, A1, 32))), true, "0205d513", riscv64asm.SRLI, xSRLI, A0, A1, 0, 32, "srl a0,a1,0x20"),
		c("Srai(A0,A1,63)", first(w(Srai(A0, A1, 63))), true, "43f5d513", riscv64asm.SRAI, xSRAI, A0, A1, 0, 63, "sra a0,a1,0x3f"),
		c("Slliw(A0,A1,31)", first(w(Slliw(A0, A1, 31))), true, "01f5951b", riscv64asm.SLLIW, xSLLIW, A0, A1, 0, 31, "sllw a0,a1,0x1f"),
		c("Srliw(A0,A1,1)", first(w(Srliw(A0, A1, 1))), true, "0015d51b", riscv64asm.SRLIW, xSRLIW, A0, A1, 0, 1, "srlw a0,a1,0x1"),
		c("Sraiw(A0,A1,8)", first(w(Sraiw(A0, A1, 8))), true, "4085d51b", riscv64asm.SRAIW, xSRAIW, A0, A1, 0, 8, "sraw a0,a1,0x8"),
		c("Li32(A0,0x55555555).lui", first(w(li1)), true, "55555537", riscv64asm.LUI, xLUI, A0, 0, 0, 0x55555000, "lui a0,0x55555"),
		c("Li32(A0,0x55555555).addiw", first(w(li2)), true, "5555051b", riscv64asm.ADDIW, xADDIW, A0, A0, 0, 0x555, "addw a0,a0,1365"),
		c("Li32(A0,0x0f0f0f0f).lui", first(w(li3)), true, "0f0f1537", riscv64asm.LUI, xLUI, A0, 0, 0, 0x0f0f1000, "lui a0,0xf0f1"),
		c("Li32(A0,0x0f0f0f0f).addiw", first(w(li4)), true, "f0f5051b", riscv64asm.ADDIW, xADDIW, A0, A0, 0, -241, "addw a0,a0,-241"),
		c("Lbu(T1,A1,0)", first(w(Lbu(T1, A1, 0))), true, "0005c303", riscv64asm.LBU, xLBU, T1, A1, 0, 0, "lbu t1,0(a1)"),
		c("Lbu(T1,A1,-1)", first(w(Lbu(T1, A1, -1))), true, "fff5c303", riscv64asm.LBU, xLBU, T1, A1, 0, -1, "lbu t1,-1(a1)"),
		c("Sb(A1,T0,0)", first(w(Sb(A1, T0, 0))), true, "00b28023", riscv64asm.SB, xSB, 0, T0, A1, 0, "sb a1,0(t0)"),
		c("Sb(T1,T0,-1)", first(w(Sb(T1, T0, -1))), true, "fe628fa3", riscv64asm.SB, xSB, 0, T0, T1, -1, "sb t1,-1(t0)"),
		c("Sd(RA,SP,8)", first(w(Sd(RA, SP, 8))), true, "00113423", riscv64asm.SD, xSD, 0, SP, RA, 8, "sd ra,8(sp)"),
		c("Sd(RA,SP,-8)", first(w(Sd(RA, SP, -8))), true, "fe113c23", riscv64asm.SD, xSD, 0, SP, RA, -8, "sd ra,-8(sp)"),
		c("Ld(RA,SP,-8)", first(w(Ld(RA, SP, -8))), true, "ff813083", riscv64asm.LD, xLD, RA, SP, 0, -8, "ld ra,-8(sp)"),
		c("Ld(A2,T0,-16)", first(w(Ld(A2, T0, -16))), true, "ff02b603", riscv64asm.LD, xLD, A2, T0, 0, -16, "ld a2,-16(t0)"),
		c("Sw(A0,A1,2047)", first(w(Sw(A0, A1, 2047))), true, "7ea5afa3", riscv64asm.SW, xSW, 0, A1, A0, 2047, "sw a0,2047(a1)"),
		c("Lw(A0,A1,-2048)", first(w(Lw(A0, A1, -2048))), true, "8005a503", riscv64asm.LW, xLW, A0, A1, 0, -2048, "lw a0,-2048(a1)"),
		c("Fence()", first(w(Fence())), true, "0ff0000f", riscv64asm.FENCE, xFence, 0, 0, 0, 0, "fence"),
		c("FenceI()", first(w(FenceI())), true, "0000100f", riscv64asm.FENCE_I, xFenceI, 0, 0, 0, 0, "fence.i"),
		c("Ecall()", first(w(Ecall())), true, "00000073", riscv64asm.ECALL, xEcall, 0, 0, 0, 0, "ecall"),
		c("Ebreak()", first(w(Ebreak())), true, "00100073", riscv64asm.EBREAK, xEbreak, 0, 0, 0, 0, "ebreak"),
		c("CNop()", first(h(CNop())), true, "0001", riscv64asm.ADDI, xADDI, 0, 0, 0, 0, "nop"),
		c("CRet()", first(h(CRet())), true, "8082", riscv64asm.JALR, xJALR, 0, RA, 0, 0, "ret"),
		c("CJr(T0)", first(h(CJr(T0))), true, "8282", riscv64asm.JALR, xJALR, 0, T0, 0, 0, "jr t0"),
		c("CEbreak()", first(h(CEbreak())), true, "9002", riscv64asm.EBREAK, xEbreak, 0, 0, 0, 0, "ebreak"),
	}
}

func first(b []byte, ok bool) []byte {
	if !ok {
		return nil
	}
	return b
}

// TestEncode checks every encoder against its hex encoding and its round
// trip through riscv64asm and Decode.
func TestEncode(t *testing.T) {
	for _, c := range encCases() {
		t.Run(c.name, func(t *testing.T) {
			require.NotNil(t, c.b, "encoder reported out of range")
			var got string
			if len(c.b) == 2 {
				got = fmt.Sprintf("%04x", binary.LittleEndian.Uint16(c.b))
			} else {
				got = fmt.Sprintf("%08x", binary.LittleEndian.Uint32(c.b))
			}
			assert.Equal(t, c.want, got)
			ai, err := riscv64asm.Decode(c.b)
			require.NoError(t, err)
			assert.Equal(t, c.op, ai.Op, "riscv64asm op")
			assert.Equal(t, len(c.b), ai.Len)
			inst, err := Decode(0x1000, c.b)
			require.NoError(t, err)
			assert.Equal(t, c.x, inst.x)
			assert.Equal(t, uint8(len(c.b)), inst.Len)
			assert.Equal(t, [3]uint8{c.rd, c.rs1, c.rs2}, [3]uint8{inst.Rd, inst.Rs1, inst.Rs2}, "rd rs1 rs2")
			assert.Equal(t, c.imm, inst.Imm)
			assert.True(t, inst.Supported())
		})
	}
}

func TestEncodeRange(t *testing.T) {
	_, ok := Jal(RA, 0, 1<<20)
	assert.False(t, ok, "jal +1MiB")
	_, ok = Jal(RA, 1<<20+2, 0)
	assert.False(t, ok, "jal -1MiB-2")
	_, ok = Jal(RA, 0, 3)
	assert.False(t, ok, "jal odd")
	_, ok = Beq(A0, A1, 0, 4096)
	assert.False(t, ok, "beq +4KiB")
	_, ok = Beq(A0, A1, 4098, 0)
	assert.False(t, ok, "beq -4KiB-2")
	_, _, ok = Call(T0, 0, 1<<31-2048)
	assert.False(t, ok, "call beyond +2GiB-2KiB")
	_, _, ok = Call(T0, 0, 1<<31-2050)
	assert.True(t, ok, "call just inside +2GiB-2KiB")
	_, _, ok = Call(T0, 1<<31+2048, 0)
	assert.True(t, ok, "call to -2GiB-2KiB")
	_, _, ok = Call(T0, 1<<31+2050, 0)
	assert.False(t, ok, "call beyond -2GiB-2KiB")
	assert.Panics(t, func() { Addi(A0, A0, 2048) })
	assert.Panics(t, func() { Sd(A0, SP, -2049) })
	assert.Panics(t, func() { Jalr(T0, T0, 4096) })
}

// TestCallReaches checks Call's split of the offset by executing the pair.
func TestCallReaches(t *testing.T) {
	for _, tc := range []struct{ pc, target uint64 }{
		{0x1000, 0x1000}, {0x1000, 0x17fe}, {0x1000, 0x1800}, {0x1000, 0x1802}, {0x80001000, 0x80000000},
		{0xffffffff80001000, 0xffffffff80000800}, {0x10000, 0x10000 + 1<<31 - 2052}, {1 << 31, 2},
	} {
		a, j, ok := Call(T0, tc.pc, tc.target)
		require.True(t, ok, "%#x → %#x", tc.pc, tc.target)
		r := Regs{PC: tc.pc}
		for _, word := range []Word{a, j} {
			inst, err := Decode(r.PC, word.Bytes())
			require.NoError(t, err)
			_, err = Exec(&inst, &r, nil)
			require.NoError(t, err)
		}
		assert.Equal(t, tc.target, r.PC, "%#x → %#x", tc.pc, tc.target)
		assert.Equal(t, tc.pc+8, r.X[T0], "link")
	}
}

// TestEncodeObjdump compares every table entry with GNU objdump's view.
func TestEncodeObjdump(t *testing.T) {
	objdump := oracle.Tool(t, "binutils-riscv64-linux-gnu", "the RISC-V encodings against GNU objdump (isa/riscv)", "riscv64-linux-gnu-objdump")
	cases := encCases()
	var buf bytes.Buffer
	offs := make([]int, len(cases))
	for i, c := range cases {
		offs[i] = buf.Len()
		buf.Write(c.b)
	}
	bin := filepath.Join(t.TempDir(), "enc.bin")
	require.NoError(t, os.WriteFile(bin, buf.Bytes(), 0o644))
	out, err := execpkg.Command(objdump, "-D", "-b", "binary", "-m", "riscv:rv64", bin).CombinedOutput()
	require.NoError(t, err, "%s", out)
	got := isatest.ParseObjdump(string(out), "#")
	for i, c := range cases {
		line, ok := got[uint64(offs[i])]
		if !ok {
			t.Errorf("%s: no objdump line at %#x", c.name, offs[i])
			continue
		}
		want := strings.ReplaceAll(c.objdump, "%t", fmt.Sprintf("%#x", uint64(int64(offs[i])+c.rel)))
		if line.Hex != c.want || line.Text != want {
			t.Errorf("%s: objdump %s %q, want %s %q", c.name, line.Hex, line.Text, c.want, want)
		}
	}
}
