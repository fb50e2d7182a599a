/* The sixth corpus of issue 21: more lib/-shaped code, written for
 * mcountsim (none is copied from Linux, musl or zlib): unaligned 8-byte
 * loads and stores through memcpy (get_unaligned/put_unaligned), an
 * LZ4-shaped decompressor with overlapping match copies, a word-at-a-time
 * bounded string copy (strscpy's zero-byte test), a memparse-shaped
 * suffix switch with fallthrough shifts, a do_csum-shaped checksum with an
 * odd start and carries folded from 64 bits, a human-readable size with
 * 64-bit divisions in a loop, and a table of a hundred string pointers.
 * The rules of corpus.c: every exported function takes at most six int
 * arguments and returns an int-sized value; calls6.txt gives one call of
 * each. */

typedef unsigned char u8;
typedef unsigned short u16;
typedef unsigned int u32;
typedef unsigned long ulong;
typedef unsigned long long u64;
typedef long long s64;

#define NOINLINE __attribute__((noinline))

void *memcpy(void *, const void *, ulong);
void *memset(void *, int, ulong);

static inline u64 get_unaligned64(const void *p)
{
	u64 v;
	__builtin_memcpy(&v, p, 8);
	return v;
}
static inline void put_unaligned64(void *p, u64 v) { __builtin_memcpy(p, &v, 8); }
static inline u32 get_unaligned32(const void *p)
{
	u32 v;
	__builtin_memcpy(&v, p, 4);
	return v;
}
static inline u32 fold(u64 v) { return (u32)(v ^ v >> 32); }

/* get/put_unaligned at every offset of a buffer on the stack. */
NOINLINE int k_unaligned(int a, int b)
{
	u8 buf[64];
	for (int i = 0; i < 64; i++)
		buf[i] = (u8)(a + i * b);
	u64 h = 0;
	for (int off = 0; off < 16; off++) {
		u64 v = get_unaligned64(buf + off);
		put_unaligned64(buf + 32 + (off & 7), v * 0x9e3779b97f4a7c15ull);
		h = h * 31 + v + get_unaligned32(buf + 40 + off);
	}
	return (int)fold(h);
}

/* An LZ4-shaped block: tokens of literal and match lengths, offsets back
 * into the output, 8-byte copies that may overlap (offset < 8). */
static const u8 k_block[] = {
	0x50, 'a', 'b', 'c', 'd', 'e', 0x05, 0x00,        /* 5 literals, match 9 at -5 */
	0x32, 'x', 'y', 'z', 0x01, 0x00,                   /* 3 literals, match 6 at -1 */
	0x1f, 'q', 0x07, 0x00, 0x03,                       /* 1 literal, match 15+3+4 at -7 */
	0x40, 'e', 'n', 'd', '!',                          /* 4 literals, end */
};

static NOINLINE int lz_decompress(const u8 *src, int srclen, u8 *dst, int cap)
{
	const u8 *ip = src, *iend = src + srclen;
	u8 *op = dst, *oend = dst + cap;
	while (ip < iend) {
		unsigned tok = *ip++, lit = tok >> 4, mlen = tok & 15;
		if (lit == 15)
			for (u8 s = 255; s == 255 && ip < iend;)
				lit += s = *ip++;
		if (op + lit > oend || ip + lit > iend)
			return -1;
		memcpy(op, ip, lit);
		op += lit;
		ip += lit;
		if (ip >= iend)
			break;
		unsigned off = ip[0] | ip[1] << 8;
		ip += 2;
		if (mlen == 15)
			for (u8 s = 255; s == 255 && ip < iend;)
				mlen += s = *ip++;
		mlen += 4;
		if (off == 0 || off > (unsigned)(op - dst) || op + mlen + 8 > oend)
			return -2;
		const u8 *m = op - off;
		if (off >= 8) {
			for (unsigned i = 0; i < mlen; i += 8)
				put_unaligned64(op + i, get_unaligned64(m + i));
		} else {
			for (unsigned i = 0; i < mlen; i++)
				op[i] = m[i];
		}
		op += mlen;
	}
	return (int)(op - dst);
}

NOINLINE int k_lz(int salt, int n)
{
	u8 out[128];
	memset(out, 0, sizeof out);
	int len = lz_decompress(k_block, n < (int)sizeof k_block ? n : (int)sizeof k_block, out, sizeof out);
	u32 h = (u32)salt;
	for (int i = 0; i < len; i++)
		h = (h ^ out[i]) * 16777619u;
	return (int)(h ^ (u32)len << 24);
}

/* strscpy-shaped: copy a word at a time while no byte of the word is 0,
 * then byte by byte; -7 (E2BIG) when the source does not fit. */
static inline ulong has_zero(ulong v)
{
	const ulong ones = (ulong)0x0101010101010101ull, highs = ones << 7;
	return (v - ones) & ~v & highs;
}

static NOINLINE long k_strscpy_in(char *dst, const char *src, long size)
{
	long i = 0;
	if (size <= 0)
		return -7;
	while (size - i >= (long)sizeof(ulong)) {
		ulong c;
		__builtin_memcpy(&c, src + i, sizeof c);
		if (has_zero(c))
			break;
		__builtin_memcpy(dst + i, &c, sizeof c);
		i += sizeof c;
	}
	for (; i < size; i++) {
		dst[i] = src[i];
		if (!src[i])
			return i;
	}
	dst[size - 1] = 0;
	return -7;
}

static const char k_text[] = "the quick brown fox jumps over the lazy dog, twice over the sleepy cat";

NOINLINE int k_strscpy(int from, int size)
{
	char buf[96];
	memset(buf, 'z', sizeof buf);
	if (from < 0 || from >= (int)sizeof k_text || size > (int)sizeof buf)
		return -100;
	long n = k_strscpy_in(buf, k_text + from, size);
	u32 h = 5381;
	for (int i = 0; i < (int)sizeof buf; i++)
		h = h * 33 + (u8)buf[i];
	return (int)(h + (u32)n * 7);
}

/* memparse-shaped: a number with a K/M/G/T suffix, shifts by fallthrough. */
static NOINLINE u64 memparse(const char *s, const char **end)
{
	u64 v = 0;
	while (*s >= '0' && *s <= '9')
		v = v * 10 + (u64)(*s++ - '0');
	switch (*s) {
	case 'T': case 't':
		v <<= 10;
		/* fallthrough */
	case 'G': case 'g':
		v <<= 10;
		/* fallthrough */
	case 'M': case 'm':
		v <<= 10;
		/* fallthrough */
	case 'K': case 'k':
		v <<= 10;
		s++;
		/* fallthrough */
	default:
		break;
	}
	*end = s;
	return v;
}

static const char k_sizes[] = "12K 7M 3G 1T 999 64k 2g";

NOINLINE int k_memparse(int skip, int n)
{
	const char *s = k_sizes;
	u64 sum = 0;
	for (int i = 0; i < n && *s; i++) {
		u64 v = memparse(s, &s);
		if (i >= skip)
			sum += v;
		while (*s == ' ')
			s++;
	}
	return (int)fold(sum);
}

/* do_csum-shaped: a 16-bit ones' complement sum with an odd start byte,
 * 32-bit words summed into 64 bits, carries folded. */
static NOINLINE u32 do_csum(const u8 *buf, int len)
{
	int odd = (ulong)buf & 1;
	u64 sum = 0;
	if (odd && len > 0) {
		sum = (u64)*buf << 8;
		buf++;
		len--;
	}
	if (len >= 2 && ((ulong)buf & 2)) {
		sum += *(const u16 *)buf;
		buf += 2;
		len -= 2;
	}
	while (len >= 4) {
		sum += *(const u32 *)buf;
		buf += 4;
		len -= 4;
	}
	if (len >= 2) {
		sum += *(const u16 *)buf;
		buf += 2;
		len -= 2;
	}
	if (len)
		sum += *buf;
	sum = (sum & 0xffffffff) + (sum >> 32);
	sum = (sum & 0xffffffff) + (sum >> 32);
	u32 r = (u32)sum;
	r = (r & 0xffff) + (r >> 16);
	r = (r & 0xffff) + (r >> 16);
	if (odd)
		r = (r >> 8 | r << 8) & 0xffff;
	return r;
}

NOINLINE int k_csum(int seed, int start, int len)
{
	u32 words[40];
	for (int i = 0; i < 40; i++)
		words[i] = (u32)seed * 2654435761u + (u32)i * 40503u;
	if (start < 0 || start > 16 || len < 0 || len > 140)
		return -1;
	return (int)do_csum((const u8 *)words + start, len);
}

/* string_get_size-shaped: a 64-bit size in units of 1000 or 1024, with
 * the remainder kept for one decimal, divisions in a loop. */
NOINLINE int k_size_str(int hi, int lo, int base2)
{
	static const char *const units10[] = {"B", "kB", "MB", "GB", "TB", "PB", "EB"};
	static const char *const units2[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
	u64 size = (u64)(u32)hi << 32 | (u32)lo;
	u32 div = base2 ? 1024 : 1000, rem = 0;
	int i = 0;
	while (size >= div && i < 6) {
		rem = (u32)(size % div);
		size /= div;
		i++;
	}
	const char *u = (base2 ? units2 : units10)[i];
	u32 h = (u32)size * 1000 + rem * 10 / div;
	while (*u)
		h = h * 31 + (u8)*u++;
	return (int)h;
}

/* A table of a hundred string pointers (errname-shaped), searched. */
#define N10(p) p "0", p "1", p "2", p "3", p "4", p "5", p "6", p "7", p "8", p "9"
static const char *const k_names[] = {N10("E0"), N10("E1"), N10("E2"), N10("E3"), N10("E4"),
				      N10("E5"), N10("E6"), N10("E7"), N10("E8"), N10("E9")};

NOINLINE int k_names_lookup(int a, int b)
{
	u32 h = 0;
	for (int i = 0; i < 100; i += 1 + (a & 3)) {
		const char *s = k_names[(i * 7 + b) % 100];
		h = h * 131 + (u8)s[1] * 10 + (u8)s[2] + (u8)s[3];
	}
	return (int)h;
}
