# The RV64GC loop of the step benchmark (sched/benchriscv_test.go,
# straightRV): the same 14 instructions, REPT times over, then a jump back;
# here the loop runs ITER times and exits, so that qemu-riscv64 can time it.
# Build: riscv64-linux-gnu-gcc -march=rv64gc -nostdlib -static -DITER=N -DREPT=R -o loop loop_riscv.S
# Instructions executed: 3 + ITER*(14*REPT + 3) + 3 (li t0 is two instructions for ITER >= 2048).
	.option norvc
	.text
	.global _start
_start:
	addi	sp, sp, -64
	li	t0, ITER
1:
	.rept	REPT
	.2byte	0x4441		# c.li s0,16
	.4byte	0x0084049b	# addiw s1,s0,8
	.2byte	0x9ca1		# c.addw s1,s0
	.2byte	0x14fd		# c.addi s1,-1
	.2byte	0x048a		# c.slli s1,2
	.2byte	0xe026		# c.sdsp s1,0(sp)
	.2byte	0x6502		# c.ldsp a0,0(sp)
	.2byte	0x9522		# c.add a0,s0
	.4byte	0x00a03633	# snez a2,a0
	.4byte	0x02c585b3	# mul a1,a1,a2
	.4byte	0x00c5e6b3	# or a3,a1,a2
	.4byte	0x00d6c633	# xor a2,a3,a3
	.2byte	0x0685		# c.addi a3,1
	sd	a3, 8(sp)
	.endr
	addi	t0, t0, -1
	beqz	t0, 2f
	j	1b
2:
	li	a7, 93		# exit
	li	a0, 0
	ecall
