/* A void function that may return before it writes its return register
 * (issue 21): after an arm64 -pg _mcount call, which the compiler treats as
 * any call (clobbering x0), the register holds what the instrumentation
 * left there, which differs between the reference run's transparent
 * _mcount and ftrace_caller. No result of the workload. */
#define NOINLINE __attribute__((noinline))

typedef unsigned int u32;

NOINLINE void v_bump(u32 *p, int n)
{
	if (n <= 0)
		return;
	*p += (u32)n * 3;
}

NOINLINE int v_twice(int n)
{
	u32 x = 7;
	v_bump(&x, n);
	v_bump(&x, -n);
	return (int)x;
}
