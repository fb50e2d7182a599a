/* Runs one fixture function natively (under qemu-arm / qemu-x86_64):
 *   harness FUNCTION ARG...   prints the return value in decimal.
 * The profiling hooks return at once and ext_fn returns 0, as mcountsim's
 * trampolines and ABI stubs do. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int leaf(int, int);
int sum_to(int);
int big(int, int, int, int);
int use_data(int);
int wide(int, int);
int bytes(int);
int branches(int, int);
int caller(int, int);
int indirect(int);
int tail(int);
int jump(int, int);

int ext_fn(int x) { (void)x; return 0; }

#ifdef __arm__
/* __gnu_mcount_nc: the caller pushed lr; return to the caller with it restored. */
__asm__(".global __gnu_mcount_nc\n"
	"__gnu_mcount_nc:\n"
	"	mov ip, lr\n"
	"	ldr lr, [sp], #4\n"
	"	bx ip\n");
#else
__asm__(".global mcount\nmcount:\n\tret\n.global __fentry__\n__fentry__:\n\tret\n");
#endif

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	long a[4] = {0, 0, 0, 0};
	for (int i = 2; i < argc && i < 6; i++)
		a[i - 2] = strtol(argv[i], NULL, 0);
	const char *f = argv[1];
	int r;
	if (!strcmp(f, "leaf")) r = leaf(a[0], a[1]);
	else if (!strcmp(f, "sum_to")) r = sum_to(a[0]);
	else if (!strcmp(f, "big")) r = big(a[0], a[1], a[2], a[3]);
	else if (!strcmp(f, "use_data")) r = use_data(a[0]);
	else if (!strcmp(f, "wide")) r = wide(a[0], a[1]);
	else if (!strcmp(f, "bytes")) r = bytes(a[0]);
	else if (!strcmp(f, "branches")) r = branches(a[0], a[1]);
	else if (!strcmp(f, "caller")) r = caller(a[0], a[1]);
	else if (!strcmp(f, "indirect")) r = indirect(a[0]);
	else if (!strcmp(f, "tail")) r = tail(a[0]);
	else if (!strcmp(f, "jump")) r = jump(a[0], a[1]);
	else return 2;
	printf("%d\n", r);
	return 0;
}
