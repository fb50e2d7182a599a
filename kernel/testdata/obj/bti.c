/* Branch Target Identification (issue 21): built with
 * -mbranch-protection=standard (or bti), every function that may be
 * called indirectly starts with "bti c", before its patchable NOPs, and
 * t_apply reaches the op_* through a table (blr); t_twice, a static
 * function only called directly, has no landing pad. The non-leaf
 * t_apply also signs its return address (paciasp after the NOPs,
 * autiasp). */
#define NOINLINE __attribute__((noinline))

NOINLINE int op_add(int a, int b) { return a + b; }
NOINLINE int op_mul(int a, int b) { return a * b; }
NOINLINE int op_sub(int a, int b) { return a - b; }

int (*const t_ops[])(int, int) = {op_add, op_mul, op_sub};

/* Only called directly: gcc gives it no landing pad. */
static NOINLINE int t_twice(int x) { return x * 2 + 1; }

NOINLINE int t_apply(int k, int a, int b)
{
	return t_twice(t_ops[k % 3](a, b));
}
