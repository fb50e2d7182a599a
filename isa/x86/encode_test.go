package x86

import (
	"encoding/hex"
	"fmt"
	"github.com/mcountsim/mcountsim/internal/oracle"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/arch/x86/x86asm"
)

func mustOK(b []byte, ok bool) []byte {
	if !ok {
		panic("encoder reported out of range")
	}
	return b
}

func mem(base x86asm.Reg, disp int64) x86asm.Mem {
	return x86asm.Mem{Base: base, Scale: 1, Disp: disp}
}

// encodings is the encoder table: the bytes, x86asm's decoding (op and
// arguments in Intel order), our GNU disassembly at pc and GNU objdump
// 2.40's text for the same bytes.
var encodings = []struct {
	name    string
	pc      uint64
	got     []byte
	hex     string
	op      x86asm.Op
	args    []x86asm.Arg
	gnu     string
	objdump string
}{
	{"call fwd", 0x1000, mustOK(CallRel32(0x1000, 0x1016)), "e811000000", x86asm.CALL,
		[]x86asm.Arg{x86asm.Rel(0x11)}, "callq 0x1016", "call 0x1016"},
	{"call back", 0x2000, mustOK(CallRel32(0x2000, 0x1000)), "e8fbefffff", x86asm.CALL,
		[]x86asm.Arg{x86asm.Rel(-0x1005)}, "callq 0x1000", "call 0x1000"},
	{"jmp8", 0x1000, mustOK(JmpRel8(0x1000, 0x1010)), "eb0e", x86asm.JMP,
		[]x86asm.Arg{x86asm.Rel(0x0e)}, "jmp 0x1010", "jmp 0x1010"},
	{"jmp8 self", 0x1000, mustOK(JmpRel8(0x1000, 0x1000)), "ebfe", x86asm.JMP,
		[]x86asm.Arg{x86asm.Rel(-2)}, "jmp 0x1000", "jmp 0x1000"},
	{"jmp32", 0x1000, mustOK(JmpRel32(0x1000, 0x2000)), "e9fb0f0000", x86asm.JMP,
		[]x86asm.Arg{x86asm.Rel(0xffb)}, "jmpq 0x2000", "jmp 0x2000"},
	{"jne8", 0x1000, mustOK(Jcc(NE, 0x1000, 0x1010)), "750e", x86asm.JNE,
		[]x86asm.Arg{x86asm.Rel(0x0e)}, "jne 0x1010", "jne 0x1010"},
	{"jle8 back", 0x1000, mustOK(Jcc(LE, 0x1000, 0x1002-128)), "7e80", x86asm.JLE,
		[]x86asm.Arg{x86asm.Rel(-128)}, "jle 0xf82", "jle 0xf82"},
	{"je32", 0x1000, mustOK(Jcc(E, 0x1000, 0x2000)), "0f84fa0f0000", x86asm.JE,
		[]x86asm.Arg{x86asm.Rel(0xffa)}, "je 0x2000", "je 0x2000"},
	{"jg32 edge", 0x1000, mustOK(Jcc(G, 0x1000, 0x1002+128)), "0f8f7c000000", x86asm.JG,
		[]x86asm.Arg{x86asm.Rel(0x7c)}, "jg 0x1082", "jg 0x1082"},
	{"nop5", 0, Nop5(), "0f1f440000", x86asm.NOP,
		[]x86asm.Arg{x86asm.Mem{Base: x86asm.RAX, Scale: 1, Index: x86asm.RAX}}, "nopl (%rax,%rax)", "nopl 0x0(%rax,%rax,1)"},
	{"int3", 0, Int3(), "cc", x86asm.INT, []x86asm.Arg{x86asm.Imm(3)}, "int3", "int3"},
	{"ret", 0, Ret(), "c3", x86asm.RET, nil, "retq", "ret"},
	{"endbr64", 0, Endbr64(), "f30f1efa", x86asm.NOP, nil, "endbr64", "endbr64"},
	{"push rbp", 0, Push(RBP), "55", x86asm.PUSH, []x86asm.Arg{x86asm.RBP}, "push %rbp", "push %rbp"},
	{"push r12", 0, Push(R12), "4154", x86asm.PUSH, []x86asm.Arg{x86asm.R12}, "push %r12", "push %r12"},
	{"pop rbp", 0, Pop(RBP), "5d", x86asm.POP, []x86asm.Arg{x86asm.RBP}, "pop %rbp", "pop %rbp"},
	{"pop r15", 0, Pop(R15), "415f", x86asm.POP, []x86asm.Arg{x86asm.R15}, "pop %r15", "pop %r15"},
	{"mov rsp→rbp", 0, MovRegReg(RBP, RSP), "4889e5", x86asm.MOV,
		[]x86asm.Arg{x86asm.RBP, x86asm.RSP}, "mov %rsp,%rbp", "mov %rsp,%rbp"},
	{"mov rax→r8", 0, MovRegReg(R8, RAX), "4989c0", x86asm.MOV,
		[]x86asm.Arg{x86asm.R8, x86asm.RAX}, "mov %rax,%r8", "mov %rax,%r8"},
	{"mov r9→rax", 0, MovRegReg(RAX, R9), "4c89c8", x86asm.MOV,
		[]x86asm.Arg{x86asm.RAX, x86asm.R9}, "mov %r9,%rax", "mov %r9,%rax"},
	{"load rsp+8", 0, MovLoad(R12, RSP, 8), "4c8b642408", x86asm.MOV,
		[]x86asm.Arg{x86asm.R12, mem(x86asm.RSP, 8)}, "mov 0x8(%rsp),%r12", "mov 0x8(%rsp),%r12"},
	{"load rbp", 0, MovLoad(RAX, RBP, 0), "488b4500", x86asm.MOV,
		[]x86asm.Arg{x86asm.RAX, x86asm.Mem{Base: x86asm.RBP}}, "mov (%rbp),%rax", "mov 0x0(%rbp),%rax"},
	{"load r13", 0, MovLoad(RAX, R13, 0), "498b4500", x86asm.MOV,
		[]x86asm.Arg{x86asm.RAX, x86asm.Mem{Base: x86asm.R13}}, "mov (%r13),%rax", "mov 0x0(%r13),%rax"},
	{"load r12", 0, MovLoad(RDX, R12, 0), "498b1424", x86asm.MOV,
		[]x86asm.Arg{x86asm.RDX, mem(x86asm.R12, 0)}, "mov (%r12,%riz),%rdx", "mov (%r12),%rdx"},
	{"load disp32", 0, MovLoad(RAX, RBX, 0x1000), "488b8300100000", x86asm.MOV,
		[]x86asm.Arg{x86asm.RAX, x86asm.Mem{Base: x86asm.RBX, Disp: 0x1000}}, "mov 0x1000(%rbx),%rax", "mov 0x1000(%rbx),%rax"},
	{"load r15 neg", 0, MovLoad(R14, R15, -0x80), "4d8b7780", x86asm.MOV,
		[]x86asm.Arg{x86asm.R14, x86asm.Mem{Base: x86asm.R15, Disp: -0x80}}, "mov -0x80(%r15),%r14", "mov -0x80(%r15),%r14"},
	{"store rsp-8", 0, MovStore(RSP, -8, RDI), "48897c24f8", x86asm.MOV,
		[]x86asm.Arg{mem(x86asm.RSP, -8), x86asm.RDI}, "mov %rdi,-0x8(%rsp)", "mov %rdi,-0x8(%rsp)"},
	{"store r13", 0, MovStore(R13, 0, RBP), "49896d00", x86asm.MOV,
		[]x86asm.Arg{x86asm.Mem{Base: x86asm.R13}, x86asm.RBP}, "mov %rbp,(%r13)", "mov %rbp,0x0(%r13)"},
	{"add rsp,8", 0, AddImm(RSP, 8), "4883c408", x86asm.ADD,
		[]x86asm.Arg{x86asm.RSP, x86asm.Imm(8)}, "add $0x8,%rsp", "add $0x8,%rsp"},
	{"add r10,127", 0, AddImm(R10, 127), "4983c27f", x86asm.ADD,
		[]x86asm.Arg{x86asm.R10, x86asm.Imm(127)}, "add $0x7f,%r10", "add $0x7f,%r10"},
	{"add r10,128", 0, AddImm(R10, 128), "4981c280000000", x86asm.ADD,
		[]x86asm.Arg{x86asm.R10, x86asm.Imm(128)}, "add $0x80,%r10", "add $0x80,%r10"},
	{"sub rsp,256", 0, SubImm(RSP, 0x100), "4881ec00010000", x86asm.SUB,
		[]x86asm.Arg{x86asm.RSP, x86asm.Imm(0x100)}, "sub $0x100,%rsp", "sub $0x100,%rsp"},
	{"sub rax,-128", 0, SubImm(RAX, -128), "4883e880", x86asm.SUB,
		[]x86asm.Arg{x86asm.RAX, x86asm.Imm(-128)}, "sub $-0x80,%rax", "sub $0xffffffffffffff80,%rax"},
	{"cmp rax,-1", 0, CmpImm(RAX, -1), "4883f8ff", x86asm.CMP,
		[]x86asm.Arg{x86asm.RAX, x86asm.Imm(-1)}, "cmp $-0x1,%rax", "cmp $0xffffffffffffffff,%rax"},
	{"cmp r15,big", 0, CmpImm(R15, 0x12345678), "4981ff78563412", x86asm.CMP,
		[]x86asm.Arg{x86asm.R15, x86asm.Imm(0x12345678)}, "cmp $0x12345678,%r15", "cmp $0x12345678,%r15"},
}

func TestEncoders(t *testing.T) {
	for _, tc := range encodings {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.hex, hex.EncodeToString(tc.got))
			inst, err := Decode(tc.pc, tc.got)
			require.NoError(t, err)
			assert.Equal(t, len(tc.got), int(inst.Len))
			assert.Equal(t, tc.op, inst.Op)
			var args []x86asm.Arg
			for _, a := range inst.Arch.Args {
				if a != nil {
					args = append(args, a)
				}
			}
			assert.Equal(t, tc.args, args)
			assert.Equal(t, tc.gnu, Disasm(&inst, tc.pc, nil))
		})
	}
}

func TestEncoderRanges(t *testing.T) {
	_, ok := CallRel32(0, 1<<31+5)
	assert.False(t, ok, "call +2^31")
	b, ok := CallRel32(1<<31, 5)
	assert.True(t, ok, "call -2^31")
	assert.Equal(t, "e800000080", hex.EncodeToString(b))
	_, ok = JmpRel32(0x1000, 0x1000+5+1<<31)
	assert.False(t, ok)
	_, ok = JmpRel8(0x1000, 0x1002+128)
	assert.False(t, ok)
	_, ok = JmpRel8(0x1000, 0x1002-129)
	assert.False(t, ok)
	b, ok = Jcc(A, 0x1000, 0x1002-129)
	assert.True(t, ok)
	assert.Equal(t, "0f877bffffff", hex.EncodeToString(b))
	_, ok = Jcc(A, 0, 1<<40)
	assert.False(t, ok)
	for c := O; c <= G; c++ {
		b, _ := Jcc(c, 0, 2)
		inst, err := Decode(0, b)
		require.NoError(t, err)
		assert.Equal(t, "j"+c.String(), strings.Fields(Disasm(&inst, 0, nil))[0])
		assert.Equal(t, c, inst.Cond)
	}
}

// gnuNormalize removes the differences between x86asm's GNU syntax and
// objdump 2.40 that are known and harmless: the old "q" suffixes, a zero
// displacement written "0x0", a scale of 1 written ",1", x86asm's "%riz"
// for the SIB byte of an r12 base, and sign-extended immediates written as
// 64-bit values.
func gnuNormalize(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	for _, r := range [][2]string{{"callq ", "call "}, {"jmpq ", "jmp "}, {"retq", "ret"}, {",%riz)", ")"}, {"0x0(", "("}, {",1)", ")"},
		{"$0xffffffffffffff80", "$-0x80"}, {"$0xffffffffffffffff", "$-0x1"}} {
		s = strings.ReplaceAll(s, r[0], r[1])
	}
	return s
}

// TestObjdump disassembles the encoder table with GNU objdump and compares
// the mnemonic and operands with the table and with Disasm.
func TestObjdump(t *testing.T) {
	objdump := oracle.Tool(t, "binutils", "the x86-64 encodings against GNU objdump (isa/x86)", "objdump")
	dir := t.TempDir()
	for i, tc := range encodings {
		f := filepath.Join(dir, fmt.Sprintf("%d.bin", i))
		require.NoError(t, os.WriteFile(f, tc.got, 0o644))
		out, err := exec.Command(objdump, "-D", "-b", "binary", "-m", "i386:x86-64",
			fmt.Sprintf("--adjust-vma=%#x", tc.pc), f).CombinedOutput()
		require.NoError(t, err, "%s", out)
		text := objdumpText(t, string(out), tc.pc)
		assert.Equal(t, tc.objdump, text, tc.name)
		inst, err := Decode(tc.pc, tc.got)
		require.NoError(t, err)
		assert.Equal(t, gnuNormalize(text), gnuNormalize(Disasm(&inst, tc.pc, nil)), tc.name)
	}
}

// objdumpText returns the instruction text of the line at pc, with runs of
// white space collapsed.
func objdumpText(t *testing.T, out string, pc uint64) string {
	prefix := fmt.Sprintf("%x:", pc)
	for _, line := range strings.Split(out, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(line), prefix) {
			continue
		}
		fields := strings.SplitN(line, "\t", 3)
		require.Len(t, fields, 3, "objdump line %q", line)
		return strings.Join(strings.Fields(fields[2]), " ")
	}
	t.Fatalf("no line at %#x in objdump output:\n%s", pc, out)
	return ""
}
