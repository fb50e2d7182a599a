@ Loads of a freed frame's words (issue 21, sched/freed.go), assembled by
@ build.sh. Each function has the -pg prologue; r0 is the argument.
@   deadload: calls fill, whose frame holds 2*r0 at sp-8 and its lr at
@             sp-4 when it returns, and loads sp-8 back: 0 once freed
@             frames are scrubbed (2*r0 on hardware, if no interrupt
@             came between)
@   deadret:  calls fill, then pops pc from its freed frame: a return
@             to 0 from a never-written slot (to 2*r0 if kept)
@   liveload: the same call, and a load of its own local: r0
	.arch armv5te
	.arm
	.text
	.global deadload, deadret, liveload
	.type fill, %function
fill:
	sub sp, sp, #8
	add r1, r0, r0
	str r1, [sp]
	str lr, [sp, #4]
	ldr lr, [sp, #4]
	add sp, sp, #8
	bx lr
	.size fill, .-fill
	.type deadload, %function
deadload:
	push {r4, lr}
	push {lr}
	bl __gnu_mcount_nc
	bl fill
	ldr r0, [sp, #-8]
	pop {r4, pc}
	.size deadload, .-deadload
	.type deadret, %function
deadret:
	push {r4, lr}
	push {lr}
	bl __gnu_mcount_nc
	bl fill
	sub sp, sp, #8
	pop {pc}
	.size deadret, .-deadret
	.type liveload, %function
liveload:
	push {r4, lr}
	push {lr}
	bl __gnu_mcount_nc
	str r0, [sp, #-4]!
	bl fill
	ldr r0, [sp], #4
	pop {r4, pc}
	.size liveload, .-liveload
