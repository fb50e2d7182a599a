/*
 * shapes.c: C shapes that trip naive mcount/fentry site scanners.
 *
 * Compiled by ../build.sh for ARM, x86-64, arm64 and RISC-V with the
 * ftrace-style flags (-pg, -mfentry, -mrecord-mcount,
 * -fpatchable-function-entry=N[,M]). Freestanding: no libc headers.
 */
#include <stdarg.h>

extern int ext_g(int x);
extern void ext_use(void *p, int n);

#define notrace __attribute__((no_instrument_function))
#define noinline __attribute__((noinline))

/* notrace: no site at all, but it calls out like every other function. */
notrace int untraced(int x)
{
	return ext_g(x) + 1;
}

/*
 * The kernel's notrace under -fpatchable-function-entry: gcc 12's
 * no_instrument_function does not remove patchable NOPs (see untraced in
 * the arm64 and riscv64 pfe objects), patchable_function_entry(0, 0) does.
 */
__attribute__((patchable_function_entry(0, 0))) notrace int untraced_pfe(int x)
{
	return ext_g(x) + 2;
}

/* A static function: a local FUNC symbol. */
static noinline int helper_static(int x)
{
	return ext_g(x * 3) - 1;
}

/* A weak function: a WEAK FUNC symbol. */
__attribute__((weak)) int weak_hook(int x)
{
	return ext_g(x) ^ 5;
}

/* A leaf: no frame, but still instrumented. */
int leaf(int a, int b)
{
	return a * b + 7;
}

/* A sibling (tail) call at -O2: the only call is a jump. */
int sibling(int x)
{
	return ext_g(x + 1);
}

/* A cold function: gcc places it in .text.unlikely. */
__attribute__((cold)) noinline void cold_report(int code)
{
	ext_use(0, code);
	ext_use(&code, code + 1);
}

/* An unlikely path: gcc may split it out into with_unlikely.cold. */
int with_unlikely(int x)
{
	if (__builtin_expect(x < 0, 0)) {
		cold_report(x);
		ext_use(&x, -x);
		ext_use(0, x * 7);
		return -1;
	}
	return helper_static(x);
}

/* A variadic function: va_start spills registers around the site. */
int sum_va(int n, ...)
{
	va_list ap;
	int s = 0;

	va_start(ap, n);
	for (int i = 0; i < n; i++)
		s += va_arg(ap, int);
	va_end(ap);
	return s;
}

/* A variable-length array: a dynamic stack adjustment. */
int vla(int n)
{
	char buf[n];

	ext_use(buf, n);
	return buf[0];
}

/* A frame over 4 KiB: the prologue needs a multi-instruction sp adjust. */
int big_frame(int i)
{
	volatile char buf[5000];

	ext_use((void *)buf, i);
	return buf[i & 4095];
}

/* A function in another executable section, like the kernel's __init. */
__attribute__((section(".init.text"))) noinline int init_fn(void)
{
	return ext_g(42);
}

#if defined(__arm__)
/*
 * An ordinary push {lr} (the exact bytes of the __gnu_mcount_nc ABI push)
 * that is followed by an ordinary call, not by a call to __gnu_mcount_nc:
 * not a site.
 */
#if defined(__thumb__)
__asm__(".text\n"
	"\t.align 2\n"
	"\t.global fake_push\n"
	"\t.thumb\n"
	"\t.thumb_func\n"
	"\t.type fake_push, %function\n"
	"fake_push:\n"
	"\tpush {lr}\n"
	"\tbl ext_g\n"
	"\tpop {pc}\n"
	"\t.size fake_push, .-fake_push\n");
#else
__asm__(".text\n"
	"\t.align 2\n"
	"\t.global fake_push\n"
	"\t.arm\n"
	"\t.type fake_push, %function\n"
	"fake_push:\n"
	"\tstr lr, [sp, #-4]!\n"
	"\tbl ext_g\n"
	"\tldr pc, [sp], #4\n"
	"\t.size fake_push, .-fake_push\n");
#endif
#endif

/* main: gcc -O2 places it in .text.startup. */
int main(int argc, char **argv)
{
	(void)argv;
	return sum_va(2, argc, init_fn()) + vla(argc) + big_frame(argc) +
	       with_unlikely(argc) + weak_hook(argc) + sibling(argc) +
	       leaf(argc, 3) + untraced(argc) + untraced_pfe(argc);
}
