package kernel

import (
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/mcountsim/mcountsim/isa/arm"
)

// The ARM run-time helpers gcc calls for arithmetic A32 has no instruction
// for (ARMv5/v6 have no divide; 64-bit shifts and products at -Os), as real
// A32 code that the simulator executes. They were written for mcountsim
// from the Run-time ABI for the Arm Architecture (IHI 0043, §4.2-4.3):
//
//	__aeabi_uidiv(n, d)      r0 = n / d            (also r1 = n % d)
//	__aeabi_uidivmod(n, d)   r0 = n / d, r1 = n % d
//	__aeabi_idiv(n, d)       r0 = n / d            (signed; also r1 = n % d)
//	__aeabi_idivmod(n, d)    r0 = n / d, r1 = n % d, the remainder with n's sign
//	__aeabi_uldivmod(n, d)   r1:r0 = n / d, r3:r2 = n % d   (64-bit, n in r1:r0, d in r3:r2)
//	__aeabi_ldivmod(n, d)    the same, signed
//	__aeabi_llsl(v, n)       r1:r0 = v << n        (v in r1:r0, n in r2)
//	__aeabi_llsr(v, n)       r1:r0 = v >> n        (logical)
//	__aeabi_lasr(v, n)       r1:r0 = v >> n        (arithmetic)
//	__aeabi_lmul(a, b)       r1:r0 = a * b         (low 64 bits)
//	__popcountsi2(x), __popcountdi2(x)   set bits of x (32 or 64 bits)
//	__paritysi2(x), __paritydi2(x)       set bits mod 2
//	__ctzdi2(x), __ffsdi2(x)             trailing zeros; 1 + the lowest set bit's index, 0 for 0
//	__clrsbsi2(x), __clrsbdi2(x)         leading redundant sign bits
//	__bswapsi2(x), __bswapdi2(x)         bytes reversed
//	memcpy(d, s, n), memmove(d, s, n), memset(d, c, n)   returning d
//	strlen, strnlen, memcmp, strcmp, strncmp, strchr, memchr, strcpy
//	                         the C library's (the kernel's lib/string.c)
//

// and the GNU names of the same functions (__udivsi3, __divsi3,
// __umodsi3, __modsi3, __udivdi3, __divdi3, __umoddi3, __moddi3,
// __ashldi3, __lshrdi3, __ashrdi3, __muldi3), and the bit helpers of
// libgcc (GCC internals, "Integer library routines"), which gcc calls for
// __builtin_popcount, parity, ctzll, ffsll, clrsb and, at -Os, bswap
// (Linux links __ctzdi2 from lib/clz_ctz.c and the byte swaps from
// arch/arm/lib/bswapsdi2.S; its own code avoids the others), and memcpy,
// memmove and memset, which gcc calls for struct copies and zeroing (the
// kernel links its own, arch/arm/lib/mem*.S; these move a byte at a time,
// the same result). They use only
// r0-r3, r12, the flags and lr (as the ABI allows); the 64-bit divisions,
// the signed wrappers and __popcountdi2 save r4-r8 on the stack. For 0,
// __ctzdi2 returns 31, what libgcc's returns on ARM (C leaves it undefined).
//
// Division by zero: the ABI has the helper call __aeabi_idiv0 /
// __aeabi_ldiv0, whose result it returns. Linux's arch/arm/lib/lib1funcs.S
// calls __div0 (a warning and a stack dump) and then returns 0 ("about as
// wrong as it could be"); its __aeabi_uidivmod computes the remainder as
// n - q*d, so n. These helpers do what the kernel's do, without the
// warning: quotient 0, remainder n, for the 32- and the 64-bit forms (the
// kernel has no 64-bit division helper; libgcc's raises SIGFPE in user
// space). The shifts give Go's results for any count 0-255 (0, or the sign,
// from 64 on); the ABI defines counts 0-63.
//
// The algorithms: the 32-bit division is restoring shift-and-subtract over
// the bits from the divisor's leading one (CLZ) down; the 64-bit division
// first tries the 32-bit one when both high words are zero, else runs 64
// steps of shift-and-subtract on the 128-bit remainder:dividend pair.

// libgccAliases maps the helper names that are other names of a routine
// to the routine (libgccCode defines each as a branch to it).
var libgccAliases = map[string]string{
	"__aeabi_uidivmod": "__aeabi_uidiv", "__udivsi3": "__aeabi_uidiv",
	"__aeabi_idivmod": "__aeabi_idiv", "__divsi3": "__aeabi_idiv",
	"__udivdi3": "__aeabi_uldivmod", "__divdi3": "__aeabi_ldivmod",
	"__ashldi3": "__aeabi_llsl", "__lshrdi3": "__aeabi_llsr", "__ashrdi3": "__aeabi_lasr",
	"__muldi3": "__aeabi_lmul",
}

// armHelperNames are the helper names LinkObject links as code for ARM,
// sorted: the exported labels of the library (its routines and their
// aliases).
var armHelperNames = func() []string {
	var out []string
	for _, it := range libgccCode() {
		if it.label != "" && !strings.HasPrefix(it.label, ".") {
			out = append(out, it.label)
		}
	}
	sort.Strings(out)
	return out
}()

// IsARMHelper reports whether name is one of the run-time helpers that
// LinkObject links as real A32 code rather than as a stub.
func IsARMHelper(name string) bool {
	_, ok := slices.BinarySearch(armHelperNames, name)
	return ok
}

// ARMHelpers lists the helper names LinkObject implements, sorted.
func ARMHelpers() []string { return slices.Clone(armHelperNames) }

// lgItem is one line of the helper library: a label, an instruction, or a
// branch to a label (B or BL, with the condition of w).
type lgItem struct {
	label string // defines label here
	w     arm.Word
	br    string // branch target
	link  bool
}

// libgccCode returns the helper library, routine by routine; every
// exported name is a label, local labels start with ".".
func libgccCode() []lgItem {
	var c []lgItem
	lab := func(n string) { c = append(c, lgItem{label: n}) }
	w := func(x arm.Word) { c = append(c, lgItem{w: x}) }
	ok := func(x arm.Word, fine bool) arm.Word {
		if !fine {
			panic("kernel: libgcc immediate") // every immediate below is encodable: a test builds the library
		}
		return x
	}
	imm := func(op arm.Op, s bool, rd, rn int, v uint32) arm.Word { return ok(arm.DPImm(op, s, rd, rn, v)) }
	reg := func(op arm.Op, s bool, rd, rn, rm int) arm.Word { return arm.DPReg(op, s, rd, rn, rm, arm.LSL, 0) }
	b := func(cond arm.Cond, target string) { c = append(c, lgItem{w: arm.Word(0).If(cond), br: target}) }
	bl := func(target string) { c = append(c, lgItem{w: arm.Word(0).If(arm.AL), br: target, link: true}) }
	const r0, r1, r2, r3, r4, r5, r6, r7, r8, ip, lr, pc = arm.R0, arm.R1, arm.R2, arm.R3, arm.R4, arm.R5, arm.R6, arm.R7, arm.R8, arm.R12, arm.LR, arm.PC
	ret := arm.BX(lr)

	// __aeabi_uidiv: r0 = r0 / r1, r1 = r0 % r1.
	lab("__aeabi_uidiv")
	w(imm(arm.CMP, true, 0, r1, 0))
	b(arm.EQ, ".udiv0")
	w(reg(arm.MOV, false, r2, 0, r0)) // r2: the running remainder
	w(imm(arm.MOV, false, r0, 0, 0))  // r0: the quotient
	w(reg(arm.CMP, true, 0, r2, r1))
	b(arm.CC, ".udone") // n < d
	w(arm.Clz(r3, r1))
	w(arm.Clz(ip, r2))
	w(reg(arm.SUB, false, r3, r3, ip))                        // r3: steps - 1
	w(arm.DPRegShift(arm.MOV, false, ip, 0, r1, arm.LSL, r3)) // ip: d aligned under n's leading one
	lab(".uloop")
	w(reg(arm.CMP, true, 0, r2, ip))
	w(reg(arm.SUB, false, r2, r2, ip).If(arm.CS))
	w(reg(arm.ADC, false, r0, r0, r0)) // q = 2q + (r2 >= ip)
	w(arm.DPReg(arm.MOV, false, ip, 0, ip, arm.LSR, 1))
	w(imm(arm.SUB, true, r3, r3, 1))
	b(arm.PL, ".uloop")
	lab(".udone")
	w(reg(arm.MOV, false, r1, 0, r2))
	w(ret)
	lab(".udiv0")
	w(reg(arm.MOV, false, r1, 0, r0))
	w(imm(arm.MOV, false, r0, 0, 0))
	w(ret)

	// __aeabi_idiv: the magnitudes through __aeabi_uidiv, then the signs.
	lab("__aeabi_idiv")
	w(arm.Push(arm.RegList(r4, r5, r6, lr)))
	w(reg(arm.MOV, false, r4, 0, r0))  // the dividend: the remainder's sign
	w(reg(arm.EOR, false, r5, r0, r1)) // the quotient's sign
	w(imm(arm.CMP, true, 0, r0, 0))
	w(imm(arm.RSB, false, r0, r0, 0).If(arm.LT))
	w(imm(arm.CMP, true, 0, r1, 0))
	w(imm(arm.RSB, false, r1, r1, 0).If(arm.LT))
	bl("__aeabi_uidiv")
	w(imm(arm.CMP, true, 0, r5, 0))
	w(imm(arm.RSB, false, r0, r0, 0).If(arm.LT))
	w(imm(arm.CMP, true, 0, r4, 0))
	w(imm(arm.RSB, false, r1, r1, 0).If(arm.LT))
	w(arm.Pop(arm.RegList(r4, r5, r6, pc)))

	// mod emits the remainder helpers: each calls its division and
	// returns the remainder, moved from rem into r0 (and r1).
	mod := func(helpers [2][2]string, rem ...int) {
		for _, m := range helpers {
			lab(m[0])
			w(arm.Push(arm.RegList(r4, lr)))
			bl(m[1])
			for i, r := range rem {
				w(reg(arm.MOV, false, r0+i, 0, r))
			}
			w(arm.Pop(arm.RegList(r4, pc)))
		}
	}
	// __umodsi3, __modsi3: the remainder in r0.
	mod([2][2]string{{"__umodsi3", "__aeabi_uidiv"}, {"__modsi3", "__aeabi_idiv"}}, r1)

	// __aeabi_uldivmod: r1:r0 / r3:r2 into r1:r0, remainder r3:r2.
	lab("__aeabi_uldivmod")
	w(arm.Push(arm.RegList(r4, r5, r6, r7, r8, lr)))
	w(reg(arm.ORR, true, ip, r2, r3))
	b(arm.EQ, ".uldiv0")
	w(reg(arm.ORR, true, ip, r1, r3))
	b(arm.NE, ".ulong")
	w(reg(arm.MOV, false, r1, 0, r2)) // both high words zero: 32-bit division
	bl("__aeabi_uidiv")
	w(reg(arm.MOV, false, r2, 0, r1))
	w(imm(arm.MOV, false, r1, 0, 0))
	w(imm(arm.MOV, false, r3, 0, 0))
	w(arm.Pop(arm.RegList(r4, r5, r6, r7, r8, pc)))
	lab(".ulong")
	w(imm(arm.MOV, false, r4, 0, 0)) // r5:r4: the remainder
	w(imm(arm.MOV, false, r5, 0, 0))
	w(imm(arm.MOV, false, r6, 0, 64))
	lab(".ulloop")
	// r5:r4:r1:r0 <<= 1; r7 = the bit shifted out of r5.
	w(reg(arm.ADD, true, r0, r0, r0))
	w(reg(arm.ADC, true, r1, r1, r1))
	w(reg(arm.ADC, true, r4, r4, r4))
	w(reg(arm.ADC, true, r5, r5, r5))
	w(imm(arm.MOV, false, r7, 0, 0))
	w(imm(arm.MOV, false, r7, 0, 1).If(arm.CS))
	// r5:r4 - r3:r2 into ip:r8; commit it (and a quotient bit) when it
	// did not borrow or the remainder had overflowed 64 bits.
	w(reg(arm.SUB, true, r8, r4, r2))
	w(reg(arm.SBC, true, ip, r5, r3))
	w(imm(arm.MOV, false, r7, 0, 1).If(arm.CS))
	w(imm(arm.CMP, true, 0, r7, 0))
	w(reg(arm.MOV, false, r4, 0, r8).If(arm.NE))
	w(reg(arm.MOV, false, r5, 0, ip).If(arm.NE))
	w(imm(arm.ORR, false, r0, r0, 1).If(arm.NE))
	w(imm(arm.SUB, true, r6, r6, 1))
	b(arm.NE, ".ulloop")
	w(reg(arm.MOV, false, r2, 0, r4))
	w(reg(arm.MOV, false, r3, 0, r5))
	w(arm.Pop(arm.RegList(r4, r5, r6, r7, r8, pc)))
	lab(".uldiv0")
	w(reg(arm.MOV, false, r2, 0, r0))
	w(reg(arm.MOV, false, r3, 0, r1))
	w(imm(arm.MOV, false, r0, 0, 0))
	w(imm(arm.MOV, false, r1, 0, 0))
	w(arm.Pop(arm.RegList(r4, r5, r6, r7, r8, pc)))

	// __aeabi_ldivmod: the magnitudes through __aeabi_uldivmod.
	neg := func(lo, hi int, skip string) { // if hi:lo < 0 (flags of cmp hi, #0) negate it
		b(arm.GE, skip)
		w(imm(arm.RSB, true, lo, lo, 0))
		w(imm(arm.RSC, false, hi, hi, 0))
		lab(skip)
	}
	lab("__aeabi_ldivmod")
	w(arm.Push(arm.RegList(r4, r5, r6, lr)))
	w(reg(arm.MOV, false, r4, 0, r1))  // the dividend's sign
	w(reg(arm.EOR, false, r5, r1, r3)) // the quotient's sign
	w(imm(arm.CMP, true, 0, r1, 0))
	neg(r0, r1, ".ln1")
	w(imm(arm.CMP, true, 0, r3, 0))
	neg(r2, r3, ".ln2")
	bl("__aeabi_uldivmod")
	w(imm(arm.CMP, true, 0, r5, 0))
	neg(r0, r1, ".ln3")
	w(imm(arm.CMP, true, 0, r4, 0))
	neg(r2, r3, ".ln4")
	w(arm.Pop(arm.RegList(r4, r5, r6, pc)))

	// __umoddi3, __moddi3: the remainder in r1:r0.
	mod([2][2]string{{"__umoddi3", "__aeabi_uldivmod"}, {"__moddi3", "__aeabi_ldivmod"}}, r2, r3)

	// The shifts: r1:r0 by r2. A register shift by 32 or more gives 0 (or
	// the sign, for ASR), which covers the word that moves out entirely.
	// to is the word the bits move into, from the other; sh is the
	// shift of from (ASR keeps lasr's sign), log the logical shift of to
	// in the same direction, back the one of the bits that cross over.
	for _, s := range []struct {
		name          string
		to, from      int
		sh, log, back arm.Shift
	}{{"__aeabi_llsl", r1, r0, arm.LSL, arm.LSL, arm.LSR}, {"__aeabi_llsr", r0, r1, arm.LSR, arm.LSR, arm.LSL}, {"__aeabi_lasr", r0, r1, arm.ASR, arm.LSR, arm.LSL}} {
		lab(s.name)
		w(imm(arm.SUB, true, r3, r2, 32))
		w(arm.DPRegShift(arm.MOV, false, s.to, 0, s.from, s.sh, r3).If(arm.PL))
		if s.sh == arm.ASR {
			w(arm.DPReg(arm.MOV, false, s.from, 0, s.from, arm.ASR, 31).If(arm.PL))
		} else {
			w(imm(arm.MOV, false, s.from, 0, 0).If(arm.PL))
		}
		w(ret.If(arm.PL))
		w(imm(arm.RSB, false, r3, r2, 32))
		w(arm.DPRegShift(arm.MOV, false, s.to, 0, s.to, s.log, r2))
		w(arm.DPRegShift(arm.ORR, false, s.to, s.to, s.from, s.back, r3))
		w(arm.DPRegShift(arm.MOV, false, s.from, 0, s.from, s.sh, r2))
		w(ret)
	}

	// __aeabi_lmul: r1:r0 * r3:r2, low 64 bits. Every multiply has
	// distinct registers (ARMv5 requires Rd != Rm, and RdLo, RdHi, Rm
	// distinct).
	lab("__aeabi_lmul")
	w(arm.Mul(ip, r3, r0)) // b.hi * a.lo
	w(arm.Mul(r3, r1, r2)) // a.hi * b.lo
	w(reg(arm.ADD, false, ip, ip, r3))
	w(arm.Umull(r3, r1, r0, r2)) // a.lo * b.lo
	w(reg(arm.ADD, false, r1, r1, ip))
	w(reg(arm.MOV, false, r0, 0, r3))
	w(ret)

	// The bit helpers (issue 21): gcc calls them for __builtin_popcount,
	// parity, ctzll, ffsll, clrsb and (at -Os) bswap on ARMv5-v7.
	rep := func(rd int, b uint32) { // rd = the byte b in every byte
		w(imm(arm.MOV, false, rd, 0, b))
		w(arm.DPReg(arm.ORR, false, rd, rd, rd, arm.LSL, 8))
		w(arm.DPReg(arm.ORR, false, rd, rd, rd, arm.LSL, 16))
	}
	// __popcountsi2: the bit-sliced sum in r0, with r1 and r2 only (the
	// 64-bit form keeps its state in r3 and ip across the calls).
	lab("__popcountsi2")
	rep(r1, 0x55)
	w(arm.DPReg(arm.AND, false, r2, r1, r0, arm.LSR, 1))
	w(reg(arm.SUB, false, r0, r0, r2))
	rep(r1, 0x33)
	w(arm.DPReg(arm.AND, false, r2, r1, r0, arm.LSR, 2))
	w(reg(arm.AND, false, r0, r0, r1))
	w(reg(arm.ADD, false, r0, r0, r2))
	w(arm.DPReg(arm.ADD, false, r0, r0, r0, arm.LSR, 4))
	rep(r1, 0x0f)
	w(reg(arm.AND, false, r0, r0, r1))
	w(arm.DPReg(arm.ADD, false, r0, r0, r0, arm.LSR, 8))
	w(arm.DPReg(arm.ADD, false, r0, r0, r0, arm.LSR, 16))
	w(imm(arm.AND, false, r0, r0, 0x3f))
	w(ret)
	lab("__popcountdi2") // popcount(lo) + popcount(hi)
	w(arm.Push(arm.RegList(r4, lr)))
	w(reg(arm.MOV, false, ip, 0, r1))
	bl("__popcountsi2")
	w(reg(arm.MOV, false, r3, 0, r0))
	w(reg(arm.MOV, false, r0, 0, ip))
	bl("__popcountsi2")
	w(reg(arm.ADD, false, r0, r0, r3))
	w(arm.Pop(arm.RegList(r4, pc)))

	lab("__paritydi2") // parity(lo ^ hi)
	w(reg(arm.EOR, false, r0, r0, r1))
	lab("__paritysi2") // fold the word onto its low bit
	for _, sh := range []uint32{16, 8, 4, 2, 1} {
		w(arm.DPReg(arm.EOR, false, r0, r0, r0, arm.LSR, sh))
	}
	w(imm(arm.AND, false, r0, r0, 1))
	w(ret)

	// __ctzdi2: 31 - clz(x & -x) of the low word, or 32 + that of the
	// high word when the low one is 0 (0 gives 31, libgcc's value).
	lab("__ctzdi2")
	ctz64 := func(base uint32) {
		w(imm(arm.CMP, true, 0, r0, 0))
		w(imm(arm.RSB, false, r2, r0, 0).If(arm.NE))
		w(reg(arm.AND, false, r2, r2, r0).If(arm.NE))
		w(arm.Clz(r2, r2).If(arm.NE))
		w(imm(arm.RSB, false, r0, r2, base+31).If(arm.NE))
		w(ret.If(arm.NE))
		w(imm(arm.RSB, false, r2, r1, 0))
		w(reg(arm.AND, false, r2, r2, r1))
		w(arm.Clz(r2, r2))
		w(imm(arm.RSB, false, r0, r2, base+63))
		w(ret)
	}
	ctz64(0)
	// __ffsdi2: 0 for 0, else ctz + 1.
	lab("__ffsdi2")
	w(reg(arm.ORR, true, r2, r0, r1))
	w(ret.If(arm.EQ)) // r0 is 0
	ctz64(1)

	// __clrsbsi2, __clrsbdi2: clz(x ^ (x >> 31)) - 1, over the 64-bit
	// value for the second (clz of the high word, or 32 + that of the low).
	lab("__clrsbsi2")
	w(arm.DPReg(arm.EOR, false, r0, r0, r0, arm.ASR, 31))
	w(arm.Clz(r0, r0))
	w(imm(arm.SUB, false, r0, r0, 1))
	w(ret)
	lab("__clrsbdi2")
	w(arm.DPReg(arm.EOR, false, r0, r0, r1, arm.ASR, 31))
	w(arm.DPReg(arm.EOR, true, r1, r1, r1, arm.ASR, 31))
	w(arm.Clz(r0, r1).If(arm.NE))
	w(imm(arm.SUB, false, r0, r0, 1).If(arm.NE))
	w(ret.If(arm.NE))
	w(arm.Clz(r0, r0))
	w(imm(arm.ADD, false, r0, r0, 31))
	w(ret)

	// __bswapsi2, __bswapdi2: the ARMv5 byte reversal (no REV before
	// v6): t = x ^ ror(x, 16) without its byte 2; x = ror(x, 8) ^ (t >> 8).
	bswap := func(rd, rs, t int) {
		w(arm.DPReg(arm.EOR, false, t, rs, rs, arm.ROR, 16))
		w(imm(arm.BIC, false, t, t, 0x00ff0000))
		w(arm.DPReg(arm.MOV, false, rd, 0, rs, arm.ROR, 8))
		w(arm.DPReg(arm.EOR, false, rd, rd, t, arm.LSR, 8))
	}
	lab("__bswapsi2")
	bswap(r0, r0, r1)
	w(ret)
	lab("__bswapdi2") // r1:r0 = bswap(r0):bswap(r1)
	bswap(r3, r1, r2)
	bswap(r1, r0, r2)
	w(reg(arm.MOV, false, r0, 0, r3))
	w(ret)

	// memcpy, memmove, memset (the kernel's arch/arm/lib/mem*.S; gcc calls
	// them for struct copies and zeroing): byte loops, returning dst.
	// byteLoop emits loop l: body, once per byte while r2 counts down,
	// then the return.
	byteLoop := func(l string, body ...arm.Word) {
		lab(l)
		w(imm(arm.SUB, true, r2, r2, 1))
		for _, x := range body {
			w(x.If(arm.PL))
		}
		b(arm.PL, l)
		w(ret)
	}
	lab("memcpy")
	w(reg(arm.MOV, false, r3, 0, r0))
	byteLoop(".mcpy", arm.LdrbPost(ip, r1, 1), arm.StrbPost(ip, r3, 1))
	lab("memmove") // forward unless dst overlaps the source from above
	w(reg(arm.CMP, true, 0, r0, r1))
	b(arm.LS, "memcpy")
	w(reg(arm.ADD, false, r3, r1, r2))
	w(reg(arm.CMP, true, 0, r0, r3))
	b(arm.CS, "memcpy")
	w(reg(arm.ADD, false, r3, r0, r2))
	w(reg(arm.ADD, false, r1, r1, r2))
	byteLoop(".mmov", arm.LdrbPre(ip, r1, -1), arm.StrbPre(ip, r3, -1))
	lab("memset")
	w(reg(arm.MOV, false, r3, 0, r0))
	byteLoop(".mset", arm.StrbPost(r1, r3, 1))

	// The C library's string functions gcc calls when it does not expand
	// them (the kernel's lib/string.c): byte loops.
	lab("strlen")
	w(reg(arm.MOV, false, r1, 0, r0))
	lab(".slen")
	w(arm.LdrbPost(r2, r1, 1))
	w(imm(arm.CMP, true, 0, r2, 0))
	b(arm.NE, ".slen")
	w(reg(arm.SUB, false, r0, r1, r0))
	w(imm(arm.SUB, false, r0, r0, 1))
	w(ret)
	lab("strnlen") // (s, n)
	w(reg(arm.MOV, false, r2, 0, r0))
	lab(".snlen")
	w(imm(arm.CMP, true, 0, r1, 0))
	b(arm.EQ, ".snlen.done")
	w(imm(arm.SUB, false, r1, r1, 1))
	w(arm.LdrbPost(r3, r2, 1))
	w(imm(arm.CMP, true, 0, r3, 0))
	b(arm.NE, ".snlen")
	w(imm(arm.SUB, false, r2, r2, 1))
	lab(".snlen.done")
	w(reg(arm.SUB, false, r0, r2, r0))
	w(ret)
	// memcmp, strncmp (a, b, n), strcmp (a, b): the difference of the
	// first bytes (unsigned) that differ, or 0.
	for _, f := range []struct {
		name      string
		counted   bool // n in r2
		stopsAtNU bool // a NUL ends the strings
	}{{"memcmp", true, false}, {"strncmp", true, true}, {"strcmp", false, true}} {
		loop, zero := "."+f.name, "."+f.name+".zero"
		lab(f.name)
		lab(loop)
		if f.counted {
			w(imm(arm.CMP, true, 0, r2, 0))
			b(arm.EQ, zero)
			w(imm(arm.SUB, false, r2, r2, 1))
		}
		w(arm.LdrbPost(r3, r0, 1))
		w(arm.LdrbPost(ip, r1, 1))
		if f.stopsAtNU {
			w(imm(arm.CMP, true, 0, r3, 1))             // C clear: r3 is NUL
			w(reg(arm.CMP, true, 0, r3, ip).If(arm.CS)) // else compare the bytes
			b(arm.EQ, loop)
		} else {
			w(reg(arm.CMP, true, 0, r3, ip))
			b(arm.EQ, loop)
		}
		w(reg(arm.SUB, false, r0, r3, ip))
		w(ret)
		if f.counted {
			lab(zero)
			w(imm(arm.MOV, false, r0, 0, 0))
			w(ret)
		}
	}
	lab("strchr") // (s, c): the first c (NUL included) or NULL
	w(imm(arm.AND, false, r1, r1, 0xff))
	lab(".schr")
	w(arm.LdrbPost(r2, r0, 1))
	w(reg(arm.CMP, true, 0, r2, r1))
	w(imm(arm.SUB, false, r0, r0, 1).If(arm.EQ))
	w(ret.If(arm.EQ))
	w(imm(arm.CMP, true, 0, r2, 0))
	b(arm.NE, ".schr")
	w(imm(arm.MOV, false, r0, 0, 0))
	w(ret)
	lab("memchr") // (s, c, n)
	w(imm(arm.AND, false, r1, r1, 0xff))
	lab(".mchr")
	w(imm(arm.CMP, true, 0, r2, 0))
	b(arm.EQ, ".mchr.none")
	w(imm(arm.SUB, false, r2, r2, 1))
	w(arm.LdrbPost(r3, r0, 1))
	w(reg(arm.CMP, true, 0, r3, r1))
	b(arm.NE, ".mchr")
	w(imm(arm.SUB, false, r0, r0, 1))
	w(ret)
	lab(".mchr.none")
	w(imm(arm.MOV, false, r0, 0, 0))
	w(ret)
	lab("strcpy") // (d, s): returns d
	w(reg(arm.MOV, false, r3, 0, r0))
	lab(".scpy")
	w(arm.LdrbPost(r2, r1, 1))
	w(arm.StrbPost(r2, r3, 1))
	w(imm(arm.CMP, true, 0, r2, 0))
	b(arm.NE, ".scpy")
	w(ret)

	// The aliases: a branch to the routine.
	for _, n := range slices.Sorted(maps.Keys(libgccAliases)) {
		lab(n)
		b(arm.AL, libgccAliases[n])
	}
	return c
}

// libgcc emits the helper library at the current pc: every helper name
// becomes a symbol of the image, but the names defined reports (the
// object's own functions: a memcpy of its own stays the only memcpy).
func (a armText) libgcc(defined func(string) bool) {
	emitHelpers(a.asm, libgccCode(), defined, func(it lgItem) string { return it.label }, func(it lgItem, pc uint64, labels map[string]uint64) []byte {
		if it.br == "" {
			return it.w.Bytes()
		}
		at, to := uint32(pc), uint32(labels[it.br])
		enc, fine := arm.B(at, to)
		if it.link {
			enc, fine = arm.BL(at, to)
		}
		return a.ok(enc.If(arm.Cond(it.w>>28)), fine).Bytes()
	})
}
