// Patchable NOPs one word after the entry of a function whose first word
// is no landing pad (issue 21): LinkObject refuses the site.
	.text
	.align	3
	.global	q_inc
	.type	q_inc, %function
q_inc:
	mov	x1, x1
	.section	__patchable_function_entries,"awo",@progbits,q_inc
	.align	3
	.8byte	.LPFE1
	.text
.LPFE1:
	nop
	nop
	add	w0, w0, #1
	ret
	.size	q_inc, .-q_inc
