package kernel

import (
	"fmt"
	"slices"

	"github.com/mcountsim/mcountsim/isa/arm64"
)

// The arm64 run-time helpers gcc calls for kernel code, as real A64 code
// that the simulator executes, written for mcountsim from the libgcc
// interface (GCC internals, "Integer library routines"):
//
//	int __popcountdi2(unsigned long a)      set bits (-mgeneral-regs-only: no CNT)
//	int __paritydi2(unsigned long a)        set bits mod 2
//	__int128 __ashlti3(__int128 a, int b)   a << b   (a in x1:x0, result in x1:x0)
//	__int128 __ashrti3(__int128 a, int b)   a >> b, arithmetic
//	__int128 __lshrti3(__int128 a, int b)   a >> b, logical
//
// gcc emits the first two for __builtin_popcount and parity when SIMD is
// off, as in the kernel (whose hweight code avoids them), and the shifts
// for __int128 at -Os (Linux links them from arch/arm64/lib/tishift.S).
// They use only x0-x3 and x30 (caller-saved) and no memory. The shifts are
// defined for counts 0-127, read from w2 (the upper half of x2 is not
// part of an int argument, AAPCS64 §6.8.2). Then memcpy, memmove and
// memset(d, c, n), which gcc calls for struct copies and zeroing (the
// kernel links its own, arch/arm64/lib/mem*.S; these move a byte at a
// time, the same result), returning d; they also use x4. And the C
// library's strlen, strnlen, memcmp, strcmp, strncmp, strchr, memchr and
// strcpy, which gcc calls when it does not expand them (the kernel's
// lib/string.c), byte loops too.

//
// And the outline atomics gcc calls by default (-moutline-atomics), for
// sizes 1, 2, 4 and 8 and the orders relax, acq, rel, acq_rel and sync
// (libgcc's config/aarch64/lse.S interface):
//
//	T __aarch64_casN_ORDER(T expected, T desired, T *p)   the old *p; *p = desired if it was expected
//	T __aarch64_swpN_ORDER(T v, T *p)                     the old *p; *p = v
//	T __aarch64_ldaddN_ORDER(T v, T *p)                   the old *p; *p += v (ldclr: &= ~v, ldeor: ^= v, ldset: |= v)
//
// libgcc's helpers use the LSE instruction (casal, ldaddal, …) when the
// CPU has it and an LL/SC loop when not; the CPU modelled has no LSE, so
// these are the loops: a load-exclusive of *p (LDAXR for the acquire
// orders), the new value, a store-exclusive (STLXR for the release
// orders), and back to the load while it fails; cas leaves the loop
// without a store when the value differs. They use x15-x17 besides the
// arguments, as libgcc's do (AAPCS64's scratch registers). sync is
// acq_rel's code: in this sequentially consistent machine the orders
// change nothing but the encoding.

// a64HelperNames are the helpers LinkObject links as code for arm64.
var a64HelperNames = append([]string{"__popcountdi2", "__paritydi2", "__ashlti3", "__ashrti3", "__lshrti3", "memcpy", "memmove", "memset",
	"strlen", "strnlen", "memcmp", "strcmp", "strncmp", "strchr", "memchr", "strcpy"}, a64AtomicNames()...)

// a64AtomicOps and a64AtomicOrders name the outline atomics.
var (
	a64AtomicOps    = []string{"cas", "swp", "ldadd", "ldclr", "ldeor", "ldset"}
	a64AtomicOrders = []string{"relax", "acq", "rel", "acq_rel", "sync"}
)

// a64AtomicNames lists the outline atomics, __aarch64_<op><size>_<order>.
func a64AtomicNames() []string {
	var n []string
	for _, op := range a64AtomicOps {
		for _, size := range []int{1, 2, 4, 8} {
			for _, o := range a64AtomicOrders {
				n = append(n, fmt.Sprintf("__aarch64_%s%d_%s", op, size, o))
			}
		}
	}
	return n
}

// IsARM64Helper reports whether name is one of the arm64 run-time helpers
// that LinkObject links as real A64 code rather than as a stub.
func IsARM64Helper(name string) bool { return slices.Contains(a64HelperNames, name) }

// ARM64Helpers lists the arm64 helper names, sorted.
func ARM64Helpers() []string { return slices.Sorted(slices.Values(a64HelperNames)) }

// a64Item is one line of the helper library: a label, an instruction, or a
// conditional branch (B.cond, or CBZ of reg when cbz) to a label.
type a64Item struct {
	label string
	w     arm64.Word
	br    string
	cond  uint8
	cbz   bool // CBZ (CBNZ with nz) of reg
	nz    bool
	reg   int
}

// a64HelperCode returns the helper library, routine by routine; every
// exported name is a label, local labels start with ".".
func a64HelperCode() []a64Item {
	var c []a64Item
	lab := func(n string) { c = append(c, a64Item{label: n}) }
	w := func(x ...arm64.Word) {
		for _, i := range x {
			c = append(c, a64Item{w: i})
		}
	}
	const x0, x1, x2, x3, x4, xzr = arm64.X0, arm64.X1, arm64.X2, arm64.X3, arm64.X4, arm64.XZR
	const lsl, lsr = arm64.ShiftLSL, arm64.ShiftLSR
	ret := arm64.Ret(arm64.LR)
	mov64 := func(rd int, v uint64) { // movz + movk of every nonzero halfword
		w(arm64.MovZ(rd, uint16(v), 0))
		for sh := uint(16); sh < 64; sh += 16 {
			if h := uint16(v >> sh); h != 0 {
				w(arm64.MovK(rd, h, sh))
			}
		}
	}

	// __popcountdi2: the bit-sliced sum (pairs, nibbles, bytes, then a
	// multiply that adds the eight bytes into the top one).
	lab("__popcountdi2")
	mov64(x1, 0x5555555555555555)
	w(arm64.LsrImm(x2, x0, 1), arm64.AndReg(x2, x2, x1, lsl, 0), arm64.SubReg(x0, x0, x2, lsl, 0))
	mov64(x1, 0x3333333333333333)
	w(arm64.LsrImm(x2, x0, 2), arm64.AndReg(x2, x2, x1, lsl, 0), arm64.AndReg(x0, x0, x1, lsl, 0), arm64.AddReg(x0, x0, x2, lsl, 0))
	mov64(x1, 0x0f0f0f0f0f0f0f0f)
	w(arm64.AddReg(x0, x0, x0, lsr, 4), arm64.AndReg(x0, x0, x1, lsl, 0))
	mov64(x1, 0x0101010101010101)
	w(arm64.Mul(x0, x0, x1), arm64.LsrImm(x0, x0, 56), ret)

	lab("__paritydi2") // fold the word onto its low bit
	for _, sh := range []uint{32, 16, 8, 4, 2, 1} {
		w(arm64.EorReg(x0, x0, x0, lsr, sh))
	}
	w(arm64.Ubfx(x0, x0, 0, 1), ret)

	// The 128-bit shifts: x1:x0 by w2 (0-127). A count of 64 or more moves
	// one word into the other (shifted by count - 64); a smaller one
	// carries the bits that cross between the words through a shift by
	// -count (64 - count, modulo 64), which count 0 must skip.
	for _, s := range []struct {
		name string
		op   func(rd, rn, rm int) arm64.Word
	}{{"__ashlti3", arm64.Lslv}, {"__lshrti3", arm64.Lsrv}, {"__ashrti3", arm64.Asrv}} {
		small, done := "."+s.name+".small", "."+s.name+".done"
		lab(s.name)
		w(arm64.Ubfx(x2, x2, 0, 7))
		c = append(c, a64Item{br: done, cbz: true, reg: x2})
		w(must64(arm64.SubsImm(x3, x2, 64)))
		c = append(c, a64Item{br: small, cond: arm64.LT})
		if s.name == "__ashlti3" {
			w(arm64.Lslv(x1, x0, x3), arm64.MovZ(x0, 0, 0), ret)
			lab(small)
			w(arm64.Neg(x3, x2), arm64.Lsrv(x3, x0, x3), arm64.Lslv(x1, x1, x2), arm64.OrrReg(x1, x1, x3, lsl, 0), arm64.Lslv(x0, x0, x2))
		} else {
			w(s.op(x0, x1, x3))
			if s.name == "__lshrti3" {
				w(arm64.MovReg(x1, xzr))
			} else {
				w(arm64.AsrImm(x1, x1, 63))
			}
			w(ret)
			lab(small)
			w(arm64.Neg(x3, x2), arm64.Lslv(x3, x1, x3), arm64.Lsrv(x0, x0, x2), arm64.OrrReg(x0, x0, x3, lsl, 0), s.op(x1, x1, x2))
		}
		lab(done)
		w(ret)
	}
	// memcpy, memmove, memset (the kernel's arch/arm64/lib/mem*.S): byte
	// loops, returning dst.
	cbz := func(r int, to string) { c = append(c, a64Item{br: to, cbz: true, reg: r}) }
	bc := func(cond uint8, to string) { c = append(c, a64Item{br: to, cond: cond}) }
	lab("memcpy")
	w(arm64.MovReg(x3, x0))
	cbz(x2, ".mcpy.done")
	lab(".mcpy")
	w(arm64.LdrbPost(x4, x1, 1), arm64.StrbPost(x4, x3, 1), must64(arm64.SubsImm(x2, x2, 1)))
	bc(arm64.NE, ".mcpy")
	lab(".mcpy.done")
	w(ret)
	lab("memmove") // forward unless dst overlaps the source from above
	w(arm64.CmpReg(x0, x1))
	bc(arm64.LS, "memcpy")
	w(arm64.AddReg(x3, x1, x2, lsl, 0), arm64.CmpReg(x0, x3))
	bc(arm64.CS, "memcpy")
	w(arm64.AddReg(x3, x0, x2, lsl, 0), arm64.AddReg(x1, x1, x2, lsl, 0))
	cbz(x2, ".mmov.done")
	lab(".mmov")
	w(arm64.LdrbPre(x4, x1, -1), arm64.StrbPre(x4, x3, -1), must64(arm64.SubsImm(x2, x2, 1)))
	bc(arm64.NE, ".mmov")
	lab(".mmov.done")
	w(ret)
	lab("memset")
	w(arm64.MovReg(x3, x0))
	cbz(x2, ".mset.done")
	lab(".mset")
	w(arm64.StrbPost(x1, x3, 1), must64(arm64.SubsImm(x2, x2, 1)))
	bc(arm64.NE, ".mset")
	lab(".mset.done")
	w(ret)

	// The C library's string functions gcc calls when it does not expand
	// them (the kernel's lib/string.c): byte loops (ldrb zero-extends, so
	// the bytes compare as 64-bit values).
	cbnz := func(r int, to string) { c = append(c, a64Item{br: to, cbz: true, nz: true, reg: r}) }
	sub1 := func(r int) { w(must64(arm64.SubImm(r, r, 1))) }
	lab("strlen")
	w(arm64.MovReg(x3, x0))
	lab(".slen")
	w(arm64.LdrbPost(x4, x3, 1))
	cbnz(x4, ".slen")
	w(arm64.SubReg(x0, x3, x0, lsl, 0))
	sub1(x0)
	w(ret)
	lab("strnlen") // (s, n)
	w(arm64.MovReg(x3, x0))
	lab(".snlen")
	cbz(x1, ".snlen.done")
	w(arm64.LdrbPost(x4, x3, 1))
	sub1(x1)
	cbnz(x4, ".snlen")
	sub1(x3)
	lab(".snlen.done")
	w(arm64.SubReg(x0, x3, x0, lsl, 0), ret)
	// memcmp, strncmp (a, b, n), strcmp (a, b): the difference of the
	// first bytes (unsigned) that differ, or 0.
	for _, f := range []struct {
		name               string
		counted, stopsAtNU bool
	}{{"memcmp", true, false}, {"strncmp", true, true}, {"strcmp", false, true}} {
		loop, diff, zero := "."+f.name, "."+f.name+".diff", "."+f.name+".zero"
		lab(f.name)
		lab(loop)
		if f.counted {
			cbz(x2, zero)
			sub1(x2)
		}
		w(arm64.LdrbPost(x3, x0, 1), arm64.LdrbPost(x4, x1, 1), arm64.CmpReg(x3, x4))
		if f.stopsAtNU {
			bc(arm64.NE, diff)
			cbnz(x3, loop)
		} else {
			bc(arm64.EQ, loop)
		}
		lab(diff)
		w(arm64.SubReg(x0, x3, x4, lsl, 0), ret)
		if f.counted {
			lab(zero)
			w(arm64.MovZ(x0, 0, 0), ret)
		}
	}
	lab("strchr") // (s, c): the first c (NUL included) or NULL
	w(arm64.Ubfx(x1, x1, 0, 8))
	lab(".schr")
	w(arm64.LdrbPost(x3, x0, 1), arm64.CmpReg(x3, x1))
	bc(arm64.EQ, ".schr.found")
	cbnz(x3, ".schr")
	w(arm64.MovZ(x0, 0, 0), ret)
	lab(".schr.found")
	sub1(x0)
	w(ret)
	lab("memchr") // (s, c, n)
	w(arm64.Ubfx(x1, x1, 0, 8))
	lab(".mchr")
	cbz(x2, ".mchr.none")
	w(arm64.LdrbPost(x3, x0, 1))
	sub1(x2)
	w(arm64.CmpReg(x3, x1))
	bc(arm64.NE, ".mchr")
	sub1(x0)
	w(ret)
	lab(".mchr.none")
	w(arm64.MovZ(x0, 0, 0), ret)
	lab("strcpy") // (d, s): returns d
	w(arm64.MovReg(x3, x0))
	lab(".scpy")
	w(arm64.LdrbPost(x4, x1, 1), arm64.StrbPost(x4, x3, 1))
	cbnz(x4, ".scpy")
	w(ret)

	// The outline atomics (see above): LL/SC loops.
	const x15, x16, x17 = arm64.X15, arm64.X16, arm64.X17
	for _, op := range a64AtomicOps {
		for _, size := range []int{1, 2, 4, 8} {
			for oi, o := range a64AtomicOrders[:4] {
				name := fmt.Sprintf("__aarch64_%s%d_%s", op, size, o)
				acq, rel := oi == 1 || oi == 3, oi == 2 || oi == 3
				lab(name)
				if o == "acq_rel" {
					lab(fmt.Sprintf("__aarch64_%s%d_sync", op, size))
				}
				loop := "." + name
				switch op {
				case "cas": // (expected x0, desired x1, p x2)
					if size < 8 {
						w(arm64.Ubfx(x17, x0, 0, uint(8*size)))
					} else {
						w(arm64.MovReg(x17, x0))
					}
					lab(loop)
					w(arm64.Ldxr(size, x0, x2, acq), arm64.CmpReg(x0, x17))
					bc(arm64.NE, loop+".done")
					w(arm64.Stxr(size, x16, x1, x2, rel))
					cbnz(x16, loop)
					lab(loop + ".done")
				case "swp": // (v x0, p x1)
					w(arm64.MovReg(x16, x0))
					lab(loop)
					w(arm64.Ldxr(size, x0, x1, acq), arm64.Stxr(size, x17, x16, x1, rel))
					cbnz(x17, loop)
				default: // ld<op> (v x0, p x1)
					opw := map[string]func(rd, rn, rm int, sh uint8, amount uint) arm64.Word{
						"ldadd": arm64.AddReg, "ldclr": arm64.BicReg, "ldeor": arm64.EorReg, "ldset": arm64.OrrReg}[op]
					w(arm64.MovReg(x16, x0))
					lab(loop)
					w(arm64.Ldxr(size, x0, x1, acq), opw(x17, x0, x16, lsl, 0), arm64.Stxr(size, x15, x17, x1, rel))
					cbnz(x15, loop)
				}
				w(ret)
			}
		}
	}
	return c
}

// must64 returns w; every immediate of the library is encodable (a test
// builds it).
func must64(w arm64.Word, ok bool) arm64.Word {
	if !ok {
		panic("kernel: arm64 helper immediate")
	}
	return w
}

// libgcc emits the arm64 helper library at the current pc: every helper
// name becomes a symbol of the image, but the names defined reports (the
// object's own functions).
func (a arm64Text) libgcc(defined func(string) bool) {
	emitHelpers(a.asm, a64HelperCode(), defined, func(it a64Item) string { return it.label }, func(it a64Item, pc uint64, labels map[string]uint64) []byte {
		switch {
		case it.br != "" && it.cbz && it.nz:
			return a.ok(arm64.Cbnz(it.reg, pc, labels[it.br])).Bytes()
		case it.br != "" && it.cbz:
			return a.ok(arm64.Cbz(it.reg, pc, labels[it.br])).Bytes()
		case it.br != "":
			return a.ok(arm64.BCond(it.cond, pc, labels[it.br])).Bytes()
		}
		return it.w.Bytes()
	})
}
