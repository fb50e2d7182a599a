package arm64

// ClearDead sets to 0 the registers whose values the procedure call
// standard (AAPCS64, ARM IHI 0055, §6.1.1 and §6.4) leaves undefined to
// the code that runs next: at a function's entry (atReturn false) the
// temporaries x9–x15, the intra-procedure-call registers x16 and x17
// (which a veneer or PLT stub between caller and callee may corrupt) and
// NZCV; after its return (atReturn true) also x2–x8, which the callee
// need not preserve and which carry no result (an integer or composite
// result of up to 16 bytes is in x0 and x1; a larger one is in memory at
// the address x8 held at entry). Arguments (x0–x7), the indirect result
// register x8 at entry, the platform register x18 (the kernel's shadow
// call stack), the callee-saved x19–x29, the link register, sp and pc are
// kept. Correct compiled code never reads a register this clears before
// writing it.
func (r *Regs) ClearDead(atReturn bool) {
	lo := 9
	if atReturn {
		lo = 2
	}
	for i := lo; i <= 17; i++ {
		r.X[i] = 0
	}
	r.N, r.Z, r.C, r.V = false, false, false, false
}
