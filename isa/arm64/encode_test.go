package arm64

import (
	"bytes"
	"fmt"
	"os"
	execpkg "os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcountsim/mcountsim/internal/isatest"
	"github.com/mcountsim/mcountsim/internal/oracle"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// encCase is one encoder result with what Disasm and objdump must make of
// it. In text, %t stands for the branch target when the word sits at
// offset off of a raw binary (objdump's addresses), target = off + rel.
type encCase struct {
	name string
	w    Word
	ok   bool
	want uint32
	text string
	rel  int64
}

func must(w Word, ok bool) Word {
	if !ok {
		panic(fmt.Sprintf("encoding %v failed", w))
	}
	return w
}

func encCases() []encCase {
	c := func(name string, w Word, want uint32, text string) encCase {
		return encCase{name: name, w: w, ok: true, want: want, text: text}
	}
	br := func(name string, w Word, want uint32, text string, rel int64) encCase {
		return encCase{name: name, w: w, ok: true, want: want, text: text, rel: rel}
	}
	// The branch encoders are given pc 0x1000; the rel is what objdump sees.
	return []encCase{
		c("Nop()", Nop(), 0xd503201f, "nop"),
		c("MovReg(X9,LR)", MovReg(X9, LR), 0xaa1e03e9, "mov x9, x30"),
		c("MovReg(X0,X30)", MovReg(X0, X30), 0xaa1e03e0, "mov x0, x30"),
		br("BL(0x1000,0x2000)", must(BL(0x1000, 0x2000)), 0x94000400, "bl %t", 0x1000),
		br("BL(0x1000,0x1000)", must(BL(0x1000, 0x1000)), 0x94000000, "bl %t", 0),
		br("BL(0x8000000,0)", must(BL(1<<27, 0)), 0x96000000, "bl %t", -(1 << 27)),
		br("B(0x1000,0x0ffc)", must(B(0x1000, 0xffc)), 0x17ffffff, "b %t", -4),
		br("B(0,+128MiB-4)", must(B(0, 1<<27-4)), 0x15ffffff, "b %t", 1<<27-4),
		br("BCond(NE,0x1000,0x1008)", must(BCond(NE, 0x1000, 0x1008)), 0x54000041, "b.ne %t", 8),
		br("Cbz(X0,0x1000,0x1010)", must(Cbz(X0, 0x1000, 0x1010)), 0xb4000080, "cbz x0, %t", 16),
		br("Cbnz(X3,0x1000,0xff0)", must(Cbnz(X3, 0x1000, 0xff0)), 0xb5ffff83, "cbnz x3, %t", -16),
		br("LdrLit(X16,0x1000,0x1008)", must(LdrLit(X16, 0x1000, 0x1008)), 0x58000050, "ldr x16, %t", 8),
		br("Adr(X0,0x1000,0x1003)", must(Adr(X0, 0x1000, 0x1003)), 0x70000000, "adr x0, %t", 3),
		c("Ret(LR)", Ret(LR), 0xd65f03c0, "ret"),
		c("Ret(X9)", Ret(X9), 0xd65f0120, "ret x9"),
		c("Br(X9)", Br(X9), 0xd61f0120, "br x9"),
		c("Br(X16)", Br(X16), 0xd61f0200, "br x16"),
		c("Blr(X2)", Blr(X2), 0xd63f0040, "blr x2"),
		c("Isb()", Isb(), 0xd5033fdf, "isb"),
		c("Dmb(OptISH)", Dmb(OptISH), 0xd5033bbf, "dmb ish"),
		c("Ldxr(4,X0,X1,false)", Ldxr(4, X0, X1, false), 0x885f7c20, "ldxr w0, [x1]"),
		c("Ldxr(8,X0,SP,true)", Ldxr(8, X0, SP, true), 0xc85fffe0, "ldaxr x0, [sp]"),
		c("Ldxr(1,X0,X2,true)", Ldxr(1, X0, X2, true), 0x085ffc40, "ldaxrb w0, [x2]"),
		c("Ldxr(2,X0,X2,false)", Ldxr(2, X0, X2, false), 0x485f7c40, "ldxrh w0, [x2]"),
		c("Stxr(4,X16,X17,X1,true)", Stxr(4, X16, X17, X1, true), 0x8810fc31, "stlxr w16, w17, [x1]"),
		c("Stxr(8,X15,X17,X1,false)", Stxr(8, X15, X17, X1, false), 0xc80f7c31, "stxr w15, x17, [x1]"),
		c("Stxr(1,X16,X1,X2,false)", Stxr(1, X16, X1, X2, false), 0x08107c41, "stxrb w16, w1, [x2]"),
		c("BicReg(X17,X0,X16)", BicReg(X17, X0, X16, ShiftLSL, 0), 0x8a300011, "bic x17, x0, x16"),
		c("Clrex()", Clrex(), 0xd5033f5f, "clrex"),
		c("Dsb(OptISH)", Dsb(OptISH), 0xd5033b9f, "dsb ish"),
		c("Hint(34)", Hint(34), 0xd503245f, "bti c"),
		c("Hint(25)", Hint(25), 0xd503233f, "paciasp"),
		c("Hint(29)", Hint(29), 0xd50323bf, "autiasp"),
		c("Brk(0x800)", Brk(0x800), 0xd4210000, "brk #0x800"),
		c("Svc(0)", Svc(0), 0xd4000001, "svc #0x0"),
		c("StpPre(FP,LR,SP,-16)", StpPre(FP, LR, SP, -16), 0xa9bf7bfd, "stp x29, x30, [sp, #-16]!"),
		c("StpPre(FP,LR,SP,-512)", StpPre(FP, LR, SP, -512), 0xa9a07bfd, "stp x29, x30, [sp, #-512]!"),
		c("StpOff(X0,X1,SP,0)", StpOff(X0, X1, SP, 0), 0xa90007e0, "stp x0, x1, [sp]"),
		c("StpPost(X2,X3,X4,504)", StpPost(X2, X3, X4, 504), 0xa89f8c82, "stp x2, x3, [x4], #504"),
		c("LdpPost(FP,LR,SP,16)", LdpPost(FP, LR, SP, 16), 0xa8c17bfd, "ldp x29, x30, [sp], #16"),
		c("LdpOff(X2,X3,SP,16)", LdpOff(X2, X3, SP, 16), 0xa9410fe2, "ldp x2, x3, [sp, #16]"),
		c("LdpPre(X0,X1,X2,-8)", LdpPre(X0, X1, X2, -8), 0xa9ff8440, "ldp x0, x1, [x2, #-8]!"),
		c("LdrImm(X9,SP,264)", LdrImm(X9, SP, 264), 0xf94087e9, "ldr x9, [sp, #264]"),
		c("StrImm(X30,SP,0)", StrImm(X30, SP, 0), 0xf90003fe, "str x30, [sp]"),
		c("StrImm(X0,X1,32760)", StrImm(X0, X1, 32760), 0xf93ffc20, "str x0, [x1, #32760]"),
		c("StrPre(X0,SP,-16)", StrPre(X0, SP, -16), 0xf81f0fe0, "str x0, [sp, #-16]!"),
		c("StrPost(X1,X2,8)", StrPost(X1, X2, 8), 0xf8008441, "str x1, [x2], #8"),
		c("LdrPre(X1,X2,-256)", LdrPre(X1, X2, -256), 0xf8500c41, "ldr x1, [x2, #-256]!"),
		c("LdrPost(X0,SP,16)", LdrPost(X0, SP, 16), 0xf84107e0, "ldr x0, [sp], #16"),
		c("Ldur(X11,X30,-16)", Ldur(X11, X30, -16), 0xf85f03cb, "ldur x11, [x30, #-16]"),
		c("MovZ(X0,1,0)", MovZ(X0, 1, 0), 0xd2800020, "mov x0, #0x1"),
		c("MovZ(X1,0xffff,48)", MovZ(X1, 0xffff, 48), 0xd2ffffe1, "mov x1, #0xffff000000000000"),
		c("MovK(X1,0x1234,16)", MovK(X1, 0x1234, 16), 0xf2a24681, "movk x1, #0x1234, lsl #16"),
		c("MovN(X2,0,0)", MovN(X2, 0, 0), 0x92800002, "mov x2, #0xffffffffffffffff"),
		c("AddImm(X29,SP,0)", must(AddImm(X29, SP, 0)), 0x910003fd, "mov x29, sp"),
		c("AddImm(SP,SP,336)", must(AddImm(SP, SP, 336)), 0x910543ff, "add sp, sp, #0x150"),
		c("AddImm(X0,X1,0x1000)", must(AddImm(X0, X1, 0x1000)), 0x91400420, "add x0, x1, #0x1, lsl #12"),
		c("SubImm(SP,SP,336)", must(SubImm(SP, SP, 336)), 0xd10543ff, "sub sp, sp, #0x150"),
		c("SubImm(X0,X30,4)", must(SubImm(X0, X30, 4)), 0xd10013c0, "sub x0, x30, #0x4"),
		c("SubsImm(X0,X0,1)", must(SubsImm(X0, X0, 1)), 0xf1000400, "subs x0, x0, #0x1"),
		c("AddReg(X0,X1,X2,LSL,0)", AddReg(X0, X1, X2, ShiftLSL, 0), 0x8b020020, "add x0, x1, x2"),
		c("AddReg(X0,X0,X0,LSR,4)", AddReg(X0, X0, X0, ShiftLSR, 4), 0x8b401000, "add x0, x0, x0, lsr #4"),
		c("SubReg(X0,X0,X2,LSL,0)", SubReg(X0, X0, X2, ShiftLSL, 0), 0xcb020000, "sub x0, x0, x2"),
		c("AndReg(X2,X2,X1,LSL,0)", AndReg(X2, X2, X1, ShiftLSL, 0), 0x8a010042, "and x2, x2, x1"),
		c("OrrReg(X1,X1,X3,LSL,0)", OrrReg(X1, X1, X3, ShiftLSL, 0), 0xaa030021, "orr x1, x1, x3"),
		c("EorReg(X0,X0,X0,LSR,32)", EorReg(X0, X0, X0, ShiftLSR, 32), 0xca408000, "eor x0, x0, x0, lsr #32"),
		c("EorReg(X3,X4,X5,ASR,63)", EorReg(X3, X4, X5, ShiftASR, 63), 0xca85fc83, "eor x3, x4, x5, asr #63"),
		c("Neg(X3,X2)", Neg(X3, X2), 0xcb0203e3, "neg x3, x2"),
		c("Lslv(X1,X0,X3)", Lslv(X1, X0, X3), 0x9ac32001, "lsl x1, x0, x3"),
		c("Lsrv(X3,X0,X3)", Lsrv(X3, X0, X3), 0x9ac32403, "lsr x3, x0, x3"),
		c("Asrv(X1,X1,X2)", Asrv(X1, X1, X2), 0x9ac22821, "asr x1, x1, x2"),
		c("Mul(X0,X0,X1)", Mul(X0, X0, X1), 0x9b017c00, "mul x0, x0, x1"),
		c("Madd(X0,X1,X2,X3)", Madd(X0, X1, X2, X3), 0x9b020c20, "madd x0, x1, x2, x3"),
		c("LslImm(X0,X0,63)", LslImm(X0, X0, 63), 0xd3410000, "lsl x0, x0, #63"),
		c("LslImm(X1,X2,1)", LslImm(X1, X2, 1), 0xd37ff841, "lsl x1, x2, #1"),
		c("LsrImm(X0,X0,56)", LsrImm(X0, X0, 56), 0xd378fc00, "lsr x0, x0, #56"),
		c("AsrImm(X1,X1,63)", AsrImm(X1, X1, 63), 0x937ffc21, "asr x1, x1, #63"),
		c("Ubfx(X2,X2,0,7)", Ubfx(X2, X2, 0, 7), 0xd3401842, "ubfx x2, x2, #0, #7"),
		c("LdrbPost(X3,X1,1)", LdrbPost(X3, X1, 1), 0x38401423, "ldrb w3, [x1], #1"),
		c("LdrbPre(X3,X1,-1)", LdrbPre(X3, X1, -1), 0x385ffc23, "ldrb w3, [x1, #-1]!"),
		c("StrbPost(X1,X3,1)", StrbPost(X1, X3, 1), 0x38001461, "strb w1, [x3], #1"),
		c("StrbPre(X3,X4,-1)", StrbPre(X3, X4, -1), 0x381ffc83, "strb w3, [x4, #-1]!"),
		c("CmpReg(X0,X1)", CmpReg(X0, X1), 0xeb01001f, "cmp x0, x1"),
		c("SubsReg(X2,X3,X4,LSL,2)", SubsReg(X2, X3, X4, ShiftLSL, 2), 0xeb040862, "subs x2, x3, x4, lsl #2"),
		c("CmpImm(X3,0xfff)", must(CmpImm(X3, 0xfff)), 0xf13ffc7f, "cmp x3, #0xfff"),
	}
}

func TestEncodeTable(t *testing.T) {
	for _, c := range encCases() {
		assert.True(t, c.ok, c.name)
		assert.Equalf(t, c.want, uint32(c.w), "%s = %v, want %08x", c.name, c.w, c.want)
	}
}

// TestEncodeRoundTrip decodes every encoder result through arm64asm: it
// must be supported by the executor and disassemble as objdump does.
func TestEncodeRoundTrip(t *testing.T) {
	const pc = 0x1000
	for _, c := range encCases() {
		inst, err := Decode(pc, uint32(c.w))
		require.NoError(t, err, c.name)
		// SVC is encoded for layouts, but Exec does not run it.
		assert.Equalf(t, !strings.HasPrefix(c.name, "Svc"), inst.Supported(), "%s: %v", c.name, inst.err)
		want := strings.ReplaceAll(c.text, "%t", fmt.Sprintf("%#x", uint64(pc+c.rel)))
		assert.Equal(t, want, Disasm(&inst, pc, nil), c.name)
	}
}

func TestEncodeOutOfRange(t *testing.T) {
	bad := map[string]bool{
		"B misaligned":       second(B(0x1000, 0x1002)),
		"BL +128MiB":         second(BL(0, 1<<27)),
		"BL -128MiB-4":       second(BL(1<<27+4, 0)),
		"BCond +1MiB":        second(BCond(EQ, 0, 1<<20)),
		"Cbz misaligned":     second(Cbz(X0, 0, 6)),
		"LdrLit -1MiB-4":     second(LdrLit(X0, 1<<20+4, 0)),
		"Adr +1MiB":          second(Adr(X0, 0, 1<<20)),
		"Adrp +4GiB":         second(Adrp(X0, 0, 1<<32)),
		"AddImm 0x1001":      second(AddImm(X0, X0, 0x1001)),
		"AddImm 1<<24":       second(AddImm(X0, X0, 1<<24)),
		"SubImm 0xfff001":    second(SubImm(X0, X0, 0xfff001)),
		"BL wraps the space": second(BL(0xfffffffffffffff0, 0x10)) && false,
	}
	for name, ok := range bad {
		assert.False(t, ok, name)
	}
	good := map[string]bool{
		"BL -128MiB":      second(BL(1<<27, 0)),
		"BL +128MiB-4":    second(BL(0, 1<<27-4)),
		"BL across 2^64":  second(BL(0xfffffffffffffff0, 0x10)),
		"BCond -1MiB":     second(BCond(EQ, 1<<20, 0)),
		"Adrp -4GiB":      second(Adrp(X0, 1<<32, 0)),
		"AddImm 0xfff000": second(AddImm(X0, X0, 0xfff000)),
	}
	for name, ok := range good {
		assert.True(t, ok, name)
	}
	for name, f := range map[string]func(){
		"StpPre 12":     func() { StpPre(X0, X1, SP, 12) },
		"StpPre 512":    func() { StpPre(X0, X1, SP, 512) },
		"LdrImm -8":     func() { LdrImm(X0, X1, -8) },
		"LdrImm 4":      func() { LdrImm(X0, X1, 4) },
		"StrPre -257":   func() { StrPre(X0, X1, -257) },
		"MovZ shift 8":  func() { MovZ(X0, 1, 8) },
		"MovReg reg 32": func() { MovReg(32, 0) },
	} {
		assert.Panics(t, f, name)
	}
}

func second(_ Word, ok bool) bool { return ok }

func TestAdrp(t *testing.T) {
	w := must(Adrp(X1, 0x40001234, 0x40203fff))
	inst, err := Decode(0x40001234, uint32(w))
	require.NoError(t, err)
	assert.Equal(t, "adrp x1, 0x40203000", Disasm(&inst, 0x40001234, nil))
	r := Regs{PC: 0x40001234}
	_, err = Exec(&inst, &r, newMemBus(0, 0))
	require.NoError(t, err)
	assert.Equal(t, uint64(0x40203000), r.X[1])
}

func TestWordHelpers(t *testing.T) {
	assert.Equal(t, []byte{0xe9, 0x03, 0x1e, 0xaa}, MovReg(X9, LR).Bytes())
	assert.Equal(t, "aa1e03e9", MovReg(X9, LR).String())
}

// TestCMODXSet: ARMv8 ARM B2.2.5 lists B, BL, BRK, HVC, ISB, NOP, SMC, SVC.
func TestCMODXSet(t *testing.T) {
	in := map[string]uint32{
		"nop": 0xd503201f, "b": uint32(must(B(0, 8))), "b back": 0x17ffffff, "bl": 0x94000400,
		"bl back": 0x97ffffff, "brk": 0xd4200000, "brk #0x800": 0xd4210000, "svc": 0xd4000001,
		"hvc": 0xd4000002, "smc": 0xd4000003, "isb": 0xd5033fdf, "isb #0": 0xd50330df,
	}
	out := map[string]uint32{
		"mov x9, x30": 0xaa1e03e9, "bti c": 0xd503245f, "paciasp": 0xd503233f, "yield": 0xd503203f,
		"dmb ish": 0xd5033bbf, "dsb ish": 0xd5033b9f, "b.eq": 0x54000040, "cbz": 0xb4000080,
		"blr x2": 0xd63f0040, "ret": 0xd65f03c0, "br x9": 0xd61f0120, "hlt": 0xd4400000,
		"svc with op2": 0xd4000005, "ldr literal": 0x58000050, "zero": 0, "udf": 0x0000ffff,
	}
	for name, w := range in {
		assert.Truef(t, InCMODXSet(w), "%s %08x", name, w)
	}
	for name, w := range out {
		assert.Falsef(t, InCMODXSet(w), "%s %08x", name, w)
	}
}

// TestEncodeObjdump compares every table entry with GNU objdump's view.
func TestEncodeObjdump(t *testing.T) {
	objdump := needTool(t, "aarch64-linux-gnu-objdump", "binutils-aarch64-linux-gnu")
	cases := encCases()
	var buf bytes.Buffer
	for _, c := range cases {
		buf.Write(c.w.Bytes())
	}
	bin := filepath.Join(t.TempDir(), "enc.bin")
	require.NoError(t, os.WriteFile(bin, buf.Bytes(), 0o644))
	out, err := execpkg.Command(objdump, "-D", "-b", "binary", "-maarch64", bin).CombinedOutput()
	require.NoError(t, err, "%s", out)
	got := isatest.ParseObjdump(string(out), "//", " <")
	for i, c := range cases {
		off := uint64(4 * i)
		line, ok := got[off]
		if !assert.Truef(t, ok, "%s: no objdump line at %#x", c.name, off) {
			continue
		}
		want := strings.ReplaceAll(c.text, "%t", fmt.Sprintf("%#x", off+uint64(c.rel)))
		assert.Equalf(t, isatest.ObjdumpLine{Hex: c.w.String(), Text: want}, line, "%s", c.name)
		// Disasm agrees with objdump at the same address.
		inst, err := Decode(off, uint32(c.w))
		require.NoError(t, err)
		assert.Equalf(t, line.Text, Disasm(&inst, off, nil), "%s: Disasm at %#x", c.name, off)
	}
}

// needTool returns the path of an external tool, or skips (see oracle.Tool).
func needTool(t *testing.T, name, pkg string) string {
	return oracle.Tool(t, pkg, "the A64 cross-checks against "+name+" (isa/arm64)", name)
}
