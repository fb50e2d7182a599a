package arm

import "github.com/mcountsim/mcountsim/isa"

// The fast path of Exec: a data-processing instruction whose operands are
// registers other than pc or immediates, and whose destination (if any) is
// not pc, runs in one switch, without the general path's calls and pc
// checks. resolve marks such instructions (Inst.fast); the result is the
// general path's, register for register and flag for flag
// (TestFastPathIsTheGeneralPath).

// fastDP reports whether the resolved inst takes the fast path.
func fastDP(inst *Inst) bool {
	x := inst.x
	if x < xAND || x > xMVN {
		return false
	}
	if write := x < xTST || x > xCMN; write && inst.Rd == PC {
		return false
	}
	if x != xMOV && x != xMVN && inst.Rn == PC {
		return false
	}
	switch o := inst.Op2; o.kind {
	case opImm:
		return true
	case opReg, opRegShift:
		return o.reg != PC
	}
	return false
}

// execDP runs a fast data-processing instruction that passed its
// condition, at pc.
func execDP(inst *Inst, r *Regs, pc uint32) (isa.Flow, error) {
	o := &inst.Op2
	var op2 uint32
	c := r.C
	switch o.kind {
	case opImm:
		op2 = o.imm
		if o.immCarry >= 0 {
			c = o.immCarry == 1
		}
	case opReg:
		op2 = r.R[o.reg]
	default:
		op2, c = r.operand2(o)
	}
	x := inst.x
	rn := r.R[inst.Rn] // unused by MOV and MVN
	v := r.V
	var res uint32
	switch x {
	case xMOV:
		res = op2
	case xADD, xCMN:
		res, c, v = addWithCarry(rn, op2, false)
	case xSUB, xCMP:
		res, c, v = addWithCarry(rn, ^op2, true)
	case xAND, xTST:
		res = rn & op2
	case xORR:
		res = rn | op2
	case xEOR, xTEQ:
		res = rn ^ op2
	case xBIC:
		res = rn &^ op2
	case xMVN:
		res = ^op2
	case xRSB:
		res, c, v = addWithCarry(op2, ^rn, true)
	case xADC:
		res, c, v = addWithCarry(rn, op2, r.C)
	case xSBC:
		res, c, v = addWithCarry(rn, ^op2, r.C)
	case xRSC:
		res, c, v = addWithCarry(op2, ^rn, r.C)
	}
	if inst.S {
		r.N, r.Z, r.C, r.V = res>>31 != 0, res == 0, c, v
	}
	if x < xTST || x > xCMN {
		r.R[inst.Rd] = res
	}
	r.R[PC] = pc + 4
	return isa.FlowNext, nil
}
