package x86

import (
	"github.com/mcountsim/mcountsim/isa"
	"golang.org/x/arch/x86/x86asm"
)

// The string instructions (MOVS, STOS, LODS, SCAS, CMPS at every width,
// with REP, REPE or REPNE), the rotates through the carry (RCL, RCR) and
// the flag instructions (CLC, STC, CMC, CLD, LAHF, SAHF): what gcc emits
// for block clears and copies of locals (rep stos, rep movs, movsb at -Os),
// for 65-bit sums (rcr) and for carry tricks. Each cites its SDM Vol. 2
// entry.
//
// The direction flag: the ABI has it clear at every call and return, and
// gcc never sets it; Regs does not hold it. CLD executes (it leaves the
// flag clear), STD is refused as unsupported, and the string instructions
// step forwards.
//
// REP: one iteration is one Exec, as the CPU makes each iteration
// interruptible (SDM "REP/REPE/REPZ/REPNE/REPNZ": an interrupt or
// exception between iterations leaves rcx, rsi and rdi updated and RIP at
// the instruction): while the count is not exhausted (and for SCAS and
// CMPS the condition holds) RIP stays at the instruction (the Flow is
// isa.FlowBranch: a jump back to itself), so that the
// scheduler may run other tasks between two iterations and a fault in an
// iteration leaves the registers of the iterations before it. With rcx
// zero a REP instruction does nothing. REPNE (f2) on MOVS, STOS and LODS,
// whose behaviour the SDM leaves undefined, is refused.

// String instruction kinds (Inst.str).
const (
	strNone uint8 = iota
	strMovs
	strStos
	strLods
	strScas
	strCmps
)

// Repeat prefixes (Inst.rep).
const (
	repNone uint8 = iota
	repE          // f3: REP, or REPE for SCAS and CMPS
	repNE         // f2: REPNE
)

var errRepNE = isa.Detail("repne on a string instruction that does not compare", isa.ErrUnsupported)
var errDirection = isa.Detail("std: the direction flag is modelled clear", isa.ErrUnsupported)

// stringOp returns the kind and element size of a string instruction, or
// strNone.
func stringOp(op x86asm.Op) (kind uint8, size int) {
	switch op {
	case x86asm.MOVSB, x86asm.MOVSW, x86asm.MOVSD, x86asm.MOVSQ:
		kind = strMovs
	case x86asm.STOSB, x86asm.STOSW, x86asm.STOSD, x86asm.STOSQ:
		kind = strStos
	case x86asm.LODSB, x86asm.LODSW, x86asm.LODSD, x86asm.LODSQ:
		kind = strLods
	case x86asm.SCASB, x86asm.SCASW, x86asm.SCASD, x86asm.SCASQ:
		kind = strScas
	case x86asm.CMPSB, x86asm.CMPSW, x86asm.CMPSD, x86asm.CMPSQ:
		kind = strCmps
	default:
		return strNone, 0
	}
	switch op {
	case x86asm.MOVSB, x86asm.STOSB, x86asm.LODSB, x86asm.SCASB, x86asm.CMPSB:
		size = 1
	case x86asm.MOVSW, x86asm.STOSW, x86asm.LODSW, x86asm.SCASW, x86asm.CMPSW:
		size = 2
	case x86asm.MOVSD, x86asm.STOSD, x86asm.LODSD, x86asm.SCASD, x86asm.CMPSD:
		size = 4
	default:
		size = 8
	}
	return kind, size
}

// compileMore resolves the instructions of this file; ok is false for any
// other instruction.
func compileMore(inst *Inst, size *int) (ok bool, err error) {
	ai := &inst.Arch
	if k, sz := stringOp(ai.Op); k != strNone {
		inst.str, *size = k, sz
		for _, p := range ai.Prefix {
			if p == 0 {
				break
			}
			switch p & 0xff {
			case 0xf3:
				inst.rep = repE
			case 0xf2:
				inst.rep = repNE
			}
		}
		if inst.rep == repNE && k != strScas && k != strCmps {
			return true, errRepNE
		}
		// The operands: rdi (es, which cannot be overridden) and rsi
		// (ds or an override, which memOperand checks).
		for i := 0; i < 2; i++ {
			m, isMem := ai.Args[i].(x86asm.Mem)
			if !isMem {
				continue
			}
			o, err := memOperand(m, sz)
			if err != nil {
				return true, err
			}
			if o.gs {
				return true, errGSString
			}
			if o.base == uint8(RSI) {
				inst.src = o
			} else {
				inst.dst = o
			}
		}
		return true, nil
	}
	switch ai.Op {
	case x86asm.RCL, x86asm.RCR:
		inst.dst, err = arg(ai, 0, *size)
		if err == nil {
			inst.src, err = arg(ai, 1, 0)
		}
		if err == nil && (inst.dst.kind != kindReg && inst.dst.kind != kindMem || !immOrCL(&inst.src)) {
			err = errOperandForm
		}
	case x86asm.CLC, x86asm.STC, x86asm.CMC, x86asm.CLD, x86asm.LAHF, x86asm.SAHF:
		*size = 1
	case x86asm.STD:
		*size = 1
		err = errDirection
	default:
		return false, nil
	}
	return true, err
}

// execMore executes the non-string instructions of this file; ok is false
// for any other instruction.
func execMore(inst *Resolved, r *Regs, bus isa.Bus, next uint64) (ok bool, err error) {
	size := inst.size
	switch inst.Op {
	case x86asm.RCL, x86asm.RCR:
		v, err := r.read(&inst.dst, size, bus, next, isa.NoReg)
		if err != nil {
			return true, err
		}
		res := r.rotateCarry(inst.Op == x86asm.RCL, v, r.count(&inst.src, size), size)
		return true, r.write(&inst.dst, size, res, bus, next, isa.NoReg)
	case x86asm.CLC:
		r.CF = false // SDM "CLC": the other flags unaffected
	case x86asm.STC:
		r.CF = true // SDM "STC"
	case x86asm.CMC:
		r.CF = !r.CF // SDM "CMC"
	case x86asm.CLD:
		// SDM "CLD": DF is clear already (see above).
	case x86asm.LAHF:
		// SDM "LAHF": AH ← SF:ZF:0:AF:0:PF:1:CF.
		ah := uint64(r.Flags()&0xff) | 2
		r.R[RAX] = r.R[RAX]&^0xff00 | ah<<8
	case x86asm.SAHF:
		// SDM "SAHF": SF, ZF, AF, PF and CF from AH; OF unaffected.
		of := r.OF
		r.SetFlags(r.R[RAX] >> 8 & 0xff)
		r.OF = of
	default:
		return false, nil
	}
	return true, nil
}

// rotateCarry executes RCL and RCR by a masked count n (SDM
// "RCL/RCR/ROL/ROR"): the operand and CF rotate together as a value of
// width+1 bits, so an 8-bit operand rotates by n mod 9 and a 16-bit one by
// n mod 17. A zero n changes no flag; otherwise CF is the last bit rotated
// out (unchanged when n mod 9 or 17 is zero). OF is defined for n = 1
// only: RCL: the result's MSB xor the new CF; RCR: the operand's MSB xor
// the old CF, before the rotation; for other counts it is computed the
// same way (RCL) or from the two top bits of the result (RCR), as QEMU
// does. SF, ZF, AF and PF are kept.
func (r *Regs) rotateCarry(left bool, v, n uint64, size uint8) uint64 {
	if n == 0 {
		return v
	}
	nbits := uint64(size) * 8
	m := sizeMask[size]
	k := n
	switch size {
	case 1:
		k = n % 9
	case 2:
		k = n % 17
	}
	cf := r.CF
	ofR := (v>>(nbits-1)&1 != 0) != cf
	res := v & m
	for ; k > 0; k-- {
		if left {
			out := res>>(nbits-1)&1 != 0
			res = (res<<1 | b2u(cf)) & m
			cf = out
		} else {
			out := res&1 != 0
			res = res>>1 | b2u(cf)<<(nbits-1)
			cf = out
		}
	}
	r.CF = cf
	msb := res>>(nbits-1)&1 != 0
	if left {
		r.OF = msb != cf
	} else if n == 1 {
		r.OF = ofR
	} else {
		r.OF = msb != (res>>(nbits-2)&1 != 0)
	}
	return res
}

// execString executes one iteration of a string instruction fetched from
// pc (SDM "MOVS", "STOS", "LODS", "SCAS", "CMPS", and "REP" for the
// prefixes). Without a prefix, or once the count is exhausted or the
// condition fails, RIP moves past it (isa.FlowNext); otherwise it stays
// (isa.FlowBranch).
func execString(inst *Resolved, r *Regs, bus isa.Bus, pc uint64) (isa.Flow, error) {
	next := pc + uint64(inst.Len)
	size := inst.size
	step := uint64(size)
	if inst.rep != repNone && r.R[RCX] == 0 {
		r.RIP = next
		return isa.FlowNext, nil
	}
	acc := operand{kind: kindReg, reg: uint8(RAX), size: size}
	si, di := r.R[RSI], r.R[RDI]
	switch inst.str {
	case strMovs:
		v, err := bus.Load(si, int(size), isa.NoReg)
		if err != nil {
			return isa.FlowNext, err
		}
		if err := bus.Store(di, int(size), v, isa.NoReg); err != nil {
			return isa.FlowNext, err
		}
		r.R[RSI], r.R[RDI] = si+step, di+step
	case strStos:
		if err := bus.Store(di, int(size), r.R[RAX]&sizeMask[size], uint8(RAX)); err != nil {
			return isa.FlowNext, err
		}
		r.R[RDI] = di + step
	case strLods:
		v, err := bus.Load(si, int(size), uint8(RAX))
		if err != nil {
			return isa.FlowNext, err
		}
		r.set(&acc, v)
		r.R[RSI] = si + step
	case strScas:
		// Flags as CMP of the accumulator with the element.
		v, err := bus.Load(di, int(size), isa.NoReg)
		if err != nil {
			return isa.FlowNext, err
		}
		r.sub(r.R[RAX]&sizeMask[size], v, 0, size)
		r.R[RDI] = di + step
	case strCmps:
		// Flags as CMP of the element at rsi with the one at rdi.
		a, err := bus.Load(si, int(size), isa.NoReg)
		if err != nil {
			return isa.FlowNext, err
		}
		b, err := bus.Load(di, int(size), isa.NoReg)
		if err != nil {
			return isa.FlowNext, err
		}
		r.sub(a, b, 0, size)
		r.R[RSI], r.R[RDI] = si+step, di+step
	}
	r.RIP = next
	if inst.rep == repNone {
		return isa.FlowNext, nil
	}
	r.R[RCX]--
	if r.R[RCX] == 0 {
		return isa.FlowNext, nil
	}
	if inst.str == strScas || inst.str == strCmps {
		if inst.rep == repE && !r.ZF || inst.rep == repNE && r.ZF {
			return isa.FlowNext, nil
		}
	}
	r.RIP = pc
	return isa.FlowBranch, nil
}

// stringMemAddr is MemAddr for a string instruction: the access of its next
// iteration. MOVS and CMPS access two places; they report the span from
// the lower to the higher of them (a superset: the caller asks whether
// every access stays within a range), or ok false when the span is large.
func stringMemAddr(inst *Inst, r *Regs) (addr uint64, size int, store, ok bool) {
	n := int(inst.size)
	si, di := r.R[RSI], r.R[RDI]
	switch inst.str {
	case strStos:
		return di, n, true, true
	case strScas:
		return di, n, false, true
	case strLods:
		return si, n, false, true
	}
	lo, hi := min(si, di), max(si, di)
	if hi-lo > 1<<30 {
		return 0, 0, false, false
	}
	return lo, int(hi-lo) + n, inst.str == strMovs, true
}
