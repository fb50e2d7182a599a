/* The second corpus of issue 21: more small pure functions in the style of
 * Linux lib/, musl and zlib, written for mcountsim (none is copied from
 * those projects), chosen for the integer instructions gcc emits for them
 * on x86-64 with the kernel's flags: bit scans and counts, one-operand
 * multiplies and divides at every width, rotates, double shifts, carries,
 * bit tests, conditional moves and sets, sign extensions, byte swaps,
 * locked read-modify-writes, string instructions for block clears and
 * copies, jump tables, more than six arguments and struct returns. The
 * same rules as corpus.c: every exported function takes at most six int
 * arguments and returns an int-sized value; calls2.txt gives one call of
 * each. */

typedef unsigned char u8;
typedef signed char s8;
typedef unsigned short u16;
typedef short s16;
typedef unsigned int u32;
typedef int s32;
typedef unsigned long ulong;
typedef unsigned long long u64;
typedef long long s64;
#ifdef __SIZEOF_INT128__
/* 64-bit targets: 128-bit products and shifts in C; the 32-bit ones take
 * the halves paths below. */
#define HAVE_INT128 1
typedef unsigned __int128 u128;
typedef __int128 s128;
#endif
typedef u64 __attribute__((may_alias)) u64a;

#define NOINLINE __attribute__((noinline))

static inline u32 rotl32(u32 x, unsigned n) { return x << (n & 31) | x >> (-n & 31); }
static inline u32 rotr32(u32 x, unsigned n) { return x >> (n & 31) | x << (-n & 31); }
static inline u64 rotl64(u64 x, unsigned n) { return x << (n & 63) | x >> (-n & 63); }
static inline u64 join(u32 hi, u32 lo) { return (u64)hi << 32 | lo; }
static inline u32 squash(u64 v) { return (u32)v ^ (u32)(v >> 32) * 0x9e3779b1u; }
static inline u32 step(u32 *s) { *s ^= *s << 13; *s ^= *s >> 17; *s ^= *s << 5; return *s; }

/* --- sorting and searching --- */

/* A heapsort over elements of 4, 8 or 12 bytes with the swap chosen by
 * the element size and alignment, as lib/sort.c picks one. */
typedef void (*swap_fn)(void *a, void *b, int size);

static void swap_u32s(void *a, void *b, int size)
{
	u32 *x = a, *y = b;
	for (int i = 0; i < size / 4; i++) {
		u32 t = x[i];
		x[i] = y[i];
		y[i] = t;
	}
}

static void swap_u64s(void *a, void *b, int size)
{
	u64 *x = a, *y = b;
	for (int i = 0; i < size / 8; i++) {
		u64 t = x[i];
		x[i] = y[i];
		y[i] = t;
	}
}

static void swap_bytes(void *a, void *b, int size)
{
	u8 *x = a, *y = b;
	while (size--) {
		u8 t = *x;
		*x++ = *y;
		*y++ = t;
	}
}

static int key_of(const void *p) { return *(const int *)p; }

static void heap_sort(void *base, int n, int size, swap_fn swap)
{
	char *b = base;
	for (int i = n / 2 - 1; i >= 0; i--)
		for (int r = i, c; (c = 2 * r + 1) < n; r = c) {
			if (c + 1 < n && key_of(b + c * size) < key_of(b + (c + 1) * size))
				c++;
			if (key_of(b + r * size) >= key_of(b + c * size))
				break;
			swap(b + r * size, b + c * size, size);
		}
	for (int end = n - 1; end > 0; end--) {
		swap(b, b + end * size, size);
		for (int r = 0, c; (c = 2 * r + 1) < end; r = c) {
			if (c + 1 < end && key_of(b + c * size) < key_of(b + (c + 1) * size))
				c++;
			if (key_of(b + r * size) >= key_of(b + c * size))
				break;
			swap(b + r * size, b + c * size, size);
		}
	}
}

NOINLINE u32 d_sort_swap(u32 seed, int n, int kind)
{
	u32 words[3 * 24];
	int size = kind == 0 ? 4 : kind == 1 ? 8 : 12;
	if (n > 24)
		n = 24;
	for (int i = 0; i < 3 * n; i++)
		words[i] = step(&seed) % 1000;
	swap_fn sw = size % 8 == 0 ? swap_u64s : size % 4 == 0 && kind != 2 ? swap_u32s : swap_bytes;
	heap_sort(words, n, size, sw);
	u32 h = 0, prev = 0, sorted = 1;
	for (int i = 0; i < n; i++) {
		u32 k = words[i * (size / 4)];
		sorted &= k >= prev;
		prev = k;
		h = h * 31 + k + words[i * (size / 4) + size / 4 - 1];
	}
	return h ^ sorted << 31;
}

/* bsearch with a comparator through a pointer, over a .rodata table. */
static const u16 primes[] = {
	2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61, 67, 71,
	73, 79, 83, 89, 97, 101, 103, 107, 109, 113, 127, 131, 137, 139, 149, 151,
};

static int cmp_u16(const void *k, const void *e)
{
	return (int)*(const u16 *)k - (int)*(const u16 *)e;
}

static const void *bsearch_fn(const void *key, const void *base, ulong n, ulong size,
			      int (*cmp)(const void *, const void *))
{
	const char *lo = base;
	while (n) {
		const char *mid = lo + (n >> 1) * size;
		int c = cmp(key, mid);
		if (!c)
			return mid;
		if (c > 0) {
			lo = mid + size;
			n -= (n >> 1) + 1;
		} else {
			n >>= 1;
		}
	}
	return 0;
}

NOINLINE int d_bsearch(int from, int to)
{
	int found = 0, pos = 0;
	for (int v = from; v <= to; v++) {
		u16 k = (u16)v;
		const u16 *p = bsearch_fn(&k, primes, sizeof primes / sizeof primes[0], sizeof primes[0], cmp_u16);
		if (p) {
			found++;
			pos += (int)(p - primes);
		}
	}
	return found * 1000 + pos;
}

/* musl qsort's smoothsort helpers: the trailing-zero count of a two-word
 * bit vector and its shifts. */
static inline int ntz(ulong x) { return x ? __builtin_ctzl(x) : 0; }

static inline int pntz(ulong p[2])
{
	int r = ntz(p[0] - 1);
	if (r != 0 || (r = 8 * sizeof(ulong) + ntz(p[1])) != 8 * sizeof(ulong))
		return r;
	return 0;
}

static inline void shl(ulong p[2], int n)
{
	if (n >= 8 * (int)sizeof(ulong)) {
		n -= 8 * sizeof(ulong);
		p[1] = p[0];
		p[0] = 0;
	}
	p[1] <<= n;
	p[1] |= p[0] >> (sizeof(ulong) * 8 - n);
	p[0] <<= n;
}

static inline void shr(ulong p[2], int n)
{
	if (n >= 8 * (int)sizeof(ulong)) {
		n -= 8 * sizeof(ulong);
		p[0] = p[1];
		p[1] = 0;
	}
	p[0] >>= n;
	p[0] |= p[1] << (sizeof(ulong) * 8 - n);
	p[1] >>= n;
}

NOINLINE u32 d_pntz(u32 lo, u32 hi, int rounds)
{
	ulong p[2] = {(ulong)join(hi, lo) | 1, (ulong)join(lo, hi) | 1};
	u32 h = 0;
	for (int i = 0; i < rounds; i++) {
		int t = pntz(p);
		h = h * 33 + (u32)t;
		if (i & 1)
			shr(p, 1 + i % 63);
		else
			shl(p, 1 + i % 63);
		p[0] |= 1;
		p[1] |= (ulong)1 << (i % 64);
	}
	return h ^ squash((u64)(p[0] ^ p[1]));
}

/* A Leonardo-heap sort (smoothsort's shape, with its sift and trinkle)
 * of a local array. */
static const int leo[] = {1, 1, 3, 5, 9, 15, 25, 41, 67, 109, 177, 287, 465};

static void sift(int *a, int head, int pshift)
{
	while (pshift > 1) {
		int rt = head - 1, lf = head - 1 - leo[pshift - 2];
		if (a[head] >= a[lf] && a[head] >= a[rt])
			break;
		int t = a[head];
		if (a[lf] >= a[rt]) {
			a[head] = a[lf];
			a[lf] = t;
			head = lf;
			pshift -= 1;
		} else {
			a[head] = a[rt];
			a[rt] = t;
			head = rt;
			pshift -= 2;
		}
	}
}

static void trinkle(int *a, int head, ulong pp[2], int pshift, int trusty)
{
	ulong p[2] = {pp[0], pp[1]};
	while (p[0] != 1 || p[1] != 0) {
		int stepson = head - leo[pshift];
		if (a[stepson] <= a[head])
			break;
		if (!trusty && pshift > 1) {
			int rt = head - 1, lf = head - 1 - leo[pshift - 2];
			if (a[rt] >= a[stepson] || a[lf] >= a[stepson])
				break;
		}
		int t = a[head];
		a[head] = a[stepson];
		a[stepson] = t;
		head = stepson;
		int tz = pntz(p);
		shr(p, tz);
		pshift += tz;
		trusty = 0;
	}
	if (!trusty)
		sift(a, head, pshift);
}

static void smooth(int *a, int n)
{
	ulong p[2] = {1, 0};
	int pshift = 1, head = 0;
	for (; head < n - 1; head++) {
		if ((p[0] & 3) == 3) {
			sift(a, head, pshift);
			shr(p, 2);
			pshift += 2;
		} else {
			if (leo[pshift - 1] >= n - 1 - head)
				trinkle(a, head, p, pshift, 0);
			else
				sift(a, head, pshift);
			if (pshift == 1) {
				shl(p, 1);
				pshift = 0;
			} else {
				shl(p, pshift - 1);
				pshift = 1;
			}
		}
		p[0] |= 1;
	}
	trinkle(a, head, p, pshift, 0);
	while (pshift != 1 || p[0] != 1 || p[1] != 0) {
		if (pshift <= 1) {
			int tz = pntz(p);
			shr(p, tz);
			pshift += tz;
		} else {
			shl(p, 2);
			pshift -= 2;
			p[0] ^= 7;
			shr(p, 1);
			trinkle(a, head - leo[pshift] - 1, p, pshift + 1, 1);
			shl(p, 1);
			p[0] |= 1;
			trinkle(a, head - 1, p, pshift, 1);
		}
		head--;
	}
}

NOINLINE u32 d_smoothsort(u32 seed, int n)
{
	int a[64];
	if (n > 64)
		n = 64;
	for (int i = 0; i < n; i++)
		a[i] = (int)(step(&seed) % 2001) - 1000;
	smooth(a, n);
	u32 h = 0, ok = 1;
	for (int i = 0; i < n; i++) {
		ok &= i == 0 || a[i - 1] <= a[i];
		h = h * 131 + (u32)a[i];
	}
	return h ^ ok << 31;
}

/* --- arithmetic --- */

/* int_pow: exponentiation by squaring on 64 bits. */
NOINLINE u32 d_int_pow(u32 base, u32 exp)
{
	u64 r = 1, b = base;
	while (exp) {
		if (exp & 1)
			r *= b;
		exp >>= 1;
		b *= b;
	}
	return squash(r);
}

/* A 128-bit product through 32-bit halves. */
static void mul64_128(u64 a, u64 b, u64 *hi, u64 *lo)
{
	u64 al = (u32)a, ah = a >> 32, bl = (u32)b, bh = b >> 32;
	u64 ll = al * bl, lh = al * bh, hl = ah * bl, hh = ah * bh;
	u64 mid = (ll >> 32) + (u32)lh + (u32)hl;
	*lo = (mid << 32) | (u32)ll;
	*hi = hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
}

/* mul_u64_u64_div_u64: a*b/c with a 128-bit product and a shift-and-
 * subtract division of it (only the product is native, where it is). */
static u64 mul_div(u64 a, u64 b, u64 c)
{
	u64 hi, lo;
#ifdef HAVE_INT128
	u128 prod = (u128)a * b;
	hi = (u64)(prod >> 64);
	lo = (u64)prod;
#else
	mul64_128(a, b, &hi, &lo);
#endif
	if (!hi)
		return lo / c;
	u64 q = 0, r = hi % c;
	for (int i = 63; i >= 0; i--) {
		u64 top = r >> 63;
		r = r << 1 | (lo >> i & 1);
		q <<= 1;
		if (top || r >= c) {
			r -= c;
			q |= 1;
		}
	}
	return q;
}

NOINLINE u32 d_mul_div(u32 ahi, u32 alo, u32 bhi, u32 blo, u32 chi, u32 clo)
{
	u64 c = join(chi, clo);
	if (!c)
		c = 1;
	return squash(mul_div(join(ahi, alo), join(bhi, blo), c));
}

/* div64_u64_rem, and a u64 by u32 division through two 32-bit steps. */
static u64 div64_u64_rem(u64 n, u64 d, u64 *rem)
{
	*rem = n % d;
	return n / d;
}

NOINLINE u32 d_div64_rem(u32 nhi, u32 nlo, u32 dhi, u32 dlo)
{
	u64 d = join(dhi, dlo) | 1, r;
	u64 q = div64_u64_rem(join(nhi, nlo), d, &r);
	u32 d32 = dlo | 1, hi = nhi / d32, rem = nhi % d32;
	u64 lo = join(rem, nlo) / d32;
	return squash(q) ^ squash(r) * 3 ^ hi * 5 ^ (u32)lo * 7;
}

/* Division and modulo of negative numbers at every width, by variables
 * and by constants (truncating towards zero, the remainder with the
 * dividend's sign). */
NOINLINE int d_sdivmod(int a, int b, int c)
{
	s8 a8 = (s8)a, b8 = (s8)(b | 1);
	s16 a16 = (s16)(a * 3), b16 = (s16)(b * 5 | 1);
	s64 a64 = (s64)a * 1000003 - (s64)c * ((s64)1 << 33), b64 = (s64)b * -7 | 1;
	int r = 0;
	r += (s8)(a8 / b8) * 3 + (s8)(a8 % b8);
	r += (s16)(a16 / b16) * 5 + (s16)(a16 % b16);
	r += a / (b | 1) * 7 + a % (b | 1);
	r += (int)(a64 / b64) * 11 + (int)(a64 % b64);
	r += a / 8 + a % 8 + a / 10 + a % 10 + a / -3 + a % 16;
	r += (int)(a64 / 1000) + (int)(a64 % 1000) + (int)(a64 / 64) + (int)(a64 % 64);
	u8 u = (u8)a, v = (u8)(b | 1);
	r += u / v + u % v;
	return r;
}

/* Unsigned division by constants: the multiply-high forms. */
NOINLINE u32 d_udiv_const(u32 x, u32 hi)
{
	u64 y = join(hi, x);
	u32 r = x / 10 + x % 10 + x / 7 + x % 7 + x / 1000000007u;
	u64 s = y / 10 + y % 10 + y / 7 + y / 1000000007ull + y % 641;
	u16 w = (u16)x;
	r += w / 3 + w % 13;
	return r ^ squash(s);
}

/* Binary gcd on 64 bits with __builtin_ctzll. */
NOINLINE u32 d_gcd64(u32 ahi, u32 alo, u32 bhi, u32 blo)
{
	u64 a = join(ahi, alo), b = join(bhi, blo);
	if (!a || !b)
		return squash(a | b);
	int k = __builtin_ctzll(a | b);
	a >>= __builtin_ctzll(a);
	while (b) {
		b >>= __builtin_ctzll(b);
		if (a > b) {
			u64 t = a;
			a = b;
			b = t;
		}
		b -= a;
	}
	return squash(a << k);
}

/* ilog2, roundup_pow_of_two, order_base_2 on 32 and 64 bits. */
NOINLINE u32 d_ilog2(u32 x, u32 hi)
{
	u64 y = join(hi, x);
	u32 r = 0;
	if (x)
		r += 31 - __builtin_clz(x);
	if (y)
		r += (63 - __builtin_clzll(y)) * 64;
	if (x > 1)
		r += (1u << (32 - __builtin_clz(x - 1))) & 0xffff;
	if (y > 1 && y <= 1ull << 62)
		r ^= (u32)((1ull << (64 - __builtin_clzll(y - 1))) >> 20);
	return r;
}

/* ffs, fls, __ffs64 and fls64, zero included. */
static int my_ffs(int x) { return __builtin_ffs(x); }
static int my_fls(u32 x) { return x ? 32 - __builtin_clz(x) : 0; }
static int my_ffs64(u64 x) { return __builtin_ctzll(x); }
static int my_fls64(u64 x) { return x ? 64 - __builtin_clzll(x) : 0; }

NOINLINE int d_ffs_fls(u32 a, u32 b)
{
	u64 w = join(a, b);
	int r = my_ffs((int)a) + my_ffs((int)b) * 3 + my_fls(a) * 5 + my_fls(b) * 7;
	r += my_fls64(w) * 11 + (w ? my_ffs64(w) * 13 : 0) + __builtin_ffsll((s64)w) * 17;
	return r;
}

/* hweight8..64 by SWAR, and the parity. */
static u32 sw_hweight32(u32 w)
{
	w -= (w >> 1) & 0x55555555;
	w = (w & 0x33333333) + ((w >> 2) & 0x33333333);
	w = (w + (w >> 4)) & 0x0f0f0f0f;
	return w * 0x01010101 >> 24;
}

static u32 sw_hweight64(u64 w)
{
	w -= (w >> 1) & 0x5555555555555555ull;
	w = (w & 0x3333333333333333ull) + ((w >> 2) & 0x3333333333333333ull);
	w = (w + (w >> 4)) & 0x0f0f0f0f0f0f0f0full;
	return (u32)(w * 0x0101010101010101ull >> 56);
}

NOINLINE u32 d_hweight(u32 a, u32 b)
{
	u32 r = sw_hweight32(a & 0xff) + sw_hweight32(b & 0xffff) * 10 + sw_hweight32(a) * 100;
	r += sw_hweight64(join(a, b)) * 1000;
	r += (u32)__builtin_parity(a ^ b) << 20;
	return r;
}

/* The compiler builtins the kernel's helpers reduce to: counts, byte
 * swaps and overflow checks. */
NOINLINE u32 d_builtins(u32 a, u32 b, int c)
{
	u64 w = join(a, b);
	u32 r = 0;
	r += a ? (u32)__builtin_clz(a) : 99;
	r += w ? (u32)__builtin_ctzll(w) * 3 : 7;
	r ^= __builtin_bswap32(a) + (u32)__builtin_bswap16((u16)b);
	r ^= squash(__builtin_bswap64(w));
	int s;
	long long l;
	unsigned u;
	r += __builtin_mul_overflow(c, (int)a, &s) * 0x100 + (u32)s;
	r += __builtin_add_overflow((int)a, (int)b, &s) * 0x200 + (u32)s;
	r += __builtin_sub_overflow((int)b, c, &s) * 0x400 + (u32)s;
	r += __builtin_mul_overflow((s64)w, (s64)c, &l) * 0x800 + squash((u64)l);
	r += __builtin_umul_overflow(a, b, &u) * 0x1000 + u;
	r += __builtin_uadd_overflow(a, b, &u) * 0x2000 + u;
	return r;
}

/* A 128-bit product through 32-bit halves, compared with the native one,
 * and the signed high half. */
NOINLINE u32 d_mul128(u32 ahi, u32 alo, u32 bhi, u32 blo)
{
	u64 a = join(ahi, alo), b = join(bhi, blo), hi, lo, phi, plo, shi;
	mul64_128(a, b, &hi, &lo);
#ifdef HAVE_INT128
	u128 p = (u128)a * b;
	s128 sp = (s128)(s64)a * (s64)b;
	phi = (u64)(p >> 64);
	plo = (u64)p;
	shi = (u64)(sp >> 64);
#else
	phi = hi;
	plo = lo;
	shi = hi - ((s64)a < 0 ? b : 0) - ((s64)b < 0 ? a : 0);
#endif
	u32 same = hi == phi && lo == plo;
	return squash(hi) ^ squash(lo) * 3 ^ squash(shi) * 5 ^ same << 31;
}

/* The mean of two u64 without overflow, through a 65-bit sum, and a
 * 128-bit shift: the carry's instructions. */
NOINLINE u32 d_carry(u32 ahi, u32 alo, u32 bhi, u32 blo, int n)
{
	u64 a = join(ahi, alo), b = join(bhi, blo), mean, whi, vlo, slo;
	int k = n & 127, j = n & 63;
#ifdef HAVE_INT128
	mean = (u64)(((u128)a + b) >> 1);
	u128 w = (u128)a << 64 | b;
	w <<= k;
	u128 v = ((u128)b << 64 | a) >> k;
	s128 s = (s128)((u128)a << 64 | b) >> j;
	whi = (u64)(w >> 64);
	vlo = (u64)v;
	slo = (u64)s;
#else
	mean = (a >> 1) + (b >> 1) + (a & b & 1);
	whi = k >= 64 ? b << (k - 64) : k ? a << k | b >> (64 - k) : a;
	vlo = k >= 64 ? b >> (k - 64) : k ? a >> k | b << (64 - k) : a;
	slo = j ? b >> j | a << (64 - j) : b;
#endif
	u64 sum = a + b, c = sum < a, bo = a < b;
	return squash(mean) ^ squash(whi) * 3 ^ squash(vlo) * 5 ^ squash(slo) * 7 ^ (u32)(c * 2 + bo) << 29;
}

/* Rotations at every width, by constants and by variables. */
NOINLINE u32 d_rotates(u32 x, u32 y, int n)
{
	u8 b = (u8)x;
	u16 h = (u16)y;
	b = (u8)(b << (n & 7) | b >> (-n & 7));
	h = (u16)(h >> (n & 15) | h << (-n & 15));
	u8 b3 = (u8)((u8)y << 3 | (u8)y >> 5);
	u16 h9 = (u16)((u16)x << 9 | (u16)x >> 7);
	u32 r = rotl32(x, n) ^ rotr32(y, 7) ^ rotl32(y, 1);
	u64 w = rotl64(join(x, y), 17) ^ rotl64(join(y, x), (unsigned)n) ^ rotl64(join(x, x), 63);
	return r ^ b ^ (u32)h << 8 ^ b3 << 16 ^ (u32)h9 << 3 ^ squash(w);
}

/* --- checksums and hashes --- */

/* CRC-16 (polynomial 0x8005, reflected 0xa001) bit by bit. */
NOINLINE u32 d_crc16(u32 seed, int n)
{
	u16 crc = (u16)~seed;
	for (int i = 0; i < n; i++) {
		u8 c = (u8)step(&seed);
		crc ^= c;
		for (int k = 0; k < 8; k++)
			crc = (crc & 1) ? (u16)(crc >> 1 ^ 0xa001) : (u16)(crc >> 1);
	}
	return crc;
}

/* CRC-CCITT (0x1021, reflected 0x8408) through a 16-entry .rodata table,
 * a nibble at a time. */
static const u16 ccitt_nib[16] = {
	0x0000, 0x1081, 0x2102, 0x3183, 0x4204, 0x5285, 0x6306, 0x7387,
	0x8408, 0x9489, 0xa50a, 0xb58b, 0xc60c, 0xd68d, 0xe70e, 0xf78f,
};

NOINLINE u32 d_crc_ccitt(u32 seed, int n)
{
	u16 crc = 0xffff;
	for (int i = 0; i < n; i++) {
		u8 c = (u8)(seed >> (i % 4 * 8)) + (u8)i;
		crc ^= c;
		crc = (u16)(crc >> 4 ^ ccitt_nib[crc & 15]);
		crc = (u16)(crc >> 4 ^ ccitt_nib[crc & 15]);
	}
	return crc;
}

/* lookup3's mix and final over a word array (jhash's shape). */
#define JMIX(a, b, c) do { \
	a -= c; a ^= rotl32(c, 4); c += b; \
	b -= a; b ^= rotl32(a, 6); a += c; \
	c -= b; c ^= rotl32(b, 8); b += a; \
	a -= c; a ^= rotl32(c, 16); c += b; \
	b -= a; b ^= rotl32(a, 19); a += c; \
	c -= b; c ^= rotl32(b, 4); b += a; } while (0)
#define JFINAL(a, b, c) do { \
	c ^= b; c -= rotl32(b, 14); a ^= c; a -= rotl32(c, 11); \
	b ^= a; b -= rotl32(a, 25); c ^= b; c -= rotl32(b, 16); \
	a ^= c; a -= rotl32(c, 4); b ^= a; b -= rotl32(a, 14); \
	c ^= b; c -= rotl32(b, 24); } while (0)

NOINLINE u32 d_jhash(u32 seed, int n, u32 initval)
{
	u32 k[32];
	if (n > 32)
		n = 32;
	for (int i = 0; i < n; i++)
		k[i] = step(&seed);
	u32 a, b, c;
	a = b = c = 0xdeadbeef + ((u32)n << 2) + initval;
	const u32 *p = k;
	int len = n;
	while (len > 3) {
		a += p[0]; b += p[1]; c += p[2];
		JMIX(a, b, c);
		len -= 3;
		p += 3;
	}
	switch (len) {
	case 3: c += p[2]; /* fall through */
	case 2: b += p[1]; /* fall through */
	case 1: a += p[0];
		JFINAL(a, b, c);
		/* fall through */
	case 0:
		break;
	}
	return c;
}

/* hash_64 and hash_32 (golden-ratio multiplication) folded into a table
 * index. */
NOINLINE u32 d_hash64(u32 hi, u32 lo, int bits)
{
	u64 v = join(hi, lo);
	bits = bits % 32 + 1;
	u64 h = v * 0x61c8864680b583ebull >> (64 - bits);
	u32 h32 = (lo * 0x61c88647u) >> (32 - bits);
	return (u32)h * 3 + h32;
}

/* SipHash-2-4 on two 64-bit words (siphash_2u64's shape). */
#define SIPROUND do { \
	v0 += v1; v1 = rotl64(v1, 13); v1 ^= v0; v0 = rotl64(v0, 32); \
	v2 += v3; v3 = rotl64(v3, 16); v3 ^= v2; \
	v0 += v3; v3 = rotl64(v3, 21); v3 ^= v0; \
	v2 += v1; v1 = rotl64(v1, 17); v1 ^= v2; v2 = rotl64(v2, 32); } while (0)

NOINLINE u32 d_siphash(u32 k0, u32 k1, u32 a, u32 b)
{
	u64 key0 = join(k0, k1), key1 = join(k1 ^ 0x5bd1e995, k0), m0 = join(a, b), m1 = join(b, a);
	u64 v0 = 0x736f6d6570736575ull ^ key0, v1 = 0x646f72616e646f6dull ^ key1;
	u64 v2 = 0x6c7967656e657261ull ^ key0, v3 = 0x7465646279746573ull ^ key1;
	u64 last = (u64)16 << 56;
	v3 ^= m0; SIPROUND; SIPROUND; v0 ^= m0;
	v3 ^= m1; SIPROUND; SIPROUND; v0 ^= m1;
	v3 ^= last; SIPROUND; SIPROUND; v0 ^= last;
	v2 ^= 0xff;
	SIPROUND; SIPROUND; SIPROUND; SIPROUND;
	return squash(v0 ^ v1 ^ v2 ^ v3);
}

/* xxh32 over a generated buffer: four lanes, the tail by words and bytes,
 * the avalanche. */
#define P32_1 2654435761u
#define P32_2 2246822519u
#define P32_3 3266489917u
#define P32_4 668265263u
#define P32_5 374761393u

static u32 xxh32_round(u32 acc, u32 in)
{
	acc += in * P32_2;
	acc = rotl32(acc, 13);
	return acc * P32_1;
}

static u32 get32(const u8 *p) { return p[0] | p[1] << 8 | p[2] << 16 | (u32)p[3] << 24; }

NOINLINE u32 d_xxh32(u32 seed, int len)
{
	u8 buf[96];
	if (len > 96)
		len = 96;
	u32 s = seed | 1;
	for (int i = 0; i < len; i++)
		buf[i] = (u8)step(&s);
	const u8 *p = buf, *end = buf + len;
	u32 h;
	if (len >= 16) {
		u32 v1 = seed + P32_1 + P32_2, v2 = seed + P32_2, v3 = seed, v4 = seed - P32_1;
		for (; p + 16 <= end; p += 16) {
			v1 = xxh32_round(v1, get32(p));
			v2 = xxh32_round(v2, get32(p + 4));
			v3 = xxh32_round(v3, get32(p + 8));
			v4 = xxh32_round(v4, get32(p + 12));
		}
		h = rotl32(v1, 1) + rotl32(v2, 7) + rotl32(v3, 12) + rotl32(v4, 18);
	} else {
		h = seed + P32_5;
	}
	h += (u32)len;
	for (; p + 4 <= end; p += 4)
		h = rotl32(h + get32(p) * P32_3, 17) * P32_4;
	for (; p < end; p++)
		h = rotl32(h + *p * P32_5, 11) * P32_1;
	h ^= h >> 15; h *= P32_2; h ^= h >> 13; h *= P32_3; h ^= h >> 16;
	return h;
}

/* xxh64's round and merge over generated 64-bit lanes. */
#define P64_1 0x9e3779b185ebca87ull
#define P64_2 0xc2b2ae3d27d4eb4full
#define P64_3 0x165667b19e3779f9ull
#define P64_4 0x85ebca77c2b2ae63ull

static u64 xxh64_round(u64 acc, u64 in)
{
	acc += in * P64_2;
	acc = rotl64(acc, 31);
	return acc * P64_1;
}

static u64 xxh64_merge(u64 acc, u64 v)
{
	acc ^= xxh64_round(0, v);
	return acc * P64_1 + P64_4;
}

NOINLINE u32 d_xxh64(u32 seed, int blocks)
{
	u64 v1 = seed + P64_1 + P64_2, v2 = seed + P64_2, v3 = seed, v4 = seed - P64_1;
	u32 s = seed | 1;
	for (int i = 0; i < blocks; i++) {
		v1 = xxh64_round(v1, join(step(&s), step(&s)));
		v2 = xxh64_round(v2, join(step(&s), step(&s)));
		v3 = xxh64_round(v3, join(step(&s), step(&s)));
		v4 = xxh64_round(v4, join(step(&s), step(&s)));
	}
	u64 h = rotl64(v1, 1) + rotl64(v2, 7) + rotl64(v3, 12) + rotl64(v4, 18);
	h = xxh64_merge(h, v1);
	h = xxh64_merge(h, v2);
	h = xxh64_merge(h, v3);
	h = xxh64_merge(h, v4);
	h += (u64)blocks * 32;
	h ^= h >> 33; h *= P64_2; h ^= h >> 29; h *= P64_3; h ^= h >> 32;
	return squash(h);
}

/* zlib's adler32_combine: the checksum of two concatenated blocks from
 * theirs and the second's length. */
#define ADLER_BASE 65521u

static u32 adler32_of(u32 adler, const u8 *p, int n)
{
	u32 a = adler & 0xffff, b = adler >> 16;
	for (int i = 0; i < n; i++) {
		a = (a + p[i]) % ADLER_BASE;
		b = (b + a) % ADLER_BASE;
	}
	return b << 16 | a;
}

static u32 adler32_comb(u32 adler1, u32 adler2, long len2)
{
	u32 rem = (u32)(len2 % ADLER_BASE);
	u32 sum1 = adler1 & 0xffff;
	u32 sum2 = rem * sum1 % ADLER_BASE;
	sum1 += (adler2 & 0xffff) + ADLER_BASE - 1;
	sum2 += (adler1 >> 16) + (adler2 >> 16) + ADLER_BASE - rem;
	if (sum1 >= ADLER_BASE) sum1 -= ADLER_BASE;
	if (sum1 >= ADLER_BASE) sum1 -= ADLER_BASE;
	if (sum2 >= (ADLER_BASE << 1)) sum2 -= (ADLER_BASE << 1);
	if (sum2 >= ADLER_BASE) sum2 -= ADLER_BASE;
	return sum1 | sum2 << 16;
}

NOINLINE u32 d_adler_combine(u32 seed, int n1, int n2)
{
	u8 buf[128];
	if (n1 > 64) n1 = 64;
	if (n2 > 64) n2 = 64;
	for (int i = 0; i < n1 + n2; i++)
		buf[i] = (u8)step(&seed);
	u32 a1 = adler32_of(1, buf, n1), a2 = adler32_of(1, buf + n1, n2);
	u32 whole = adler32_of(1, buf, n1 + n2);
	u32 comb = adler32_comb(a1, a2, n2);
	return comb ^ (whole == comb) << 31;
}

/* zlib's crc32_combine through GF(2) matrices on the stack. */
static u32 gf2_times(const u32 *mat, u32 vec)
{
	u32 sum = 0;
	while (vec) {
		if (vec & 1)
			sum ^= *mat;
		vec >>= 1;
		mat++;
	}
	return sum;
}

static void gf2_square(u32 *square, const u32 *mat)
{
	for (int n = 0; n < 32; n++)
		square[n] = gf2_times(mat, mat[n]);
}

static u32 crc32_comb(u32 crc1, u32 crc2, long len2)
{
	u32 even[32], odd[32];
	if (len2 <= 0)
		return crc1;
	odd[0] = 0xedb88320u;
	u32 row = 1;
	for (int n = 1; n < 32; n++) {
		odd[n] = row;
		row <<= 1;
	}
	gf2_square(even, odd);
	gf2_square(odd, even);
	do {
		gf2_square(even, odd);
		if (len2 & 1)
			crc1 = gf2_times(even, crc1);
		len2 >>= 1;
		if (!len2)
			break;
		gf2_square(odd, even);
		if (len2 & 1)
			crc1 = gf2_times(odd, crc1);
		len2 >>= 1;
	} while (len2);
	return crc1 ^ crc2;
}

static u32 crc32_bytes(u32 crc, const u8 *p, int n)
{
	crc = ~crc;
	for (int i = 0; i < n; i++) {
		crc ^= p[i];
		for (int k = 0; k < 8; k++)
			crc = crc >> 1 ^ (0xedb88320u & -(crc & 1));
	}
	return ~crc;
}

NOINLINE u32 d_crc32_combine(u32 seed, int n1, int n2)
{
	u8 buf[64];
	if (n1 > 32) n1 = 32;
	if (n2 > 32) n2 = 32;
	for (int i = 0; i < n1 + n2; i++)
		buf[i] = (u8)step(&seed);
	u32 c1 = crc32_bytes(0, buf, n1), c2 = crc32_bytes(0, buf + n1, n2);
	u32 whole = crc32_bytes(0, buf, n1 + n2);
	u32 comb = crc32_comb(c1, c2, n2);
	return comb ^ (whole == comb);
}

/* inflate's bit reader: NEEDBITS / BITS / DROPBITS over a .rodata stream,
 * decoding Elias-gamma codes. */
static const u8 stream[] = {
	0xa5, 0x3c, 0x96, 0x0f, 0xf0, 0x5a, 0xc3, 0x69, 0x81, 0x7e, 0x24, 0xdb,
	0x18, 0xe7, 0x42, 0xbd, 0x99, 0x66, 0x33, 0xcc, 0x55, 0xaa, 0x11, 0xee,
};

struct bits {
	const u8 *next;
	unsigned have;
	u64 hold;
	unsigned left;
};

static int need(struct bits *s, unsigned n)
{
	while (s->have < n) {
		if (!s->left)
			return 0;
		s->hold |= (u64)*s->next++ << s->have;
		s->have += 8;
		s->left--;
	}
	return 1;
}

static u32 take(struct bits *s, unsigned n)
{
	u32 v = (u32)(s->hold & ((1ull << n) - 1));
	s->hold >>= n;
	s->have -= n;
	return v;
}

NOINLINE u32 d_inflate_bits(int skip, int count)
{
	struct bits s = {stream + skip % 8, 0, 0, sizeof stream - skip % 8};
	u32 sum = 0, got = 0;
	for (int i = 0; i < count; i++) {
		unsigned zeros = 0;
		for (;;) {
			if (!need(&s, 1))
				return sum ^ got << 24;
			if (take(&s, 1))
				break;
			zeros++;
		}
		if (zeros > 24 || !need(&s, zeros))
			return sum ^ got << 24;
		u32 v = (1u << zeros | take(&s, zeros)) - 1;
		sum = sum * 7 + v;
		got++;
	}
	return sum ^ got << 24;
}

/* --- bitmaps and bit fields --- */

/* bitmap_set / bitmap_clear of ranges over 64-bit words, then its weight
 * and first set bit. */
static void bm_set(u64 *map, int start, int len)
{
	for (int i = start; i < start + len; i++)
		map[i / 64] |= 1ull << (i % 64);
}

static void bm_clear(u64 *map, int start, int len)
{
	u64 *p = map + start / 64;
	int bits = 64 - start % 64;
	u64 mask = ~0ull << (start % 64);
	while (len - bits >= 0) {
		*p++ &= ~mask;
		len -= bits;
		bits = 64;
		mask = ~0ull;
	}
	if (len) {
		mask &= ~0ull >> (-(start + len) & 63);
		*p &= ~mask;
	}
}

NOINLINE u32 d_bitmap64(int a, int b, int c)
{
	u64 map[8] = {0};
	a &= 511; b &= 255; c &= 255;
	bm_set(map, a / 2, b + 1 < 512 - a / 2 ? b + 1 : 512 - a / 2);
	bm_clear(map, c, (a + b) % (512 - c));
	u32 w = 0;
	int first = -1, last = -1;
	for (int i = 0; i < 8; i++) {
		w += (u32)__builtin_popcountll(map[i]);
		if (map[i] && first < 0)
			first = i * 64 + __builtin_ctzll(map[i]);
		if (map[i])
			last = i * 64 + 63 - __builtin_clzll(map[i]);
	}
	int t = 0;
	for (int i = 0; i < 512; i += 37)
		t += (int)(map[i >> 6] >> (i & 63) & 1);
	return w * 1000000 + (u32)(first + 1) * 1000 + (u32)(last + 1) + ((u32)t << 26);
}

/* A structure of bit fields, packed into 64-bit words and unpacked. */
struct ptent {
	u64 present : 1, rw : 1, user : 1, pwt : 1, pcd : 1, accessed : 1, dirty : 1, huge : 1;
	u64 global : 1, avail : 3, pfn : 40, prot : 11, nx : 1;
};

NOINLINE u32 d_bitfields(u32 pfn, u32 flags, int n)
{
	struct ptent t[8];
	for (int i = 0; i < 8; i++) {
		u32 f = flags >> i | flags << (32 - i % 32 - 1);
		t[i].present = f & 1;
		t[i].rw = f >> 1;
		t[i].user = f >> 2;
		t[i].pwt = f >> 3;
		t[i].pcd = f >> 4;
		t[i].accessed = f >> 5;
		t[i].dirty = f >> 6;
		t[i].huge = f >> 7;
		t[i].global = f >> 8;
		t[i].avail = f >> 9;
		t[i].pfn = (u64)(pfn + (u32)i) << 8 | f;
		t[i].prot = f >> 13;
		t[i].nx = (s32)f < 0;
	}
	u32 h = 0;
	for (int k = 0; k < n; k++) {
		struct ptent *e = &t[k & 7];
		e->pfn += e->dirty + e->avail;
		e->avail ^= e->prot;
		e->nx = !e->nx;
		h = h * 17 + (u32)(e->pfn >> 3) + e->avail + e->nx * 5 + e->present;
	}
	u64 raw;
	__builtin_memcpy(&raw, &t[3], 8);
	return h ^ squash(raw);
}

/* --- strings and memory --- */

/* memmove with overlap in both directions, memset and memcpy on words
 * with unaligned heads and tails, on a local buffer. */
static void *mem_move(void *dst, const void *src, ulong n)
{
	u8 *d = dst;
	const u8 *s = src;
	if (d == s)
		return d;
	if (d < s) {
		while (n && ((ulong)d & 7)) { *d++ = *s++; n--; }
		if (!(((ulong)s) & 7))
			for (; n >= 8; n -= 8, d += 8, s += 8)
				*(u64a *)d = *(const u64a *)s;
		while (n--) *d++ = *s++;
	} else {
		d += n;
		s += n;
		while (n && ((ulong)d & 7)) { *--d = *--s; n--; }
		if (!(((ulong)s) & 7))
			for (; n >= 8; n -= 8) {
				d -= 8;
				s -= 8;
				*(u64a *)d = *(const u64a *)s;
			}
		while (n--) *--d = *--s;
	}
	return dst;
}

static void mem_set(void *dst, int c, ulong n)
{
	u8 *d = dst;
	u64 w = (u8)c * 0x0101010101010101ull;
	while (n && ((ulong)d & 7)) { *d++ = (u8)c; n--; }
	for (; n >= 8; n -= 8, d += 8)
		*(u64a *)d = w;
	while (n--) *d++ = (u8)c;
}

NOINLINE u32 d_memmove(int from, int to, int n)
{
	u8 buf[160];
	for (int i = 0; i < 160; i++)
		buf[i] = (u8)(i * 7 + 3);
	from &= 63; to &= 63; n &= 63;
	mem_move(buf + to, buf + from, (ulong)n);
	mem_set(buf + 100 + (from & 7), from ^ to, (ulong)(n & 31));
	mem_move(buf + 1 + (to & 3), buf + 100, 40);
	u32 h = 0;
	for (int i = 0; i < 160; i++)
		h = h * 31 + buf[i];
	return h;
}

/* Block clears and copies of locals the compiler does itself: a struct
 * copied by value, an array cleared. */
struct blob {
	u64 w[12];
	u32 tag;
};

static NOINLINE struct blob blob_mix(struct blob b, int k)
{
	for (int i = 0; i < 12; i++)
		b.w[i] = b.w[i] * 3 + (u64)k + b.w[(i + 1) % 12];
	b.tag ^= (u32)k;
	return b;
}

NOINLINE u32 d_blockcopy(u32 seed, int k)
{
	struct blob b;
	u64 zero[20] = {0};
	__builtin_memset(&b, 0, sizeof b);
	for (int i = 0; i < 12; i += 3)
		b.w[i] = step(&seed);
	b.tag = seed;
	struct blob c = blob_mix(b, k);
	struct blob d = c;
	zero[k % 20] = d.w[k % 12];
	u32 h = d.tag;
	for (int i = 0; i < 12; i++)
		h = h * 31 + squash(d.w[i]);
	for (int i = 0; i < 20; i++)
		h += squash(zero[i]);
	return h;
}

/* strchr, strrchr, strnlen, strncmp and strlcpy on a string built on the
 * stack. */
static const char *s_chr(const char *s, int c)
{
	for (; *s != (char)c; s++)
		if (!*s)
			return 0;
	return s;
}

static const char *s_rchr(const char *s, int c)
{
	const char *last = 0;
	do {
		if (*s == (char)c)
			last = s;
	} while (*s++);
	return last;
}

static ulong s_nlen(const char *s, ulong max)
{
	ulong n = 0;
	while (n < max && s[n])
		n++;
	return n;
}

static int s_ncmp(const char *a, const char *b, ulong n)
{
	for (; n; n--, a++, b++) {
		if (*a != *b)
			return (u8)*a < (u8)*b ? -1 : 1;
		if (!*a)
			break;
	}
	return 0;
}

static ulong s_lcpy(char *dst, const char *src, ulong size)
{
	ulong len = s_nlen(src, ~0ul);
	if (size) {
		ulong n = len >= size ? size - 1 : len;
		for (ulong i = 0; i < n; i++)
			dst[i] = src[i];
		dst[n] = 0;
	}
	return len;
}

NOINLINE int d_strings(u32 seed, int len, int c)
{
	char s[72], t[24];
	if (len > 70)
		len = 70;
	for (int i = 0; i < len; i++)
		s[i] = (char)('a' + step(&seed) % 26);
	s[len] = 0;
	const char *p = s_chr(s, 'a' + c % 26), *q = s_rchr(s, 'a' + c % 26);
	int r = (p ? (int)(p - s) : -1) * 100 + (q ? (int)(q - s) : -1);
	r += (int)s_nlen(s, 40) * 10000;
	ulong l = s_lcpy(t, s + len / 3, sizeof t);
	r += (int)l * 1000000 + s_ncmp(t, s + len / 3, 30) * 7 + s_ncmp(s, t, (ulong)c);
	r += (int)s_nlen(t, 100) << 25;
	return r;
}

/* kstrtoul's shape: a number printed in a base, parsed back with overflow
 * detection through __builtin_mul_overflow. */
static int parse_ul(const char *s, unsigned base, u64 *res)
{
	u64 v = 0;
	int any = 0;
	if (base == 16 && s[0] == '0' && (s[1] | 0x20) == 'x')
		s += 2;
	for (;; s++) {
		unsigned d;
		char ch = *s;
		if (ch >= '0' && ch <= '9')
			d = (unsigned)(ch - '0');
		else if ((ch | 0x20) >= 'a' && (ch | 0x20) <= 'z')
			d = (unsigned)((ch | 0x20) - 'a' + 10);
		else
			break;
		if (d >= base)
			break;
		if (__builtin_mul_overflow(v, (u64)base, &v) || __builtin_add_overflow(v, (u64)d, &v))
			return -34;
		any = 1;
	}
	if (!any || *s)
		return -22;
	*res = v;
	return 0;
}

NOINLINE int d_kstrtoul(u32 hi, u32 lo, int base)
{
	char buf[80];
	int i = 78;
	u64 v = join(hi, lo);
	base = base < 2 ? 2 : base > 36 ? 36 : base;
	buf[79] = 0;
	do {
		unsigned d = (unsigned)(v % (unsigned)base);
		buf[i--] = (char)(d < 10 ? '0' + d : 'A' + d - 10);
		v /= (unsigned)base;
	} while (v);
	if (base == 16) {
		buf[i--] = 'x';
		buf[i--] = '0';
	}
	u64 got = 0;
	int err = parse_ul(buf + i + 1, (unsigned)base, &got);
	buf[70] = '9';
	u64 junk = 0;
	int err2 = parse_ul("18446744073709551616", 10, &junk);
	return err * 7 + err2 + (int)squash(got) * 2 + (got == join(hi, lo));
}

/* hex_to_bin and hex2bin. */
static int hex_val(char ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	ch = (char)(ch | 0x20);
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	return -1;
}

static const char hexstr[] = "0123456789abcdefABCDEF00ff7Fe9c3bG1";

NOINLINE int d_hex2bin(int off, int count)
{
	u8 out[20];
	int n = 0, bad = 0;
	off %= 30;
	for (int i = off; i + 1 < (int)sizeof hexstr - 1 && n < count && n < 20; i += 2) {
		int hi = hex_val(hexstr[i]), lo = hex_val(hexstr[i + 1]);
		if ((hi | lo) < 0) {
			bad++;
			break;
		}
		out[n++] = (u8)(hi << 4 | lo);
	}
	u32 h = 0;
	for (int i = 0; i < n; i++)
		h = h * 257 + out[i];
	return (int)(h & 0xffffff) + n * 0x1000000 + bad * 0x40000000;
}

/* --- control flow, calls, atomics --- */

/* A small bytecode interpreter: a dense switch in a loop (a jump table,
 * `jmp *table(,%rax,8)`). */
static const u8 prog[] = {1, 5, 2, 3, 4, 7, 6, 0, 9, 8, 10, 11, 3, 12, 2, 5, 13, 1, 4, 6, 9, 14, 15, 2};

NOINLINE int d_interp(int x, int y, int steps)
{
	u32 acc = (u32)x, t = (u32)y;
	for (int pc = 0; pc < steps; pc++) {
		switch (prog[pc % (int)sizeof prog]) {
		case 0: acc += t; break;
		case 1: acc -= 3; break;
		case 2: acc *= 5; break;
		case 3: t ^= acc; break;
		case 4: acc = acc >> 2; break;
		case 5: t += 11; break;
		case 6: acc = -acc; break;
		case 7: t = t * 3 - acc; break;
		case 8: acc |= 0x100; break;
		case 9: acc &= 0x7fffff; break;
		case 10: t = t >> 1; break;
		case 11: acc += (u32)pc; break;
		case 12: acc ^= t << 3; break;
		case 13: t -= (u32)((int)acc / 7); break;
		case 14: acc = acc % 1000 + t; break;
		default: acc += 2 * t + 1; break;
		}
	}
	return (int)(acc ^ t << 4);
}

/* Eight and ten arguments: the seventh on go on the stack (x86-64), the fifth on (ARM). */
static NOINLINE s64 args10(int a, int b, int c, int d, int e, int f, int g, s64 h, int i, u8 j)
{
	return ((((((((a * 3 + b) * 3 + c) * 3 + d) * 3 + e) * 3 + f) * 3 + g) * 3 + h) * 3 + i) * 3 + j;
}

static NOINLINE u32 args8(u32 a, u32 b, u32 c, u32 d, u32 e, u32 f, u32 g, u32 h)
{
	return a ^ b << 1 ^ c << 2 ^ d << 3 ^ e << 4 ^ f << 5 ^ g << 6 ^ h << 7;
}

NOINLINE int d_args10(int a, int b, int c, int d, int e, int f)
{
	s64 v = args10(a, b, c, d, e, f, a - f, (s64)b * c, d ^ e, (u8)(a + f));
	u32 w = args8((u32)f, (u32)e, (u32)d, (u32)c, (u32)b, (u32)a, (u32)(a * b), (u32)(c * d));
	return (int)squash((u64)v) ^ (int)w;
}

/* Struct returns: a 16-byte one in two registers, a 24-byte one through
 * memory. */
struct pair { u64 q, r; };
struct trio { s64 lo, hi; int n; };

static NOINLINE struct pair divmod_pair(u64 n, u64 d)
{
	struct pair p = {n / d, n % d};
	return p;
}

static NOINLINE struct trio minmax(const int *a, int n)
{
	struct trio t = {a[0], a[0], 0};
	for (int i = 0; i < n; i++) {
		if (a[i] < t.lo) t.lo = a[i];
		if (a[i] > t.hi) t.hi = a[i];
		t.n += a[i] > 0;
	}
	return t;
}

NOINLINE int d_structret(u32 seed, int n, u32 d)
{
	int a[32];
	if (n > 32)
		n = 32;
	if (n < 1)
		n = 1;
	for (int i = 0; i < n; i++)
		a[i] = (int)step(&seed) >> 8;
	struct trio t = minmax(a, n);
	struct pair p = divmod_pair((u64)(t.hi - t.lo), d | 1);
	return (int)squash(p.q) * 3 + (int)p.r + t.n * 1000;
}

/* The atomics the kernel's lib uses on memory of its own (lock xadd,
 * lock cmpxchg, xchg, lock or/and/bts), on locals. ARMv5 has no atomic
 * instructions (gcc calls libgcc's kernel-helper routines) and gcc's
 * arm64 atomics are out-of-line calls by default (-moutline-atomics, which
 * the kernel does not use): there the same read-modify-writes are plain. */
#if defined(__x86_64__) || defined(__riscv)
#define FETCH_ADD(p, v) __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST)
#define FETCH_OR(p, v) __atomic_fetch_or(p, v, __ATOMIC_SEQ_CST)
#define FETCH_AND(p, v) __atomic_fetch_and(p, v, __ATOMIC_SEQ_CST)
#define SUB_FETCH(p, v) __atomic_sub_fetch(p, v, __ATOMIC_SEQ_CST)
#define EXCHANGE(p, v) __atomic_exchange_n(p, v, __ATOMIC_SEQ_CST)
#define CAS(p, o, v) __atomic_compare_exchange_n(p, o, v, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)
#else
static inline u32 fetch_add(u32 *p, u32 v) { u32 o = *p; *p = o + v; return o; }
static inline u32 fetch_or(u32 *p, u32 v) { u32 o = *p; *p = o | v; return o; }
static inline u64 fetch_or64(u64 *p, u64 v) { u64 o = *p; *p = o | v; return o; }
static inline u64 fetch_and64(u64 *p, u64 v) { u64 o = *p; *p = o & v; return o; }
static inline u64 sub_fetch64(u64 *p, u64 v) { return *p -= v; }
static inline u32 exchange(u32 *p, u32 v) { u32 o = *p; *p = v; return o; }
static inline int cas(u32 *p, u32 *o, u32 v)
{
	if (*p == *o) {
		*p = v;
		return 1;
	}
	*o = *p;
	return 0;
}
#define FETCH_ADD(p, v) fetch_add(p, v)
#define FETCH_OR(p, v) _Generic(*(p), u64: fetch_or64, default: fetch_or)(p, v)
#define FETCH_AND(p, v) fetch_and64(p, v)
#define SUB_FETCH(p, v) sub_fetch64(p, v)
#define EXCHANGE(p, v) exchange(p, v)
#define CAS(p, o, v) cas(p, o, v)
#endif

NOINLINE u32 d_atomics(u32 a, u32 b, int n)
{
	u32 v = a;
	u64 w = join(b, a);
	u32 r = 0;
	for (int i = 0; i < n; i++) {
		r += FETCH_ADD(&v, b + (u32)i);
		u32 old = v, want = old * 3 + 1;
		r += (u32)CAS(&v, &old, want);
		u32 stale = old + 5;
		r += (u32)CAS(&v, &stale, 0) * 7 + stale;
		r ^= EXCHANGE(&v, v ^ 0x55aa);
		FETCH_OR(&w, 1ull << (i & 63));
		FETCH_AND(&w, ~(1ull << ((i * 7) & 63)));
		r += (u32)SUB_FETCH(&w, 3);
		r += (u32)(FETCH_OR(&v, 1u << (i & 31)) >> (i & 31) & 1);
	}
	return r ^ v ^ squash(w);
}

/* Conditional moves and sets: min/max/clamp/abs/sign over 64-bit and
 * 16-bit values. */
NOINLINE int d_select(int a, int b, int c)
{
	s64 x = (s64)a * 100003, y = (s64)b * -99991;
	s64 mn = x < y ? x : y, mx = x > y ? x : y;
	s64 cl = c < 0 ? 0 : c > 1000 ? 1000 : c;
	s16 h = (s16)a, k = (s16)b;
	s16 hm = h < k ? h : k;
	u64 ua = (u64)x, ub = (u64)y;
	u64 umx = ua > ub ? ua : ub;
	int sgn = (a > 0) - (a < 0);
	int ab = a < 0 ? -a : a;
	int r = (int)squash((u64)mn) + (int)squash((u64)mx) * 3 + (int)cl * 5 + hm * 7;
	r += (int)squash(umx) * 11 + sgn * 13 + ab * 17;
	r += (x == y) + (a <= b) * 2 + (ua < ub) * 4 + (h >= k) * 8 + ((u16)h > (u16)k) * 16;
	return r;
}

/* Sign and zero extensions at every width, through memory too. */
NOINLINE int d_extend(int a, int b)
{
	s8 bytes[8];
	s16 halves[4];
	for (int i = 0; i < 8; i++)
		bytes[i] = (s8)(a >> (i * 4));
	for (int i = 0; i < 4; i++)
		halves[i] = (s16)(b >> (i * 8));
	s64 s = 0;
	u64 u = 0;
	for (int i = 0; i < 8; i++) {
		s += bytes[i] * (s64)(i + 1);
		u += (u8)bytes[i] * (u64)(i + 3);
	}
	for (int i = 0; i < 4; i++) {
		s += (s64)halves[i] * ((s64)1 << (i * 3));
		u += (u64)(u16)halves[i] << (i * 5);
	}
	s64 w = (s64)a * b;
	s32 lo = (s32)w;
	s += lo;
	return (int)squash((u64)s) ^ (int)squash(u) * 3 ^ (int)(w >> 40);
}

/* Bit tests on variables and on a bitmap of 64-bit words. */
NOINLINE int d_bittest(u32 a, u32 b, int n)
{
	u64 map[4] = {join(a, b), join(b, ~a), join(a ^ b, a + b), ~join(a, a)};
	int r = 0;
	for (int i = 0; i < n; i++) {
		int bit = (int)(step(&a) & 255);
		r += (int)(map[bit >> 6] >> (bit & 63) & 1);
		map[bit >> 6] ^= 1ull << (bit & 63);
		if (b >> (i & 31) & 1)
			r += 3;
		map[(bit + 1) >> 6 & 3] |= 1ull << ((bit + 1) & 63);
		map[(bit + 2) >> 6 & 3] &= ~(1ull << ((bit + 2) & 63));
	}
	return r * 1000 + (int)(squash(map[0] ^ map[1] ^ map[2] ^ map[3]) & 0x3ff);
}

/* The C library's string functions called as functions: gcc does not
 * expand them inline with the kernel's flags, and calls strlen, strcmp,
 * memcmp, strncmp, strchr, memchr and strcpy (the sign of a comparison is
 * its contract). */
static int sgn(int v) { return (v > 0) - (v < 0); }

NOINLINE int d_libcalls(u32 seed, int len, int c)
{
	char a[48], b[48], d[48];
	if (len > 46)
		len = 46;
	if (len < 1)
		len = 1;
	for (int i = 0; i < len; i++) {
		a[i] = (char)('a' + step(&seed) % 3);
		b[i] = i % 5 ? a[i] : (char)('a' + step(&seed) % 3);
	}
	a[len] = b[len] = 0;
	int r = (int)__builtin_strlen(a) + sgn(__builtin_strcmp(a, b)) * 100;
	r += sgn(__builtin_memcmp(a, b, (ulong)len / 2)) * 1000 + sgn(__builtin_strncmp(a, b, 7)) * 10000;
	const char *p = __builtin_strchr(a, 'a' + c % 3);
	const char *q = __builtin_memchr(b, 'a' + (c + 1) % 3, (ulong)len);
	__builtin_strcpy(d, b);
	r += (p ? (int)(p - a) : -1) * 100000 + (q ? (int)(q - b) : -1) * 3 + (int)__builtin_strlen(d) * 7;
	return r;
}
