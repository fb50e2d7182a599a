/* Runs one args8.c function natively (under qemu-aarch64 / qemu-riscv64):
 *   harness64 FUNCTION ARG...   prints the return value in decimal
 * (truncated to int, as the tests read the low 32 bits of x0 / a0). The
 * profiling hook _mcount of -pg returns at once, as mcountsim's does, and
 * ext_fn returns 0, as mcountsim's ABI stubs do. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int leaf(int, int);
int sum_to(int);
long args5(long, long, long, long, long);
long args6(long, int, long, int, long, int);
int args7(int, int, int, int, int, int, int);
long args8(long, long, long, long, long, long, long, long);
int big(int, int, int, int, int, int, int, int);
int use_data(int);
int wide(long, long);
int divs(long, long, int, int);
int bytes(int);
int branches(int, int);
int caller(int, int);
int indirect(int);
int tail(int);
int jump(int, int);

int ext_fn(int x) { (void)x; return 0; }

__asm__(".global _mcount\n_mcount:\n\tret\n");

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	long a[8] = {0};
	for (int i = 2; i < argc && i < 10; i++)
		a[i - 2] = (long)strtoull(argv[i], NULL, 0);
	const char *f = argv[1];
	long r;
	if (!strcmp(f, "leaf")) r = leaf(a[0], a[1]);
	else if (!strcmp(f, "sum_to")) r = sum_to(a[0]);
	else if (!strcmp(f, "args5")) r = args5(a[0], a[1], a[2], a[3], a[4]);
	else if (!strcmp(f, "args6")) r = args6(a[0], a[1], a[2], a[3], a[4], a[5]);
	else if (!strcmp(f, "args7")) r = args7(a[0], a[1], a[2], a[3], a[4], a[5], a[6]);
	else if (!strcmp(f, "args8")) r = args8(a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7]);
	else if (!strcmp(f, "big")) r = big(a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7]);
	else if (!strcmp(f, "use_data")) r = use_data(a[0]);
	else if (!strcmp(f, "wide")) r = wide(a[0], a[1]);
	else if (!strcmp(f, "divs")) r = divs(a[0], a[1], a[2], a[3]);
	else if (!strcmp(f, "bytes")) r = bytes(a[0]);
	else if (!strcmp(f, "branches")) r = branches(a[0], a[1]);
	else if (!strcmp(f, "caller")) r = caller(a[0], a[1]);
	else if (!strcmp(f, "indirect")) r = indirect(a[0]);
	else if (!strcmp(f, "tail")) r = tail(a[0]);
	else if (!strcmp(f, "jump")) r = jump(a[0], a[1]);
	else return 2;
	printf("%d\n", (int)r);
	return 0;
}
