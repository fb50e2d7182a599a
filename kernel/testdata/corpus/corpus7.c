/* The seventh corpus of issue 21: more lib/-, musl- and zlib-shaped code,
 * written for mcountsim (none is copied from Linux, musl or zlib): a
 * SHA-256 compression with its round constants in .rodata, a KMP text
 * search with a resumable state (ts_kmp), red-black tree insertion with
 * the parent pointer and colour packed in one word, base64 both ways with
 * a reverse table built on the stack, a poly1305 block function on 26-bit
 * limbs, a DER walker that recurses into constructed types, a UUID and a
 * MAC address parsed through a 256-entry ctype table and a branch-free
 * hex_to_bin, fixed-point log2 and log10 by table interpolation, trial
 * division (libgcc's divisions on ARM), an AES-128 encryption with the
 * S-box computed by the 3-generator walk, memmem with sliding-window
 * matches for needles of two to four bytes, a cpu-list parser
 * (bitmap_parselist), a GF(2^8) BCH decoder (syndromes, Berlekamp-Massey,
 * Chien search), and an inflater for one fixed-Huffman deflate block.
 * The rules of corpus.c: every exported function takes at most six int
 * arguments and returns an int-sized value; calls7.txt gives the calls. */

typedef unsigned char u8;
typedef signed char s8;
typedef unsigned short u16;
typedef unsigned int u32;
typedef int s32;
typedef unsigned long ulong;
typedef unsigned long long u64;
typedef long long s64;

#define NOINLINE __attribute__((noinline))

void *memcpy(void *, const void *, ulong);
void *memset(void *, int, ulong);

static inline u32 rol32(u32 x, int n) { return x << (n & 31) | x >> (-n & 31); }
static inline u32 ror32(u32 x, int n) { return x >> (n & 31) | x << (-n & 31); }
static inline u32 get_be32(const u8 *p) { return (u32)p[0] << 24 | (u32)p[1] << 16 | (u32)p[2] << 8 | p[3]; }
static inline u32 get_le32(const u8 *p) { return (u32)p[3] << 24 | (u32)p[2] << 16 | (u32)p[1] << 8 | p[0]; }
static inline void put_be32(u8 *p, u32 v)
{
	p[0] = (u8)(v >> 24);
	p[1] = (u8)(v >> 16);
	p[2] = (u8)(v >> 8);
	p[3] = (u8)v;
}
static inline u32 lcg(u32 *x) { return *x = *x * 1664525u + 1013904223u; }

/* ---- SHA-256: one or two padded blocks of a message made from the args. */

static const u32 sha256_k[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5,
	0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
	0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
	0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
	0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc,
	0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
	0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
	0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
	0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
	0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3,
	0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5,
	0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
	0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static NOINLINE void sha256_block(u32 *st, const u8 *p)
{
	u32 w[64];
	for (int i = 0; i < 16; i++)
		w[i] = get_be32(p + 4 * i);
	for (int i = 16; i < 64; i++) {
		u32 x = w[i - 15], y = w[i - 2];
		u32 s0 = ror32(x, 7) ^ ror32(x, 18) ^ x >> 3;
		u32 s1 = ror32(y, 17) ^ ror32(y, 19) ^ y >> 10;
		w[i] = w[i - 16] + s0 + w[i - 7] + s1;
	}
	u32 a = st[0], b = st[1], c = st[2], d = st[3];
	u32 e = st[4], f = st[5], g = st[6], h = st[7];
	for (int i = 0; i < 64; i++) {
		u32 t1 = h + (ror32(e, 6) ^ ror32(e, 11) ^ ror32(e, 25)) + (g ^ (e & (f ^ g))) + sha256_k[i] + w[i];
		u32 t2 = (ror32(a, 2) ^ ror32(a, 13) ^ ror32(a, 22)) + ((a & b) | (c & (a | b)));
		h = g;
		g = f;
		f = e;
		e = d + t1;
		d = c;
		c = b;
		b = a;
		a = t1 + t2;
	}
	st[0] += a;
	st[1] += b;
	st[2] += c;
	st[3] += d;
	st[4] += e;
	st[5] += f;
	st[6] += g;
	st[7] += h;
}

/* Byte i of the message is byte i%4 of seed plus i*step; ("abc" is
 * m_sha256(0x636261, 0, 3)). The digest's words are folded. */
NOINLINE int m_sha256(int seed, int step, int len)
{
	u8 buf[128];
	u32 st[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
	if (len < 0 || len > 119)
		return -22;
	for (int i = 0; i < len; i++)
		buf[i] = (u8)((u32)seed >> (i & 3) * 8) + (u8)(i * step);
	int total = len + 9 <= 64 ? 64 : 128;
	buf[len] = 0x80;
	memset(buf + len + 1, 0, total - len - 1);
	u64 bits = (u64)len << 3;
	put_be32(buf + total - 8, (u32)(bits >> 32));
	put_be32(buf + total - 4, (u32)bits);
	for (int off = 0; off < total; off += 64)
		sha256_block(st, buf + off);
	u32 r = 0;
	for (int i = 0; i < 8; i++)
		r = rol32(r, 5) ^ st[i];
	return (int)r;
}

/* ---- KMP (ts_kmp-shaped): a prefix table, then a search that can be
 * resumed after each match (overlapping matches count). */

struct kmp_state {
	int pos, q;
};

static NOINLINE void kmp_prefix(const u8 *pat, int m, int *pi)
{
	int k = 0;
	pi[0] = 0;
	for (int q = 1; q < m; q++) {
		while (k > 0 && pat[k] != pat[q])
			k = pi[k - 1];
		if (pat[k] == pat[q])
			k++;
		pi[q] = k;
	}
}

static NOINLINE int kmp_find(const u8 *text, int n, const u8 *pat, int m, const int *pi, struct kmp_state *s)
{
	int q = s->q;
	for (int i = s->pos; i < n; i++) {
		while (q > 0 && pat[q] != text[i])
			q = pi[q - 1];
		if (pat[q] == text[i])
			q++;
		if (q == m) {
			s->pos = i + 1;
			s->q = pi[m - 1];
			return i + 1 - m;
		}
	}
	s->pos = n;
	s->q = q;
	return -1;
}

/* The text: 192 letters of {a, a, b, c} from seed; the pattern: m letters
 * of it from offset from. */
NOINLINE int m_kmp(int seed, int from, int m)
{
	u8 text[192], pat[24];
	int pi[24];
	u32 x = (u32)seed;
	if (m < 1 || m > 24 || from < 0 || from + m > 192)
		return -22;
	for (int i = 0; i < 192; i++)
		text[i] = (u8)"aabc"[lcg(&x) >> 30];
	memcpy(pat, text + from, m);
	kmp_prefix(pat, m, pi);
	u32 ph = 0;
	for (int i = 0; i < m; i++)
		ph = ph * 3 + pi[i];
	struct kmp_state s = {0, 0};
	int count = 0, first = -1, sum = 0, at;
	while ((at = kmp_find(text, 192, pat, m, pi, &s)) >= 0) {
		if (first < 0)
			first = at;
		count++;
		sum += at;
	}
	return count << 24 | (first & 0xff) << 16 | (u16)(sum * 7 + ph);
}

/* ---- Red-black tree insertion, Linux-shaped: the parent pointer and the
 * colour share one word, the node is embedded in the keyed struct, the
 * insertion walks links and the rebalancing (a noinline helper) rotates. */

struct rb_node {
	ulong parent_color;
	struct rb_node *right, *left;
} __attribute__((aligned(sizeof(long))));

struct rb_root {
	struct rb_node *node;
};

#define RB_RED 0
#define RB_BLACK 1

static inline struct rb_node *rb_parent(const struct rb_node *n) { return (struct rb_node *)(n->parent_color & ~3ul); }
static inline int rb_is_black(const struct rb_node *n) { return n->parent_color & RB_BLACK; }
static inline void rb_set_parent(struct rb_node *n, struct rb_node *p) { n->parent_color = (ulong)p | (n->parent_color & 3); }
static inline void rb_set_color(struct rb_node *n, int c) { n->parent_color = (n->parent_color & ~1ul) | c; }

static inline void rb_replace_child(struct rb_node *old, struct rb_node *new, struct rb_node *parent, struct rb_root *root)
{
	if (!parent)
		root->node = new;
	else if (parent->left == old)
		parent->left = new;
	else
		parent->right = new;
}

/* x's right child takes x's place; the colours stay with the nodes. */
static void rb_rotate_left(struct rb_node *x, struct rb_root *root)
{
	struct rb_node *y = x->right, *p = rb_parent(x);
	x->right = y->left;
	if (y->left)
		rb_set_parent(y->left, x);
	y->left = x;
	rb_set_parent(y, p);
	rb_set_parent(x, y);
	rb_replace_child(x, y, p, root);
}

static void rb_rotate_right(struct rb_node *x, struct rb_root *root)
{
	struct rb_node *y = x->left, *p = rb_parent(x);
	x->left = y->right;
	if (y->right)
		rb_set_parent(y->right, x);
	y->right = x;
	rb_set_parent(y, p);
	rb_set_parent(x, y);
	rb_replace_child(x, y, p, root);
}

static NOINLINE void rb_insert_color(struct rb_node *node, struct rb_root *root)
{
	for (;;) {
		struct rb_node *parent = rb_parent(node), *gparent, *uncle;
		if (!parent) {
			rb_set_color(node, RB_BLACK);
			return;
		}
		if (rb_is_black(parent))
			return;
		gparent = rb_parent(parent);
		if (parent == gparent->left) {
			uncle = gparent->right;
			if (uncle && !rb_is_black(uncle)) {
				rb_set_color(uncle, RB_BLACK);
				rb_set_color(parent, RB_BLACK);
				rb_set_color(gparent, RB_RED);
				node = gparent;
				continue;
			}
			if (node == parent->right) {
				rb_rotate_left(parent, root);
				parent = node;
			}
			rb_rotate_right(gparent, root);
		} else {
			uncle = gparent->left;
			if (uncle && !rb_is_black(uncle)) {
				rb_set_color(uncle, RB_BLACK);
				rb_set_color(parent, RB_BLACK);
				rb_set_color(gparent, RB_RED);
				node = gparent;
				continue;
			}
			if (node == parent->left) {
				rb_rotate_right(parent, root);
				parent = node;
			}
			rb_rotate_left(gparent, root);
		}
		rb_set_color(parent, RB_BLACK);
		rb_set_color(gparent, RB_RED);
		return;
	}
}

struct knode {
	int key;
	struct rb_node rb;
};

#define rb_to_knode(p) ((struct knode *)((char *)(p) - __builtin_offsetof(struct knode, rb)))

static NOINLINE void knode_insert(struct rb_root *root, struct knode *kn)
{
	struct rb_node **link = &root->node, *parent = 0;
	while (*link) {
		parent = *link;
		link = kn->key < rb_to_knode(parent)->key ? &parent->left : &parent->right;
	}
	kn->rb.left = kn->rb.right = 0;
	kn->rb.parent_color = (ulong)parent | RB_RED;
	*link = &kn->rb;
	rb_insert_color(&kn->rb, root);
}

static NOINLINE struct rb_node *rb_next(const struct rb_node *n)
{
	struct rb_node *p;
	if (n->right) {
		n = n->right;
		while (n->left)
			n = n->left;
		return (struct rb_node *)n;
	}
	while ((p = rb_parent(n)) && n == p->right)
		n = p;
	return p;
}

/* The black height of the subtree at n, or -1 when a red node has a red
 * child, two paths differ, or a parent pointer is wrong. */
static NOINLINE int rb_black_height(const struct rb_node *n, const struct rb_node *parent)
{
	if (!n)
		return 1;
	if (rb_parent(n) != parent || (!rb_is_black(n) && parent && !rb_is_black(parent)))
		return -1;
	int l = rb_black_height(n->left, n), r = rb_black_height(n->right, n);
	if (l < 0 || l != r)
		return -1;
	return l + rb_is_black(n);
}

NOINLINE int m_rbtree(int seed, int n, int mod)
{
	struct knode nodes[64];
	struct rb_root root = {0};
	u32 x = (u32)seed;
	if (n < 0 || n > 64 || mod <= 0)
		return -22;
	for (int i = 0; i < n; i++) {
		nodes[i].key = (int)((lcg(&x) >> 8) % (u32)mod);
		knode_insert(&root, &nodes[i]);
	}
	if (root.node && !rb_is_black(root.node))
		return -2;
	int bh = rb_black_height(root.node, 0);
	if (bh < 0)
		return -3;
	u32 h = 0;
	int count = 0, prev = -1;
	struct rb_node *p = root.node;
	while (p && p->left)
		p = p->left;
	for (; p; p = rb_next(p)) {
		int k = rb_to_knode(p)->key;
		if (k < prev)
			return -4;
		prev = k;
		h = h * 31 + (u32)k;
		count++;
	}
	if (count != n)
		return -5;
	return (int)((h & 0xffff) | (u32)bh << 16 | (u32)count << 24);
}

/* ---- base64 (RFC 4648, with '=' padding): encode, then decode with a
 * reverse table built on the stack; non-canonical trailing bits and any
 * character after a pad are errors. */

static const char b64_chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static NOINLINE int b64_encode(const u8 *src, int len, char *dst)
{
	char *p = dst;
	int i;
	for (i = 0; i + 2 < len; i += 3) {
		u32 v = (u32)src[i] << 16 | (u32)src[i + 1] << 8 | src[i + 2];
		*p++ = b64_chars[v >> 18];
		*p++ = b64_chars[v >> 12 & 63];
		*p++ = b64_chars[v >> 6 & 63];
		*p++ = b64_chars[v & 63];
	}
	if (i < len) {
		u32 v = (u32)src[i] << 16;
		if (i + 1 < len)
			v |= (u32)src[i + 1] << 8;
		*p++ = b64_chars[v >> 18];
		*p++ = b64_chars[v >> 12 & 63];
		*p++ = i + 1 < len ? b64_chars[v >> 6 & 63] : '=';
		*p++ = '=';
	}
	*p = 0;
	return (int)(p - dst);
}

static NOINLINE int b64_decode(const char *src, int len, u8 *dst, const s8 *rev)
{
	u32 acc = 0;
	int bits = 0, pad = 0;
	u8 *p = dst;
	if (len & 3)
		return -22;
	for (int i = 0; i < len; i++) {
		u8 c = (u8)src[i];
		if (c == '=') {
			if (i < len - 2)
				return -22;
			pad++;
			continue;
		}
		if (pad)
			return -22;
		int v = rev[c];
		if (v < 0)
			return -22;
		acc = acc << 6 | (u32)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			*p++ = (u8)(acc >> bits);
		}
	}
	if (acc & ((1u << bits) - 1))
		return -74;
	return (int)(p - dst);
}

/* len bytes from seed, encoded; when bad is 1..len, character bad-1 of the
 * encoding is replaced by what (a byte) before the decode. */
NOINLINE int m_base64(int seed, int len, int bad, int what)
{
	u8 raw[48], back[48];
	char enc[72];
	s8 rev[256];
	u32 x = (u32)seed;
	if (len < 0 || len > 48)
		return -1;
	for (int i = 0; i < len; i++)
		raw[i] = (u8)(lcg(&x) >> 24);
	int elen = b64_encode(raw, len, enc);
	memset(rev, -1, sizeof rev);
	for (int i = 0; i < 64; i++)
		rev[(u8)b64_chars[i]] = (s8)i;
	if (bad > 0 && bad <= elen)
		enc[bad - 1] = (char)what;
	u32 h = 2166136261u;
	for (int i = 0; i < elen; i++)
		h = (h ^ (u8)enc[i]) * 16777619u;
	int dlen = b64_decode(enc, elen, back, rev);
	u32 err;
	if (dlen < 0)
		err = (u32)-dlen;
	else if (dlen != len)
		err = 200;
	else {
		err = 0;
		for (int i = 0; i < len; i++)
			if (back[i] != raw[i])
				err = 201;
	}
	return (int)((h & 0xffff00u) | (u32)elen << 24 | err);
}

/* ---- poly1305 on 26-bit limbs (the donna-32 shape): h = (h + m) * r mod
 * 2^130 - 5 for each 16-byte block, 32x32->64 products, carries. */

struct poly1305 {
	u32 r[5], h[5], pad[4];
};

static NOINLINE void poly1305_init(struct poly1305 *st, const u8 *key)
{
	st->r[0] = get_le32(key) & 0x3ffffff;
	st->r[1] = get_le32(key + 3) >> 2 & 0x3ffff03;
	st->r[2] = get_le32(key + 6) >> 4 & 0x3ffc0ff;
	st->r[3] = get_le32(key + 9) >> 6 & 0x3f03fff;
	st->r[4] = get_le32(key + 12) >> 8 & 0x00fffff;
	for (int i = 0; i < 5; i++)
		st->h[i] = 0;
	for (int i = 0; i < 4; i++)
		st->pad[i] = get_le32(key + 16 + 4 * i);
}

static NOINLINE void poly1305_blocks(struct poly1305 *st, const u8 *m, int bytes, u32 hibit)
{
	const u32 mask = 0x3ffffff;
	u32 r0 = st->r[0], r1 = st->r[1], r2 = st->r[2], r3 = st->r[3], r4 = st->r[4];
	u32 s1 = r1 * 5, s2 = r2 * 5, s3 = r3 * 5, s4 = r4 * 5;
	u32 h0 = st->h[0], h1 = st->h[1], h2 = st->h[2], h3 = st->h[3], h4 = st->h[4];
	for (; bytes >= 16; m += 16, bytes -= 16) {
		h0 += get_le32(m) & mask;
		h1 += get_le32(m + 3) >> 2 & mask;
		h2 += get_le32(m + 6) >> 4 & mask;
		h3 += get_le32(m + 9) >> 6 & mask;
		h4 += get_le32(m + 12) >> 8 | hibit;
		u64 d0 = (u64)h0 * r0 + (u64)h1 * s4 + (u64)h2 * s3 + (u64)h3 * s2 + (u64)h4 * s1;
		u64 d1 = (u64)h0 * r1 + (u64)h1 * r0 + (u64)h2 * s4 + (u64)h3 * s3 + (u64)h4 * s2;
		u64 d2 = (u64)h0 * r2 + (u64)h1 * r1 + (u64)h2 * r0 + (u64)h3 * s4 + (u64)h4 * s3;
		u64 d3 = (u64)h0 * r3 + (u64)h1 * r2 + (u64)h2 * r1 + (u64)h3 * r0 + (u64)h4 * s4;
		u64 d4 = (u64)h0 * r4 + (u64)h1 * r3 + (u64)h2 * r2 + (u64)h3 * r1 + (u64)h4 * r0;
		u32 c = (u32)(d0 >> 26);
		h0 = (u32)d0 & mask;
		d1 += c;
		c = (u32)(d1 >> 26);
		h1 = (u32)d1 & mask;
		d2 += c;
		c = (u32)(d2 >> 26);
		h2 = (u32)d2 & mask;
		d3 += c;
		c = (u32)(d3 >> 26);
		h3 = (u32)d3 & mask;
		d4 += c;
		c = (u32)(d4 >> 26);
		h4 = (u32)d4 & mask;
		h0 += c * 5;
		c = h0 >> 26;
		h0 &= mask;
		h1 += c;
	}
	st->h[0] = h0;
	st->h[1] = h1;
	st->h[2] = h2;
	st->h[3] = h3;
	st->h[4] = h4;
}

static NOINLINE void poly1305_final(struct poly1305 *st, u32 *tag)
{
	const u32 mask = 0x3ffffff;
	u32 h0 = st->h[0], h1 = st->h[1], h2 = st->h[2], h3 = st->h[3], h4 = st->h[4], c;
	c = h1 >> 26; h1 &= mask; h2 += c;
	c = h2 >> 26; h2 &= mask; h3 += c;
	c = h3 >> 26; h3 &= mask; h4 += c;
	c = h4 >> 26; h4 &= mask; h0 += c * 5;
	c = h0 >> 26; h0 &= mask; h1 += c;
	/* g = h + 5 - 2^130: taken when it does not borrow */
	u32 g0 = h0 + 5;
	c = g0 >> 26; g0 &= mask;
	u32 g1 = h1 + c;
	c = g1 >> 26; g1 &= mask;
	u32 g2 = h2 + c;
	c = g2 >> 26; g2 &= mask;
	u32 g3 = h3 + c;
	c = g3 >> 26; g3 &= mask;
	u32 g4 = h4 + c - (1u << 26);
	u32 keep = (g4 >> 31) - 1;
	h0 = (h0 & ~keep) | (g0 & keep);
	h1 = (h1 & ~keep) | (g1 & keep);
	h2 = (h2 & ~keep) | (g2 & keep);
	h3 = (h3 & ~keep) | (g3 & keep);
	h4 = (h4 & ~keep) | (g4 & keep);
	u32 w0 = h0 | h1 << 26, w1 = h1 >> 6 | h2 << 20, w2 = h2 >> 12 | h3 << 14, w3 = h3 >> 18 | h4 << 8;
	u64 f = (u64)w0 + st->pad[0];
	tag[0] = (u32)f;
	f = (u64)w1 + st->pad[1] + (f >> 32);
	tag[1] = (u32)f;
	f = (u64)w2 + st->pad[2] + (f >> 32);
	tag[2] = (u32)f;
	f = (u64)w3 + st->pad[3] + (f >> 32);
	tag[3] = (u32)f;
}

/* A 32-byte key from kseed, len (at most 96) message bytes from mseed;
 * the last partial block is padded with a 1 byte. */
NOINLINE int m_poly1305(int kseed, int mseed, int len)
{
	u8 key[32], msg[96], last[16];
	struct poly1305 st;
	u32 tag[4], x = (u32)kseed;
	if (len < 0 || len > 96)
		return -22;
	for (int i = 0; i < 32; i++)
		key[i] = (u8)(lcg(&x) >> 24);
	x = (u32)mseed;
	for (int i = 0; i < len; i++)
		msg[i] = (u8)(lcg(&x) >> 24);
	poly1305_init(&st, key);
	int full = len & ~15;
	poly1305_blocks(&st, msg, full, 1u << 24);
	if (len > full) {
		memset(last, 0, sizeof last);
		memcpy(last, msg + full, len - full);
		last[len - full] = 1;
		poly1305_blocks(&st, last, 16, 0);
	}
	poly1305_final(&st, tag);
	return (int)(tag[0] ^ rol32(tag[1], 8) ^ rol32(tag[2], 16) ^ rol32(tag[3], 24));
}

/* ---- A DER walker: tag, definite length (short form, or long form of one
 * or two bytes, minimal), value; constructed SEQUENCE, SET and context
 * types are walked recursively, primitive ones folded by type. Lengths
 * past the enclosing value, indefinite or non-minimal lengths, and bad
 * primitive encodings are -74 (EBADMSG). */

static const u8 der_blob[] = {
	0x30, 0x82, 0x01, 0x01, 0x02, 0x01, 0x02, 0x02, 0x09, 0x00, 0xc3, 0x5a,
	0x11, 0x09, 0x87, 0x65, 0x43, 0xab, 0x30, 0x0d, 0x06, 0x09, 0x2a, 0x86,
	0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x0b, 0x05, 0x00, 0xa0, 0x03, 0x02,
	0x01, 0x05, 0x01, 0x01, 0xff, 0x04, 0x81, 0x8f, 0x0b, 0x30, 0x55, 0x7a,
	0x9f, 0xc4, 0xe9, 0x0e, 0x33, 0x58, 0x7d, 0xa2, 0xc7, 0xec, 0x11, 0x36,
	0x5b, 0x80, 0xa5, 0xca, 0xef, 0x14, 0x39, 0x5e, 0x83, 0xa8, 0xcd, 0xf2,
	0x17, 0x3c, 0x61, 0x86, 0xab, 0xd0, 0xf5, 0x1a, 0x3f, 0x64, 0x89, 0xae,
	0xd3, 0xf8, 0x1d, 0x42, 0x67, 0x8c, 0xb1, 0xd6, 0xfb, 0x20, 0x45, 0x6a,
	0x8f, 0xb4, 0xd9, 0xfe, 0x23, 0x48, 0x6d, 0x92, 0xb7, 0xdc, 0x01, 0x26,
	0x4b, 0x70, 0x95, 0xba, 0xdf, 0x04, 0x29, 0x4e, 0x73, 0x98, 0xbd, 0xe2,
	0x07, 0x2c, 0x51, 0x76, 0x9b, 0xc0, 0xe5, 0x0a, 0x2f, 0x54, 0x79, 0x9e,
	0xc3, 0xe8, 0x0d, 0x32, 0x57, 0x7c, 0xa1, 0xc6, 0xeb, 0x10, 0x35, 0x5a,
	0x7f, 0xa4, 0xc9, 0xee, 0x13, 0x38, 0x5d, 0x82, 0xa7, 0xcc, 0xf1, 0x16,
	0x3b, 0x60, 0x85, 0xaa, 0xcf, 0xf4, 0x19, 0x3e, 0x63, 0x88, 0xad, 0xd2,
	0xf7, 0x1c, 0x41, 0x66, 0x8b, 0xb0, 0xd5, 0xfa, 0x1f, 0x44, 0x69, 0x8e,
	0xb3, 0xd8, 0xfd, 0x22, 0x47, 0x6c, 0x91, 0x03, 0x04, 0x06, 0x6e, 0x5d,
	0xc0, 0x0c, 0x0c, 0x68, 0x65, 0x6c, 0x6c, 0x6f, 0x2c, 0x20, 0x77, 0x6f,
	0x72, 0x6c, 0x64, 0x31, 0x16, 0x13, 0x02, 0x55, 0x53, 0x13, 0x0b, 0x45,
	0x78, 0x61, 0x6d, 0x70, 0x6c, 0x65, 0x20, 0x4f, 0x72, 0x67, 0x82, 0x03,
	0x01, 0x02, 0x03, 0x02, 0x02, 0xff, 0x7f, 0x9f, 0x21, 0x02, 0x42, 0x43,
	0x41, 0x01, 0x07, 0x30, 0x10, 0x30, 0x0e, 0x30, 0x0c, 0x06, 0x03, 0x55,
	0x04, 0x03, 0x16, 0x05, 0x61, 0x40, 0x62, 0x2e, 0x63,
};

static NOINLINE u32 der_oid(const u8 *v, u32 len, u32 h)
{
	u32 arc = 0;
	int first = 1;
	for (u32 i = 0; i < len; i++) {
		if (arc == 0 && v[i] == 0x80)
			return 0;	/* non-minimal arc */
		arc = arc << 7 | (v[i] & 0x7f);
		if (v[i] & 0x80)
			continue;
		if (first) {
			u32 top = arc < 80 ? arc / 40 : 2;
			h = h * 33 + top;
			arc -= top * 40;
			first = 0;
		}
		h = h * 33 + arc;
		arc = 0;
	}
	return arc ? 0 : h;	/* a truncated arc */
}

static NOINLINE int der_walk(const u8 *p, u32 len, int depth, u32 *sum)
{
	u32 off = 0;
	int n = 0;
	if (depth > 6)
		return -40;
	while (off < len) {
		if (len - off < 2)
			return -74;
		u32 tag = p[off++], num = tag & 0x1f;
		if (num == 0x1f) {
			num = 0;
			do {
				if (off >= len || num >> 24)
					return -74;
				num = num << 7 | (p[off] & 0x7f);
			} while (p[off++] & 0x80);
			if (off >= len)
				return -74;
		}
		u32 l = p[off++];
		if (l & 0x80) {
			u32 nb = l & 0x7f;
			if (nb == 0 || nb > 2 || len - off < nb)
				return -74;
			l = 0;
			for (u32 i = 0; i < nb; i++)
				l = l << 8 | p[off++];
			if (l < 0x80 || (nb == 2 && l < 0x100))
				return -74;
		}
		if (l > len - off)
			return -74;
		const u8 *v = p + off;
		u32 h = *sum * 31 + tag * 7 + num;
		int sub;
		switch (tag >> 6) {
		case 0:	/* universal */
			if (tag & 0x20) {
				if (num != 16 && num != 17)
					return -74;
				sub = der_walk(v, l, depth + 1, &h);
				if (sub < 0)
					return sub;
				n += sub;
				break;
			}
			switch (num) {
			case 1:	/* BOOLEAN */
				if (l != 1 || (v[0] != 0 && v[0] != 0xff))
					return -74;
				h += v[0] & 1;
				break;
			case 2: {	/* INTEGER, folded as a signed 64-bit value */
				if (l == 0 || l > 9 || (l > 1 && ((v[0] == 0 && !(v[1] & 0x80)) || (v[0] == 0xff && (v[1] & 0x80)))))
					return -74;
				s64 x = (s8)v[0];
				for (u32 i = 1; i < l; i++)
					x = (s64)((u64)x << 8 | v[i]);
				h += (u32)x ^ (u32)((u64)x >> 32);
				break;
			}
			case 3:	/* BIT STRING: unused bits in the last byte */
				if (l == 0 || v[0] > 7 || (l == 1 && v[0]))
					return -74;
				for (u32 i = 1; i < l; i++)
					h = h * 3 + (i == l - 1 ? v[i] >> v[0] : v[i]);
				break;
			case 5:	/* NULL */
				if (l)
					return -74;
				break;
			case 6:
				if (!l || !(h = der_oid(v, l, h)))
					return -74;
				break;
			case 19:	/* PrintableString: letters, digits, space and a few */
				for (u32 i = 0; i < l; i++) {
					u8 c = v[i];
					if (!((c | 0x20) >= 'a' && (c | 0x20) <= 'z') && !(c >= '0' && c <= '9') && c != ' ' && c != '\'' && c != '-' && c != '.')
						return -74;
					h = h * 5 + c;
				}
				break;
			default:	/* OCTET STRING, UTF8String, IA5String, ... */
				for (u32 i = 0; i < l; i++)
					h = h * 7 + v[i];
				break;
			}
			break;
		case 2:	/* context-specific */
			if (tag & 0x20) {
				sub = der_walk(v, l, depth + 1, &h);
				if (sub < 0)
					return sub;
				n += sub;
			} else {
				h = h * 11 + l;
			}
			break;
		default:	/* application and private: skipped */
			h ^= l << 3;
			break;
		}
		*sum = h;
		off += l;
		n++;
	}
	return n;
}

/* mode 0 walks the blob; mode 1 a copy on the stack with byte pos set to
 * val. The count of elements is in the top byte. */
NOINLINE int m_asn1(int mode, int pos, int val)
{
	u8 buf[sizeof der_blob];
	const u8 *p = der_blob;
	u32 sum = 0;
	if (mode) {
		if (pos < 0 || pos >= (int)sizeof buf)
			return -22;
		memcpy(buf, der_blob, sizeof buf);
		buf[pos] = (u8)val;
		p = buf;
	}
	int n = der_walk(p, sizeof der_blob, 0, &sum);
	if (n < 0)
		return n;
	return (int)((u32)n << 24 | (sum & 0xffffff));
}

/* ---- ctype through a 256-entry flag table (Latin-1 in the upper half),
 * a branch-free hex_to_bin, and two parsers on them. */

#define _U 0x01		/* upper */
#define _L 0x02		/* lower */
#define _D 0x04		/* digit */
#define _C 0x08		/* control */
#define _P 0x10		/* punctuation */
#define _S 0x20		/* white space */
#define _X 0x40		/* hex letter */
#define _SP 0x80	/* hard space */

static const u8 m_ctype[256] = {
	_C, _C, _C, _C, _C, _C, _C, _C,	/* 0-7 */
	_C, _C|_S, _C|_S, _C|_S, _C|_S, _C|_S, _C, _C,	/* 8-15 */
	_C, _C, _C, _C, _C, _C, _C, _C,	/* 16-23 */
	_C, _C, _C, _C, _C, _C, _C, _C,	/* 24-31 */
	_S|_SP, _P, _P, _P, _P, _P, _P, _P,	/* 32-39 */
	_P, _P, _P, _P, _P, _P, _P, _P,	/* 40-47 */
	_D, _D, _D, _D, _D, _D, _D, _D,	/* 48-55 */
	_D, _D, _P, _P, _P, _P, _P, _P,	/* 56-63 */
	_P, _U|_X, _U|_X, _U|_X, _U|_X, _U|_X, _U|_X, _U,	/* 64-71 */
	_U, _U, _U, _U, _U, _U, _U, _U,	/* 72-79 */
	_U, _U, _U, _U, _U, _U, _U, _U,	/* 80-87 */
	_U, _U, _U, _P, _P, _P, _P, _P,	/* 88-95 */
	_P, _L|_X, _L|_X, _L|_X, _L|_X, _L|_X, _L|_X, _L,	/* 96-103 */
	_L, _L, _L, _L, _L, _L, _L, _L,	/* 104-111 */
	_L, _L, _L, _L, _L, _L, _L, _L,	/* 112-119 */
	_L, _L, _L, _P, _P, _P, _P, _C,	/* 120-127 */
	_C, _C, _C, _C, _C, _C, _C, _C,	/* 128-135 */
	_C, _C, _C, _C, _C, _C, _C, _C,	/* 136-143 */
	_C, _C, _C, _C, _C, _C, _C, _C,	/* 144-151 */
	_C, _C, _C, _C, _C, _C, _C, _C,	/* 152-159 */
	_S|_SP, _P, _P, _P, _P, _P, _P, _P,	/* 160-167 */
	_P, _P, _P, _P, _P, _P, _P, _P,	/* 168-175 */
	_P, _P, _P, _P, _P, _P, _P, _P,	/* 176-183 */
	_P, _P, _P, _P, _P, _P, _P, _P,	/* 184-191 */
	_U, _U, _U, _U, _U, _U, _U, _U,	/* 192-199 */
	_U, _U, _U, _U, _U, _U, _U, _U,	/* 200-207 */
	_U, _U, _U, _U, _U, _U, _U, _P,	/* 208-215 */
	_U, _U, _U, _U, _U, _U, _U, _L,	/* 216-223 */
	_L, _L, _L, _L, _L, _L, _L, _L,	/* 224-231 */
	_L, _L, _L, _L, _L, _L, _L, _L,	/* 232-239 */
	_L, _L, _L, _L, _L, _L, _L, _P,	/* 240-247 */
	_L, _L, _L, _L, _L, _L, _L, _L,	/* 248-255 */
};

#define m_isxdigit(c) (m_ctype[(u8)(c)] & (_D | _X))
#define m_isupper(c) (m_ctype[(u8)(c)] & _U)

/* The value of a hex digit, or -1, without a branch. */
static NOINLINE int hex_to_bin(u8 ch)
{
	u32 d = (u32)ch - '0', l = ((u32)ch | 0x20) - 'a';
	int md = -(int)(d < 10), ml = -(int)(l < 6);
	return (int)(d & (u32)md) | (int)((l + 10) & (u32)ml) | ~(md | ml);
}

static const char hex_lower[] = "0123456789abcdef", hex_upper[] = "0123456789ABCDEF";

static NOINLINE int uuid_is_valid(const char *s)
{
	for (int i = 0; i < 36; i++) {
		if (i == 8 || i == 13 || i == 18 || i == 23) {
			if (s[i] != '-')
				return 0;
		} else if (!m_isxdigit(s[i])) {
			return 0;
		}
	}
	return 1;
}

/* The string offset of each of the 16 bytes; guid_index reorders the
 * first three fields little-endian. */
static const u8 uuid_offs[16] = {0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34};
static const u8 guid_index[16] = {3, 2, 1, 0, 5, 4, 7, 6, 8, 9, 10, 11, 12, 13, 14, 15};
static const u8 uuid_index[16] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};

static NOINLINE int uuid_parse(const char *s, u8 *out, const u8 *index)
{
	if (!uuid_is_valid(s))
		return -22;
	for (int i = 0; i < 16; i++) {
		int hi = hex_to_bin((u8)s[uuid_offs[i]]), lo = hex_to_bin((u8)s[uuid_offs[i] + 1]);
		out[index[i]] = (u8)(hi << 4 | lo);
	}
	return 0;
}

/* The 32 hex digits of w0..w3 in the 8-4-4-4-12 form (upper case when
 * flags & 1); when flags >> 8 is 1..36, that character becomes flags >> 16. */
NOINLINE int m_uuid_valid(int w0, int w1, int w2, int w3, int flags)
{
	char s[37];
	u8 u[16], g[16];
	u32 w[4] = {(u32)w0, (u32)w1, (u32)w2, (u32)w3};
	const char *digits = flags & 1 ? hex_upper : hex_lower;
	int k = 0;
	for (int i = 0; i < 36; i++) {
		if (i == 8 || i == 13 || i == 18 || i == 23) {
			s[i] = '-';
			continue;
		}
		s[i] = digits[w[k >> 3] >> (28 - 4 * (k & 7)) & 15];
		k++;
	}
	s[36] = 0;
	int at = flags >> 8 & 0xff;
	if (at >= 1 && at <= 36)
		s[at - 1] = (char)(flags >> 16);
	u32 cls = 0;
	for (int i = 0; i < 36; i++)
		cls = cls * 3 + m_ctype[(u8)s[i]] + (m_isupper(s[i]) ? 1 : 0);
	if (uuid_parse(s, u, uuid_index) || uuid_parse(s, g, guid_index))
		return -(int)(1 + (cls & 0xffff));
	u32 h = 0;
	for (int i = 0; i < 16; i++)
		h = h * 257 + (u32)(u[i] ^ g[15 - i]);
	return (int)h;
}

/* mac_pton-shaped: exactly "xx:xx:xx:xx:xx:xx" (or with '-'), the same
 * separator throughout; 1 on success. */
static NOINLINE int mac_pton(const char *s, u8 *mac)
{
	int n = 0;
	while (n < 18 && s[n])
		n++;
	if (n != 17)
		return 0;
	char sep = s[2];
	if (sep != ':' && sep != '-')
		return 0;
	for (int i = 0; i < 6; i++) {
		if (i < 5 && s[3 * i + 2] != sep)
			return 0;
		int hi = hex_to_bin((u8)s[3 * i]), lo = hex_to_bin((u8)s[3 * i + 1]);
		if ((hi | lo) < 0)
			return 0;
		mac[i] = (u8)(hi << 4 | lo);
	}
	return 1;
}

/* The address: the bytes of a, then the low two of b. mode & 1: upper
 * case; & 2: '-' separators; & 4: one character more; mode >> 8 (1..17):
 * that character becomes mode >> 16. */
NOINLINE int m_mac_pton(int a, int b, int mode)
{
	char s[20];
	u8 in[6] = {(u8)a, (u8)(a >> 8), (u8)(a >> 16), (u8)(a >> 24), (u8)b, (u8)(b >> 8)}, mac[6];
	const char *digits = mode & 1 ? hex_upper : hex_lower;
	int n = 0;
	for (int i = 0; i < 6; i++) {
		s[n++] = digits[in[i] >> 4];
		s[n++] = digits[in[i] & 15];
		if (i < 5)
			s[n++] = mode & 2 ? '-' : ':';
	}
	if (mode & 4)
		s[n++] = '0';
	s[n] = 0;
	int at = mode >> 8 & 0xff;
	if (at >= 1 && at <= n)
		s[at - 1] = (char)(mode >> 16);
	if (!mac_pton(s, mac))
		return -1;
	u64 v = 0;
	for (int i = 0; i < 6; i++)
		v = v << 8 | mac[i];
	return (int)((u32)v ^ (u32)(v >> 29));
}

/* ---- Fixed-point logarithms (int_log-shaped): log2 with 24 fraction
 * bits from the leading one and a 256-entry table of log2(1 + i/256)
 * in 16 bits, interpolated; log10 from it by a multiply by log10(2). */

static const u16 log2_table[256] = {
	    0,   369,   736,  1102,  1466,  1829,  2190,  2551,
	 2909,  3267,  3623,  3978,  4331,  4683,  5034,  5384,
	 5732,  6079,  6425,  6769,  7112,  7454,  7795,  8134,
	 8473,  8810,  9146,  9480,  9814, 10146, 10477, 10807,
	11136, 11464, 11791, 12116, 12440, 12764, 13086, 13407,
	13727, 14046, 14363, 14680, 14996, 15310, 15624, 15937,
	16248, 16559, 16868, 17177, 17484, 17791, 18096, 18401,
	18704, 19007, 19308, 19609, 19909, 20207, 20505, 20802,
	21098, 21393, 21687, 21980, 22272, 22564, 22854, 23144,
	23433, 23720, 24007, 24293, 24579, 24863, 25146, 25429,
	25711, 25992, 26272, 26551, 26830, 27108, 27384, 27660,
	27936, 28210, 28484, 28757, 29029, 29300, 29571, 29840,
	30109, 30378, 30645, 30912, 31178, 31443, 31707, 31971,
	32234, 32496, 32758, 33019, 33279, 33538, 33797, 34055,
	34312, 34569, 34825, 35080, 35334, 35588, 35841, 36094,
	36346, 36597, 36847, 37097, 37346, 37595, 37842, 38090,
	38336, 38582, 38827, 39072, 39316, 39559, 39802, 40044,
	40286, 40527, 40767, 41006, 41246, 41484, 41722, 41959,
	42196, 42432, 42667, 42902, 43137, 43370, 43603, 43836,
	44068, 44300, 44530, 44761, 44990, 45220, 45448, 45676,
	45904, 46131, 46357, 46583, 46809, 47034, 47258, 47482,
	47705, 47928, 48150, 48372, 48593, 48813, 49034, 49253,
	49472, 49691, 49909, 50127, 50344, 50560, 50776, 50992,
	51207, 51422, 51636, 51850, 52063, 52276, 52488, 52700,
	52911, 53122, 53332, 53542, 53751, 53960, 54169, 54377,
	54584, 54791, 54998, 55204, 55410, 55615, 55820, 56025,
	56229, 56432, 56635, 56838, 57040, 57242, 57443, 57644,
	57845, 58045, 58245, 58444, 58643, 58841, 59039, 59237,
	59434, 59631, 59827, 60023, 60219, 60414, 60609, 60803,
	60997, 61190, 61384, 61576, 61769, 61961, 62152, 62343,
	62534, 62725, 62915, 63104, 63294, 63483, 63671, 63859,
	64047, 64234, 64421, 64608, 64794, 64980, 65166, 65351,
};

static NOINLINE u32 intlog2(u32 v)
{
	if (!v)
		return 0;
	int msb = 31 - __builtin_clz(v);
	u32 sig = v << (31 - msb);
	u32 idx = sig >> 23 & 0xff, frac = sig & 0x7fffff;
	u32 lo = log2_table[idx], hi = idx == 255 ? 65536 : log2_table[idx + 1];
	return ((u32)msb << 24) + (lo << 8) + ((frac * (hi - lo)) >> 15);
}

static NOINLINE u32 intlog10(u32 v)
{
	/* 646456993 = log10(2) * 2^31 */
	return (u32)((u64)intlog2(v) * 646456993u >> 31);
}

/* n values (at most 40) from start by step; the logarithms are folded. */
NOINLINE int m_intlog10(int start, int step, int n)
{
	u32 h = 0, v = (u32)start;
	if (n < 0 || n > 40)
		return -22;
	for (int i = 0; i < n; i++, v += (u32)step) {
		u32 l2 = intlog2(v), l10 = intlog10(v);
		h = rol32(h, 3) ^ l2 ^ l10 * 5;
	}
	return (int)h;
}

/* ---- Trial division up to the square root. */

static NOINLINE int is_prime(u32 x)
{
	if (x < 4)
		return x >= 2;
	if (!(x & 1))
		return 0;
	for (u32 d = 3; d <= x / d; d += 2)
		if (x % d == 0)
			return 0;
	return 1;
}

/* The primes of [lo, lo + n): their count, sum and the last one. */
NOINLINE int m_is_prime(int lo, int n)
{
	u32 count = 0, sum = 0, last = 0;
	if (n < 0 || n > 256)
		return -22;
	for (u32 x = (u32)lo; x < (u32)lo + (u32)n; x++)
		if (is_prime(x)) {
			count++;
			sum += x;
			last = x;
		}
	return (int)(count << 24 ^ sum * 3 ^ last);
}

/* ---- AES-128: GF(2^8) arithmetic, the S-box from the walk of the
 * generator 3 (p times 3, q divided by 3, then the affine map), the key
 * schedule, rounds of SubBytes, ShiftRows, MixColumns and AddRoundKey, and
 * InvMixColumns by general multiplies to check each mixed state. */

static inline u8 xtime(u8 x) { return (u8)(x << 1 ^ (x >> 7) * 0x1b); }
static inline u8 rotl8(u8 x, int n) { return (u8)(x << n | x >> (8 - n)); }

static NOINLINE u8 gf_mul(u8 a, u8 b)
{
	u8 p = 0;
	while (b) {
		if (b & 1)
			p ^= a;
		a = xtime(a);
		b >>= 1;
	}
	return p;
}

static NOINLINE void aes_sbox(u8 *sbox)
{
	u8 p = 1, q = 1;
	do {
		p = p ^ xtime(p);
		q ^= (u8)(q << 1);
		q ^= (u8)(q << 2);
		q ^= (u8)(q << 4);
		if (q & 0x80)
			q ^= 0x09;
		sbox[p] = q ^ rotl8(q, 1) ^ rotl8(q, 2) ^ rotl8(q, 3) ^ rotl8(q, 4) ^ 0x63;
	} while (p != 1);
	sbox[0] = 0x63;
}

static NOINLINE void aes_expand(const u8 *key, u8 *rk, const u8 *sbox)
{
	u8 rcon = 1;
	memcpy(rk, key, 16);
	for (int i = 16; i < 176; i += 4) {
		u8 t0 = rk[i - 4], t1 = rk[i - 3], t2 = rk[i - 2], t3 = rk[i - 1];
		if (!(i & 15)) {
			u8 u = t0;
			t0 = sbox[t1] ^ rcon;
			t1 = sbox[t2];
			t2 = sbox[t3];
			t3 = sbox[u];
			rcon = xtime(rcon);
		}
		rk[i] = rk[i - 16] ^ t0;
		rk[i + 1] = rk[i - 15] ^ t1;
		rk[i + 2] = rk[i - 14] ^ t2;
		rk[i + 3] = rk[i - 13] ^ t3;
	}
}

/* The state is column-major: byte r of column c at s[4 * c + r]. */
static NOINLINE void aes_sub_shift(u8 *s, const u8 *sbox)
{
	u8 t[16];
	for (int c = 0; c < 4; c++)
		for (int r = 0; r < 4; r++)
			t[4 * c + r] = sbox[s[4 * ((c + r) & 3) + r]];
	memcpy(s, t, 16);
}

static NOINLINE void aes_mix(u8 *s)
{
	for (int c = 0; c < 4; c++) {
		u8 *col = s + 4 * c;
		u8 a0 = col[0], a1 = col[1], a2 = col[2], a3 = col[3], t = a0 ^ a1 ^ a2 ^ a3;
		col[0] = a0 ^ t ^ xtime(a0 ^ a1);
		col[1] = a1 ^ t ^ xtime(a1 ^ a2);
		col[2] = a2 ^ t ^ xtime(a2 ^ a3);
		col[3] = a3 ^ t ^ xtime(a3 ^ a0);
	}
}

static NOINLINE void aes_unmix(u8 *s)
{
	for (int c = 0; c < 4; c++) {
		u8 *col = s + 4 * c, a[4];
		memcpy(a, col, 4);
		for (int r = 0; r < 4; r++)
			col[r] = gf_mul(a[r], 14) ^ gf_mul(a[(r + 1) & 3], 11) ^ gf_mul(a[(r + 2) & 3], 13) ^ gf_mul(a[(r + 3) & 3], 9);
	}
}

/* Key byte i is kseed + i * kstep, plaintext byte i pseed + i * pstep;
 * rounds (1..10) rounds, the last without MixColumns: 10 is AES-128
 * (FIPS-197's C.1 is m_aes_round(0, 1, 0, 0x11, 10)). */
NOINLINE int m_aes_round(int kseed, int kstep, int pseed, int pstep, int rounds)
{
	u8 sbox[256], rk[176], key[16], s[16], keep[16];
	if (rounds < 1 || rounds > 10)
		return -22;
	for (int i = 0; i < 16; i++) {
		key[i] = (u8)(kseed + i * kstep);
		s[i] = (u8)(pseed + i * pstep);
	}
	aes_sbox(sbox);
	aes_expand(key, rk, sbox);
	for (int i = 0; i < 16; i++)
		s[i] ^= rk[i];
	int bad = 0;
	for (int r = 1; r <= rounds; r++) {
		aes_sub_shift(s, sbox);
		if (r < rounds) {
			memcpy(keep, s, 16);
			aes_mix(s);
			u8 back[16];
			memcpy(back, s, 16);
			aes_unmix(back);
			for (int i = 0; i < 16; i++)
				bad |= back[i] != keep[i];
		}
		for (int i = 0; i < 16; i++)
			s[i] ^= rk[16 * r + i];
	}
	if (bad)
		return -1;
	return (int)(get_be32(s) ^ rol32(get_be32(s + 4), 8) ^ rol32(get_be32(s + 8), 16) ^ rol32(get_be32(s + 12), 24));
}

/* ---- memmem, musl-shaped: skip to the needle's first byte, then a
 * sliding window of two, three or four bytes compared as one integer, a
 * naive compare for longer needles. */

static NOINLINE const u8 *mm_chr(const u8 *h, ulong k, u8 c)
{
	for (; k; k--, h++)
		if (*h == c)
			return h;
	return 0;
}

static NOINLINE const u8 *mm_two(const u8 *h, ulong k, const u8 *n)
{
	u32 want = (u32)n[0] << 8 | n[1], win = h[0];
	for (ulong i = 1; i < k; i++) {
		win = (win << 8 | h[i]) & 0xffff;
		if (win == want)
			return h + i - 1;
	}
	return 0;
}

static NOINLINE const u8 *mm_three(const u8 *h, ulong k, const u8 *n)
{
	u32 want = (u32)n[0] << 24 | (u32)n[1] << 16 | (u32)n[2] << 8;
	u32 win = (u32)h[0] << 24 | (u32)h[1] << 16;
	for (ulong i = 2; i < k; i++) {
		win |= (u32)h[i] << 8;
		if (win == want)
			return h + i - 2;
		win <<= 8;
	}
	return 0;
}

static NOINLINE const u8 *mm_four(const u8 *h, ulong k, const u8 *n)
{
	u32 want = get_be32(n), win = (u32)h[0] << 16 | (u32)h[1] << 8 | h[2];
	for (ulong i = 3; i < k; i++) {
		win = win << 8 | h[i];
		if (win == want)
			return h + i - 3;
	}
	return 0;
}

static NOINLINE const u8 *mm_naive(const u8 *h, ulong k, const u8 *n, ulong l)
{
	for (ulong i = 0; i + l <= k; i++) {
		if (h[i] != n[0] || h[i + l - 1] != n[l - 1])
			continue;
		ulong j = 1;
		while (j < l && h[i + j] == n[j])
			j++;
		if (j == l)
			return h + i;
	}
	return 0;
}

static NOINLINE const void *mm_memmem(const void *h0, ulong k, const void *n0, ulong l)
{
	const u8 *h = h0, *n = n0;
	if (!l)
		return h;
	if (k < l)
		return 0;
	const u8 *p = mm_chr(h, k, n[0]);
	if (!p || l == 1)
		return p;
	k -= (ulong)(p - h);
	if (k < l)
		return 0;
	switch (l) {
	case 2:
		return mm_two(p, k, n);
	case 3:
		return mm_three(p, k, n);
	case 4:
		return mm_four(p, k, n);
	default:
		return mm_naive(p, k, n, l);
	}
}

/* A haystack of 200 letters of an alphabet of size alpha (2..26) from
 * seed; needles of 1..9 bytes taken from it at off + 16 * len, then the
 * same with the last byte changed. */
NOINLINE int m_memmem(int seed, int alpha, int off)
{
	u8 hay[200], nee[12];
	u32 x = (u32)seed, h = 0;
	if (alpha < 2 || alpha > 26 || off < 0 || off > 40)
		return -22;
	for (int i = 0; i < 200; i++)
		hay[i] = (u8)('a' + (lcg(&x) >> 16) % (u32)alpha);
	for (int l = 0; l <= 9; l++) {
		memcpy(nee, hay + off + 16 * l, l);
		const u8 *p = mm_memmem(hay, sizeof hay, nee, l);
		h = h * 211 + (p ? (u32)(p - hay) : 999);
		if (l) {
			nee[l - 1] ^= 0x20;
			p = mm_memmem(hay, sizeof hay, nee, l);
			h = h * 211 + (p ? (u32)(p - hay) : 999);
			nee[l - 1] = 'a' + (nee[l - 1] - 'A' + 1) % alpha;
			p = mm_memmem(hay + 1, sizeof hay - 1, nee, l);
			h = h * 211 + (p ? (u32)(p - hay) : 999);
		}
	}
	return (int)h;
}

/* ---- bitmap_parselist-shaped: "R[,R]..." where R is N, N-M or
 * N-M:USED/GROUP ('N' alone stands for the last bit); -22 for bad syntax,
 * -34 for a bit past the map. */

struct region {
	u32 start, end, used, group;
};

static const char *parse_num(const char *s, u32 *v, u32 last)
{
	if (*s == 'N') {
		*v = last;
		return s + 1;
	}
	if (*s < '0' || *s > '9')
		return 0;
	u32 x = 0;
	while (*s >= '0' && *s <= '9') {
		if (x > 100000)
			return 0;
		x = x * 10 + (u32)(*s++ - '0');
	}
	*v = x;
	return s;
}

static NOINLINE const char *parse_region(const char *s, struct region *r, u32 nbits)
{
	s = parse_num(s, &r->start, nbits - 1);
	if (!s)
		return 0;
	r->end = r->start;
	r->used = r->group = 1;
	if (*s != '-')
		return s;
	s = parse_num(s + 1, &r->end, nbits - 1);
	if (!s || *s != ':')
		return s;
	s = parse_num(s + 1, &r->used, nbits - 1);
	if (!s || *s != '/')
		return 0;
	return parse_num(s + 1, &r->group, nbits - 1);
}

static NOINLINE void set_region(u32 *map, const struct region *r)
{
	for (u32 b = r->start; b <= r->end; b++)
		if ((b - r->start) % r->group < r->used)
			map[b / 32] |= 1u << (b % 32);
}

static NOINLINE int parselist(const char *s, u32 *map, u32 nbits)
{
	struct region r;
	memset(map, 0, (nbits + 31) / 32 * sizeof *map);
	do {
		while (*s == ' ')
			s++;
		s = parse_region(s, &r, nbits);
		if (!s)
			return -22;
		if (r.start > r.end || r.group == 0 || r.used == 0 || r.used > r.group)
			return -22;
		if (r.end >= nbits)
			return -34;
		set_region(map, &r);
		while (*s == ' ')
			s++;
	} while (*s++ == ',');
	return s[-1] ? -22 : 0;
}

static NOINLINE int hweight32(u32 w)
{
	w -= w >> 1 & 0x55555555;
	w = (w & 0x33333333) + (w >> 2 & 0x33333333);
	w = (w + (w >> 4)) & 0x0f0f0f0f;
	return (int)(w * 0x01010101 >> 24);
}

static char *put_dec(char *p, u32 v)
{
	char t[10];
	int n = 0;
	do
		t[n++] = (char)('0' + v % 10);
	while (v /= 10);
	while (n)
		*p++ = t[--n];
	return p;
}

/* "A-B,C,D-E:F/G" from the bytes of a (A, B, C) and b (D, E, F, G), with
 * extra & 1: ",N" appended, & 2: " , 0" appended, & 4: a stray '-'
 * appended; a 128-bit map. The weight, the lowest set bit and a fold. */
NOINLINE int m_parselist(int a, int b, int extra)
{
	char s[64], *p = s;
	u32 map[4];
	p = put_dec(p, (u8)a);
	*p++ = '-';
	p = put_dec(p, (u8)(a >> 8));
	*p++ = ',';
	p = put_dec(p, (u8)(a >> 16));
	*p++ = ',';
	p = put_dec(p, (u8)b);
	*p++ = '-';
	p = put_dec(p, (u8)(b >> 8));
	*p++ = ':';
	p = put_dec(p, (u8)(b >> 16));
	*p++ = '/';
	p = put_dec(p, (u8)(b >> 24));
	if (extra & 1) {
		*p++ = ',';
		*p++ = 'N';
	}
	if (extra & 2) {
		memcpy(p, " , 0", 4);
		p += 4;
	}
	if (extra & 4)
		*p++ = '-';
	*p = 0;
	int err = parselist(s, map, 128);
	if (err)
		return err;
	int w = 0, low = -1;
	u32 h = 0;
	for (int i = 0; i < 4; i++) {
		w += hweight32(map[i]);
		if (low < 0 && map[i])
			low = 32 * i + __builtin_ctz(map[i]);
		h = h * 0x9e3779b1u + map[i];
	}
	return w | (low & 0xff) << 8 | (int)(h >> 16 << 16);
}

/* ---- A binary BCH decoder over GF(2^8) (primitive polynomial 0x11d,
 * n = 255): the exponent and log tables built on the stack, 2t syndromes
 * of a received word, Berlekamp-Massey for the error locator, and a Chien
 * search for its roots. */

struct gf256 {
	u8 exp[256], log[256];
};

static NOINLINE void gf_init(struct gf256 *g, u32 poly)
{
	u32 x = 1;
	for (int i = 0; i < 255; i++) {
		g->exp[i] = (u8)x;
		g->log[x] = (u8)i;
		x <<= 1;
		if (x & 0x100)
			x ^= poly;
	}
	g->exp[255] = g->exp[0];
	g->log[0] = 0;
}

static inline u8 gf_mulx(const struct gf256 *g, u8 a, u8 b)
{
	if (!a || !b)
		return 0;
	u32 e = (u32)g->log[a] + g->log[b];
	return g->exp[e >= 255 ? e - 255 : e];
}

static inline u8 gf_inv(const struct gf256 *g, u8 a) { return g->exp[255 - g->log[a]]; }

static NOINLINE void bch_syndromes(const struct gf256 *g, const u8 *word, int nbits, int t2, u8 *syn)
{
	memset(syn, 0, t2);
	for (int i = 0; i < nbits; i++) {
		if (!(word[i >> 3] >> (i & 7) & 1))
			continue;
		u32 e = (u32)i;
		for (int j = 0; j < t2; j++) {
			syn[j] ^= g->exp[e];
			e += (u32)i;
			if (e >= 255)
				e -= 255;
		}
	}
}

#define BCH_MAXT 4

static NOINLINE int bch_locator(const struct gf256 *g, const u8 *syn, int t2, u8 *lambda)
{
	u8 c[2 * BCH_MAXT + 1], b[2 * BCH_MAXT + 1], t[2 * BCH_MAXT + 1];
	int L = 0, m = 1;
	u8 bd = 1;
	memset(c, 0, sizeof c);
	memset(b, 0, sizeof b);
	c[0] = b[0] = 1;
	for (int n = 0; n < t2; n++) {
		u8 d = syn[n];
		for (int i = 1; i <= L; i++)
			d ^= gf_mulx(g, c[i], syn[n - i]);
		if (!d) {
			m++;
			continue;
		}
		u8 coef = gf_mulx(g, d, gf_inv(g, bd));
		int grow = 2 * L <= n;
		if (grow)
			memcpy(t, c, sizeof t);
		for (int i = m; i < (int)sizeof c; i++)
			c[i] ^= gf_mulx(g, coef, b[i - m]);
		if (grow) {
			L = n + 1 - L;
			memcpy(b, t, sizeof b);
			bd = d;
			m = 1;
		} else {
			m++;
		}
	}
	memcpy(lambda, c, sizeof c);
	return L;
}

/* The roots of lambda among alpha^-i: i is an error position. */
static NOINLINE int bch_chien(const struct gf256 *g, const u8 *lambda, int L, int *pos)
{
	int found = 0;
	for (int i = 0; i < 255; i++) {
		u8 v = lambda[0];
		for (int j = 1; j <= L; j++)
			if (lambda[j])
				v ^= g->exp[(g->log[lambda[j]] + (u32)(255 - i) * (u32)j) % 255];
		if (!v && found < BCH_MAXT)
			pos[found++] = i;
	}
	return found;
}

/* A received word of 255 bits: the code word 0 with nerr (0..4) bits
 * flipped at the bytes of errs (mod 255); t (1..4) the designed
 * correction. The locator's degree, the positions found and the
 * syndromes, folded; -1 when the decode fails (more errors than t). */
NOINLINE int m_bch_syndromes(int errs, int nerr, int t)
{
	struct gf256 g;
	u8 word[32], syn[2 * BCH_MAXT], lambda[2 * BCH_MAXT + 1];
	int pos[BCH_MAXT];
	if (nerr < 0 || nerr > 4 || t < 1 || t > BCH_MAXT)
		return -22;
	gf_init(&g, 0x11d);
	memset(word, 0, sizeof word);
	for (int i = 0; i < nerr; i++) {
		u32 e = ((u32)errs >> 8 * i & 0xff) % 255;
		word[e >> 3] ^= (u8)(1 << (e & 7));
	}
	bch_syndromes(&g, word, 255, 2 * t, syn);
	int sq = 0;
	for (int j = 1; j <= t; j++)	/* S(2j) = S(j)^2 for a binary code */
		sq |= syn[2 * j - 1] != gf_mulx(&g, syn[j - 1], syn[j - 1]);
	if (sq)
		return -2;
	u32 h = 0;
	for (int j = 0; j < 2 * t; j++)
		h = h * 131 + syn[j];
	int L = bch_locator(&g, syn, 2 * t, lambda);
	if (L > t)
		return -1;
	int found = bch_chien(&g, lambda, L, pos);
	if (found != L)
		return -1;
	u32 ps = 0;
	for (int i = 0; i < found; i++)
		ps = ps * 255 + (u32)pos[i];
	return (int)((u32)L << 28 ^ ps << 8 ^ (h & 0xffff));
}

/* ---- An inflater for one fixed-Huffman deflate block (RFC 1951): a bit
 * reader, canonical codes built from code lengths (counts and sorted
 * symbols), a bit-at-a-time decode, the length and distance base tables,
 * and back references copied a byte at a time (they overlap). */

/* 146 bytes of text compressed by zlib at level 9, raw, Z_FIXED. */
static const u8 fixed_blob[] = {
	0x2b, 0xc9, 0x48, 0x55, 0x48, 0x4e, 0x2c, 0x51, 0x28, 0x06, 0xe2, 0xfc,
	0x3c, 0x85, 0x12, 0x20, 0x37, 0x37, 0xb1, 0xc4, 0x1a, 0xcc, 0x40, 0x13,
	0xcf, 0x48, 0x2c, 0xd1, 0x53, 0x48, 0xc4, 0x0b, 0x14, 0x15, 0x12, 0x93,
	0x92, 0x31, 0x91, 0x8e, 0x42, 0x62, 0x5e, 0x0a, 0xd0, 0x0c, 0xa0, 0x59,
	0x99, 0xc5, 0x60, 0xb3, 0x52, 0x81, 0xfc, 0xfc, 0x34, 0x98, 0x75, 0x50,
	0x69, 0x88, 0x15, 0x00,
};

static const u16 len_base[29] = {3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31,
				 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258};
static const u8 len_extra[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2,
				 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
static const u16 dist_base[30] = {1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193,
				  257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577};
static const u8 dist_extra[30] = {0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6,
				  7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13};

struct bitin {
	const u8 *in;
	u32 len, pos, buf;
	int cnt, err;
};

static NOINLINE u32 getbits(struct bitin *s, int need)
{
	u32 v = s->buf;
	while (s->cnt < need) {
		if (s->pos >= s->len) {
			s->err = 1;
			return 0;
		}
		v |= (u32)s->in[s->pos++] << s->cnt;
		s->cnt += 8;
	}
	s->buf = v >> need;
	s->cnt -= need;
	return v & ((1u << need) - 1);
}

struct huffman {
	u16 *count, *symbol;
};

#define MAXBITS 15

/* Counts of each code length and the symbols in code order; returns 0
 * for a complete code, > 0 incomplete, < 0 over-subscribed. */
static NOINLINE int huff_build(struct huffman *h, const u8 *lengths, int n)
{
	u16 offs[MAXBITS + 1];
	for (int len = 0; len <= MAXBITS; len++)
		h->count[len] = 0;
	for (int sym = 0; sym < n; sym++)
		h->count[lengths[sym]]++;
	if (h->count[0] == n)
		return 0;
	int left = 1;
	for (int len = 1; len <= MAXBITS; len++) {
		left = 2 * left - h->count[len];
		if (left < 0)
			return left;
	}
	offs[1] = 0;
	for (int len = 1; len < MAXBITS; len++)
		offs[len + 1] = offs[len] + h->count[len];
	for (int sym = 0; sym < n; sym++)
		if (lengths[sym])
			h->symbol[offs[lengths[sym]]++] = (u16)sym;
	return left;
}

static NOINLINE int huff_decode(struct bitin *s, const struct huffman *h)
{
	int code = 0, first = 0, index = 0;
	for (int len = 1; len <= MAXBITS; len++) {
		code |= (int)getbits(s, 1);
		int count = h->count[len];
		if (code - first < count)
			return h->symbol[index + code - first];
		index += count;
		first = (first + count) << 1;
		code <<= 1;
	}
	return -10;
}

static NOINLINE int inflate_fixed(const u8 *in, u32 inlen, u8 *out, u32 cap)
{
	struct bitin s = {in, inlen, 0, 0, 0, 0};
	u8 lengths[288];
	u16 lcount[MAXBITS + 1], lsym[288], dcount[MAXBITS + 1], dsym[30];
	struct huffman lh = {lcount, lsym}, dh = {dcount, dsym};
	int sym;
	for (sym = 0; sym < 144; sym++)
		lengths[sym] = 8;
	for (; sym < 256; sym++)
		lengths[sym] = 9;
	for (; sym < 280; sym++)
		lengths[sym] = 7;
	for (; sym < 288; sym++)
		lengths[sym] = 8;
	huff_build(&lh, lengths, 288);
	for (sym = 0; sym < 30; sym++)
		lengths[sym] = 5;
	huff_build(&dh, lengths, 30);
	u32 last = getbits(&s, 1), type = getbits(&s, 2);
	if (type != 1)
		return -3;
	u32 n = 0;
	for (;;) {
		sym = huff_decode(&s, &lh);
		if (s.err)
			return -5;
		if (sym < 0)
			return sym;
		if (sym < 256) {
			if (n >= cap)
				return -1;
			out[n++] = (u8)sym;
		} else if (sym == 256) {
			break;
		} else {
			sym -= 257;
			if (sym >= 29)
				return -10;
			u32 len = len_base[sym] + getbits(&s, len_extra[sym]);
			int ds = huff_decode(&s, &dh);
			if (ds < 0 || ds >= 30)
				return -11;
			u32 dist = dist_base[ds] + getbits(&s, dist_extra[ds]);
			if (s.err)
				return -5;
			if (dist > n)
				return -11;
			if (len > cap - n)
				return -1;
			for (; len; len--, n++)
				out[n] = out[n - dist];
		}
	}
	return last ? (int)n : -4;
}

/* The blob less its last cut bytes inflated into cap (at most 256) bytes;
 * the Adler-32 of the output, or the error. */
NOINLINE int m_inflate_fixed(int cap, int cut)
{
	u8 out[256];
	if (cap < 0 || cap > 256 || cut < 0 || cut > (int)sizeof fixed_blob)
		return -22;
	int n = inflate_fixed(fixed_blob, sizeof fixed_blob - cut, out, cap);
	if (n < 0)
		return n;
	u32 a = 1, b = 0;
	for (int i = 0; i < n; i++) {
		a += out[i];
		b += a;
	}
	return (int)((b % 65521) << 16 | a % 65521);
}
