package riscv

// ClearDead sets to 0 the registers whose values the RISC-V psABI
// (integer calling convention, "Integer Register Convention") leaves
// undefined to the code that runs next: at a function's entry (atReturn
// false) the temporaries t0–t2 (x5–x7) and t3–t6 (x28–x31); after its
// return (atReturn true) also a2–a7 (x12–x17), which the callee need not
// preserve and which carry no result (a0 and a1 do). The arguments
// a0–a7 at entry, ra, sp, gp, tp, the callee-saved s0–s11 and pc are
// kept. Correct compiled code never reads a register this clears before
// writing it; an ftrace site at the entry writes t0 (auipc) before its
// trampoline reads it.
func (r *Regs) ClearDead(atReturn bool) {
	for i := 5; i <= 7; i++ {
		r.X[i] = 0
	}
	for i := 28; i <= 31; i++ {
		r.X[i] = 0
	}
	if atReturn {
		for i := 12; i <= 17; i++ {
			r.X[i] = 0
		}
	}
}
