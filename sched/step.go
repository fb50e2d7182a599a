package sched

import (
	"fmt"

	"github.com/mcountsim/mcountsim/detect"
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

// IsPreemption reports whether a is an involuntary switch.
func (a Action) IsPreemption() bool { return a.Kind == ActPreempt }

func (m *Machine) preemptible(t int8) bool {
	if m.cfg.Preempt != PreemptFull {
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
			pc = m.core.pc(t)
		}
		m.hazard(detect.Fault, int(c), int(cpu.Cur), pc, fmt.Sprintf("step budget of %d steps used up (runaway execution)", m.cfg.MaxSteps))
		m.done = true
	}
}

func (m *Machine) pcOf(t int8) uint64 {
	if t < 0 || t == m.patcher {
		return 0
	}
	return m.core.pc(t)
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
		if !m.cfg.Record && !m.tasks[t].Pass.Open {
			m.cur = t
			k := m.core.runPlain(m, c, t, max-n)
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

// Deadlock records that no CPU can make progress although the run is not
// over (a fault), and ends the run.
func (m *Machine) Deadlock() {
	m.fault(-1, -1, 0, "deadlock: no CPU can make progress and not every task has exited")
}
