package sched

import (
	"errors"
	"fmt"
	"github.com/mcountsim/mcountsim/isa"
	"strings"

	"github.com/mcountsim/mcountsim/detect"
	"github.com/mcountsim/mcountsim/isa/x86"
	"github.com/mcountsim/mcountsim/kernel"
	"golang.org/x/arch/x86/x86asm"
)

// x86bus is the x86.Bus of the task executing now. It lives inside the
// Machine (so passing it costs no allocation) and points back to it.
type x86bus struct{ m *Machine }

func (b *x86bus) Load(addr uint64, size int, reg uint8) (uint64, error) {
	return b.m.loadMem(addr, size, reg, size == 8 && reg == isa.PCReg)
}

func (b *x86bus) Store(addr uint64, size int, v uint64, reg uint8) error {
	return b.m.storeMem(addr, size, v, reg)
}

// storeStack writes size bytes of v at stack address a, tagging every word
// it touches with reg, and keeps the incremental stack hash.
func (m *Machine) storeStack(a uint64, size int, v uint64, reg uint8) {
	off := a - StackBase
	first, last := int(off/4), int((off+uint64(size)-1)/4)
	for w := first; w <= last; w++ {
		old := slotHash(w, le32(m.stack[w*4:]), m.slots[w])
		m.stackSum[0] -= old[0]
		m.stackSum[1] -= old[1]
	}
	for i := 0; i < size; i++ {
		m.stack[off+uint64(i)] = byte(v >> (8 * i))
	}
	for w := first; w <= last; w++ {
		m.slots[w] = reg
		nw := slotHash(w, le32(m.stack[w*4:]), reg)
		m.stackSum[0] += nw[0]
		m.stackSum[1] += nw[1]
	}
}

func le32(b []byte) uint32 {
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
}

// fetchX86 decodes the instruction at pc of the text (through the cache).
func (m *Machine) fetchX86(pc uint64) (*x86.Inst, error) {
	off := pc - m.img.Base
	end := off + x86.MaxLen
	if end > uint64(len(m.text)) {
		end = uint64(len(m.text))
	}
	return m.st.xdec.Lookup(pc, m.text[off:end])
}

func (m *Machine) localX86(t int8) bool {
	pc := m.tasks[t].X86.RIP
	off := pc - m.img.Base
	if pc < m.img.Base || off >= uint64(len(m.text)) {
		return true // a fault: it ends the run whatever the others do
	}
	cls := &m.st.class[off]
	if *cls != classUnknown {
		return *cls == classLocal
	}
	*cls = classLocal
	switch h := m.st.hook[off]; {
	case h == kernel.HookSchedule || h == kernel.HookExit:
		*cls = classVisible
	case h == kernel.HookNone:
		inst, err := m.fetchX86(pc)
		switch {
		case err != nil:
			// Undecodable now; a store may still make it decodable.
			if m.mutable(off, x86.MaxLen) {
				*cls = classVisible
			}
		case m.mutable(off, int(inst.Len)) || !x86.StackOrLiteral(inst):
			*cls = classVisible
		case len(m.st.dataAt) > 0 && x86.RIPRelative(inst):
			// rip-relative operands may reach shared data.
			*cls = classVisible
		}
	}
	return *cls == classLocal
}

// x86Step executes one instruction of task t on CPU c.
func (m *Machine) x86Step(c int8, t int8) {
	task := &m.tasks[t]
	r := &task.X86
	pc := r.RIP
	off := pc - m.img.Base
	if pc < m.img.Base || off >= uint64(len(m.text)) {
		m.closePass(c, t)
		m.fault(c, t, pc, fmt.Sprintf("pc %#x is outside text", pc))
		return
	}
	// The fast path, as on ARM: an instruction whose bytes no store may
	// write, with no hook and outside every site, was decoded once.
	if inst := m.st.xplain[off]; inst != nil && !task.Pass.Open && !m.cfg.Record {
		sp := r.R[x86.RSP]
		m.cur = t
		m.loadedInto = 0
		flow, err := x86.Exec(inst, r, &m.xb)
		if err != nil {
			if errors.Is(err, isa.ErrBreakpoint) {
				m.int3(c, t, pc)
				return
			}
			m.fault(c, t, pc, err.Error())
			return
		}
		if flow >= isa.FlowCall || m.loadedInto != 0 {
			m.control(c, t, pc, uint8(flow), r.RIP, pc+uint64(inst.Len), sp, r.R[x86.RSP])
		}
		return
	}
	if h := m.st.hook[off]; h != kernel.HookNone {
		m.closePass(c, t)
		m.hook(c, t, h)
		return
	}
	inst, err := m.fetchX86(pc)
	if err != nil {
		m.closePass(c, t)
		m.fault(c, t, pc, err.Error())
		return
	}
	n := uint64(inst.Len)
	if site := m.st.siteOf[off]; site >= 0 {
		m.sitePass(c, t, int(site), pc, int(n))
	} else if task.Pass.Open {
		m.closePass(c, t)
	}
	if m.mutable(off, int(n)) {
		m.checkTorn(c, t, pc, inst)
	} else if m.st.siteOf[off] < 0 {
		m.st.xplain[off] = inst
	}
	if m.cfg.Record {
		m.event(Event{Kind: EvExec, CPU: int(c), Task: int(t), PC: pc, Bytes: append([]byte(nil), inst.Bytes()...),
			Text: x86.Disasm(inst, pc, m.img.Name), Write: int(m.prov[off])})
	}
	sp := r.R[x86.RSP]
	m.cur = t
	m.loadedInto = 0
	flow, err := x86.Exec(inst, r, &m.xb)
	if errors.Is(err, isa.ErrBreakpoint) {
		m.int3(c, t, pc)
		return
	}
	if err != nil {
		m.fault(c, t, pc, err.Error())
		return
	}
	m.control(c, t, pc, uint8(flow), r.RIP, pc+n, sp, r.R[x86.RSP])
}

// control feeds a call or return to the shadow stack and reports what it
// sees, and reports a control register loaded from a foreign slot. target
// is the new pc, link the return address a call linked, spBefore the stack
// pointer before the instruction, spAfter after it.
func (m *Machine) control(c int8, t int8, pc uint64, flow uint8, target, link, spBefore, spAfter uint64) {
	task := &m.tasks[t]
	switch flow {
	case flowCall:
		task.Shadow.Call(link, spBefore, target, m.st.callee[target])
	case flowReturn:
		k, f := task.Shadow.Return(target, spAfter)
		switch k {
		case detect.BadReturn:
			want := "no call is pending"
			if f.Ret != 0 || f.Callee != 0 {
				want = fmt.Sprintf("its call to %s expected %#x <%s>", nameOr(m.img.Name(f.Callee), fmt.Sprintf("%#x", f.Callee)), f.Ret, m.img.Name(f.Ret))
			}
			detail := fmt.Sprintf("return to %#x <%s>; %s", target, nameOr(m.img.Name(target), "outside text"), want)
			if m.loadedInto != 0 {
				detail += fmt.Sprintf("; the return address was loaded from stack slot %#x, %s", m.loadedFrom, m.slotSource(m.loadedLink))
			}
			m.hazard(detect.BadReturn, int(c), int(t), pc, detail)
			m.loadedInto = 0
		case detect.StackImbalance:
			m.hazard(detect.StackImbalance, int(c), int(t), pc, fmt.Sprintf("%s returned with sp %#x, expected %#x (sp at the call %#x, callee pops %d)",
				nameOr(m.img.Name(f.Callee), fmt.Sprintf("%#x", f.Callee)), spAfter, f.SP+uint64(f.Pop), f.SP, f.Pop))
		}
	}
	// On x86 only ret loads the instruction pointer back from a saved link;
	// an indirect call or jump through memory loads a function pointer.
	if m.loadedInto != 0 && !m.isLink(m.loadedLink) && (m.img.Arch != kernel.X86 || flow == flowReturn) {
		m.hazard(detect.ForeignSlot, int(c), int(t), pc, fmt.Sprintf("%s loaded from stack slot %#x, %s, not a saved link value",
			m.regName(m.loadedInto), m.loadedFrom, m.slotSource(m.loadedLink)))
	}
}

// The flows control() understands (the ISA packages use the same order).
const (
	flowCall   = 3
	flowReturn = 4
)

// checkTorn reports an instruction whose bytes came from writes of
// different transitions: a mix of old and new that no transition wrote.
func (m *Machine) checkTorn(c int8, t int8, pc uint64, inst *x86.Inst) {
	off := pc - m.img.Base
	n := uint64(inst.Len)
	first := m.transitionOf(m.prov[off])
	torn := false
	for i := uint64(1); i < n; i++ {
		if m.transitionOf(m.prov[off+i]) != first {
			torn = true
			break
		}
	}
	if !torn {
		return
	}
	var parts []string
	for i := uint64(0); i < n; i++ {
		id := m.prov[off+i]
		parts = append(parts, fmt.Sprintf("%02x:%s", m.text[off+i], m.writeName(id)))
	}
	m.hazard(detect.TornFetch, int(c), int(t), pc, fmt.Sprintf("fetched %s (%s) assembled from different writes: %s",
		hexBytes(kernel.X86, inst.Bytes()), x86.Disasm(inst, pc, m.img.Name), strings.Join(parts, " ")))
}

// writeName names the write that produced a byte, for hazard details.
func (m *Machine) writeName(id uint16) string {
	switch tr := m.transitionOf(id); {
	case id == 0:
		return "compiled"
	case tr == 0:
		return fmt.Sprintf("write#%d(boot)", id)
	default:
		return fmt.Sprintf("write#%d(transition %d)", id, tr)
	}
}

// int3 is the breakpoint exception of text_poke_bp: the CPU pushes the
// interrupted context and enters the handler, which looks the address up in
// the published table and emulates the *new* instruction of that site (a
// call pushes site+len and jumps to its target; a nop continues after it).
// The handler runs as one step; the interrupted context lives in the task
// (its registers) and is restored by setting the emulated result.
func (m *Machine) int3(c int8, t int8, pc uint64) {
	m.closePass(c, t)
	r := &m.tasks[t].X86
	if m.cfg.NoInt3Emulation && m.bpOn {
		// Test knob: a handler that only resumes after the int3 byte.
		m.event(Event{Kind: EvInt3, CPU: int(c), Task: int(t), PC: pc, Text: "int3: handler does not emulate, resumes at the next byte"})
		r.RIP = pc + 1
		return
	}
	if !m.bpOn {
		m.fault(c, t, pc, "int3 trap with no text_poke_bp handler active")
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
	inst, err := x86.Decode(pc, store.Bytes)
	if err != nil {
		m.fault(c, t, pc, fmt.Sprintf("int3 handler cannot decode the new instruction: %v", err))
		return
	}
	next := pc + uint64(inst.Len)
	desc := x86.Disasm(&inst, pc, m.img.Name)
	if target, ok := inst.Target(pc); ok && inst.Op == x86asm.CALL {
		sp := r.R[x86.RSP]
		m.cur = t
		if err := m.xb.Store(sp-8, 8, next, isa.RetAddr); err != nil {
			m.fault(c, t, pc, err.Error())
			return
		}
		r.R[x86.RSP] = sp - 8
		r.RIP = target
		m.tasks[t].Shadow.Call(next, sp, target, m.st.callee[target])
		m.event(Event{Kind: EvInt3, CPU: int(c), Task: int(t), PC: pc, Text: "int3: handler emulates the new " + desc + " (push the return address, jump)"})
		return
	}
	if inst.Op == x86asm.NOP {
		r.RIP = next
		m.event(Event{Kind: EvInt3, CPU: int(c), Task: int(t), PC: pc, Text: "int3: handler emulates the new " + desc + " (skip it)"})
		return
	}
	m.fault(c, t, pc, "int3 handler cannot emulate "+desc)
}
