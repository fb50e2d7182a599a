package x86

import (
	"github.com/mcountsim/mcountsim/isa"
)

// Run executes instructions against r and bus back to back, each the one
// that run holds for its pc (run[pc-base]), and returns how many it
// executed (at most max) and where it stopped: before a pc that run holds
// nothing for (outside it, or nil), or after an instruction that failed,
// called, returned, or jumped through memory (the caller's detectors look
// at those). Each instruction does to r and bus what Exec does: Exec is
// Run over a table of one. The fast forms (fast.go) run inline, each its
// own case of one switch, with their operands read and written without a
// branch (get, set) and their flags computed at once, in a few operations.
func Run(run []*Resolved, base uint64, r *Regs, bus isa.Bus, max int) (n int, s isa.Stop) {
	pc := r.RIP // kept here between instructions: the next pc waits on no store
	for n < max {
		off := pc - base
		if off >= uint64(len(run)) || run[off] == nil {
			s.Missing = true
			return n, s
		}
		inst := run[off]
		s.PC, s.SP, s.Len = pc, r.R[RSP], inst.Len
		n++
		next := pc + uint64(inst.Len)
		size := inst.size
		d, src := &inst.dst, &inst.src
		var err error
		switch inst.fast {
		case fastNone:
			s.Flow, s.Err = inst.slow(r, bus, pc)
			if s.Err != nil || s.Flow >= isa.FlowCall || inst.linkLoad {
				return n, s
			}
			pc = r.RIP
			continue
		case fastMov:
			r.set(d, r.value(src, size))
		case fastLoad:
			var v uint64
			if v, err = bus.Load(r.addr(src, next), int(size), d.reg); err == nil {
				r.set(d, v)
			}
		case fastStore:
			err = bus.Store(r.addr(d, next), int(size), r.value(src, size)&sizeMask[size&15], busReg(src))
		case fastPush:
			sp := r.R[RSP] - 8
			if err = bus.Store(sp, 8, r.R[d.reg&15], d.reg); err == nil {
				r.R[RSP] = sp
			}
		case fastPop:
			var v uint64
			if v, err = bus.Load(r.R[RSP], 8, d.reg); err == nil {
				r.R[RSP] += 8
				r.R[d.reg&15] = v
			}
		case fastShift:
			r.set(d, r.shift(inst, r.get(d)))
		case fastAdd, fastSub, fastCmp:
			// add, and sub as the add of the complement with the borrows
			// inverted, as Regs.add and Regs.sub do, inline.
			k := (64 - uint(size)<<3) & 63
			a, b, carry := r.get(d), r.value(src, size), uint64(0)
			if inst.fast != fastAdd {
				b, carry = ^b, 1
			}
			res := r.addTop(a<<k|(1<<k-1), b<<k, carry, k)
			if inst.fast != fastAdd {
				r.CF, r.AF = !r.CF, !r.AF
			}
			if inst.fast != fastCmp {
				r.set(d, res)
			}
		case fastAnd:
			r.set(d, r.logic(r.get(d)&r.value(src, size), size))
		case fastTest:
			r.logic(r.get(d)&r.value(src, size), size)
		case fastOr:
			r.set(d, r.logic(r.get(d)|r.value(src, size), size))
		case fastXor:
			r.set(d, r.logic(r.get(d)^r.value(src, size), size))
		case fastAdc:
			r.set(d, r.add(r.get(d), r.value(src, size), b2u(r.CF), size))
		case fastSbb:
			r.set(d, r.sub(r.get(d), r.value(src, size), b2u(r.CF), size))
		}
		if err != nil {
			s.Flow, s.Err = isa.FlowNext, execError(inst, pc, err)
			return n, s
		}
		r.RIP, pc = next, next
		s.Flow, s.Err = isa.FlowNext, nil
	}
	return n, s
}
