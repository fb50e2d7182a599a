// Package rv runs a run's kernel events through the deterministic automata
// of Linux's runtime-verification monitors (kernel/trace/rv/monitors: wip,
// sco, snroc, scpd, snep, sncid, nrp, opid), with the kernel's conventions:
// per-CPU monitors see the events of their CPU, per-task monitors those of
// their task; a monitor starts lazily (da_monitor_reset leaves it off) and
// ignores events until its start event, which either only starts it
// (da_handle_start_event) or starts it and is then processed
// (da_handle_start_run_event); a transition to INVALID_STATE is a
// violation, reported with the reactor's message.
//
// Imports: the standard library only.
package rv

import (
	"fmt"
	"strings"
)

// Kind is a kernel event, named as the monitors' event enums name them.
type Kind uint8

// The events the machine exports.
const (
	PreemptDisable Kind = iota + 1
	PreemptEnable
	IRQDisable
	IRQEnable
	IRQEntry
	NeedResched   // sched_need_resched (sched_set_need_resched_tp, tif == TIF_NEED_RESCHED)
	Waking        // sched_waking
	ScheduleEntry // sched_entry_tp(preempt)
	ScheduleExit
	SwitchIn  // sched_switch, seen from next
	SwitchOut // sched_switch, seen from prev
	SetState  // sched_set_state
)

var kindNames = [...]string{"", "preempt_disable", "preempt_enable", "irq_disable", "irq_enable", "irq_entry",
	"sched_need_resched", "sched_waking", "schedule_entry", "schedule_exit", "sched_switch_in", "sched_switch_out", "sched_set_state"}

func (k Kind) String() string {
	if int(k) < len(kindNames) && k != 0 {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", k)
}

// Event is one kernel event of a run.
type Event struct {
	Step    int
	Kind    Kind
	CPU     int  // -1: on a CPU the model does not have (a remote waker)
	Task    int  // the task the event concerns (current, or the woken one)
	Preempt bool // ScheduleEntry: __schedule(preempt=true)
	// IRQ: the event happened in hard-irq context (the kernel's
	// this_cpu_read(hardirq_context)).
	IRQ bool
}

func (e Event) String() string {
	s := fmt.Sprintf("step %d cpu %d task %d %v", e.Step, e.CPU, e.Task, e.Kind)
	if e.Preempt {
		s += "(preempt)"
	}
	if e.IRQ {
		s += " in irq"
	}
	return s
}

// Monitor is one deterministic automaton: Table[state][event] is the next
// state, -1 INVALID_STATE. Events are the monitor's own (Map translates
// the machine's); Start is how the monitor starts.
type Monitor struct {
	Name    string
	PerTask bool
	States  []string
	Events  []string
	Table   [][]int8
	// Map returns the monitor's event index of e, or -1 when the monitor
	// does not hook it.
	Map func(e Event) int
	// StartOnly: events that only start a stopped monitor
	// (da_handle_start_event); StartRun: events that start it and are
	// processed (da_handle_start_run_event). Any other event of a stopped
	// monitor is ignored.
	StartOnly, StartRun []int
	// StartOutsideIRQ: the start events start the monitor only outside
	// hard-irq context (opid's handlers: "The monitor's initial state is
	// not in_irq"); in hard-irq context they are ordinary events.
	StartOutsideIRQ bool
}

func idx(names []string, n string) int {
	for i, s := range names {
		if s == n {
			return i
		}
	}
	panic("rv: no event " + n)
}

// Violation is an event a monitor does not allow.
type Violation struct {
	Monitor string
	Event   string
	State   string
	At      Event
}

// Error is the reactor's message.
func (v Violation) Error() string {
	return fmt.Sprintf("rv: monitor %s does not allow event %s on state %s", v.Monitor, v.Event, v.State)
}

// Check runs events through m and returns its first violation.
func (m *Monitor) Check(events []Event) *Violation {
	type inst struct {
		on    bool
		state int8
	}
	insts := map[int]*inst{}
	for _, e := range events {
		ev := m.Map(e)
		if ev < 0 {
			continue
		}
		key := e.CPU
		if m.PerTask {
			key = e.Task
		} else if e.CPU < 0 {
			continue
		}
		in := insts[key]
		if in == nil {
			in = &inst{}
			insts[key] = in
		}
		if !in.on {
			switch {
			case m.StartOutsideIRQ && e.IRQ:
				continue
			case contains(m.StartOnly, ev):
				in.on, in.state = true, 0
				continue
			case contains(m.StartRun, ev):
				in.on, in.state = true, 0
			default:
				continue
			}
		}
		next := m.Table[in.state][ev]
		if next < 0 {
			return &Violation{Monitor: m.Name, Event: m.Events[ev], State: m.States[in.state], At: e}
		}
		in.state = next
	}
	return nil
}

func contains(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// CheckAll runs events through every monitor and returns the violations,
// one per monitor at most, in the order of Monitors.
func CheckAll(events []Event) []Violation {
	var out []Violation
	for _, m := range Monitors {
		if v := m.Check(events); v != nil {
			out = append(out, *v)
		}
	}
	return out
}

// Names lists the monitors.
func Names() string {
	var n []string
	for _, m := range Monitors {
		n = append(n, m.Name)
	}
	return strings.Join(n, ", ")
}

// byKind maps machine events to a monitor's events by name.
func byKind(events []string, pairs map[Kind]string) func(Event) int {
	m := map[Kind]int{}
	for k, n := range pairs {
		m[k] = idx(events, n)
	}
	return func(e Event) int {
		if i, ok := m[e.Kind]; ok {
			return i
		}
		return -1
	}
}

const x = -1

// Monitors are the automata of kernel-history §6 (states: initial first).
var Monitors = []*Monitor{wip, sco, snroc, scpd, snep, sncid, nrp, opid}

var wip = func() *Monitor {
	ev := []string{"preempt_disable", "preempt_enable", "sched_waking"}
	m := &Monitor{Name: "wip", States: []string{"preemptive", "non_preemptive"}, Events: ev,
		Table: [][]int8{{1, x, x}, {x, 0, 1}},
		Map:   byKind(ev, map[Kind]string{PreemptDisable: "preempt_disable", PreemptEnable: "preempt_enable", Waking: "sched_waking"})}
	m.StartOnly = []int{1}
	return m
}()

var sco = func() *Monitor {
	ev := []string{"sched_set_state", "schedule_entry", "schedule_exit"}
	m := &Monitor{Name: "sco", States: []string{"thread_context", "scheduling_context"}, Events: ev,
		Table: [][]int8{{0, 1, x}, {x, x, 0}},
		Map:   byKind(ev, map[Kind]string{SetState: "sched_set_state", ScheduleEntry: "schedule_entry", ScheduleExit: "schedule_exit"})}
	m.StartOnly = []int{2}
	m.StartRun = []int{0}
	return m
}()

var snroc = func() *Monitor {
	ev := []string{"sched_set_state", "sched_switch_in", "sched_switch_out"}
	m := &Monitor{Name: "snroc", PerTask: true, States: []string{"other_context", "own_context"}, Events: ev,
		Table: [][]int8{{x, 1, x}, {1, x, 0}},
		Map:   byKind(ev, map[Kind]string{SetState: "sched_set_state", SwitchIn: "sched_switch_in", SwitchOut: "sched_switch_out"})}
	m.StartRun = []int{1}
	return m
}()

var scpd = func() *Monitor {
	ev := []string{"preempt_disable", "preempt_enable", "schedule_entry", "schedule_exit"}
	m := &Monitor{Name: "scpd", States: []string{"cant_sched", "can_sched"}, Events: ev,
		Table: [][]int8{{1, x, x, x}, {x, 0, 1, 1}},
		Map: byKind(ev, map[Kind]string{PreemptDisable: "preempt_disable", PreemptEnable: "preempt_enable",
			ScheduleEntry: "schedule_entry", ScheduleExit: "schedule_exit"})}
	m.StartOnly = []int{1}
	return m
}()

var snep = func() *Monitor {
	ev := []string{"preempt_disable", "preempt_enable", "schedule_entry", "schedule_exit"}
	m := &Monitor{Name: "snep", States: []string{"non_scheduling_context", "scheduling_contex"}, Events: ev,
		Table: [][]int8{{0, 0, 1, x}, {x, x, x, 0}},
		Map: byKind(ev, map[Kind]string{PreemptDisable: "preempt_disable", PreemptEnable: "preempt_enable",
			ScheduleEntry: "schedule_entry", ScheduleExit: "schedule_exit"})}
	m.StartOnly = []int{3}
	m.StartRun = []int{0, 1}
	return m
}()

var sncid = func() *Monitor {
	ev := []string{"irq_disable", "irq_enable", "schedule_entry", "schedule_exit"}
	m := &Monitor{Name: "sncid", States: []string{"can_sched", "cant_sched"}, Events: ev,
		Table: [][]int8{{1, x, 0, 0}, {x, 0, x, x}},
		Map: byKind(ev, map[Kind]string{IRQDisable: "irq_disable", IRQEnable: "irq_enable",
			ScheduleEntry: "schedule_entry", ScheduleExit: "schedule_exit"})}
	m.StartOnly = []int{1}
	return m
}()

var nrp = func() *Monitor {
	ev := []string{"irq_entry", "sched_need_resched", "schedule_entry", "schedule_entry_preempt"}
	m := &Monitor{Name: "nrp", PerTask: true, States: []string{"preempt_irq", "any_thread_running", "nested_preempt", "rescheduling"}, Events: ev,
		Table: [][]int8{{0, 0, 2, 2}, {1, 3, 1, x}, {2, 0, 1, 1}, {0, 3, 1, 1}}}
	m.Map = func(e Event) int {
		switch e.Kind {
		case IRQEntry:
			return 0
		case NeedResched:
			return 1
		case ScheduleEntry:
			if e.Preempt {
				return 3
			}
			return 2
		}
		return -1
	}
	m.StartRun = []int{1}
	return m
}()

var opid = func() *Monitor {
	ev := []string{"irq_disable", "irq_enable", "irq_entry", "preempt_disable", "preempt_enable", "sched_need_resched", "sched_waking"}
	m := &Monitor{Name: "opid", States: []string{"disabled", "enabled", "in_irq", "irq_disabled", "preempt_disabled"}, Events: ev,
		Table: [][]int8{
			{x, 4, 0, x, 3, 0, 0},
			{3, x, x, 4, 1, x, x},
			{x, 1, 2, x, x, 2, 2},
			{x, 1, 2, 0, x, 3, x},
			{0, x, x, x, 1, x, x},
		},
		Map: byKind(ev, map[Kind]string{IRQDisable: "irq_disable", IRQEnable: "irq_enable", IRQEntry: "irq_entry",
			PreemptDisable: "preempt_disable", PreemptEnable: "preempt_enable", NeedResched: "sched_need_resched", Waking: "sched_waking"})}
	// opid.c (@30984ccf): sched_need_resched and sched_waking outside
	// hard-irq context start the monitor (da_handle_start_event, in its
	// initial state disabled); in hard-irq context they are handled as
	// events (da_handle_event), which a stopped monitor ignores.
	m.StartOnly = []int{5, 6}
	m.StartOutsideIRQ = true
	return m
}()
