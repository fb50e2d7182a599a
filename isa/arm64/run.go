package arm64

import "github.com/mcountsim/mcountsim/isa"

// Run executes instructions against r and bus back to back, each the one
// that run holds for its pc (run[pc-base]), and returns how many it
// executed (at most max) and where it stopped: before a pc that run holds
// nothing for (outside it, or nil), or after an instruction that failed,
// called, returned, or loaded the link register (the caller's detectors
// look at those). Each instruction does to r and bus what Exec does: Exec
// is Run over a table of one. The commonest operations, add, sub and the
// logical ones, and word and doubleword loads and stores, run from here.
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
		if inst.err == nil {
			var err error
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
				res, nf, z, c, v := addWithCarry(x, y, carry, inst.sf)
				if inst.setFlags {
					r.N, r.Z, r.C, r.V = nf, z, c, v
				}
				r.set(inst.rd, res)
				r.PC = pc + 4
				s.Flow, s.Err = isa.FlowNext, nil
				continue
			case xAndImm, xOrrImm, xEorImm, xAndReg, xOrrReg, xEorReg:
				// logical, inline.
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
				r.set(inst.rd, res)
				r.PC = pc + 4
				s.Flow, s.Err = isa.FlowNext, nil
				continue
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
		}
	slow:
		s.Flow, s.Err = inst.slow(r, bus, pc)
		if s.Err != nil || s.Flow >= isa.FlowCall || inst.linkLoad {
			return n, s
		}
	}
	return n, s
}
