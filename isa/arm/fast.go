package arm

import (
	"math/bits"

	"github.com/mcountsim/mcountsim/isa"
	"golang.org/x/arch/arm/armasm"
)

// The fast paths of Exec: a data-processing instruction whose operands are
// registers other than pc or immediates, and whose destination (if any) is
// not pc, and a word load or store through a base other than pc with an
// immediate offset, into or from a register other than pc (push and pop of
// one register among them), and a block transfer of one register other
// than pc and the base (push and pop in the block encodings), run without
// the general path's calls and pc checks. resolve marks such instructions (Inst.fast); the result is the
// general path's, register for register, flag for flag and access for
// access (TestFastPathIsTheGeneralPath).

// Fast forms.
const (
	fastNone uint8 = iota
	fastDP
	fastLS
	fastM1
)

// fastForm returns the fast form of a resolved inst.
func fastForm(inst *Resolved) uint8 {
	x := inst.x
	switch {
	case x == xMultiple:
		if l := inst.List; l&(l-1) == 0 && l&(1<<PC|1<<inst.mBase) == 0 && inst.mBase != PC {
			return fastM1
		}
		return fastNone
	case x == xLDR || x == xSTR:
		if m := inst.Mem; m.Sign == 0 && m.Base != armasm.PC && inst.Rd != PC {
			return fastLS
		}
		return fastNone
	case x < xAND || x > xMVN:
		return fastNone
	}
	if write := x < xTST || x > xCMN; write && inst.Rd == PC {
		return fastNone
	}
	if x != xMOV && x != xMVN && inst.Rn == PC {
		return fastNone
	}
	switch o := inst.Op2; o.kind {
	case opImm:
		return fastDP
	case opReg, opRegShift:
		if o.reg != PC {
			return fastDP
		}
	}
	return fastNone
}

// execLS runs a fast load or store that passed its condition, at pc; ok
// is false, and nothing done, for an unaligned address (the general path
// reports it).
func execLS(inst *Resolved, r *Regs, bus isa.Bus, pc uint32) (flow isa.Flow, ok bool, err error) {
	m := &inst.Mem
	base := r.R[m.Base]
	off := uint32(int32(m.Offset))
	addr := base
	if m.Mode != armasm.AddrPostIndex {
		addr = base + off
	}
	if addr&3 != 0 {
		return isa.FlowNext, false, nil
	}
	if inst.x == xSTR {
		err = bus.Store(uint64(addr), 4, uint64(r.R[inst.Rd]), inst.Rd)
	} else {
		var v uint64
		v, err = bus.Load(uint64(addr), 4, inst.Rd)
		if err == nil {
			r.R[inst.Rd] = uint32(v)
		}
	}
	if err != nil {
		return isa.FlowNext, true, &isa.Fault{PC: uint64(pc), Bytes: wordBytes(inst.Word), Unit: 4, Disasm: DisasmWord(pc, inst.Word), Err: err}
	}
	if m.Mode != armasm.AddrOffset {
		r.R[m.Base] = base + off
	}
	r.R[PC] = pc + 4
	return isa.FlowNext, true, nil
}

// execM1 runs a fast one-register block transfer that passed its
// condition, at pc, as multiple does; ok is false, and nothing done, for
// an unaligned address (the general path reports it).
func execM1(inst *Resolved, r *Regs, bus isa.Bus, pc uint32) (flow isa.Flow, ok bool, err error) {
	b := r.R[inst.mBase]
	addr := b + uint32(inst.mStart)
	if addr&3 != 0 {
		return isa.FlowNext, false, nil
	}
	i := uint8(bits.TrailingZeros16(inst.List))
	if inst.mLoad {
		var v uint64
		v, err = bus.Load(uint64(addr), 4, i)
		if err == nil {
			r.R[i] = uint32(v)
		}
	} else {
		err = bus.Store(uint64(addr), 4, uint64(r.R[i]), i)
	}
	if err != nil {
		return isa.FlowNext, true, &isa.Fault{PC: uint64(pc), Bytes: wordBytes(inst.Word), Unit: 4, Disasm: DisasmWord(pc, inst.Word), Err: err}
	}
	if inst.mWback {
		r.R[inst.mBase] = b + uint32(inst.mFinal)
	}
	r.R[PC] = pc + 4
	return isa.FlowNext, true, nil
}
