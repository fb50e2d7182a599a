// A function whose landing pad before the patchable NOPs is paciasp, not
// "bti c" (issue 21): p_inc(x) = x + 1. What ftrace_call_adjust accepts
// before -fpatchable-function-entry=2's NOPs.
	.text
	.align	3
	.global	p_inc
	.type	p_inc, %function
p_inc:
	paciasp
	.section	__patchable_function_entries,"awo",@progbits,p_inc
	.align	3
	.8byte	.LPFE1
	.text
.LPFE1:
	nop
	nop
	add	w0, w0, #1
	autiasp
	ret
	.size	p_inc, .-p_inc
