package sched

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strings"

	"github.com/mcountsim/mcountsim/detect"
	"github.com/mcountsim/mcountsim/isa"
	"github.com/mcountsim/mcountsim/kernel"
)

// The worker step, written once for every core: fetch, hooks, site
// passes, the torn-fetch check, execution, and the detectors of calls,
// returns and control registers loaded from the stack.

// Load implements isa.Bus for the task executing now. A whole word (or
// doubleword) of its own stack, the loads of compiled code, is read here;
// every other load goes through loadMem.
func (m *Machine) Load(addr uint64, size int, reg uint8) (uint64, error) {
	m.loads++
	link := size == m.shape.linkSize && (reg == m.shape.linkRegs[0] || reg == m.shape.linkRegs[1])
	if off := addr - m.stackLo(int(m.cur)); off < m.st.stackSize && off+uint64(size) <= m.st.stackSize && addr&3 == 0 && (size == 4 || size == 8) {
		a := addr - StackBase
		if link {
			m.loadedLink = m.slots[a/4]
			m.loadedFrom = addr
			m.loadedInto = reg
		}
		if size == 4 {
			return uint64(binary.LittleEndian.Uint32(m.stack[a : a+4])), nil
		}
		return binary.LittleEndian.Uint64(m.stack[a : a+8]), nil
	}
	return m.loadMem(addr, size, reg, link)
}

// Store implements isa.Bus for the task executing now; a store to its own
// stack, outside the tracer kernel, is written here (a whole word or
// doubleword that leaves the stack as it was, the commonest store of
// compiled code, without a call).
func (m *Machine) Store(addr uint64, size int, v uint64, reg uint8) error {
	m.stores++
	t := int(m.cur)
	if off := addr - m.stackLo(t); off < m.st.stackSize && off+uint64(size) <= m.st.stackSize && !m.tr.on {
		if m.tasks[t].link.on {
			reg = m.stackSource(reg)
		}
		if a := addr - StackBase; a&3 == 0 && !m.cfg.Record {
			switch w := int(a / 4); size {
			case 4:
				if binary.LittleEndian.Uint32(m.stack[a:a+4]) != uint32(v) || m.slots[w] != reg || m.depth != nil {
					m.storeWord(t, w, m.stackLo(t), uint32(v), reg)
				}
				return nil
			case 8:
				if binary.LittleEndian.Uint64(m.stack[a:a+8]) != v || m.slots[w] != reg || m.slots[w+1] != reg || m.depth != nil {
					m.storeWord(t, w, m.stackLo(t), uint32(v), reg)
					m.storeWord(t, w+1, m.stackLo(t), uint32(v>>32), reg)
				}
				return nil
			}
		}
		m.storeStackOf(t, addr, size, v, reg)
		return nil
	}
	return m.storeMem(addr, size, v, reg)
}

// loadMem reads size bytes at a for the task executing now: from its own
// stack, from text (literal pools) or from a data segment. link says that
// the value goes to a control register: the slot it came from is noted for
// the foreign-slot detector.
func (m *Machine) loadMem(a uint64, size int, reg uint8, link bool) (uint64, error) {
	lo, hi := m.stackRange(m.cur)
	var mem []byte
	switch {
	case inRange(a, size, lo, hi):
		mem = m.stack[a-StackBase:]
		if link {
			m.loadedLink = m.slots[(a-StackBase)/4]
			m.loadedFrom = a
			m.loadedInto = reg
		}
	case inRange(a, size, m.img.Base, m.img.Base+uint64(len(m.text))):
		mem = m.text[a-m.img.Base:]
		if m.res != nil {
			m.resultLoad(m.cur, a, size, true) // results.go
			for i := uint64(0); i < uint64(size); i++ {
				m.res.text[a+i] = true
			}
		}
		if m.st.obs != nil && !m.observed(a-m.img.Base, size) {
			m.unobserved(fmt.Sprintf("a load of %d bytes at %#x <%s>", size, a, m.img.Name(a))) // quiet.go
		}
		if m.st.shadowOK != nil {
			m.shadowLoad(a, size) // shadow.go
		}
	default:
		off, ok := m.dataOff(a, size)
		if !ok {
			return 0, m.memFault(true, a, size)
		}
		if m.cfg.Env != nil {
			if v, hit := m.envLoad(a, size); hit { // envcells.go
				return v, nil
			}
		}
		mem = m.data[off:]
		if m.res != nil {
			m.resultLoad(m.cur, a, size, false) // results.go
		}
		if m.st.stable != nil {
			m.stableLoaded(off, size, a) // stable.go
		}
	}
	switch size {
	case 4:
		return uint64(binary.LittleEndian.Uint32(mem)), nil
	case 8:
		return binary.LittleEndian.Uint64(mem), nil
	}
	var v uint64
	for i := size - 1; i >= 0; i-- {
		v = v<<8 | uint64(mem[i])
	}
	return v, nil
}

// inRange reports whether the size bytes at a lie in [lo, hi), without
// the wrap of a+size near the top of the address space (an x86 bt with a
// register offset can address anywhere).
func inRange(a uint64, size int, lo, hi uint64) bool {
	return a >= lo && a < hi && uint64(size) <= hi-a
}

// storeMem writes size bytes of v at a for the task executing now: to its own
// stack (remembering the register each word came from) or a data segment.
// Text is not writable by code.
func (m *Machine) storeMem(a uint64, size int, v uint64, reg uint8) error {
	lo, hi := m.stackRange(m.cur)
	if inRange(a, size, lo, hi) {
		m.storeStackOf(int(m.cur), a, size, v, m.stackSource(reg))
		if m.tr.on {
			m.tiStored(a, lo, m.core.pc(m.cur))
		}
		return nil
	}
	if off, ok := m.dataOff(a, size); ok {
		if m.readOnly(a, 1) || m.readOnly(a+uint64(size)-1, 1) {
			return fmt.Errorf("store of %d bytes at %#x to the read-only page %#x: %w", size, a, a&^(PageSize-1), isa.ErrMemory)
		}
		if m.cfg.Focus > 0 && !m.stableRange(a, size) {
			m.envStore(a, size, v) // envcells.go
			return nil
		}
		n0, s0 := m.dataOdd(off, size)
		m.sharedOK, m.dataWritten, m.dataOK = false, true, false
		if m.dmark == nil {
			m.dmark = make([]uint8, len(m.data))
		}
		mark, x := uint8(markNumber), v
		if size < 8 {
			x &= 1<<(8*size) - 1
		}
		if m.inStackWindow(x) {
			mark = markStack
		}
		for i := 0; i < size; i++ {
			m.data[off+uint64(i)] = byte(v >> (8 * i))
			m.dmark[off+uint64(i)] = mark
		}
		if m.st.stable != nil {
			m.stableStored(off, size, a) // stable.go
		}
		n1, s1 := m.dataOdd(off, size)
		m.dataStack += n1 - n0
		m.dataOddSum = [2]uint64{m.dataOddSum[0] + s1[0] - s0[0], m.dataOddSum[1] + s1[1] - s0[1]}
		if m.monOn != 0 {
			m.clearRemote(m.tasks[m.cur].CPU, a, size) // monitor.go
		}
		h := len(m.hazards)
		if m.ref != nil || m.res != nil {
			m.resultStore(m.cur, m.core.pc(m.cur), a, size, v) // results.go
		}
		if len(m.hazards) == h && m.quietStore(a, size) {
			m.unobserved(fmt.Sprintf("a store of %d bytes at %#x, on a quiet page", size, a)) // quiet.go
		}
		return nil
	}
	return m.memFault(false, a, size)
}

func (m *Machine) stackRange(t int8) (uint64, uint64) {
	top := m.stackTop(int(t))
	return top - uint64(m.cfg.StackWords*4), top
}

func (m *Machine) storeStack(a uint64, size int, v uint64, reg uint8) {
	m.storeStackOf(int((a-StackBase)/m.st.stackSize), a, size, v, reg) // a store lies in one task's stack
}

// storeStackOf is storeStack into the stack of task t, which holds the
// size bytes at a.
func (m *Machine) storeStackOf(t int, a uint64, size int, v uint64, reg uint8) {
	off := a - StackBase
	lo := m.stackLo(t)
	if off&3 == 0 && (size == 4 || size == 8) {
		// Whole words, the stores of compiled code.
		m.storeWord(t, int(off/4), lo, uint32(v), reg)
		if size == 8 {
			m.storeWord(t, int(off/4)+1, lo, uint32(v>>32), reg)
		}
	} else {
		for wb := off &^ 3; wb < off+uint64(size); wb += 4 {
			old := binary.LittleEndian.Uint32(m.stack[wb : wb+4])
			mask := uint64(1)<<(8*size) - 1 // size 8: 1<<64 is 0, the mask all ones
			val := v
			if off >= wb {
				mask <<= 8 * (off - wb)
				val <<= 8 * (off - wb)
			} else {
				mask >>= 8 * (wb - off)
				val >>= 8 * (wb - off)
			}
			m.storeWord(t, int(wb/4), lo, old&^uint32(mask)|uint32(val&mask), reg)
		}
	}
	if m.cfg.Record {
		m.recordStack(a, size, reg)
	}
}

// storeWord writes nw, from reg, to stack word w of task t (whose stack
// starts at lo): the word is written whole (never read back from bytes
// just stored), and its contribution to the stack sum is brought up to
// date when the state is next hashed (pendWord).
func (m *Machine) storeWord(t, w int, lo uint64, nw uint32, reg uint8) {
	p := m.stack[4*w : 4*w+4 : 4*w+4]
	var d uint8
	if m.depth != nil { // freed.go
		d = m.storeDepth(t, w, reg)
		if binary.LittleEndian.Uint32(p) == nw && m.slots[w] == reg && m.depth[w] == d {
			return
		}
		if a := StackBase + uint64(w)*4; a < m.tasks[t].lowLive {
			m.tasks[t].lowLive = a
		}
	} else if binary.LittleEndian.Uint32(p) == nw && m.slots[w] == reg {
		return // the same word from the same source: the hash stays
	}
	m.pendWord(t, w, lo)
	if m.depth != nil {
		m.depth[w] = d
	}
	binary.LittleEndian.PutUint32(p, nw)
	m.slots[w] = reg
	m.stackLow[t] = min(m.stackLow[t], int32(w))
}

// pendWord takes stack word w of task t (whose stack starts at lo), about
// to change, out of the task's stack sum, once: its new
// contribution goes in at the next flushWords. A thread-local stretch
// stores to a handful of words many times over (the pushes and pops of
// every call), so the sum is updated once per word a stretch changed,
// not twice per store.
func (m *Machine) pendWord(t, w int, lo uint64) {
	if m.pending[w] {
		return
	}
	o := m.wordHash(w, t, lo)
	sum := &m.stackSum[t]
	sum[0] -= o[0]
	sum[1] -= o[1]
	m.pending[w] = true
	m.pend = append(m.pend, int32(w))
}

// flushWords adds the contribution of every pending stack word back into
// its task's sum: stackSum is exact again.
// Everything that reads them calls it first.
func (m *Machine) flushWords() {
	for _, w := range m.pend {
		t := int(w) / m.cfg.StackWords
		n := m.wordHash(int(w), t, m.stackLo(t))
		sum := &m.stackSum[t]
		sum[0] += n[0]
		sum[1] += n[1]
		m.pending[w] = false
	}
	m.pend = m.pend[:0]
}

func le32(b []byte) uint32 {
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
}

// control feeds a call or return to the shadow stack and reports what it
// sees, and reports a control register loaded from a foreign slot. target
// is the new pc, link the return address a call linked, spBefore the stack
// pointer before the instruction, spAfter after it.

// textOff returns the text offset of an instruction of at least the ISA's
// alignment at pc, if it lies in text and is aligned.
func (m *Machine) textOff(pc uint64) (uint64, bool) {
	off := pc - m.img.Base
	return off, pc >= m.img.Base && off+m.shape.align <= uint64(len(m.text)) && pc&(m.shape.align-1) == 0 // (align: a power of two)
}

// workerStep executes one instruction of worker t on CPU c; fetch picks
// the bytes it fetches where its CPU's view is stale (fetch.go).
func (m *Machine) workerStep(c int8, t int8, fetch int) {
	k := m.core
	task := &m.tasks[t]
	pc := k.pc(t)
	if m.tr.on {
		m.tracerTick(t)
	}
	if task.InTrap {
		// The breakpoint handler's step: look the address up and
		// emulate, then return from the exception.
		task.InTrap = false
		k.trap(m, c, t, pc)
		if !m.done && m.shape.excSync {
			m.syncCPU(c, "returning from the breakpoint handler")
		}
		return
	}
	off, ok := m.textOff(pc)
	if !ok {
		m.closePass(c, t)
		m.fault(c, t, pc, fmt.Sprintf("pc %#x is outside text%s", pc, m.shape.misaligned))
		return
	}
	if m.st.shadowOK != nil {
		if m.shadowFetch(t, pc); m.done {
			return
		}
	}
	m.cur = t
	m.loadedInto = 0
	// The fast path: an instruction whose bytes no store may write, with
	// no hook and outside every site, was decoded once and can never change.
	if !task.Pass.Open && !m.cfg.Record && m.res == nil && k.stepPlain(m, c, t, off) {
		return
	}
	if h := m.st.hook[off]; h != kernel.HookNone {
		m.closePass(c, t)
		m.hook(c, t, h)
		return
	}
	if m.res != nil && int(t) < m.cfg.Tasks {
		m.res.text[pc] = true // results.go
	}
	if m.st.obs != nil && !m.fetchObserved(off, m.shape.maxLen) {
		m.unobserved(fmt.Sprintf("an instruction fetch at %#x <%s>", pc, m.img.Name(pc))) // quiet.go
		return
	}
	f := m.fetch(c, t, pc, off, fetch)
	n, err := k.decode(pc, f.bytes)
	if err != nil {
		// Bytes mixed from different writes may decode to nothing: the
		// torn fetch is the hazard, the fault its consequence.
		if f.stale {
			m.checkTornDirty(c, t, pc, off, f)
		}
		m.closePass(c, t)
		m.faultErr(c, t, pc, err)
		return
	}
	f.bytes, f.prov = f.bytes[:n], f.prov[:n]
	if site := m.st.siteOf[off]; site >= 0 {
		m.sitePass(c, t, int(site), pc, f)
	} else if task.Pass.Open {
		m.closePass(c, t)
	}
	if m.mutable(off, n) {
		m.checkTorn(c, t, pc, f, n)
	} else if m.st.siteOf[off] < 0 && !k.syncs() {
		k.markPlain(off)
	}
	if m.cfg.Record {
		ev := Event{Kind: EvExec, CPU: int(c), Task: int(t), PC: pc, Bytes: append([]byte(nil), f.bytes[:n]...),
			Text: k.disasm(m, pc), Write: int(f.prov[0])}
		if f.stale {
			ev.Stale = fmt.Sprintf("cpu%d's view of text is stale (last synchronized at step %d: %s); it fetched %s",
				c, m.syncStep[c], m.syncWhyText(c), m.core.hex(f.bytes[:n]))
			if v := m.describeView(c); v != "" {
				ev.Stale += "; " + v
			}
		}
		m.event(ev)
	}
	syncs := k.syncs()
	m.cur = t
	m.loadedInto = 0
	m.loads, m.stores = 0, 0
	e, err := k.exec(m, t)
	if m.cfg.Record {
		ev := &m.trace[len(m.trace)-1]
		ev.Flow, ev.Next, ev.Loads, ev.Stores = e.flow, e.target, m.loads, m.stores
	}
	if err != nil {
		m.execError(c, t, pc, err)
		return
	}
	if syncs {
		m.syncCPU(c, k.disasm(m, pc))
	}
	m.control(c, t, pc, e.flow, e.target, e.link, e.spBefore, e.spAfter)
	m.checkBranch(c, t, pc, off, n, e.flow, e.target) // integrity.go
}

// plainDone is the tail of a plain instruction's execution, shared by the
// cores' fast paths: an error ends in a fault (or the breakpoint
// exception), a call, a return or a control register loaded from the stack
// goes to the detectors.
func (m *Machine) plainDone(c, t int8, e effect, err error) {
	if err != nil {
		m.execError(c, t, e.pc, err)
		return
	}
	if e.flow >= isa.FlowCall || m.loadedInto != 0 {
		m.control(c, t, e.pc, e.flow, e.target, e.link, e.spBefore, e.spAfter)
	}
}

// plainBudget bounds the steps a core's runPlain may take from max by the
// step budget, so that the loop checks the budget once, after it (at least
// one step, as a step of the general path would take).
func (m *Machine) plainBudget(n int) int {
	if left := m.cfg.MaxSteps - m.steps; left < n {
		return max(left, 1)
	}
	return n
}

// plainStop is the tail of a plain step that did more than fall through
// (an error, a call or return, a control register loaded from the stack):
// plainDone, then whether the cores' runPlain must stop there (the run
// ended or the step found a hazard).
func (m *Machine) plainStop(c, t int8, e effect, err error) bool {
	h := len(m.hazards)
	m.plainDone(c, t, e, err)
	return m.done || len(m.hazards) > h
}

func (m *Machine) execError(c, t int8, pc uint64, err error) {
	if errors.Is(err, isa.ErrBreakpoint) {
		m.enterTrap(c, t, pc)
		return
	}
	m.faultErr(c, t, pc, err)
}

// enterTrap takes the breakpoint exception of task t at pc: the CPU is now
// in the handler with interrupts off (it takes no IPI and no timer
// interrupt); the handler itself runs as the task's next step.
func (m *Machine) enterTrap(c, t int8, pc uint64) {
	m.closePass(c, t)
	m.clearMonitor(c) // the exception (monitor.go)
	m.tasks[t].InTrap = true
	m.event(Event{Kind: EvInt3, CPU: int(c), Task: int(t), PC: pc, Text: "breakpoint: the CPU enters the handler (interrupts off)"})
	if m.shape.excSync {
		m.syncCPU(c, "taking the breakpoint exception")
	}
}

// Word classes for the partial-order reduction.
const (
	classUnknown uint8 = iota
	classLocal
	classVisible
	// classLoad: a load or store through a base that may point anywhere;
	// it is local in a state where it reaches only the task's own stack,
	// or loads read-only data (decided per state: localAccess).
	classLoad
	// classFetch: an instruction whose bytes a store of the program may
	// write; it is local in a state where every write has been made and
	// the CPU's view of those bytes is the latest (decided per state:
	// localFetch).
	classFetch
	// classTI: a single load or store through a base other than sp in
	// the tracer kernel; it is local in a state where it reaches the
	// task's own thread_info and nothing the others do can meet it
	// (tiLocal, tracer.go).
	classTI
)

// local reports whether worker t's next instruction touches nothing but
// t's own registers and stack and immutable text. Such a step commutes with
// every action of every other CPU, and preempting t just before it is
// equivalent to preempting t just before its next visible step (the local
// steps in between move before the switch without changing anything another
// task can see). So Options offers it alone, with no preemption: see the
// package doc of explore for the soundness argument. Visible are: fetches of
// bytes that a store may write, the scheduler hooks (schedule, exit), the
// exclusive accesses (whatever their address: a preemption or another
// CPU's store clears the monitor they read, monitor.go), and
// loads and stores that may reach memory another task sees (the core
// decides which: through any base register but the stack pointer and pc,
// unless, in the current state, they reach only t's own stack or load
// read-only data: localAccess).
func (m *Machine) local(t int8) bool {
	if m.tasks[t].InTrap {
		return false // the handler reads the patcher's table
	}
	off, ok := m.textOff(m.core.pc(t))
	if !ok {
		return true // a fault: it ends the run whatever the others do
	}
	cls := &m.st.class[off]
	switch *cls {
	case classLoad:
		return m.localAccess(t, off+m.img.Base)
	case classFetch:
		return m.localFetch(t, off)
	}
	if *cls == classTI {
		return m.tiLocal(t, off+m.img.Base)
	}
	if *cls != classUnknown {
		return *cls == classLocal
	}
	*cls = classLocal
	switch h := m.st.hook[off]; {
	case h == kernel.HookSchedule || h == kernel.HookExit || h == kernel.HookPreempt || h == kernel.HookIRQReturn || h == kernel.HookPanic:
		*cls = classVisible
	case h == kernel.HookNone:
		n, err := m.core.decode(off+m.img.Base, m.text[off:min(off+uint64(m.shape.maxLen), uint64(len(m.text)))])
		switch {
		case err != nil:
			// Undecodable now; a store may still make it decodable.
			if m.mutable(off, m.shape.maxLen) {
				*cls = classVisible
			}
		case m.core.syncs():
			// A synchronizing instruction reads the latest text: it
			// does not commute with the patcher's stores.
			*cls = classVisible
		case m.core.exclusive():
			// An exclusive access reads or writes its CPU's monitor,
			// which other CPUs' stores and a preemption clear
			// (monitor.go): visible wherever its address lies.
			*cls = classVisible
		case m.mutable(off, n) && !m.cfg.Unreduced:
			*cls = classFetch
			return m.localFetch(t, off)
		case m.mutable(off, n):
			*cls = classVisible
		case !m.core.localInst(len(m.st.dataAt) > 0):
			*cls = classVisible
			if m.tr.on && !m.cfg.Unreduced && m.tiAccess(off+m.img.Base) {
				*cls = classTI
				return m.local(t)
			}
			if _, _, _, ok := m.core.memAddr(m, t, off+m.img.Base); ok && !m.cfg.Unreduced {
				*cls = classLoad
				return m.local(t)
			}
		}
	}
	return *cls == classLocal
}

// localAccess reports whether the load or store of worker t at pc is
// thread-local in the current state (a classLoad word): it reaches only
// t's own stack above thread_info, which no other task can access (their
// loads and stores there fault: see loadMem) and the machine never writes
// for another CPU (it writes thread_info, the kernel.TISize bytes at the
// bottom of the stack: need_resched set by a remote wakeup, the tracer
// kernel's counts), or it is a load from read-only data pages, which no
// task can write, or a load of text bytes that each hold the program's
// last write to them (finalText: the value it reads is the same in every
// order of the remaining actions, as for a read-only page).
func (m *Machine) localAccess(t int8, pc uint64) bool {
	a, n, store, ok := m.core.memAddr(m, t, pc)
	if !ok || m.cfg.Env != nil && m.envTouches(a, n) { // envcells.go
		return false
	}
	if lo, hi := m.stackRange(t); a >= lo+kernel.TISize && a+uint64(n) <= hi && a+uint64(n) > a {
		return true
	}
	if !store && m.finalText(a, n) {
		return true
	}
	return !store && (m.readOnly(a, n) || m.quietLoad(a, n)) || m.stableRange(a, n) // memory.go, quiet.go, stable.go
}

// finalText reports whether the n bytes at a lie in text and each holds
// the program's last write to it (or is one no store writes). Code cannot
// store to text (storeMem), so no action can change them any more: a data
// load of them, which reads the text itself and not the CPU's view of it
// (loadMem), returns the same value whenever it runs.
func (m *Machine) finalText(a uint64, n int) bool {
	if m.st.fetch == nil || !inRange(a, n, m.img.Base, m.img.Base+uint64(len(m.text))) {
		return false
	}
	return m.finalBytes(a-m.img.Base, n)
}

// mutableTextAccess reports whether worker t's load or store at pc reaches
// text bytes a store of the program may write (a load local only while
// they are final: finalText; not memo-safe, as the memo's key does not
// hold them).
func (m *Machine) mutableTextAccess(t int8, pc uint64) bool {
	a, n, _, ok := m.core.memAddr(m, t, pc)
	return ok && inRange(a, n, m.img.Base, m.img.Base+uint64(len(m.text))) && m.mutable(a-m.img.Base, n)
}

// localFetch reports whether worker t's next instruction, at text offset
// off where a store of the program may write (a classFetch word), is
// thread-local in the current state: the patcher has made every write of
// its program to the instruction's bytes (a fixed sequence: no store to
// them can come), the CPU's view of the bytes is the latest (it fetches
// exactly the current bytes, as every other order of the remaining
// actions would have it fetch: nothing can change them or its view any
// more), and the instruction those bytes hold is itself local (as local
// classifies a word no store writes).
func (m *Machine) localFetch(t int8, off uint64) bool {
	fs := m.st.fetch
	if fs == nil {
		return false
	}
	c := m.tasks[t].CPU
	if c < 0 || m.stale(c, off, m.shape.maxLen) {
		return false
	}
	pc := off + m.img.Base
	n, err := m.core.decode(pc, m.text[off:min(off+uint64(m.shape.maxLen), uint64(len(m.text)))])
	if err != nil || m.core.syncs() || m.core.exclusive() || !m.finalBytes(off, n) {
		return false
	}
	if m.core.localInst(len(m.st.dataAt) > 0) {
		return true
	}
	return m.localAccess(t, pc)
}

// finalBytes reports whether every byte of [off, off+n) that a store may
// write holds the last write of the program to it.
func (m *Machine) finalBytes(off uint64, n int) bool {
	fs := m.st.fetch
	for o := off; o < off+uint64(n) && o < uint64(len(m.text)); o++ {
		if d := fs.dirtyOf[o]; d >= 0 {
			if h := fs.hist[d]; m.prov[o] != h[len(h)-1].id {
				return false
			}
		}
	}
	return true
}

// mutable reports whether a store may write any of the n text bytes at off.
func (m *Machine) mutable(off uint64, n int) bool {
	for i := uint64(0); i < uint64(n) && off+i < uint64(len(m.st.mutable)); i++ {
		if m.st.mutable[off+i] {
			return true
		}
	}
	return false
}

// control feeds a call or return to the shadow stack and reports what it
// sees, and reports a control register loaded from a foreign slot. target
// is the new pc, link the return address a call linked, spBefore the stack
// pointer before the instruction, spAfter after it.
func (m *Machine) control(c int8, t int8, pc uint64, flow isa.Flow, target, link, spBefore, spAfter uint64) {
	task := &m.tasks[t]
	m.scratchReturn(c, t, pc, target, flow == isa.FlowReturn)
	switch flow {
	case isa.FlowCall:
		task.Shadow.Call(link, spBefore, target, m.st.callee[target])
		m.checkCall(c, t, pc, target)
		if m.st.compiled[target] {
			m.core.clearDead(t, false) // deadregs.go
		}
	case isa.FlowReturn:
		k, f := task.Shadow.Return(target, spAfter)
		if k == detect.None && (m.ref != nil || m.res != nil) {
			m.tracedReturn(c, t, pc, f) // results.go
		}
		if k == detect.None && m.st.compiled[f.Callee] {
			m.core.clearDead(t, true) // deadregs.go
		}
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
			if h := m.lastHazard(m.steps); h != nil && m.loadedInto != 0 {
				h.Slot = m.loadedFrom
			}
			m.loadedInto = 0
		case detect.StackImbalance:
			m.hazard(detect.StackImbalance, int(c), int(t), pc, fmt.Sprintf("%s returned with sp %#x, expected %#x (sp at the call %#x, callee pops %d)",
				nameOr(m.img.Name(f.Callee), fmt.Sprintf("%#x", f.Callee)), spAfter, f.SP+uint64(f.Pop), f.SP, f.Pop))
		}
	}
	if m.tr.on && (flow == isa.FlowCall || flow == isa.FlowReturn) {
		m.tracerControl(c, t, pc, flow == isa.FlowCall, target, spBefore)
	}
	if m.loadedInto != 0 && !m.core.isLink(m.loadedLink) && m.core.foreignLoad(flow) {
		m.foreignLink(c, t, pc) // scratch.go
	}
	if flow == isa.FlowReturn {
		if m.depth != nil {
			m.freeFrames(t, spAfter) // freed.go
		}
		// The frame the return consumed is read no more (the tracer's look
		// at it was above): cleared, it splits no memo key.
		if n := int(task.Shadow.N); n < detect.MaxDepth {
			task.Shadow.Frames[n] = detect.Frame{}
		}
	}
}

// checkTorn reports an instruction whose n bytes came from writes of
// different transitions: a mix of old and new that no transition wrote.
func (m *Machine) checkTorn(c int8, t int8, pc uint64, f fetched, n int) {
	first := m.transitionOf(f.prov[0])
	torn := false
	for i := 1; i < n; i++ {
		if m.transitionOf(f.prov[i]) != first {
			torn = true
			break
		}
	}
	if !torn {
		return
	}
	var parts []string
	for i := 0; i < n; i++ {
		parts = append(parts, fmt.Sprintf("%02x:%s", f.bytes[i], m.writeName(f.prov[i])))
	}
	detail := fmt.Sprintf("fetched %s (%s) assembled from different writes: %s",
		m.core.hex(f.bytes[:n]), m.core.disasm(m, pc), strings.Join(parts, " "))
	if f.stale {
		detail += fmt.Sprintf("; cpu%d had last synchronized at step %d (%s)", c, m.syncStep[c], m.syncWhyText(c))
	}
	m.hazard(detect.TornFetch, int(c), int(t), pc, detail)
}

// checkTornDirty is checkTorn over the bytes of a fetch window that some
// store may write (the instruction's length being unknown).
func (m *Machine) checkTornDirty(c, t int8, pc, off uint64, f fetched) {
	n := 0
	for n < len(f.bytes) && m.st.fetch.dirtyOf[off+uint64(n)] >= 0 {
		n++
	}
	if n > 1 {
		m.checkTorn(c, t, pc, fetched{f.bytes[:n], f.prov[:n], true}, n)
	}
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

func nameOr(s, alt string) string {
	if s == "" {
		return alt
	}
	return s
}

func (m *Machine) slotSource(src uint8) string {
	switch {
	case src == detect.SlotUnwritten:
		return "never written"
	case src == isa.NoReg:
		return "written by no register"
	case src == slotScratchLink:
		return "written from " + m.core.regName(m.shape.linkRegs[0]) + " while it held a value loaded from a foreign slot"
	}
	if w := m.core.slotWriter(src); w != "" {
		return w
	}
	return "written from " + m.core.regName(src)
}

// hook performs the kernel service bound at the task's pc.
func (m *Machine) hook(c int8, t int8, h kernel.HookKind) {
	k := m.core
	pc := k.pc(t)
	ip, parent := k.arg(t, 0), k.arg(t, 1)
	if m.tr.on && m.tracerHook(c, t, h) {
		return
	}
	switch h {
	case kernel.HookTrace:
		k.setPC(t, pc+m.shape.hookLen)
		if m.cfg.Record {
			m.event(Event{Kind: EvTrace, CPU: int(c), Task: int(t), PC: pc,
				Text: fmt.Sprintf("tracer: %s called from %s", nameOr(m.img.Name(ip), fmt.Sprintf("%#x", ip)), nameOr(m.img.Name(parent), fmt.Sprintf("%#x", parent)))})
		}
	case kernel.HookSchedule:
		if !m.standIn(t) { // a stand-in loops on schedule() (modular.go)
			k.setPC(t, pc+m.shape.hookLen)
		}
		m.event(Event{Kind: EvYield, CPU: int(c), Task: int(t), PC: pc, Text: "schedule(): voluntary switch"})
		m.leave(c, true)
		m.enqueue(t)
	case kernel.HookPanic:
		// The caller is the function holding the call's last byte: a
		// call of a noreturn function may end its caller's code.
		from := ""
		if sh := &m.tasks[t].Shadow; sh.N > 0 {
			if sym, _, ok := m.img.Lookup(sh.Frames[sh.N-1].Ret - 1); ok {
				from = " from " + sym.Name
			}
		}
		m.fault(c, t, pc, fmt.Sprintf("kernel panic: %s called%s: stack-protector: the canary of a -fstack-protector frame was overwritten", nameOr(m.img.Name(pc), fmt.Sprintf("%#x", pc)), from))
	case kernel.HookExit:
		m.checkExit(c, t, pc) // integrity.go
		if m.ref != nil {
			m.resultExit(c, t, pc) // results.go
		}
		m.exit(c, t)
		if m.tr.on {
			m.tracerExited(t)
		}
	}
}

// sitePass notes that task t fetched the instruction at pc inside site.
func (m *Machine) sitePass(c int8, t int8, site int, pc uint64, f fetched) {
	n := len(f.bytes)
	p := &m.tasks[t].Pass
	if p.Open && int(p.Site) != site {
		m.closePass(c, t)
	}
	if !p.Open {
		*p = detect.Pass{Site: int16(site), Open: true}
		if m.cfg.Record {
			m.passes = append(m.passes, PassRecord{Task: int(t), Start: m.steps})
		}
	}
	s := m.img.Sites[site]
	off := int(pc - s.Addr)
	if off+n > s.Len {
		n = s.Len - off
	}
	p.Fetch(off, f.bytes[:n], f.prov[:n])
	if m.cfg.Record {
		m.lastPass(t).Pass = *p
	}
}

func (m *Machine) lastPass(t int8) *PassRecord {
	for i := len(m.passes) - 1; i >= 0; i-- {
		if m.passes[i].Task == int(t) {
			return &m.passes[i]
		}
	}
	return nil
}

// closePass ends task t's pass through a site and checks it against the
// states the site held.
func (m *Machine) closePass(c int8, t int8) {
	p := &m.tasks[t].Pass
	if !p.Open {
		return
	}
	p.Open = false
	if m.cfg.Record {
		if r := m.lastPass(t); r != nil {
			r.Pass = *p
			r.End = m.steps
			r.Mixed = !p.Consistent(m.hist[p.Site])
		}
	}
	if m.cfg.Strict && !p.Consistent(m.hist[p.Site]) {
		s := m.img.Sites[p.Site]
		m.hazard(detect.MixedSite, int(c), int(t), s.Addr, fmt.Sprintf("the pass through the site in %s executed bytes from writes %v, a combination the site never held", s.Func, passWrites(p, s.Len)))
	}
	// What a closed pass held is read no more (the next pass starts
	// afresh): cleared, it splits no state (in Strict mode, which hashes
	// the pass) and no memo key.
	*p = detect.Pass{Site: -1}
}

func passWrites(p *detect.Pass, n int) []uint16 {
	var out []uint16
	for i := 0; i < n; i++ {
		if p.Seen&(1<<i) != 0 {
			out = append(out, p.Write[i])
		}
	}
	return out
}
