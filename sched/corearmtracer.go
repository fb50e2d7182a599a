package sched

import (
	"github.com/mcountsim/mcountsim/isa/arm"
	"github.com/mcountsim/mcountsim/kernel"
)

// tracerCore is what the tracer kernel (tracer.go, irq.go; laid out for
// ARM only, see kernel.Build) needs of a core beyond core: the interrupt
// frame, and the single loads and stores tiLocal reasons about. The ARM
// core implements it below, so that the rest of the package names no
// architecture.
type tracerCore interface {
	// irqEnter saves task t's registers below its stack pointer
	// (svc_entry), the pad word last, and enters entry with arg as the
	// first argument; it returns the pc t was at, or faults t when the
	// frame does not fit above thread_info.
	irqEnter(m *Machine, c, t int8, entry uint64, pad, arg uint32) (pc uint64, ok bool)
	// irqExit restores the registers of the frame at task t's stack
	// pointer (svc_exit) and returns its pad word.
	irqExit(m *Machine, t int8) (pad uint32)
	// sp returns task t's stack pointer.
	sp(t int8) uint64
	// oneAccess reports whether the instruction at pc is a single load or
	// store.
	oneAccess(m *Machine, pc uint64) bool
	// access returns the address and size of the single load or store at
	// pc for task t now, and for a store the value it writes.
	access(m *Machine, t int8, pc uint64) (addr uint64, n int, v uint32, store, ok bool)
}

func (k *armCore) irqEnter(m *Machine, c, t int8, entry uint64, pad, arg uint32) (uint64, bool) {
	r := &k.regs[t]
	sp := r.R[arm.SP] - irqFrameWords*4
	lo, _ := m.stackRange(t)
	if uint64(sp) < lo+kernel.TISize {
		m.fault(c, t, uint64(r.R[arm.PC]), "stack overflow: no room for the interrupt frame above thread_info")
		return 0, false
	}
	for i := 0; i < 16; i++ {
		m.storeStack(uint64(sp)+uint64(4*i), 4, uint64(r.R[i]), uint8(i))
	}
	m.storeStack(uint64(sp)+64, 4, uint64(b2u(r.N)<<31|b2u(r.Z)<<30|b2u(r.C)<<29|b2u(r.V)<<28), 0xfe)
	m.storeStack(uint64(sp)+68, 4, uint64(pad), 0xfe)
	pc := uint64(r.R[arm.PC])
	r.R[arm.SP] = sp
	r.R[arm.R0] = arg
	r.R[arm.PC] = uint32(entry)
	return pc, true
}

func (k *armCore) irqExit(m *Machine, t int8) uint32 {
	r := &k.regs[t]
	sp := uint64(r.R[arm.SP])
	for i := 0; i < 16; i++ {
		r.R[i] = le32(m.stack[sp-StackBase+uint64(4*i):])
	}
	f := le32(m.stack[sp-StackBase+64:])
	r.N, r.Z, r.C, r.V = f&(1<<31) != 0, f&(1<<30) != 0, f&(1<<29) != 0, f&(1<<28) != 0
	return le32(m.stack[sp-StackBase+68:])
}

func (k *armCore) sp(t int8) uint64 { return uint64(k.regs[t].R[arm.SP]) }

func (k *armCore) oneAccess(m *Machine, pc uint64) bool {
	off, in := m.textOff(pc)
	if !in {
		return false
	}
	inst, err := k.st.dec.Lookup(uint32(pc), le32(m.text[off:]))
	if err != nil {
		return false
	}
	var r arm.Regs
	if _, _, ok := arm.LoadAddr(inst, &r); ok {
		return true
	}
	_, _, _, ok := arm.StoreAddr(inst, &r)
	return ok
}

func (k *armCore) access(m *Machine, t int8, pc uint64) (uint64, int, uint32, bool, bool) {
	off, in := m.textOff(pc)
	if !in {
		return 0, 0, 0, false, false
	}
	inst, err := k.st.dec.Lookup(uint32(pc), le32(m.text[off:]))
	if err != nil {
		return 0, 0, 0, false, false
	}
	r := &k.regs[t]
	if x, n, ok := arm.LoadAddr(inst, r); ok {
		return uint64(x), n, 0, false, true
	}
	if x, n, v, ok := arm.StoreAddr(inst, r); ok {
		return uint64(x), n, v, true, true
	}
	return 0, 0, 0, false, false
}
