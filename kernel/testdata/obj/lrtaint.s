@ lr as scratch, then used as a return address (issue 21), assembled by
@ build.sh. Each function has the -pg prologue; r0 is the argument.
@   lrret:   lr <- a data word from the stack, then bx lr: foreign-slot at the bx
@   lrpop:   the same lr pushed and popped into pc: foreign-slot at the pop
@   lrclear: lr <- data, then lr <- the saved link again: no hazard
	.arch armv5te
	.arm
	.text
	.global lrret, lrpop, lrclear
	.type lrret, %function
lrret:
	push {r4, lr}
	push {lr}
	bl __gnu_mcount_nc
	mov r4, r0
	push {r4}
	ldr lr, [sp]
	add r0, lr, #1
	add sp, sp, #12
	bx lr
	.size lrret, .-lrret
	.type lrpop, %function
lrpop:
	push {r4, lr}
	push {lr}
	bl __gnu_mcount_nc
	mov r4, r0
	push {r4}
	ldr lr, [sp], #4
	add r0, lr, #1
	add sp, sp, #8
	push {lr}
	pop {pc}
	.size lrpop, .-lrpop
	.type lrclear, %function
lrclear:
	push {r4, lr}
	push {lr}
	bl __gnu_mcount_nc
	mov r4, r0
	push {r4}
	ldr lr, [sp], #4
	add r0, lr, #1
	ldr lr, [sp, #4]
	pop {r4}
	add sp, sp, #4
	bx lr
	.size lrclear, .-lrclear
