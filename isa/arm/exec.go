package arm

import (
	"math/bits"

	"golang.org/x/arch/arm/armasm"
)

// Regs is the register file of one A32 context. R[15] holds the address of
// the instruction about to execute (reads of PC as an operand see R[15]+8).
type Regs struct {
	R          [16]uint32
	N, Z, C, V bool
}

// Bus is the memory an instruction sees. size is 1, 2 or 4; a stored v
// never has bits set above size bytes. reg names the
// register a loaded value goes to, or a stored value comes from, so that the
// Bus can track who wrote each slot and who reads it back; it is NoReg when
// no register is involved.
type Bus interface {
	Load(addr uint32, size int, reg uint8) (uint32, error)
	Store(addr uint32, size int, v uint32, reg uint8) error
}

// NoReg is the reg argument of a Bus access that names no register.
const NoReg uint8 = 0xff

// Flow says how control left an executed instruction.
type Flow uint8

const (
	// FlowNext: execution continues at the next instruction (R[15] advanced).
	FlowNext Flow = iota
	// FlowSkipped: the condition failed; R[15] advanced.
	FlowSkipped
	// FlowBranch: a jump (direct, or indirect through a register or memory
	// that is not a return).
	FlowBranch
	// FlowCall: BL or BLX; R[14] holds the return address.
	FlowCall
	// FlowReturn: BX LR, MOV PC, LR, or a load of PC from the stack (POP,
	// LDM SP or LDR PC, [SP...]).
	FlowReturn
)

var flowNames = [...]string{"next", "skipped", "branch", "call", "return"}

func (f Flow) String() string {
	if int(f) < len(flowNames) {
		return flowNames[f]
	}
	return "Flow(?)"
}

// Passed reports whether condition c holds for the flags in r (A8.3.1).
func (r *Regs) Passed(c Cond) bool {
	switch c {
	case EQ:
		return r.Z
	case NE:
		return !r.Z
	case CS:
		return r.C
	case CC:
		return !r.C
	case MI:
		return r.N
	case PL:
		return !r.N
	case VS:
		return r.V
	case VC:
		return !r.V
	case HI:
		return r.C && !r.Z
	case LS:
		return !r.C || r.Z
	case GE:
		return r.N == r.V
	case LT:
		return r.N != r.V
	case GT:
		return !r.Z && r.N == r.V
	case LE:
		return r.Z || r.N != r.V
	}
	return true
}

// read returns register n as an operand: PC reads as the instruction address + 8.
func (r *Regs) read(n uint8) uint32 {
	if n == PC {
		return r.R[PC] + 8
	}
	return r.R[n]
}

// Exec executes inst, fetched from r.R[15], against r and bus. On success
// R[15] holds the next address. An error leaves r in an unspecified state
// and is an *Error wrapping ErrUnsupported, ErrMemory or the Bus's error.
func Exec(inst *Inst, r *Regs, bus Bus) (Flow, error) {
	pc := r.R[PC]
	// A failed condition makes any instruction a no-op, even one this
	// executor cannot run (A8.3).
	if inst.Cond != AL && !r.Passed(inst.Cond) {
		r.R[PC] = pc + 4
		return FlowSkipped, nil
	}
	if inst.err != nil {
		e := &Error{PC: pc, Word: inst.Word, Err: inst.err}
		if inst.err != ErrUndecodable {
			e.Disasm = Disasm(inst, pc, nil)
		}
		return FlowNext, e
	}
	flow, err := exec(inst, r, bus, pc)
	if err != nil {
		return flow, &Error{PC: pc, Word: inst.Word, Disasm: Disasm(inst, pc, nil), Err: err}
	}
	return flow, nil
}

func exec(inst *Inst, r *Regs, bus Bus, pc uint32) (Flow, error) {
	next := pc + 4
	switch inst.Fam {
	case armasm.NOP:
	case armasm.B:
		r.R[PC] = pc + 8 + uint32(inst.Target)
		return FlowBranch, nil
	case armasm.BL:
		r.R[LR] = next
		r.R[PC] = pc + 8 + uint32(inst.Target)
		return FlowCall, nil
	case armasm.BX, armasm.BLX:
		t := r.read(inst.Rm)
		if t&1 != 0 {
			return FlowNext, errThumb
		}
		if inst.Fam == armasm.BLX {
			r.R[LR] = next
			r.R[PC] = t
			return FlowCall, nil
		}
		r.R[PC] = t
		if inst.Rm == LR {
			return FlowReturn, nil
		}
		return FlowBranch, nil
	case armasm.AND, armasm.EOR, armasm.SUB, armasm.RSB, armasm.ADD, armasm.ADC,
		armasm.SBC, armasm.RSC, armasm.ORR, armasm.BIC, armasm.MOV, armasm.MVN,
		armasm.CMP, armasm.CMN, armasm.TST, armasm.TEQ:
		return dataProc(inst, r, next)
	case armasm.MUL, armasm.MLA, armasm.MLS:
		v := r.R[inst.Rn] * r.R[inst.Rm]
		switch inst.Fam {
		case armasm.MLA:
			v += r.R[inst.Ra]
		case armasm.MLS:
			v = r.R[inst.Ra] - v
		}
		r.R[inst.Rd] = v
		if inst.S {
			r.N, r.Z = v>>31 != 0, v == 0
		}
	case armasm.UMULL, armasm.SMULL, armasm.UMLAL, armasm.SMLAL:
		var v uint64
		if inst.Fam == armasm.UMULL || inst.Fam == armasm.UMLAL {
			v = uint64(r.R[inst.Rn]) * uint64(r.R[inst.Rm])
		} else {
			v = uint64(int64(int32(r.R[inst.Rn])) * int64(int32(r.R[inst.Rm])))
		}
		if inst.Fam == armasm.UMLAL || inst.Fam == armasm.SMLAL {
			v += uint64(r.R[inst.Ra])<<32 | uint64(r.R[inst.Rd])
		}
		r.R[inst.Rd], r.R[inst.Ra] = uint32(v), uint32(v>>32)
		if inst.S {
			r.N, r.Z = v>>63 != 0, v == 0
		}
	case armasm.MOVW:
		r.R[inst.Rd] = inst.Imm
	case armasm.MOVT:
		r.R[inst.Rd] = r.R[inst.Rd]&0xffff | inst.Imm<<16
	case armasm.CLZ:
		r.R[inst.Rd] = uint32(bits.LeadingZeros32(r.R[inst.Rm]))
	case armasm.UXTB, armasm.UXTH, armasm.SXTB, armasm.SXTH:
		v := bits.RotateLeft32(r.R[inst.Rm], -int(inst.Imm))
		switch inst.Fam {
		case armasm.UXTB:
			v &= 0xff
		case armasm.UXTH:
			v &= 0xffff
		case armasm.SXTB:
			v = uint32(int32(int8(v)))
		case armasm.SXTH:
			v = uint32(int32(int16(v)))
		}
		r.R[inst.Rd] = v
	case armasm.LDR, armasm.STR, armasm.LDRB, armasm.STRB, armasm.LDRH, armasm.STRH,
		armasm.LDRSB, armasm.LDRSH, armasm.LDRD, armasm.STRD:
		return loadStore(inst, r, bus, next)
	case armasm.PUSH, armasm.POP, armasm.LDM, armasm.LDMDA, armasm.LDMDB, armasm.LDMIB,
		armasm.STM, armasm.STMDA, armasm.STMDB, armasm.STMIB:
		return multiple(inst, r, bus, next)
	default:
		return FlowNext, ErrUnsupported
	}
	r.R[PC] = next
	return FlowNext, nil
}

var errThumb = wrapUnsupported("interworking branch to Thumb state")

type unsupportedDetail string

func (u unsupportedDetail) Error() string { return string(u) + ": " + ErrUnsupported.Error() }
func (u unsupportedDetail) Unwrap() error { return ErrUnsupported }

func wrapUnsupported(s string) error { return unsupportedDetail(s) }

// shift computes the shifter operand and its carry-out (ARM ARM A8.4.3).
func shift(v uint32, typ armasm.Shift, n uint32, carry bool) (uint32, bool) {
	switch typ {
	case armasm.ShiftLeft:
		switch {
		case n == 0:
			return v, carry
		case n < 32:
			return v << n, v>>(32-n)&1 != 0
		case n == 32:
			return 0, v&1 != 0
		}
		return 0, false
	case armasm.ShiftRight:
		switch {
		case n == 0:
			return v, carry
		case n < 32:
			return v >> n, v>>(n-1)&1 != 0
		case n == 32:
			return 0, v>>31 != 0
		}
		return 0, false
	case armasm.ShiftRightSigned:
		switch {
		case n == 0:
			return v, carry
		case n < 32:
			return uint32(int32(v) >> n), v>>(n-1)&1 != 0
		}
		if int32(v) < 0 {
			return 0xffffffff, true
		}
		return 0, false
	case armasm.RotateRight:
		if n == 0 {
			return v, carry
		}
		n &= 31
		if n == 0 {
			return v, v>>31 != 0
		}
		return bits.RotateLeft32(v, -int(n)), v>>(n-1)&1 != 0
	case armasm.RotateRightExt:
		c := uint32(0)
		if carry {
			c = 1
		}
		return v>>1 | c<<31, v&1 != 0
	}
	return v, carry
}

func (r *Regs) operand2(o *operand) (uint32, bool) {
	switch o.kind {
	case opImm:
		if o.immCarry < 0 {
			return o.imm, r.C
		}
		return o.imm, o.immCarry == 1
	case opReg:
		return r.read(o.reg), r.C
	case opRegShift:
		n := uint32(o.count)
		if n == 0 && o.shift != armasm.ShiftLeft && o.shift != armasm.RotateRightExt {
			n = 32 // LSR/ASR #0 encode #32
		}
		return shift(r.read(o.reg), o.shift, n, r.C)
	}
	// Register-specified shift: PC as an operand reads +12 here, which is
	// UNPREDICTABLE in A32; the bottom byte of Rs is the amount.
	return shift(r.read(o.reg), o.shift, r.R[o.sreg]&0xff, r.C)
}

func addWithCarry(x, y uint32, carry bool) (uint32, bool, bool) {
	c := uint32(0)
	if carry {
		c = 1
	}
	sum, c1 := bits.Add32(x, y, c)
	v := (x^sum)&(y^sum)>>31 != 0
	return sum, c1 != 0, v
}

func dataProc(inst *Inst, r *Regs, next uint32) (Flow, error) {
	op2, sc := r.operand2(&inst.Op2)
	var (
		res        uint32
		c, v       = sc, r.V
		arithmetic bool
		write      = true
	)
	rn := uint32(0)
	if inst.Fam != armasm.MOV && inst.Fam != armasm.MVN {
		rn = r.read(inst.Rn)
	}
	switch inst.Fam {
	case armasm.AND, armasm.TST:
		res = rn & op2
		write = inst.Fam == armasm.AND
	case armasm.EOR, armasm.TEQ:
		res = rn ^ op2
		write = inst.Fam == armasm.EOR
	case armasm.ORR:
		res = rn | op2
	case armasm.BIC:
		res = rn &^ op2
	case armasm.MOV:
		res = op2
	case armasm.MVN:
		res = ^op2
	case armasm.SUB, armasm.CMP:
		res, c, v = addWithCarry(rn, ^op2, true)
		arithmetic, write = true, inst.Fam == armasm.SUB
	case armasm.RSB:
		res, c, v = addWithCarry(op2, ^rn, true)
		arithmetic = true
	case armasm.ADD, armasm.CMN:
		res, c, v = addWithCarry(rn, op2, false)
		arithmetic, write = true, inst.Fam == armasm.ADD
	case armasm.ADC:
		res, c, v = addWithCarry(rn, op2, r.C)
		arithmetic = true
	case armasm.SBC:
		res, c, v = addWithCarry(rn, ^op2, r.C)
		arithmetic = true
	case armasm.RSC:
		res, c, v = addWithCarry(op2, ^rn, r.C)
		arithmetic = true
	}
	_ = arithmetic
	if write && inst.Rd == PC {
		if inst.S {
			return FlowNext, wrapUnsupported("flag-setting write to PC (exception return)")
		}
		if res&3 != 0 {
			return FlowNext, errThumb
		}
		r.R[PC] = res
		if inst.Fam == armasm.MOV && inst.Op2.kind == opReg && inst.Op2.reg == LR {
			return FlowReturn, nil
		}
		return FlowBranch, nil
	}
	if inst.S {
		r.N, r.Z, r.C, r.V = res>>31 != 0, res == 0, c, v
	}
	if write {
		r.R[inst.Rd] = res
	}
	r.R[PC] = next
	return FlowNext, nil
}

func loadStore(inst *Inst, r *Regs, bus Bus, next uint32) (Flow, error) {
	m := &inst.Mem
	base := r.read(uint8(m.Base))
	var off uint32
	if m.Sign != 0 {
		off, _ = shift(r.read(uint8(m.Index)), m.Shift, shiftCount(m.Shift, m.Count), r.C)
		if m.Sign < 0 {
			off = -off
		}
	} else {
		off = uint32(int32(m.Offset))
	}
	addr := base
	if m.Mode != armasm.AddrPostIndex {
		addr = base + off
	}
	size := 4
	switch inst.Fam {
	case armasm.LDRB, armasm.STRB, armasm.LDRSB:
		size = 1
	case armasm.LDRH, armasm.STRH, armasm.LDRSH:
		size = 2
	}
	if addr&uint32(size-1) != 0 || (inst.Fam == armasm.LDRD || inst.Fam == armasm.STRD) && addr&3 != 0 {
		return FlowNext, wrapMemory("unaligned access")
	}
	flow := FlowNext
	switch inst.Fam {
	case armasm.STR, armasm.STRB, armasm.STRH:
		v := r.read(inst.Rd)
		if size < 4 {
			v &= 1<<(8*size) - 1
		}
		if err := bus.Store(addr, size, v, inst.Rd); err != nil {
			return FlowNext, err
		}
	case armasm.STRD:
		if err := bus.Store(addr, 4, r.R[inst.Rd], inst.Rd); err != nil {
			return FlowNext, err
		}
		if err := bus.Store(addr+4, 4, r.R[inst.Ra], inst.Ra); err != nil {
			return FlowNext, err
		}
	case armasm.LDRD:
		lo, err := bus.Load(addr, 4, inst.Rd)
		if err != nil {
			return FlowNext, err
		}
		hi, err := bus.Load(addr+4, 4, inst.Ra)
		if err != nil {
			return FlowNext, err
		}
		r.R[inst.Rd], r.R[inst.Ra] = lo, hi
	default: // loads
		v, err := bus.Load(addr, size, inst.Rd)
		if err != nil {
			return FlowNext, err
		}
		switch inst.Fam {
		case armasm.LDRSB:
			v = uint32(int32(int8(v)))
		case armasm.LDRSH:
			v = uint32(int32(int16(v)))
		}
		if inst.Rd == PC {
			if v&3 != 0 {
				return FlowNext, errThumb
			}
			flow = FlowBranch
			if m.Base == armasm.SP {
				flow = FlowReturn
			}
		}
		r.R[inst.Rd] = v
	}
	if m.Mode != armasm.AddrOffset && !(flow != FlowNext && uint8(m.Base) == inst.Rd) {
		r.R[m.Base] = base + off
	}
	if flow == FlowNext {
		r.R[PC] = next
	}
	return flow, nil
}

func shiftCount(s armasm.Shift, n uint8) uint32 {
	if n == 0 && (s == armasm.ShiftRight || s == armasm.ShiftRightSigned) {
		return 32
	}
	return uint32(n)
}

type memoryDetail string

func (m memoryDetail) Error() string { return string(m) }
func (m memoryDetail) Unwrap() error { return ErrMemory }

func wrapMemory(s string) error { return memoryDetail(s) }

// multiple executes PUSH, POP, LDM* and STM* (A8.8.58–A8.8.62, A8.8.199–).
func multiple(inst *Inst, r *Regs, bus Bus, next uint32) (Flow, error) {
	var (
		base  uint8
		load  bool
		wback = true
		start uint32
	)
	n := uint32(bits.OnesCount16(inst.List)) * 4
	switch inst.Fam {
	case armasm.PUSH:
		base = SP
		start = r.R[SP] - n
	case armasm.POP:
		base, load = SP, true
		start = r.R[SP]
	default:
		base = uint8(inst.Mem.Base)
		wback = inst.Mem.Mode == armasm.AddrLDM_WB
		b := r.R[base]
		switch inst.Fam {
		case armasm.LDM, armasm.STM:
			start = b
		case armasm.LDMIB, armasm.STMIB:
			start = b + 4
		case armasm.LDMDA, armasm.STMDA:
			start = b - n + 4
		case armasm.LDMDB, armasm.STMDB:
			start = b - n
		}
		load = inst.Fam == armasm.LDM || inst.Fam == armasm.LDMDA || inst.Fam == armasm.LDMDB || inst.Fam == armasm.LDMIB
	}
	if start&3 != 0 {
		return FlowNext, wrapMemory("unaligned access")
	}
	var final uint32
	switch inst.Fam {
	case armasm.PUSH, armasm.STMDB, armasm.LDMDB, armasm.STMDA, armasm.LDMDA:
		final = r.R[base] - n
	default:
		final = r.R[base] + n
	}
	addr := start
	flow := FlowNext
	for i := uint8(0); i < 16; i++ {
		if inst.List&(1<<i) == 0 {
			continue
		}
		if load {
			v, err := bus.Load(addr, 4, i)
			if err != nil {
				return FlowNext, err
			}
			if i == PC {
				if v&3 != 0 {
					return FlowNext, errThumb
				}
				flow = FlowBranch
				if base == SP {
					flow = FlowReturn
				}
			}
			r.R[i] = v
		} else if err := bus.Store(addr, 4, r.read(i), i); err != nil {
			return FlowNext, err
		}
		addr += 4
	}
	if wback && !(load && inst.List&(1<<base) != 0) {
		r.R[base] = final
	}
	if flow == FlowNext {
		r.R[PC] = next
	}
	return flow, nil
}
