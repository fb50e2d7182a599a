package x86

import (
	"github.com/mcountsim/mcountsim/isa"
	"math/bits"

	"golang.org/x/arch/x86/x86asm"
)

// Regs is the register file of one x86-64 context. RIP holds the address of
// the instruction about to execute. The flags are the six status flags of
// RFLAGS (SDM Vol. 1 §3.4.3.1).
type Regs struct {
	R   [16]uint64
	RIP uint64

	CF, PF, AF, ZF, SF, OF bool

	// GSBase is IA32_GS_BASE as an x86-64 kernel keeps it: the CPU's
	// per-CPU area, which a gs-prefixed operand adds to its address (the
	// stack canary of -mstack-protector-guard-reg=gs, %gs:40 or
	// %gs:__ref_stack_chk_guard(%rip)).
	GSBase uint64
}

// RFLAGS bit positions of the status flags.
const (
	FlagCF = 1 << 0
	FlagPF = 1 << 2
	FlagAF = 1 << 4
	FlagZF = 1 << 6
	FlagSF = 1 << 7
	FlagOF = 1 << 11

	// StatusFlags is the mask of the status flags Regs models.
	StatusFlags = FlagCF | FlagPF | FlagAF | FlagZF | FlagSF | FlagOF
)

// Flags returns the status flags as RFLAGS bits.
func (r *Regs) Flags() uint64 {
	var f uint64
	for _, b := range [...]struct {
		set bool
		bit uint64
	}{{r.CF, FlagCF}, {r.PF, FlagPF}, {r.AF, FlagAF}, {r.ZF, FlagZF}, {r.SF, FlagSF}, {r.OF, FlagOF}} {
		if b.set {
			f |= b.bit
		}
	}
	return f
}

// SetFlags sets the status flags from RFLAGS bits; other bits are ignored.
func (r *Regs) SetFlags(f uint64) {
	r.CF, r.PF, r.AF = f&FlagCF != 0, f&FlagPF != 0, f&FlagAF != 0
	r.ZF, r.SF, r.OF = f&FlagZF != 0, f&FlagSF != 0, f&FlagOF != 0
}

// Passed reports whether condition c holds for the flags in r (SDM Vol. 1
// table B-1).
func (r *Regs) Passed(c Cond) bool {
	var v bool
	switch c &^ 1 {
	case O:
		v = r.OF
	case B:
		v = r.CF
	case E:
		v = r.ZF
	case BE:
		v = r.CF || r.ZF
	case S:
		v = r.SF
	case P:
		v = r.PF
	case L:
		v = r.SF != r.OF
	case LE:
		v = r.ZF || r.SF != r.OF
	}
	return v != (c&1 != 0) // odd conditions are the negations
}

// Exec executes inst, fetched from r.RIP, against r and bus. On success RIP
// holds the next address. An INT3 returns an *isa.Fault wrapping isa.ErrBreakpoint
// and leaves r untouched (the same *isa.Fault each time at one pc: callers must
// not change it). Any other error leaves r in an unspecified state
// and is an *isa.Fault wrapping isa.ErrUnsupported, isa.ErrMemory or the isa.Bus's error.
// Exec does not allocate unless it fails.
func Exec(inst *Inst, r *Regs, bus isa.Bus) (isa.Flow, error) { return inst.Exec(r, bus) }

// Exec executes inst as the package's Exec does.
func (inst *Resolved) Exec(r *Regs, bus isa.Bus) (isa.Flow, error) {
	one := [1]*Resolved{inst}
	_, s := Run(one[:], r.RIP, r, bus, 1)
	return s.Flow, s.Err
}

// slow executes inst, which is not of a fast form, at pc.
func (inst *Resolved) slow(r *Regs, bus isa.Bus, pc uint64) (isa.Flow, error) {
	if inst.err == nil && (inst.Op == x86asm.SHL || inst.Op == x86asm.SHR || inst.Op == x86asm.SAR) {
		// Straight from here, as the fast forms: a call to execute costs
		// as much as the operation.
		flow, err := shift(inst, r, bus, pc+uint64(inst.Len))
		if err != nil {
			return flow, execError(inst, pc, err)
		}
		return flow, nil
	}
	if inst.err != nil {
		return isa.FlowNext, execError(inst, pc, inst.err)
	}
	if inst.int3 {
		// execError's fault without decoding again: int3 is the one byte
		// cc. The fault decode made for this pc is shared by every trap
		// there (the trap path of text_poke_bp takes one per call).
		if f := inst.trap; f != nil && f.PC == pc {
			return isa.FlowNext, f
		}
		return isa.FlowNext, &isa.Fault{PC: pc, Bytes: []byte{0xcc}, Disasm: "int3", Err: isa.ErrBreakpoint}
	}
	flow, err := execute(inst, r, bus, pc)
	if err != nil {
		return flow, execError(inst, pc, err)
	}
	return flow, nil
}

func execError(inst *Resolved, pc uint64, err error) error {
	d, _ := Decode(pc, inst.raw[:inst.nraw]) // the same decoding, with x86asm's view
	return &isa.Fault{PC: pc, Bytes: append([]byte(nil), inst.Bytes()...), Disasm: Disasm(&d, pc, nil), Err: err}
}

// sizeMask is the mask of an operand of size bytes (indexed size&15 on the
// hot paths, so that no bounds check is left).
var sizeMask = [16]uint64{1: 0xff, 2: 0xffff, 4: 0xffffffff, 8: ^uint64(0)}

// keepMask is what a register write of size bytes (at bit 0) leaves of the
// register: 8- and 16-bit writes keep the other bits, 32- and 64-bit
// writes replace all (a 32-bit write zero-extends, SDM Vol. 1 §3.4.1.1).
var keepMask = [16]uint64{1: ^uint64(0xff), 2: ^uint64(0xffff)}

// topShift is 64 minus the bits of an operand of size bytes: shifted left
// by it, the operand's sign bit is bit 63.
var topShift = [16]uint8{1: 56, 2: 48, 4: 32, 8: 0}

// get reads a register operand, without a branch.
func (r *Regs) get(o *operand) uint64 {
	return r.R[o.reg&15] >> (o.sh & 63) & sizeMask[o.size&15]
}

// set writes a register operand, without a branch: 8- and 16-bit writes
// keep the other bits, 32-bit writes zero-extend (SDM Vol. 1 §3.4.1.1).
func (r *Regs) set(o *operand, v uint64) {
	p := &r.R[o.reg&15]
	sh := o.sh & 63
	*p = *p&bits.RotateLeft64(keepMask[o.size&15], int(sh)) | (v&sizeMask[o.size&15])<<sh
}

// addr computes the effective address of a memory operand.
func (r *Regs) addr(o *operand, next uint64) uint64 {
	a := uint64(o.val)
	switch o.base {
	case noBase:
	case ripBase:
		a += next
	default:
		a += r.R[o.base]
	}
	if o.index != noBase {
		a += r.R[o.index] * uint64(o.scale)
	}
	if o.gs {
		a += r.GSBase
	}
	return a
}

// read reads a register, memory or immediate operand of size bytes; reg is
// the isa.Bus's reg argument for a memory read.
func (r *Regs) read(o *operand, size uint8, bus isa.Bus, next uint64, reg uint8) (uint64, error) {
	switch o.kind {
	case kindReg:
		return r.get(o), nil
	case kindImm:
		return uint64(o.val) & sizeMask[size], nil
	}
	return bus.Load(r.addr(o, next), int(size), reg)
}

// write writes a register or memory operand of size bytes.
func (r *Regs) write(o *operand, size uint8, v uint64, bus isa.Bus, next uint64, reg uint8) error {
	if o.kind == kindReg {
		r.set(o, v)
		return nil
	}
	return bus.Store(r.addr(o, next), int(size), v&sizeMask[size], reg)
}

// busReg is the isa.Bus's reg argument for a register operand.
func busReg(o *operand) uint8 {
	if o.kind == kindReg {
		return o.reg
	}
	return isa.NoReg
}

func (r *Regs) push(bus isa.Bus, v uint64, reg uint8) error {
	sp := r.R[RSP] - 8
	if err := bus.Store(sp, 8, v, reg); err != nil {
		return err
	}
	r.R[RSP] = sp
	return nil
}

func (r *Regs) pop(bus isa.Bus, reg uint8) (uint64, error) {
	v, err := bus.Load(r.R[RSP], 8, reg)
	if err != nil {
		return 0, err
	}
	r.R[RSP] += 8
	return v, nil
}

// jumpTarget is where a call or jmp goes: next plus its rel32, or the
// value of its register or memory operand.
func (r *Regs) jumpTarget(inst *Resolved, bus isa.Bus, next uint64) (uint64, error) {
	if inst.dst.kind == kindNone {
		return next + uint64(inst.Rel), nil
	}
	return r.read(&inst.dst, 8, bus, next, isa.PCReg)
}

func execute(inst *Resolved, r *Regs, bus isa.Bus, pc uint64) (isa.Flow, error) {
	next := pc + uint64(inst.Len)
	size := inst.size
	d, s := &inst.dst, &inst.src
	switch inst.Op {
	case x86asm.NOP, x86asm.PAUSE:
	case x86asm.CALL:
		target, err := r.jumpTarget(inst, bus, next)
		if err != nil {
			return isa.FlowNext, err
		}
		if err := r.push(bus, next, isa.RetAddr); err != nil {
			return isa.FlowNext, err
		}
		r.RIP = target
		return isa.FlowCall, nil
	case x86asm.JMP:
		target, err := r.jumpTarget(inst, bus, next)
		if err != nil {
			return isa.FlowNext, err
		}
		r.RIP = target
		return isa.FlowBranch, nil
	case x86asm.JA, x86asm.JAE, x86asm.JB, x86asm.JBE, x86asm.JE, x86asm.JG, x86asm.JGE, x86asm.JL,
		x86asm.JLE, x86asm.JNE, x86asm.JNO, x86asm.JNP, x86asm.JNS, x86asm.JO, x86asm.JP, x86asm.JS:
		if !r.Passed(inst.Cond) {
			r.RIP = next
			return isa.FlowSkipped, nil
		}
		r.RIP = next + uint64(inst.Rel)
		return isa.FlowBranch, nil
	case x86asm.RET:
		v, err := r.pop(bus, isa.PCReg)
		if err != nil {
			return isa.FlowNext, err
		}
		r.R[RSP] += uint64(s.val) & 0xffff
		r.RIP = v
		return isa.FlowReturn, nil
	case x86asm.PUSH:
		v, err := r.read(d, 8, bus, next, isa.NoReg)
		if err != nil {
			return isa.FlowNext, err
		}
		if err := r.push(bus, v, busReg(d)); err != nil {
			return isa.FlowNext, err
		}
	case x86asm.POP:
		v, err := r.pop(bus, busReg(d))
		if err != nil {
			return isa.FlowNext, err
		}
		// A memory destination addressed through rsp sees the incremented
		// rsp (SDM "POP").
		if err := r.write(d, 8, v, bus, next, isa.NoReg); err != nil {
			r.R[RSP] -= 8
			return isa.FlowNext, err
		}
	case x86asm.LEAVE:
		r.R[RSP] = r.R[RBP]
		v, err := r.pop(bus, uint8(RBP))
		if err != nil {
			return isa.FlowNext, err
		}
		r.R[RBP] = v
	case x86asm.MOV:
		v, err := r.read(s, size, bus, next, busReg(d))
		if err != nil {
			return isa.FlowNext, err
		}
		if err := r.write(d, size, v, bus, next, busReg(s)); err != nil {
			return isa.FlowNext, err
		}
	case x86asm.LEA:
		r.set(d, r.addr(s, next))
	case x86asm.MOVZX, x86asm.MOVSX, x86asm.MOVSXD:
		v, err := r.read(s, s.size, bus, next, d.reg)
		if err != nil {
			return isa.FlowNext, err
		}
		if inst.Op != x86asm.MOVZX {
			v = signExtend(v, s.size)
		}
		r.set(d, v)
	case x86asm.XCHG:
		a, err := r.read(d, size, bus, next, busReg(s))
		if err != nil {
			return isa.FlowNext, err
		}
		b, err := r.read(s, size, bus, next, busReg(d))
		if err != nil {
			return isa.FlowNext, err
		}
		if err := r.write(d, size, b, bus, next, busReg(s)); err != nil {
			return isa.FlowNext, err
		}
		if err := r.write(s, size, a, bus, next, busReg(d)); err != nil {
			return isa.FlowNext, err
		}
	case x86asm.ADD, x86asm.ADC, x86asm.SUB, x86asm.SBB, x86asm.AND, x86asm.OR, x86asm.XOR,
		x86asm.CMP, x86asm.TEST:
		return alu(inst, r, bus, next)
	case x86asm.INC, x86asm.DEC, x86asm.NEG, x86asm.NOT:
		v, err := r.read(d, size, bus, next, isa.NoReg)
		if err != nil {
			return isa.FlowNext, err
		}
		var res uint64
		switch inst.Op {
		case x86asm.INC:
			cf := r.CF
			res = r.add(v, 1, 0, size)
			r.CF = cf
		case x86asm.DEC:
			cf := r.CF
			res = r.sub(v, 1, 0, size)
			r.CF = cf
		case x86asm.NEG:
			res = r.sub(0, v, 0, size)
			r.CF = v != 0
		case x86asm.NOT:
			res = ^v & sizeMask[size]
		}
		if err := r.write(d, size, res, bus, next, isa.NoReg); err != nil {
			return isa.FlowNext, err
		}
	case x86asm.SHL, x86asm.SHR, x86asm.SAR:
		return shift(inst, r, bus, next)
	case x86asm.BSR, x86asm.BSF:
		// SDM BSR/BSF: a zero source sets ZF and leaves the destination
		// alone (as the CPUs and QEMU do; the SDM calls it undefined); the
		// other flags are undefined and left unchanged.
		v, err := r.read(s, size, bus, next, d.reg)
		if err != nil {
			return isa.FlowNext, err
		}
		v &= sizeMask[size]
		r.ZF = v == 0
		if v != 0 {
			if inst.Op == x86asm.BSR {
				r.set(d, uint64(bits.Len64(v)-1))
			} else {
				r.set(d, uint64(bits.TrailingZeros64(v)))
			}
		}
	case x86asm.IMUL:
		if d.kind == kindNone {
			v, err := r.read(s, size, bus, next, isa.NoReg)
			if err != nil {
				return isa.FlowNext, err
			}
			r.mulAcc(true, v, size)
			break
		}
		a := r.get(d)
		if inst.src2.kind != kindNone {
			var err error
			if a, err = r.read(s, size, bus, next, d.reg); err != nil {
				return isa.FlowNext, err
			}
			r.set(d, r.imul(a, uint64(inst.src2.val), size))
			break
		}
		b, err := r.read(s, size, bus, next, d.reg)
		if err != nil {
			return isa.FlowNext, err
		}
		r.set(d, r.imul(a, b, size))
	case x86asm.CMOVA, x86asm.CMOVAE, x86asm.CMOVB, x86asm.CMOVBE, x86asm.CMOVE, x86asm.CMOVG,
		x86asm.CMOVGE, x86asm.CMOVL, x86asm.CMOVLE, x86asm.CMOVNE, x86asm.CMOVNO, x86asm.CMOVNP,
		x86asm.CMOVNS, x86asm.CMOVO, x86asm.CMOVP, x86asm.CMOVS:
		// The source is read whatever the condition; a 32-bit CMOVcc
		// zero-extends its destination even when the condition fails (SDM
		// "CMOVcc").
		v, err := r.read(s, size, bus, next, d.reg)
		if err != nil {
			return isa.FlowNext, err
		}
		if !r.Passed(inst.Cond) {
			v = r.get(d)
		}
		r.set(d, v)
	case x86asm.SETA, x86asm.SETAE, x86asm.SETB, x86asm.SETBE, x86asm.SETE, x86asm.SETG,
		x86asm.SETGE, x86asm.SETL, x86asm.SETLE, x86asm.SETNE, x86asm.SETNO, x86asm.SETNP,
		x86asm.SETNS, x86asm.SETO, x86asm.SETP, x86asm.SETS:
		var v uint64
		if r.Passed(inst.Cond) {
			v = 1
		}
		if err := r.write(d, 1, v, bus, next, isa.NoReg); err != nil {
			return isa.FlowNext, err
		}
	default:
		if inst.str != strNone {
			return execString(inst, r, bus, pc)
		}
		ok, err := execInt(inst, r, bus, next)
		if !ok {
			ok, err = execMore(inst, r, bus, next)
		}
		if !ok {
			return isa.FlowNext, isa.ErrUnsupported
		}
		if err != nil {
			return isa.FlowNext, err
		}
	}
	r.RIP = next
	return isa.FlowNext, nil
}

func signExtend(v uint64, size uint8) uint64 {
	switch size {
	case 1:
		return uint64(int8(v))
	case 2:
		return uint64(int16(v))
	case 4:
		return uint64(int32(v))
	}
	return v
}

// parityTab says of every byte whether it has an even number of ones (PF).
var parityTab = func() (t [256]bool) {
	for i := range t {
		t[i] = bits.OnesCount8(uint8(i))&1 == 0
	}
	return t
}()

func parity(v uint64) bool { return parityTab[uint8(v)] }

// result sets SF, ZF and PF from a result of size bytes.
func (r *Regs) result(res uint64, size uint8) {
	r.SF = res<<topShift[size&15]>>63 != 0
	r.ZF = res&sizeMask[size&15] == 0
	r.PF = parity(res)
}

// add returns a+b+carry truncated to size bytes (carry 0 or 1) and sets
// all six flags as ADD/ADC do (SDM "ADD", "ADC").
func (r *Regs) add(a, b, carry uint64, size uint8) uint64 {
	k := (64 - uint(size)<<3) & 63
	return r.addTop(a<<k|(1<<k-1), b<<k, carry, k)
}

// addTop is add with the operands at the top of 64-bit words, k = 64 minus
// their bits: x is a<<k with ones below (so that the carry in at bit 0
// reaches a's lowest bit exactly when it is 1), y is b<<k. One 64-bit
// addition gives CF and OF at every size; AF is the carry into a's bit 4.
// It is small enough to inline (Run's add, sub and cmp).
func (r *Regs) addTop(x, y, carry uint64, k uint) uint64 {
	sum, c := bits.Add64(x, y, carry)
	res := sum >> k
	r.CF, r.OF, r.AF = c != 0, int64((x^sum)&(y^sum)) < 0, (x^y^sum)&(0x10<<k) != 0
	r.SF, r.ZF, r.PF = int64(sum) < 0, res == 0, parityTab[uint8(res)]
	return res
}

// sub returns a-b-borrow truncated to size bytes and sets all six flags as
// SUB/SBB/CMP do (SDM "SUB", "SBB", "CMP"): it adds a + ^b + (1 - borrow)
// as the ALU does, and CF and AF are the borrows, the complements of that
// sum's carries.
func (r *Regs) sub(a, b, borrow uint64, size uint8) uint64 {
	res := r.add(a, ^b, 1-borrow, size)
	r.CF, r.AF = !r.CF, !r.AF
	return res
}

// logic sets the flags of AND, OR, XOR and TEST: CF and OF cleared, SF, ZF
// and PF from the result, AF (undefined in the SDM) cleared as hardware does.
func (r *Regs) logic(res uint64, size uint8) uint64 {
	r.CF, r.OF, r.AF = false, false, false
	r.result(res, size)
	return res
}

func alu(inst *Resolved, r *Regs, bus isa.Bus, next uint64) (isa.Flow, error) {
	size := inst.size
	d, s := &inst.dst, &inst.src
	a, err := r.read(d, size, bus, next, isa.NoReg)
	if err != nil {
		return isa.FlowNext, err
	}
	b, err := r.read(s, size, bus, next, isa.NoReg)
	if err != nil {
		return isa.FlowNext, err
	}
	var res uint64
	carry := uint64(0)
	if r.CF {
		carry = 1
	}
	switch inst.Op {
	case x86asm.ADD:
		res = r.add(a, b, 0, size)
	case x86asm.ADC:
		res = r.add(a, b, carry, size)
	case x86asm.SUB, x86asm.CMP:
		res = r.sub(a, b, 0, size)
	case x86asm.SBB:
		res = r.sub(a, b, carry, size)
	case x86asm.AND, x86asm.TEST:
		res = r.logic(a&b, size)
	case x86asm.OR:
		res = r.logic(a|b, size)
	case x86asm.XOR:
		res = r.logic(a^b, size)
	}
	if inst.Op != x86asm.CMP && inst.Op != x86asm.TEST {
		if err := r.write(d, size, res, bus, next, isa.NoReg); err != nil {
			return isa.FlowNext, err
		}
	}
	r.RIP = next
	return isa.FlowNext, nil
}

// shift executes SHL, SHR and SAR (SDM "SAL/SAR/SHL/SHR"). The count is
// masked to 5 bits (6 for 64-bit operands); a zero count changes no flag.
// For counts other than 1, OF is undefined in the SDM: it is computed as for
// a count of 1 applied to the last step, as QEMU does. AF (undefined) is
// cleared.
func shift(inst *Resolved, r *Regs, bus isa.Bus, next uint64) (isa.Flow, error) {
	size := inst.size
	d := &inst.dst
	v, err := r.read(d, size, bus, next, isa.NoReg)
	if err != nil {
		return isa.FlowNext, err
	}
	res := r.shift(inst, v)
	if err := r.write(d, size, res, bus, next, isa.NoReg); err != nil {
		return isa.FlowNext, err
	}
	r.RIP = next
	return isa.FlowNext, nil
}

// shift is SHL, SHR or SAR of v (of inst.size bytes) by inst's count,
// with the flags. The operand is shifted with its sign bit at bit 63
// (topShift), so that every size takes the same operations.
func (r *Regs) shift(inst *Resolved, v uint64) uint64 {
	size := inst.size
	n := uint64(inst.src.val)
	if inst.src.kind == kindReg {
		n = r.R[RCX]
	}
	n &= countMask[size&15]
	if n == 0 {
		return v
	}
	k := topShift[size&15] & 63
	x := v << k // the operand at the top
	var res uint64
	switch inst.Op {
	case x86asm.SHL:
		res = x << n >> k
		// The last bit shifted out; none when the count exceeds the size.
		r.CF = x<<(n-1)>>63 != 0
		r.OF = (x<<n>>63 != 0) != r.CF
	case x86asm.SHR:
		res = x >> n >> k
		r.CF = x>>(n-1)>>k&1 != 0
		r.OF = x>>(n-1)>>63 != 0
	default: // SAR
		sv := int64(x) >> k // sign-extended
		res = uint64(sv>>n) & sizeMask[size&15]
		r.CF = sv>>(n-1)&1 != 0
		r.OF = false
	}
	r.AF = false
	r.result(res, size)
	return res
}

// countMask masks a shift count: 6 bits for 64-bit operands, else 5.
var countMask = [16]uint64{1: 31, 2: 31, 4: 31, 8: 63}

// imul returns the truncated signed product of a and b (both size bytes)
// and sets CF and OF when it differs from the full product (SDM "IMUL").
// SF, ZF and PF (undefined) follow the truncated result and AF is cleared,
// as QEMU does.
func (r *Regs) imul(a, b uint64, size uint8) uint64 {
	sa, sb := int64(signExtend(a, size)), int64(signExtend(b, size))
	var res uint64
	var overflow bool
	if size == 8 {
		hi, lo := bits.Mul64(uint64(sa), uint64(sb))
		if sa < 0 {
			hi -= uint64(sb)
		}
		if sb < 0 {
			hi -= uint64(sa)
		}
		res = lo
		overflow = hi != uint64(int64(lo)>>63)
	} else {
		p := sa * sb // at most 32×32 bits: fits in 64
		res = uint64(p) & sizeMask[size]
		overflow = int64(signExtend(res, size)) != p
	}
	r.CF, r.OF, r.AF = overflow, overflow, false
	r.result(res, size)
	return res
}
