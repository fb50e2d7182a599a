/* Bit functions through the libgcc helpers gcc calls when the ISA has no
 * instruction for them (riscv64 without Zbb; arm64 with
 * -mgeneral-regs-only for popcount and parity; the 128-bit shifts at -Os):
 * the fixtures of the riscv64 and arm64 helper libraries (issue 21). */
typedef unsigned long u64;

static u64 spread(u64 x) { return x * 0x9e3779b97f4a7c15ul ^ x << 17; }

int b_clz(long x) { return x ? __builtin_clzl((u64)x) : 64; }
int b_ctz(long x) { return x ? __builtin_ctzl((u64)x) : 64; }
int b_clz32(int x) { return x ? __builtin_clz((unsigned)x) : 32; }
int b_ctz32(int x) { return x ? __builtin_ctz((unsigned)x) : 32; }
int b_ffs(long x) { return __builtin_ffsl(x); }
int b_popcount(long x) { return __builtin_popcountl(spread(x)); }
int b_popcount32(int x) { return __builtin_popcount((unsigned)x * 0x01000193u); }
int b_parity(long x) { return __builtin_parityl(spread(x)) + 2 * __builtin_parity((unsigned)x); }
int b_clrsb(long x) { return __builtin_clrsbl(x) * 100 + __builtin_clrsbl(~spread(x)); }
int b_bswap(long x) { u64 v = __builtin_bswap64(spread(x)); return (int)(v ^ v >> 32) ^ __builtin_bswap32((unsigned)x); }

/* find the n-th set bit of spread(x), by clearing the lowest ones */
int b_nth_bit(long x, int n)
{
	u64 v = spread(x);
	while (v) {
		int b = __builtin_ctzl(v);
		if (n-- == 0)
			return b;
		v &= v - 1;
	}
	return -1;
}

/* the highest set bit of a 128-bit product, and the 128-bit shifts */
int b_wide(long a, long b, int s)
{
	unsigned __int128 p = (unsigned __int128)spread(a) * spread(b);
	__int128 q = (__int128)p;
	p <<= s & 127;
	q >>= (s * 3) & 127;
	u64 hi = (u64)(p >> 64), lo = (u64)p;
	u64 r = (u64)((unsigned __int128)q >> ((s * 5) & 127));
	return (int)(hi ^ lo ^ (u64)q ^ (u64)(q >> 64) ^ r) + (hi ? 64 + 63 - __builtin_clzl(hi) : lo ? 63 - __builtin_clzl(lo) : -1);
}
