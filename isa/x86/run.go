package x86

import (
	"github.com/mcountsim/mcountsim/isa"
	"golang.org/x/arch/x86/x86asm"
)

// Run executes instructions against r and bus back to back, each the one
// that run holds for its pc (run[pc-base]), and returns how many it
// executed (at most max) and where it stopped: before a pc that run holds
// nothing for (outside it, or nil), or after an instruction that failed,
// called, returned, or jumped through memory (the caller's detectors look
// at those). Each instruction does to r and bus what Exec does: Exec is
// Run over a table of one. The fast forms (fast.go) run inline, without a
// call.
func Run(run []*Resolved, base uint64, r *Regs, bus isa.Bus, max int) (n int, s isa.Stop) {
	for n < max {
		pc := r.RIP
		off := pc - base
		if off >= uint64(len(run)) || run[off] == nil {
			s.Missing = true
			return n, s
		}
		inst := run[off]
		s.PC, s.SP, s.Len = pc, r.R[RSP], inst.Len
		n++
		if inst.fast == fastNone {
			s.Flow, s.Err = inst.slow(r, bus, pc)
			if s.Err != nil || s.Flow >= isa.FlowCall || inst.linkLoad {
				return n, s
			}
			continue
		}
		next := pc + uint64(inst.Len)
		size := inst.size
		d, src := &inst.dst, &inst.src
		var err error
		switch inst.fast {
		case fastMov:
			r.set(d, r.value(src, size))
		case fastLoad:
			var v uint64
			if v, err = bus.Load(r.addr(src, next), int(size), d.reg); err == nil {
				r.set(d, v)
			}
		case fastStore:
			err = bus.Store(r.addr(d, next), int(size), r.value(src, size)&sizeMask[size], busReg(src))
		case fastALU:
			a, b := r.get(d), r.value(src, size)
			var res uint64
			switch inst.Op {
			case x86asm.ADD:
				res = r.add(a, b, 0, size)
			case x86asm.SUB, x86asm.CMP:
				res = r.sub(a, b, 0, size)
			case x86asm.XOR:
				res = r.logic(a^b, size)
			case x86asm.AND, x86asm.TEST:
				res = r.logic(a&b, size)
			case x86asm.OR:
				res = r.logic(a|b, size)
			case x86asm.ADC:
				res = r.add(a, b, b2u(r.CF), size)
			case x86asm.SBB:
				res = r.sub(a, b, b2u(r.CF), size)
			}
			if inst.Op != x86asm.CMP && inst.Op != x86asm.TEST {
				r.set(d, res)
			}
		case fastPush:
			err = r.push(bus, r.get(d), d.reg)
		case fastShift:
			r.set(d, r.shift(inst, r.get(d)))
		case fastPop:
			var v uint64
			if v, err = r.pop(bus, d.reg); err == nil {
				r.set(d, v)
			}
		}
		if err != nil {
			s.Flow, s.Err = isa.FlowNext, execError(inst, pc, err)
			return n, s
		}
		r.RIP = next
		s.Flow, s.Err = isa.FlowNext, nil
	}
	return n, s
}
