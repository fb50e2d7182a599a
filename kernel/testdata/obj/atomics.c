/* Atomics (issue 21): __atomic_fetch_add, __atomic_compare_exchange_n and
 * __atomic_exchange_n on a local (the address escapes into the atomic
 * only) and on globals, as kernel code uses atomic_t and cmpxchg. ARMv7
 * compiles them to ldrex/strex loops with dmb; arm64 to calls of libgcc's
 * outline atomics (-moutline-atomics, gcc's default) or to ldaxr/stlxr
 * loops (-mno-outline-atomics); rv64gc to amoadd/amoswap and an lr/sc
 * loop for the compare-and-exchange. The return value depends on the
 * arguments only: what other tasks do to the globals is not returned. */
#define NOINLINE __attribute__((noinline))

int a_count;
long long a_total;

NOINLINE int a_inc(int a, int n)
{
	int local = a;
	int old = __atomic_fetch_add(&local, n, __ATOMIC_SEQ_CST);
	int exp = old + n;
	int ok = __atomic_compare_exchange_n(&local, &exp, exp * 2, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
	int bad = 0;
	int no = __atomic_compare_exchange_n(&local, &bad, 99, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
	int x = __atomic_exchange_n(&local, local + 1, __ATOMIC_SEQ_CST);
	__atomic_fetch_add(&a_count, n, __ATOMIC_RELAXED);
	__atomic_fetch_add(&a_total, (long long)a, __ATOMIC_SEQ_CST);
	return old + ok * 10 + no * 20 + bad * 40 + x * 1000 + local * 100000;
}
