/* Fixture functions for kernel.BuildObject: integer C as a kernel has it.
 * Every function is called by the harness and by mcountsim with the
 * arguments listed in args.txt and must return the same value on both. */

int counter;                                  /* .bss */
int table[8] = {3, 1, 4, 1, 5, 9, 2, 6};      /* .data */
static const int primes[8] = {2, 3, 5, 7, 11, 13, 17, 19}; /* .rodata */
static const char name[] = "mcountsim";      /* .rodata */

extern int ext_fn(int);                       /* undefined: an ABI stub */

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

/* Many values live across a call: gcc saves every callee-saved register
 * and keeps a frame below them. */
__attribute__((noinline)) int big(int a, int b, int c, int d)
{
	volatile int buf[6];
	int e = a * b, f = b ^ c, g = c + d, h = d - a, i = a | d, j = b & c;
	int k = a + b + c + d, l = (a << 3) - d;
	for (int n = 0; n < 6; n++)
		buf[n] = e + n * f;
	int r = ext_fn(e);
	return r + e + f + g + h + i + j + k + l + buf[a & 3] + buf[(b & 1) + 4];
}

__attribute__((noinline)) int use_data(int x)
{
	counter += x;
	table[x & 7] += counter;
	return table[x & 7] + primes[(x >> 1) & 7] + name[x & 7];
}

__attribute__((noinline)) int wide(int a, int b)
{
	long long p = (long long)a * b + ((unsigned long long)(unsigned)a << 20);
	unsigned long long q = (unsigned long long)(unsigned)b * 0x9e3779b9u;
	p += (long long)q;
	return (int)(p >> 32) ^ (int)p ^ (int)(q >> 29);
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
	r += __builtin_clz((unsigned)b | 1);
	return r;
}

int caller(int x, int y)
{
	return leaf(x, y) + sum_to(x & 7) + ext_fn(y) + use_data(y);
}

/* Pointers in data (R_ARM_ABS32, R_X86_64_64 in .data.rel.ro), calls
 * through them, a tail call and a jump table. */
int *const ptrs[2] = {&counter, &table[3]};
int (*const ops[2])(int, int) = {leaf, branches};

__attribute__((noinline)) int indirect(int x)
{
	return ops[x & 1](x, *ptrs[(x >> 1) & 1]);
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
