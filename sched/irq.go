package sched

import (
	"fmt"

	"github.com/mcountsim/mcountsim/kernel"
	"github.com/mcountsim/mcountsim/rv"
)

// Interrupts of the tracer kernel. At an instruction boundary of a worker
// whose interrupts are on, the explorer may deliver a timer interrupt; on
// any CPU running a worker it may make a remote wakeup (another CPU wakes a
// task for this one: it sets the running task's need_resched and sends a
// reschedule IPI). Both count against Config.IRQBound. A pending
// reschedule IPI is delivered, as a later choice, at a boundary with
// interrupts on; it does not count again. Delivery saves the task's
// registers below its stack pointer (svc_entry), masks interrupts and runs
// __irq_svc as the task's code; its final hook restores them (svc_exit).
// With Config.NMI an NMI may arrive too, at any boundary (interrupts
// masked or not, inside an interrupt handler too, but not inside another
// NMI), counted against IRQBound: it runs __nmi_svc in NMI context and
// returns to the interrupt mask it found, never preempting. The model has
// no softirq context: its lost-event counter stays 0.
//
// These options come after every other option but before the
// preemptions, so that the preemptions stay the tail that
// OptionsWithin drops (a schedule found at one preemption bound replays
// at a larger one); the interrupt bound is the machine's, fixed for a run.

// The interrupt actions (after ActIPI).
const (
	// ActIRQ: CPU's running task takes an interrupt; Task is the vector
	// (kernel.IRQTimer or kernel.IRQResched).
	ActIRQ ActionKind = ActIPI + 1 + iota
	// ActWake: a remote wakeup for CPU's running task.
	ActWake
)

// irqFrameWords is the size of the frame svc_entry saves: r0-r15, the
// flags and a pad word (pt_regs is 18 words on ARM).
const irqFrameWords = 18

// appendIRQs appends the interrupt options of the tracer kernel.
func (m *Machine) appendIRQs(buf []Action) []Action {
	n := int8(m.cfg.CPUs)
	for i := int8(0); i < n; i++ {
		c := nextCPU(m.lastCPU, i, n)
		cpu := &m.cpus[c]
		t := cpu.Cur
		if cpu.Stopper || t < 0 || t == m.patcher || m.tasks[t].InTrap {
			continue
		}
		on := m.irqsOn(t)
		if on && m.tr.resched&(1<<c) != 0 {
			buf = append(buf, Action{CPU: c, Kind: ActIRQ, Task: kernel.IRQResched})
		}
		if int(m.tr.irqs) >= m.cfg.IRQBound {
			continue
		}
		if on {
			buf = append(buf, Action{CPU: c, Kind: ActIRQ, Task: kernel.IRQTimer})
		}
		if m.nmiOK(m.tiGet(t, kernel.TIPreemptCount)) {
			buf = append(buf, Action{CPU: c, Kind: ActIRQ, Task: kernel.IRQNMI})
		}
		if n > 1 && m.tr.resched&(1<<c) == 0 && m.tiGet(t, kernel.TIFlags)&kernel.TIFNeedResched == 0 {
			buf = append(buf, Action{CPU: c, Kind: ActWake})
		}
	}
	return buf
}

// applyIRQ performs an ActIRQ or ActWake.
func (m *Machine) applyIRQ(a Action) {
	c := a.CPU
	t := m.cpus[c].Cur
	if a.Kind == ActWake {
		m.tr.irqs++
		m.tiSet(t, kernel.TIFlags, m.tiGet(t, kernel.TIFlags)|kernel.TIFNeedResched)
		m.tr.resched |= 1 << c
		m.rvEvent(rv.NeedResched, -1, t, false)
		m.event(Event{Kind: EvIRQ, CPU: int(c), Task: int(t), PC: m.pcOf(t), Text: "a remote wakeup sets need_resched and sends a reschedule IPI", Vector: "wake", State: m.tiState(t)})
		return
	}
	what, entry, vector := "timer interrupt", m.tr.lay.IRQEntry, "timer"
	switch a.Task {
	case kernel.IRQResched:
		m.tr.resched &^= 1 << c
		what, vector = "reschedule IPI", "resched-ipi"
	case kernel.IRQNMI:
		m.tr.irqs++
		what, entry, vector = "NMI", m.tr.lay.NMIEntry, "nmi"
	default:
		m.tr.irqs++
	}
	m.closePass(c, t)
	m.clearMonitor(c) // taking the interrupt (monitor.go)
	tc, ok := m.core.(tracerCore)
	if !ok {
		m.fault(c, t, m.pcOf(t), "interrupts are modelled on arm only")
		return
	}
	// The pad word keeps the interrupt mask the handler returns to (an
	// NMI may arrive with interrupts masked) and the vector.
	pc, ok := tc.irqEnter(m, c, t, entry, m.tiGet(t, kernel.TIIRQsOff)|uint32(a.Task)<<8, uint32(a.Task))
	if !ok {
		return
	}
	m.tiSet(t, kernel.TIIRQsOff, 1)
	m.event(Event{Kind: EvIRQ, CPU: int(c), Task: int(t), PC: pc, Text: what + ": the CPU enters " + m.img.Name(entry) + " (interrupts off)", Vector: vector, State: m.tiState(t)})
	m.tr.prevOff[t] = 1
	if a.Task != kernel.IRQNMI {
		// An NMI is no irq_disable and no irq_handler_entry.
		m.rvEvent(rv.IRQDisable, c, t, false)
		m.rvEvent(rv.IRQEntry, c, t, false)
	}
	if m.shape.excSync {
		m.syncCPU(c, "taking an interrupt")
	}
}

// irqReturn is svc_exit: restore the registers __irq_svc was entered with.
func (m *Machine) irqReturn(c, t int8) {
	m.clearMonitor(c) // svc_exit's dummy strex (monitor.go)
	tc := m.core.(tracerCore)
	pad := tc.irqExit(m, t)
	if pad>>8 == kernel.IRQNMI {
		m.nmiReturn(c, t, pad&0xff)
		return
	}
	m.tiSet(t, kernel.TIIRQsOff, 0)
	// The handler's frames below the restored sp are dead: scrubbed
	// (explore's package doc, "The tracer kernel's thread_info accesses").
	lo, _ := m.stackRange(t)
	m.scrubStack(lo+kernel.TISize, tc.sp(t))
	m.tr.prevOff[t] = 0
	m.tr.offRun[t] = 0
	m.rvEvent(rv.IRQEnable, c, t, false)
	m.event(Event{Kind: EvIRQ, CPU: int(c), Task: int(t), PC: m.core.pc(t), Text: "return from the interrupt (interrupts on)", Vector: "return", State: m.tiState(t)})
	if m.shape.excSync {
		m.syncCPU(c, "returning from an interrupt")
	}
}

// tiState is task t's thread_info as reports show it (Record mode).
func (m *Machine) tiState(t int8) *TIState {
	if !m.cfg.Record || t < 0 || t >= m.patcher {
		return nil
	}
	return &TIState{PreemptCount: m.tiGet(t, kernel.TIPreemptCount), NeedResched: m.tiGet(t, kernel.TIFlags)&kernel.TIFNeedResched != 0, IRQsOff: !m.irqsOn(t)}
}

// stateEvent records a change of task t's thread_info by the text at pc.
func (m *Machine) stateEvent(c, t int8, pc uint64, what string) {
	if !m.cfg.Record {
		return
	}
	s := m.tiState(t)
	m.event(Event{Kind: EvState, CPU: int(c), Task: int(t), PC: pc, Where: m.img.Name(pc), Text: what + ": " + s.String(), State: s})
}

// nmiOK reports whether an NMI may arrive now on a CPU whose task has
// this preempt_count: NMIs asked for, the bound not spent, not inside one.
func (m *Machine) nmiOK(count uint32) bool {
	return m.cfg.NMI && int(m.tr.irqs) < m.cfg.IRQBound && count&kernel.NMIMask == 0
}

// nmiReturn is the return from __nmi_svc to the interrupt mask it found.
func (m *Machine) nmiReturn(c, t int8, mask uint32) {
	m.tiSet(t, kernel.TIIRQsOff, mask)
	lo, _ := m.stackRange(t)
	m.scrubStack(lo+kernel.TISize, m.core.(tracerCore).sp(t))
	m.tr.prevOff[t] = mask
	if mask == 0 {
		m.tr.offRun[t] = 0
	}
	m.event(Event{Kind: EvIRQ, CPU: int(c), Task: int(t), PC: m.core.pc(t), Text: "return from the NMI", Vector: "return", State: m.tiState(t)})
	if m.shape.excSync {
		m.syncCPU(c, "returning from an NMI")
	}
}

// rvEvent appends a kernel event for the RV monitors (Record mode). The
// slice is copied on append so that clones never share it.
func (m *Machine) rvEvent(k rv.Kind, c, t int8, preempt bool) {
	if !m.cfg.Record {
		return
	}
	e := rv.Event{Step: m.steps, Kind: k, CPU: int(c), Task: int(t), Preempt: preempt}
	if c >= 0 && t >= 0 && t < m.patcher {
		e.IRQ = m.tiGet(t, kernel.TIPreemptCount)&kernel.HardirqMask != 0 || m.tr.tick
	}
	m.tr.rv = append(m.tr.rv[:len(m.tr.rv):len(m.tr.rv)], e)
}

// RVEvents returns the run's kernel events (tracer kernel, Record mode).
func (m *Machine) RVEvents() []rv.Event { return m.tr.rv }

// irqString renders the interrupt actions.
func irqString(a Action) string {
	if a.Kind == ActWake {
		return fmt.Sprintf("cpu%d wake (need_resched + IPI)", a.CPU)
	}
	if a.Task == kernel.IRQResched {
		return fmt.Sprintf("cpu%d irq resched-ipi", a.CPU)
	}
	if a.Task == kernel.IRQNMI {
		return fmt.Sprintf("cpu%d nmi", a.CPU)
	}
	return fmt.Sprintf("cpu%d irq timer", a.CPU)
}
