package report

import (
	"fmt"

	"github.com/mcountsim/mcountsim/explore"
	"github.com/mcountsim/mcountsim/sched"
)

// taskClass is the colour class of task t (the stopper is drawn as the patcher's).
func taskClass(run *explore.Run, t int) string {
	switch {
	case t == stopper:
		return "c-stopper"
	case t == idle:
		return "c-idle"
	case t == run.Tasks:
		return "c-patcher"
	}
	return fmt.Sprintf("c-w%d", t%8)
}

func bandClass(run *explore.Run, t int) string { return taskClass(run, t) }

func bandName(run *explore.Run, t int) string {
	switch t {
	case stopper:
		return "stopper"
	case idle:
		return "idle"
	}
	return taskName(run, t)
}

// eventCell says in which lane an event goes and what it shows there.
func eventCell(run *explore.Run, e sched.Event) (int, *eventView) {
	lane := run.CPUs + e.Task
	if e.Task < 0 || e.Task > run.Tasks {
		lane = run.CPUs + run.Tasks // stopper events go to the patcher's lane
	}
	ev := &eventView{Kind: e.Kind.String(), Text: e.Text}
	if e.PC != 0 {
		ev.Addr = fmt.Sprintf("%#x", e.PC)
		ev.Where = e.Where
	}
	switch e.Kind {
	case sched.EvExec:
		ev.Bytes, ev.Disasm, ev.Text = e.Hex, e.Text, ""
	case sched.EvTrace:
		ev.Badge = "trace"
	case sched.EvYield:
		ev.Badge, ev.Text = "yield", "schedule(): voluntary switch"
	case sched.EvSwitch:
		ev.Badge, ev.Text = "switch", fmt.Sprintf("switched in on cpu%d", e.CPU)
	case sched.EvPreempt:
		ev.Badge, ev.Text = "preempted", fmt.Sprintf("timer interrupt: preempted on cpu%d", e.CPU)
	case sched.EvExit:
		ev.Badge, ev.Text = "exit", "exits"
	case sched.EvPatch:
		ev.Badge = "patch"
	case sched.EvStore:
		// write #3, enable #1, f0+0x4, e52de004 (push {lr}).
		ev.Badge, ev.Text = fmt.Sprintf("write #%d", e.Write), e.Label
		ev.Disasm = describe(run, sched.Store{Addr: e.PC, Bytes: e.Bytes})
	case sched.EvStopperIn:
		ev.Badge, ev.Text = "stopper", fmt.Sprintf("cpu%d enters its stopper", e.CPU)
	case sched.EvStopperOut:
		ev.Badge = "stopper"
	case sched.EvWaitDone:
		ev.Badge = "done"
	case sched.EvIPI:
		ev.Badge, ev.Text = "ipi", fmt.Sprintf("cpu%d takes the sync_core IPI", e.CPU)
	case sched.EvIRQ:
		ev.Badge = e.Vector
		if e.Vector == "return" {
			ev.Badge = "irq return"
		}
		if e.State != nil {
			ev.Disasm = e.State.String()
		}
	case sched.EvState:
		ev.Badge = "thread_info"
	case sched.EvLost:
		ev.Badge = "lost " + e.Context + " event"
	case sched.EvHazard:
		ev.Badge, ev.Text = "HAZARD "+e.Hazard, e.Detail
	}
	return lane, ev
}

// byStopper reports whether the preemption trace[i] switched its CPU to
// the stopper rather than to another task.
func byStopper(trace []sched.Event, i int) bool {
	e := trace[i]
	for _, n := range trace[i+1:] {
		if n.Step != e.Step {
			break
		}
		if n.CPU == e.CPU && n.Kind == sched.EvStopperIn {
			return true
		}
	}
	return false
}

func summary(run *explore.Run, e sched.Event) string {
	who := taskName(run, e.Task)
	if e.Task < 0 {
		who = "stopper"
	}
	cpu := "-"
	if e.CPU >= 0 {
		cpu = fmt.Sprintf("cpu%d", e.CPU)
	}
	what := e.Text
	if e.Kind == sched.EvExec {
		what = fmt.Sprintf("%s: %s", shortWhere(e), e.Text)
	} else if what == "" {
		what = e.Kind.String()
	}
	return fmt.Sprintf("step %d · %s · %s · %s", e.Step, cpu, who, what)
}

func nameOr(s, alt string) string {
	if s == "" {
		return alt
	}
	return s
}
