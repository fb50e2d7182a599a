package sched

import (
	"fmt"

	"github.com/mcountsim/mcountsim/detect"
)

// hazard records a hazard seen now.
func (m *Machine) hazard(k detect.Kind, cpu, task int, pc uint64, detail string) {
	if len(m.hazards) >= 16 {
		return
	}
	h := detect.Hazard{Kind: k, Step: m.steps, CPU: cpu, Task: task, PC: pc, Where: nameOr(m.img.Name(pc), fmt.Sprintf("%#x", pc)), Detail: detail}
	m.hazards = append(m.hazards, h)
	m.event(Event{Kind: EvHazard, CPU: cpu, Task: task, PC: pc, Text: h.Kind.String() + ": " + detail, Hazard: h.Kind.String(), Detail: detail})
}

// lastHazard is the hazard just recorded (for its typed fields), or nil
// when the list was full.
func (m *Machine) lastHazard(step int) *detect.Hazard {
	if n := len(m.hazards); n > 0 && m.hazards[n-1].Step == step {
		return &m.hazards[n-1]
	}
	return nil
}

// faultErr is a fault caused by err (a decode or execution error, an
// *isa.Fault): the hazard carries it, so that errors.Is(h.Err,
// isa.ErrUnsupported) tells an executor's gap from a program's fault.
func (m *Machine) faultErr(c int8, t int8, pc uint64, err error) {
	m.fault(c, t, pc, err.Error())
	if h := m.lastHazard(m.steps); h != nil && h.Kind == detect.Fault {
		h.Err = err
	}
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
