package arm

import "github.com/mcountsim/mcountsim/isa"

// Run executes instructions against r and bus back to back, each the one
// that run holds for its pc (run[pc-base]), and returns how many it
// executed (at most max) and where it stopped: before a pc that run holds
// nothing for (outside it, or nil), or after an instruction that failed,
// called, returned, or may have loaded lr or pc through bus (the caller's
// detectors look at those). Each instruction does to r and bus what Exec
// does: Exec is Run over a table of one. The data-processing fast path
// (fast.go) runs inline, without a call.
func Run(run []*Resolved, base uint32, r *Regs, bus isa.Bus, max int) (n int, s isa.Stop) {
	for n < max {
		pc := r.R[PC]
		off := uint64(pc - base)
		if off >= uint64(len(run)) || run[off] == nil {
			s.Missing = true
			return n, s
		}
		inst := run[off]
		s.PC, s.SP, s.Len = uint64(pc), uint64(r.R[SP]), 4
		n++
		// A failed condition makes any instruction a no-op, even one this
		// executor cannot run (A8.3).
		if inst.Cond != AL && !r.Passed(inst.Cond) {
			r.R[PC] = pc + 4
			s.Flow = isa.FlowSkipped
			continue
		}
		if inst.fast != fastDP {
			s.Flow, s.Err = inst.slow(r, bus, pc)
			if s.Err != nil || s.Flow >= isa.FlowCall || inst.linkLoad {
				return n, s
			}
			continue
		}
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
			op2 = r.R[o.reg&15]
		default:
			op2, c = r.operand2(o)
		}
		x := inst.x
		rn := r.R[inst.Rn&15] // unused by MOV and MVN
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
			r.R[inst.Rd&15] = res
		}
		r.R[PC] = pc + 4
		s.Flow, s.Err = isa.FlowNext, nil
	}
	return n, s
}
