package arm

import (
	"bytes"
	"fmt"
	"github.com/mcountsim/mcountsim/internal/isatest"
	"github.com/mcountsim/mcountsim/internal/oracle"
	"os"
	execpkg "os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/arch/arm/armasm"
)

// encCase is one encoder result with what armasm and objdump must make of it.
type encCase struct {
	name string
	w    Word
	ok   bool
	want uint32
	op   armasm.Op    // decoded family (condition AL)
	args []armasm.Arg // decoded operands
	// objdump is the GNU objdump text (mnemonic and operands, before any
	// "@" comment). For branches, %t stands for the target as objdump
	// prints it when the word sits at offset off in a raw binary, and rel
	// is target-pc.
	objdump string
	rel     int32
}

func encCases() []encCase {
	imm := func(w Word, ok bool) encCase { return encCase{w: w, ok: ok} }
	c := func(name string, e encCase, want uint32, op armasm.Op, objdump string, args ...armasm.Arg) encCase {
		e.name, e.want, e.op, e.objdump, e.args = name, want, op, objdump, args
		return e
	}
	fixed := func(w Word) encCase { return encCase{w: w, ok: true} }
	mem := func(base armasm.Reg, mode armasm.AddrMode, off int16) armasm.Mem {
		return armasm.Mem{Base: base, Mode: mode, Offset: off}
	}
	br := func(name string, w Word, want uint32, op armasm.Op, objdump string, rel int32) encCase {
		return encCase{name: name, w: w, ok: true, want: want, op: op, objdump: objdump, rel: rel,
			args: []armasm.Arg{armasm.PCRel(rel - 8)}}
	}
	return []encCase{
		c("PushOne(LR)", fixed(PushOne(LR)), 0xe52de004, armasm.PUSH, "push {lr}", armasm.RegList(1<<LR)),
		c("PushOne(R4)", fixed(PushOne(R4)), 0xe52d4004, armasm.PUSH, "push {r4}", armasm.RegList(1<<R4)),
		c("PopOne(LR)", fixed(PopOne(LR)), 0xe49de004, armasm.POP, "pop {lr}", armasm.RegList(1<<LR)),
		c("PopOne(PC)", fixed(PopOne(PC)), 0xe49df004, armasm.POP, "pop {pc}", armasm.RegList(1<<PC)),
		c("Push(R4,LR)", fixed(Push(RegList(R4, LR))), 0xe92d4010, armasm.PUSH, "push {r4, lr}", armasm.RegList(1<<R4|1<<LR)),
		c("Push(R0-R3,LR)", fixed(Push(RegList(R0, R1, R2, R3, LR))), 0xe92d400f, armasm.PUSH, "push {r0, r1, r2, r3, lr}", armasm.RegList(0x400f)),
		// armasm shows a one-register LDMIA SP! as LDM, objdump as ldmfd.
		c("Pop(1<<LR)", fixed(Pop(1<<LR)), 0xe8bd4000, armasm.LDM, "ldmfd sp!, {lr}", armasm.Mem{Base: armasm.SP, Mode: armasm.AddrLDM_WB}, armasm.RegList(1<<LR)),
		c("Pop(R4,PC)", fixed(Pop(RegList(R4, PC))), 0xe8bd8010, armasm.POP, "pop {r4, pc}", armasm.RegList(1<<R4|1<<PC)),
		c("Pop(R4-R11,PC)", fixed(Pop(RegList(R4, R5, R6, R7, R8, R9, R10, R11, PC))), 0xe8bd8ff0, armasm.POP, "pop {r4, r5, r6, r7, r8, r9, sl, fp, pc}", armasm.RegList(0x8ff0)),
		c("AddImm(SP,SP,4)", imm(AddImm(SP, SP, 4)), 0xe28dd004, armasm.ADD, "add sp, sp, #4", armasm.SP, armasm.SP, armasm.Imm(4)),
		c("AddImm(R0,R1,0xff000000)", imm(AddImm(R0, R1, 0xff000000)), 0xe28104ff, armasm.ADD, "add r0, r1, #-16777216", armasm.R0, armasm.R1, armasm.Imm(0xff000000)),
		c("AddImm(R0,R1,0xf000000f)", imm(AddImm(R0, R1, 0xf000000f)), 0xe28102ff, armasm.ADD, "add r0, r1, #-268435441", armasm.R0, armasm.R1, armasm.Imm(0xf000000f)),
		c("SubImm(SP,SP,8)", imm(SubImm(SP, SP, 8)), 0xe24dd008, armasm.SUB, "sub sp, sp, #8", armasm.SP, armasm.SP, armasm.Imm(8)),
		c("SubsImm(R0,R0,1)", imm(SubsImm(R0, R0, 1)), 0xe2500001, armasm.SUB_S, "subs r0, r0, #1", armasm.R0, armasm.R0, armasm.Imm(1)),
		c("CmpImm(R3,0x3fc)", imm(CmpImm(R3, 0x3fc)), 0xe3530fff, armasm.CMP, "cmp r3, #1020", armasm.R3, armasm.Imm(0x3fc)),
		c("MovImm(R0,0)", imm(MovImm(R0, 0)), 0xe3a00000, armasm.MOV, "mov r0, #0", armasm.R0, armasm.Imm(0)),
		c("MovImm(R2,0x10000)", imm(MovImm(R2, 0x10000)), 0xe3a02801, armasm.MOV, "mov r2, #65536", armasm.R2, armasm.Imm(0x10000)),
		c("MovImm(R0,0xff)", imm(MovImm(R0, 0xff)), 0xe3a000ff, armasm.MOV, "mov r0, #255", armasm.R0, armasm.Imm(0xff)),
		c("MovReg(R0,R0)", fixed(MovReg(R0, R0)), 0xe1a00000, armasm.MOV, "nop", armasm.R0, armasm.R0),
		c("MovReg(PC,LR)", fixed(MovReg(PC, LR)), 0xe1a0f00e, armasm.MOV, "mov pc, lr", armasm.PC, armasm.LR),
		c("Nop()", fixed(Nop()), 0xe320f000, armasm.NOP, "nop {0}"),
		br("B(0x1000,0x1008)", must2(B(0x1000, 0x1008)), 0xea000000, armasm.B, "b %t", 8),
		br("B(0x1000,0x1000)", must2(B(0x1000, 0x1000)), 0xeafffffe, armasm.B, "b %t", 0),
		br("BL(0x1000,0x1004)", must2(BL(0x1000, 0x1004)), 0xebffffff, armasm.BL, "bl %t", 4),
		br("BL(0x8000,0x100)", must2(BL(0x8000, 0x100)), 0xebffe03e, armasm.BL, "bl %t", 0x100-0x8000),
		br("BL(0,+32MiB+4)", must2(BL(0, 1<<25+4)), 0xeb7fffff, armasm.BL, "bl %t", 1<<25+4),
		br("B(32MiB,-32MiB+8)", must2(B(1<<25, 8)), 0xea800000, armasm.B, "b %t", 8-1<<25),
		c("BX(LR)", fixed(BX(LR)), 0xe12fff1e, armasm.BX, "bx lr", armasm.LR),
		c("BX(R3)", fixed(BX(R3)), 0xe12fff13, armasm.BX, "bx r3", armasm.R3),
		c("LdrImm(LR,SP,4)", fixed(LdrImm(LR, SP, 4)), 0xe59de004, armasm.LDR, "ldr lr, [sp, #4]", armasm.LR, mem(armasm.SP, armasm.AddrOffset, 4)),
		c("LdrImm(R0,R1,-8)", fixed(LdrImm(R0, R1, -8)), 0xe5110008, armasm.LDR, "ldr r0, [r1, #-8]", armasm.R0, mem(armasm.R1, armasm.AddrOffset, -8)),
		c("LdrImm(R0,R1,4095)", fixed(LdrImm(R0, R1, 4095)), 0xe5910fff, armasm.LDR, "ldr r0, [r1, #4095]", armasm.R0, mem(armasm.R1, armasm.AddrOffset, 4095)),
		c("LdrPost(PC,SP,8)", fixed(LdrPost(PC, SP, 8)), 0xe49df008, armasm.LDR, "ldr pc, [sp], #8", armasm.PC, mem(armasm.SP, armasm.AddrPostIndex, 8)),
		c("StrImm(R1,SP,0)", fixed(StrImm(R1, SP, 0)), 0xe58d1000, armasm.STR, "str r1, [sp]", armasm.R1, mem(armasm.SP, armasm.AddrOffset, 0)),
		c("StrImm(R2,R3,-4095)", fixed(StrImm(R2, R3, -4095)), 0xe5032fff, armasm.STR, "str r2, [r3, #-4095]", armasm.R2, mem(armasm.R3, armasm.AddrOffset, -4095)),
		c("StrPre(LR,SP,-8)", fixed(StrPre(LR, SP, -8)), 0xe52de008, armasm.STR, "str lr, [sp, #-8]!", armasm.LR, mem(armasm.SP, armasm.AddrPreIndex, -8)),
		c("StrPre(R0,R1,4)", fixed(StrPre(R0, R1, 4)), 0xe5a10004, armasm.STR, "str r0, [r1, #4]!", armasm.R0, mem(armasm.R1, armasm.AddrPreIndex, 4)),
		c("LdrbPost(R2,R1,1)", fixed(LdrbPost(R2, R1, 1)), 0xe4d12001, armasm.LDRB, "ldrb r2, [r1], #1", armasm.R2, mem(armasm.R1, armasm.AddrPostIndex, 1)),
		c("StrbPost(R1,R3,1)", fixed(StrbPost(R1, R3, 1)), 0xe4c31001, armasm.STRB, "strb r1, [r3], #1", armasm.R1, mem(armasm.R3, armasm.AddrPostIndex, 1)),
		c("LdrbPre(R2,R1,-1)", fixed(LdrbPre(R2, R1, -1)), 0xe5712001, armasm.LDRB, "ldrb r2, [r1, #-1]!", armasm.R2, mem(armasm.R1, armasm.AddrPreIndex, -1)),
		c("StrbPre(R2,R3,-1)", fixed(StrbPre(R2, R3, -1)), 0xe5632001, armasm.STRB, "strb r2, [r3, #-1]!", armasm.R2, mem(armasm.R3, armasm.AddrPreIndex, -1)),
		c("MovReg(R0,R0).If(NE)", fixed(MovReg(R0, R1).If(NE)), 0x11a00001, armasm.MOV, "movne r0, r1", armasm.R0, armasm.R1),
		c("BX(LR).If(EQ)", fixed(BX(LR).If(EQ)), 0x012fff1e, armasm.BX, "bxeq lr", armasm.LR),
	}
}

func must2(w Word, ok bool) Word {
	if !ok {
		panic(fmt.Sprintf("encoding %v failed", w))
	}
	return w
}

func TestEncodeTable(t *testing.T) {
	for _, c := range encCases() {
		if !c.ok {
			t.Errorf("%s: ok = false", c.name)
		}
		if uint32(c.w) != c.want {
			t.Errorf("%s = %08x, want %08x", c.name, uint32(c.w), c.want)
		}
	}
}

func TestEncodeRoundTrip(t *testing.T) {
	for _, c := range encCases() {
		inst, err := Decode(0x1000, uint32(c.w))
		if err != nil {
			t.Errorf("%s (%v): %v", c.name, c.w, err)
			continue
		}
		if fam := inst.Arch.Op&^15 | 14; fam != c.op {
			t.Errorf("%s (%v): family %v, want %v", c.name, c.w, fam, c.op)
		}
		if want := Cond(c.w >> 28); inst.Cond != want {
			t.Errorf("%s (%v): cond %v, want %v", c.name, c.w, inst.Cond, want)
		}
		var want armasm.Args
		copy(want[:], c.args)
		if inst.Arch.Args != want {
			t.Errorf("%s (%v): args %#v, want %#v", c.name, c.w, inst.Arch.Args, want)
		}
		if inst.err != nil {
			t.Errorf("%s (%v): executor rejects it: %v", c.name, c.w, inst.err)
		}
	}
}

func TestWordHelpers(t *testing.T) {
	w := PushOne(LR)
	if got := w.Bytes(); !bytes.Equal(got, []byte{0x04, 0xe0, 0x2d, 0xe5}) {
		t.Errorf("Bytes = % x", got)
	}
	if got := w.String(); got != "e52de004" {
		t.Errorf("String = %q", got)
	}
	if got := Nop().If(EQ); got != 0x0320f000 {
		t.Errorf("If(EQ) = %v", got)
	}
	if got := RegList(); got != 0 {
		t.Errorf("RegList() = %#x", got)
	}
}

func TestEncodeOutOfRange(t *testing.T) {
	bad := []struct {
		name string
		ok   bool
	}{
		{"MovImm 0x101", second(MovImm(R0, 0x101))},
		{"MovImm 0x1fe00000 is 0xff rot 11 (odd)", second(MovImm(R0, 0x1fe00000))},
		{"MovImm 0xffffffff", second(MovImm(R0, 0xffffffff))},
		{"AddImm 0x102", second(AddImm(R0, R0, 0x102))},
		{"SubImm 0x12345678", second(SubImm(R0, R0, 0x12345678))},
		{"SubsImm 257", second(SubsImm(R0, R0, 257))},
		{"CmpImm 0xfff", second(CmpImm(R0, 0xfff))},
		{"B misaligned", second(B(0x1000, 0x1002))},
		{"BL misaligned", second(BL(0x1000, 0x1001))},
		{"B +32MiB+8", second(B(0, 1<<25+8))},
		{"BL +32MiB+8", second(BL(0, 1<<25+8))},
		{"B -32MiB+4", second(B(1<<25, 4))},
		{"BL -32MiB+4", second(BL(1<<25, 4))},
		{"BL wraps the address space", second(BL(0xfffffff0, 0x10))},
	}
	for _, b := range bad {
		if b.ok {
			t.Errorf("%s: ok = true, want false", b.name)
		}
	}
	good := []struct {
		name string
		ok   bool
	}{
		{"MovImm 0xff000000", second(MovImm(R0, 0xff000000))},
		{"MovImm 0xc000003f", second(MovImm(R0, 0xc000003f))},
		{"B +32MiB+4", second(B(0, 1<<25+4))},
		{"B -32MiB+8", second(B(1<<25, 8))},
	}
	for _, g := range good {
		if !g.ok {
			t.Errorf("%s: ok = false, want true", g.name)
		}
	}
}

func second(_ Word, ok bool) bool { return ok }

// TestModImmExhaustive checks modImm against every encodable value: each
// of the 4096 imm12 fields decodes to a value that modImm must encode (to
// some field with the same value), and a sample of other values must fail.
func TestModImmExhaustive(t *testing.T) {
	encodable := map[uint32]bool{}
	for f := uint32(0); f < 4096; f++ {
		rot := 2 * (f >> 8)
		v := f & 0xff
		encodable[v>>rot|v<<((32-rot)&31)] = true
	}
	for v := range encodable {
		enc, ok := modImm(v)
		if !ok {
			t.Fatalf("modImm(%#x) failed", v)
		}
		rot := 2 * (uint32(enc) >> 8)
		x := uint32(enc) & 0xff
		if got := x>>rot | x<<((32-rot)&31); got != v {
			t.Fatalf("modImm(%#x) = %#x, which is %#x", v, enc, got)
		}
	}
	for v := uint32(0); v < 1<<20; v += 7 {
		for _, x := range []uint32{v, v * 0x9e3779b9} {
			if _, ok := modImm(x); ok != encodable[x] {
				t.Fatalf("modImm(%#x) ok = %v, want %v", x, ok, encodable[x])
			}
		}
	}
}

func TestMemOffsetOutOfRangePanics(t *testing.T) {
	for _, off := range []int32{4096, -4096, 1 << 20} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("LdrImm offset %d did not panic", off)
				}
			}()
			LdrImm(R0, R1, off)
		}()
	}
}

// TestEncodeObjdump compares every table entry with GNU objdump's view.
func TestEncodeObjdump(t *testing.T) {
	objdump := oracle.Tool(t, "binutils-arm-linux-gnueabi", "the A32 encodings against GNU objdump (isa/arm)", "arm-linux-gnueabi-objdump")
	cases := encCases()
	var buf bytes.Buffer
	for _, c := range cases {
		buf.Write(c.w.Bytes())
	}
	bin := filepath.Join(t.TempDir(), "enc.bin")
	if err := os.WriteFile(bin, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := execpkg.Command(objdump, "-D", "-b", "binary", "-marm", bin).CombinedOutput()
	if err != nil {
		t.Fatalf("objdump: %v\n%s", err, out)
	}
	got := isatest.ParseObjdump(string(out), "@")
	for i, c := range cases {
		off := uint32(4 * i)
		line, ok := got[uint64(off)]
		if !ok {
			t.Errorf("%s: no objdump line at %#x", c.name, off)
			continue
		}
		want := strings.ReplaceAll(c.objdump, "%t", fmt.Sprintf("%#x", off+uint32(c.rel)))
		if line.Hex != c.w.String() || line.Text != want {
			t.Errorf("%s: objdump %s %q, want %v %q", c.name, line.Hex, line.Text, c.w, want)
		}
	}
}
