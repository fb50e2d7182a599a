package sched

import (
	"fmt"
	"github.com/mcountsim/mcountsim/isa"
)

// EventKind says what a recorded event is.
type EventKind uint8

const (
	EvExec       EventKind = iota + 1 // a task executed an instruction
	EvTrace                           // the tracer recorded a call
	EvYield                           // a task called schedule()
	EvSwitch                          // a CPU switched to a task
	EvPreempt                         // a timer interrupt (or stopper) preempted a task
	EvExit                            // a task exited
	EvPatch                           // the patcher started an operation
	EvStore                           // a write to text
	EvStopperIn                       // a CPU entered its stopper
	EvStopperOut                      // stop_machine finished
	EvWaitDone                        // a grace period or sync ended
	EvIPI                             // a CPU took the sync_core IPI
	EvHazard                          // a detector fired
	EvInt3                            // a CPU trapped on an int3, or its handler ran
	EvBudget                          // the run used up its step budget
	// The tracer kernel (irq.go, tracer.go):
	EvIRQ   // an interrupt, an NMI or a remote wakeup arrived, or a handler returned (Vector)
	EvState // preempt_count, need_resched or the interrupt mask changed (State)
	EvLost  // a traced call returned without recording its event (Context)
)

var eventNames = [...]string{"", "exec", "trace", "yield", "switch", "preempt", "exit", "patch", "store", "stopper-in", "stopper-out", "wait-done", "ipi", "hazard", "int3", "budget", "irq", "state", "lost"}

func (k EventKind) String() string {
	if int(k) < len(eventNames) {
		return eventNames[k]
	}
	return fmt.Sprintf("EventKind(%d)", k)
}

// MarshalText prints kinds by name in JSON.
func (k EventKind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// Event is one recorded happening. Only Record mode builds events.
type Event struct {
	Step  int       `json:"step"`
	Kind  EventKind `json:"kind"`
	CPU   int       `json:"cpu"`
	Task  int       `json:"task"` // -1: the stopper / no task
	PC    uint64    `json:"pc,omitempty"`
	Bytes []byte    `json:"-"`
	Hex   string    `json:"bytes,omitempty"`
	Text  string    `json:"text,omitempty"`
	Where string    `json:"where,omitempty"`
	Write int       `json:"write,omitempty"` // EvStore: the write id; EvExec: the id of the write that produced the first byte

	// The structured fields reports read (instead of parsing Text):
	// the patcher operation and its label (EvPatch, EvStore, EvWaitDone,
	// EvStopperOut: "stop_machine", "enable #1"), whether a preemption was
	// its CPU's stopper (EvPreempt), and a hazard's kind and detail
	// (EvHazard).
	Op        string `json:"op,omitempty"`
	Label     string `json:"label,omitempty"`
	ByStopper bool   `json:"by_stopper,omitempty"`
	Hazard    string `json:"hazard,omitempty"`
	Detail    string `json:"detail,omitempty"`
	// Stale (EvExec) describes the fetching CPU's view when it was behind
	// the text: which bytes it may still see old, and since when.
	Stale string `json:"stale,omitempty"`
	// The tracer kernel: the interrupt (EvIRQ: timer, resched-ipi, nmi,
	// wake, or return), the task's thread_info after a change (EvState,
	// and EvIRQ), and the context of a lost event (EvLost: normal, irq,
	// nmi).
	Vector  string   `json:"vector,omitempty"`
	State   *TIState `json:"thread_info,omitempty"`
	Context string   `json:"context,omitempty"`

	// EvExec only: how control left the instruction, where to (the next
	// pc), and the data accesses it made (loads and stores through the
	// Bus; a pair or a multiple counts each word).
	Flow   isa.Flow `json:"-"`
	Next   uint64   `json:"-"`
	Loads  int      `json:"-"`
	Stores int      `json:"-"`
}

// TIState is what a report shows of a task's thread_info.
type TIState struct {
	PreemptCount uint32 `json:"preempt_count"`
	NeedResched  bool   `json:"need_resched"`
	IRQsOff      bool   `json:"irqs_off"`
}

// String reads like "preempt_count 0x10001, need_resched, irqs off".
func (s TIState) String() string { return s.Named("preempt_count") }

// Named is String with count as the name of the preempt count (a report's
// narrow column writes "count 0x10001, need_resched, irqs off").
func (s TIState) Named(count string) string {
	out := fmt.Sprintf("%s %#x", count, s.PreemptCount)
	if s.NeedResched {
		out += ", need_resched"
	}
	if s.IRQsOff {
		out += ", irqs off"
	}
	return out
}

// event records e in Record mode. A caller whose e needs a text built for
// it (a concatenation, a Sprintf) checks cfg.Record first: the search
// runs without recording, and e is built before event can drop it.
func (m *Machine) event(e Event) {
	if !m.cfg.Record {
		return
	}
	e.Step = m.steps
	if len(e.Bytes) > 0 {
		e.Hex = m.core.hex(e.Bytes)
	}
	if e.PC != 0 && e.Where == "" {
		e.Where = m.img.Name(e.PC)
	}
	m.record(e) // tracewindow.go
}

// DescribeStore renders a store as text, e.g. "e52de004 (push {lr})".
func (m *Machine) DescribeStore(s Store) string { return m.core.describe(s.Addr, s.Bytes) }

// A Describer renders bytes stored at addr as DescribeStore does, with no
// machine behind it: what a finished run keeps for its reports.
type Describer func(addr uint64, b []byte) string

// Describer returns the renderer of DescribeStore for m's image, holding a
// core of its own (none of m's state).
func (m *Machine) Describer() Describer {
	k, _, _ := newCore(m.img) // m's arch has a core: m was built with one
	return k.describe
}

// HexBytes renders bytes as the trace does.
func (m *Machine) HexBytes(b []byte) string { return m.core.hex(b) }
