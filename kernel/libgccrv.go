package kernel

import (
	"slices"

	"github.com/mcountsim/mcountsim/isa/riscv"
)

// The riscv64 run-time helpers gcc calls for rv64gc without the bit-
// manipulation extensions (no Zbb: no clz, ctz, cpop, rev8), as real RV64
// code that the simulator executes, written for mcountsim from the libgcc
// interface (GCC internals, "Integer library routines"):
//
//	int __clzdi2(unsigned long a)      leading zeros of a
//	int __ctzdi2(unsigned long a)      trailing zeros of a
//	int __ffsdi2(long a)               1 + the index of a's lowest set bit, 0 for 0
//	int ffs(int a)                     the same of the 32-bit a (the C library's; gcc calls it for __builtin_ffs)
//	int __popcountdi2(unsigned long a) set bits
//	int __paritydi2(unsigned long a)   set bits mod 2
//	int __clrsbdi2(long a)             leading redundant sign bits
//	int32 __bswapsi2(int32 a)          bytes reversed (sign-extended, as the psABI keeps 32-bit values)
//	int64 __bswapdi2(int64 a)          bytes reversed
//	__int128 __ashlti3(__int128 a, int b)   a << b   (a in a1:a0, result in a1:a0)
//	__int128 __ashrti3(__int128 a, int b)   a >> b, arithmetic
//	__int128 __lshrti3(__int128 a, int b)   a >> b, logical
//
// gcc emits the first eight for __builtin_clzl, ctz, ffs, popcount, parity,
// clrsb and bswap (and for the 32-bit forms, through the 64-bit ones);
// Linux links __clzdi2 and __ctzdi2 from lib/clz_ctz.c and the three
// 128-bit shifts from arch/riscv/lib/tishift.S. They use only a0-a2,
// t0-t2 and ra (caller-saved, as the psABI allows) and no memory. Then
// memcpy, memmove and memset(d, c, n), which gcc calls for struct copies
// and zeroing (the kernel links its own, arch/riscv/lib/mem*.S; these move
// a byte at a time, the same result), returning d; and the C library's
// strlen, strnlen, memcmp, strcmp, strncmp, strchr, memchr and strcpy,
// which gcc calls when it does not expand them (the kernel's
// lib/string.c), byte loops too.
//
// Inputs outside the C contract, where C leaves the result undefined:
// __clzdi2(0) returns 64 and __ctzdi2(0) returns -1, what libgcc's
// return on rv64 (TestRISCVHelpersQEMU; Linux's lib/clz_ctz.c gives 64
// and 63); the shifts are defined for counts 0-127.

// rvHelperNames are the helpers LinkObject links as code for riscv64.
var rvHelperNames = []string{"__clzdi2", "__ctzdi2", "__ffsdi2", "ffs", "__popcountdi2", "__paritydi2", "__clrsbdi2",
	"__bswapsi2", "__bswapdi2", "__ashlti3", "__ashrti3", "__lshrti3", "memcpy", "memmove", "memset",
	"strlen", "strnlen", "memcmp", "strcmp", "strncmp", "strchr", "memchr", "strcpy"}

// IsRISCVHelper reports whether name is one of the riscv64 run-time
// helpers that LinkObject links as real RV64 code rather than as a stub.
func IsRISCVHelper(name string) bool { return slices.Contains(rvHelperNames, name) }

// RISCVHelpers lists the riscv64 helper names, sorted.
func RISCVHelpers() []string { return slices.Sorted(slices.Values(rvHelperNames)) }

// rvItem is one line of the helper library: a label, an instruction, or a
// branch (beq/bne/bltu... of rs1, rs2, or jal x0) to a label.
type rvItem struct {
	label    string
	w        riscv.Word
	br       string
	cond     func(rs1, rs2 int, pc, target uint64) (riscv.Word, bool) // nil: j
	rs1, rs2 int
}

// rvHelperCode returns the helper library, routine by routine; every
// exported name is a label, local labels start with ".".
func rvHelperCode() []rvItem {
	var c []rvItem
	lab := func(n string) { c = append(c, rvItem{label: n}) }
	w := func(x ...riscv.Word) {
		for _, i := range x {
			c = append(c, rvItem{w: i})
		}
	}
	b := func(cond func(int, int, uint64, uint64) (riscv.Word, bool), rs1, rs2 int, to string) {
		c = append(c, rvItem{br: to, cond: cond, rs1: rs1, rs2: rs2})
	}
	const a0, a1, a2, t0, t1, t2, zero = riscv.A0, riscv.A1, riscv.A2, riscv.T0, riscv.T1, riscv.T2, riscv.Zero
	ret := riscv.Ret()
	n := 0
	local := func() string { n++; return ".L" + string(rune('a'+n/26)) + string(rune('a'+n%26)) }

	// zeros: t1 = the zero bits at one end of a0, by halving: probe
	// leaves in t0 the sh bits of x at that end; when they are zero,
	// count them and shift them out of x with toward. Uses t0, t1.
	zeros := func(probe, toward func(rd, rs1 int, sh uint) riscv.Word) {
		w(riscv.Addi(t1, zero, 0))
		for _, sh := range []uint{32, 16, 8, 4, 2, 1} {
			skip := local()
			w(probe(t0, a0, 64-sh))
			b(riscv.Bne, t0, zero, skip)
			w(riscv.Addi(t1, t1, int32(sh)), toward(a0, a0, sh))
			lab(skip)
		}
	}
	// clz: a0 = leading zeros of a0, from the top.
	clz := func() {
		zeros(riscv.Srli, riscv.Slli)
		// x is 0 only if a0 was: its top bit adds the 64th zero.
		w(riscv.Srli(t0, a0, 63), riscv.Xori(t0, t0, 1), riscv.Add(a0, t1, t0))
	}
	// ctz: a0 = trailing zeros of a0, the same from the bottom.
	ctz := func() {
		zeros(riscv.Slli, riscv.Srli)
		// x is 0 only if a0 was: then -1, as libgcc's (0 - 1 or'ed in).
		w(riscv.Andi(t0, a0, 1), riscv.Addi(t0, t0, -1), riscv.Or(a0, t1, t0))
	}

	lab("__clzdi2")
	clz()
	w(ret)

	lab("__ctzdi2")
	ctz()
	w(ret)

	lab("__ffsdi2")
	zeroIn := local()
	b(riscv.Beq, a0, zero, zeroIn)
	ctz()
	w(riscv.Addi(a0, a0, 1))
	lab(zeroIn)
	w(ret)

	// ffs(int): the C library's, which gcc calls for __builtin_ffs on
	// rv64 (the 32-bit form has no libgcc helper): __ffsdi2 of the
	// zero-extended int.
	lab("ffs")
	w(riscv.Slli(a0, a0, 32), riscv.Srli(a0, a0, 32))
	b(riscv.Beq, zero, zero, "__ffsdi2")

	lab("__clrsbdi2") // clz(a ^ (a >> 63)) - 1
	w(riscv.Srai(t0, a0, 63), riscv.Xor(a0, a0, t0))
	clz()
	w(riscv.Addi(a0, a0, -1), ret)

	// __popcountdi2: the bit-sliced sum (pairs, nibbles, bytes, then a
	// multiply that adds the eight bytes into the top one).
	rep := func(rd int, v int32) { // rd = v in both 32-bit halves (v < 2^31)
		hi, lo := riscv.Li32(rd, v)
		w(hi, lo, riscv.Slli(t2, rd, 32), riscv.Add(rd, rd, t2))
	}
	lab("__popcountdi2")
	rep(t1, 0x55555555)
	w(riscv.Srli(t0, a0, 1), riscv.And(t0, t0, t1), riscv.Sub(a0, a0, t0))
	rep(t1, 0x33333333)
	w(riscv.Srli(t0, a0, 2), riscv.And(t0, t0, t1), riscv.And(a0, a0, t1), riscv.Add(a0, a0, t0))
	rep(t1, 0x0f0f0f0f)
	w(riscv.Srli(t0, a0, 4), riscv.Add(a0, a0, t0), riscv.And(a0, a0, t1))
	rep(t1, 0x01010101)
	w(riscv.Mul(a0, a0, t1), riscv.Srli(a0, a0, 56), ret)

	lab("__paritydi2") // fold the word onto its low bit
	for _, sh := range []uint{32, 16, 8, 4, 2, 1} {
		w(riscv.Srli(t0, a0, sh), riscv.Xor(a0, a0, t0))
	}
	w(riscv.Andi(a0, a0, 1), ret)

	// __bswapsi2, __bswapdi2: r = r << 8 | (x & 0xff), x >>= 8, per byte.
	for _, s := range []struct {
		name  string
		bytes int
	}{{"__bswapsi2", 4}, {"__bswapdi2", 8}} {
		lab(s.name)
		w(riscv.Addi(t1, zero, 0))
		for i := 0; i < s.bytes; i++ {
			w(riscv.Slli(t1, t1, 8), riscv.Andi(t0, a0, 0xff), riscv.Or(t1, t1, t0), riscv.Srli(a0, a0, 8))
		}
		if s.bytes == 4 {
			w(riscv.Addiw(a0, t1, 0), ret) // sext.w
		} else {
			w(riscv.Mv(a0, t1), ret)
		}
	}

	// The 128-bit shifts: a1:a0 by a2. A count of 64 or more moves one
	// word into the other (shifted by count - 64); a smaller one carries
	// the bits that cross between the words, through a shift by
	// -count (count 64 - count, modulo 64), which count 0 must skip.
	lab("__ashlti3")
	small, done := local(), local()
	b(riscv.Beq, a2, zero, done)
	w(riscv.Addi(t0, a2, -64))
	b(riscv.Blt, t0, zero, small)
	w(riscv.Sll(a1, a0, t0), riscv.Addi(a0, zero, 0), ret)
	lab(small)
	w(riscv.Neg(t1, a2), riscv.Srl(t1, a0, t1), riscv.Sll(a1, a1, a2), riscv.Or(a1, a1, t1), riscv.Sll(a0, a0, a2))
	lab(done)
	w(ret)
	for _, s := range []struct {
		name string
		op   func(rd, rs1, rs2 int) riscv.Word
	}{{"__lshrti3", riscv.Srl}, {"__ashrti3", riscv.Sra}} {
		lab(s.name)
		small, done := local(), local()
		b(riscv.Beq, a2, zero, done)
		w(riscv.Addi(t0, a2, -64))
		b(riscv.Blt, t0, zero, small)
		w(s.op(a0, a1, t0))
		if s.name == "__lshrti3" {
			w(riscv.Addi(a1, zero, 0))
		} else {
			w(riscv.Srai(a1, a1, 63))
		}
		w(ret)
		lab(small)
		w(riscv.Neg(t1, a2), riscv.Sll(t1, a1, t1), riscv.Srl(a0, a0, a2), riscv.Or(a0, a0, t1), s.op(a1, a1, a2))
		lab(done)
		w(ret)
	}
	// memcpy, memmove, memset (the kernel's arch/riscv/lib/mem*.S): byte
	// loops, returning dst.
	lab("memcpy")
	w(riscv.Mv(t0, a0))
	b(riscv.Beq, a2, zero, ".mcpy.done")
	lab(".mcpy")
	w(riscv.Lbu(t1, a1, 0), riscv.Sb(t1, t0, 0), riscv.Addi(a1, a1, 1), riscv.Addi(t0, t0, 1), riscv.Addi(a2, a2, -1))
	b(riscv.Bne, a2, zero, ".mcpy")
	lab(".mcpy.done")
	w(ret)
	lab("memmove") // forward unless dst overlaps the source from above
	b(riscv.Bgeu, a1, a0, "memcpy")
	w(riscv.Add(t2, a1, a2))
	b(riscv.Bgeu, a0, t2, "memcpy")
	w(riscv.Add(t0, a0, a2), riscv.Add(a1, a1, a2))
	b(riscv.Beq, a2, zero, ".mmov.done")
	lab(".mmov")
	w(riscv.Addi(a1, a1, -1), riscv.Addi(t0, t0, -1), riscv.Lbu(t1, a1, 0), riscv.Sb(t1, t0, 0), riscv.Addi(a2, a2, -1))
	b(riscv.Bne, a2, zero, ".mmov")
	lab(".mmov.done")
	w(ret)
	lab("memset")
	w(riscv.Mv(t0, a0))
	b(riscv.Beq, a2, zero, ".mset.done")
	lab(".mset")
	w(riscv.Sb(a1, t0, 0), riscv.Addi(t0, t0, 1), riscv.Addi(a2, a2, -1))
	b(riscv.Bne, a2, zero, ".mset")
	lab(".mset.done")
	w(ret)

	// The C library's string functions gcc calls when it does not expand
	// them (the kernel's lib/string.c): byte loops.
	lab("strlen")
	w(riscv.Mv(t0, a0))
	lab(".slen")
	w(riscv.Lbu(t1, t0, 0), riscv.Addi(t0, t0, 1))
	b(riscv.Bne, t1, zero, ".slen")
	w(riscv.Sub(a0, t0, a0), riscv.Addi(a0, a0, -1), ret)
	lab("strnlen") // (s, n)
	w(riscv.Mv(t0, a0))
	lab(".snlen")
	b(riscv.Beq, a1, zero, ".snlen.done")
	w(riscv.Lbu(t1, t0, 0), riscv.Addi(t0, t0, 1), riscv.Addi(a1, a1, -1))
	b(riscv.Bne, t1, zero, ".snlen")
	w(riscv.Addi(t0, t0, -1))
	lab(".snlen.done")
	w(riscv.Sub(a0, t0, a0), ret)
	// memcmp, strncmp (a, b, n), strcmp (a, b): the difference of the
	// first bytes (unsigned) that differ, or 0.
	for _, f := range []struct {
		name               string
		counted, stopsAtNU bool
	}{{"memcmp", true, false}, {"strncmp", true, true}, {"strcmp", false, true}} {
		loop, diff, none := "."+f.name, "."+f.name+".diff", "."+f.name+".zero"
		lab(f.name)
		lab(loop)
		if f.counted {
			b(riscv.Beq, a2, zero, none)
			w(riscv.Addi(a2, a2, -1))
		}
		w(riscv.Lbu(t0, a0, 0), riscv.Lbu(t1, a1, 0), riscv.Addi(a0, a0, 1), riscv.Addi(a1, a1, 1))
		b(riscv.Bne, t0, t1, diff)
		if f.stopsAtNU {
			b(riscv.Bne, t0, zero, loop)
		} else {
			b(riscv.Beq, zero, zero, loop)
		}
		lab(diff)
		w(riscv.Sub(a0, t0, t1), ret)
		if f.counted {
			lab(none)
			w(riscv.Addi(a0, zero, 0), ret)
		}
	}
	lab("strchr") // (s, c): the first c (NUL included) or NULL
	w(riscv.Andi(a1, a1, 0xff))
	lab(".schr")
	w(riscv.Lbu(t0, a0, 0))
	b(riscv.Beq, t0, a1, ".schr.found")
	w(riscv.Addi(a0, a0, 1))
	b(riscv.Bne, t0, zero, ".schr")
	w(riscv.Addi(a0, zero, 0))
	lab(".schr.found")
	w(ret)
	lab("memchr") // (s, c, n)
	w(riscv.Andi(a1, a1, 0xff))
	lab(".mchr")
	b(riscv.Beq, a2, zero, ".mchr.none")
	w(riscv.Lbu(t0, a0, 0))
	b(riscv.Beq, t0, a1, ".mchr.found")
	w(riscv.Addi(a0, a0, 1), riscv.Addi(a2, a2, -1))
	b(riscv.Beq, zero, zero, ".mchr")
	lab(".mchr.none")
	w(riscv.Addi(a0, zero, 0))
	lab(".mchr.found")
	w(ret)
	lab("strcpy") // (d, s): returns d
	w(riscv.Mv(t0, a0))
	lab(".scpy")
	w(riscv.Lbu(t1, a1, 0), riscv.Sb(t1, t0, 0), riscv.Addi(a1, a1, 1), riscv.Addi(t0, t0, 1))
	b(riscv.Bne, t1, zero, ".scpy")
	w(ret)
	return c
}

// libgcc emits the riscv64 helper library at the current pc (4-byte
// aligned): every helper name becomes a symbol of the image, but the names
// defined reports (the object's own functions).
func (a rvText) libgcc(defined func(string) bool) {
	a.align4()
	emitHelpers(a.asm, rvHelperCode(), defined, func(it rvItem) string { return it.label }, func(it rvItem, pc uint64, labels map[string]uint64) []byte {
		switch {
		case it.br != "" && it.cond == nil:
			return a.ok(riscv.Jal(riscv.Zero, pc, labels[it.br])).Bytes()
		case it.br != "":
			return a.ok(it.cond(it.rs1, it.rs2, pc, labels[it.br])).Bytes()
		}
		return it.w.Bytes()
	})
}
