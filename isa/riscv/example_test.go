package riscv_test

import (
	"fmt"

	"github.com/mcountsim/mcountsim/isa/riscv"
)

// An era-3 ftrace site: auipc t0 written once at boot, then the nop is
// toggled to the jalr t0 that calls ftrace_caller, which returns with jr t0.
func Example() {
	const site, caller = 0x10000, 0x10800
	auipc, jalr, _ := riscv.Call(riscv.T0, site, caller)
	text := append(auipc.Bytes(), jalr.Bytes()...)
	r := riscv.Regs{PC: site}
	for r.PC < site+8 {
		inst, _ := riscv.Decode(r.PC, text[r.PC-site:])
		fmt.Printf("%#x %-18s", r.PC, riscv.Disasm(&inst, r.PC, nil))
		flow, _ := riscv.Exec(&inst, &r, nil)
		fmt.Printf(" → %v, pc %#x, t0 %#x\n", flow, r.PC, r.X[riscv.T0])
		if r.PC == caller {
			ret := riscv.Jr(riscv.T0)
			inst, _ := riscv.Decode(r.PC, ret.Bytes())
			flow, _ := riscv.Exec(&inst, &r, nil)
			fmt.Printf("%#x %-18s → %v, pc %#x\n", uint64(caller), riscv.Disasm(&inst, caller, nil), flow, r.PC)
		}
	}
	// Output:
	// 0x10000 auipc t0,0x1       → next, pc 0x10004, t0 0x11000
	// 0x10004 jalr t0,-2048(t0)  → call, pc 0x10800, t0 0x10008
	// 0x10800 jr t0              → return, pc 0x10008
}
