/* Runs one bits.c function natively (under qemu-riscv64 / qemu-aarch64):
 *   bitsharness FUNCTION ARG...   prints the return value in decimal. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int b_clz(long), b_ctz(long), b_clz32(int), b_ctz32(int), b_ffs(long), b_popcount(long), b_popcount32(int);
int b_parity(long), b_clrsb(long), b_bswap(long), b_nth_bit(long, int), b_wide(long, long, int);

__asm__(".global _mcount\n_mcount:\n\tret\n");

int main(int argc, char **argv)
{
	long a[3] = {0};
	for (int i = 2; i < argc && i < 5; i++)
		a[i - 2] = strtol(argv[i], 0, 0);
	const char *f = argv[1];
	int r;
	if (!strcmp(f, "b_clz")) r = b_clz(a[0]);
	else if (!strcmp(f, "b_ctz")) r = b_ctz(a[0]);
	else if (!strcmp(f, "b_clz32")) r = b_clz32((int)a[0]);
	else if (!strcmp(f, "b_ctz32")) r = b_ctz32((int)a[0]);
	else if (!strcmp(f, "b_ffs")) r = b_ffs(a[0]);
	else if (!strcmp(f, "b_popcount")) r = b_popcount(a[0]);
	else if (!strcmp(f, "b_popcount32")) r = b_popcount32((int)a[0]);
	else if (!strcmp(f, "b_parity")) r = b_parity(a[0]);
	else if (!strcmp(f, "b_clrsb")) r = b_clrsb(a[0]);
	else if (!strcmp(f, "b_bswap")) r = b_bswap(a[0]);
	else if (!strcmp(f, "b_nth_bit")) r = b_nth_bit(a[0], (int)a[1]);
	else if (!strcmp(f, "b_wide")) r = b_wide(a[0], a[1], (int)a[2]);
	else return 2;
	printf("%d\n", r);
	return 0;
}
