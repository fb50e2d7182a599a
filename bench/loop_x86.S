# The x86-64 loop of the step benchmark (sched/bench_test.go, straightX86):
# the same 11 instructions, REPT times over, then a branch back; here the
# loop runs ITER times and exits, so that qemu-x86_64 can time it.
# Build: gcc -nostdlib -static -DITER=N -DREPT=R -o loop loop_x86.S
# Instructions executed: 2 + ITER*(11*REPT + 2) + 3.
	.text
	.global _start
_start:
	sub	$64, %rsp
	mov	$ITER, %r12
1:
	.rept	REPT
	.byte 0x48, 0xc7, 0xc0, 0x10, 0, 0, 0	# mov $16, %rax
	.byte 0x48, 0x89, 0xc3			# mov %rax, %rbx
	.byte 0x48, 0x01, 0xc3			# add %rax, %rbx
	.byte 0x48, 0x83, 0xeb, 0x01		# sub $1, %rbx
	.byte 0x48, 0xc1, 0xe3, 0x02		# shl $2, %rbx
	.byte 0x48, 0x89, 0x1c, 0x24		# mov %rbx, (%rsp)
	.byte 0x48, 0x8b, 0x0c, 0x24		# mov (%rsp), %rcx
	.byte 0x48, 0x39, 0xc1			# cmp %rax, %rcx
	.byte 0x48, 0x31, 0xd2			# xor %rdx, %rdx
	.byte 0x53				# push %rbx
	.byte 0x5b				# pop %rbx
	.endr
	dec	%r12
	jnz	1b
	mov	$60, %eax	# exit
	xor	%edi, %edi
	syscall
