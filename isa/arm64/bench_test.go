package arm64

import (
	"github.com/mcountsim/mcountsim/internal/isatest"
	"testing"
)

// benchCode is straight-line A64 code in the style of an instrumented
// function compiled with -fpatchable-function-entry=2 and enabled at boot:
// the entry pair (mov x9, x30; nop), a frame, arithmetic, loads and
// stores, the epilogue without the return.
var benchCode = []uint32{
	uint32(MovReg(X9, LR)),          // mov x9, x30
	uint32(Nop()),                   // nop (the BL slot, disabled)
	uint32(StpPre(FP, LR, SP, -32)), // stp x29, x30, [sp, #-32]!
	uint32(must(AddImm(FP, SP, 0))), // mov x29, sp
	0xd2800204,                      // mov x4, #0x10
	0x8b040085,                      // add x5, x4, x4
	0xf10004a5,                      // subs x5, x5, #0x1
	0xd37ef4a5,                      // lsl x5, x5, #2
	0xf9000be5,                      // str x5, [sp, #16]
	0xf9400be0,                      // ldr x0, [sp, #16]
	0x8b040000,                      // add x0, x0, x4
	0xf100001f,                      // cmp x0, #0x0
	0x1a9f07e1,                      // cset w1, ne
	0x9b027c21,                      // mul x1, x1, x2
	0x390047e1,                      // strb w1, [sp, #17]
	0x794023e2,                      // ldrh w2, [sp, #16]
	uint32(MovK(X3, 0x1234, 16)),    // movk x3, #0x1234, lsl #16
	0xdac01060,                      // clz x0, x3
	0x53001c60,                      // uxtb w0, w3
	uint32(LdpPost(FP, LR, SP, 32)), // ldp x29, x30, [sp], #32
}

func BenchmarkExec(b *testing.B) {
	const text = 0x10000
	c := NewCache(text, 4*len(benchCode))
	bus := newMemBus(0x8000, 0x1000)
	bus.Record = false
	var r Regs
	run := func() {
		r = Regs{SP: 0x9000}
		r.X[LR] = 0x4242
		r.PC = text
		for _, w := range benchCode {
			inst, err := c.Lookup(r.PC, w)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := Exec(inst, &r, bus); err != nil {
				b.Fatal(err)
			}
		}
	}
	isatest.BenchRun(b, len(benchCode), run)
	if r.SP != 0x9000 || r.X[LR] != 0x4242 || r.PC != text+4*uint64(len(benchCode)) {
		b.Fatalf("unbalanced: sp %#x lr %#x pc %#x", r.SP, r.X[LR], r.PC)
	}
}
