package arm

import (
	"github.com/mcountsim/mcountsim/isa"
	"math/bits"

	"golang.org/x/arch/arm/armasm"
)

// Regs is the register file of one A32 context. R[15] holds the address of
// the instruction about to execute (reads of PC as an operand see R[15]+8).
type Regs struct {
	R          [16]uint32
	N, Z, C, V bool
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
// and is an *isa.Fault wrapping isa.ErrUnsupported, isa.ErrMemory or the isa.Bus's error.
func Exec(inst *Inst, r *Regs, bus isa.Bus) (isa.Flow, error) { return inst.Exec(r, bus) }

// Exec executes inst as the package's Exec does.
func (inst *Resolved) Exec(r *Regs, bus isa.Bus) (isa.Flow, error) {
	one := [1]*Resolved{inst}
	_, s := Run(one[:], r.R[PC], r, bus, 1)
	return s.Flow, s.Err
}

// slow executes inst, whose condition passed, at pc: the fast load and
// store forms, then the general path.
func (inst *Resolved) slow(r *Regs, bus isa.Bus, pc uint32) (isa.Flow, error) {
	switch inst.fast {
	case fastLS:
		if flow, ok, err := execLS(inst, r, bus, pc); ok {
			return flow, err
		}
	case fastM1:
		if flow, ok, err := execM1(inst, r, bus, pc); ok {
			return flow, err
		}
	}
	if inst.err != nil {
		e := &isa.Fault{PC: uint64(pc), Bytes: wordBytes(inst.Word), Unit: 4, Err: inst.err}
		if inst.err == isa.ErrUnsupported {
			e.Disasm = DisasmWord(pc, inst.Word)
		}
		return isa.FlowNext, e
	}
	flow, err := exec(inst, r, bus, pc)
	if err != nil {
		return flow, &isa.Fault{PC: uint64(pc), Bytes: wordBytes(inst.Word), Unit: 4, Disasm: DisasmWord(pc, inst.Word), Err: err}
	}
	return flow, nil
}

func exec(inst *Resolved, r *Regs, bus isa.Bus, pc uint32) (isa.Flow, error) {
	next := pc + 4
	switch x := inst.x; x {
	case xNop:
	case xB:
		r.R[PC] = pc + 8 + uint32(inst.Target)
		return isa.FlowBranch, nil
	case xBL:
		r.R[LR] = next
		r.R[PC] = pc + 8 + uint32(inst.Target)
		return isa.FlowCall, nil
	case xBX, xBLX:
		t := r.read(inst.Rm)
		if t&1 != 0 {
			return isa.FlowNext, errThumb
		}
		if x == xBLX {
			r.R[LR] = next
			r.R[PC] = t
			return isa.FlowCall, nil
		}
		r.R[PC] = t
		if inst.Rm == LR {
			return isa.FlowReturn, nil
		}
		return isa.FlowBranch, nil
	case xAND, xEOR, xSUB, xRSB, xADD, xADC, xSBC, xRSC, xTST, xTEQ, xCMP, xCMN, xORR, xMOV, xBIC, xMVN:
		return dataProc(inst, x, r, next)
	case xMUL, xMLA, xMLS:
		v := r.R[inst.Rn] * r.R[inst.Rm]
		switch x {
		case xMLA:
			v += r.R[inst.Ra]
		case xMLS:
			v = r.R[inst.Ra] - v
		}
		r.R[inst.Rd] = v
		if inst.S {
			r.N, r.Z = v>>31 != 0, v == 0
		}
	case xUMULL, xUMLAL, xSMULL, xSMLAL:
		var v uint64
		if x == xUMULL || x == xUMLAL {
			v = uint64(r.R[inst.Rn]) * uint64(r.R[inst.Rm])
		} else {
			v = uint64(int64(int32(r.R[inst.Rn])) * int64(int32(r.R[inst.Rm])))
		}
		if x == xUMLAL || x == xSMLAL {
			v += uint64(r.R[inst.Ra])<<32 | uint64(r.R[inst.Rd])
		}
		r.R[inst.Rd], r.R[inst.Ra] = uint32(v), uint32(v>>32)
		if inst.S {
			r.N, r.Z = v>>63 != 0, v == 0
		}
	case xMOVW:
		r.R[inst.Rd] = inst.Imm
	case xMOVT:
		r.R[inst.Rd] = r.R[inst.Rd]&0xffff | inst.Imm<<16
	case xCLZ:
		r.R[inst.Rd] = uint32(bits.LeadingZeros32(r.R[inst.Rm]))
	case xREV:
		r.R[inst.Rd] = bits.ReverseBytes32(r.R[inst.Rm])
	case xRBIT:
		r.R[inst.Rd] = bits.Reverse32(r.R[inst.Rm])
	case xREV16:
		v := r.R[inst.Rm]
		r.R[inst.Rd] = v>>8&0x00ff00ff | v<<8&0xff00ff00
	case xREVSH:
		v := r.R[inst.Rm]
		r.R[inst.Rd] = uint32(int32(int16(uint16(v>>8&0xff | v<<8&0xff00))))
	case xSMULxy, xSMLAxy, xSMLALxy:
		p := int64(half(r.R[inst.Rn], inst.Imm&2 != 0)) * int64(half(r.R[inst.Rm], inst.Imm&1 != 0))
		switch x {
		case xSMULxy:
			r.R[inst.Rd] = uint32(p)
		case xSMLAxy: // sets Q on signed overflow; Q is not modelled (nothing gcc emits reads it)
			r.R[inst.Rd] = uint32(p) + r.R[inst.Ra]
		default:
			v := uint64(r.R[inst.Ra])<<32 | uint64(r.R[inst.Rd])
			v += uint64(p)
			r.R[inst.Rd], r.R[inst.Ra] = uint32(v), uint32(v>>32)
		}
	case xSMULWy, xSMLAWy:
		p := int64(int32(r.R[inst.Rn])) * int64(half(r.R[inst.Rm], inst.Imm&1 != 0)) >> 16
		if x == xSMLAWy {
			p += int64(int32(r.R[inst.Ra])) // Q as for SMLA<x><y>
		}
		r.R[inst.Rd] = uint32(p)
	case xSSAT, xUSAT:
		v := int64(int32(r.R[inst.Op2.reg]))
		if inst.Op2.shift == armasm.ShiftLeft {
			v = int64(int32(uint32(v) << inst.Op2.count))
		} else {
			v >>= min(inst.Op2.count, 31)
		}
		lo, hi := int64(0), int64(1)<<inst.Imm-1 // USAT: 0 .. 2^n-1 (n 0-31)
		if x == xSSAT {
			lo, hi = -(int64(1) << (inst.Imm - 1)), int64(1)<<(inst.Imm-1)-1 // SSAT: n 1-32
		}
		r.R[inst.Rd] = uint32(min(max(v, lo), hi)) // Q set on saturation is not modelled
	case xPKHBT, xPKHTB:
		v := r.R[inst.Op2.reg]
		if x == xPKHBT {
			v <<= inst.Op2.count
			r.R[inst.Rd] = r.R[inst.Rn]&0xffff | v&0xffff0000
		} else {
			v = uint32(int32(v) >> min(inst.Op2.count, 31))
			r.R[inst.Rd] = r.R[inst.Rn]&0xffff0000 | v&0xffff
		}
	case xUBFX, xSBFX, xBFI, xBFC:
		lsb, width := inst.Imm, uint32(inst.Ra)
		mask := uint32(1)<<width - 1 // width <= 32; 1<<32 wraps to 0 and mask to all ones
		if inst.Rd == PC || (x != xBFC && inst.Rm == PC) {
			return isa.FlowNext, wrapUnsupported("pc operand of a bitfield instruction")
		}
		switch x {
		case xUBFX:
			r.R[inst.Rd] = r.R[inst.Rm] >> lsb & mask
		case xSBFX:
			r.R[inst.Rd] = uint32(int32(r.R[inst.Rm]<<(32-lsb-width)) >> (32 - width))
		case xBFI:
			r.R[inst.Rd] = r.R[inst.Rd]&^(mask<<lsb) | (r.R[inst.Rm]&mask)<<lsb
		case xBFC:
			r.R[inst.Rd] &^= mask << lsb
		}
	case xUXTB, xUXTH, xSXTB, xSXTH:
		r.R[inst.Rd] = extend(x, bits.RotateLeft32(r.R[inst.Rm], -int(inst.Imm)))
	case xUXTAB, xUXTAH, xSXTAB, xSXTAH:
		r.R[inst.Rd] = r.R[inst.Rn] + extend(x, bits.RotateLeft32(r.R[inst.Rm], -int(inst.Imm)))
	case xLDR, xLDRB, xLDRH, xLDRSB, xLDRSH, xLDRD, xSTR, xSTRB, xSTRH, xSTRD:
		return loadStore(inst, x, r, bus, next)
	case xMultiple:
		return multiple(inst, r, bus, next)
	case xLDREX, xLDREXB, xLDREXH, xLDREXD, xSTREX, xSTREXB, xSTREXH, xSTREXD, xCLREX:
		if err := exclusive(inst, x, r, bus); err != nil {
			return isa.FlowNext, err
		}
	default:
		return isa.FlowNext, isa.ErrUnsupported
	}
	r.R[PC] = next
	return isa.FlowNext, nil
}

// exclusive executes the exclusive accesses through bus's monitor
// (isa.ExclusiveBus). A load-exclusive loads and marks its bytes; a
// store-exclusive stores Rt (Rt2:Rt for strexd, Rt at the lower address)
// only if the monitor marks exactly its bytes, writes 0 to Rd when it
// stored and 1 when it did not, and opens the monitor either way
// (A8.8.212); clrex opens it. An unaligned exclusive access is an
// alignment fault whatever SCTLR.A says (A3.2.1), an isa.ErrMemory fault
// here.
func exclusive(inst *Resolved, x xop, r *Regs, bus isa.Bus) error {
	mon, err := isa.MonitorOf(bus)
	if err != nil {
		return err
	}
	if x == xCLREX {
		*mon = isa.Monitor{}
		return nil
	}
	addr, size := r.R[inst.Rn], exclusiveSize(x)
	if addr&uint32(size-1) != 0 {
		return errExclusiveAlign
	}
	if x <= xLDREXD {
		v, err := bus.Load(uint64(addr), size, inst.Rd)
		if err != nil {
			return err
		}
		mon.Mark(uint64(addr), size)
		r.R[inst.Rd] = uint32(v)
		if x == xLDREXD {
			r.R[inst.Ra] = uint32(v >> 32)
		}
		return nil
	}
	status := uint32(1)
	if mon.Check(uint64(addr), size) {
		v := uint64(r.R[inst.Rm])
		switch x {
		case xSTREXB:
			v &= 0xff
		case xSTREXH:
			v &= 0xffff
		case xSTREXD:
			v |= uint64(r.R[inst.Ra]) << 32
		}
		if err := bus.Store(uint64(addr), size, v, inst.Rm); err != nil {
			return err
		}
		status = 0
	}
	r.R[inst.Rd] = status
	return nil
}

// exclusiveSize is the access size of an exclusive load or store.
func exclusiveSize(x xop) int {
	switch x {
	case xLDREXB, xSTREXB:
		return 1
	case xLDREXH, xSTREXH:
		return 2
	case xLDREXD, xSTREXD:
		return 8
	}
	return 4
}

var errExclusiveAlign = wrapMemory("unaligned exclusive access (an alignment fault)")

var errThumb = wrapUnsupported("interworking branch to Thumb state")

func wrapUnsupported(s string) error { return isa.Detail(s, isa.ErrUnsupported) }

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
	// Register-specified shift (compile rejects PC operands, which are
	// UNPREDICTABLE here): the bottom byte of Rs is the amount.
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

// extend is the byte or halfword of v that x takes (an extend, UXTB ...,
// or an extend and add, UXTAB ...), zero- or sign-extended.
// half is the bottom (or, with top, the top) halfword of v, sign-extended.
func half(v uint32, top bool) int32 {
	if top {
		return int32(v) >> 16
	}
	return int32(int16(v))
}

func extend(x xop, v uint32) uint32 {
	switch x {
	case xUXTB, xUXTAB:
		return v & 0xff
	case xUXTH, xUXTAH:
		return v & 0xffff
	case xSXTB, xSXTAB:
		return uint32(int32(int8(v)))
	}
	return uint32(int32(int16(v))) // xSXTH, xSXTAH
}

func dataProc(inst *Resolved, x xop, r *Regs, next uint32) (isa.Flow, error) {
	op2, c := r.operand2(&inst.Op2)
	v := r.V
	var res, rn uint32
	if x != xMOV && x != xMVN {
		rn = r.read(inst.Rn)
	}
	switch x {
	case xAND, xTST:
		res = rn & op2
	case xEOR, xTEQ:
		res = rn ^ op2
	case xORR:
		res = rn | op2
	case xBIC:
		res = rn &^ op2
	case xMOV:
		res = op2
	case xMVN:
		res = ^op2
	// The arithmetic is AddWithCarry (A2.2.1) of Rn and op2, one of them
	// inverted for a subtraction; the carry in is APSR.C for ADC, SBC and
	// RSC, and otherwise what makes the plain sum or difference.
	case xADD, xCMN, xADC:
		res, c, v = addWithCarry(rn, op2, x == xADC && r.C)
	case xSUB, xCMP, xSBC:
		res, c, v = addWithCarry(rn, ^op2, x != xSBC || r.C)
	case xRSB, xRSC:
		res, c, v = addWithCarry(op2, ^rn, x != xRSC || r.C)
	}
	write := x < xTST || x > xCMN
	if write && inst.Rd == PC {
		if inst.S {
			return isa.FlowNext, wrapUnsupported("flag-setting write to PC (exception return)")
		}
		if res&3 != 0 {
			return isa.FlowNext, errThumb
		}
		r.R[PC] = res
		if x == xMOV && inst.Op2.kind == opReg && inst.Op2.reg == LR {
			return isa.FlowReturn, nil
		}
		return isa.FlowBranch, nil
	}
	if inst.S {
		r.N, r.Z, r.C, r.V = res>>31 != 0, res == 0, c, v
	}
	if write {
		r.R[inst.Rd] = res
	}
	r.R[PC] = next
	return isa.FlowNext, nil
}

// address returns the base register's value, the offset and the address
// of the memory operand m (the base alone when it is post-indexed) with
// the registers r.
func (r *Regs) address(m *armasm.Mem) (base, off, addr uint32) {
	base = r.read(uint8(m.Base))
	if m.Sign != 0 {
		off, _ = shift(r.read(uint8(m.Index)), m.Shift, shiftCount(m.Shift, m.Count), r.C)
		if m.Sign < 0 {
			off = -off
		}
	} else {
		off = uint32(int32(m.Offset))
	}
	addr = base
	if m.Mode != armasm.AddrPostIndex {
		addr = base + off
	}
	return base, off, addr
}

func loadStore(inst *Resolved, x xop, r *Regs, bus isa.Bus, next uint32) (isa.Flow, error) {
	m := &inst.Mem
	base, off, addr := r.address(m)
	size := 4
	switch x {
	case xLDRB, xSTRB, xLDRSB:
		size = 1
	case xLDRH, xSTRH, xLDRSH:
		size = 2
	}
	// ARMv7 with SCTLR.A = 0, as Linux runs (ARM ARM A3.2.1): LDR, STR,
	// LDRH, LDRSH and STRH may be unaligned, and are then made of byte
	// accesses (they are not single-copy atomic); gcc for v6+ emits them
	// (-munaligned-access: two byte loads merged into an ldrh). LDRD,
	// STRD, LDM, STM and a load into the pc must be aligned.
	unaligned := addr&uint32(size-1) != 0
	if unaligned && (x == xLDRD || x == xSTRD || inst.Rd == PC) {
		return isa.FlowNext, wrapMemory("unaligned access")
	}
	flow := isa.FlowNext
	switch x {
	case xSTR, xSTRB, xSTRH:
		v := r.read(inst.Rd)
		if size < 4 {
			v &= 1<<(8*size) - 1
		}
		if unaligned {
			for i := 0; i < size; i++ {
				if err := store(bus, addr+uint32(i), 1, v>>(8*i)&0xff, inst.Rd); err != nil {
					return isa.FlowNext, err
				}
			}
		} else if err := store(bus, addr, size, v, inst.Rd); err != nil {
			return isa.FlowNext, err
		}
	case xSTRD:
		if err := store(bus, addr, 4, r.R[inst.Rd], inst.Rd); err != nil {
			return isa.FlowNext, err
		}
		if err := store(bus, addr+4, 4, r.R[inst.Ra], inst.Ra); err != nil {
			return isa.FlowNext, err
		}
	case xLDRD:
		lo, err := load(bus, addr, 4, inst.Rd)
		if err != nil {
			return isa.FlowNext, err
		}
		hi, err := load(bus, addr+4, 4, inst.Ra)
		if err != nil {
			return isa.FlowNext, err
		}
		r.R[inst.Rd], r.R[inst.Ra] = lo, hi
	default: // loads
		var v uint32
		var err error
		if unaligned {
			for i := 0; i < size && err == nil; i++ { // lowest address first
				var b uint32
				b, err = load(bus, addr+uint32(i), 1, inst.Rd)
				v |= b << (8 * i)
			}
		} else {
			v, err = load(bus, addr, size, inst.Rd)
		}
		if err != nil {
			return isa.FlowNext, err
		}
		switch x {
		case xLDRSB:
			v = uint32(int32(int8(v)))
		case xLDRSH:
			v = uint32(int32(int16(v)))
		}
		if inst.Rd == PC {
			if v&3 != 0 {
				return isa.FlowNext, errThumb
			}
			flow = isa.FlowBranch
			if m.Base == armasm.SP {
				flow = isa.FlowReturn
			}
		}
		r.R[inst.Rd] = v
	}
	if m.Mode != armasm.AddrOffset && !(flow != isa.FlowNext && uint8(m.Base) == inst.Rd) {
		r.R[m.Base] = base + off
	}
	if flow == isa.FlowNext {
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

func wrapMemory(s string) error { return isa.Detail(s, isa.ErrMemory) }

// multiple executes PUSH, POP, LDM* and STM* (A8.8.58–A8.8.62, A8.8.199–).
// Registers go lowest first to the lowest address.
func multiple(inst *Resolved, r *Regs, bus isa.Bus, next uint32) (isa.Flow, error) {
	b := r.R[inst.mBase]
	addr := b + uint32(inst.mStart)
	if addr&3 != 0 {
		return isa.FlowNext, wrapMemory("unaligned access")
	}
	flow := isa.FlowNext
	for l := inst.List; l != 0; l &= l - 1 {
		i := uint8(bits.TrailingZeros16(l))
		if inst.mLoad {
			v, err := load(bus, addr, 4, i)
			if err != nil {
				return isa.FlowNext, err
			}
			if i == PC {
				if v&3 != 0 {
					return isa.FlowNext, errThumb
				}
				flow = isa.FlowBranch
				if inst.mBase == SP {
					flow = isa.FlowReturn
				}
			}
			r.R[i] = v
		} else if err := store(bus, addr, 4, r.read(i), i); err != nil {
			return isa.FlowNext, err
		}
		addr += 4
	}
	if inst.mWback && !(inst.mLoad && inst.List&(1<<inst.mBase) != 0) {
		r.R[inst.mBase] = b + uint32(inst.mFinal)
	}
	if flow == isa.FlowNext {
		r.R[PC] = next
	}
	return flow, nil
}

// load and store are the Bus accesses of A32's 32-bit address space.
func load(bus isa.Bus, addr uint32, size int, reg uint8) (uint32, error) {
	v, err := bus.Load(uint64(addr), size, reg)
	return uint32(v), err
}

func store(bus isa.Bus, addr uint32, size int, v uint32, reg uint8) error {
	return bus.Store(uint64(addr), size, uint64(v), reg)
}

// wordBytes returns the little-endian bytes of an instruction word.
func wordBytes(w uint32) []byte { return []byte{byte(w), byte(w >> 8), byte(w >> 16), byte(w >> 24)} }

// LoadAddr returns the address and size of the data a single-register (or
// ldrd) load inst would read with registers r, without executing it; ok is
// false for any other instruction. The partial-order reduction of package
// sched asks it whether a load reads memory no task ever writes.
func LoadAddr(inst *Inst, r *Regs) (addr uint32, size int, ok bool) {
	switch inst.x {
	case xLDR, xLDRB, xLDRH, xLDRSB, xLDRSH, xLDRD:
		return memAddr(inst, r)
	}
	return 0, 0, false
}

// MemAddr returns the data inst would access with registers r, without
// executing it: the lowest address, the number of bytes, and whether it
// stores; ok is false for an instruction without a data access, one
// through pc, and a load or store of pc. It covers the single-register
// and doubleword loads and stores and LDM/STM/PUSH/POP (their block of
// words). The partial-order reduction of package sched asks it whether an
// access reaches only the task's own stack.
func MemAddr(inst *Inst, r *Regs) (addr uint32, size int, store, ok bool) {
	switch inst.x {
	case xLDR, xLDRB, xLDRH, xLDRSB, xLDRSH, xLDRD:
		addr, size, ok = memAddr(inst, r)
		return addr, size, false, ok
	case xSTR, xSTRB, xSTRH, xSTRD:
		addr, size, ok = memAddr(inst, r)
		return addr, size, true, ok
	case xMultiple:
		if inst.err != nil || inst.mBase == PC || inst.mLoad && inst.List&(1<<PC) != 0 {
			return 0, 0, false, false
		}
		return r.R[inst.mBase] + uint32(inst.mStart), 4 * bits.OnesCount16(inst.List), !inst.mLoad, true
	case xLDREX, xLDREXB, xLDREXH, xLDREXD, xSTREX, xSTREXB, xSTREXH, xSTREXD:
		return r.R[inst.Rn], exclusiveSize(inst.x), inst.x >= xSTREX, inst.err == nil
	}
	return 0, 0, false, false
}

// StoreAddr returns the address, size and value of the data a
// single-register store inst (str, strb, strh) would write with registers
// r, without executing it (whatever its condition); ok is false for any
// other instruction. The tracer kernel's partial-order reduction (package
// sched) asks it what a store to thread_info would leave there.
func StoreAddr(inst *Inst, r *Regs) (addr uint32, size int, v uint32, ok bool) {
	switch inst.x {
	case xSTR, xSTRB, xSTRH:
	default:
		return 0, 0, 0, false
	}
	if inst.Rd == PC {
		return 0, 0, 0, false
	}
	addr, size, ok = memAddr(inst, r)
	v = r.read(inst.Rd)
	if size < 4 {
		v &= 1<<(8*size) - 1
	}
	return addr, size, v, ok
}

// memAddr is the address and size of a single load or store.
func memAddr(inst *Inst, r *Regs) (addr uint32, size int, ok bool) {
	x := inst.x
	if inst.err != nil || inst.Rd == PC || inst.Mem.Base == armasm.PC {
		return 0, 0, false
	}
	_, _, addr = r.address(&inst.Mem)
	size = 4
	switch x {
	case xLDRB, xSTRB, xLDRSB:
		size = 1
	case xLDRH, xSTRH, xLDRSH:
		size = 2
	case xLDRD, xSTRD:
		size = 8
	}
	return addr, size, true
}
