package sched

import (
	"fmt"
	"strings"

	"github.com/mcountsim/mcountsim/isa/arm"
	"github.com/mcountsim/mcountsim/isa/x86"
	"github.com/mcountsim/mcountsim/kernel"
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
	EvInt3                            // a CPU trapped on an int3 and ran the handler
)

var eventNames = [...]string{"", "exec", "trace", "yield", "switch", "preempt", "exit", "patch", "store", "stopper-in", "stopper-out", "wait-done", "ipi", "hazard", "int3"}

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
}

func (m *Machine) event(e Event) {
	if !m.cfg.Record {
		return
	}
	e.Step = m.steps
	if len(e.Bytes) > 0 {
		e.Hex = hexBytes(m.img.Arch, e.Bytes)
	}
	if e.PC != 0 && e.Where == "" {
		e.Where = m.img.Name(e.PC)
	}
	m.trace = append(m.trace, e)
}

// hexBytes shows A32 words as words and other bytes as bytes.
func hexBytes(a kernel.Arch, b []byte) string {
	if a == kernel.ARM && len(b)%4 == 0 {
		var s []string
		for i := 0; i < len(b); i += 4 {
			s = append(s, fmt.Sprintf("%02x%02x%02x%02x", b[i+3], b[i+2], b[i+1], b[i]))
		}
		return strings.Join(s, " ")
	}
	var s []string
	for _, x := range b {
		s = append(s, fmt.Sprintf("%02x", x))
	}
	return strings.Join(s, " ")
}

// describeBytes renders a store: its bytes and, for whole A32 words, their disassembly.
func describeBytes(a kernel.Arch, s Store) string {
	h := hexBytes(a, s.Bytes)
	if a == kernel.ARM && len(s.Bytes) == 4 {
		w := uint32(s.Bytes[0]) | uint32(s.Bytes[1])<<8 | uint32(s.Bytes[2])<<16 | uint32(s.Bytes[3])<<24
		return fmt.Sprintf("%s (%s)", h, arm.DisasmWord(uint32(s.Addr), w))
	}
	if a == kernel.X86 {
		if inst, err := x86.Decode(s.Addr, s.Bytes); err == nil && int(inst.Len) == len(s.Bytes) {
			return fmt.Sprintf("%s (%s)", h, x86.Disasm(&inst, s.Addr, nil))
		}
	}
	return h
}

// DescribeStore renders a store as text, e.g. "e52de004 (push {lr})".
func (m *Machine) DescribeStore(s Store) string { return describeBytes(m.img.Arch, s) }

// HexBytes renders bytes as the trace does.
func (m *Machine) HexBytes(b []byte) string { return hexBytes(m.img.Arch, b) }
