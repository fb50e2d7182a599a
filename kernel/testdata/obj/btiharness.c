/* Runs one bti.c function natively (under qemu-user):
 *   btiharness FUNCTION ARG...   prints the return value in decimal. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int t_apply(int, int, int), op_add(int, int);

int main(int argc, char **argv)
{
	int a[3] = {0};
	for (int i = 2; i < argc && i < 5; i++)
		a[i - 2] = (int)strtol(argv[i], 0, 0);
	int r = !strcmp(argv[1], "t_apply") ? t_apply(a[0], a[1], a[2]) : op_add(a[0], a[1]);
	printf("%d\n", r);
	return 0;
}
