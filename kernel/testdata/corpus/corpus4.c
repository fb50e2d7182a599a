/* The fourth corpus of issue 21: shapes of real kernel and library code
 * the first three lack, written for mcountsim (none is copied from Linux,
 * musl or zlib): a computed-goto interpreter (a table of label addresses
 * in .rodata, as the BPF interpreter has), a VLA and alloca (a frame
 * pointer and a stack pointer moved at run time), a frame over a
 * kilobyte cleared by memset, number formatting with a 64-bit division
 * by a variable base (__aeabi_uldivmod on ARM), a variadic formatter (a
 * va_list over registers saved on the stack), function pointers and
 * string pointers in initialized tables (data relocations to text and to
 * .rodata.str), a writable ops structure, indirect calls and an indirect
 * tail call, 40-byte structs returned through a hidden pointer and passed
 * by value, bit-field updates over 64-bit words, a switch lowered to bit
 * tests, packed (unaligned) fields, container_of and a doubly linked list
 * with an hlist hash on the stack, a table built lazily in .bss on the
 * first call, a weak function the object defines and an undefined weak
 * one tested for NULL, a cold function in .text.unlikely and one in a
 * section of its own, and a notrace helper (no profiling site). The rules
 * of corpus.c: every exported function takes at most six int arguments
 * and returns an int-sized value; calls4.txt gives one call of each. */

typedef unsigned char u8;
typedef signed char s8;
typedef unsigned short u16;
typedef short s16;
typedef unsigned int u32;
typedef int s32;
typedef unsigned long ulong;
typedef unsigned long long u64;
typedef long long s64;

#define NOINLINE __attribute__((noinline))
#if defined(__aarch64__) || defined(__riscv)
/* As the kernel's notrace with -fpatchable-function-entry. */
#define NOTRACE __attribute__((no_instrument_function, patchable_function_entry(0, 0)))
#else
#define NOTRACE __attribute__((no_instrument_function))
#endif
#define container_of(p, T, m) ((T *)((char *)(p) - __builtin_offsetof(T, m)))

typedef __builtin_va_list va_list;
#define va_start(ap, last) __builtin_va_start(ap, last)
#define va_arg(ap, T) __builtin_va_arg(ap, T)
#define va_end(ap) __builtin_va_end(ap)

void *memset(void *, int, ulong);
void *memcpy(void *, const void *, ulong);
int memcmp(const void *, const void *, ulong);

static inline u32 rol32(u32 x, unsigned n) { return x << (n & 31) | x >> (-n & 31); }
static inline u32 fold(u64 v) { return (u32)(v ^ v >> 32); }

/* --- a computed-goto interpreter --- */

struct insn {
	u8 code, dst, src;
	s16 imm;
};

enum { OP_MOVI, OP_ADD, OP_SUB, OP_MUL, OP_XOR, OP_SHL, OP_SHR, OP_ADDI, OP_JLT, OP_JNE, OP_LDX, OP_STX, OP_DIV, OP_EXIT };

static const struct insn g_prog[] = {
	{OP_MOVI, 2, 0, 0},       /* r2 = 0 (i) */
	{OP_MOVI, 3, 0, 1},       /* r3 = 1 */
	{OP_MOVI, 4, 0, 12},      /* r4 = 12 (n) */
	{OP_MOVI, 5, 0, 0},       /* r5 = 0 (acc) */
	{OP_MUL, 3, 0, 0},        /* 4: r3 *= r0 */
	{OP_ADDI, 3, 0, 7},       /*    r3 += 7 */
	{OP_XOR, 5, 3, 0},        /*    r5 ^= r3 */
	{OP_SHL, 5, 0, 3},        /*    r5 <<= 3 (imm) */
	{OP_SHR, 3, 0, 5},        /*    r3 >>= 5 */
	{OP_ADD, 5, 1, 0},        /*    r5 += r1 */
	{OP_STX, 2, 5, 0},        /*    mem[r2 & 7] = r5 */
	{OP_ADDI, 2, 0, 1},       /*    r2 += 1 */
	{OP_JLT, 2, 4, -8},       /*    if r2 < r4 goto 4 */
	{OP_MOVI, 2, 0, 0},
	{OP_LDX, 6, 2, 0},        /* 14: r6 = mem[r2 & 7] */
	{OP_SUB, 5, 6, 0},        /*     r5 -= r6 */
	{OP_ADDI, 2, 0, 3},       /*     r2 += 3 */
	{OP_MOVI, 7, 0, 24},
	{OP_JLT, 2, 7, -4},       /*     if r2 < 24 goto 14 */
	{OP_MOVI, 7, 0, 13},
	{OP_DIV, 5, 7, 0},        /*     r5 /= 13 */
	{OP_MOVI, 0, 0, 0},
	{OP_ADD, 0, 5, 0},
	{OP_EXIT, 0, 0, 0},
};

NOINLINE int g_interp(int a, int b)
{
	static const void *const jt[] = {
		[OP_MOVI] = &&movi, [OP_ADD] = &&add, [OP_SUB] = &&sub, [OP_MUL] = &&mul,
		[OP_XOR] = &&xor, [OP_SHL] = &&shl, [OP_SHR] = &&shr, [OP_ADDI] = &&addi,
		[OP_JLT] = &&jlt, [OP_JNE] = &&jne, [OP_LDX] = &&ldx, [OP_STX] = &&stx,
		[OP_DIV] = &&div, [OP_EXIT] = &&exit,
	};
	u32 r[8] = {(u32)a, (u32)b}, mem[8] = {0};
	const struct insn *pc = g_prog;
#define NEXT goto *jt[pc->code]
	NEXT;
movi:	r[pc->dst] = (u32)(s32)pc->imm; pc++; NEXT;
add:	r[pc->dst] += r[pc->src]; pc++; NEXT;
sub:	r[pc->dst] -= r[pc->src]; pc++; NEXT;
mul:	r[pc->dst] *= r[pc->src]; pc++; NEXT;
xor:	r[pc->dst] ^= r[pc->src]; pc++; NEXT;
shl:	r[pc->dst] <<= pc->imm & 31; pc++; NEXT;
shr:	r[pc->dst] >>= pc->imm & 31; pc++; NEXT;
addi:	r[pc->dst] += (u32)(s32)pc->imm; pc++; NEXT;
jlt:	pc += r[pc->dst] < r[pc->src] ? pc->imm : 1; NEXT;
jne:	pc += r[pc->dst] != r[pc->src] ? pc->imm : 1; NEXT;
ldx:	r[pc->dst] = mem[r[pc->src] & 7]; pc++; NEXT;
stx:	mem[r[pc->dst] & 7] = r[pc->src]; pc++; NEXT;
div:	r[pc->dst] = r[pc->src] ? r[pc->dst] / r[pc->src] : 0; pc++; NEXT;
exit:
#undef NEXT
	return (int)(r[0] ^ mem[3]);
}

/* --- the stack: a VLA, alloca, a large frame --- */

static NOINLINE u32 sum_words(const u32 *p, int n)
{
	u32 s = 0;
	for (int i = 0; i < n; i++)
		s = rol32(s, 5) + p[i];
	return s;
}

/* A VLA of n words and an alloca of m bytes, both on the moved stack. */
NOINLINE int g_vla(int n, int m, int seed)
{
	if (n < 1 || n > 64 || m < 1 || m > 256)
		return -1;
	u32 v[n];
	u8 *b = __builtin_alloca(m);
	for (int i = 0; i < n; i++)
		v[i] = (u32)seed * (u32)(i + 1) ^ (u32)i << 7;
	for (int i = 0; i < m; i++)
		b[i] = (u8)(seed + i * 3);
	u32 s = sum_words(v, n);
	for (int i = 0; i < m; i++)
		s += (u32)b[i] << (i & 15);
	return (int)s;
}

struct bigframe {
	u32 hist[256];
	u8 buf[700];
	u16 idx[32];
};

static NOINLINE void fill_frame(struct bigframe *f, u32 seed)
{
	for (int i = 0; i < (int)sizeof f->buf; i++) {
		seed = seed * 1103515245u + 12345u;
		f->buf[i] = (u8)(seed >> 16);
	}
}

/* A frame of 1.8 KiB, cleared by memset (a call, or rep stos / stm). */
NOINLINE int g_bigframe(int seed, int rounds)
{
	struct bigframe f;
	memset(&f, 0, sizeof f);
	fill_frame(&f, (u32)seed);
	for (int r = 0; r < rounds; r++)
		for (int i = 0; i < (int)sizeof f.buf; i++)
			f.hist[f.buf[i] ^ (u8)r]++;
	for (int i = 0; i < 32; i++)
		f.idx[i] = (u16)(f.hist[i * 8] + f.hist[255 - i]);
	return (int)(sum_words(f.hist, 256) ^ f.idx[5] ^ (u32)f.idx[31] << 16);
}

/* --- number formatting, a variadic formatter --- */

/* Digits of a 64-bit value in base 2..36 (a 64-bit division by a
 * variable: __aeabi_uldivmod on ARM, a divide on the others). */
static NOINLINE int u64_to_str(char *out, u64 v, unsigned base)
{
	char tmp[66];
	int n = 0;
	do {
		u64 q = v / base;
		unsigned d = (unsigned)(v - q * base);
		tmp[n++] = (char)(d < 10 ? '0' + d : 'a' + d - 10);
		v = q;
	} while (v);
	for (int i = 0; i < n; i++)
		out[i] = tmp[n - 1 - i];
	out[n] = 0;
	return n;
}

static u32 str_hash(const char *s)
{
	u32 h = 2166136261u;
	while (*s)
		h = (h ^ (u8)*s++) * 16777619u;
	return h;
}

NOINLINE int g_u64fmt(int hi, int lo, int base)
{
	char buf[70];
	u64 v = (u64)(u32)hi << 32 | (u32)lo;
	int n = u64_to_str(buf, v, (unsigned)base);
	u64 r = v % (u64)(base + 7) + v / ((u64)base * base * base + 1);
	return (int)(str_hash(buf) ^ (u32)n << 24 ^ fold(r));
}

/* A small vsnprintf: %d %u %x %s %c %%, with a width for %x. */
static NOINLINE int fmt(char *out, int size, const char *f, ...)
{
	va_list ap;
	int n = 0;
	va_start(ap, f);
	for (; *f && n < size - 1; f++) {
		if (*f != '%') {
			out[n++] = *f;
			continue;
		}
		f++;
		int width = 0;
		while (*f >= '0' && *f <= '9')
			width = width * 10 + *f++ - '0';
		char num[24];
		const char *s = num;
		switch (*f) {
		case 'd': {
			int v = va_arg(ap, int);
			u64 m = v < 0 ? -(u64)v : (u64)v;
			num[0] = '-';
			u64_to_str(num + (v < 0), m, 10);
			break;
		}
		case 'u':
			u64_to_str(num, va_arg(ap, unsigned), 10);
			break;
		case 'x': {
			int k = u64_to_str(num, va_arg(ap, unsigned), 16);
			while (k++ < width && n < size - 1)
				out[n++] = '0';
			break;
		}
		case 's':
			s = va_arg(ap, const char *);
			break;
		case 'c':
			num[0] = (char)va_arg(ap, int);
			num[1] = 0;
			break;
		default:
			num[0] = '%';
			num[1] = 0;
		}
		while (*s && n < size - 1)
			out[n++] = *s++;
	}
	va_end(ap);
	out[n] = 0;
	return n;
}

NOINLINE int g_printf(int a, int b, int c)
{
	char buf[96];
	int n = fmt(buf, sizeof buf, "a=%d b=%u c=%8x [%s] %c%% %d,%d,%d,%x", a, (unsigned)b, (unsigned)c,
		    a < 0 ? "neg" : "pos", 'A' + (b & 15), a + 1, b + 2, c + 3, (unsigned)(a ^ b ^ c));
	return (int)(str_hash(buf) + (u32)n);
}

/* --- tables of pointers, indirect calls --- */

static NOINLINE int op_add(int a, int b) { return a + b; }
static NOINLINE int op_sub(int a, int b) { return a - b; }
static NOINLINE int op_mul(int a, int b) { return a * b; }
static NOINLINE int op_rot(int a, int b) { return (int)rol32((u32)a, (unsigned)b); }

struct op {
	const char *name;
	int (*fn)(int, int);
	int weight;
};

static const struct op g_ops[] = {
	{"add", op_add, 3}, {"sub", op_sub, 5}, {"mul", op_mul, 7}, {"rotate", op_rot, 11},
};

static const char *const g_words[] = {"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"};

/* A writable ops structure (.data, relocated to text), changed at run time. */
struct ops_vec {
	int (*combine)(int, int);
	int (*finish)(int, int);
};
static struct ops_vec g_vec = {op_add, op_rot};

static const struct op *find_op(const char *name)
{
	for (unsigned i = 0; i < sizeof g_ops / sizeof g_ops[0]; i++) {
		const char *p = g_ops[i].name, *q = name;
		while (*p && *p == *q)
			p++, q++;
		if (*p == *q)
			return &g_ops[i];
	}
	return 0;
}

NOINLINE int g_optable(int a, int b, int k)
{
	int r = 0;
	for (int i = 0; i < 8; i++) {
		const struct op *o = find_op(g_ops[(i + k) & 3].name);
		r = o->fn(r + a, b + i) * o->weight + (int)str_hash(g_words[(i * 3 + k) & 7]);
	}
	g_vec.finish = (k & 1) ? op_sub : op_rot;
	r = g_vec.combine(r, a);
	r = g_vec.finish(r, b & 31);
	g_vec.finish = op_rot;
	return r;
}

/* An indirect tail call: the callee returns straight to our caller. */
NOINLINE int g_tailptr(int sel, int a, int b)
{
	int (*f)(int, int) = g_ops[sel & 3].fn;
	return f(a ^ 0x55, b + 1);
}

/* --- structs by hidden pointer and by value --- */

struct box {
	s32 x0, y0, x1, y1;
	u32 flags;
	u64 area;
	u32 tag[4];
};

static NOINLINE struct box make_box(int a, int b, int c)
{
	struct box r;
	r.x0 = a < b ? a : b;
	r.x1 = a < b ? b : a;
	r.y0 = c - 5;
	r.y1 = c * 3;
	r.flags = (u32)(a ^ b) & 0xff;
	r.area = (u64)(u32)(r.x1 - r.x0) * (u32)(r.y1 - r.y0);
	for (int i = 0; i < 4; i++)
		r.tag[i] = (u32)(a * (i + 1) + c);
	return r;
}

static NOINLINE u32 box_digest(struct box b, int salt)
{
	return fold(b.area) ^ (u32)(b.x0 + b.y1 * 7) ^ b.flags << 8 ^ b.tag[salt & 3] ^ b.tag[3];
}

static NOINLINE struct box box_union(struct box a, struct box b)
{
	struct box r = a;
	r.x0 = a.x0 < b.x0 ? a.x0 : b.x0;
	r.y0 = a.y0 < b.y0 ? a.y0 : b.y0;
	r.x1 = a.x1 > b.x1 ? a.x1 : b.x1;
	r.y1 = a.y1 > b.y1 ? a.y1 : b.y1;
	r.flags |= b.flags;
	r.area = (u64)(u32)(r.x1 - r.x0) * (u32)(r.y1 - r.y0);
	return r;
}

NOINLINE int g_structs(int a, int b, int c)
{
	struct box p = make_box(a, b, c), q = make_box(b, c, a);
	struct box u = box_union(p, q);
	return (int)(box_digest(u, a) + box_digest(p, b) * 3);
}

/* --- bit fields, bit tests, packed fields --- */

struct pte {
	u64 present : 1, rw : 1, user : 1, pwt : 1, pcd : 1, accessed : 1, dirty : 1, huge : 1;
	u64 pfn : 40;
	u64 avail : 11;
	u64 nx : 1;
};

struct sflags {
	s32 delta : 7;
	u32 kind : 3;
	s32 level : 5;
	u32 rest : 17;
};

static NOINLINE void pte_age(struct pte *p, int n)
{
	for (int i = 0; i < n; i++) {
		p[i].accessed = !p[i].accessed;
		p[i].pfn += (u64)i << 20;
		p[i].avail ^= (u64)i * 37;
		p[i].dirty |= p[i].rw & p[i].accessed;
	}
}

NOINLINE int g_bitfields(int a, int b, int n)
{
	struct pte t[8];
	struct sflags s[4];
	for (int i = 0; i < 8; i++) {
		t[i] = (struct pte){0};
		t[i].present = 1;
		t[i].rw = (u64)(a >> i) & 1;
		t[i].pfn = (u64)(u32)b * (u64)(i + 1) * 0x10001ull;
		t[i].nx = i & 1;
	}
	pte_age(t, n & 7);
	for (int i = 0; i < 4; i++) {
		s[i].delta = a - i * 40;
		s[i].kind = (u32)b + (u32)i;
		s[i].level = -i * 5 + b;
		s[i].rest = (u32)a * 977u;
	}
	u64 h = 0;
	for (int i = 0; i < 8; i++) {
		u64 w;
		memcpy(&w, &t[i], sizeof w);
		h = h * 31 + w + t[i].pfn + t[i].dirty;
	}
	for (int i = 0; i < 4; i++)
		h += (u64)(s64)(s[i].delta * 3 + s[i].level) ^ s[i].kind ^ s[i].rest;
	return (int)fold(h);
}

/* A switch whose cases gcc tests as bits of a mask. */
static NOINLINE int char_class(int c)
{
	switch (c) {
	case ' ': case '\t': case '\n': case '\r': case '\f': case '\v':
		return 1;
	case '(': case ')': case '[': case ']': case '{': case '}':
		return 2;
	case '+': case '-': case '*': case '/': case '%': case '^': case '&': case '|':
		return 3;
	case ',': case ';': case ':':
		return 4;
	default:
		return 0;
	}
}

NOINLINE int g_classify(int seed, int n)
{
	int counts[5] = {0};
	u32 x = (u32)seed;
	for (int i = 0; i < n; i++) {
		x = x * 1664525u + 1013904223u;
		counts[char_class((int)(x >> 24) & 0x7f)]++;
	}
	return counts[0] | counts[1] << 6 | counts[2] << 12 | counts[3] << 18 | counts[4] << 24;
}

struct __attribute__((packed)) wire_hdr {
	u8 ver;
	u32 seq;
	u16 len;
	u64 stamp;
	u8 flags;
	u32 csum;
};

static NOINLINE u32 parse_hdrs(const u8 *buf, int n)
{
	u32 s = 0;
	for (int i = 0; i < n; i++) {
		const struct wire_hdr *h = (const void *)(buf + i * sizeof(struct wire_hdr) + (i & 1));
		s += h->ver + h->seq + h->len + fold(h->stamp) + h->flags + h->csum;
		s = rol32(s, 3);
	}
	return s;
}

NOINLINE int g_packed(int a, int b)
{
	u8 buf[4 * sizeof(struct wire_hdr) + 4];
	for (unsigned i = 0; i < sizeof buf; i++)
		buf[i] = (u8)((u32)a * i + (u32)b);
	struct wire_hdr *h = (void *)(buf + 1);
	h->seq = (u32)a;
	h->stamp = (u64)(u32)b << 20 | 7;
	return (int)parse_hdrs(buf, 4);
}

/* --- lists --- */

struct list_head {
	struct list_head *next, *prev;
};

struct hlist_node {
	struct hlist_node *next, **pprev;
};

struct item {
	u32 key;
	struct list_head lru;
	struct hlist_node hash;
	u32 val;
};

static inline void list_init(struct list_head *h) { h->next = h->prev = h; }
static NOINLINE void list_add_tail(struct list_head *n, struct list_head *h)
{
	n->prev = h->prev;
	n->next = h;
	h->prev->next = n;
	h->prev = n;
}
static NOINLINE void list_del(struct list_head *n)
{
	n->prev->next = n->next;
	n->next->prev = n->prev;
	n->next = n->prev = 0;
}
static inline void hlist_add_head(struct hlist_node *n, struct hlist_node **h)
{
	n->next = *h;
	if (*h)
		(*h)->pprev = &n->next;
	*h = n;
	n->pprev = h;
}

/* An LRU of 12 items with an 8-bucket hash: lookups move to the tail,
 * the head is evicted. */
NOINLINE int g_lru(int seed, int ops)
{
	struct item it[12];
	struct hlist_node *buckets[8] = {0};
	struct list_head lru;
	list_init(&lru);
	for (int i = 0; i < 12; i++) {
		it[i].key = (u32)seed * (u32)(i + 3) % 101;
		it[i].val = (u32)i;
		it[i].hash.next = 0;
		it[i].hash.pprev = 0;
		list_add_tail(&it[i].lru, &lru);
		hlist_add_head(&it[i].hash, &buckets[it[i].key & 7]);
	}
	u32 hits = 0, x = (u32)seed;
	for (int k = 0; k < ops; k++) {
		x = x * 69069u + 1;
		u32 key = x % 101;
		struct hlist_node *n;
		for (n = buckets[key & 7]; n; n = n->next) {
			struct item *e = container_of(n, struct item, hash);
			if (e->key == key) {
				hits += e->val + 1;
				list_del(&e->lru);
				list_add_tail(&e->lru, &lru);
				break;
			}
		}
		if (!n) {
			struct item *old = container_of(lru.next, struct item, lru);
			list_del(&old->lru);
			*old->hash.pprev = old->hash.next;
			if (old->hash.next)
				old->hash.next->pprev = old->hash.pprev;
			old->key = key;
			old->val = (u32)k;
			hlist_add_head(&old->hash, &buckets[key & 7]);
			list_add_tail(&old->lru, &lru);
		}
	}
	u32 order = 0;
	for (struct list_head *p = lru.next; p != &lru; p = p->next)
		order = order * 13 + container_of(p, struct item, lru)->key;
	return (int)(order ^ hits << 16);
}

/* --- state in .bss, weak symbols, sections, notrace --- */

static u32 g_crc_table[256];
static int g_crc_ready;

static NOINLINE void crc_init(void)
{
	for (u32 i = 0; i < 256; i++) {
		u32 c = i;
		for (int k = 0; k < 8; k++)
			c = c & 1 ? 0xedb88320u ^ c >> 1 : c >> 1;
		g_crc_table[i] = c;
	}
	g_crc_ready = 1;
}

/* CRC-32 with a table built lazily, on the first call, in .bss. */
NOINLINE int g_lazycrc(int seed, int n)
{
	if (!g_crc_ready)
		crc_init();
	u32 c = ~0u, x = (u32)seed;
	for (int i = 0; i < n; i++) {
		x = x * 1103515245u + 12345u;
		c = g_crc_table[(c ^ x >> 16) & 0xff] ^ c >> 8;
	}
	return (int)~c;
}

/* A weak default the object defines (an arch would override it). */
__attribute__((weak)) NOINLINE int g_arch_hook(int x) { return x * 5 + 1; }

/* A hook nobody defines: a static link makes its address 0. */
extern int g_missing_hook(int x) __attribute__((weak));

NOINLINE int g_weak(int a, int b)
{
	int r = g_arch_hook(a);
	if (g_missing_hook)
		r += g_missing_hook(b);
	else
		r -= b * 3;
	return r;
}

/* An error path in .text.unlikely, and a helper in a section of its own
 * (as __init or __sched code is). */
static NOINLINE __attribute__((cold)) int report_bad(int code, int v)
{
	u32 h = (u32)code * 2654435761u;
	for (int i = 0; i < 5; i++)
		h = rol32(h ^ (u32)v, 7) + (u32)i;
	return (int)(h & 0xffff) | 0x10000;
}

static NOINLINE __attribute__((section(".text.lib_sec"))) int sec_helper(int a, int b)
{
	return a * 7 - b * 3 + (a ^ b);
}

NOINLINE int g_sections(int a, int b)
{
	int r = 0;
	for (int i = 0; i < 6; i++) {
		int v = a + i * b;
		if (__builtin_expect(v % 5 == 0, 0))
			r += report_bad(i, v);
		else
			r += sec_helper(v, i);
	}
	return r;
}

static NOINLINE NOTRACE u32 quiet_mix(u32 x, u32 y)
{
	x ^= y;
	x *= 0x9e3779b1u;
	return x ^ x >> 15;
}

static NOINLINE u32 loud_mix(u32 x, u32 y) { return quiet_mix(y, x) + 1; }

/* A traced function calling a notrace one (no site) and a traced one. */
NOINLINE int g_notrace(int a, int b)
{
	u32 r = (u32)a;
	for (int i = 0; i < 4; i++)
		r = quiet_mix(r, (u32)b + (u32)i) ^ loud_mix(r, (u32)i);
	return (int)r;
}

/* Recursion with a frame of locals at each level (a tree walk). */
static NOINLINE u32 walk(u32 node, int depth)
{
	u32 kids[4];
	if (depth == 0)
		return node * 2654435761u >> 20;
	for (int i = 0; i < 4; i++)
		kids[i] = node * 4 + (u32)i;
	u32 s = 0;
	for (int i = 0; i < (int)(node & 1) + 1; i++)
		s += walk(kids[(i + (int)node) & 3], depth - 1);
	return s ^ kids[node & 3];
}

NOINLINE int g_walk(int root, int depth)
{
	if (depth < 0 || depth > 8)
		return -1;
	return (int)walk((u32)root, depth);
}
