package arm

import (
	"bytes"
	"encoding/binary"
	"github.com/mcountsim/mcountsim/internal/isatest"
	"github.com/mcountsim/mcountsim/isa"
	"testing"
)

// FuzzExec executes arbitrary words from arbitrary register states against
// a small bus. Nothing may panic; every failure must be an *isa.Fault wrapping
// one of the sentinels; straight-line flows must advance pc by 4.
func FuzzExec(f *testing.F) {
	for _, c := range execCases {
		f.Add(c.w, []byte{0, 0x20, 0, 0, 4, 0x20}, uint8(0))
	}
	f.Add(uint32(0xe8bd8010), []byte{}, uint8(0xf))
	f.Add(uint32(0xe7f000f0), []byte{1, 2, 3}, uint8(1))
	f.Fuzz(func(t *testing.T, w uint32, regs []byte, flags uint8) {
		var r Regs
		for i := 0; i < 15 && 4*i+4 <= len(regs); i++ {
			r.R[i] = binary.LittleEndian.Uint32(regs[4*i:])
		}
		// Point a few registers into the bus so that memory forms get far.
		for i := 0; i < 15; i++ {
			if r.R[i] == 0 {
				r.R[i] = 0x1800 + uint32(i)*0x40
			}
		}
		r.R[PC] = 0x1000
		r.N, r.Z, r.C, r.V = flags&8 != 0, flags&4 != 0, flags&2 != 0, flags&1 != 0
		bus := newFakeBus(0x1000, 0x3000)
		bus.Record = false
		inst, derr := Decode(0x1000, w)
		c := NewCache(0x1000, 4)
		cinst, cerr := c.Lookup(0x1000, w)
		if (derr == nil) != (cerr == nil) || cinst.Word != w {
			t.Fatalf("Decode and Cache.Lookup disagree: %v / %v", derr, cerr)
		}
		_ = DisasmWord(0x1000, w)
		flow, err := Exec(&inst, &r, bus)
		if err != nil {
			e := isatest.Fault(t, err, 0x1000, isa.ErrUndecodable, isa.ErrUnsupported, isa.ErrMemory)
			if !bytes.Equal(e.Bytes, wordBytes(w)) {
				t.Fatalf("%08x: fault bytes % x", w, e.Bytes)
			}
			return
		}
		if derr != nil {
			t.Fatalf("%08x: undecodable word executed", w)
		}
		if (flow == isa.FlowNext || flow == isa.FlowSkipped) && r.R[PC] != 0x1004 {
			t.Fatalf("%08x (%s): flow %v but pc %#x", w, DisasmWord(0x1000, w), flow, r.R[PC])
		}
		if flow == isa.FlowCall && r.R[LR] != 0x1004 {
			t.Fatalf("%08x: call with lr %#x", w, r.R[LR])
		}
		if flow > isa.FlowReturn {
			t.Fatalf("%08x: flow %d", w, flow)
		}
	})
}
