// The A64 loop of the step benchmark (sched/corearm64_test.go,
// straightA64): the same 15 instructions, REPT times over, then a branch
// back; here the loop runs ITER times and exits, so that qemu-aarch64 can
// time it.
// Build: aarch64-linux-gnu-gcc -nostdlib -static -DITER=N -DREPT=R -o loop loop_arm64.S
// Instructions executed: 2 + ITER*(15*REPT + 2) + 3.
	.text
	.global _start
_start:
	sub	sp, sp, #64
	ldr	x9, =ITER
1:
	.rept	REPT
	.inst	0xd2800204	// mov x4, #0x10
	.inst	0x8b040085	// add x5, x4, x4
	.inst	0xf10004a5	// subs x5, x5, #0x1
	.inst	0xd37ef4a5	// lsl x5, x5, #2
	.inst	0xf90003e5	// str x5, [sp]
	.inst	0xf94003e0	// ldr x0, [sp]
	.inst	0x8b040000	// add x0, x0, x4
	.inst	0xf100001f	// cmp x0, #0x0
	.inst	0x1a9f07e1	// cset w1, ne
	.inst	0x9b027c21	// mul x1, x1, x2
	.inst	0xaa020023	// orr x3, x1, x2
	.inst	0xca030062	// eor x2, x3, x3
	.inst	0x91000463	// add x3, x3, #0x1
	.inst	0xa9bf0fe3	// stp x3, x3, [sp, #-16]!
	.inst	0xa8c11be3	// ldp x3, x6, [sp], #16
	.endr
	subs	x9, x9, #1
	b.ne	1b
	mov	x8, #93		// exit
	mov	x0, #0
	svc	#0
