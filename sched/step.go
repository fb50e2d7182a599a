package sched

import (
	"fmt"
	"github.com/mcountsim/mcountsim/isa"

	"github.com/mcountsim/mcountsim/detect"
	"github.com/mcountsim/mcountsim/isa/arm"
	"github.com/mcountsim/mcountsim/isa/x86"
	"github.com/mcountsim/mcountsim/kernel"
)

// ActionKind is what a step does.
type ActionKind uint8

const (
	// ActRun: the CPU's current task executes one instruction (a worker)
	// or one atomic action (the patcher, or the stopper running the
	// stop_machine function).
	ActRun ActionKind = iota
	// ActPick: a free CPU switches to Task (or to its stopper).
	ActPick
	// ActPreempt: a timer interrupt (or a stopper) takes the CPU from its
	// task, which goes back to the run queue; the CPU switches to Task.
	ActPreempt
	// ActIPI: the CPU takes a pending sync_core IPI.
	ActIPI
)

var actionNames = [...]string{"run", "pick", "preempt", "ipi"}

func (k ActionKind) String() string { return actionNames[k] }

// Stopper is the Task of an action that switches a CPU to its stopper.
const Stopper int8 = -2

// Action is one possible step.
type Action struct {
	CPU  int8
	Kind ActionKind
	Task int8
}

func (a Action) String() string {
	switch a.Kind {
	case ActRun:
		return fmt.Sprintf("cpu%d run", a.CPU)
	case ActIPI:
		return fmt.Sprintf("cpu%d ipi", a.CPU)
	}
	to := fmt.Sprintf("task %d", a.Task)
	if a.Task == Stopper {
		to = "stopper"
	}
	return fmt.Sprintf("cpu%d %s -> %s", a.CPU, a.Kind, to)
}

// Options appends to buf every action possible now and returns it. The
// first option is the default: the CPU that stepped last keeps running.
// A finished run has no options.
func (m *Machine) Options(buf []Action) []Action {
	buf = buf[:0]
	if m.done {
		return buf
	}
	n := int8(m.cfg.CPUs)
	if !m.cfg.Unreduced {
		for i := int8(0); i < n; i++ {
			c := (m.lastCPU + i) % n
			cpu := &m.cpus[c]
			switch {
			case cpu.Stopper:
			case cpu.IPI:
				// Taking a sync_core IPI touches nothing but the IPI's
				// own bookkeeping; it commutes with every other action
				// and only enables the waiting patcher: take it now.
				return append(buf, Action{CPU: c, Kind: ActIPI})
			case cpu.Cur < 0 && m.stopOn:
				// Likewise a free CPU entering its stopper.
				return append(buf, Action{CPU: c, Kind: ActPick, Task: Stopper})
			case cpu.Cur >= 0 && cpu.Cur != m.patcher && m.local(cpu.Cur):
				return append(buf, Action{CPU: c, Kind: ActRun})
			}
		}
	}
	allStop := m.allInStopper()
	for i := int8(0); i < n; i++ {
		c := (m.lastCPU + i) % n
		cpu := &m.cpus[c]
		switch {
		case cpu.Stopper:
			if allStop && c == m.stopCPU {
				buf = append(buf, Action{CPU: c, Kind: ActRun})
			}
		case cpu.Cur < 0:
			if m.stopOn {
				buf = append(buf, Action{CPU: c, Kind: ActPick, Task: Stopper})
				continue
			}
			if cpu.IPI {
				buf = append(buf, Action{CPU: c, Kind: ActIPI})
				continue
			}
			for q := int8(0); q < m.nrunq; q++ {
				buf = append(buf, Action{CPU: c, Kind: ActPick, Task: m.runq[q]})
			}
		case cpu.Cur == m.patcher && m.spin:
			// The patcher spins with preemption disabled until every
			// other CPU has taken its sync_core IPI: nothing to step.
		case cpu.IPI:
			buf = append(buf, Action{CPU: c, Kind: ActIPI})
		default:
			buf = append(buf, Action{CPU: c, Kind: ActRun})
		}
	}
	// Preemptions come last, so that the numbering of every other option
	// does not depend on the preemptions left: a schedule found at one
	// bound replays unchanged at any larger bound.
	for i := int8(0); i < n; i++ {
		c := (m.lastCPU + i) % n
		cpu := &m.cpus[c]
		if cpu.Stopper || cpu.Cur < 0 || !m.preemptible(cpu.Cur) {
			continue
		}
		if m.stopOn {
			buf = append(buf, Action{CPU: c, Kind: ActPreempt, Task: Stopper})
			continue
		}
		for q := int8(0); q < m.nrunq; q++ {
			buf = append(buf, Action{CPU: c, Kind: ActPreempt, Task: m.runq[q]})
		}
	}
	return buf
}

func (m *Machine) preemptible(t int8) bool {
	if m.cfg.Preempt != PreemptFull || m.preemptions >= m.cfg.Bound {
		return false
	}
	// The patcher spinning for sync_core IPIs has preemption disabled.
	return !(t == m.patcher && m.ipiWait != 0)
}

func (m *Machine) allInStopper() bool {
	if !m.stopOn {
		return false
	}
	for c := 0; c < m.cfg.CPUs; c++ {
		if !m.cpus[c].Stopper {
			return false
		}
	}
	return true
}

// Apply performs action a, which must be one of the current Options.
func (m *Machine) Apply(a Action) {
	m.steps++
	m.lastCPU = a.CPU
	c := a.CPU
	cpu := &m.cpus[c]
	switch a.Kind {
	case ActPick:
		m.switchTo(c, a.Task)
	case ActPreempt:
		t := cpu.Cur
		m.preemptions++
		why := "a timer interrupt"
		if a.Task == Stopper {
			why = "its CPU's stopper (stop_machine)"
		}
		m.event(Event{Kind: EvPreempt, CPU: int(c), Task: int(t), PC: m.pcOf(t), Text: why})
		m.leave(c, false)
		m.tasks[t].Preempted = true
		m.enqueue(t)
		m.switchTo(c, a.Task)
	case ActIPI:
		cpu.IPI = false
		m.ipiWait &^= 1 << c
		m.event(Event{Kind: EvIPI, CPU: int(c), Task: int(cpu.Cur)})
		if m.ipiWait == 0 {
			m.spin = false
		}
	case ActRun:
		switch {
		case cpu.Stopper:
			m.stopperStep(c)
		case cpu.Cur == m.patcher:
			m.patcherStep(c)
		default:
			m.workerStep(c, cpu.Cur)
		}
	}
	m.checkBudget(c)
}

// checkBudget ends a run that used up its step budget (a runaway fault).
func (m *Machine) checkBudget(c int8) {
	cpu := &m.cpus[c]
	if !m.done && m.steps >= m.cfg.MaxSteps {
		var pc uint64
		if t := cpu.Cur; t >= 0 && t != m.patcher {
			pc = m.pc(t)
		}
		m.hazard(detect.Fault, int(c), int(cpu.Cur), pc, fmt.Sprintf("step budget of %d steps used up (runaway execution)", m.cfg.MaxSteps))
		m.done = true
	}
}

func (m *Machine) pcOf(t int8) uint64 {
	if t < 0 || t == m.patcher {
		return 0
	}
	return m.pc(t)
}

// RunLocal takes the steps that Options would offer alone, one after
// another: as long as the CPU that stepped last runs a worker whose next
// instruction is thread-local (see local), it steps that CPU. It stops after
// max steps, at a new hazard, or when the run ends, and returns the steps
// taken. It is exactly max (or fewer) rounds of Apply(Options()[0]) over
// those steps, without building option lists; with the reduction off it
// takes no step.
func (m *Machine) RunLocal(max int) int {
	if m.cfg.Unreduced {
		return 0
	}
	c := m.lastCPU
	n := 0
	for n < max && !m.done {
		cpu := &m.cpus[c]
		t := cpu.Cur
		if cpu.Stopper || cpu.IPI || t < 0 || t == m.patcher || !m.local(t) {
			break
		}
		if m.img.Arch == kernel.ARM && !m.cfg.Record {
			k := m.runPlainARM(c, t, max-n)
			n += k
			if k > 0 {
				if m.done || len(m.hazards) > 0 && m.hazards[len(m.hazards)-1].Step == m.steps {
					break
				}
				continue
			}
		}
		h := len(m.hazards)
		m.steps++
		m.workerStep(c, t)
		m.checkBudget(c)
		n++
		if len(m.hazards) > h {
			break
		}
	}
	return n
}

// runPlainARM is RunLocal's inner loop on ARM: it executes, back to back,
// local instructions of task t whose words are plain (decoded once, see
// workerStep), and stops at the first step that needs the general path.
func (m *Machine) runPlainARM(c int8, t int8, max int) int {
	task := &m.tasks[t]
	if task.Pass.Open {
		return 0
	}
	r := &task.ARM
	base, size := uint32(m.img.Base), uint32(len(m.text))
	plain, class := m.st.plain, m.st.class
	m.cur = t
	n := 0
	for n < max {
		off := r.R[arm.PC] - base
		if off >= size || off&3 != 0 || class[off] != classLocal {
			break
		}
		inst := plain[off>>2]
		if inst == nil {
			break
		}
		pc := r.R[arm.PC]
		sp := r.R[arm.SP]
		m.loadedInto = 0
		h := len(m.hazards)
		m.steps++
		n++
		flow, err := arm.Exec(inst, r, m)
		if err != nil {
			m.fault(c, t, uint64(pc), err.Error())
			break
		}
		if flow >= isa.FlowCall || m.loadedInto != 0 {
			m.control(c, t, uint64(pc), uint8(flow), uint64(r.R[arm.PC]), uint64(r.R[arm.LR]), uint64(sp), uint64(r.R[arm.SP]))
		}
		m.checkBudget(c)
		if m.done || len(m.hazards) > h {
			break
		}
	}
	return n
}

// pc returns task t's program counter.
func (m *Machine) pc(t int8) uint64 {
	if m.img.Arch == kernel.X86 {
		return m.tasks[t].X86.RIP
	}
	return uint64(m.tasks[t].ARM.R[arm.PC])
}

// skip moves task t's program counter past the n-byte instruction at its pc.
func (m *Machine) skip(t int8, n uint64) {
	if m.img.Arch == kernel.X86 {
		m.tasks[t].X86.RIP += n
	} else {
		m.tasks[t].ARM.R[arm.PC] += uint32(n)
	}
}

// switchTo puts task t (or the stopper) on free CPU c.
func (m *Machine) switchTo(c int8, t int8) {
	cpu := &m.cpus[c]
	if t == Stopper {
		cpu.Stopper = true
		m.event(Event{Kind: EvStopperIn, CPU: int(c), Task: -1})
		return
	}
	m.dequeue(t)
	cpu.Cur = t
	task := &m.tasks[t]
	task.State = Running
	task.CPU = c
	m.event(Event{Kind: EvSwitch, CPU: int(c), Task: int(t), PC: m.pcOf(t)})
}

// leave takes the current task off CPU c: a context switch on c.
// voluntary says whether the task gave the CPU up itself.
func (m *Machine) leave(c int8, voluntary bool) {
	cpu := &m.cpus[c]
	t := cpu.Cur
	cpu.Cur = -1
	if t >= 0 {
		task := &m.tasks[t]
		task.CPU = -1
		if voluntary {
			task.NVCSW++
			task.Preempted = false
			m.taskQS(t)
		}
	}
	m.cpuQS(c)
}

// cpuQS notes a context switch (or idle) on CPU c for synchronize_sched.
func (m *Machine) cpuQS(c int8) {
	if m.gpKind == OpSyncSched && m.gpCPUs&(1<<c) != 0 {
		m.gpCPUs &^= 1 << c
		if m.gpCPUs == 0 {
			m.wakePatcher()
		}
	}
}

// taskQS notes a voluntary switch or exit of task t for synchronize_rcu_tasks.
func (m *Machine) taskQS(t int8) {
	if m.gpKind == OpSyncRCUTasks && m.gpTasks&(1<<t) != 0 {
		m.gpTasks &^= 1 << t
		if m.gpTasks == 0 {
			m.wakePatcher()
		}
	}
}

func (m *Machine) wakePatcher() {
	if m.cfg.Record {
		label := m.prog.Ops[m.pop-1].Label
		m.event(Event{Kind: EvWaitDone, CPU: -1, Task: int(m.patcher), Text: label + ": " + m.gpKind.String() + "() returns"})
	}
	m.gpKind = 0
	m.enqueue(m.patcher)
}

// exit ends task t on CPU c.
func (m *Machine) exit(c int8, t int8) {
	m.event(Event{Kind: EvExit, CPU: int(c), Task: int(t)})
	m.leave(c, false)
	m.tasks[t].State = Exited
	m.taskQS(t)
	m.checkDone()
}

func (m *Machine) checkDone() {
	for t := 0; t <= int(m.patcher); t++ {
		if m.tasks[t].State != Exited {
			return
		}
	}
	m.done = true
}

// hazard records a hazard seen now.
func (m *Machine) hazard(k detect.Kind, cpu, task int, pc uint64, detail string) {
	if len(m.hazards) >= 16 {
		return
	}
	h := detect.Hazard{Kind: k, Step: m.steps, CPU: cpu, Task: task, PC: pc, Where: nameOr(m.img.Name(pc), fmt.Sprintf("%#x", pc)), Detail: detail}
	m.hazards = append(m.hazards, h)
	m.event(Event{Kind: EvHazard, CPU: cpu, Task: task, PC: pc, Text: h.Kind.String() + ": " + detail})
}

// Fault reports a fault: the task cannot continue, so the run ends.
func (m *Machine) fault(c int8, t int8, pc uint64, detail string) {
	m.hazard(detect.Fault, int(c), int(t), pc, detail)
	m.done = true
}

// Word classes for the partial-order reduction.
const (
	classUnknown uint8 = iota
	classLocal
	classVisible
)

// local reports whether worker t's next instruction touches nothing but
// t's own registers and stack and immutable text. Such a step commutes with
// every action of every other CPU, and preempting t just before it is
// equivalent to preempting t just before its next visible step (the local
// steps in between move before the switch without changing anything another
// task can see). So Options offers it alone, with no preemption: see the
// package doc of explore for the soundness argument. Visible are: fetches of
// bytes that a store may write, the scheduler hooks (schedule, exit), and
// loads and stores through any base register but sp and pc.
func (m *Machine) local(t int8) bool {
	if m.img.Arch == kernel.X86 {
		return m.localX86(t)
	}
	pc := uint64(m.tasks[t].ARM.R[arm.PC])
	off := pc - m.img.Base
	if pc < m.img.Base || off+4 > uint64(len(m.text)) || pc&3 != 0 {
		return true // a fault: it ends the run whatever the others do
	}
	cls := &m.st.class[off]
	if *cls != classUnknown {
		return *cls == classLocal
	}
	*cls = classLocal
	switch {
	case m.mutable(off, 4):
		*cls = classVisible
	case m.st.hook[off] == kernel.HookSchedule || m.st.hook[off] == kernel.HookExit:
		*cls = classVisible
	case m.st.hook[off] == kernel.HookNone:
		w := uint32(m.text[off]) | uint32(m.text[off+1])<<8 | uint32(m.text[off+2])<<16 | uint32(m.text[off+3])<<24
		if inst, err := m.st.dec.Lookup(uint32(pc), w); err == nil && !arm.StackOrLiteral(inst) {
			*cls = classVisible
		}
	}
	return *cls == classLocal
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

// ---- the patcher ----

func (m *Machine) patcherStep(c int8) {
	p := m.patcher
	if m.pop >= len(m.prog.Ops) {
		m.event(Event{Kind: EvPatch, CPU: int(c), Task: int(p), Text: "patcher done"})
		m.exit(c, p)
		return
	}
	op := &m.prog.Ops[m.pop]
	switch op.Kind {
	case OpStore:
		s := op.Stores[0]
		if op.Bytewise {
			b := Store{Addr: s.Addr + uint64(m.psub), Bytes: s.Bytes[m.psub : m.psub+1], Site: s.Site, Off: s.Off + m.psub, Form: s.Form}
			m.store(c, op, b)
			m.psub++
			if m.psub < len(s.Bytes) {
				return
			}
		} else {
			m.store(c, op, s)
		}
		m.next()
	case OpStopMachine:
		m.event(Event{Kind: EvPatch, CPU: int(c), Task: int(p), Text: op.Label + ": stop_machine() called"})
		m.stopOn = true
		m.stopCPU = c
		m.psub = 0
		// The caller sleeps until the stoppers are done; its CPU runs its stopper.
		m.leave(c, true)
		m.tasks[p].State = Blocked
		m.switchTo(c, Stopper)
	case OpSyncSched, OpSyncRCUTasks:
		m.event(Event{Kind: EvPatch, CPU: int(c), Task: int(p), Text: op.Label + ": " + op.Kind.String() + "() called"})
		m.next()
		var cpus uint16
		var tasks uint32
		if op.Kind == OpSyncSched {
			for i := 0; i < m.cfg.CPUs; i++ {
				if m.cpus[i].Cur >= 0 && int8(i) != c {
					cpus |= 1 << i
				}
			}
		} else {
			for t := 0; t < int(m.patcher); t++ {
				if m.tasks[t].State != Exited {
					tasks |= 1 << t
				}
			}
		}
		if cpus == 0 && tasks == 0 {
			m.event(Event{Kind: EvWaitDone, CPU: int(c), Task: int(p), Text: op.Label + ": " + op.Kind.String() + "() returns at once (no CPU or task to wait for)"})
			return
		}
		m.gpKind, m.gpCPUs, m.gpTasks = op.Kind, cpus, tasks
		m.leave(c, true)
		m.tasks[p].State = Blocked
	case OpSyncCore:
		if m.psub == 0 {
			m.event(Event{Kind: EvPatch, CPU: int(c), Task: int(p), Text: op.Label + ": sync_core() IPI to all CPUs"})
			for i := 0; i < m.cfg.CPUs; i++ {
				if int8(i) != c {
					m.cpus[i].IPI = true
					m.ipiWait |= 1 << i
				}
			}
			m.psub = 1
			if m.ipiWait != 0 {
				m.spin = true
				return
			}
		}
		m.event(Event{Kind: EvWaitDone, CPU: int(c), Task: int(p), Text: "sync_core done on all CPUs"})
		m.next()
	case OpBreakpointOn:
		m.bpOn, m.bpOp = true, m.pop
		m.event(Event{Kind: EvPatch, CPU: int(c), Task: int(p), Text: op.Label + ": int3 handler table published (text_poke_bp)"})
		m.next()
	case OpBreakpointOff:
		// The handler runs as one atomic step, so none is ever in flight
		// here: the wait for bp_desc.refs to drop is immediate.
		m.bpOn = false
		m.event(Event{Kind: EvPatch, CPU: int(c), Task: int(p), Text: op.Label + ": int3 handler table withdrawn (no handler in flight)"})
		m.next()
	default:
		m.fault(c, p, 0, fmt.Sprintf("patcher: unsupported operation %v", op.Kind))
	}
}

func (m *Machine) next() {
	m.pop++
	m.psub = 0
}

// store performs one patcher store as a step of CPU c.
func (m *Machine) store(c int8, op *Op, s Store) {
	m.write(s, op.Transition, int(c), op.Label)
	m.snapshotSites()
	if m.cfg.Record {
		m.event(Event{Kind: EvStore, CPU: int(c), Task: int(m.patcher), PC: s.Addr, Bytes: append([]byte(nil), s.Bytes...),
			Text: fmt.Sprintf("%s: write %s at %s", op.Label, describeBytes(m.img.Arch, s), m.img.Name(s.Addr)), Write: int(m.nwrites)})
	}
}

// stopperStep runs the stop_machine function on the patcher's CPU once
// every CPU spins in its stopper: one store per step, then the release.
func (m *Machine) stopperStep(c int8) {
	op := &m.prog.Ops[m.pop]
	if m.psub < len(op.Stores) {
		s := op.Stores[m.psub]
		m.write(s, op.Transition, int(c), op.Label)
		if m.cfg.Record {
			m.event(Event{Kind: EvStore, CPU: int(c), Task: -1, PC: s.Addr, Bytes: append([]byte(nil), s.Bytes...),
				Text: fmt.Sprintf("%s: stopper writes %s at %s", op.Label, describeBytes(m.img.Arch, s), m.img.Name(s.Addr)), Write: int(m.nwrites)})
		}
		m.psub++
		return
	}
	m.snapshotSites()
	m.stopOn = false
	for i := 0; i < m.cfg.CPUs; i++ {
		m.cpus[i].Stopper = false
	}
	m.event(Event{Kind: EvStopperOut, CPU: int(c), Task: -1, Text: op.Label + ": stop_machine() done, all CPUs back to scheduling"})
	m.next()
	m.enqueue(m.patcher)
}

// ---- workers ----

// Load implements isa.Bus for the ARM task executing now.
func (m *Machine) Load(addr uint64, size int, reg uint8) (uint64, error) {
	// Only whole-word loads can restore a return address; gcc also uses
	// lr as a scratch register for halfwords and bytes once it is saved.
	link := size == 4 && (reg == arm.LR || reg == arm.PC)
	return m.loadMem(addr, size, reg, link)
}

// Store implements isa.Bus for the ARM task executing now.
func (m *Machine) Store(addr uint64, size int, v uint64, reg uint8) error {
	return m.storeMem(addr, size, v, reg)
}

// loadMem reads size bytes at a for the task executing now: from its own
// stack, from text (literal pools) or from a data segment. link says that
// the value goes to a control register: the slot it came from is noted for
// the foreign-slot detector.
func (m *Machine) loadMem(a uint64, size int, reg uint8, link bool) (uint64, error) {
	lo, hi := m.stackRange(m.cur)
	var mem []byte
	switch off, ok := m.dataOff(a, size); {
	case a >= lo && a+uint64(size) <= hi:
		mem = m.stack[a-StackBase:]
		if link {
			m.loadedLink = m.slots[(a-StackBase)/4]
			m.loadedFrom = a
			m.loadedInto = reg
		}
	case a >= m.img.Base && a+uint64(size) <= m.img.Base+uint64(len(m.text)):
		mem = m.text[a-m.img.Base:]
	case ok:
		mem = m.data[off:]
	default:
		return 0, fmt.Errorf("load of %d bytes at %#x outside the task's stack [%#x,%#x), text and data: %w", size, a, lo, hi, isa.ErrMemory)
	}
	var v uint64
	for i := size - 1; i >= 0; i-- {
		v = v<<8 | uint64(mem[i])
	}
	return v, nil
}

// storeMem writes size bytes of v at a for the task executing now: to its own
// stack (remembering the register each word came from) or a data segment.
// Text is not writable by code.
func (m *Machine) storeMem(a uint64, size int, v uint64, reg uint8) error {
	lo, hi := m.stackRange(m.cur)
	if a >= lo && a+uint64(size) <= hi {
		m.storeStack(a, size, v, reg)
		return nil
	}
	if off, ok := m.dataOff(a, size); ok {
		for i := 0; i < size; i++ {
			m.data[off+uint64(i)] = byte(v >> (8 * i))
		}
		return nil
	}
	return fmt.Errorf("store of %d bytes at %#x outside the task's stack [%#x,%#x) and data: %w", size, a, lo, hi, isa.ErrMemory)
}

func (m *Machine) stackRange(t int8) (uint64, uint64) {
	top := m.stackTop(int(t))
	return top - uint64(m.cfg.StackWords*4), top
}

func (m *Machine) workerStep(c int8, t int8) {
	if m.img.Arch == kernel.X86 {
		m.x86Step(c, t)
		return
	}
	task := &m.tasks[t]
	r := &task.ARM
	pc := uint64(r.R[arm.PC])
	off := pc - m.img.Base
	if pc < m.img.Base || off+4 > uint64(len(m.text)) || pc&3 != 0 {
		m.closePass(c, t)
		m.fault(c, t, pc, fmt.Sprintf("pc %#x is outside text (or misaligned)", pc))
		return
	}
	// The fast path: a word no store may write, with no hook and outside
	// every site, was decoded once and can never change.
	if inst := m.st.plain[off>>2]; inst != nil && !task.Pass.Open && !m.cfg.Record {
		sp := r.R[arm.SP]
		m.cur = t
		m.loadedInto = 0
		flow, err := arm.Exec(inst, r, m)
		if err != nil {
			m.fault(c, t, pc, err.Error())
			return
		}
		if flow >= isa.FlowCall || m.loadedInto != 0 {
			m.control(c, t, pc, uint8(flow), uint64(r.R[arm.PC]), uint64(r.R[arm.LR]), uint64(sp), uint64(r.R[arm.SP]))
		}
		return
	}
	if h := m.st.hook[off]; h != kernel.HookNone {
		m.closePass(c, t)
		m.hook(c, t, h)
		return
	}
	w := uint32(m.text[off]) | uint32(m.text[off+1])<<8 | uint32(m.text[off+2])<<16 | uint32(m.text[off+3])<<24
	inst, err := m.st.dec.Lookup(uint32(pc), w)
	if err != nil {
		m.closePass(c, t)
		m.fault(c, t, pc, err.Error())
		return
	}
	if site := m.st.siteOf[off]; site >= 0 {
		m.sitePass(c, t, int(site), pc, 4)
	} else {
		if task.Pass.Open {
			m.closePass(c, t)
		}
		if !m.mutable(off, 4) {
			m.st.plain[off>>2] = inst
		}
	}
	if m.cfg.Record {
		m.event(Event{Kind: EvExec, CPU: int(c), Task: int(t), PC: pc, Bytes: append([]byte(nil), m.text[off:off+4]...),
			Text: arm.Disasm(inst, uint32(pc), func(a uint32) string { return m.img.Name(uint64(a)) }), Write: int(m.prov[off])})
	}
	sp := r.R[arm.SP]
	m.cur = t
	m.loadedInto = 0
	flow, err := arm.Exec(inst, r, m)
	if err != nil {
		m.fault(c, t, pc, err.Error())
		return
	}
	m.control(c, t, pc, uint8(flow), uint64(r.R[arm.PC]), uint64(r.R[arm.LR]), uint64(sp), uint64(r.R[arm.SP]))
}

func nameOr(s, alt string) string {
	if s == "" {
		return alt
	}
	return s
}

// regName names register r of the machine's arch.
func (m *Machine) regName(r uint8) string {
	if m.img.Arch == kernel.X86 {
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
	switch r {
	case arm.SP:
		return "sp"
	case arm.LR:
		return "lr"
	case arm.PC:
		return "pc"
	}
	return fmt.Sprintf("r%d", r)
}

// isLink reports whether a slot written from src holds a saved link value.
func (m *Machine) isLink(src uint8) bool {
	if m.img.Arch == kernel.X86 {
		return src == isa.RetAddr
	}
	return src == arm.LR
}

func (m *Machine) slotSource(src uint8) string {
	switch {
	case src == detect.SlotUnwritten:
		return "never written"
	case src == isa.NoReg:
		return "written by no register"
	case m.img.Arch == kernel.X86 && src == isa.RetAddr:
		return "written by a call (a return address)"
	}
	return "written from " + m.regName(src)
}

// hook performs the kernel service bound at the task's pc.
func (m *Machine) hook(c int8, t int8, h kernel.HookKind) {
	pc := m.pc(t)
	step := uint64(4)
	ip, parent := uint64(m.tasks[t].ARM.R[0]), uint64(m.tasks[t].ARM.R[1])
	if m.img.Arch == kernel.X86 {
		step = 1 // the hook is a one-byte nop
		ip, parent = m.tasks[t].X86.R[x86.RDI], m.tasks[t].X86.R[x86.RSI]
	}
	switch h {
	case kernel.HookTrace:
		m.skip(t, step)
		if m.cfg.Record {
			m.event(Event{Kind: EvTrace, CPU: int(c), Task: int(t), PC: pc,
				Text: fmt.Sprintf("tracer: %s called from %s", nameOr(m.img.Name(ip), fmt.Sprintf("%#x", ip)), nameOr(m.img.Name(parent), fmt.Sprintf("%#x", parent)))})
		}
	case kernel.HookSchedule:
		m.skip(t, step)
		m.event(Event{Kind: EvYield, CPU: int(c), Task: int(t), PC: pc, Text: "schedule(): voluntary switch"})
		m.leave(c, true)
		m.enqueue(t)
	case kernel.HookExit:
		m.exit(c, t)
	}
}

// sitePass notes that task t fetched the instruction at pc inside site.
func (m *Machine) sitePass(c int8, t int8, site int, pc uint64, n int) {
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
	b := m.text[pc-m.img.Base : pc-m.img.Base+uint64(n)]
	p.Fetch(off, b, m.prov[pc-m.img.Base:pc-m.img.Base+uint64(n)])
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

// Deadlock records that no CPU can make progress although the run is not
// over (a fault), and ends the run.
func (m *Machine) Deadlock() {
	m.fault(-1, -1, 0, "deadlock: no CPU can make progress and not every task has exited")
}
