/* Runs one scratch.c function natively under qemu-arm:
 *   scratchharness FUNCTION ARG...   prints the return value's low word in
 * decimal, as mcountsim reads r0. siphash_2u64's arguments are the four
 * words of first and second (low word first) and the key's address, which
 * the harness replaces by its own &sipkey. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef unsigned long long u64;
typedef struct { u64 key[2]; } siphash_key_t;
extern const siphash_key_t sipkey;
u64 siphash_2u64(u64, u64, const siphash_key_t *);
int poly7(int, int, int, int, int, int, int);

__asm__(".global __gnu_mcount_nc\n"
	"__gnu_mcount_nc:\n"
	"	mov ip, lr\n"
	"	ldr lr, [sp], #4\n"
	"	bx ip\n");

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	unsigned a[7] = {0};
	for (int i = 2; i < argc && i < 9; i++)
		a[i - 2] = (unsigned)strtoll(argv[i], NULL, 0);
	const char *f = argv[1];
	int r;
	if (!strcmp(f, "siphash_2u64"))
		r = (int)siphash_2u64((u64)a[1] << 32 | a[0], (u64)a[3] << 32 | a[2], &sipkey);
	else if (!strcmp(f, "poly7"))
		r = poly7(a[0], a[1], a[2], a[3], a[4], a[5], a[6]);
	else
		return 2;
	printf("%d\n", r);
	return 0;
}
