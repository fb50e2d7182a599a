package arm64

import (
	"bytes"
	"encoding/binary"
	"errors"
	"testing"

	"github.com/mcountsim/mcountsim/internal/isatest"
	"github.com/mcountsim/mcountsim/isa"
)

// FuzzDecodeExec decodes and executes arbitrary words from arbitrary
// register states against a small bus. Nothing may panic; every failure
// must be an *isa.Fault at the pc wrapping one of the sentinels; a
// straight-line flow must advance the pc by 4, a call must link pc+4.
func FuzzDecodeExec(f *testing.F) {
	for _, c := range encCases() {
		f.Add(uint32(c.w), []byte{0, 0x20, 0, 0, 0, 0, 0, 0}, uint8(0))
	}
	f.Add(uint32(0xf8627820), []byte{}, uint8(0xf))      // ldr x0, [x1, x2, lsl #3]
	f.Add(uint32(0x93407c00), []byte{1, 2, 3}, uint8(1)) // sxtw x0, w0
	f.Add(uint32(0x4e208400), []byte{}, uint8(0))        // SIMD
	f.Fuzz(func(t *testing.T, w uint32, regs []byte, flags uint8) {
		var r Regs
		for i := 0; i < 31 && 8*i+8 <= len(regs); i++ {
			r.X[i] = binary.LittleEndian.Uint64(regs[8*i:])
		}
		// Point the zero registers into the bus so that memory forms get far.
		for i := range r.X {
			if r.X[i] == 0 {
				r.X[i] = 0x1800 + uint64(i)*0x40
			}
		}
		r.SP = 0x2000
		if flags&0x10 != 0 && len(regs) >= 8 {
			r.SP = binary.LittleEndian.Uint64(regs)
		}
		r.PC = 0x1000
		r.N, r.Z, r.C, r.V = flags&8 != 0, flags&4 != 0, flags&2 != 0, flags&1 != 0
		bus := newMemBus(0x1000, 0x2000)
		bus.Record = false
		inst, derr := Decode(0x1000, w)
		c := NewCache(0x1000, 4)
		cinst, cerr := c.Lookup(0x1000, w)
		if (derr == nil) != (cerr == nil) || cinst.Word != w || cinst.x != inst.x {
			t.Fatalf("Decode and Cache.Lookup disagree: %v / %v", derr, cerr)
		}
		if derr != nil {
			var e *isa.Fault
			if !errors.As(derr, &e) || !errors.Is(derr, isa.ErrUndecodable) || e.Unit != 4 {
				t.Fatalf("%08x: decode error %#v", w, derr)
			}
		}
		_ = DisasmWord(0x1000, w)
		_ = StackOrLiteral(&inst)
		_ = InCMODXSet(w)
		flow, err := Exec(&inst, &r, bus)
		if err != nil {
			e := isatest.Fault(t, err, 0x1000, isa.ErrUndecodable, isa.ErrUnsupported, isa.ErrMemory, isa.ErrBreakpoint)
			if !bytes.Equal(e.Bytes, wordBytes(w)) {
				t.Fatalf("%08x: fault bytes % x", w, e.Bytes)
			}
			if errors.Is(err, isa.ErrUnsupported) && e.Disasm == "" {
				t.Fatalf("%08x: unsupported without disassembly", w)
			}
			return
		}
		if derr != nil {
			t.Fatalf("%08x: undecodable word executed", w)
		}
		switch flow {
		case isa.FlowNext, isa.FlowSkipped:
			if r.PC != 0x1004 {
				t.Fatalf("%08x (%s): flow %v but pc %#x", w, DisasmWord(0x1000, w), flow, r.PC)
			}
		case isa.FlowCall:
			if r.X[LR] != 0x1004 {
				t.Fatalf("%08x: call with lr %#x", w, r.X[LR])
			}
		case isa.FlowBranch, isa.FlowReturn:
		default:
			t.Fatalf("%08x: flow %d", w, flow)
		}
	})
}
