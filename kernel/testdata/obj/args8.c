/* Fixture functions for arm64 and RISC-V objects (issues 15 and 16):
 * integer C as a kernel has it, with up to 8 register arguments (x0-x7,
 * a0-a7). Every function is called by harness64.c natively (under
 * qemu-aarch64 / qemu-riscv64) and by mcountsim with the arguments of
 * args8.txt; the two must agree. */

typedef unsigned long u64;
typedef long s64;

long counter;                                     /* .bss */
int table[8] = {3, 1, 4, 1, 5, 9, 2, 6};          /* .data */
static const int primes[8] = {2, 3, 5, 7, 11, 13, 17, 19}; /* .rodata */
static const char name[] = "mcountsim";           /* .rodata */

extern int ext_fn(int);                           /* undefined: an ABI stub */

__attribute__((noinline)) int leaf(int a, int b)
{
	return a * 3 + b;
}

__attribute__((noinline)) int sum_to(int n)
{
	int s = 0;
	for (int i = 1; i <= n; i++)
		s += i * i;
	return s;
}

__attribute__((noinline)) long args5(long a, long b, long c, long d, long e)
{
	return a * b - c * d + (e << 3);
}

__attribute__((noinline)) long args6(long a, int b, long c, int d, long e, int f)
{
	return (a ^ b) + (c | d) - (e & f) + a * f;
}

__attribute__((noinline)) int args7(int a, int b, int c, int d, int e, int f, int g)
{
	return a + 2 * b + 3 * c + 4 * d + 5 * e + 6 * f + 7 * g;
}

/* All eight argument registers, 64-bit values, a call in the middle: the
 * values live across it in callee-saved registers. */
__attribute__((noinline)) long args8(long a, long b, long c, long d, long e, long f, long g, long h)
{
	long x = a * h + b * g, y = c * f - d * e;
	int r = ext_fn((int)(x ^ y));
	return x + y + r + (a ^ b ^ c ^ d ^ e ^ f ^ g ^ h);
}

/* Many values live across a call, and a frame below them. */
__attribute__((noinline)) int big(int a, int b, int c, int d, int e, int f, int g, int h)
{
	volatile int buf[6];
	int p = a * b, q = b ^ c, s = c + d, t = d - a, u = a | d, v = b & c;
	int k = a + b + c + d + e + f + g + h, l = (a << 3) - d + (e ^ h);
	for (int n = 0; n < 6; n++)
		buf[n] = p + n * q + g;
	int r = ext_fn(p + f);
	return r + p + q + s + t + u + v + k + l + buf[a & 3] + buf[(b & 1) + 4];
}

__attribute__((noinline)) int use_data(int x)
{
	counter += x;
	table[x & 7] += counter;
	return table[x & 7] + primes[(x >> 1) & 7] + name[x & 7];
}

__attribute__((noinline)) int wide(long a, long b)
{
	u64 p = (u64)a * (u64)b + ((u64)a << 37);
	unsigned __int128 q = (unsigned __int128)(u64)b * 0x9e3779b97f4a7c15ul;
	p += (u64)(q >> 64);
	return (int)(p >> 32) ^ (int)p ^ (int)(q >> 29);
}

__attribute__((noinline)) int divs(long a, long b, int c, int d)
{
	return (int)(a / b + a % b) + (unsigned)c / (unsigned)d + c % d;
}

__attribute__((noinline)) int bytes(int x)
{
	unsigned char s[8];
	short h[4];
	for (int i = 0; i < 8; i++)
		s[i] = (unsigned char)(x >> i) + name[i];
	for (int i = 0; i < 4; i++)
		h[i] = (short)(s[2 * i] << 8 | s[2 * i + 1]);
	signed char t = (signed char)s[x & 7];
	return h[0] + h[1] - h[2] + h[3] + t + (unsigned short)h[x & 3];
}

__attribute__((noinline)) int branches(int a, int b)
{
	int r = 0;
	if (a > b)
		r += a - b;
	else if (a < b)
		r += (b - a) * 2;
	if ((unsigned)a > 100u)
		r ^= 0x55;
	r += a < 0 ? -a : a;
	for (unsigned long m = (unsigned long)b | 1; m < (1ul << 63); m <<= 1)
		r++;
	return r;
}

int caller(int x, int y)
{
	return leaf(x, y) + sum_to(x & 7) + ext_fn(y) + use_data(y) + (int)args8(x, y, 1, 2, 3, 4, 5, 6);
}

/* Pointers in data, calls through them, a tail call and a jump table. */
long *const ptrs[2] = {&counter, (long *)&table[2]};
int (*const ops[2])(int, int) = {leaf, branches};

__attribute__((noinline)) int indirect(int x)
{
	return ops[x & 1](x, (int)*ptrs[(x >> 1) & 1]);
}

__attribute__((noinline)) int tail(int x)
{
	return ext_fn(x + 1);
}

__attribute__((noinline)) int jump(int x, int y)
{
	switch (x) {
	case 0: return y + 1;
	case 1: return y * 7;
	case 2: return y ^ 0x33;
	case 3: return y - 100;
	case 4: return y << 2;
	case 5: return -y;
	case 6: return y & 0x0f;
	default: return 0;
	}
}
