package x86

// ClearDead sets to 0 the registers whose values the System V AMD64
// psABI (§3.2.1, figure 3.4) leaves undefined to the code that runs next:
// at a function's entry (atReturn false) the temporaries r10 (the static
// chain of nested functions, which C kernel code does not use) and r11,
// and the status flags; after its return (atReturn true) also the
// argument registers rdi, rsi, rcx, r8 and r9, which the callee need not
// preserve and which carry no result (rax and rdx do). rax at entry is
// kept (a variadic callee reads al, the number of vector registers used),
// as are the arguments, the callee-saved rbx, rbp and r12–r15, rsp and
// rip. Correct compiled code never reads a register this clears before
// writing it.
func (r *Regs) ClearDead(atReturn bool) {
	if atReturn {
		for _, i := range [...]Reg{RCX, RSI, RDI, R8, R9} {
			r.R[i] = 0
		}
	}
	r.R[R10], r.R[R11] = 0, 0
	r.CF, r.PF, r.AF, r.ZF, r.SF, r.OF = false, false, false, false, false, false
}
