/* The x86-64 kernel's speculation mitigations (issue 21): built with
 * -mindirect-branch=thunk-extern -mfunction-return=thunk-extern, every
 * indirect call or jump goes through __x86_indirect_thunk_REG and every
 * return is a jmp to __x86_return_thunk (Linux's retpoline.S). */
#define NOINLINE __attribute__((noinline))

static NOINLINE int t_add(int a, int b) { return a + b; }
static NOINLINE int t_mul(int a, int b) { return a * b; }
static NOINLINE int t_xor(int a, int b) { return a ^ (b << 3); }

static int (*const t_ops[])(int, int) = {t_add, t_mul, t_xor};

/* Indirect calls through a table, and an indirect tail call. */
NOINLINE int t_thunks(int a, int b)
{
	int r = a;
	for (int i = 0; i < 6; i++)
		r = t_ops[(i + b) % 3](r, i + 1);
	int (*f)(int, int) = t_ops[(r & 0x7fffffff) % 3];
	return f(r, b);
}
