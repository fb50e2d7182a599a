@ The A32 loop of the step benchmark (sched/bench_test.go, BenchmarkStep/arm/straight):
@ the same 16 instruction words, 256 times over (4096 instructions), then a branch back.
@ Here the loop runs ITER times and exits, so that qemu-arm can time it.
@ Build: arm-linux-gnueabi-gcc -march=armv7-a -nostdlib -static -DITER=N -o loop loop.S
@ Instructions executed: 3 + ITER*(4096+2) + 3.
	.arm
	.text
	.global _start
_start:
	sub	sp, sp, #64
	movw	r6, #:lower16:ITER
	movt	r6, #:upper16:ITER
1:
	.rept	256
	.inst	0xe3a04010	@ mov r4, #16
	.inst	0xe0845004	@ add r5, r4, r4
	.inst	0xe2555001	@ subs r5, r5, #1
	.inst	0xe1a05105	@ lsl r5, r5, #2
	.inst	0xe58d5000	@ str r5, [sp]
	.inst	0xe59d0000	@ ldr r0, [sp]
	.inst	0xe0800004	@ add r0, r0, r4
	.inst	0xe3500000	@ cmp r0, #0
	.inst	0x13a01001	@ movne r1, #1
	.inst	0x03a01000	@ moveq r1, #0
	.inst	0xe0010291	@ mul r1, r1, r2
	.inst	0xe1813002	@ orr r3, r1, r2
	.inst	0xe0232003	@ eor r2, r3, r3
	.inst	0xe2833001	@ add r3, r3, #1
	.inst	0xe52d3004	@ push {r3}
	.inst	0xe49d3004	@ pop {r3}
	.endr
	subs	r6, r6, #1
	bne	1b
	mov	r0, #0
	mov	r7, #1		@ exit
	svc	#0
