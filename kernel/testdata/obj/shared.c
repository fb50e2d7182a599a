/* Workers that share data (issue 21), for the stable bytes of
 * sched/stable.go: data whose every store writes one value. */
#define NOINLINE __attribute__((noinline))

typedef unsigned int u32;

NOINLINE u32 s_mix(u32 x)
{
	return (x ^ x >> 7) * 2654435761u;
}

/* A table built lazily, then published by a flag stored after it: the
 * table's bytes are stable (each store writes what every store does),
 * and a worker that sees the flag set reads them after the stores that
 * wrote them. The flag itself is read before any store writes it. */
static u32 s_tab[8];
static int s_ready;

NOINLINE int s_lazy(int seed, int n)
{
	if (!s_ready) {
		for (u32 i = 0; i < 8; i++)
			s_tab[i] = s_mix(i + 1);
		s_ready = 1;
	}
	u32 h = seed;
	for (int i = 0; i < n; i++)
		h = h * 31 + s_tab[(h >> 3) & 7];
	return (int)h;
}

/* A mode word set to the value it already holds, called through: every
 * store is silent. */
static int s_mode = 3;

NOINLINE int s_silent(int a, int n)
{
	int r = 0;
	for (int i = 0; i < n; i++) {
		s_mode = 3;
		r += (int)s_mix((u32)(a + i * s_mode));
	}
	return r;
}

/* A flag stored before the table it announces: a worker that sees it set
 * may read the table before the other's stores. In the reference run
 * (the workers one after the other) the table was written when the second
 * read it; in a search no store it knows of precedes that load, which
 * breaks the stable bytes' premise (P2). */
static u32 s_early_tab[4];
static int s_early_flag;

NOINLINE int s_early(int n)
{
	if (!s_early_flag) {
		s_early_flag = 1;
		for (int i = 0; i < 4; i++)
			s_early_tab[i] = s_mix((u32)(i + n));
		return 0;
	}
	return (int)s_early_tab[n & 3];
}

/* A counter and a word the first caller stores from it, read again: in
 * the reference run the counter is 1 there; when the other worker's
 * increment comes between, it stores another value, which breaks the
 * premise P1. */
static int s_cnt;
int s_hi; /* global: the store stays */

NOINLINE int s_first(int n)
{
	int c = s_cnt;
	s_cnt = c + 1;
	if (c == 0)
		s_hi = *(volatile int *)&s_cnt + n;
	return (int)s_mix((u32)n);
}
