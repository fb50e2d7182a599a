/* The corpus of issue 21: small pure functions in the style of Linux
 * lib/, musl and zlib, written for mcountsim (none is copied from those
 * projects). Every exported function takes at most six int arguments and
 * returns an int-sized value, so that one harness (harness.c) calls each
 * natively under qemu-user with the arguments of calls.txt, and mcountsim
 * reads the same low 32 bits of r0 / %eax / x0 / a0. gen.sh compiles this
 * file at every flag set of the measurement (README.md). */

typedef unsigned char u8;
typedef unsigned short u16;
typedef unsigned int u32;
typedef int s32;
typedef unsigned long ulong;
typedef unsigned long long u64;
typedef long long s64;

#define NOINLINE __attribute__((noinline))
#define BITS_PER_LONG (8 * (int)sizeof(ulong))

static inline u32 rol32(u32 x, int n) { return x << (n & 31) | x >> ((32 - n) & 31); }
static inline u64 rol64(u64 x, int n) { return x << (n & 63) | x >> ((64 - n) & 63); }
static inline u64 mk64(u32 hi, u32 lo) { return (u64)hi << 32 | lo; }
static inline int fold64(u64 v) { return (int)(u32)(v ^ v >> 32); }

/* --- arithmetic --- */

/* Stein's binary gcd, counting trailing zeros as lib/math does. */
NOINLINE ulong c_gcd(ulong a, ulong b)
{
	if (!a || !b)
		return a | b;
	int shift = __builtin_ctzl(a | b);
	a >>= __builtin_ctzl(a);
	do {
		b >>= __builtin_ctzl(b);
		if (a > b) {
			ulong t = a;
			a = b;
			b = t;
		}
		b -= a;
	} while (b);
	return a << shift;
}

/* lcm through the gcd: a division. */
NOINLINE ulong c_lcm(ulong a, ulong b)
{
	if (!a || !b)
		return 0;
	return a / c_gcd(a, b) * b;
}

/* Integer square root, one result bit per step. */
NOINLINE ulong c_int_sqrt(ulong x)
{
	ulong res = 0, bit = 1UL << (BITS_PER_LONG - 2);
	while (bit > x)
		bit >>= 2;
	while (bit) {
		if (x >= res + bit) {
			x -= res + bit;
			res = (res >> 1) + bit;
		} else {
			res >>= 1;
		}
		bit >>= 2;
	}
	return res;
}

/* Integer cube root by Newton steps on 64 bits. */
NOINLINE u32 c_int_cbrt(u32 hi, u32 lo)
{
	u64 x = mk64(hi, lo), y = 0;
	for (int s = 63; s >= 0; s -= 3) {
		y <<= 1;
		u64 b = 3 * y * (y + 1) + 1;
		if ((x >> s) >= b) {
			x -= b << s;
			y++;
		}
	}
	return (u32)y;
}

/* base**exp mod m with a 64-bit product (a modulo by a variable). */
NOINLINE u32 c_powmod(u32 base, u32 exp, u32 m)
{
	u64 r = 1 % m, b = base % m;
	while (exp) {
		if (exp & 1)
			r = r * b % m;
		b = b * b % m;
		exp >>= 1;
	}
	return (u32)r;
}

/* 64-by-32 division with remainder, as do_div does. */
NOINLINE u32 c_div64_32(u32 hi, u32 lo, u32 d)
{
	u64 n = mk64(hi, lo);
	u32 rem = (u32)(n % d);
	n /= d;
	return (u32)n ^ (u32)(n >> 32) * 7 ^ rem << 3;
}

/* Signed 64-by-64 division (truncating) and its remainder. */
NOINLINE int c_div64_s64(int nhi, u32 nlo, int dhi, u32 dlo)
{
	s64 n = (s64)mk64((u32)nhi, nlo), d = (s64)mk64((u32)dhi, dlo);
	if (!d)
		return -1;
	s64 q = n / d, r = n % d;
	return fold64((u64)q) + 3 * (int)r;
}

/* Unsigned 64-by-64 division, rounding to the closest. */
NOINLINE u32 c_div64_round(u32 nhi, u32 nlo, u32 dhi, u32 dlo)
{
	u64 n = mk64(nhi, nlo), d = mk64(dhi, dlo) | 1;
	return fold64((n + d / 2) / d);
}

/* 32-bit signed division and modulo. */
NOINLINE int c_sdiv(int a, int b)
{
	if (!b)
		return 0;
	return a / b * 100 + a % b;
}

/* The best rational approximation p/q of num/den with p <= maxp and
 * q <= maxq (continued fractions), returned as p << 16 | q. */
NOINLINE u32 c_rational(u32 num, u32 den, u32 maxp, u32 maxq)
{
	u32 p0 = 0, q0 = 1, p1 = 1, q1 = 0;
	while (den) {
		u32 a = num / den, t = num % den;
		u32 p2 = p0 + a * p1, q2 = q0 + a * q1;
		if (p2 > maxp || q2 > maxq)
			break;
		p0 = p1; q0 = q1; p1 = p2; q1 = q2;
		num = den; den = t;
	}
	return p1 << 16 | (q1 & 0xffff);
}

/* The digits of n in base b, summed with weights: a division by a
 * constant (a multiply-high) and by a variable. */
NOINLINE u32 c_digits(u32 n, u32 base)
{
	u32 s = 0, w = 1, m = n;
	do {
		s += (m % 10) * w++;
		m /= 10;
	} while (m);
	if (base >= 2)
		do {
			s = s * 3 + n % base;
			n /= base;
		} while (n);
	return s;
}

/* The high word of a 64x64 product, from 32-bit halves. */
NOINLINE u32 c_mul_hi(u32 ahi, u32 alo, u32 bhi, u32 blo)
{
	u64 a = mk64(ahi, alo), b = mk64(bhi, blo);
	u64 ll = (u64)(u32)a * (u32)b, lh = (a & 0xffffffff) * (b >> 32);
	u64 hl = (a >> 32) * (b & 0xffffffff), hh = (a >> 32) * (b >> 32);
	u64 mid = (ll >> 32) + (u32)lh + (u32)hl;
	u64 hi = hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
	return fold64(hi) ^ fold64(a * b);
}

/* A reciprocal: divide by d through a multiply by 2^32/d. */
NOINLINE u32 c_reciprocal(u32 a, u32 d)
{
	if (!d)
		return 0;
	u32 r = (u32)(((1ULL << 32) + d - 1) / d);
	u32 q = (u32)(((u64)a * r) >> 32);
	return q * 3 + (a - q * d);
}

/* --- 64-bit shifts and bit tricks --- */

NOINLINE u32 c_shl64(u32 hi, u32 lo, int n) { return fold64(mk64(hi, lo) << (n & 63)); }
NOINLINE u32 c_lshr64(u32 hi, u32 lo, int n) { return fold64(mk64(hi, lo) >> (n & 63)); }
NOINLINE u32 c_ashr64(int hi, u32 lo, int n) { return fold64((u64)((s64)mk64((u32)hi, lo) >> (n & 63))); }

/* The position of the last set bit of a 64-bit value (1-based, 0 for 0). */
NOINLINE int c_fls64(u32 hi, u32 lo)
{
	u64 v = mk64(hi, lo);
	return v ? 64 - __builtin_clzll(v) : 0;
}

/* Population count, SWAR style. */
NOINLINE u32 c_hweight32(u32 w)
{
	w -= (w >> 1) & 0x55555555;
	w = (w & 0x33333333) + ((w >> 2) & 0x33333333);
	w = (w + (w >> 4)) & 0x0f0f0f0f;
	return (w * 0x01010101) >> 24;
}

NOINLINE u32 c_hweight64(u32 hi, u32 lo)
{
	u64 w = mk64(hi, lo);
	w -= (w >> 1) & 0x5555555555555555ULL;
	w = (w & 0x3333333333333333ULL) + ((w >> 2) & 0x3333333333333333ULL);
	w = (w + (w >> 4)) & 0x0f0f0f0f0f0f0f0fULL;
	return (u32)((w * 0x0101010101010101ULL) >> 56);
}

/* Bit reversal through a nibble table in .rodata. */
static const u8 rev4[16] = {0x0, 0x8, 0x4, 0xc, 0x2, 0xa, 0x6, 0xe, 0x1, 0x9, 0x5, 0xd, 0x3, 0xb, 0x7, 0xf};

NOINLINE u32 c_bitrev32(u32 x)
{
	u32 r = 0;
	for (int i = 0; i < 8; i++) {
		r = r << 4 | rev4[x & 15];
		x >>= 4;
	}
	return r;
}

/* --- checksums and hashes --- */

/* CRC-32 (reflected, polynomial 0xedb88320) bit by bit over bytes
 * generated from seed. */
NOINLINE u32 c_crc32_bits(u32 seed, int len)
{
	u32 crc = ~0u;
	for (int i = 0; i < len; i++) {
		crc ^= (u8)(seed + i * 13);
		for (int k = 0; k < 8; k++)
			crc = crc >> 1 ^ (0xedb88320 & -(crc & 1));
	}
	return ~crc;
}

/* The same CRC, four bits at a time, with a table the function builds on
 * its stack. */
NOINLINE u32 c_crc32_nibbles(u32 seed, int len)
{
	u32 tab[16];
	for (u32 n = 0; n < 16; n++) {
		u32 c = n;
		for (int k = 0; k < 4; k++)
			c = c >> 1 ^ (0xedb88320 & -(c & 1));
		tab[n] = c;
	}
	u32 crc = ~0u;
	for (int i = 0; i < len; i++) {
		crc ^= (u8)(seed + i * 13);
		crc = crc >> 4 ^ tab[crc & 15];
		crc = crc >> 4 ^ tab[crc & 15];
	}
	return ~crc;
}

/* zlib-style Adler-32 over a message in .rodata, deferring the modulo. */
static const char text[] = "Now is the time for all good men to come to the aid of the party. "
	"Pack my box with five dozen liquor jugs; sphinx of black quartz, judge my vow.";

NOINLINE u32 c_adler32(u32 adler, int len)
{
	u32 a = adler & 0xffff, b = adler >> 16;
	const u8 *p = (const u8 *)text;
	if (len > (int)sizeof(text))
		len = sizeof(text);
	while (len > 0) {
		int n = len < 16 ? len : 16;
		len -= n;
		while (n--) {
			a += *p++;
			b += a;
		}
		a %= 65521;
		b %= 65521;
	}
	return b << 16 | a;
}

/* A 16-bit one's complement sum of the message, folded. */
NOINLINE u32 c_csum16(int off, int len)
{
	const u8 *p = (const u8 *)text + (off & 31);
	u32 sum = 0;
	for (; len > 1; len -= 2, p += 2)
		sum += (u32)p[0] << 8 | p[1];
	if (len > 0)
		sum += (u32)p[0] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return ~sum & 0xffff;
}

/* FNV-1a over the message. */
NOINLINE u32 c_fnv1a(int off, int len)
{
	u32 h = 2166136261u;
	for (int i = 0; i < len; i++) {
		h ^= (u8)text[(off + i) % (int)(sizeof(text) - 1)];
		h *= 16777619u;
	}
	return h;
}

/* A multiplicative hash to bits bits, on 32 and 64 bits. */
NOINLINE u32 c_hash_mul(u32 v, u32 hi, int bits)
{
	u32 h32 = (v * 0x61c88647u) >> (32 - (bits & 31));
	u64 h64 = mk64(hi, v) * 0x61c8864680b583ebULL;
	return h32 ^ (u32)(h64 >> (64 - (bits & 63)));
}

/* Three-word mixing with rotates, in the style of Bob Jenkins' lookup3. */
NOINLINE u32 c_mix3(u32 a, u32 b, u32 c, u32 init)
{
	a += init; b += init * 3; c += init ^ 0xdeadbeef;
	for (int i = 0; i < 3; i++) {
		c ^= b; c -= rol32(b, 14);
		a ^= c; a -= rol32(c, 11);
		b ^= a; b -= rol32(a, 25);
		c ^= b; c -= rol32(b, 16);
		a ^= c; a -= rol32(c, 4);
		b ^= a; b -= rol32(a, 14);
		c ^= b; c -= rol32(b, 24);
	}
	return c;
}

/* Four 64-bit lanes of add-rotate-xor rounds (SipHash's shape). */
NOINLINE u32 c_arx4(u32 k0, u32 k1, u32 m0, u32 m1)
{
	u64 v0 = 0x0123456789abcdefULL ^ k0, v1 = 0xfedcba9876543210ULL ^ (u64)k1 << 21;
	u64 v2 = 0x0f1e2d3c4b5a6978ULL ^ (u64)m0 << 7, v3 = 0x8796a5b4c3d2e1f0ULL ^ m1;
	for (int r = 0; r < 3; r++) {
		v0 += v1; v2 += v3;
		v1 = rol64(v1, 11) ^ v0; v3 = rol64(v3, 19) ^ v2;
		v0 = rol64(v0, 32);
		v2 += v1; v0 += v3;
		v1 = rol64(v1, 23) ^ v2; v3 = rol64(v3, 27) ^ v0;
		v2 = rol64(v2, 32);
	}
	return fold64(v0 ^ v1 ^ v2 ^ v3);
}

/* Four lanes of multiply-rotate accumulation (xxHash's shape) over a
 * stream generated from seed. */
#define K1 0xa0761d6478bd642fULL
#define K2 0xe7037ed1a0b428dbULL
#define K3 0x8ebc6af09c88c6e3ULL

static inline u64 lane(u64 acc, u64 in)
{
	acc += in * K2;
	acc = rol64(acc, 29);
	return acc * K1;
}

NOINLINE u32 c_mulrot(u32 seed, int n)
{
	u64 a = seed + K1, b = seed ^ K2, c = seed, d = seed - K3;
	for (int i = 0; i < n; i++) {
		u64 x = (u64)(seed + i) * 0x9e3779b97f4a7c15ULL;
		a = lane(a, x);
		b = lane(b, x >> 7);
		c = lane(c, x << 3);
		d = lane(d, ~x);
	}
	u64 h = rol64(a, 1) + rol64(b, 7) + rol64(c, 12) + rol64(d, 18);
	h ^= h >> 31; h *= K3; h ^= h >> 29;
	return fold64(h);
}

/* --- bitmaps --- */

/* A 512-bit map in .rodata and one in .data that nothing writes. */
static const u32 cmap[16] = {
	0x00000000, 0x00000010, 0x00000000, 0x80000001, 0x00000000, 0x00000000, 0x00ff0000, 0x00000000,
	0x00000000, 0x00000000, 0x00000000, 0x10000000, 0x00000000, 0x00000000, 0x00000000, 0x00000003,
};
static u32 dmap[16] = {
	0xffffffff, 0xffffffef, 0xffffffff, 0x7ffffffe, 0xffffffff, 0xffffffff, 0xff00ffff, 0xffffffff,
	0xffffffff, 0xffffffff, 0xffffffff, 0xefffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xfffffffc,
};

static ulong next_set(const u32 *map, ulong size, ulong off, u32 invert)
{
	if (off >= size)
		return size;
	u32 w = (map[off / 32] ^ invert) & (~0u << (off % 32));
	off -= off % 32;
	while (!w) {
		off += 32;
		if (off >= size)
			return size;
		w = map[off / 32] ^ invert;
	}
	off += __builtin_ctz(w);
	return off < size ? off : size;
}

/* find_next_bit on the const map. */
NOINLINE ulong c_find_next_bit(ulong size, ulong off)
{
	return next_set(cmap, size > 512 ? 512 : size, off, 0);
}

/* Every set bit of the const map, summed by position. */
NOINLINE ulong c_for_each_bit(ulong size)
{
	ulong s = 0, n = size > 512 ? 512 : size;
	for (ulong b = next_set(cmap, n, 0, 0); b < n; b = next_set(cmap, n, b + 1, 0))
		s = s * 3 + b;
	return s;
}

/* find_next_zero_bit on the writable map (no store ever reaches it). */
NOINLINE ulong c_find_next_zero(ulong size, ulong off)
{
	ulong n = size > 512 ? 512 : size, s = 0;
	for (ulong b = next_set(dmap, n, off, ~0u); b < n; b = next_set(dmap, n, b + 1, ~0u))
		s += b;
	return s;
}

/* The weight of a range of the writable map. */
NOINLINE u32 c_bitmap_weight(int words)
{
	u32 n = 0;
	for (int i = 0; i < words && i < (int)(sizeof(dmap) / sizeof(dmap[0])); i++)
		n += c_hweight32(dmap[i]);
	return n;
}

/* --- sorting and searching --- */

static inline u32 lcg(u32 *s) { *s = *s * 1103515245u + 12345u; return *s >> 8; }

static void sift_down(int *a, int root, int n)
{
	for (;;) {
		int c = 2 * root + 1;
		if (c >= n)
			return;
		if (c + 1 < n && a[c + 1] > a[c])
			c++;
		if (a[root] >= a[c])
			return;
		int t = a[root];
		a[root] = a[c];
		a[c] = t;
		root = c;
	}
}

/* Heapsort of a local array, then a checksum of the sorted order. */
NOINLINE u32 c_heapsort(u32 seed, int n)
{
	int a[24];
	if (n > 24)
		n = 24;
	for (int i = 0; i < n; i++)
		a[i] = (int)(lcg(&seed) % 1000) - 500;
	for (int i = n / 2 - 1; i >= 0; i--)
		sift_down(a, i, n);
	for (int i = n - 1; i > 0; i--) {
		int t = a[0];
		a[0] = a[i];
		a[i] = t;
		sift_down(a, 0, i);
	}
	u32 h = 0;
	for (int i = 0; i < n; i++)
		h = h * 31 + (u32)a[i] + (i && a[i - 1] > a[i] ? 1000000 : 0);
	return h;
}

struct kv {
	u16 key;
	u8 tag;
	int val;
};

/* Insertion sort of structs on the stack by key, then by tag. */
NOINLINE u32 c_sort_structs(u32 seed, int n)
{
	struct kv v[12];
	if (n > 12)
		n = 12;
	for (int i = 0; i < n; i++) {
		v[i].key = (u16)(lcg(&seed) % 7);
		v[i].tag = (u8)lcg(&seed);
		v[i].val = i;
	}
	for (int i = 1; i < n; i++) {
		struct kv x = v[i];
		int j = i - 1;
		while (j >= 0 && (v[j].key > x.key || (v[j].key == x.key && v[j].tag > x.tag))) {
			v[j + 1] = v[j];
			j--;
		}
		v[j + 1] = x;
	}
	u32 h = 0;
	for (int i = 0; i < n; i++)
		h = h * 17 + v[i].val;
	return h;
}

/* Binary search in a sorted table in .rodata. */
static const u16 primes[] = {2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53,
	59, 61, 67, 71, 73, 79, 83, 89, 97, 101, 103, 107, 109, 113, 127, 131};

NOINLINE int c_bsearch(int key)
{
	int lo = 0, hi = (int)(sizeof(primes) / sizeof(primes[0])) - 1;
	while (lo <= hi) {
		int mid = lo + (hi - lo) / 2;
		if (primes[mid] == key)
			return mid;
		if (primes[mid] < key)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return -lo - 1;
}

/* A k-th smallest by partitioning a local array (quickselect). */
NOINLINE int c_select(u32 seed, int n, int k)
{
	int a[20];
	if (n > 20)
		n = 20;
	if (n < 1)
		return 0;
	for (int i = 0; i < n; i++)
		a[i] = (int)(lcg(&seed) % 100);
	int lo = 0, hi = n - 1;
	k = (u32)k % (u32)n;
	while (lo < hi) {
		int p = a[(lo + hi) / 2], i = lo, j = hi;
		while (i <= j) {
			while (a[i] < p) i++;
			while (a[j] > p) j--;
			if (i <= j) {
				int t = a[i]; a[i] = a[j]; a[j] = t;
				i++; j--;
			}
		}
		if (k <= j)
			hi = j;
		else if (k >= i)
			lo = i;
		else
			break;
	}
	return a[k];
}

/* --- strings, word at a time --- */

#define ONES ((ulong)-1 / 255)
#define HIGHS (ONES * 128)
#define HASZERO(x) (((x) - ONES) & ~(x) & HIGHS)

/* The strings end their section, so that an aligned word read near the
 * end reaches past the last byte (legal within a mapped page). */
__attribute__((aligned(16))) static const char strs[] = "alpha beta\0gamma-delta epsilon\0zeta,eta;theta\0kappa";

static ulong wlen(const char *s)
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

NOINLINE ulong c_strlen(int off)
{
	return wlen(strs + (off & 63) % sizeof(strs));
}

/* memchr, a word at a time once aligned. */
static const void *wchr(const void *src, int c, ulong n)
{
	const u8 *s = src;
	c = (u8)c;
	for (; (ulong)s % sizeof(ulong) && n && *s != c; s++, n--)
		;
	if (n && *s != c) {
		const ulong *w;
		ulong k = ONES * c;
		for (w = (const void *)s; n >= sizeof(ulong) && !HASZERO(*w ^ k); w++, n -= sizeof(ulong))
			;
		s = (const void *)w;
	}
	for (; n && *s != c; s++, n--)
		;
	return n ? s : 0;
}

NOINLINE int c_memchr(int c, int off, int n)
{
	const char *s = strs + (off & 31);
	const char *p = wchr(s, c, (ulong)n % (sizeof(strs) - (off & 31)));
	return p ? (int)(p - s) : -1;
}

/* strspn with a byte map on the stack. */
NOINLINE ulong c_strspn(int off, int acc)
{
	u32 map[8];
	map[0] = map[1] = map[2] = map[3] = map[4] = map[5] = map[6] = map[7] = 0;
	const u8 *a = (const u8 *)strs + (acc & 63) % sizeof(strs), *s = (const u8 *)strs + (off & 63) % sizeof(strs), *p = s;
	for (; *a; a++)
		map[*a / 32] |= 1u << (*a % 32);
	while (*p && map[*p / 32] & 1u << (*p % 32))
		p++;
	return p - s;
}

/* strcspn: the first byte of s in the reject set. */
NOINLINE ulong c_strcspn(int off, int rej)
{
	const char *s = strs + (off & 63) % sizeof(strs), *r = strs + (rej & 63) % sizeof(strs);
	ulong n = 0;
	for (; s[n]; n++)
		for (const char *q = r; *q; q++)
			if (*q == s[n])
				return n;
	return n;
}

/* strstr by a rolling comparison. */
NOINLINE int c_strstr(int hoff, int noff, int nlen)
{
	const char *h = strs + (hoff & 63) % sizeof(strs), *nd = strs + (noff & 63) % sizeof(strs);
	int hl = (int)wlen(h), nl = (int)wlen(nd);
	if (nlen < nl)
		nl = nlen < 0 ? 0 : nlen;
	for (int i = 0; i + nl <= hl; i++) {
		int k = 0;
		while (k < nl && h[i + k] == nd[k])
			k++;
		if (k == nl)
			return i;
	}
	return -1;
}

/* memcmp of two windows, a word at a time while aligned. */
NOINLINE int c_memcmp(int a, int b, int n)
{
	const u8 *p = (const u8 *)text + (a & 63), *q = (const u8 *)text + (b & 63);
	ulong len = (ulong)n % 64;
	if (!(((ulong)p | (ulong)q) % sizeof(ulong)))
		for (; len >= sizeof(ulong) && *(const ulong *)p == *(const ulong *)q; len -= sizeof(ulong))
			p += sizeof(ulong), q += sizeof(ulong);
	for (; len; len--, p++, q++)
		if (*p != *q)
			return *p - *q;
	return 0;
}

/* Parse a hexadecimal number written in a local buffer. */
NOINLINE u32 c_parse_hex(u32 v, int digits)
{
	char buf[12];
	int n = 0;
	if (digits > 8)
		digits = 8;
	for (int i = digits - 1; i >= 0; i--)
		buf[n++] = "0123456789abcdef"[(v >> (4 * i)) & 15];
	buf[n] = 0;
	u32 r = 0;
	for (const char *p = buf; *p; p++) {
		int c = *p;
		r = r * 16 + (c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10);
	}
	return r ^ (u32)n << 28;
}

/* --- control flow --- */

/* A dense switch: a jump table. */
NOINLINE int c_switch(int op, int a, int b)
{
	switch (op) {
	case 0: return a + b;
	case 1: return a - b;
	case 2: return a * b;
	case 3: return a & b;
	case 4: return a | b;
	case 5: return a ^ b;
	case 6: return a << (b & 31);
	case 7: return (int)((u32)a >> (b & 31));
	case 8: return a >> (b & 31);
	case 9: return a < b ? a : b;
	case 10: return a > b ? a : b;
	case 11: return -a;
	default: return 0x7fff;
	}
}

/* A sparse switch: compares and a table of ranges. */
NOINLINE int c_days(int month, int year)
{
	switch (month) {
	case 2:
		return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28;
	case 4: case 6: case 9: case 11:
		return 30;
	case 1: case 3: case 5: case 7: case 8: case 10: case 12:
		return 31;
	}
	return -1;
}

/* Recursion that gcc cannot turn into a loop. */
NOINLINE u32 c_fib(u32 n)
{
	return n < 2 ? n : c_fib(n - 1) + c_fib(n - 2);
}

/* Ackermann's function: deep non-tail recursion. */
NOINLINE int c_ackermann(int m, int n)
{
	if (m == 0)
		return n + 1;
	if (n == 0)
		return c_ackermann(m - 1, 1);
	return c_ackermann(m - 1, c_ackermann(m, n - 1));
}

/* Six arguments (two on the stack on ARM), passed on to a callee with
 * seven (more on the stack). */
NOINLINE int weigh7(int a, int b, int c, int d, int e, int f, int g)
{
	return a * 1 + b * 3 + c * 5 + d * 7 + e * 11 + f * 13 + g * 17;
}

NOINLINE int c_args6(int a, int b, int c, int d, int e, int f)
{
	return weigh7(f, e, d, c, b, a, a ^ f) - weigh7(a, b, c, d, e, f, b - e);
}

struct box {
	int x0, y0, x1, y1;
};

static NOINLINE void grow(struct box *b, int x, int y)
{
	if (x < b->x0) b->x0 = x;
	if (y < b->y0) b->y0 = y;
	if (x > b->x1) b->x1 = x;
	if (y > b->y1) b->y1 = y;
}

/* A struct on the stack, updated through a pointer by a callee. */
NOINLINE int c_bbox(u32 seed, int n)
{
	struct box b = {1000, 1000, -1000, -1000};
	for (int i = 0; i < n; i++)
		grow(&b, (int)(lcg(&seed) % 200) - 100, (int)(lcg(&seed) % 200) - 100);
	return (b.x1 - b.x0) * 1000 + (b.y1 - b.y0);
}

/* Clamp and saturate: conditional code. */
NOINLINE int c_clamp(int v, int lo, int hi, int scale)
{
	s64 x = (s64)v * scale;
	if (x > 0x7fffffff)
		x = 0x7fffffff;
	if (x < -0x7fffffff - 1)
		x = -0x7fffffff - 1;
	int r = (int)x;
	return r < lo ? lo : r > hi ? hi : r;
}

/* --- A32 instruction forms (issue 21): each function aims at forms gcc
 * emits for ARMv5TE and ARMv7-A that the ones above may not reach --- */

/* 32x32->64 products accumulated: mla for the LCG, umull/umlal. */
NOINLINE int c_umlal(u32 seed, int n)
{
	u64 acc = seed;
	u32 x = seed;
	for (int i = 0; i < n; i++) {
		x = x * 1664525u + 1013904223u;
		acc += (u64)x * (x >> 7);
	}
	return fold64(acc);
}

/* Signed products accumulated in 64 bits: smull/smlal. */
NOINLINE int c_smlal(int a, int b, int n)
{
	s64 acc = 0;
	for (int i = 0; i < n; i++) {
		acc += (s64)a * b;
		a = a * 3 - 7;
		b ^= a >> 3;
	}
	return (int)(acc >> 31) ^ (int)acc;
}

/* Q31 multiply and round: smull's high word, conditional saturation. */
NOINLINE int c_q31(int a, int b, int c)
{
	s64 p = (s64)a * b + ((s64)1 << 30);
	int hi = (int)(p >> 31);
	if (a == b && a == -0x7fffffff - 1)
		hi = 0x7fffffff;
	return hi ^ (int)(((s64)hi * c) >> 31);
}

/* Horner's rule over a .rodata table: mla; the remainder x - q*d: mls
 * on v7. */
static const u32 horner_k[8] = {0x3b9aca07, 7, 0x10001, 0xfff1, 31, 0x9e3779b9, 3, 0x7fffffff};

NOINLINE u32 c_horner(u32 x, u32 d, int n)
{
	u32 r = 0;
	for (int i = 0; i < n && i < 8; i++) {
		r = r * x + horner_k[i];
		u32 q = (u32)(((u64)r * 0xcccccccdu) >> 35);
		r = r - q * d + q;
	}
	return r;
}

/* Floor of log2 and bit lengths: clz; ctz: rbit+clz on v7, clz(x & -x)
 * on v5. */
NOINLINE int c_log2_sum(u32 x, int n)
{
	int s = 0;
	for (int i = 0; i < n; i++) {
		x = x * 0x01000193u ^ (u32)i;
		s += (31 - __builtin_clz(x | 1)) * 64 + __builtin_ctz(x | 0x80000000u);
	}
	return s;
}

/* The libgcc bit helpers on ARM: __popcountsi2/di2, __paritysi2/di2. */
NOINLINE int c_popcount(u32 hi, u32 lo)
{
	u64 v = mk64(hi, lo);
	return __builtin_popcount(lo) * 1000 + __builtin_popcountll(v * 0x9e3779b97f4a7c15ull) * 10 +
	       __builtin_parity(hi) * 2 + __builtin_parityll(v);
}

/* __ctzdi2, __ffsdi2, __clrsbsi2/di2 (and clz of 64 bits, inline). */
NOINLINE int c_bits64(u32 hi, u32 lo)
{
	u64 v = mk64(hi, lo);
	int r = __builtin_ffsll((s64)v) + __builtin_ffsll((s64)(v >> 40)) * 100;
	if (v)
		r += __builtin_ctzll(v) * 10000 + __builtin_clzll(v) * 1000000;
	return r ^ (__builtin_clrsb((int)lo) << 8) ^ (__builtin_clrsbll((s64)v) << 16);
}

/* Byte swaps: rev, rev16, revsh on v6+; __bswapsi2/di2 at -Os. */
NOINLINE int c_bswap(u32 x, u32 y)
{
	u64 v = __builtin_bswap64(mk64(x, y));
	u16 h = __builtin_bswap16((u16)x);
	short sh = (short)__builtin_bswap16((u16)y);
	return (int)(__builtin_bswap32(x ^ y) + (u32)(v >> 24) + h + sh);
}

/* Bitfields: ubfx/sbfx/bfi/bfc on v7, shifts and masks on v5. */
struct fields {
	u32 lo : 5, mid : 11, hi : 16;
	int s1 : 7, s2 : 13, s3 : 12;
};

NOINLINE int c_bitfields(u32 a, u32 b, int n)
{
	struct fields f = {0};
	f.lo = a;
	f.mid = a >> 5;
	f.hi = b;
	f.s1 = (int)b;
	f.s2 = (int)(a ^ b);
	f.s3 = -(int)a;
	for (int i = 0; i < n; i++) {
		f.mid += f.lo;
		f.s2 -= f.s1;
		f.hi ^= f.mid;
		f.lo = f.hi;
		f.s3 += f.s2 >> 2;
	}
	return (int)(f.lo + f.mid * 32 + f.hi) + f.s1 * 3 + f.s2 * 5 + f.s3 * 7;
}

/* An array of 64-bit values on the stack: ldrd/strd. */
NOINLINE int c_u64_stack(u32 seed, int n)
{
	u64 v[8];
	u32 s = seed;
	for (int i = 0; i < 8; i++)
		v[i] = mk64(lcg(&s), lcg(&s));
	for (int r = 0; r < n; r++)
		for (int i = 0; i < 8; i++)
			v[(i + 1) & 7] += v[i] >> 3 ^ v[(i + 5) & 7];
	u64 x = 0;
	for (int i = 0; i < 8; i++)
		x ^= v[i] + (u64)i;
	return fold64(x);
}

/* Structs copied by value on the stack: ldm/stm, with writeback. */
struct quint {
	int a, b, c, d, e;
};

static NOINLINE struct quint q_step(struct quint q, int k)
{
	struct quint r = {q.b + k, q.c ^ q.a, q.d - q.b, q.e + q.c, q.a * 3};
	return r;
}

NOINLINE int c_struct_copy(int a, int b, int n)
{
	struct quint q[4] = {{a, b, a + b, a - b, 7}};
	for (int i = 1; i < 4; i++)
		q[i] = q_step(q[i - 1], i);
	for (int i = 0; i < n; i++)
		q[i & 3] = q_step(q[(i + 1) & 3], i);
	return q[0].a + q[1].b * 3 + q[2].c * 5 + q[3].d * 7 + q[3].e;
}

/* Halfwords and signed bytes: ldrh, ldrsh, strh, ldrsb. */
NOINLINE int c_halfwords(u32 seed, int n)
{
	short s[16];
	u16 u[16];
	signed char c[16];
	u32 x = seed;
	for (int i = 0; i < 16; i++) {
		x = lcg(&x) ^ x;
		s[i] = (short)x;
		u[i] = (u16)(x >> 9);
		c[i] = (signed char)(x >> 17);
	}
	int acc = 0;
	for (int r = 0; r < n; r++)
		for (int i = 0; i < 16; i++) {
			acc += s[i] * c[(i + r) & 15] - u[i];
			s[i] = (short)(s[i] + c[i]);
		}
	return acc;
}

/* Branchless selections: conditional execution (movlt, rsbmi, ...). */
NOINLINE int c_condsel(int a, int b, int c)
{
	int r = 0;
	for (int i = 0; i < 8; i++) {
		int m = a < b ? a : b;
		int x = b > c ? b : c;
		int ab = a < 0 ? -a : a;
		int sg = (c > 0) - (c < 0);
		r += (m ^ x) + ab * sg;
		if ((a & 3) == 1)
			r ^= c;
		else if (b >= 0)
			r -= b;
		a = a * 5 + 1;
		b = b - (a >> 4);
		c = c ^ (b << 1);
	}
	return r;
}

/* Operands shifted by a register: add rd, rn, rm, lsl rs. */
NOINLINE u32 c_regshift(u32 a, u32 b, u32 c)
{
	u32 r = 0;
	for (int i = 0; i < 12; i++) {
		u32 s = (c + (u32)i) & 31;
		r += a << s;
		r ^= b >> s;
		r -= (u32)((int)a >> (31 - s));
		a = a + (b >> (s & 7));
	}
	return r;
}

/* 64-bit shifts by a variable count, inline: the two-word sequences. */
NOINLINE int c_shift64(u32 hi, u32 lo, int n)
{
	u64 v = mk64(hi, lo);
	s64 s = (s64)v;
	u64 r = 0;
	for (int i = 0; i < n; i++) {
		int k = (i * 13 + n) & 63;
		r += v << k;
		r ^= v >> k;
		r += (u64)(s >> k);
	}
	return fold64(r);
}

/* 64-bit compares: a sort network over four values (cmp/sbcs, movlt). */
NOINLINE int c_cmp64(int a, int b, int c, int d)
{
	s64 v[4] = {(s64)a << 20, (s64)b * 1000003, (s64)c - ((s64)d << 33), (s64)d * -77};
	u64 u[4] = {(u64)a << 31, (u64)b, (u64)(u32)c << 7, (u64)d << 40};
	for (int i = 0; i < 4; i++)
		for (int j = 0; j < 3 - i; j++) {
			if (v[j] > v[j + 1]) {
				s64 t = v[j];
				v[j] = v[j + 1];
				v[j + 1] = t;
			}
			if (u[j] < u[j + 1]) {
				u64 t = u[j];
				u[j] = u[j + 1];
				u[j + 1] = t;
			}
		}
	return fold64((u64)v[0] ^ (u64)v[3] << 1) + fold64(u[0] - u[3]);
}

/* Division and remainder: __aeabi_uldivmod, __aeabi_ldivmod,
 * __aeabi_idivmod and __aeabi_uidivmod. */
NOINLINE int c_divmods(int a, int b, int c, int d)
{
	u64 n = mk64((u32)a, (u32)b);
	u32 dd = (u32)c | 1;
	u64 q = n / dd;
	u32 m = (u32)(n % dd);
	s64 sn = (s64)n, sd = (s64)d * 1000 - 1;
	s64 sq = sn / sd, sm = sn % sd;
	int iq = a / (d | 1), im = b % (c | 1);
	u32 uq = (u32)a / ((u32)d | 1), um = (u32)b % ((u32)c | 1);
	return fold64(q) ^ (int)m ^ fold64((u64)sq) ^ (int)sm ^ iq ^ (im << 3) ^ (int)uq ^ (int)(um << 5);
}

/* 64x64 products: umull + mla (inline), and the high half of a 32x64. */
NOINLINE int c_mul64(u32 ah, u32 al, u32 bh, u32 bl)
{
	u64 a = mk64(ah, al), b = mk64(bh, bl);
	u64 p = a * b;
	u64 h = (a >> 32) * bl + (((u64)al * bl) >> 32);
	return fold64(p) ^ fold64(h);
}

/* 64-bit negate, add and subtract: rsbs/rsc, adds/adc, subs/sbc. */
NOINLINE int c_arith64(u32 hi, u32 lo, int n)
{
	s64 v = (s64)mk64(hi, lo);
	s64 w = -v;
	for (int i = 0; i < n; i++) {
		w = -(w + v) + ((s64)i << 33);
		v = v - w - 1;
	}
	return fold64((u64)(w ^ v));
}

/* Saturation and extension: ssat/usat, uxtb/uxth/sxtb/sxth and the
 * extend-and-add forms on v6+. */
NOINLINE int c_extend(int a, int b, int c)
{
	int r = 0;
	for (int i = 0; i < 10; i++) {
		int x = a + i * b;
		int sat8 = x < -128 ? -128 : x > 127 ? 127 : x;
		int usat8 = x < 0 ? 0 : x > 255 ? 255 : x;
		r += sat8 + usat8 + (u8)(x ^ c) + (u16)(x * c) + (signed char)x + (short)(x * 3);
		a = (a ^ c) + (short)b;
	}
	return r;
}

/* Large constants: movw/movt on v7, literal-pool loads on v5. */
NOINLINE u32 c_constants(u32 x, int n)
{
	for (int i = 0; i < n; i++) {
		x ^= 0x85ebca6bu;
		x *= 0xc2b2ae35u;
		x += 0x27d4eb2fu;
		x = rol32(x, 13) ^ 0x165667b1u;
		x -= 0xdeadbeefu;
	}
	return x ^ (x >> 16);
}

/* Pointer walks with writeback: ldr [p, #4]!, str [q], #-4. */
NOINLINE int c_walk(u32 seed, int n)
{
	u32 a[24];
	u32 *p = a, s = seed;
	for (int i = 0; i < 24; i++)
		*p++ = lcg(&s);
	u32 acc = 0;
	for (int r = 0; r < n; r++) {
		u32 *q = a + 23;
		for (const u32 *w = a; w < a + 12; ) {
			u32 t = *w++;
			acc += t ^ *q;
			*q-- = t + acc;
		}
	}
	return (int)acc;
}

/* A tail call to another exported function, and one through a pointer. */
NOINLINE int c_tail(int a, int b)
{
	int (*f)(int, int) = (a & 1) ? c_ackermann : (int (*)(int, int))c_days;
	if (b > 3)
		return c_switch(a & 15, a, b);
	return f(b & 1, a & 7);
}
