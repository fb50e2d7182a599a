package riscv

import "github.com/mcountsim/mcountsim/isa"

// Run executes instructions against r and bus back to back, each the one
// that run holds for its pc (run[pc-base]), and returns how many it
// executed (at most max) and where it stopped: before a pc that run holds
// nothing for (outside it, or nil), or after an instruction that failed,
// called, returned, or loaded ra (the caller's detectors look at those).
// Each instruction does to r and bus what Exec does: Exec is Run over a
// table of one.
func Run(run []*Resolved, base uint64, r *Regs, bus isa.Bus, max int) (n int, s isa.Stop) {
	for n < max {
		pc := r.PC
		off := pc - base
		if off >= uint64(len(run)) || run[off] == nil {
			s.Missing = true
			return n, s
		}
		inst := run[off]
		s.PC, s.SP, s.Len = pc, r.X[SP], inst.Len
		n++
		if inst.err != nil {
			s.Flow, s.Err = isa.FlowNext, execError(inst, pc, inst.err)
			return n, s
		}
		r.X[0] = 0
		s.Flow, s.Err = exec(inst, r, bus, pc)
		r.X[0] = 0
		if s.Err != nil {
			s.Err = execError(inst, pc, s.Err)
			return n, s
		}
		if s.Flow >= isa.FlowCall || inst.linkLoad {
			return n, s
		}
	}
	return n, s
}
