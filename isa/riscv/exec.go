package riscv

import (
	"math"
	"math/bits"

	"github.com/mcountsim/mcountsim/isa"
)

// Regs is the register file of one RV64 hart context: x0..x31 (x0 reads as
// zero whatever X[0] holds, and Exec keeps it zero) and the pc, which holds
// the address of the instruction about to execute.
//
// The LR/SC reservation is not here: it belongs to the hart, and Exec
// reaches it through the Bus (isa.ExclusiveBus, isa.Monitor), where the
// machine that runs several harts clears it when another hart stores to
// the reserved bytes, on a context switch and on a trap return (package
// sched).
type Regs struct {
	X  [32]uint64
	PC uint64
}

// Exec executes inst, fetched from r.PC, against r and bus. On success PC
// holds the next address (r.PC+inst.Len unless control moved) and the Flow
// says how control left inst:
//
//   - jal or jalr with rd ≠ x0: FlowCall (the return address is in rd);
//   - jalr x0, imm(ra) and jalr x0, imm(t0) (ret, jr t0, c.jr ra, c.jr t0):
//     FlowReturn. x1 and x5 are the two link registers of the spec's
//     return-address-stack hints (§2.5.1, table 2.1: rd = x0 and rs1 a
//     link register pops the stack); the ftrace trampolines of the t0 eras
//     return into the traced function with jr t0 after the call site linked
//     t0 (kernel-facts §4.4), so the machine's shadow stack checks them;
//   - any other jalr x0 (jr a5: a tail call or a switch table), jal x0 (j),
//     and a taken branch: FlowBranch; an untaken branch: FlowSkipped;
//   - everything else: FlowNext.
//
// A jalr whose rd and rs1 are both link registers is, by the spec's table,
// a pop then a push (a coroutine swap); Exec reports it as FlowCall.
//
// ebreak returns an *isa.Fault wrapping isa.ErrBreakpoint and leaves r
// untouched. fence.i executes as a no-op here; Inst.IsFenceI tells the
// caller to synchronize the hart's instruction fetch. ecall, and anything
// else the executor does not run, is isa.ErrUnsupported. Loads, stores and
// atomics must be naturally aligned: a misaligned one is an isa.ErrMemory
// fault (Linux would trap and emulate a plain load or store; mcountsim
// reports it instead, since the emulated access is not single-copy atomic
// and compiled kernel code does not rely on it). Any other error leaves r
// in an unspecified state and is an *isa.Fault wrapping isa.ErrUnsupported,
// isa.ErrMemory or the Bus's error. Exec does not allocate unless it fails.
func Exec(inst *Inst, r *Regs, bus isa.Bus) (isa.Flow, error) { return inst.Exec(r, bus) }

// Exec executes inst as the package's Exec does.
func (inst *Resolved) Exec(r *Regs, bus isa.Bus) (isa.Flow, error) {
	one := [1]*Resolved{inst}
	_, s := Run(one[:], r.PC, r, bus, 1)
	return s.Flow, s.Err
}

func execError(inst *Resolved, pc uint64, err error) error {
	e := &isa.Fault{PC: pc, Bytes: inst.Bytes(), Unit: int(inst.Len), Err: err}
	if inst.decoded {
		d, _ := Decode(pc, inst.Bytes()) // the same decoding, with riscv64asm's view
		e.Disasm = Disasm(&d, pc, nil)
	}
	if inst.Len != 2 && inst.Len != 4 {
		e.Unit = 1
	}
	return e
}

var (
	errMisaligned = isa.Detail("misaligned load or store (mcountsim does not emulate misaligned accesses)", isa.ErrMemory)
	errEcall      = isa.Detail("ecall: no execution environment to call", isa.ErrUnsupported)
)

func sext32(v uint64) uint64 { return uint64(int64(int32(v))) }

func exec(inst *Resolved, r *Regs, bus isa.Bus, pc uint64) (isa.Flow, error) {
	x := &r.X
	next := pc + uint64(inst.Len)
	rd, a, b, imm := inst.Rd, x[inst.Rs1], x[inst.Rs2], inst.Imm
	var v uint64 // the value written to rd
	switch inst.x {
	case xLUI:
		v = uint64(imm)
	case xAUIPC:
		v = pc + uint64(imm)
	case xJAL:
		x[rd] = next
		r.PC = pc + uint64(imm)
		if rd == 0 {
			return isa.FlowBranch, nil
		}
		return isa.FlowCall, nil
	case xJALR:
		t := (a + uint64(imm)) &^ 1
		x[rd] = next
		r.PC = t
		switch {
		case rd != 0:
			return isa.FlowCall, nil
		case inst.Rs1 == RA || inst.Rs1 == T0:
			return isa.FlowReturn, nil
		}
		return isa.FlowBranch, nil
	case xBEQ, xBNE, xBLT, xBGE, xBLTU, xBGEU:
		var taken bool
		switch inst.x {
		case xBEQ:
			taken = a == b
		case xBNE:
			taken = a != b
		case xBLT:
			taken = int64(a) < int64(b)
		case xBGE:
			taken = int64(a) >= int64(b)
		case xBLTU:
			taken = a < b
		default:
			taken = a >= b
		}
		if taken {
			r.PC = pc + uint64(imm)
			return isa.FlowBranch, nil
		}
		r.PC = next
		return isa.FlowSkipped, nil
	case xLB, xLH, xLW, xLD, xLBU, xLHU, xLWU:
		size := loadSize[inst.x-xLB]
		addr := a + uint64(imm)
		if addr&uint64(size-1) != 0 {
			return isa.FlowNext, errMisaligned
		}
		m, err := bus.Load(addr, size, rd)
		if err != nil {
			return isa.FlowNext, err
		}
		switch inst.x {
		case xLB:
			m = uint64(int64(int8(m)))
		case xLH:
			m = uint64(int64(int16(m)))
		case xLW:
			m = sext32(m)
		}
		v = m
	case xSB, xSH, xSW, xSD:
		size := 1 << (inst.x - xSB)
		addr := a + uint64(imm)
		if addr&uint64(size-1) != 0 {
			return isa.FlowNext, errMisaligned
		}
		if size < 8 {
			b &= 1<<(8*size) - 1
		}
		if err := bus.Store(addr, size, b, inst.Rs2); err != nil {
			return isa.FlowNext, err
		}
		r.PC = next
		return isa.FlowNext, nil
	case xADDI:
		v = a + uint64(imm)
	case xSLTI:
		v = b2u(int64(a) < imm)
	case xSLTIU:
		v = b2u(a < uint64(imm))
	case xXORI:
		v = a ^ uint64(imm)
	case xORI:
		v = a | uint64(imm)
	case xANDI:
		v = a & uint64(imm)
	case xSLLI:
		v = a << (imm & 63)
	case xSRLI:
		v = a >> (imm & 63)
	case xSRAI:
		v = uint64(int64(a) >> (imm & 63))
	case xADD:
		v = a + b
	case xSUB:
		v = a - b
	case xSLL:
		v = a << (b & 63)
	case xSLT:
		v = b2u(int64(a) < int64(b))
	case xSLTU:
		v = b2u(a < b)
	case xXOR:
		v = a ^ b
	case xSRL:
		v = a >> (b & 63)
	case xSRA:
		v = uint64(int64(a) >> (b & 63))
	case xOR:
		v = a | b
	case xAND:
		v = a & b
	case xADDIW:
		v = sext32(a + uint64(imm))
	case xSLLIW:
		v = sext32(uint64(uint32(a) << (imm & 31)))
	case xSRLIW:
		v = sext32(uint64(uint32(a) >> (imm & 31)))
	case xSRAIW:
		v = uint64(int64(int32(a) >> (imm & 31)))
	case xADDW:
		v = sext32(a + b)
	case xSUBW:
		v = sext32(a - b)
	case xSLLW:
		v = sext32(uint64(uint32(a) << (b & 31)))
	case xSRLW:
		v = sext32(uint64(uint32(a) >> (b & 31)))
	case xSRAW:
		v = uint64(int64(int32(a) >> (b & 31)))
	case xMUL:
		v = a * b
	case xMULH, xMULHSU, xMULHU:
		hi, _ := bits.Mul64(a, b)
		// The signed high half from the unsigned one (§7.1).
		if inst.x != xMULHU && int64(a) < 0 {
			hi -= b
		}
		if inst.x == xMULH && int64(b) < 0 {
			hi -= a
		}
		v = hi
	case xMULW:
		v = sext32(a * b)
	case xDIV, xREM:
		v = divrem(int64(a), int64(b), inst.x == xREM, math.MinInt64)
	case xDIVU:
		v = math.MaxUint64
		if b != 0 {
			v = a / b
		}
	case xREMU:
		v = a
		if b != 0 {
			v = a % b
		}
	case xDIVW, xREMW:
		v = sext32(divrem(int64(int32(a)), int64(int32(b)), inst.x == xREMW, math.MinInt32))
	case xDIVUW:
		v = math.MaxUint64
		if uint32(b) != 0 {
			v = sext32(uint64(uint32(a) / uint32(b)))
		}
	case xREMUW:
		v = sext32(a)
		if uint32(b) != 0 {
			v = sext32(uint64(uint32(a) % uint32(b)))
		}
	case xLRW, xLRD:
		size := 4 << (inst.x - xLRW)
		if a&uint64(size-1) != 0 {
			return isa.FlowNext, errMisaligned
		}
		mon, err := isa.MonitorOf(bus)
		if err != nil {
			return isa.FlowNext, err
		}
		m, err := bus.Load(a, size, rd)
		if err != nil {
			return isa.FlowNext, err
		}
		if size == 4 {
			m = sext32(m)
		}
		mon.Mark(a, size)
		v = m
	case xSCW, xSCD:
		size := 4 << (inst.x - xSCW)
		if a&uint64(size-1) != 0 {
			return isa.FlowNext, errMisaligned
		}
		mon, err := isa.MonitorOf(bus)
		if err != nil {
			return isa.FlowNext, err
		}
		v = 1
		if mon.Check(a, size) {
			if size == 4 {
				b = uint64(uint32(b))
			}
			if err := bus.Store(a, size, b, inst.Rs2); err != nil {
				return isa.FlowNext, err
			}
			v = 0
		}
	case xAMOSWAPW, xAMOADDW, xAMOXORW, xAMOANDW, xAMOORW, xAMOMINW, xAMOMAXW, xAMOMINUW, xAMOMAXUW:
		m, err := amo(bus, inst.x-xAMOSWAPW, 4, a, b, rd, inst.Rs2)
		if err != nil {
			return isa.FlowNext, err
		}
		v = sext32(m)
	case xAMOSWAPD, xAMOADDD, xAMOXORD, xAMOANDD, xAMOORD, xAMOMIND, xAMOMAXD, xAMOMINUD, xAMOMAXUD:
		m, err := amo(bus, inst.x-xAMOSWAPD, 8, a, b, rd, inst.Rs2)
		if err != nil {
			return isa.FlowNext, err
		}
		v = m
	case xFence, xFenceI:
		// One hart's memory accesses are already in program order; the
		// fetch synchronization of fence.i is the caller's (IsFenceI).
		r.PC = next
		return isa.FlowNext, nil
	case xEcall:
		return isa.FlowNext, errEcall
	case xEbreak:
		return isa.FlowNext, isa.ErrBreakpoint
	default:
		return isa.FlowNext, isa.ErrUnsupported
	}
	x[rd] = v
	r.PC = next
	return isa.FlowNext, nil
}

var loadSize = [...]int{xLB - xLB: 1, xLH - xLB: 2, xLW - xLB: 4, xLD - xLB: 8, xLBU - xLB: 1, xLHU - xLB: 2, xLWU - xLB: 4}

func b2u(c bool) uint64 {
	if c {
		return 1
	}
	return 0
}

// divrem is DIV/REM with the spec's results for division by zero (quotient
// all ones, remainder the dividend) and overflow (quotient the dividend,
// remainder 0) (§7.2, table 7.1).
func divrem(a, b int64, rem bool, minInt int64) uint64 {
	switch {
	case b == 0 && rem:
		return uint64(a)
	case b == 0:
		return math.MaxUint64
	case a == minInt && b == -1 && rem:
		return 0
	case a == minInt && b == -1:
		return uint64(a)
	case rem:
		return uint64(a % b)
	}
	return uint64(a / b)
}

// amo runs one AMO (§8.4) of size bytes at addr: load, combine with the
// rs2 value b, store; it returns the loaded value (zero-extended). The
// store names rs2 as its source only for amoswap, whose stored value is
// the register's.
func amo(bus isa.Bus, k xop, size int, addr, b uint64, rd, rs2 uint8) (uint64, error) {
	if addr&uint64(size-1) != 0 {
		return 0, errMisaligned
	}
	m, err := bus.Load(addr, size, rd)
	if err != nil {
		return 0, err
	}
	mask := uint64(math.MaxUint64)
	if size == 4 {
		mask = math.MaxUint32
	}
	sa, sb := int64(m), int64(b) // signed views, sign-extended for .w
	if size == 4 {
		sa, sb = int64(int32(m)), int64(int32(b))
	}
	ua, ub := m&mask, b&mask
	var n uint64
	reg := isa.NoReg
	switch k {
	case 0: // swap
		n, reg = b, rs2
	case 1:
		n = m + b
	case 2:
		n = m ^ b
	case 3:
		n = m & b
	case 4:
		n = m | b
	case 5:
		n = uint64(min(sa, sb))
	case 6:
		n = uint64(max(sa, sb))
	case 7:
		n = min(ua, ub)
	default:
		n = max(ua, ub)
	}
	if err := bus.Store(addr, size, n&mask, reg); err != nil {
		return 0, err
	}
	return m & mask, nil
}

// MemAddr returns the data access inst would make with registers r,
// without executing it: the address, the number of bytes, and whether it
// stores; ok is false for an instruction other than a load or store, LR
// or SC (the AMOs are left visible). The partial-order reduction
// of package sched asks it whether an access reaches only the task's own
// stack.
func MemAddr(inst *Inst, r *Regs) (addr uint64, size int, store, ok bool) {
	if inst.err != nil {
		return 0, 0, false, false
	}
	switch inst.x {
	case xLB, xLH, xLW, xLD, xLBU, xLHU, xLWU:
		return r.X[inst.Rs1] + uint64(inst.Imm), loadSize[inst.x-xLB], false, true
	case xSB, xSH, xSW, xSD:
		return r.X[inst.Rs1] + uint64(inst.Imm), 1 << (inst.x - xSB), true, true
	case xLRW, xLRD:
		return r.X[inst.Rs1], 4 << (inst.x - xLRW), false, true
	case xSCW, xSCD:
		return r.X[inst.Rs1], 4 << (inst.x - xSCW), true, true
	}
	return 0, 0, false, false
}
