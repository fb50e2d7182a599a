/* Real-code fixtures (issue 21): small pure functions in the style of
 * Linux lib/, musl and zlib, written for mcountsim. Each is called by
 * realharness.c natively (under qemu-arm / qemu-x86_64) and by mcountsim
 * with the arguments listed in realargs.txt; the two must agree.
 * Compiled with the kernel's flags, they exercise what -O2 -pg emits for
 * kernel code: the libgcc division helpers on ARM (lcm, rational, udiv64,
 * sdiv64), lr as a scratch register under register pressure (sipround,
 * xxh64), word-at-a-time loads past a string's end (wstrlen) and a long
 * loop (bitcount); on x86-64 tzcnt, one-operand mul/div/idiv, rol/ror,
 * shld/shrd, bswap, cqo. */

typedef unsigned long ulong;
typedef unsigned long long u64;
typedef long long s64;
typedef unsigned int u32;

/* Euclid with the remainder operator: __aeabi_uidivmod on ARM. */
__attribute__((noinline)) u32 gcd_mod(u32 a, u32 b)
{
	while (b) {
		u32 t = a % b;
		a = b;
		b = t;
	}
	return a;
}

/* lcm(21, 6) = 42: a division (__aeabi_uidiv on ARM, div on x86-64). */
__attribute__((noinline)) int lcm(int a, int b)
{
	u32 g = gcd_mod(a, b);
	return g ? (u32)a / g * (u32)b : 0;
}

/* Binary gcd: shifts by the trailing zero count (rep bsf / tzcnt). */
__attribute__((noinline)) ulong gcd_bin(ulong a, ulong b)
{
	ulong r = a | b;
	if (a == 0 || b == 0)
		return r;
	int k = __builtin_ctzl(r);
	a >>= __builtin_ctzl(a);
	b >>= __builtin_ctzl(b);
	while (a != b) {
		if (a > b) {
			a -= b;
			a >>= __builtin_ctzl(a);
		} else {
			b -= a;
			b >>= __builtin_ctzl(b);
		}
	}
	return a << k;
}

/* The best rational approximation n/d of num/den with n, d <= max, by
 * continued fractions; returns n << 16 | d. */
__attribute__((noinline)) int rational(int num, int den, int max)
{
	ulong n = num, d = den, n0 = 0, d0 = 1, n1 = 1, d1 = 0;
	for (;;) {
		if (d == 0)
			break;
		ulong a = n / d;
		ulong t = n % d;
		ulong n2 = n0 + a * n1, d2 = d0 + a * d1;
		if (n2 > (ulong)max || d2 > (ulong)max)
			break;
		n0 = n1; d0 = d1; n1 = n2; d1 = d2;
		n = d; d = t;
	}
	return (int)(n1 << 16 | d1);
}

/* zlib's adler32 over len bytes of a pattern seeded by seed. */
static unsigned char adbuf[256];

__attribute__((noinline)) int adler32(int seed, int len)
{
	u32 a = 1, b = 0;
	for (int i = 0; i < 256; i++)
		adbuf[i] = (unsigned char)(seed * 31 + i * 7);
	for (int i = 0; i < len && i < 256; i++) {
		a = (a + adbuf[i]) % 65521;
		b = (b + a) % 65521;
	}
	return (int)(b << 16 | a);
}

/* adler32_combine: the modulo of a product by a variable. */
__attribute__((noinline)) int adler_combine(int adler1, int adler2, int len2)
{
	u32 base = 65521, rem = (u32)len2 % base;
	u32 s1 = adler1 & 0xffff, s2 = rem * s1 % base;
	s1 += (adler2 & 0xffff) + base - 1;
	s2 += ((adler1 >> 16) & 0xffff) + ((adler2 >> 16) & 0xffff) + base - rem;
	if (s1 >= base) s1 -= base;
	if (s1 >= base) s1 -= base;
	if (s2 >= base << 1) s2 -= base << 1;
	if (s2 >= base) s2 -= base;
	return (int)(s1 | s2 << 16);
}

#define ROL64(x, n) (((x) << (n)) | ((x) >> (64 - (n))))

/* Two SipHash rounds over a state built from the arguments. */
__attribute__((noinline)) int sipround(int a, int b, int c, int d)
{
	u64 v0 = 0x736f6d6570736575ULL ^ (u64)a, v1 = 0x646f72616e646f6dULL ^ ((u64)b << 32);
	u64 v2 = 0x6c7967656e657261ULL ^ (u64)c, v3 = 0x7465646279746573ULL ^ ((u64)d << 17);
	for (int i = 0; i < 2; i++) {
		v0 += v1; v1 = ROL64(v1, 13); v1 ^= v0; v0 = ROL64(v0, 32);
		v2 += v3; v3 = ROL64(v3, 16); v3 ^= v2;
		v0 += v3; v3 = ROL64(v3, 21); v3 ^= v0;
		v2 += v1; v1 = ROL64(v1, 17); v1 ^= v2; v2 = ROL64(v2, 32);
	}
	u64 h = v0 ^ v1 ^ v2 ^ v3;
	return (int)(h ^ h >> 32);
}

/* xxh64 over four lanes of 32 bytes built from the arguments. */
#define P1 0x9E3779B185EBCA87ULL
#define P2 0xC2B2AE3D27D4EB4FULL
#define P3 0x165667B19E3779F9ULL
#define P4 0x85EBCA77C2B2AE63ULL

static u64 xxround(u64 acc, u64 in)
{
	acc += in * P2;
	acc = ROL64(acc, 31);
	return acc * P1;
}

__attribute__((noinline)) int xxh64(int a, int b, int c, int d)
{
	u64 v1 = (u64)a + P1 + P2, v2 = (u64)b + P2, v3 = (u64)c, v4 = (u64)d - P1;
	for (int i = 0; i < 4; i++) {
		v1 = xxround(v1, (u64)(a + i) * 0x0101010101010101ULL);
		v2 = xxround(v2, (u64)(b ^ i) << 7);
		v3 = xxround(v3, (u64)(c - i) * 3);
		v4 = xxround(v4, (u64)(d + i) << 29);
	}
	u64 h = ROL64(v1, 1) + ROL64(v2, 7) + ROL64(v3, 12) + ROL64(v4, 18);
	h ^= h >> 33; h *= P2; h ^= h >> 29; h *= P3; h ^= h >> 32;
	return (int)(h ^ h >> 32);
}

/* musl-style strlen: aligned word-at-a-time reads, which may read past
 * the string's last byte (legal within a mapped page). */
#define ONES ((ulong)-1 / 255)
#define HIGHS (ONES * 128)
#define HASZERO(x) (((x) - ONES) & ~(x) & HIGHS)

__attribute__((noinline)) ulong wstrlen_at(const char *s)
{
	const char *a = s;
	for (; (ulong)s % sizeof(ulong); s++)
		if (!*s)
			return s - a;
	const ulong *w = (const void *)s;
	while (!HASZERO(*w))
		w++;
	for (s = (const void *)w; *s; s++)
		;
	return s - a;
}

/* The string ends the section: its last word reaches past the data. */
__attribute__((aligned(8))) const char wstr[] = "the quick brown fox jumps";

__attribute__((noinline)) int wstrlen(int off)
{
	return (int)wstrlen_at(wstr + (off & 15));
}

/* find_next_bit over a 1024-bit map, and a long loop that counts the set
 * bits through it. */
#define MAPWORDS (1024 / (8 * sizeof(ulong)))
static ulong bitmap[MAPWORDS];

static ulong next_bit(const ulong *map, ulong size, ulong off)
{
	const int bpl = 8 * sizeof(ulong);
	if (off >= size)
		return size;
	ulong w = map[off / bpl] & (~0UL << (off % bpl));
	off -= off % bpl;
	while (!w) {
		off += bpl;
		if (off >= size)
			return size;
		w = map[off / bpl];
	}
	off += __builtin_ctzl(w);
	return off < size ? off : size;
}

__attribute__((noinline)) int bitcount(int seed, int every)
{
	ulong x = (ulong)seed * 2654435761u;
	for (ulong i = 0; i < MAPWORDS; i++) {
		x ^= x << 13; x ^= x >> 7; x ^= x << 17;
		bitmap[i] = i % (ulong)(every | 1) ? 0 : x;
	}
	int n = 0;
	for (ulong b = next_bit(bitmap, 1024, 0); b < 1024; b = next_bit(bitmap, 1024, b + 1))
		n++;
	return n;
}

/* 64-bit division: __aeabi_uldivmod and __aeabi_ldivmod on ARM, div and
 * idiv (with cqo) on x86-64. */
__attribute__((noinline)) int udiv64(int hi, int lo, int div)
{
	u64 n = (u64)(u32)hi << 32 | (u32)lo;
	u64 q = n / (u32)div, r = n % (u32)div;
	return (int)(q ^ q >> 32) + (int)r;
}

__attribute__((noinline)) int sdiv64(int hi, int lo, int div)
{
	s64 n = (s64)((u64)(u32)hi << 32 | (u32)lo);
	s64 q = n / div, r = n % div;
	return (int)(q ^ q >> 32) - (int)r;
}

/* 32-bit signed division: __aeabi_idiv / __aeabi_idivmod. */
__attribute__((noinline)) int sdiv32(int a, int b)
{
	return a / b * 1000 + a % b;
}

/* Variable 64-bit shifts and a 64-bit product. */
__attribute__((noinline)) int shifts64(int hi, int lo, int n)
{
	u64 v = (u64)(u32)hi << 32 | (u32)lo;
	s64 s = (s64)v;
	u64 a = v << (n & 63), b = v >> (n & 63), c = (u64)(s >> (n & 63));
	u64 p = a * (b | 1);
	return (int)(a ^ a >> 32) ^ (int)(b ^ b >> 32) ^ (int)(c ^ c >> 32) ^ (int)(p ^ p >> 32);
}

/* x86-64: the 128-bit products (one-operand mul and imul), shld/shrd,
 * bswap, rotates by cl. */
__attribute__((noinline)) int wide128(int a, int b, int n)
{
#ifdef __x86_64__
	u64 x = (u64)a * 0x9E3779B97F4A7C15ULL, y = (u64)b * P2;
	unsigned __int128 p = (unsigned __int128)x * y;
	__int128 q = (__int128)(s64)x * (s64)y;
	u64 hi = (u64)(p >> 64), lo = (u64)p;
	u64 sh = (u64)(p >> (n & 63)); /* shrd */
	u64 sl = (u64)((p << (n & 63)) >> 64); /* shld */
	u64 r = (x << (n & 63)) | (x >> ((64 - n) & 63));
	u64 bs = __builtin_bswap64(hi) ^ __builtin_bswap32((u32)lo);
	u64 m = hi ^ lo ^ sh ^ sl ^ r ^ bs ^ (u64)(q >> 64);
	return (int)(m ^ m >> 32);
#else
	return a ^ b ^ n;
#endif
}
