package arm64

import (
	"math/bits"

	"github.com/mcountsim/mcountsim/isa"
)

// Run executes instructions against r and bus back to back, each the one
// that run holds for its pc (run[pc-base]), and returns how many it
// executed (at most max) and where it stopped: before a pc that run holds
// nothing for (outside it, or nil), or after an instruction that failed,
// called, returned, or loaded the link register (the caller's detectors
// look at those). Each instruction does to r and bus what Exec does: Exec
// is Run over a table of one. The commonest operations of compiled code
// run from here: add, sub and the logical ones, mov of a wide immediate,
// the bitfield moves (lsl, lsr, asr, ubfx…), the conditional selects (cset,
// csel…), multiply-add, and the single and pair loads and stores; exec
// (the general path) has the rest.
func Run(run []*Resolved, base uint64, r *Regs, bus isa.Bus, max int) (n int, s isa.Stop) {
	for n < max {
		pc := r.PC
		off := pc - base
		if off >= uint64(len(run)) || run[off] == nil {
			s.Missing = true
			return n, s
		}
		inst := run[off]
		s.PC, s.SP, s.Len = pc, r.SP, 4
		n++
		var err error
		if inst.err != nil {
			goto slow
		}
		switch inst.x {
		case xAddImm, xSubImm, xAddReg, xSubReg:
			// addSub's immediate and shifted-register forms.
			x, y, carry := r.get(inst.rn), inst.imm, false
			if inst.x == xAddReg || inst.x == xSubReg {
				y = shiftReg(r.get(inst.rm), inst.shift, inst.amount, inst.sf)
			}
			if inst.x == xSubImm || inst.x == xSubReg {
				y, carry = ^y, true
			}
			if inst.sf {
				// addWithCarry's 64-bit half, inline.
				res, c := bits.Add64(x, y, b2u(carry))
				if inst.setFlags {
					r.N, r.Z, r.C, r.V = res>>63 != 0, res == 0, c != 0, (x^res)&(y^res)>>63 != 0
				}
				r.set(inst.rd, res)
				break
			}
			res, nf, z, c, v := addWithCarry(x, y, carry, false)
			if inst.setFlags {
				r.N, r.Z, r.C, r.V = nf, z, c, v
			}
			r.set(inst.rd, res)
		case xAndImm, xOrrImm, xEorImm, xAndReg, xOrrReg, xEorReg:
			r.set(inst.rd, logical(inst, r))
		case xMovZ:
			r.set(inst.rd, inst.imm)
		case xSbfm, xBfm, xUbfm:
			bitfield(inst, r)
		case xCsel, xCsinc, xCsinv, xCsneg:
			csel(inst, r)
		case xMadd, xMsub:
			r.set(inst.rd, threeSource(inst, r))
		case xLoad, xStore:
			err = loadStore1(inst, r, bus, pc)
		case xLoadPair, xStorePair:
			err = loadStorePair(inst, r, bus)
		default:
			goto slow
		}
		if err != nil {
			s.Flow, s.Err = isa.FlowNext, &isa.Fault{PC: pc, Bytes: wordBytes(inst.Word), Unit: 4, Disasm: inst.disasm(pc), Err: err}
			return n, s
		}
		r.PC = pc + 4
		s.Flow, s.Err = isa.FlowNext, nil
		if inst.linkLoad {
			return n, s
		}
		continue
	slow:
		s.Flow, s.Err = inst.slow(r, bus, pc)
		if s.Err != nil || s.Flow >= isa.FlowCall || inst.linkLoad {
			return n, s
		}
	}
	return n, s
}

// logical is the result of AND, ORR and EOR of an immediate or a shifted
// register (BIC, ORN, EON invert it), with ANDS's flags.
func logical(inst *Resolved, r *Regs) uint64 {
	x, y := r.get(inst.rn), inst.imm
	if inst.x >= xAndReg {
		y = shiftReg(r.get(inst.rm), inst.shift, inst.amount, inst.sf)
		if inst.invert {
			y = ^y
		}
	}
	var res uint64
	switch inst.x {
	case xAndImm, xAndReg:
		res = x & y
	case xOrrImm, xOrrReg:
		res = x | y
	default:
		res = x ^ y
	}
	res = trunc(res, inst.sf)
	if inst.setFlags {
		if inst.sf {
			r.N = res>>63 != 0
		} else {
			r.N = res>>31 != 0
		}
		r.Z, r.C, r.V = res == 0, false, false
	}
	return res
}

// csel executes CSEL, CSINC, CSINV and CSNEG (cset, cinc, cneg…).
func csel(inst *Resolved, r *Regs) {
	v := r.get(inst.rn)
	if !r.Passed(inst.cond) {
		v = r.get(inst.rm)
		switch inst.x {
		case xCsinc:
			v++
		case xCsinv:
			v = ^v
		case xCsneg:
			v = -v
		}
	}
	r.set(inst.rd, trunc(v, inst.sf))
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}
