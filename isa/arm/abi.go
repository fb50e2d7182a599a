package arm

// ClearDead sets to 0 the registers whose values the procedure call
// standard (AAPCS, ARM IHI 0042, §6.1.1 and §6.5) leaves undefined to the
// code that runs next: at a function's entry (atReturn false) the
// intra-procedure-call scratch register ip (r12, which a veneer may
// corrupt) and the condition flags; after its return (atReturn true) also
// r2 and r3, which the callee need not preserve and which carry no
// result (a result of up to 8 bytes is in r0 and r1; a larger one is in
// memory). The arguments r0–r3 at entry, the callee-saved r4–r11, sp, lr
// (the return address at entry; after a return the detectors follow it as
// a link: see package sched's scratch.go) and pc are kept. Correct
// compiled code never reads a register this clears before writing it.
func (r *Regs) ClearDead(atReturn bool) {
	if atReturn {
		r.R[2], r.R[3] = 0, 0
	}
	r.R[12] = 0
	r.N, r.Z, r.C, r.V = false, false, false, false
}
