package x86

import (
	"errors"
	"github.com/mcountsim/mcountsim/internal/isatest"
	"github.com/mcountsim/mcountsim/isa"
	"testing"
)

// FuzzDecodeExec decodes random bytes and executes them against a bounded
// memory: nothing may panic, every failure is an *isa.Fault wrapping one of the
// sentinels, and a successful straight-line instruction ends at pc+Len.
func FuzzDecodeExec(f *testing.F) {
	for _, tc := range encodings {
		f.Add(tc.got, uint8(0))
	}
	for _, s := range []string{"48 01 03", "48 d3 e0", "c9", "ff 54 24 08", "0f 44 c1", "66 2e 0f 1f 84 00 00 00 00 00",
		"f3 0f 1e fa", "e8", "c2 10 00", "48 8b 05 f9 6f 00 00", "41 0f 9f c0", "48 6b c1 05",
		"f3 48 ab", "f3 a4", "f2 ae", "f3 66 a7", "48 d1 d8", "c0 d0 09", "fd", "9e", "f2 aa"} {
		f.Add(unhex(s), uint8(0xff))
	}
	f.Fuzz(func(t *testing.T, code []byte, flags uint8) {
		const pc = 0x1000
		c := NewCache(pc, len(code)+1)
		inst, err := c.Lookup(pc, code)
		if err != nil {
			var e *isa.Fault
			if !errors.As(err, &e) || !errors.Is(err, isa.ErrUndecodable) || e.PC != pc {
				t.Fatalf("decode error %v is not an *isa.Fault wrapping isa.ErrUndecodable", err)
			}
			return
		}
		if int(inst.Len) > len(code) || inst.Len == 0 {
			t.Fatalf("length %d for %d bytes", inst.Len, len(code))
		}
		if again, err := c.Lookup(pc, code); err != nil || again != inst {
			t.Fatalf("second lookup: %p %v, want the cached %p", again, err, inst)
		}
		_ = Disasm(inst, pc, func(uint64) string { return "sym" })
		r := Regs{RIP: pc}
		r.SetFlags(uint64(flags)<<4 | uint64(flags))
		for i := range r.R {
			r.R[i] = testMem + 0x40 + uint64(i)*8
		}
		r.R[RCX] = uint64(flags)
		m := newTestBus(testMem, 0x100)
		m.log = false
		flow, err := Exec(inst, &r, m)
		if err != nil {
			isatest.Fault(t, err, pc, isa.ErrUnsupported, isa.ErrMemory, isa.ErrBreakpoint, ErrDivide)
			return
		}
		if flow == isa.FlowNext && r.RIP != pc+uint64(inst.Len) {
			t.Fatalf("%s: isa.FlowNext but RIP %#x", Disasm(inst, pc, nil), r.RIP)
		}
		if flow > isa.FlowReturn {
			t.Fatalf("flow %v", flow)
		}
	})
}
