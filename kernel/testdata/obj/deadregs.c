/* Registers the procedure call standard leaves undefined (issue 21,
 * sched/deadregs.go), read on purpose through inline assembly, as
 * compiled C never reads them:
 *   r_entry(a):  puts 5 in a temporary (arm r12, x86-64 r11, arm64 x12,
 *                riscv64 t3) and calls r_read, untraced, which reads it at
 *                its entry, and adds 2: a + 7 on hardware, where nothing
 *                between writes it; a + 2 once the machine clears an
 *                entry's dead registers.
 *   r_return(a): puts 7 in an argument register that carries no result
 *                (arm r3, x86-64 rsi, arm64 x5, riscv64 a5), calls the
 *                traced r_leaf and reads it back: a + 8 on hardware (the
 *                leaf and the trampolines keep it); a + 1 once the machine
 *                clears a return's dead registers.
 * Every function but r_read has a site. */
#define NOINLINE __attribute__((noinline))

#if defined(__aarch64__)
#define NOTRACE __attribute__((patchable_function_entry(0, 0)))
#define SET_TEMP() __asm__ volatile("mov x12, #5" ::: "x12")
#define GET_TEMP(v) __asm__ volatile("mov %0, x12" : "=r"(v))
#define SET_ARG() __asm__ volatile("mov x5, #7" ::: "x5")
#define GET_ARG(v) __asm__ volatile("mov %0, x5" : "=r"(v))
#elif defined(__riscv)
#define NOTRACE __attribute__((patchable_function_entry(0, 0)))
#define SET_TEMP() __asm__ volatile("li t3, 5" ::: "t3")
#define GET_TEMP(v) __asm__ volatile("mv %0, t3" : "=r"(v))
#define SET_ARG() __asm__ volatile("li a5, 7" ::: "a5")
#define GET_ARG(v) __asm__ volatile("mv %0, a5" : "=r"(v))
#elif defined(__x86_64__)
#define NOTRACE __attribute__((no_instrument_function))
#define SET_TEMP() __asm__ volatile("mov $5, %%r11" ::: "r11")
#define GET_TEMP(v) __asm__ volatile("mov %%r11, %0" : "=r"(v))
#define SET_ARG() __asm__ volatile("mov $7, %%rsi" ::: "rsi")
#define GET_ARG(v) __asm__ volatile("mov %%rsi, %0" : "=r"(v))
#elif defined(__arm__)
#define NOTRACE __attribute__((no_instrument_function))
#define SET_TEMP() __asm__ volatile("mov r12, #5" ::: "r12")
#define GET_TEMP(v) __asm__ volatile("mov %0, r12" : "=r"(v))
#define SET_ARG() __asm__ volatile("mov r3, #7" ::: "r3")
#define GET_ARG(v) __asm__ volatile("mov %0, r3" : "=r"(v))
#endif

NOINLINE NOTRACE long r_read(long a)
{
	long v;
	GET_TEMP(v);
	return a + v;
}

NOINLINE long r_entry(long a)
{
	SET_TEMP();
	return r_read(a) + 2; /* a call, not a tail call */
}

NOINLINE long r_leaf(long a)
{
	return a + 1;
}

NOINLINE long r_return(long a)
{
	long v, r;
	SET_ARG();
	r = r_leaf(a);
	GET_ARG(v);
	return r + v;
}
