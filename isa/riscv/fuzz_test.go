package riscv

import (
	"bytes"
	"encoding/binary"
	"errors"
	"testing"

	"github.com/mcountsim/mcountsim/internal/isatest"
	"github.com/mcountsim/mcountsim/isa"
)

// FuzzDecodeExec decodes and executes arbitrary bytes from arbitrary
// register states against a small bus. Nothing may panic; every failure
// must be an *isa.Fault at the pc wrapping one of the sentinels;
// straight-line flows must advance pc by the instruction's length, calls
// must link it, and x0 must stay zero.
func FuzzDecodeExec(f *testing.F) {
	for _, c := range execCases() {
		f.Add(c.code, []byte{0, 0x20, 0, 0, 0, 0, 0, 0, 8, 0x20})
	}
	for _, c := range encCases() {
		f.Add(c.b, []byte{})
	}
	f.Add([]byte{0, 0}, []byte{1, 2, 3})
	f.Add([]byte{0x2f, 0xb5, 0xb6, 0x00}, []byte{0xff})
	f.Fuzz(func(t *testing.T, code []byte, regs []byte) {
		var r Regs
		for i := 1; i < 32 && 8*i <= len(regs); i++ {
			r.X[i] = binary.LittleEndian.Uint64(regs[8*(i-1):])
		}
		// Point the unset registers into the bus so that memory forms get far.
		for i := 1; i < 32; i++ {
			if r.X[i] == 0 {
				r.X[i] = 0x1800 + uint64(i)*0x40
			}
		}
		r.PC = 0x1000
		bus := newFakeBus(0x1000, 0x3000)
		bus.Record = false
		inst, derr := Decode(0x1000, code)
		c := NewCache(0x1000, 8)
		cinst, cerr := c.Lookup(0x1000, code)
		if (derr == nil) != (cerr == nil) || cinst.Enc != inst.Enc || cinst.Len != inst.Len || cinst.x != inst.x {
			t.Fatalf("Decode and Cache.Lookup disagree: %v / %v", derr, cerr)
		}
		if derr == nil && inst.Len != 2 && inst.Len != 4 {
			t.Fatalf("% x: length %d", code, inst.Len)
		}
		_ = DisasmBytes(0x1000, code)
		_ = StackOrLiteral(&inst)
		before := r
		flow, err := Exec(&inst, &r, bus)
		if err != nil {
			e := isatest.Fault(t, err, 0x1000, isa.ErrUndecodable, isa.ErrUnsupported, isa.ErrMemory, isa.ErrBreakpoint)
			if !bytes.HasPrefix(code, e.Bytes) {
				t.Fatalf("% x: fault bytes % x", code, e.Bytes)
			}
			if errors.Is(err, isa.ErrBreakpoint) && r != before {
				t.Fatalf("% x: ebreak changed the registers", code)
			}
			return
		}
		if derr != nil {
			t.Fatalf("% x: undecodable bytes executed", code)
		}
		next := 0x1000 + uint64(inst.Len)
		if (flow == isa.FlowNext || flow == isa.FlowSkipped) && r.PC != next {
			t.Fatalf("% x (%s): flow %v but pc %#x", code, Disasm(&inst, 0x1000, nil), flow, r.PC)
		}
		if flow == isa.FlowCall && r.X[inst.Rd] != next {
			t.Fatalf("% x: call linked %#x", code, r.X[inst.Rd])
		}
		if r.X[0] != 0 || r.PC&1 != 0 || flow > isa.FlowReturn {
			t.Fatalf("% x: x0 %#x, pc %#x, flow %d", code, r.X[0], r.PC, flow)
		}
	})
}
