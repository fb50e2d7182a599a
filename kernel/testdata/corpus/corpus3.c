/* The third corpus of issue 21, a stand-in for the held-out one: longer
 * functions in the style of Linux lib/ and lib/crypto, musl and zlib,
 * written for mcountsim (none is copied from those projects): hash and
 * cipher rounds over a block on the stack (SHA-1-, MD5-, ChaCha- and
 * TEA-shaped), wildcard and version-string matching, number parsing from
 * .rodata strings, CRC-8 and CRC-64 with tables built on the stack, the
 * internet checksum, base64 and hex conversion, a BCD round trip, a
 * windowed minimum, a fixed-point CORDIC, a 64-by-64 division through a
 * 128-bit remainder, a bitmap area search, a linked list sorted by merge,
 * a UTF-8 decoder and a string tokenizer. The rules of corpus.c: every
 * exported function takes at most six int arguments and returns an
 * int-sized value; calls3.txt gives one call of each. */

typedef unsigned char u8;
typedef unsigned short u16;
typedef unsigned int u32;
typedef int s32;
typedef unsigned long ulong;
typedef unsigned long long u64;
typedef long long s64;

#define NOINLINE __attribute__((noinline))

static inline u32 rol32(u32 x, unsigned n) { return x << (n & 31) | x >> (-n & 31); }
static inline u32 ror32(u32 x, unsigned n) { return x >> (n & 31) | x << (-n & 31); }
static inline u64 mix64(u64 h) { h ^= h >> 29; h *= 0xbf58476d1ce4e5b9ull; return h ^ (h >> 32); }

/* --- block functions over the stack --- */

/* SHA-1-shaped: 80 rounds over a 16-word schedule expanded in place. */
static void sha1ish_block(u32 st[5], const u32 in[16])
{
	u32 w[16], a = st[0], b = st[1], c = st[2], d = st[3], e = st[4];
	for (int i = 0; i < 16; i++)
		w[i] = in[i];
	for (int i = 0; i < 80; i++) {
		u32 f, k;
		if (i >= 16)
			w[i & 15] = rol32(w[(i + 13) & 15] ^ w[(i + 8) & 15] ^ w[(i + 2) & 15] ^ w[i & 15], 1);
		if (i < 20) {
			f = d ^ (b & (c ^ d));
			k = 0x5a827999;
		} else if (i < 40) {
			f = b ^ c ^ d;
			k = 0x6ed9eba1;
		} else if (i < 60) {
			f = (b & c) | (d & (b | c));
			k = 0x8f1bbcdc;
		} else {
			f = b ^ c ^ d;
			k = 0xca62c1d6;
		}
		u32 t = rol32(a, 5) + f + e + k + w[i & 15];
		e = d;
		d = c;
		c = rol32(b, 30);
		b = a;
		a = t;
	}
	st[0] += a;
	st[1] += b;
	st[2] += c;
	st[3] += d;
	st[4] += e;
}

u32 e_sha1ish(u32 seed, u32 blocks)
{
	u32 st[5] = {0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0};
	u32 in[16];
	for (u32 n = 0; n < blocks; n++) {
		for (int i = 0; i < 16; i++)
			in[i] = seed * (u32)(i + 1) + n;
		sha1ish_block(st, in);
	}
	return st[0] ^ st[1] ^ st[2] ^ st[3] ^ st[4];
}

/* MD5-shaped: four rounds with per-step shifts and constants from
 * .rodata tables. */
static const u8 md_shift[16] = {7, 12, 17, 22, 5, 9, 14, 20, 4, 11, 16, 23, 6, 10, 15, 21};
static const u32 md_const[16] = {
	0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, 0xf57c0faf, 0x4787c62a, 0xa8304613, 0xfd469501,
	0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be, 0x6b901122, 0xfd987193, 0xa679438e, 0x49b40821,
};

u32 e_md5ish(u32 x0, u32 x1, u32 x2, u32 x3)
{
	u32 m[16], a = 0x67452301, b = 0xefcdab89, c = 0x98badcfe, d = 0x10325476;
	for (int i = 0; i < 16; i++)
		m[i] = (i & 3) == 0 ? x0 + i : (i & 3) == 1 ? x1 ^ i : (i & 3) == 2 ? x2 - i : x3 * (i | 1);
	for (int i = 0; i < 64; i++) {
		u32 f;
		int g;
		switch (i >> 4) {
		case 0:
			f = (b & c) | (~b & d);
			g = i;
			break;
		case 1:
			f = (d & b) | (~d & c);
			g = (5 * i + 1) & 15;
			break;
		case 2:
			f = b ^ c ^ d;
			g = (3 * i + 5) & 15;
			break;
		default:
			f = c ^ (b | ~d);
			g = (7 * i) & 15;
			break;
		}
		u32 t = d;
		d = c;
		c = b;
		b = b + rol32(a + f + md_const[i & 15] + m[g], md_shift[(i >> 4) * 4 + (i & 3)]);
		a = t;
	}
	return a + b * 3 + c * 5 + d * 7;
}

/* ChaCha-shaped: a 16-word state, column and diagonal quarter rounds. */
#define QR(a, b, c, d)                  \
	do {                            \
		a += b; d = rol32(d ^ a, 16); \
		c += d; b = rol32(b ^ c, 12); \
		a += b; d = rol32(d ^ a, 8);  \
		c += d; b = rol32(b ^ c, 7);  \
	} while (0)

u32 e_chacha(u32 key0, u32 key1, u32 nonce, u32 rounds)
{
	u32 x[16], s[16];
	for (int i = 0; i < 16; i++)
		s[i] = 0x61707865u * (u32)(i + 1) ^ (i & 1 ? key1 : key0) ^ (i >= 12 ? nonce : 0);
	for (int i = 0; i < 16; i++)
		x[i] = s[i];
	for (u32 r = 0; r < rounds; r += 2) {
		QR(x[0], x[4], x[8], x[12]);
		QR(x[1], x[5], x[9], x[13]);
		QR(x[2], x[6], x[10], x[14]);
		QR(x[3], x[7], x[11], x[15]);
		QR(x[0], x[5], x[10], x[15]);
		QR(x[1], x[6], x[11], x[12]);
		QR(x[2], x[7], x[8], x[13]);
		QR(x[3], x[4], x[9], x[14]);
	}
	u32 h = 0;
	for (int i = 0; i < 16; i++)
		h = ror32(h, 3) ^ (x[i] + s[i]);
	return h;
}

/* TEA-shaped: 32 cycles of a Feistel network on two words, encrypted and
 * decrypted again; returns the ciphertext's mix and whether the round trip
 * holds. */
static void tea_enc(u32 v[2], const u32 k[4])
{
	u32 v0 = v[0], v1 = v[1], sum = 0;
	for (int i = 0; i < 32; i++) {
		sum += 0x9e3779b9;
		v0 += ((v1 << 4) + k[0]) ^ (v1 + sum) ^ ((v1 >> 5) + k[1]);
		v1 += ((v0 << 4) + k[2]) ^ (v0 + sum) ^ ((v0 >> 5) + k[3]);
	}
	v[0] = v0;
	v[1] = v1;
}

static void tea_dec(u32 v[2], const u32 k[4])
{
	u32 v0 = v[0], v1 = v[1], sum = 0xc6ef3720;
	for (int i = 0; i < 32; i++) {
		v1 -= ((v0 << 4) + k[2]) ^ (v0 + sum) ^ ((v0 >> 5) + k[3]);
		v0 -= ((v1 << 4) + k[0]) ^ (v1 + sum) ^ ((v1 >> 5) + k[1]);
		sum -= 0x9e3779b9;
	}
	v[0] = v0;
	v[1] = v1;
}

u32 e_tea(u32 a, u32 b, u32 k0, u32 k1)
{
	u32 k[4] = {k0, k1, k0 ^ 0x5555, k1 + 77}, v[2] = {a, b};
	tea_enc(v, k);
	u32 c = v[0] ^ rol32(v[1], 11);
	tea_dec(v, k);
	return c ^ (v[0] == a && v[1] == b);
}

/* --- matching --- */

/* A glob with '*' and '?' over two .rodata strings chosen by index, with
 * one backtracking point as lib/glob.c keeps. */
static const char *const glob_pats[] = {"*.c", "ab?d*x", "*mid*", "exact", "a*b*c*d", "?"};
static const char *const glob_strs[] = {"main.c", "abcdefx", "a middle one", "exact", "aXbXcXd", "", "zz.h"};

static NOINLINE int glob_match(const char *pat, const char *str)
{
	const char *back_pat = 0, *back_str = 0;
	for (;;) {
		char c = *str++, d = *pat++;
		switch (d) {
		case '?':
			if (c == '\0')
				return 0;
			break;
		case '*':
			if (*pat == '\0')
				return 1;
			back_pat = pat;
			back_str = --str;
			break;
		default:
			if (c == d) {
				if (d == '\0')
					return 1;
				break;
			}
			if (c == '\0' || !back_pat)
				return 0;
			pat = back_pat;
			str = ++back_str;
			break;
		}
	}
}

int e_glob(int p, int s)
{
	int n = 0;
	for (int i = 0; i < 6; i++)
		for (int j = 0; j < 7; j++)
			n = n * 3 + glob_match(glob_pats[(i + p) % 6], glob_strs[(j + s) % 7]);
	return n;
}

/* Version-string comparison (digits compare as numbers, strverscmp-like
 * without the leading-zero rule) over .rodata strings. */
static const char *const versions[] = {"1.2.10", "1.2.9", "1.10", "1.9.9", "2.0-rc1", "2.0", "2.0-rc10", "0.99"};

static NOINLINE int vercmp(const char *a, const char *b)
{
	while (*a && *b) {
		if (*a >= '0' && *a <= '9' && *b >= '0' && *b <= '9') {
			unsigned long x = 0, y = 0;
			while (*a >= '0' && *a <= '9')
				x = x * 10 + (u32)(*a++ - '0');
			while (*b >= '0' && *b <= '9')
				y = y * 10 + (u32)(*b++ - '0');
			if (x != y)
				return x < y ? -1 : 1;
			continue;
		}
		if (*a != *b)
			return (u8)*a < (u8)*b ? -1 : 1;
		a++;
		b++;
	}
	return (*a != 0) - (*b != 0);
}

int e_versort(int rot)
{
	int idx[8];
	for (int i = 0; i < 8; i++)
		idx[i] = (i + rot) & 7;
	for (int i = 1; i < 8; i++) /* insertion sort by vercmp */
		for (int j = i; j > 0 && vercmp(versions[idx[j - 1]], versions[idx[j]]) > 0; j--) {
			int t = idx[j];
			idx[j] = idx[j - 1];
			idx[j - 1] = t;
		}
	int h = 0;
	for (int i = 0; i < 8; i++)
		h = h * 8 + idx[i];
	return h;
}

/* --- parsing and conversion --- */

/* kstrtoull-shaped: base 0 (0x, 0 prefixes), overflow detected, over
 * .rodata strings. */
static const char *const numbers[] = {"0x7fffffff", "01234", "987654321", "0xdeadbeefcafe", "18446744073709551616", "12a", "0"};

static NOINLINE int parse_ull(const char *s, u64 *res)
{
	unsigned base = 10;
	u64 v = 0;
	if (s[0] == '0' && (s[1] | 0x20) == 'x' && s[2]) {
		base = 16;
		s += 2;
	} else if (s[0] == '0' && s[1]) {
		base = 8;
		s++;
	}
	if (!*s)
		return -22;
	for (; *s; s++) {
		unsigned c = (u8)*s, d;
		if (c >= '0' && c <= '9')
			d = c - '0';
		else if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
			d = (c | 0x20) - 'a' + 10;
		else
			return -22;
		if (d >= base)
			return -22;
		if (v > (~0ull - d) / base)
			return -34;
		v = v * base + d;
	}
	*res = v;
	return 0;
}

int e_parse(int which)
{
	u64 v = 0;
	int err = parse_ull(numbers[which % 7], &v);
	return err ? err : (int)(v ^ v >> 32);
}

/* hex_to_bin and bin_to_hex over a buffer on the stack, and base64 of the
 * same bytes, summed. */
static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static int hex_val(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c |= 0x20;
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

u32 e_hexb64(u32 a, u32 b, int len)
{
	u8 raw[16];
	char hex[33], out[25];
	for (int i = 0; i < 16; i++)
		raw[i] = (u8)((i < 8 ? a : b) >> (i % 4 * 8)) ^ (u8)(i * 37);
	len = len < 1 ? 1 : len > 16 ? 16 : len;
	for (int i = 0; i < len; i++) {
		hex[2 * i] = "0123456789abcdef"[raw[i] >> 4];
		hex[2 * i + 1] = "0123456789abcdef"[raw[i] & 15];
	}
	hex[2 * len] = 0;
	u32 back = 0;
	for (int i = 0; hex[i]; i += 2)
		back = back * 31 + (u32)(hex_val(hex[i]) << 4 | hex_val(hex[i + 1]));
	int o = 0;
	for (int i = 0; i < len; i += 3) {
		u32 v = (u32)raw[i] << 16 | (i + 1 < len ? (u32)raw[i + 1] << 8 : 0) | (i + 2 < len ? raw[i + 2] : 0);
		out[o++] = b64[v >> 18];
		out[o++] = b64[v >> 12 & 63];
		out[o++] = i + 1 < len ? b64[v >> 6 & 63] : '=';
		out[o++] = i + 2 < len ? b64[v & 63] : '=';
	}
	out[o] = 0;
	u32 h = back;
	for (int i = 0; out[i]; i++)
		h = h * 33 ^ (u8)out[i];
	return h;
}

/* bin2bcd/bcd2bin over every value below n, checked for the round trip. */
static inline u8 bin2bcd(unsigned v) { return (u8)((v / 10) << 4 | v % 10); }
static inline unsigned bcd2bin(u8 v) { return (v & 15) + (v >> 4) * 10; }

int e_bcd(int n)
{
	int sum = 0;
	for (int i = 0; i < n && i < 100; i++) {
		u8 b = bin2bcd((unsigned)i);
		if (bcd2bin(b) != (unsigned)i)
			return -1;
		sum += b;
	}
	return sum;
}

/* --- checksums --- */

/* CRC-8 (poly 0x07) with a 256-byte table built on the stack, and CRC-64
 * (ECMA) bitwise, over bytes from a generator. */
u32 e_crc8_64(u32 seed, int len)
{
	u8 table[256];
	for (int i = 0; i < 256; i++) {
		u8 c = (u8)i;
		for (int j = 0; j < 8; j++)
			c = (u8)(c & 0x80 ? c << 1 ^ 0x07 : c << 1);
		table[i] = c;
	}
	u8 crc8 = 0;
	u64 crc64 = ~0ull;
	u32 s = seed | 1;
	for (int i = 0; i < len; i++) {
		s = s * 1103515245u + 12345u;
		u8 byte = (u8)(s >> 16);
		crc8 = table[crc8 ^ byte];
		crc64 ^= (u64)byte << 56;
		for (int j = 0; j < 8; j++)
			crc64 = crc64 & (1ull << 63) ? crc64 << 1 ^ 0x42f0e1eba9ea3693ull : crc64 << 1;
	}
	return (u32)crc8 << 24 ^ (u32)(crc64 >> 32) ^ (u32)crc64;
}

/* The internet checksum of a buffer of halfwords on the stack: a 64-bit
 * accumulator folded twice, with an odd trailing byte, as csum_partial and
 * csum_fold compute it. */
u32 e_csum(u32 seed, int len)
{
	u8 buf[64];
	len = len < 0 ? 0 : len > 64 ? 64 : len;
	for (int i = 0; i < 64; i++)
		buf[i] = (u8)(seed >> (i & 3) * 8) + (u8)i;
	u64 sum = 0;
	int i = 0;
	for (; i + 1 < len; i += 2)
		sum += (u32)buf[i] << 8 | buf[i + 1];
	if (i < len)
		sum += (u32)buf[i] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (u16)~sum;
}

/* --- arithmetic --- */

/* mul_u64_u64_div_u64-shaped: (a*b)/c with a 128-bit product kept in two
 * halves and a shift-subtract division. */
static NOINLINE u64 muldiv64(u64 a, u64 b, u64 c)
{
	u64 al = (u32)a, ah = a >> 32, bl = (u32)b, bh = b >> 32;
	u64 ll = al * bl, lh = al * bh, hl = ah * bl, hh = ah * bh;
	u64 mid = (ll >> 32) + (u32)lh + (u32)hl;
	u64 lo = (mid << 32) | (u32)ll;
	u64 hi = hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
	u64 q = 0, r = 0;
	for (int i = 127; i >= 0; i--) {
		u64 top = r >> 63;
		r = r << 1 | ((i >= 64 ? hi >> (i - 64) : lo >> i) & 1);
		if (top || r >= c) {
			r -= c;
			if (i < 64)
				q |= 1ull << i;
		}
	}
	return q;
}

u32 e_muldiv(u32 ah, u32 al, u32 bh, u32 bl, u32 c)
{
	u64 q = muldiv64((u64)ah << 32 | al, (u64)bh << 32 | bl, (u64)c << 20 | 0xfff);
	return (u32)q ^ (u32)(q >> 32);
}

/* A fixed-point CORDIC (16.16) rotating a vector by an angle, with the
 * arctangent table in .rodata. */
static const s32 cordic_atan[16] = {
	51472, 30386, 16055, 8150, 4091, 2047, 1024, 512, 256, 128, 64, 32, 16, 8, 4, 2,
};

int e_cordic(int angle)
{
	s32 x = 39797, y = 0, z = angle; /* x: the CORDIC gain's inverse */
	for (int i = 0; i < 16; i++) {
		s32 dx = y >> i, dy = x >> i;
		if (z >= 0) {
			x -= dx;
			y += dy;
			z -= cordic_atan[i];
		} else {
			x += dx;
			y -= dy;
			z += cordic_atan[i];
		}
	}
	return (x & 0xffff) << 16 | (y & 0xffff);
}

/* A windowed minimum over a stream (win_minmax-shaped): three samples of
 * (time, value), refreshed when the window slides. */
struct sample {
	u32 t, v;
};

static void minmax_update(struct sample s[3], u32 win, u32 t, u32 v)
{
	struct sample n = {t, v};
	if (v <= s[0].v || t - s[2].t > win) {
		s[0] = s[1] = s[2] = n;
		return;
	}
	if (v <= s[1].v)
		s[2] = s[1] = n;
	else if (v <= s[2].v)
		s[2] = n;
	if (t - s[0].t > win) {
		s[0] = s[1];
		s[1] = s[2];
		s[2] = n;
	} else if (s[1].t == s[0].t && t - s[1].t > win / 4) {
		s[2] = s[1] = n;
	}
}

u32 e_minmax(u32 seed, u32 win, int n)
{
	struct sample s[3] = {{0, ~0u}, {0, ~0u}, {0, ~0u}};
	u32 x = seed | 1, h = 0;
	for (int i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		minmax_update(s, win, (u32)i * 3, x % 1000);
		h = h * 7 + s[0].v;
	}
	return h;
}

/* --- bitmaps, lists, text --- */

/* bitmap_find_next_zero_area-shaped: the first run of nr clear bits at an
 * aligned start in a bitmap on the stack with a pattern set in it. */
static int test_bit(const ulong *map, int n) { return map[n / (8 * sizeof(ulong))] >> (n % (8 * sizeof(ulong))) & 1; }

int e_zero_area(u32 pattern, int nr, int align)
{
	ulong map[4];
	const int bits = 4 * 8 * sizeof(ulong);
	for (int i = 0; i < 4; i++)
		map[i] = (ulong)pattern * (ulong)(i + 1) | (ulong)pattern << (i * 3);
	align = align < 1 ? 1 : align;
	for (int start = 0; start + nr <= bits; start += align) {
		int i = 0;
		while (i < nr && !test_bit(map, start + i))
			i++;
		if (i == nr)
			return start;
	}
	return -1;
}

/* A singly linked list of nodes on the stack sorted by a bottom-up merge,
 * as lib/list_sort.c merges runs. */
struct node {
	struct node *next;
	int key;
};

static struct node *merge(struct node *a, struct node *b)
{
	struct node head, *t = &head;
	while (a && b) {
		if (a->key <= b->key) {
			t->next = a;
			a = a->next;
		} else {
			t->next = b;
			b = b->next;
		}
		t = t->next;
	}
	t->next = a ? a : b;
	return head.next;
}

int e_listsort(u32 seed, int n)
{
	struct node nodes[24], *parts[8] = {0};
	n = n < 1 ? 1 : n > 24 ? 24 : n;
	for (int i = 0; i < n; i++) {
		seed = seed * 1664525u + 1013904223u;
		nodes[i].key = (int)(seed >> 20);
		nodes[i].next = 0;
	}
	for (int i = 0; i < n; i++) {
		struct node *run = &nodes[i];
		int k = 0;
		while (k < 8 && parts[k]) {
			run = merge(parts[k], run);
			parts[k++] = 0;
		}
		parts[k < 8 ? k : 7] = run;
	}
	struct node *list = 0;
	for (int k = 0; k < 8; k++)
		if (parts[k])
			list = merge(parts[k], list);
	int h = 0, prev = -1, sorted = 1;
	for (; list; list = list->next) {
		sorted &= list->key >= prev;
		prev = list->key;
		h = h * 31 + list->key;
	}
	return sorted ? h : -1;
}

/* A UTF-8 decoder over .rodata text, rejecting overlong forms and
 * surrogates; returns the sum of the code points and the count of
 * errors. */
static const char utf8_text[] = "a\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\xc0\xaf\xed\xa0\x80z\xe4\xb8\xad";

int e_utf8(int skip)
{
	const u8 *p = (const u8 *)utf8_text + (skip & 3);
	u32 sum = 0;
	int bad = 0;
	while (*p) {
		u32 c = *p++, need, min;
		if (c < 0x80) {
			sum += c;
			continue;
		} else if ((c & 0xe0) == 0xc0) {
			need = 1, min = 0x80, c &= 0x1f;
		} else if ((c & 0xf0) == 0xe0) {
			need = 2, min = 0x800, c &= 0x0f;
		} else if ((c & 0xf8) == 0xf0) {
			need = 3, min = 0x10000, c &= 0x07;
		} else {
			bad++;
			continue;
		}
		while (need && (*p & 0xc0) == 0x80) {
			c = c << 6 | (*p++ & 0x3f);
			need--;
		}
		if (need || c < min || (c >= 0xd800 && c <= 0xdfff) || c > 0x10ffff)
			bad++;
		else
			sum += c;
	}
	return (int)(sum << 4) | bad;
}

/* strsep-shaped tokenizing of a copy on the stack: the count of tokens
 * and the hash of the longest, with delimiters from a .rodata set. */
static const char tok_text[] = "  alpha,beta;;gamma delta,,epsilon  zeta;eta ";

int e_tokens(int delim_set)
{
	char buf[sizeof tok_text];
	const char *delims = delim_set & 1 ? ",; " : " ";
	for (unsigned i = 0; i < sizeof tok_text; i++)
		buf[i] = tok_text[i];
	char *s = buf, *tok;
	int count = 0, best = 0;
	u32 besth = 0;
	while (s) {
		tok = s;
		for (; *s; s++) {
			const char *d = delims;
			while (*d && *d != *s)
				d++;
			if (*d)
				break;
		}
		if (*s)
			*s++ = 0;
		else
			s = 0;
		int len = 0;
		u32 h = 5381;
		for (; tok[len]; len++)
			h = h * 33 + (u8)tok[len];
		if (len) {
			count++;
			if (len > best) {
				best = len;
				besth = h;
			}
		}
	}
	return count << 24 ^ (int)(besth & 0xffffff);
}

/* A 64-bit mixer over a seed (splitmix-shaped), the final step of many
 * hash tables. */
u32 e_mix(u32 hi, u32 lo, int rounds)
{
	u64 h = (u64)hi << 32 | lo;
	for (int i = 0; i < rounds; i++)
		h = mix64(h + 0x9e3779b97f4a7c15ull);
	return (u32)(h >> 32) ^ (u32)h;
}
