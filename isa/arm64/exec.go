package arm64

import (
	"math/bits"

	"github.com/mcountsim/mcountsim/isa"
)

// Regs is the register file of one A64 context at EL1 (SP is SP_EL1). PC
// holds the address of the instruction about to execute.
type Regs struct {
	X          [31]uint64
	SP         uint64
	PC         uint64
	N, Z, C, V bool
	// SPEL0 is SP_EL0 as an arm64 Linux kernel at EL1 keeps it: the
	// current task's task_struct (asm/current.h), read by MRS alone (the
	// per-task stack canary of -mstack-protector-guard=sysreg).
	SPEL0 uint64
}

// Passed reports whether condition c (the 4-bit field of B.cond, CSEL,
// CCMP) holds for the flags in r (ARM ARM C1.2.4, ConditionHolds).
func (r *Regs) Passed(c uint8) bool {
	var res bool
	switch c >> 1 {
	case 0:
		res = r.Z
	case 1:
		res = r.C
	case 2:
		res = r.N
	case 3:
		res = r.V
	case 4:
		res = r.C && !r.Z
	case 5:
		res = r.N == r.V
	case 6:
		res = r.N == r.V && !r.Z
	default:
		return true // AL, and NV, which A64 treats as always
	}
	if c&1 != 0 {
		return !res
	}
	return res
}

// get reads a resolved register operand: X0–X30, XZR (0) or SP.
func (r *Regs) get(n uint8) uint64 {
	if n < 31 {
		return r.X[n]
	}
	if n == rSP {
		return r.SP
	}
	return 0
}

// set writes a resolved register operand; writes to XZR are discarded.
func (r *Regs) set(n uint8, v uint64) {
	if n < 31 {
		r.X[n] = v
	} else if n == rSP {
		r.SP = v
	}
}

// Exec executes inst, fetched from r.PC, against r and bus. On success PC
// holds the next address. An error leaves r in an unspecified state and is
// an *isa.Fault wrapping isa.ErrUnsupported, isa.ErrUndecodable,
// isa.ErrBreakpoint (BRK: r untouched, PC still at the BRK),
// isa.ErrMemory or the Bus's error.
func Exec(inst *Inst, r *Regs, bus isa.Bus) (isa.Flow, error) { return inst.Exec(r, bus) }

// Exec executes inst as the package's Exec does.
func (inst *Resolved) Exec(r *Regs, bus isa.Bus) (isa.Flow, error) {
	one := [1]*Resolved{inst}
	_, s := Run(one[:], r.PC, r, bus, 1)
	return s.Flow, s.Err
}

// disasm is Disasm of inst at pc, decoded again from its word.
func (inst *Resolved) disasm(pc uint64) string {
	d, _ := Decode(pc, inst.Word)
	return Disasm(&d, pc, nil)
}

// slow executes inst, which is not one of Run's inline operations, at pc.
func (inst *Resolved) slow(r *Regs, bus isa.Bus, pc uint64) (isa.Flow, error) {
	if inst.err != nil {
		e := &isa.Fault{PC: pc, Bytes: wordBytes(inst.Word), Unit: 4, Err: inst.err}
		if inst.err != isa.ErrUndecodable {
			e.Disasm = inst.disasm(pc)
		}
		return isa.FlowNext, e
	}
	flow, err := exec(inst, r, bus, pc)
	if err != nil {
		return flow, &isa.Fault{PC: pc, Bytes: wordBytes(inst.Word), Unit: 4, Disasm: inst.disasm(pc), Err: err}
	}
	return flow, nil
}

var (
	errSPAlign = isa.Detail("sp alignment fault (SCTLR_EL1.SA: sp not 16-byte aligned as a base)", isa.ErrMemory)
	errAlign   = isa.Detail("unaligned exclusive, load-acquire or store-release access", isa.ErrMemory)
)

func exec(inst *Resolved, r *Regs, bus isa.Bus, pc uint64) (isa.Flow, error) {
	next := pc + 4
	sf := inst.sf
	switch inst.x {
	case xNop, xBarrier:
	case xBrk:
		return isa.FlowNext, isa.ErrBreakpoint
	case xMrsSPEL0:
		r.set(inst.rd, r.SPEL0)
	case xAdr:
		r.set(inst.rd, pc+inst.imm)
	case xAdrp:
		r.set(inst.rd, pc&^0xfff+inst.imm)
	// add and sub of an immediate or a shifted register, the logical
	// operations, movz, the bitfield moves, the conditional selects,
	// multiply-add and -subtract, and the plain loads and stores (single and
	// pair) run from Run and never reach here.
	case xAddExt, xSubExt, xAdc, xSbc:
		addSub(inst, r)
	case xMovN:
		r.set(inst.rd, trunc(^inst.imm, sf))
	case xMovK:
		m := uint64(0xffff) << inst.amount
		r.set(inst.rd, trunc(r.get(inst.rd)&^m|inst.imm, sf))
	case xExtr:
		n, m := r.get(inst.rn), r.get(inst.rm)
		lsb := uint(inst.amount)
		var v uint64
		if sf {
			v = m >> lsb
			if lsb != 0 {
				v |= n << (64 - lsb)
			}
		} else {
			v = (n&0xffffffff<<32 | m&0xffffffff) >> lsb & 0xffffffff
		}
		r.set(inst.rd, v)
	case xUdiv, xSdiv, xLslv, xLsrv, xAsrv, xRorv:
		r.set(inst.rd, twoSource(inst, r.get(inst.rn), r.get(inst.rm)))
	case xRbit, xRev16, xRev32, xRev, xClz, xCls:
		r.set(inst.rd, oneSource(inst, r.get(inst.rn)))
	case xSmaddl, xSmsubl, xUmaddl, xUmsubl, xSmulh, xUmulh:
		r.set(inst.rd, threeSource(inst, r))
	case xCcmp, xCcmn:
		if !r.Passed(inst.cond) {
			f := inst.imm2
			r.N, r.Z, r.C, r.V = f&8 != 0, f&4 != 0, f&2 != 0, f&1 != 0
			break
		}
		y := inst.imm
		if inst.mode == 0 {
			y = r.get(inst.rm)
		}
		if inst.x == xCcmp {
			_, r.N, r.Z, r.C, r.V = addWithCarry(r.get(inst.rn), ^y, true, sf)
		} else {
			_, r.N, r.Z, r.C, r.V = addWithCarry(r.get(inst.rn), y, false, sf)
		}
	case xB:
		r.PC = pc + inst.imm
		return isa.FlowBranch, nil
	case xBL:
		r.X[LR] = next
		r.PC = pc + inst.imm
		return isa.FlowCall, nil
	case xBCond, xCbz, xCbnz, xTbz, xTbnz:
		var taken bool
		switch inst.x {
		case xBCond:
			taken = r.Passed(inst.cond)
		case xCbz, xCbnz:
			taken = trunc(r.get(inst.rd), sf) == 0
			if inst.x == xCbnz {
				taken = !taken
			}
		default:
			taken = r.get(inst.rd)>>inst.amount&1 == 0
			if inst.x == xTbnz {
				taken = !taken
			}
		}
		if !taken {
			r.PC = next
			return isa.FlowSkipped, nil
		}
		r.PC = pc + inst.imm
		return isa.FlowBranch, nil
	case xBr:
		r.PC = r.get(inst.rn)
		return isa.FlowBranch, nil
	case xBlr:
		t := r.get(inst.rn) // read before x30 is written: BLR X30 is fine
		r.X[LR] = next
		r.PC = t
		return isa.FlowCall, nil
	case xRet:
		r.PC = r.get(inst.rn)
		return isa.FlowReturn, nil
	case xLoadAcq, xStoreRel:
		if err := loadStore1(inst, r, bus, pc); err != nil {
			return isa.FlowNext, err
		}
	case xLoadEx, xStoreEx, xClrex:
		if err := exclusive(inst, r, bus); err != nil {
			return isa.FlowNext, err
		}
	default:
		return isa.FlowNext, isa.ErrUnsupported
	}
	r.PC = next
	return isa.FlowNext, nil
}

// trunc keeps the low 32 bits of v in a 32-bit operation: a W register
// write zero-extends into the X register (ARM ARM C1.2.5).
func trunc(v uint64, sf bool) uint64 {
	if sf {
		return v
	}
	return v & 0xffffffff
}

// addWithCarry is the ARM ARM's AddWithCarry for 64- or 32-bit operands.
func addWithCarry(x, y uint64, carry bool, sf bool) (res uint64, n, z, c, v bool) {
	ci := uint64(0)
	if carry {
		ci = 1
	}
	if sf {
		sum, co := bits.Add64(x, y, ci)
		return sum, sum>>63 != 0, sum == 0, co != 0, (x^sum)&(y^sum)>>63 != 0
	}
	x32, y32 := uint32(x), uint32(y)
	sum, co := bits.Add32(x32, y32, uint32(ci))
	return uint64(sum), sum>>31 != 0, sum == 0, co != 0, (x32^sum)&(y32^sum)>>31 != 0
}

// shiftReg applies a register operand's shift (LSL, LSR, ASR, ROR).
func shiftReg(v uint64, typ, n uint8, sf bool) uint64 {
	if !sf {
		x := uint32(v)
		switch typ {
		case 0:
			return uint64(x << n)
		case 1:
			return uint64(x >> n)
		case 2:
			return uint64(uint32(int32(x) >> n))
		}
		return uint64(bits.RotateLeft32(x, -int(n)))
	}
	switch typ {
	case 0:
		return v << n
	case 1:
		return v >> n
	case 2:
		return uint64(int64(v) >> n)
	}
	return bits.RotateLeft64(v, -int(n))
}

// extendReg is the ARM ARM's ExtendReg: option 0–7 is UXTB, UXTH, UXTW,
// UXTX, SXTB, SXTH, SXTW, SXTX, then a left shift.
func extendReg(v uint64, option, shift uint8) uint64 {
	switch option {
	case 0:
		v = uint64(uint8(v))
	case 1:
		v = uint64(uint16(v))
	case 2:
		v = uint64(uint32(v))
	case 4:
		v = uint64(int64(int8(v)))
	case 5:
		v = uint64(int64(int16(v)))
	case 6:
		v = uint64(int64(int32(v)))
	}
	return v << shift
}

// addSub executes the add and sub forms Run does not run inline: extended
// registers, and with carry.
func addSub(inst *Resolved, r *Regs) {
	x := r.get(inst.rn)
	var y uint64
	sub, carry := false, false
	switch inst.x {
	case xAddExt, xSubExt:
		y = extendReg(r.get(inst.rm), inst.shift, inst.amount)
		sub = inst.x == xSubExt
	case xAdc, xSbc:
		y, carry = r.get(inst.rm), r.C
		sub = inst.x == xSbc
	}
	if sub {
		y = ^y
		if inst.x != xSbc {
			carry = true
		}
	}
	res, n, z, c, v := addWithCarry(x, y, carry, inst.sf)
	if inst.setFlags {
		r.N, r.Z, r.C, r.V = n, z, c, v
	}
	r.set(inst.rd, res)
}

// bitfield executes SBFM, BFM and UBFM (ARM ARM C6.2.239, C6.2.29, C6.2.366).
func bitfield(inst *Resolved, r *Regs) {
	src := r.get(inst.rn)
	wmask, tmask := inst.imm, inst.imm2
	var rot uint64
	if inst.sf {
		rot = bits.RotateLeft64(src, -int(inst.amount))
	} else {
		rot = uint64(bits.RotateLeft32(uint32(src), -int(inst.amount)))
	}
	var res uint64
	switch inst.x {
	case xUbfm:
		res = rot & wmask & tmask
	case xBfm:
		dst := r.get(inst.rd)
		bot := dst&^wmask | rot&wmask
		res = dst&^tmask | bot&tmask
	case xSbfm:
		bot := rot & wmask
		var top uint64
		if src>>inst.ra&1 != 0 {
			top = ^uint64(0)
		}
		res = top&^tmask | bot&tmask
	}
	r.set(inst.rd, trunc(res, inst.sf))
}

func twoSource(inst *Resolved, n, m uint64) uint64 {
	sf := inst.sf
	if !sf {
		n, m = n&0xffffffff, m&0xffffffff
	}
	width := uint64(32)
	if sf {
		width = 64
	}
	switch inst.x {
	case xUdiv:
		if m == 0 {
			return 0
		}
		return n / m
	case xSdiv:
		if m == 0 {
			return 0
		}
		if sf {
			return uint64(int64(n) / int64(m)) // MinInt64 / -1 wraps, as the ARM ARM's does
		}
		return uint64(uint32(int32(uint32(n)) / int32(uint32(m))))
	case xLslv:
		return shiftReg(n, 0, uint8(m%width), sf)
	case xLsrv:
		return shiftReg(n, 1, uint8(m%width), sf)
	case xAsrv:
		return shiftReg(n, 2, uint8(m%width), sf)
	}
	return shiftReg(n, 3, uint8(m%width), sf)
}

func oneSource(inst *Resolved, v uint64) uint64 {
	if !inst.sf {
		x := uint32(v)
		switch inst.x {
		case xRbit:
			return uint64(bits.Reverse32(x))
		case xRev16:
			return uint64(x&0xff00ff00>>8 | x&0x00ff00ff<<8)
		case xRev:
			return uint64(bits.ReverseBytes32(x))
		case xClz:
			return uint64(bits.LeadingZeros32(x))
		}
		return uint64(bits.LeadingZeros32(x^uint32(int32(x)>>1)) - 1) // CLS
	}
	switch inst.x {
	case xRbit:
		return bits.Reverse64(v)
	case xRev16:
		return v&0xff00ff00ff00ff00>>8 | v&0x00ff00ff00ff00ff<<8
	case xRev32:
		v = bits.ReverseBytes64(v)
		return v>>32 | v<<32
	case xRev:
		return bits.ReverseBytes64(v)
	case xClz:
		return uint64(bits.LeadingZeros64(v))
	}
	return uint64(bits.LeadingZeros64(v^uint64(int64(v)>>1)) - 1) // CLS
}

func threeSource(inst *Resolved, r *Regs) uint64 {
	n, m, a := r.get(inst.rn), r.get(inst.rm), r.get(inst.ra)
	switch inst.x {
	case xMadd:
		return trunc(a+n*m, inst.sf)
	case xMsub:
		return trunc(a-n*m, inst.sf)
	case xSmaddl:
		return a + uint64(int64(int32(n))*int64(int32(m)))
	case xSmsubl:
		return a - uint64(int64(int32(n))*int64(int32(m)))
	case xUmaddl:
		return a + uint64(uint32(n))*uint64(uint32(m))
	case xUmsubl:
		return a - uint64(uint32(n))*uint64(uint32(m))
	case xUmulh:
		hi, _ := bits.Mul64(n, m)
		return hi
	}
	// SMULH: the unsigned high half corrected for negative operands.
	hi, _ := bits.Mul64(n, m)
	if int64(n) < 0 {
		hi -= m
	}
	if int64(m) < 0 {
		hi -= n
	}
	return hi
}

// address computes the effective address and the written-back base of a
// load or store, checking SP alignment when SP is the base (the immediate
// forms here, inline; the register and literal forms in addressRegLit).
func address(inst *Resolved, r *Regs, pc uint64) (addr, wback uint64, err error) {
	if inst.mode > modePost {
		return addressRegLit(inst, r, pc)
	}
	base := r.get(inst.rn)
	if inst.rn == rSP && base&15 != 0 {
		return 0, 0, errSPAlign
	}
	wback = base + inst.imm
	if inst.mode == modePost {
		return base, wback, nil
	}
	return wback, wback, nil
}

// addressRegLit is address for a literal and a register offset.
func addressRegLit(inst *Resolved, r *Regs, pc uint64) (addr, wback uint64, err error) {
	if inst.mode == modeLit {
		return pc + inst.imm, 0, nil
	}
	base := r.get(inst.rn)
	if inst.rn == rSP && base&15 != 0 {
		return 0, 0, errSPAlign
	}
	return base + extendReg(r.get(inst.rm), inst.shift, inst.amount), 0, nil
}

// busReg is the Bus's name for a resolved register: 0–30, 31 for SP or XZR.
func busReg(n uint8) uint8 { return min(n, 31) }

// extendLoad applies a load's sign extension (to 32 or 64 bits).
func extendLoad(v uint64, size, sx uint8) uint64 {
	switch {
	case sx == 0:
		return v
	case size == 1:
		v = uint64(int64(int8(v)))
	case size == 2:
		v = uint64(int64(int16(v)))
	default:
		v = uint64(int64(int32(v)))
	}
	if sx == 32 {
		v &= 0xffffffff
	}
	return v
}

func loadStore1(inst *Resolved, r *Regs, bus isa.Bus, pc uint64) error {
	addr, wback, err := address(inst, r, pc)
	if err != nil {
		return err
	}
	size := int(inst.size)
	if (inst.x == xLoadAcq || inst.x == xStoreRel) && addr&uint64(size-1) != 0 {
		return errAlign
	}
	rt := busReg(inst.rd)
	if inst.x == xLoad || inst.x == xLoadAcq {
		v, err := bus.Load(addr, size, rt)
		if err != nil {
			return err
		}
		r.set(inst.rd, extendLoad(v, inst.size, inst.sx))
	} else if err := bus.Store(addr, size, r.get(inst.rd)&sizeMask[size&15], rt); err != nil {
		return err
	}
	if inst.mode == modePre || inst.mode == modePost {
		r.set(inst.rn, wback)
	}
	return nil
}

// exclusive executes the exclusive accesses through bus's monitor
// (isa.ExclusiveBus): a load-exclusive loads (zero-extended) and marks
// its bytes; a store-exclusive stores only if the monitor marks exactly
// its bytes, writes 0 to Ws when it stored and 1 when it did not, and
// opens the monitor either way (ARM ARM C6.2.325, B2.9); CLREX opens it.
// A misaligned exclusive access is an alignment fault (B2.5.2). The
// acquire and release forms order nothing more in this sequentially
// consistent machine.
func exclusive(inst *Resolved, r *Regs, bus isa.Bus) error {
	mon, err := isa.MonitorOf(bus)
	if err != nil {
		return err
	}
	if inst.x == xClrex {
		*mon = isa.Monitor{}
		return nil
	}
	addr, _, err := address(inst, r, 0)
	if err != nil {
		return err
	}
	size := int(inst.size)
	if addr&uint64(size-1) != 0 {
		return errAlign
	}
	if inst.x == xLoadEx {
		v, err := bus.Load(addr, size, busReg(inst.rd))
		if err != nil {
			return err
		}
		mon.Mark(addr, size)
		r.set(inst.rd, v)
		return nil
	}
	status := uint64(1)
	if mon.Check(addr, size) {
		if err := bus.Store(addr, size, r.get(inst.rd)&sizeMask[size&15], busReg(inst.rd)); err != nil {
			return err
		}
		status = 0
	}
	r.set(inst.rm, status)
	return nil
}

// sizeMask is the mask of an access of size bytes (indexed size&15).
var sizeMask = [16]uint64{1: 0xff, 2: 0xffff, 4: 0xffffffff, 8: ^uint64(0)}

// loadStorePair executes LDP, LDPSW and STP; the first register goes to
// the lower address (ARM ARM C6.2.164, C6.2.321).
func loadStorePair(inst *Resolved, r *Regs, bus isa.Bus) error {
	addr, wback, err := address(inst, r, 0)
	if err != nil {
		return err
	}
	size := int(inst.size)
	rt, rt2 := busReg(inst.rd), busReg(inst.ra)
	if inst.x == xLoadPair {
		v1, err := bus.Load(addr, size, rt)
		if err != nil {
			return err
		}
		v2, err := bus.Load(addr+uint64(size), size, rt2)
		if err != nil {
			return err
		}
		r.set(inst.rd, extendLoad(v1, inst.size, inst.sx))
		r.set(inst.ra, extendLoad(v2, inst.size, inst.sx))
	} else {
		m := sizeMask[size&15]
		v1, v2 := r.get(inst.rd)&m, r.get(inst.ra)&m
		if err := bus.Store(addr, size, v1, rt); err != nil {
			return err
		}
		if err := bus.Store(addr+uint64(size), size, v2, rt2); err != nil {
			return err
		}
	}
	if inst.mode != modeOffset {
		r.set(inst.rn, wback)
	}
	return nil
}

// MemAddr returns the data access inst would make with registers r,
// without executing it: the lowest address, the number of bytes, and
// whether it stores; ok is false for an instruction other than a load or
// store (single, pair, acquire/release), for a literal load, and when the
// address faults. The partial-order reduction of package sched asks it
// whether an access reaches only the task's own stack.
func MemAddr(inst *Inst, r *Regs) (addr uint64, size int, store, ok bool) {
	if inst.err != nil || inst.mode == modeLit {
		return 0, 0, false, false
	}
	n := int(inst.size)
	switch inst.x {
	case xLoad, xLoadAcq, xLoadEx:
	case xStore, xStoreRel, xStoreEx:
		store = true
	case xLoadPair:
		n *= 2
	case xStorePair:
		n, store = 2*n, true
	default:
		return 0, 0, false, false
	}
	a, _, err := address(&inst.Resolved, r, 0)
	if err != nil {
		return 0, 0, false, false
	}
	return a, n, store, true
}
