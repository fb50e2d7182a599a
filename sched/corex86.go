package sched

import (
	"fmt"

	"github.com/mcountsim/mcountsim/isa"
	"github.com/mcountsim/mcountsim/isa/x86"
	"github.com/mcountsim/mcountsim/kernel"
	"golang.org/x/arch/x86/x86asm"
)

// x86Shape: x86 instructions are byte-aligned and up to 15 bytes long; only
// an 8-byte load straight into rip (ret) restores a return address; a hook
// is a one-byte nop.
var x86Shape = isaShape{align: 1, maxLen: x86.MaxLen, breakpoint: x86.Int3(), linkSize: 8, linkRegs: [2]uint8{isa.PCReg, isa.PCReg}, hookLen: 1,
	excSync: true, stopperInSync: true, bytewiseText: true}

// x86Core is the x86-64 core.
type x86Core struct {
	// The plain decodings are x86.Resolved, without x86asm's view.
	coreBase[*x86.Cache, x86.Resolved, x86.Regs]

	cur *x86.Inst
	// trapped holds the int3 handler's decodings of the new bytes of the
	// program's stores, by store (shared by clones, as st is: the
	// program is theirs too).
	trapped map[*Store]*trapDecoding
}

// trapDecoding is a decoding of a store's new bytes for the int3 handler.
type trapDecoding struct {
	inst x86.Inst
	err  error
}

func newX86Core(img *kernel.Image) *x86Core {
	return &x86Core{coreBase: newCoreBase(x86.NewCache(img.Base, len(img.Text)), img, x86Shape.align, x86.Run, x86Regs),
		trapped: map[*Store]*trapDecoding{}}
}

func (k *x86Core) reset(t int8, entry, sp uint64) {
	k.room(t)
	k.regs[t] = x86.Regs{}
	k.regs[t].RIP = entry
	k.regs[t].R[x86.RSP] = sp
	k.regs[t].GSBase = k.st.current
}

func (k *x86Core) pc(t int8) uint64        { return k.regs[t].RIP }
func (k *x86Core) setPC(t int8, pc uint64) { k.regs[t].RIP = pc }

func (k *x86Core) arg(t int8, i int) uint64 {
	if i == 0 {
		return k.regs[t].R[x86.RDI]
	}
	return k.regs[t].R[x86.RSI]
}

func (k *x86Core) reg(t int8, r int) uint64        { return k.regs[t].R[r] }
func (k *x86Core) ret(t int8) uint64               { return k.regs[t].R[x86.RAX] }
func (k *x86Core) clearDead(t int8, atReturn bool) { k.regs[t].ClearDead(atReturn) }

func (k *x86Core) hashTask(h hasher, t int8, rb rebase) (hasher, rebase) {
	r := &k.regs[t]
	for _, v := range r.R {
		h.u64(rb.v(v))
	}
	h.u64(rb.v(r.RIP))
	h.u64(r.Flags())
	return h, rb
}

func (k *x86Core) copyInto(dst core) core { return copyCore[x86Core, x86.Regs](k, dst) }

func (k *x86Core) decode(pc uint64, b []byte) (int, error) {
	inst, err := k.st.dec.Lookup(pc, b)
	k.cur = inst
	if err != nil {
		return 0, err
	}
	return int(inst.Len), nil
}

// syncs: the serializing instructions of SDM Vol. 3 §9.3 that kernel text
// executes (cpuid, iretq, and the forms Exec does not run, which fault
// before they could matter).
func (k *x86Core) syncs() bool {
	return k.cur != nil && (k.cur.Op == x86asm.CPUID || k.cur.Op == x86asm.IRETQ || k.cur.Op == x86asm.IRET)
}

func (k *x86Core) cmodxOK(old, new []byte) bool { return true }

func (k *x86Core) exec(m *Machine, t int8) (effect, error) {
	r := &k.regs[t]
	pc, sp := r.RIP, r.R[x86.RSP]
	flow, err := x86.Exec(k.cur, r, m)
	return effect{pc: pc, flow: flow, target: r.RIP, link: pc + uint64(k.cur.Len), spBefore: sp, spAfter: r.R[x86.RSP]}, err
}

// x86Regs: the instruction's end is where a call returns to (pushed on the
// stack, so never in a register).
func x86Regs(r *x86.Regs, s isa.Stop) (pc, next, sp uint64) {
	return r.RIP, s.PC + uint64(s.Len), r.R[x86.RSP]
}

func (k *x86Core) disasm(m *Machine, pc uint64) string { return x86.Disasm(k.cur, pc, m.img.Name) }

// exclusive: x86 has no exclusive monitor (its atomics are locked
// read-modify-writes).
func (k *x86Core) exclusive() bool { return false }

func (k *x86Core) localInst(data bool) bool {
	// rip-relative operands may reach shared data.
	return x86.StackOrLiteral(k.cur) && !(data && x86.RIPRelative(k.cur))
}

func (k *x86Core) markPlain(off uint64) { k.st.tab.mark(off, &k.cur.Resolved) }

// trap is the int3 handler of text_poke_bp, the step after the CPU took
// the exception (Machine.enterTrap): it looks the address up in the
// published table and emulates the *new* instruction of that site (a call
// pushes site+len and jumps to its target; a nop continues after it). The
// interrupted context lives in the task (its registers) and is restored by
// setting the emulated result.
func (k *x86Core) trap(m *Machine, c, t int8, pc uint64) {
	r := &k.regs[t]
	if m.cfg.NoInt3Emulation && m.bpOn {
		// Test knob: a handler that only resumes after the int3 byte.
		m.event(Event{Kind: EvInt3, CPU: int(c), Task: int(t), PC: pc, Text: "int3: handler does not emulate, resumes at the next byte"})
		r.RIP = pc + 1
		return
	}
	if !m.bpOn {
		m.fault(c, t, pc, "int3 with no handler table (no text_poke_bp in progress: the CPU fetched an int3 that is no longer, or was never, published)")
		return
	}
	var store *Store
	for i := range m.prog.Ops[m.bpOp].Stores {
		if s := &m.prog.Ops[m.bpOp].Stores[i]; s.Addr == pc {
			store = s
		}
	}
	if store == nil {
		m.fault(c, t, pc, "int3 trap at an address the text_poke_bp table does not hold")
		return
	}
	d := k.trapped[store]
	if d == nil {
		d = &trapDecoding{}
		d.inst, d.err = x86.Decode(pc, store.Bytes)
		k.trapped[store] = d
	}
	inst, err := &d.inst, d.err
	if err != nil {
		m.fault(c, t, pc, fmt.Sprintf("int3 handler cannot decode the new instruction: %v", err))
		return
	}
	next := pc + uint64(inst.Len)
	desc := func() string { return x86.Disasm(inst, pc, m.img.Name) }
	if target, ok := inst.Target(pc); ok && inst.Op == x86asm.CALL {
		sp := r.R[x86.RSP]
		m.cur = t
		if err := m.Store(sp-8, 8, next, isa.RetAddr); err != nil {
			m.fault(c, t, pc, err.Error())
			return
		}
		r.R[x86.RSP] = sp - 8
		r.RIP = target
		m.tasks[t].Shadow.Call(next, sp, target, m.st.callee[target])
		if m.cfg.Record {
			m.event(Event{Kind: EvInt3, CPU: int(c), Task: int(t), PC: pc, Text: "int3: handler emulates the new " + desc() + " (push the return address, jump)"})
		}
		return
	}
	if inst.Op == x86asm.NOP {
		r.RIP = next
		if m.cfg.Record {
			m.event(Event{Kind: EvInt3, CPU: int(c), Task: int(t), PC: pc, Text: "int3: handler emulates the new " + desc() + " (skip it)"})
		}
		return
	}
	m.fault(c, t, pc, "int3 handler cannot emulate "+desc())
}

// On x86 only ret loads the instruction pointer back from a saved link; an
// indirect call or jump through memory loads a function pointer.
func (k *x86Core) foreignLoad(flow isa.Flow) bool { return flow == isa.FlowReturn }
func (k *x86Core) isLink(src uint8) bool          { return src == isa.RetAddr }
func (k *x86Core) scratchLink(reg uint8) bool     { return false }

func (k *x86Core) memAddr(m *Machine, t int8, pc uint64) (uint64, int, bool, bool) {
	off, ok := m.textOff(pc)
	if !ok {
		return 0, 0, false, false
	}
	inst, err := k.st.dec.Lookup(pc, m.text[off:min(off+x86.MaxLen, uint64(len(m.text)))])
	if err != nil {
		return 0, 0, false, false
	}
	r := k.regs[t]
	r.RIP = pc
	return x86.MemAddr(inst, &r)
}

// branchLoad is memAddr for a call or jump through memory, which loads
// its 8-byte target there (envVariants).
func (k *x86Core) branchLoad(m *Machine, t int8, pc uint64) (uint64, bool) {
	off, ok := m.textOff(pc)
	if !ok {
		return 0, false
	}
	inst, err := k.st.dec.Lookup(pc, m.text[off:min(off+x86.MaxLen, uint64(len(m.text)))])
	if err != nil {
		return 0, false
	}
	r := k.regs[t]
	r.RIP = pc
	return x86.BranchMemAddr(inst, &r)
}

// compares reports whether the instruction at pc only reads its memory
// operand although memAddr reports it as a store (a memory destination):
// CMP, TEST and BT (envVariants).
func (k *x86Core) compares(m *Machine, pc uint64) bool {
	off, ok := m.textOff(pc)
	if !ok {
		return false
	}
	inst, err := k.st.dec.Lookup(pc, m.text[off:min(off+x86.MaxLen, uint64(len(m.text)))])
	if err != nil {
		return false
	}
	switch inst.Op {
	case x86asm.CMP, x86asm.TEST, x86asm.BT:
		return true
	}
	return false
}

func (k *x86Core) slotWriter(src uint8) string {
	if src == isa.RetAddr {
		return "written by a call (a return address)"
	}
	return ""
}

func (k *x86Core) regName(r uint8) string {
	switch r {
	case isa.PCReg:
		return "the return address (rip)"
	case isa.RetAddr:
		return "a call's return address"
	}
	if r < 16 {
		return "%" + x86.Reg(r).String()
	}
	return fmt.Sprintf("reg%d", r)
}

func (k *x86Core) hex(b []byte) string { return isa.Hex(b, 1) }

func (k *x86Core) describe(addr uint64, b []byte) string {
	h := k.hex(b)
	if inst, err := x86.Decode(addr, b); err == nil && int(inst.Len) == len(b) {
		return fmt.Sprintf("%s (%s)", h, x86.Disasm(&inst, addr, nil))
	}
	return h
}
