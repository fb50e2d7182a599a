/* Fixtures of issue 21 (lr as scratch) and issue 14 (AAPCS stack
 * arguments), built for ARM by build.sh:
 *   siphash_2u64  Linux lib/siphash.c: at -O2 gcc loads the key pointer,
 *                 a stack argument, into lr (ldr lr, [sp, #32]) and uses
 *                 lr as a data register: no return address is involved.
 *   poly7         seven arguments, three of them on the stack.
 * Each returns (the low word of) a value qemu-arm computes through
 * scratchharness.c. */
typedef unsigned long long u64;
typedef struct { u64 key[2]; } siphash_key_t;

const siphash_key_t sipkey = {{0x0706050403020100ULL, 0x0f0e0d0c0b0a0908ULL}};

#define ROTL(x, b) (u64)(((x) << (b)) | ((x) >> (64 - (b))))
#define SIPROUND do { \
	v0 += v1; v1 = ROTL(v1, 13); v1 ^= v0; v0 = ROTL(v0, 32); \
	v2 += v3; v3 = ROTL(v3, 16); v3 ^= v2; \
	v0 += v3; v3 = ROTL(v3, 21); v3 ^= v0; \
	v2 += v1; v1 = ROTL(v1, 17); v1 ^= v2; v2 = ROTL(v2, 32); \
} while (0)

u64 siphash_2u64(const u64 first, const u64 second, const siphash_key_t *key)
{
	u64 v0 = 0x736f6d6570736575ULL, v1 = 0x646f72616e646f6dULL;
	u64 v2 = 0x6c7967656e657261ULL, v3 = 0x7465646279746573ULL;
	u64 b = ((u64)16) << 56;
	v3 ^= key->key[1]; v2 ^= key->key[0]; v1 ^= key->key[1]; v0 ^= key->key[0];
	v3 ^= first; SIPROUND; SIPROUND; v0 ^= first;
	v3 ^= second; SIPROUND; SIPROUND; v0 ^= second;
	v3 ^= b; SIPROUND; SIPROUND; v0 ^= b;
	v2 ^= 0xff; SIPROUND; SIPROUND; SIPROUND; SIPROUND;
	return (v0 ^ v1) ^ (v2 ^ v3);
}

int poly7(int a, int b, int c, int d, int e, int f, int g)
{
	return a + 2 * b + 3 * c + 4 * d + 5 * e + 6 * f + 7 * g + (a ^ g) * (b - f);
}
