package kernel

import (
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
)

// The x86-64 run-time helpers gcc calls for kernel code, as real x86-64
// code that the simulator executes, written for mcountsim (the assembly in
// the comments, assembled by GNU as into the bytes beside it) from the
// libgcc interface (GCC internals, "Integer library routines") and the C
// library's:
//
//	int __popcountdi2(unsigned long a)     set bits (no -mpopcnt: no POPCNT)
//	int __popcountsi2(unsigned int a)
//	int __paritydi2(unsigned long a)       set bits mod 2
//	int __paritysi2(unsigned int a)
//	int __clrsbdi2(long a)                 leading redundant sign bits (gcc -Os)
//	void *memset(void *d, int c, size_t n)
//	void *memcpy(void *d, const void *s, size_t n)
//	void *memmove(void *d, const void *s, size_t n)
//	size_t strlen(const char *s), strnlen(const char *s, size_t max)
//	int memcmp(const void *a, const void *b, size_t n)
//	int strcmp(const char *a, const char *b), strncmp(a, b, size_t n)
//	char *strchr(const char *s, int c), void *memchr(const void *s, int c, size_t n)
//	char *strcpy(char *d, const char *s)
//	__x86_return_thunk, __x86_indirect_thunk_REG   the kernel's thunks (ret; jmp *%REG)
//
// gcc emits the first four for __builtin_popcount and __builtin_parity
// without -mpopcnt (the kernel's hweight code avoids them; a function
// written with the builtins calls them), memset, memcpy and memmove for
// block copies and clears it does not expand inline, and the string
// functions for __builtin_strlen and the others, which it does not expand
// with the kernel's flags, and for explicit calls (Linux has them all, in
// arch/x86/lib and lib/string.c). memcmp, strcmp and strncmp return the
// difference of the first two bytes that differ (as unsigned char), as
// musl's and glibc's do (Linux's strcmp returns -1 or 1: only the sign is
// the contract). They use only caller-saved registers (rax, rcx, rdx, rsi,
// rdi, r8, r9) and the memory they are given; memset and memcpy are REP
// STOSB and REP MOVSB, as the kernel's are on CPUs with fast strings;
// memmove copies backwards byte by byte when the destination overlaps the
// end of the source (the simulator models the direction flag clear).

// x86HelperLine is one instruction of the helper library, or a label.
type x86HelperLine struct {
	label string // a helper's name ("" for an instruction)
	hex   string // the instruction's bytes
	asm   string // what they are, as GNU as and objdump write them
}

// x86HelperCode is the helper library, laid out in this order (the
// branches are relative, within it). __popcountsi2 and __paritysi2 zero
// the upper half of rdi (not part of an int argument) and fall into the
// 64-bit routine.
var x86HelperCode = append([]x86HelperLine{
	{label: "__popcountsi2"},
	{hex: "89 ff", asm: "mov %edi,%edi"},
	{label: "__popcountdi2"}, // x - (x>>1 & m1), pairs into nibbles, bytes, then the byte sum in the top byte
	{hex: "48 89 f8", asm: "mov %rdi,%rax"},
	{hex: "48 d1 e8", asm: "shr %rax"},
	{hex: "48 ba 55 55 55 55 55 55 55 55", asm: "movabs $0x5555555555555555,%rdx"},
	{hex: "48 21 d0", asm: "and %rdx,%rax"},
	{hex: "48 29 c7", asm: "sub %rax,%rdi"},
	{hex: "48 ba 33 33 33 33 33 33 33 33", asm: "movabs $0x3333333333333333,%rdx"},
	{hex: "48 89 f8", asm: "mov %rdi,%rax"},
	{hex: "48 21 d0", asm: "and %rdx,%rax"},
	{hex: "48 c1 ef 02", asm: "shr $0x2,%rdi"},
	{hex: "48 21 d7", asm: "and %rdx,%rdi"},
	{hex: "48 01 f8", asm: "add %rdi,%rax"},
	{hex: "48 89 c2", asm: "mov %rax,%rdx"},
	{hex: "48 c1 ea 04", asm: "shr $0x4,%rdx"},
	{hex: "48 01 d0", asm: "add %rdx,%rax"},
	{hex: "48 ba 0f 0f 0f 0f 0f 0f 0f 0f", asm: "movabs $0xf0f0f0f0f0f0f0f,%rdx"},
	{hex: "48 21 d0", asm: "and %rdx,%rax"},
	{hex: "48 ba 01 01 01 01 01 01 01 01", asm: "movabs $0x101010101010101,%rdx"},
	{hex: "48 0f af c2", asm: "imul %rdx,%rax"},
	{hex: "48 c1 e8 38", asm: "shr $0x38,%rax"},
	{hex: "c3", asm: "ret"},
	{label: "__paritysi2"},
	{hex: "89 ff", asm: "mov %edi,%edi"},
	{label: "__paritydi2"}, // fold to 16 bits, xor the two bytes: PF is the parity of the low byte
	{hex: "48 89 f8", asm: "mov %rdi,%rax"},
	{hex: "48 c1 e8 20", asm: "shr $0x20,%rax"},
	{hex: "31 f8", asm: "xor %edi,%eax"},
	{hex: "89 c2", asm: "mov %eax,%edx"},
	{hex: "c1 ea 10", asm: "shr $0x10,%edx"},
	{hex: "31 d0", asm: "xor %edx,%eax"},
	{hex: "30 e0", asm: "xor %ah,%al"},
	{hex: "0f 9b c0", asm: "setnp %al"},
	{hex: "0f b6 c0", asm: "movzbl %al,%eax"},
	{hex: "c3", asm: "ret"},
	{label: "memset"},
	{hex: "49 89 f8", asm: "mov %rdi,%r8"},
	{hex: "40 0f b6 c6", asm: "movzbl %sil,%eax"},
	{hex: "48 89 d1", asm: "mov %rdx,%rcx"},
	{hex: "f3 aa", asm: "rep stos %al,%es:(%rdi)"},
	{hex: "4c 89 c0", asm: "mov %r8,%rax"},
	{hex: "c3", asm: "ret"},
	{label: "memcpy"},
	{hex: "48 89 f8", asm: "mov %rdi,%rax"},
	{hex: "48 89 d1", asm: "mov %rdx,%rcx"},
	{hex: "f3 a4", asm: "rep movsb %ds:(%rsi),%es:(%rdi)"},
	{hex: "c3", asm: "ret"},
	{label: "memmove"}, // forwards unless d lies inside (s, s+n)
	{hex: "48 89 f8", asm: "mov %rdi,%rax"},
	{hex: "48 89 d1", asm: "mov %rdx,%rcx"},
	{hex: "48 39 f7", asm: "cmp %rsi,%rdi"},
	{hex: "76 1f", asm: "jbe .+0x21 (forwards)"},
	{hex: "4c 8d 04 16", asm: "lea (%rsi,%rdx,1),%r8"},
	{hex: "4c 39 c7", asm: "cmp %r8,%rdi"},
	{hex: "73 16", asm: "jae .+0x18 (forwards)"},
	{hex: "48 85 c9", asm: "test %rcx,%rcx"},
	{hex: "74 10", asm: "je .+0x12 (the ret)"},
	{hex: "44 0f b6 4c 0e ff", asm: "movzbl -0x1(%rsi,%rcx,1),%r9d"},
	{hex: "44 88 4c 0f ff", asm: "mov %r9b,-0x1(%rdi,%rcx,1)"},
	{hex: "48 ff c9", asm: "dec %rcx"},
	{hex: "75 f0", asm: "jne .-0xe (the movzbl)"},
	{hex: "c3", asm: "ret"},
	{hex: "f3 a4", asm: "rep movsb %ds:(%rsi),%es:(%rdi)"},
	{hex: "c3", asm: "ret"},
	// __clrsbdi2 (gcc -Os for __builtin_clrsbl): with y = x ^ (x >> 63),
	// which is below 2^63, clz(2y + 1) is clrsb(x) (63 for y = 0), and
	// 63 - bsr is 63 ^ bsr.
	{label: "__clrsbdi2"},
	{hex: "48 89 f8", asm: "mov %rdi,%rax"},
	{hex: "48 c1 f8 3f", asm: "sar $0x3f,%rax"},
	{hex: "48 31 c7", asm: "xor %rax,%rdi"},
	{hex: "48 8d 7c 3f 01", asm: "lea 0x1(%rdi,%rdi,1),%rdi"},
	{hex: "48 0f bd ff", asm: "bsr %rdi,%rdi"},
	{hex: "83 f7 3f", asm: "xor $0x3f,%edi"},
	{hex: "89 f8", asm: "mov %edi,%eax"},
	{hex: "c3", asm: "ret"},
	// The string functions, byte by byte (branch targets as objdump
	// names them, from the routine's start).
	{label: "strlen"},
	{hex: "48 89 f8", asm: "mov %rdi,%rax"},
	{hex: "80 38 00", asm: "cmpb $0x0,(%rax)"},
	{hex: "74 05", asm: "je <strlen+0xd>"},
	{hex: "48 ff c0", asm: "inc %rax"},
	{hex: "eb f6", asm: "jmp <strlen+0x3>"},
	{hex: "48 29 f8", asm: "sub %rdi,%rax"},
	{hex: "c3", asm: "ret"},
	{label: "strnlen"},
	{hex: "31 c0", asm: "xor %eax,%eax"},
	{hex: "48 39 f0", asm: "cmp %rsi,%rax"},
	{hex: "73 0b", asm: "jae <strnlen+0x12>"},
	{hex: "80 3c 07 00", asm: "cmpb $0x0,(%rdi,%rax,1)"},
	{hex: "74 05", asm: "je <strnlen+0x12>"},
	{hex: "48 ff c0", asm: "inc %rax"},
	{hex: "eb f0", asm: "jmp <strnlen+0x2>"},
	{hex: "c3", asm: "ret"},
	{label: "memcmp"},
	{hex: "31 c9", asm: "xor %ecx,%ecx"},
	{hex: "48 39 d1", asm: "cmp %rdx,%rcx"},
	{hex: "73 12", asm: "jae <memcmp+0x19>"},
	{hex: "0f b6 04 0f", asm: "movzbl (%rdi,%rcx,1),%eax"},
	{hex: "44 0f b6 04 0e", asm: "movzbl (%rsi,%rcx,1),%r8d"},
	{hex: "48 ff c1", asm: "inc %rcx"},
	{hex: "44 29 c0", asm: "sub %r8d,%eax"},
	{hex: "74 ea", asm: "je <memcmp+0x2>"},
	{hex: "c3", asm: "ret"},
	{hex: "31 c0", asm: "xor %eax,%eax"},
	{hex: "c3", asm: "ret"},
	{label: "strcmp"},
	{hex: "0f b6 07", asm: "movzbl (%rdi),%eax"},
	{hex: "0f b6 0e", asm: "movzbl (%rsi),%ecx"},
	{hex: "48 ff c7", asm: "inc %rdi"},
	{hex: "48 ff c6", asm: "inc %rsi"},
	{hex: "29 c8", asm: "sub %ecx,%eax"},
	{hex: "75 04", asm: "jne <strcmp+0x14>"},
	{hex: "85 c9", asm: "test %ecx,%ecx"},
	{hex: "75 ec", asm: "jne <strcmp>"},
	{hex: "c3", asm: "ret"},
	{label: "strncmp"},
	{hex: "31 c0", asm: "xor %eax,%eax"},
	{hex: "48 85 d2", asm: "test %rdx,%rdx"},
	{hex: "74 17", asm: "je <strncmp+0x1e>"},
	{hex: "0f b6 07", asm: "movzbl (%rdi),%eax"},
	{hex: "0f b6 0e", asm: "movzbl (%rsi),%ecx"},
	{hex: "48 ff c7", asm: "inc %rdi"},
	{hex: "48 ff c6", asm: "inc %rsi"},
	{hex: "48 ff ca", asm: "dec %rdx"},
	{hex: "29 c8", asm: "sub %ecx,%eax"},
	{hex: "75 04", asm: "jne <strncmp+0x1e>"},
	{hex: "85 c9", asm: "test %ecx,%ecx"},
	{hex: "75 e4", asm: "jne <strncmp+0x2>"},
	{hex: "c3", asm: "ret"},
	{label: "strchr"},
	{hex: "0f b6 07", asm: "movzbl (%rdi),%eax"},
	{hex: "40 38 f0", asm: "cmp %sil,%al"},
	{hex: "74 0a", asm: "je <strchr+0x12>"},
	{hex: "48 ff c7", asm: "inc %rdi"},
	{hex: "84 c0", asm: "test %al,%al"},
	{hex: "75 f1", asm: "jne <strchr>"},
	{hex: "31 c0", asm: "xor %eax,%eax"},
	{hex: "c3", asm: "ret"},
	{hex: "48 89 f8", asm: "mov %rdi,%rax"},
	{hex: "c3", asm: "ret"},
	{label: "memchr"},
	{hex: "48 85 d2", asm: "test %rdx,%rdx"},
	{hex: "74 0d", asm: "je <memchr+0x12>"},
	{hex: "40 38 37", asm: "cmp %sil,(%rdi)"},
	{hex: "74 0b", asm: "je <memchr+0x15>"},
	{hex: "48 ff c7", asm: "inc %rdi"},
	{hex: "48 ff ca", asm: "dec %rdx"},
	{hex: "eb ee", asm: "jmp <memchr>"},
	{hex: "31 c0", asm: "xor %eax,%eax"},
	{hex: "c3", asm: "ret"},
	{hex: "48 89 f8", asm: "mov %rdi,%rax"},
	{hex: "c3", asm: "ret"},
	{label: "strcpy"},
	{hex: "48 89 f8", asm: "mov %rdi,%rax"},
	{hex: "31 c9", asm: "xor %ecx,%ecx"},
	{hex: "0f b6 14 0e", asm: "movzbl (%rsi,%rcx,1),%edx"},
	{hex: "88 14 0f", asm: "mov %dl,(%rdi,%rcx,1)"},
	{hex: "48 ff c1", asm: "inc %rcx"},
	{hex: "84 d2", asm: "test %dl,%dl"},
	{hex: "75 f2", asm: "jne <strcpy+0x5>"},
	{hex: "c3", asm: "ret"},
	// The kernel's speculation thunks, as they run once alternatives
	// have chosen the plain forms (arch/x86/lib/retpoline.S): every return
	// of code built with -mfunction-return=thunk-extern is a jmp to
	// __x86_return_thunk, every indirect call or jump of code built with
	// -mindirect-branch=thunk-extern a call or jmp to the register's thunk.
	{label: "__x86_return_thunk"},
	{hex: "c3", asm: "ret"},
	{hex: "cc", asm: "int3"},
}, x86IndirectThunks()...)

// x86IndirectThunks are __x86_indirect_thunk_REG: jmp *%REG (ff /4) and
// int3, for every register but rsp.
func x86IndirectThunks() []x86HelperLine {
	var out []x86HelperLine
	for i, r := range []string{"rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi", "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15"} {
		if r == "rsp" {
			continue
		}
		jmp := fmt.Sprintf("ff %02x", 0xe0|i&7)
		if i >= 8 {
			jmp = "41 " + jmp
		}
		out = append(out, x86HelperLine{label: "__x86_indirect_thunk_" + r},
			x86HelperLine{hex: jmp, asm: "jmp *%" + r}, x86HelperLine{hex: "cc", asm: "int3"})
	}
	return out
}

// x86HelperNames are the helpers LinkObject links as code for x86-64.
var x86HelperNames = func() []string {
	var out []string
	for _, l := range x86HelperCode {
		if l.label != "" {
			out = append(out, l.label)
		}
	}
	return out
}()

// IsX86Helper reports whether name is one of the x86-64 run-time helpers
// that LinkObject links as real code rather than as a stub.
func IsX86Helper(name string) bool { return slices.Contains(x86HelperNames, name) }

// X86Helpers lists the x86-64 helper names, sorted.
func X86Helpers() []string { return slices.Sorted(slices.Values(x86HelperNames)) }

// libgcc emits the x86-64 helper library at the current pc: every helper
// name becomes a symbol of the image, except those defines reports the
// object defines itself (its own memcpy, say: the object's symbol is the
// one its calls reach; the library's copy is then unnamed code).
func (a x86Text) libgcc(defines func(string) bool) {
	for _, l := range x86HelperCode {
		if l.label != "" {
			if !defines(l.label) {
				a.sym(l.label)
			}
			continue
		}
		b, err := hex.DecodeString(strings.ReplaceAll(l.hex, " ", ""))
		if err != nil {
			panic("kernel: x86 helper bytes " + l.hex)
		}
		a.b(b...)
	}
}
