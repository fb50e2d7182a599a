package arm

import (
	"github.com/mcountsim/mcountsim/internal/isatest"
	"testing"
)

// benchCode is straight-line A32 code in the style of an instrumented
// function: prologue, mcount push and disabled slot, arithmetic, loads and
// stores, epilogue without the return.
var benchCode = []uint32{
	uint32(Push(RegList(R4, R5, LR))), // push {r4, r5, lr}
	uint32(PushOne(LR)),               // push {lr}
	0xe28dd004,                        // add sp, sp, #4
	0xe3a04010,                        // mov r4, #16
	0xe0845004,                        // add r5, r4, r4
	0xe2555001,                        // subs r5, r5, #1
	0xe1a05105,                        // mov r5, r5, lsl #2
	0xe58d5000,                        // str r5, [sp]
	0xe59d0000,                        // ldr r0, [sp]
	0xe0800004,                        // add r0, r0, r4
	0xe3500000,                        // cmp r0, #0
	0x13a01001,                        // movne r1, #1
	0x03a01000,                        // moveq r1, #0
	0xe0010291,                        // mul r1, r1, r2
	0xe5cd1001,                        // strb r1, [sp, #1]
	0xe1dd20b0,                        // ldrh r2, [sp]
	0xe3013234,                        // movw r3, #0x1234
	0xe16f0f13,                        // clz r0, r3
	0xe6ef0073,                        // uxtb r0, r3
	0xe8bd4030,                        // pop {r4, r5, lr}
}

func BenchmarkExec(b *testing.B) {
	const text = 0x10000
	c := NewCache(text, 4*len(benchCode))
	bus := &isatest.SliceBus{Base: 0x8000, Mem: make([]byte, 0x1000)}
	var r Regs
	run := func() {
		r = Regs{}
		r.R[SP] = 0x9000
		r.R[LR] = 0x4242
		for i, w := range benchCode {
			pc := text + uint32(4*i)
			r.R[PC] = pc
			inst, err := c.Lookup(pc, w)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := Exec(inst, &r, bus); err != nil {
				b.Fatal(err)
			}
		}
	}
	isatest.BenchRun(b, len(benchCode), run)
	if r.R[SP] != 0x9000 || r.R[LR] != 0x4242 {
		b.Fatalf("unbalanced: sp %#x lr %#x", r.R[SP], r.R[LR])
	}
}
