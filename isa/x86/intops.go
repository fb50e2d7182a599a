package x86

import (
	"errors"
	"math/bits"

	"github.com/mcountsim/mcountsim/isa"
	"golang.org/x/arch/x86/x86asm"
)

// The integer instructions gcc emits for kernel code (-O2 -mno-sse
// -mno-mmx -mno-red-zone) beyond the basic ALU: one-operand MUL, IMUL, DIV
// and IDIV; CBW/CWDE/CDQE and CWD/CDQ/CQO; ROL and ROR; SHLD and SHRD;
// BSWAP; TZCNT, LZCNT and POPCNT; BT, BTS, BTR and BTC; XADD and CMPXCHG;
// MOVBE. Each cites its SDM Vol. 2 entry; where the SDM leaves a flag
// undefined the comment says what this executor does.

// ErrDivide is the divide error (#DE, SDM Vol. 3A §6.15, "Interrupt 0"): a
// DIV or IDIV by zero, or one whose quotient does not fit its destination.
// It is a real exception the program raised, not a gap of the executor,
// so it is a sentinel of its own rather than isa.ErrUnsupported; and it is
// not a memory fault either. Exec returns it (wrapped in isa.Detail, which
// says which of the two happened, inside an *isa.Fault) with the registers
// unchanged and RIP at the faulting instruction, as the CPU leaves them.
// It lives here rather than in package isa because only x86 traps on
// division (A32 SDIV/UDIV and RISC-V DIV return a value).
var ErrDivide = errors.New("divide error (#DE)")

var (
	errDivZero     = isa.Detail("division by zero", ErrDivide)
	errDivOverflow = isa.Detail("quotient too large for its destination", ErrDivide)
)

// compileInt resolves the operands of the instructions of this file; ok is
// false for any other instruction.
func compileInt(inst *Inst, size *int) (ok bool, err error) {
	ai := &inst.Arch
	set := func(dst *operand, i, sz int) {
		if err == nil {
			*dst, err = arg(ai, i, sz)
		}
	}
	rm := func(o *operand) bool { return o.kind == kindReg || o.kind == kindMem }
	switch ai.Op {
	case x86asm.MUL, x86asm.DIV, x86asm.IDIV:
		set(&inst.src, 0, *size)
		if err == nil && !rm(&inst.src) {
			err = errOperandForm
		}
	case x86asm.CBW, x86asm.CWD:
		*size = 2
	case x86asm.CWDE, x86asm.CDQ:
		*size = 4
	case x86asm.CDQE, x86asm.CQO:
		*size = 8
	case x86asm.ROL, x86asm.ROR:
		set(&inst.dst, 0, *size)
		set(&inst.src, 1, 0)
		if err == nil && (!rm(&inst.dst) || !immOrCL(&inst.src)) {
			err = errOperandForm
		}
	case x86asm.SHLD, x86asm.SHRD:
		set(&inst.dst, 0, *size)
		set(&inst.src, 1, *size)
		set(&inst.src2, 2, 0)
		if err == nil && (!rm(&inst.dst) || inst.src.kind != kindReg || !immOrCL(&inst.src2)) {
			err = errOperandForm
		}
	case x86asm.BSWAP:
		// BSWAP of a 16-bit register is undefined (SDM "BSWAP").
		set(&inst.dst, 0, 0)
		if err == nil && (inst.dst.kind != kindReg || inst.dst.size < 4) {
			err = errOperandForm
		}
	case x86asm.TZCNT, x86asm.LZCNT, x86asm.POPCNT:
		set(&inst.dst, 0, 0)
		set(&inst.src, 1, *size)
		if err == nil && (inst.dst.kind != kindReg || !rm(&inst.src)) {
			err = errOperandForm
		}
	case x86asm.BT, x86asm.BTS, x86asm.BTR, x86asm.BTC:
		set(&inst.dst, 0, *size)
		set(&inst.src, 1, 0)
		if err == nil && (!rm(&inst.dst) || inst.src.kind != kindReg && inst.src.kind != kindImm) {
			err = errOperandForm
		}
	case x86asm.XADD, x86asm.CMPXCHG:
		set(&inst.dst, 0, *size)
		set(&inst.src, 1, *size)
		if err == nil && (!rm(&inst.dst) || inst.src.kind != kindReg) {
			err = errOperandForm
		}
	case x86asm.MOVBE:
		set(&inst.dst, 0, *size)
		set(&inst.src, 1, *size)
		if err == nil && !(inst.dst.kind == kindReg && inst.src.kind == kindMem ||
			inst.dst.kind == kindMem && inst.src.kind == kindReg) {
			err = errOperandForm
		}
		if err == nil && inst.dst.kind == kindMem {
			*size = int(inst.src.size)
		}
	default:
		return false, nil
	}
	return true, err
}

// immOrCL reports whether o is a count operand: an immediate or CL.
func immOrCL(o *operand) bool {
	return o.kind == kindImm || o.kind == kindReg && o.reg == uint8(RCX) && o.size == 1 && o.sh == 0
}

// count reads a shift or rotate count operand and masks it to 5 bits (6
// for 64-bit operands), as every shift and rotate does.
func (r *Regs) count(o *operand, size uint8) uint64 {
	n := uint64(o.val)
	if o.kind == kindReg {
		n = r.R[RCX]
	}
	if size == 8 {
		return n & 63
	}
	return n & 31
}

// execInt executes the instructions of this file; ok is false for any
// other instruction.
func execInt(inst *Resolved, r *Regs, bus isa.Bus, next uint64) (ok bool, err error) {
	size := inst.size
	d, s := &inst.dst, &inst.src
	m := sizeMask[size]
	nbits := uint64(size) * 8
	switch inst.Op {
	case x86asm.MUL, x86asm.IMUL:
		v, err := r.read(s, size, bus, next, isa.NoReg)
		if err != nil {
			return true, err
		}
		r.mulAcc(inst.Op == x86asm.IMUL, v, size)
	case x86asm.DIV, x86asm.IDIV:
		v, err := r.read(s, size, bus, next, isa.NoReg)
		if err != nil {
			return true, err
		}
		if err := r.divAcc(inst.Op == x86asm.IDIV, v, size); err != nil {
			return true, err
		}
	case x86asm.CBW, x86asm.CWDE, x86asm.CDQE:
		// SDM "CBW/CWDE/CDQE": sign-extend the lower half of the
		// accumulator into all of it. No flags.
		a := operand{kind: kindReg, reg: uint8(RAX), size: size}
		r.set(&a, signExtend(r.R[RAX], size/2))
	case x86asm.CWD, x86asm.CDQ, x86asm.CQO:
		// SDM "CWD/CDQ/CQO": copy the accumulator's sign bit into every
		// bit of DX, EDX or RDX. No flags.
		dx := operand{kind: kindReg, reg: uint8(RDX), size: size}
		r.set(&dx, uint64(int64(signExtend(r.R[RAX]&m, size))>>63))
	case x86asm.ROL, x86asm.ROR:
		v, err := r.read(d, size, bus, next, isa.NoReg)
		if err != nil {
			return true, err
		}
		res := r.rotate(inst.Op == x86asm.ROL, v, r.count(s, size), size)
		if err := r.write(d, size, res, bus, next, isa.NoReg); err != nil {
			return true, err
		}
	case x86asm.SHLD, x86asm.SHRD:
		v, err := r.read(d, size, bus, next, isa.NoReg)
		if err != nil {
			return true, err
		}
		res := r.shiftDouble(inst.Op == x86asm.SHLD, v, r.get(s), r.count(&inst.src2, size), size)
		if err := r.write(d, size, res, bus, next, isa.NoReg); err != nil {
			return true, err
		}
	case x86asm.BSWAP:
		// SDM "BSWAP". No flags; the 32-bit form zero-extends.
		v := r.get(d)
		if size == 4 {
			v = uint64(bits.ReverseBytes32(uint32(v)))
		} else {
			v = bits.ReverseBytes64(v)
		}
		r.set(d, v)
	case x86asm.TZCNT, x86asm.LZCNT, x86asm.POPCNT:
		v, err := r.read(s, size, bus, next, d.reg)
		if err != nil {
			return true, err
		}
		r.set(d, r.countBits(inst.Op, v&m, size))
	case x86asm.BT, x86asm.BTS, x86asm.BTR, x86asm.BTC:
		if err := r.bitTest(inst, bus, next); err != nil {
			return true, err
		}
	case x86asm.XADD:
		// SDM "XADD": TEMP ← SRC + DEST; SRC ← DEST; DEST ← TEMP. Flags
		// as ADD. The source register is written before the destination,
		// so "xadd %rax,%rax" leaves the sum.
		a, err := r.read(d, size, bus, next, isa.NoReg)
		if err != nil {
			return true, err
		}
		sum := r.add(a, r.get(s), 0, size)
		r.set(s, a)
		if err := r.write(d, size, sum, bus, next, busReg(s)); err != nil {
			return true, err
		}
	case x86asm.CMPXCHG:
		// SDM "CMPXCHG" (one CPU: the LOCK prefix changes nothing here).
		// Flags as CMP accumulator, DEST. Equal: DEST ← SRC. Otherwise the
		// accumulator ← DEST and DEST is left alone: a 32-bit register
		// DEST keeps its upper half (the host CPU and QEMU agree, see
		// TestFormsDifferential), and a memory DEST sees no store (the
		// SDM's write-back of the same value is not modelled, so that a
		// detector does not take it for a new value).
		a, err := r.read(d, size, bus, next, isa.NoReg)
		if err != nil {
			return true, err
		}
		acc := operand{kind: kindReg, reg: uint8(RAX), size: size}
		r.sub(r.get(&acc), a, 0, size)
		switch {
		case r.ZF:
			if err := r.write(d, size, r.get(s), bus, next, busReg(s)); err != nil {
				return true, err
			}
		default:
			r.set(&acc, a)
		}
	case x86asm.MOVBE:
		// SDM "MOVBE": a load or store with the bytes reversed. No flags.
		v, err := r.read(s, size, bus, next, busReg(d))
		if err != nil {
			return true, err
		}
		v = bits.ReverseBytes64(v) >> (64 - nbits)
		if err := r.write(d, size, v, bus, next, busReg(s)); err != nil {
			return true, err
		}
	default:
		return false, nil
	}
	return true, nil
}

// mulAcc executes one-operand MUL and IMUL (SDM "MUL", "IMUL"): the
// accumulator times v into AX, DX:AX, EDX:EAX or RDX:RAX. CF and OF are set
// when the upper half is significant (MUL: nonzero; IMUL: not the sign
// extension of the lower half). SF, ZF, AF and PF are undefined: SF, ZF
// and PF follow the lower half and AF is cleared, as for the two-operand
// IMUL.
func (r *Regs) mulAcc(signed bool, v uint64, size uint8) {
	m := sizeMask[size]
	a := r.R[RAX] & m
	var hi, lo uint64
	var wide bool
	switch {
	case size == 8 && !signed:
		hi, lo = bits.Mul64(a, v)
		wide = hi != 0
	case size == 8:
		hi, lo = bits.Mul64(a, v)
		if int64(a) < 0 {
			hi -= v
		}
		if int64(v) < 0 {
			hi -= a
		}
		wide = hi != uint64(int64(lo)>>63)
	default:
		var p uint64
		if signed {
			sp := int64(signExtend(a, size)) * int64(signExtend(v, size))
			p = uint64(sp)
			wide = int64(signExtend(uint64(sp)&m, size)) != sp
		} else {
			p = a * v
			wide = p>>(size*8) != 0
		}
		lo, hi = p&m, p>>(size*8)&m
	}
	if size == 1 {
		r.R[RAX] = r.R[RAX]&^0xffff | hi<<8 | lo
	} else {
		ax := operand{kind: kindReg, reg: uint8(RAX), size: size}
		dx := operand{kind: kindReg, reg: uint8(RDX), size: size}
		r.set(&ax, lo)
		r.set(&dx, hi)
	}
	r.CF, r.OF, r.AF = wide, wide, false
	r.result(lo, size)
}

// divAcc executes DIV and IDIV (SDM "DIV", "IDIV"): AX, DX:AX, EDX:EAX or
// RDX:RAX divided by v, the quotient into the lower half, the remainder
// (with the dividend's sign for IDIV) into the upper (AH for 8 bits). A
// zero divisor or a quotient that does not fit is a divide error: the
// registers are left as they were. All six flags are undefined; they are
// left unchanged.
func (r *Regs) divAcc(signed bool, v uint64, size uint8) error {
	m := sizeMask[size]
	if v&m == 0 {
		return errDivZero
	}
	nb := uint(size) * 8
	var nhi, nlo uint64 // the dividend, twice size bytes
	if size == 1 {
		nhi, nlo = r.R[RAX]>>8&0xff, r.R[RAX]&0xff
	} else {
		nhi, nlo = r.R[RDX]&m, r.R[RAX]&m
	}
	var q, rem uint64
	var ok bool
	if !signed {
		if q, rem, ok = divWide(nhi, nlo, v, nb); !ok {
			return errDivOverflow
		}
	} else {
		// The magnitudes, divided unsigned, then the signs.
		neg := nhi>>(nb-1)&1 != 0
		if neg { // negate the 2·nb-bit dividend
			nlo = (^nlo + 1) & m
			nhi = ^nhi & m
			if nlo == 0 {
				nhi = (nhi + 1) & m
			}
		}
		dneg := v>>(nb-1)&1 != 0
		dv := v
		if dneg {
			dv = -v & m
		}
		if q, rem, ok = divWide(nhi, nlo, dv, nb); !ok {
			return errDivOverflow
		}
		top := uint64(1) << (nb - 1)
		if neg != dneg {
			if q > top {
				return errDivOverflow
			}
			q = -q & m
		} else if q >= top {
			return errDivOverflow
		}
		if neg {
			rem = -rem & m
		}
	}
	if size == 1 {
		r.R[RAX] = r.R[RAX]&^0xffff | rem<<8 | q
		return nil
	}
	ax := operand{kind: kindReg, reg: uint8(RAX), size: size}
	dx := operand{kind: kindReg, reg: uint8(RDX), size: size}
	r.set(&ax, q)
	r.set(&dx, rem)
	return nil
}

// divWide divides nhi:nlo, 2·nb bits, by v, unsigned; ok is false when
// the quotient does not fit in nb bits.
func divWide(nhi, nlo, v uint64, nb uint) (q, rem uint64, ok bool) {
	if nhi >= v {
		return 0, 0, false
	}
	if nb == 64 {
		q, rem = bits.Div64(nhi, nlo, v)
		return q, rem, true
	}
	n := nhi<<nb | nlo
	return n / v, n % v, true
}

// rotate executes ROL and ROR by a masked count n (SDM "RCL/RCR/ROL/ROR"):
// the value rotates by n mod the operand width. A zero n changes no flag;
// otherwise CF is the bit that wrapped around (ROL: the result's LSB, ROR:
// its MSB), even when n is a multiple of the width. OF is defined for n = 1
// only (ROL: MSB xor CF; ROR: the two top bits xored); it is computed the
// same way for the other counts, as QEMU does. The other flags are kept.
func (r *Regs) rotate(left bool, v, n uint64, size uint8) uint64 {
	nbits := uint64(size) * 8
	m := sizeMask[size]
	k := n % nbits
	res := v
	if k != 0 {
		if left {
			res = (v<<k | v>>(nbits-k)) & m
		} else {
			res = (v>>k | v<<(nbits-k)) & m
		}
	}
	if n != 0 {
		msb := res>>(nbits-1)&1 != 0
		if left {
			r.CF = res&1 != 0
			r.OF = msb != r.CF
		} else {
			r.CF = msb
			r.OF = msb != (res>>(nbits-2)&1 != 0)
		}
	}
	return res
}

// shiftDouble executes SHLD and SHRD by a masked count n (SDM "SHLD",
// "SHRD"): dst shifts by n, filling from src. A zero n changes nothing
// (but a 32-bit register destination is still written, hence
// zero-extended, as the CPU does). CF is the last bit shifted out of dst,
// SF, ZF and PF follow the result, OF (defined for n = 1) says whether the
// sign changed and is computed the same way for larger counts; AF
// (undefined) is cleared. A 16-bit count above 16 is undefined in the
// SDM: the 16-bit dst:src pair is then shifted as a 32-bit value, and the
// bits shifted in come from dst again, as Intel CPUs do.
func (r *Regs) shiftDouble(left bool, dst, src, n uint64, size uint8) uint64 {
	if n == 0 {
		return dst
	}
	nbits := uint64(size) * 8
	m := sizeMask[size]
	var res uint64
	var cf bool
	switch {
	case size == 2 && n > 16:
		// dst:src:dst as a 48-bit value.
		if left {
			x := dst<<32 | src<<16 | dst
			res = x >> (32 - (n - 16)) & m
			cf = x>>(48-(n-16))&1 != 0
		} else {
			x := dst<<32 | src<<16 | dst
			res = x >> n & m
			cf = x>>(n-1)&1 != 0
		}
	case left:
		res = (dst<<n | src>>(nbits-n)) & m
		cf = dst>>(nbits-n)&1 != 0
	default:
		res = (dst>>n | src<<(nbits-n)) & m
		cf = dst>>(n-1)&1 != 0
	}
	r.CF = cf
	r.OF = (res^dst)>>(nbits-1)&1 != 0
	r.AF = false
	r.result(res, size)
	return res
}

// countBits executes TZCNT, LZCNT (SDM "TZCNT", "LZCNT": CF says the source
// was zero, ZF that the result is; OF, SF, AF and PF are undefined and kept)
// and POPCNT (SDM "POPCNT": ZF says the source was zero, the other five are
// cleared). The f3 0f bc/bd encodings are TZCNT/LZCNT on every CPU with
// BMI1/LZCNT (x86-64-v3, all since 2013); an older CPU runs them as BSF/BSR,
// which gcc relies on only for a nonzero source, where TZCNT and BSF agree.
func (r *Regs) countBits(op x86asm.Op, v uint64, size uint8) uint64 {
	nbits := uint64(size) * 8
	var n uint64
	switch op {
	case x86asm.TZCNT:
		n = min(uint64(bits.TrailingZeros64(v)), nbits)
	case x86asm.LZCNT:
		n = uint64(bits.LeadingZeros64(v)) - (64 - nbits)
	default:
		n = uint64(bits.OnesCount64(v))
		r.CF, r.OF, r.SF, r.AF, r.PF = false, false, false, false, false
		r.ZF = v == 0
		return n
	}
	r.CF = v == 0
	r.ZF = n == 0
	return n
}

// bitTest executes BT, BTS, BTR and BTC (SDM "BT", "BTS", "BTR", "BTC"):
// CF is the selected bit, which BTS sets, BTR clears and BTC flips. An
// immediate offset is taken modulo the operand width. A register offset
// with a memory operand selects a bit anywhere in the bit string: the
// signed offset divided by the width selects the unit, at addr +
// unit·width/8. ZF is kept; OF, SF, AF and PF are undefined and kept.
func (r *Regs) bitTest(inst *Resolved, bus isa.Bus, next uint64) error {
	size := inst.size
	d, s := &inst.dst, &inst.src
	nbits := uint64(size) * 8
	var off uint64
	if s.kind == kindImm {
		off = uint64(s.val) & (nbits - 1)
	} else {
		off = r.get(s)
	}
	bit := off & (nbits - 1)
	var v uint64
	var err error
	addr := uint64(0)
	if d.kind == kindMem {
		addr = r.addr(d, next)
		if s.kind == kindReg {
			unit := int64(signExtend(off, size)) >> bits.TrailingZeros64(nbits)
			addr += uint64(unit * int64(size))
		}
		v, err = bus.Load(addr, int(size), isa.NoReg)
		if err != nil {
			return err
		}
	} else {
		v = r.get(d)
	}
	r.CF = v>>bit&1 != 0
	switch inst.Op {
	case x86asm.BT:
		return nil
	case x86asm.BTS:
		v |= 1 << bit
	case x86asm.BTR:
		v &^= 1 << bit
	case x86asm.BTC:
		v ^= 1 << bit
	}
	if d.kind == kindMem {
		return bus.Store(addr, int(size), v&sizeMask[size], isa.NoReg)
	}
	r.set(d, v)
	return nil
}
