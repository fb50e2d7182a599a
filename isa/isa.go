// Package isa holds what every instruction set mcountsim executes has in
// common: how control left an executed instruction (Flow), the memory an
// instruction sees (Bus), a processor's exclusive monitor and the Bus
// that holds it (Monitor, ExclusiveBus), the error sentinels and the one fault type that
// wraps them, and where a leaf's Run, its loop of plain instructions,
// stopped (Stop).
//
// Each ISA is a leaf package beside this one (isa/arm, isa/x86, and the
// ones that follow): it decodes with golang.org/x/arch, executes against a
// register file of its own and a Bus, and reports failures as *Fault. The
// leaves import this package, x/arch and the standard library, and never
// each other; the machine (package sched) sees every ISA through this
// vocabulary, so a detector or a scheduler is written once.
//
// Imports: the standard library only.
package isa

import (
	"errors"
	"fmt"
	"strings"
)

// Flow says how control left an executed instruction.
type Flow uint8

const (
	// FlowNext: execution continues at the next instruction.
	FlowNext Flow = iota
	// FlowSkipped: a condition failed (a conditional instruction, or a
	// conditional branch not taken); the pc advanced.
	FlowSkipped
	// FlowBranch: a jump (direct, conditional and taken, or indirect
	// through a register or memory) that is neither a call nor a return.
	FlowBranch
	// FlowCall: a call (BL, BLX, CALL, JAL/JALR with a link register): the
	// return address was linked in a register or pushed.
	FlowCall
	// FlowReturn: a return (BX LR, POP {…,PC}, RET, JR RA …): the pc holds
	// the address it returned to.
	FlowReturn
)

var flowNames = [...]string{"next", "skipped", "branch", "call", "return"}

func (f Flow) String() string {
	if int(f) < len(flowNames) {
		return flowNames[f]
	}
	return fmt.Sprintf("Flow(%d)", uint8(f))
}

// Sentinel errors; *Fault wraps them so that errors.Is works.
var (
	// ErrUndecodable means the decoder does not recognise the bytes, or
	// the instruction runs past the end of the bytes available.
	ErrUndecodable = errors.New("undecodable instruction")
	// ErrUnsupported means the bytes decode but the executor does not
	// implement the instruction (or this form of it).
	ErrUnsupported = errors.New("unsupported instruction")
	// ErrMemory means a fetch, load or store fell outside the memory the
	// Bus serves, or broke an alignment rule. Bus implementations wrap it.
	ErrMemory = errors.New("memory fault")
	// ErrBreakpoint means a breakpoint instruction (x86 int3) was
	// executed. The executor leaves the registers untouched, the pc still
	// naming the breakpoint, so that the caller can take the exception.
	ErrBreakpoint = errors.New("breakpoint")
)

// Fault is a decode or execution failure at one address.
type Fault struct {
	PC uint64
	// Bytes are the instruction's bytes (or, when they do not decode, the
	// bytes that were tried).
	Bytes []byte
	// Unit is how Bytes are shown: 2 or 4 for little-endian halfwords or
	// words in hex (e52de004), anything else for bytes (e8 1f 44 00 00).
	Unit   int
	Disasm string // empty when the bytes do not decode
	Err    error  // one of the sentinels, possibly wrapped in Detail
}

func (e *Fault) Error() string {
	d := e.Disasm
	if d == "" {
		d = "?"
	}
	return fmt.Sprintf("pc %#x: %s (%s): %v", e.PC, Hex(e.Bytes, e.Unit), d, e.Err)
}

func (e *Fault) Unwrap() error { return e.Err }

// Hex renders b as Fault does: in little-endian units of unit bytes (2 or
// 4) when b is a whole number of them, else as bytes separated by spaces.
func Hex(b []byte, unit int) string {
	var s strings.Builder
	if (unit == 2 || unit == 4) && len(b) > 0 && len(b)%unit == 0 {
		for i := 0; i < len(b); i += unit {
			if i > 0 {
				s.WriteByte(' ')
			}
			for j := unit - 1; j >= 0; j-- {
				fmt.Fprintf(&s, "%02x", b[i+j])
			}
		}
		return s.String()
	}
	for i, x := range b {
		if i > 0 {
			s.WriteByte(' ')
		}
		fmt.Fprintf(&s, "%02x", x)
	}
	return s.String()
}

// Detail is an error that adds a description to a sentinel:
// errors.Is(Detail("unaligned access", ErrMemory), ErrMemory) holds.
func Detail(msg string, sentinel error) error { return &detail{msg, sentinel} }

type detail struct {
	msg      string
	sentinel error
}

func (d *detail) Error() string { return d.msg + ": " + d.sentinel.Error() }
func (d *detail) Unwrap() error { return d.sentinel }

// Bus is the memory an instruction sees. size is 1, 2, 4 or 8; a stored v
// never has bits set above size bytes. reg names the register a loaded
// value goes to, or a stored value comes from (the ISA's own register
// number), so that the Bus can track who wrote each slot and who reads it
// back; it is one of the special values below when no single register is
// involved.
type Bus interface {
	Load(addr uint64, size int, reg uint8) (uint64, error)
	Store(addr uint64, size int, v uint64, reg uint8) error
}

// Special values of a Bus access's reg argument.
const (
	NoReg   uint8 = 0xff // no register
	RetAddr uint8 = 0xfe // the return address a call pushes (x86 CALL)
	PCReg   uint8 = 0xfd // a load straight into the pc (x86 RET, or an indirect CALL/JMP through memory)
)

// Stop says where an ISA's Run, its loop of plain instructions, stopped.
type Stop struct {
	// PC and SP are the pc and stack pointer before the last instruction
	// Run executed, Len its length; Flow and Err say how it left.
	PC, SP uint64
	Len    uint8
	Flow   Flow
	Err    error
	// Missing: Run stopped before the pc in the registers, for which its
	// table holds no instruction (the other fields are the previous
	// instruction's, which needs no attention).
	Missing bool
}

// Monitor is one processing element's local exclusive monitor (ARMv7 ARM
// A3.4, ARMv8 ARM B2.9) or LR/SC reservation (RISC-V unprivileged spec
// §13.2, "Zalrsc"): open, or exclusive for the Size bytes at Addr. A
// load-exclusive (ldrex, ldxr, lr) marks the bytes it loads; a
// store-exclusive (strex, stxr, sc) stores only if the monitor still marks
// exactly the bytes it stores, and opens it either way; clrex opens it.
// Who else opens it (a context switch, an exception return, another
// processor's store to the marked bytes) is the machine's business: the
// ISA packages see one processor.
type Monitor struct {
	Addr  uint64
	Size  uint8
	Armed bool
}

// Mark makes m exclusive for the size bytes at addr.
func (m *Monitor) Mark(addr uint64, size int) {
	*m = Monitor{Addr: addr, Size: uint8(size), Armed: true}
}

// Check reports whether m marks exactly the size bytes at addr (a
// store-exclusive there may store) and opens m.
func (m *Monitor) Check(addr uint64, size int) bool {
	ok := m.Armed && m.Addr == addr && int(m.Size) == size
	*m = Monitor{}
	return ok
}

// Overlaps reports whether m is armed and marks a byte of the size bytes
// at addr.
func (m *Monitor) Overlaps(addr uint64, size int) bool {
	return m.Armed && addr < m.Addr+uint64(m.Size) && m.Addr < addr+uint64(size)
}

// ExclusiveBus is a Bus that holds the exclusive monitor of the processor
// executing through it. The exclusive loads and stores of every ISA
// package reach their monitor through it; on a Bus without one they fail
// with ErrUnsupported.
type ExclusiveBus interface {
	Bus
	// Monitor returns the executing processor's monitor.
	Monitor() *Monitor
}

// errNoMonitor is the error of an exclusive access on a Bus with no monitor.
var errNoMonitor = Detail("exclusive access on a bus with no exclusive monitor", ErrUnsupported)

// MonitorOf returns the monitor of bus, or an error wrapping
// ErrUnsupported when it has none.
func MonitorOf(bus Bus) (*Monitor, error) {
	if e, ok := bus.(ExclusiveBus); ok {
		return e.Monitor(), nil
	}
	return nil, errNoMonitor
}
