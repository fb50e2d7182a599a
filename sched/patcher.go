package sched

import (
	"fmt"
)

// The patcher task and the stop_machine stoppers.

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
			m.store(c, op, s.byteOf(m.psub))
			m.psub++
			if m.psub < len(s.Bytes) {
				return
			}
		} else {
			m.store(c, op, s)
		}
		m.next()
	case OpStopMachine:
		if m.cfg.Record {
			m.event(Event{Kind: EvPatch, Label: op.Label, Op: op.Kind.String(), CPU: int(c), Task: int(p), Text: op.Label + ": stop_machine() called"})
		}
		m.stopOn = true
		m.stopCPU = c
		m.psub = 0
		// The caller sleeps until the stoppers are done; its CPU runs its stopper.
		m.leave(c, true)
		m.tasks[p].State = Blocked
		m.switchTo(c, Stopper)
	case OpSyncSched, OpSyncRCUTasks:
		if m.cfg.Record {
			m.event(Event{Kind: EvPatch, Label: op.Label, Op: op.Kind.String(), CPU: int(c), Task: int(p), Text: op.Label + ": " + op.Kind.String() + "() called"})
		}
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
			if m.cfg.Record {
				m.event(Event{Kind: EvWaitDone, Label: op.Label, Op: op.Kind.String(), CPU: int(c), Task: int(p), Text: op.Label + ": " + op.Kind.String() + "() returns at once (no CPU or task to wait for)"})
			}
			return
		}
		m.gpKind, m.gpCPUs, m.gpTasks = op.Kind, cpus, tasks
		m.leave(c, true)
		m.tasks[p].State = Blocked
	case OpSyncCore, OpFlushIcacheAll:
		if m.psub == 0 {
			if m.cfg.Record {
				m.event(Event{Kind: EvPatch, Label: op.Label, Op: op.Kind.String(), CPU: int(c), Task: int(p), Text: op.Label + ": " + op.Kind.String() + "() IPI to all CPUs"})
			}
			m.syncCPU(c, ownCPUSync[op.Kind])
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
		if m.cfg.Record {
			m.event(Event{Kind: EvWaitDone, Label: op.Label, Op: op.Kind.String(), CPU: int(c), Task: int(p), Text: op.Kind.String() + " done on all CPUs"})
		}
		m.next()
	case OpBreakpointOn:
		m.bpOn, m.bpOp = true, m.pop
		if m.cfg.Record {
			m.event(Event{Kind: EvPatch, Label: op.Label, Op: op.Kind.String(), CPU: int(c), Task: int(p), Text: op.Label + ": int3 handler table published (text_poke_bp)"})
		}
		m.next()
	case OpBreakpointOff:
		// Options offers this step only once no CPU is inside the int3
		// handler (text_poke_bp waits for bp_desc.refs to drop); a CPU
		// that traps on a stale int3 afterwards finds no table.
		m.bpOn = false
		if m.cfg.Record {
			m.event(Event{Kind: EvPatch, Label: op.Label, Op: op.Kind.String(), CPU: int(c), Task: int(p), Text: op.Label + ": int3 handler table withdrawn (no handler in flight)"})
		}
		m.next()
	default:
		m.fault(c, p, 0, fmt.Sprintf("patcher: unsupported operation %v", op.Kind))
	}
}

// ownCPUSync is why the patcher's own CPU synchronizes, by the op.
var ownCPUSync = [...]string{
	OpSyncCore:       OpSyncCore.String() + "() on the patcher's own CPU",
	OpFlushIcacheAll: OpFlushIcacheAll.String() + "() on the patcher's own CPU",
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
		m.event(Event{Kind: EvStore, Label: op.Label, Op: op.Kind.String(), CPU: int(c), Task: int(m.patcher), PC: s.Addr, Bytes: append([]byte(nil), s.Bytes...),
			Text: fmt.Sprintf("%s: write %s at %s", op.Label, m.core.describe(s.Addr, s.Bytes), m.img.Name(s.Addr)), Write: int(m.nwrites)})
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
			m.event(Event{Kind: EvStore, Label: op.Label, Op: op.Kind.String(), CPU: int(c), Task: -1, PC: s.Addr, Bytes: append([]byte(nil), s.Bytes...),
				Text: fmt.Sprintf("%s: stopper writes %s at %s", op.Label, m.core.describe(s.Addr, s.Bytes), m.img.Name(s.Addr)), Write: int(m.nwrites)})
		}
		m.psub++
		return
	}
	m.snapshotSites()
	m.stopOn = false
	for i := 0; i < m.cfg.CPUs; i++ {
		m.cpus[i].Stopper = false
		m.syncCPU(int8(i), "leaving the stopper")
	}
	if m.cfg.Record {
		m.event(Event{Kind: EvStopperOut, Label: op.Label, Op: op.Kind.String(), CPU: int(c), Task: -1, Text: op.Label + ": stop_machine() done, all CPUs back to scheduling"})
	}
	m.next()
	m.enqueue(m.patcher)
}
