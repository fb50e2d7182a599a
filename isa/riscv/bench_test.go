package riscv

import (
	"github.com/mcountsim/mcountsim/internal/isatest"
	"testing"
)

// benchCode is straight-line RV64GC code in the style of an instrumented
// function as riscv64-linux-gnu-gcc -O2 emits it: the disabled ftrace site,
// prologue, arithmetic, loads and stores, epilogue without the return: 21
// instructions (9 of them compressed) mirroring the 20 of isa/arm's
// BenchmarkExec.
var benchCode = [][]byte{
	Nop().Bytes(),             // the disabled auipc t0 / jalr t0 site
	Nop().Bytes(),             //
	hw(0x1141),                // c.addi sp,sp,-16
	hw(0xe406),                // c.sdsp ra,8(sp)
	hw(0xe022),                // c.sdsp s0,0(sp)
	hw(0x4441),                // c.li s0,16
	wd(0x008407b3),            // add a5,s0,s0
	hw(0x17fd),                // c.addi a5,-1
	wd(0x00279793),            // slli a5,a5,2
	Sd(A5, SP, 0).Bytes(),     // sd a5,0(sp)
	Ld(A0, SP, 0).Bytes(),     // ld a0,0(sp)
	hw(0x9522),                // c.add a0,s0
	wd(0x00a035b3),            // snez a1,a0 (sltu a1,zero,a0)
	wd(0x02c585b3),            // mul a1,a1,a2
	wd(0x00b100a3),            // sb a1,1(sp)
	wd(0x00011603),            // lh a2,0(sp)
	Lui(A3, 0x1).Bytes(),      // lui a3,0x1
	Addi(A3, A3, 564).Bytes(), // addi a3,a3,564
	hw(0x60a2),                // c.ldsp ra,8(sp)
	hw(0x6402),                // c.ldsp s0,0(sp)
	hw(0x0141),                // c.addi sp,sp,16
}

func BenchmarkExec(b *testing.B) {
	const text = 0x10000
	var img []byte
	var pcs []uint64
	for _, c := range benchCode {
		pcs = append(pcs, text+uint64(len(img)))
		img = append(img, c...)
	}
	c := NewCache(text, len(img))
	bus := &isatest.SliceBus{Base: 0x8000, Mem: make([]byte, 0x1000)}
	var r Regs
	run := func() {
		r = Regs{}
		r.X[SP] = 0x9000
		r.X[RA] = 0x4242
		r.PC = text
		for _, pc := range pcs {
			if r.PC != pc {
				b.Fatalf("pc %#x, want %#x", r.PC, pc)
			}
			inst, err := c.Lookup(pc, img[pc-text:])
			if err != nil {
				b.Fatal(err)
			}
			if _, err := Exec(inst, &r, bus); err != nil {
				b.Fatal(err)
			}
		}
	}
	isatest.BenchRun(b, len(benchCode), run)
	if r.X[SP] != 0x9000 || r.X[RA] != 0x4242 {
		b.Fatalf("unbalanced: sp %#x ra %#x", r.X[SP], r.X[RA])
	}
}
