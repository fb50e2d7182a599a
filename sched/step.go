package sched

import (
	"fmt"
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

var actionNames = [...]string{"run", "pick", "preempt", "ipi", "irq", "wake"}

func (k ActionKind) String() string { return actionNames[k] }

// Stopper is the Task of an action that switches a CPU to its stopper.
const Stopper int8 = -2

// Action is one possible step.
type Action struct {
	CPU  int8
	Kind ActionKind
	Task int8
	// Fetch (ActRun of a worker whose CPU's view of the bytes at its pc is
	// stale) picks which of the values the CPU may fetch it fetches: 0 is
	// the newest (fetch.go).
	Fetch uint16
	// Load (ActRun of a worker of a modular machine whose instruction
	// loads a shared data cell) picks the value it reads: 1 + its index
	// in the cell's value set; 0: no choice (envcells.go).
	Load uint16
}

func (a Action) String() string {
	switch a.Kind {
	case ActRun:
		switch {
		case a.Fetch > 0 && a.Load > 0:
			return fmt.Sprintf("cpu%d run (fetch variant %d, load variant %d)", a.CPU, a.Fetch, a.Load)
		case a.Fetch > 0:
			return fmt.Sprintf("cpu%d run (fetch variant %d)", a.CPU, a.Fetch)
		case a.Load > 0:
			return fmt.Sprintf("cpu%d run (load variant %d)", a.CPU, a.Load)
		}
		return fmt.Sprintf("cpu%d run", a.CPU)
	case ActIPI:
		return fmt.Sprintf("cpu%d ipi", a.CPU)
	case ActIRQ, ActWake:
		return irqString(a)
	}
	to := fmt.Sprintf("task %d", a.Task)
	if a.Task == Stopper {
		to = "stopper"
	}
	return fmt.Sprintf("cpu%d %s -> %s", a.CPU, a.Kind, to)
}

// Options appends to buf every action possible now and returns it. The
// first option is the default: the CPU that stepped last keeps running.
// A finished run has no options. Preemptions (the involuntary switches
// that a preemption bound counts) come last, so that the numbering of
// every other option does not depend on how many are offered: an explorer
// that bounds them drops the tail (OptionsWithin), and a schedule found at
// one bound replays unchanged at any larger one.
func (m *Machine) Options(buf []Action) []Action {
	buf = buf[:0]
	if m.done {
		return buf
	}
	n := int8(m.cfg.CPUs)
	if !m.cfg.Unreduced {
		for i := int8(0); i < n; i++ {
			c := nextCPU(m.lastCPU, i, n)
			cpu := &m.cpus[c]
			switch {
			case cpu.Stopper:
			case cpu.IPI && !m.inTrap(cpu):
				// Taking a sync_core IPI touches nothing but the IPI's
				// own bookkeeping and this CPU's view of text (which no
				// other CPU reads); it commutes with every other action
				// but the patcher's stores, which wait for it: take it now.
				return append(buf, Action{CPU: c, Kind: ActIPI})
			case cpu.Cur < 0 && m.stopOn:
				// Likewise a free CPU entering its stopper.
				return append(buf, Action{CPU: c, Kind: ActPick, Task: Stopper})
			case cpu.Cur >= 0 && cpu.Cur != m.patcher && m.local(cpu.Cur):
				return append(buf, Action{CPU: c, Kind: ActRun})
			case cpu.Cur == m.patcher && m.patcherLocal(): // quiet.go
				return append(buf, Action{CPU: c, Kind: ActRun})
			}
		}
	}
	allStop := m.allInStopper()
	for i := int8(0); i < n; i++ {
		c := nextCPU(m.lastCPU, i, n)
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
		case cpu.Cur == m.patcher && m.patcherWaits():
			// The patcher spins with preemption disabled until every
			// other CPU has taken its sync_core IPI (or left the int3
			// handler): nothing to step.
		case cpu.IPI && !m.inTrap(cpu):
			buf = append(buf, Action{CPU: c, Kind: ActIPI})
		default:
			buf = m.appendRun(buf, c)
		}
	}
	if m.tr.on {
		buf = m.appendIRQs(buf) // irq.go: before the preemptions
	}
	// Preemptions come last, so that the numbering of every other option
	// does not depend on the preemptions left: a schedule found at one
	// bound replays unchanged at any larger bound.
	for i := int8(0); i < n; i++ {
		c := nextCPU(m.lastCPU, i, n)
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
		if m.tickMatters(c) {
			// A timer interrupt whose schedule() picks the same task.
			buf = append(buf, Action{CPU: c, Kind: ActPreempt, Task: cpu.Cur})
		}
	}
	return buf
}

// nextCPU is CPU (last+i) mod n, for last and i below n (no division:
// Options asks three times per CPU per call).
func nextCPU(last, i, n int8) int8 {
	c := last + i
	if c >= n {
		c -= n
	}
	return c
}

// appendRun appends the run step(s) of CPU c: one, or for a worker whose
// CPU may fetch stale bytes at its pc, one per fetch variant.
func (m *Machine) appendRun(buf []Action, c int8) []Action {
	t := m.cpus[c].Cur
	if t >= 0 && t != m.patcher && !m.tasks[t].InTrap {
		if off, ok := m.textOff(m.core.pc(t)); ok && m.stale(c, off, m.shape.maxLen) {
			n := len(m.fetchVariants(c, off+m.img.Base, off))
			for k := 0; k < n; k++ {
				buf = append(buf, Action{CPU: c, Kind: ActRun, Fetch: uint16(k)})
			}
			return buf
		}
		if m.cfg.Env != nil {
			// A load of a shared data cell: one step per value of its
			// set (envcells.go).
			if n := m.envVariants(t); n > 0 {
				for k := 1; k <= n; k++ {
					buf = append(buf, Action{CPU: c, Kind: ActRun, Load: uint16(k)})
				}
				return buf
			}
		}
	}
	return append(buf, Action{CPU: c, Kind: ActRun})
}

// inTrap reports whether CPU c runs a task inside a breakpoint handler
// (interrupts off: it takes no IPI and no timer interrupt).
func (m *Machine) inTrap(cpu *CPU) bool { return cpu.Cur >= 0 && m.tasks[cpu.Cur].InTrap }

// patcherWaits reports whether the patcher is spinning: for the CPUs that
// still owe it a sync_core IPI, or, in bp_off, for CPUs inside the int3
// handler (text_poke_bp waits for bp_desc.refs to drop).
func (m *Machine) patcherWaits() bool {
	if m.spin {
		return true
	}
	if m.pop < len(m.prog.Ops) && m.prog.Ops[m.pop].Kind == OpBreakpointOff {
		for t := 0; t < int(m.patcher); t++ {
			if m.tasks[t].InTrap {
				return true
			}
		}
	}
	return false
}

// tickMatters reports whether a timer interrupt on CPU c that returns to
// the task it interrupted can change what may happen: it is a quiescent
// state for a synchronize_sched() that waits for c. It also synchronizes
// c's view of text, but that only takes choices away (a CPU with a stale
// view may still fetch the newest bytes, and one that synchronized raises
// no cmodx), so the runs it would add are already among those without it,
// with one preemption fewer. Otherwise it is not offered.
func (m *Machine) tickMatters(c int8) bool {
	return m.gpKind == OpSyncSched && m.gpCPUs&(1<<c) != 0
}

// OptionsWithin is Options for an explorer that allows at most bound
// preemptions in a run: once the run has made that many, it offers none.
func (m *Machine) OptionsWithin(buf []Action, bound int) []Action {
	buf = m.Options(buf)
	if m.preemptions >= bound {
		for len(buf) > 0 && buf[len(buf)-1].Kind == ActPreempt {
			buf = buf[:len(buf)-1]
		}
	}
	return buf
}

func (m *Machine) preemptible(t int8) bool {
	if m.cfg.Preempt != PreemptFull || m.tr.on && !m.preemptOK(t) || m.standIn(t) {
		// A stand-in switches voluntarily wherever it runs, which
		// covers its preemptions (modular.go).
		return false
	}
	// The patcher spinning for sync_core IPIs has preemption disabled; a
	// task in a breakpoint handler runs with interrupts off.
	return !(t == m.patcher && m.ipiWait != 0) && !m.tasks[t].InTrap
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
	// A step changes no task but the one its CPU runs before and after
	// it, and those the scheduler's primitives move (which mark them
	// themselves: enqueue, switchTo, leave); the tracer kernel's
	// interrupts and wakeups reach further.
	touch := taskBit(cpu.Cur)
	if m.tr.on || a.Kind == ActIRQ || a.Kind == ActWake {
		touch = ^uint32(0)
	}
	switch a.Kind {
	case ActPick:
		m.switchTo(c, a.Task)
	case ActPreempt:
		t := cpu.Cur
		m.preemptions++
		if a.Task == t {
			m.event(Event{Kind: EvPreempt, CPU: int(c), Task: int(t), PC: m.pcOf(t), Text: "a timer interrupt; schedule() picks the same task"})
			m.clearMonitor(c) // the exception return (monitor.go)
			if m.shape.excSync {
				m.syncCPU(c, "a timer interrupt")
			}
			m.cpuQS(c)
			break
		}
		why := "a timer interrupt"
		if a.Task == Stopper {
			why = "its CPU's stopper (stop_machine)"
		}
		m.event(Event{Kind: EvPreempt, CPU: int(c), Task: int(t), PC: m.pcOf(t), Text: why, ByStopper: a.Task == Stopper})
		if m.tr.on && t < m.patcher {
			m.tickPreempt(c, t)
		}
		m.leave(c, false)
		m.tasks[t].Preempted = true
		m.enqueue(t)
		if m.shape.excSync {
			m.syncCPUTask(c, "the interrupt that preempted task %d", t)
		}
		m.switchTo(c, a.Task)
	case ActIPI:
		cpu.IPI = false
		m.ipiWait &^= 1 << c
		m.event(Event{Kind: EvIPI, CPU: int(c), Task: int(cpu.Cur)})
		m.syncCPU(c, "the sync_core IPI")
		if m.ipiWait == 0 {
			m.spin = false
		}
	case ActIRQ, ActWake:
		m.applyIRQ(a)
	case ActRun:
		switch {
		case cpu.Stopper:
			m.stopperStep(c)
		case cpu.Cur == m.patcher:
			m.patcherStep(c)
		case m.cfg.Env != nil:
			t, pc := cpu.Cur, m.core.pc(cpu.Cur)
			m.envBegin(a.Load) // envcells.go
			m.workerStep(c, t, int(a.Fetch))
			m.envEnd(c, t, pc)
		default:
			m.workerStep(c, cpu.Cur, int(a.Fetch))
		}
	}
	m.checkBudget(c)
	m.touched(touch | taskBit(cpu.Cur))
}

// checkBudget ends a run that used up its step budget. Such a run has no
// verdict: a search that meets one is INCOMPLETE (OutOfSteps).
func (m *Machine) checkBudget(c int8) {
	if !m.done && m.steps >= m.cfg.MaxSteps {
		m.outOfSteps = true
		m.done = true
		m.event(Event{Kind: EvBudget, CPU: int(c), Task: int(m.cpus[c].Cur), PC: m.pcOf(m.cpus[c].Cur),
			Text: fmt.Sprintf("step budget of %d steps used up (runaway execution?)", m.cfg.MaxSteps)})
	}
}

// BudgetText says why a run that is OutOfSteps ended.
func (m *Machine) BudgetText() string {
	if m.budgetWhy != "" {
		return m.budgetWhy
	}
	return fmt.Sprintf("step budget of %d steps used up (runaway execution)", m.cfg.MaxSteps)
}

func (m *Machine) pcOf(t int8) uint64 {
	if t < 0 || t == m.patcher {
		return 0
	}
	return m.core.pc(t)
}

// RunPatcher takes the patcher's steps that Options would offer alone
// (patcherLocal: a store no worker can see, one behind a breakpoint, the
// end of a wait for IPIs) one after another, while the CPU that stepped
// last runs the patcher: at most max of them, stopping at a new hazard or
// the run's end, and returns how many it took. It is exactly that many
// rounds of Apply(Options()[0]), without building option lists (an x86
// object's text_poke_bp batch writes every site of the object, most of
// them local stores); with the reduction off it takes no step.
func (m *Machine) RunPatcher(max int) int {
	if m.cfg.Unreduced {
		return 0
	}
	n, h := 0, len(m.hazards)
	for n < max && !m.done && len(m.hazards) == h {
		c := m.lastCPU
		if cpu := &m.cpus[c]; cpu.Stopper || cpu.IPI || cpu.Cur != m.patcher || !m.patcherLocal() {
			break
		}
		m.Apply(Action{CPU: c, Kind: ActRun})
		n++
	}
	return n
}

// RunLocal takes the steps that Options would offer alone, one after
// another: as long as the CPU that stepped last runs a worker whose next
// instruction is thread-local (see local), it steps that CPU. It stops after
// max steps, at a new hazard, or when the run ends, and returns the steps
// taken. It is exactly max (or fewer) rounds of Apply(Options()[0]) over
// those steps, without building option lists; with the reduction off it
// takes no step.
func (m *Machine) RunLocal(max int) int { return m.RunLocalChunk(max, max) }

// RunLocalChunk is RunLocal that executes at most chunk steps but takes
// up to limit (at least chunk) where a memoized stretch (memo.go) that
// begins within the chunk runs on past it. A caller that bounds each
// call only to look at its budget in between passes that bound as the
// chunk and its hard limit as limit: a stretch was recorded up to the end
// of the chunk it began in, and the chunk of a later path through the
// same state begins elsewhere (a64-O1-pfe2 d_bsearch: 73 M of 94 M
// executed steps in 10 s were stretches whose recording did not fit in
// what was left of the chunk).
func (m *Machine) RunLocalChunk(chunk, limit int) int {
	n, _ := m.runLocal(chunk, limit, -1)
	return n
}

// RunLocalToSite is RunLocalChunk that also stops before a worker's
// thread-local fetch of bytes a store of the program may write (a site
// whose writes are all made), before its first step too when first: it
// reports whether it stopped there. The search looks such a state up in
// its visited set (explore's package doc): the thread-local runs that
// follow the patcher's last write to a site from many states pass through
// the same states there.
func (m *Machine) RunLocalToSite(chunk, limit int, first bool) (int, bool) {
	if first {
		return m.runLocal(chunk, limit, 0)
	}
	return m.runLocal(chunk, limit, 1)
}

// runLocal is RunLocalChunk, stopping before a site after sites steps
// (sites < 0: never).
func (m *Machine) runLocal(chunk, limit, sites int) (int, bool) {
	if m.cfg.Unreduced {
		return 0, false
	}
	site := false
	c := m.lastCPU
	n := 0
	var touch uint32
	if m.tr.on {
		touch = ^uint32(0)
	}
	var rec memoRec
	start := m.memoStart(c) // memo.go
	limit = max(chunk, limit)
	for n < chunk && !m.done {
		cpu := &m.cpus[c]
		t := cpu.Cur
		if cpu.Stopper || cpu.IPI || t < 0 || t == m.patcher || !m.local(t) {
			break
		}
		if sites >= 0 && n >= sites && m.atFetch(t) {
			site = true
			break
		}
		touch |= taskBit(t)
		if rec.on || m.memoOn(t) {
			if k := m.memoStep(c, t, n, limit-n, &rec); k > 0 {
				n += k
				continue
			}
		}
		if !m.cfg.Record && m.res == nil && !m.tasks[t].Pass.Open && !m.tr.on {
			m.cur = t
			k := m.core.runPlain(m, c, t, chunk-n)
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
		m.workerStep(c, t, 0)
		m.checkBudget(c)
		n++
		if len(m.hazards) > h {
			break
		}
	}
	if rec.on {
		m.memoEnd(rec.t, &rec)
	}
	m.memoLearn(start, n)
	m.touched(touch | taskBit(m.cpus[c].Cur))
	return n, site
}

// atFetch reports whether worker t's next instruction is one whose bytes a
// store of the program may write (classFetch).
func (m *Machine) atFetch(t int8) bool {
	off, ok := m.textOff(m.core.pc(t))
	return ok && m.st.class[off] == classFetch
}
