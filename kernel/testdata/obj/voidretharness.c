/* Runs one voidret.c function natively (under qemu-user):
 *   voidretharness FUNCTION ARG   prints the return value in decimal. */
#include <stdio.h>
#include <stdlib.h>

int v_twice(int);

#if defined(__aarch64__)
__asm__(".global _mcount\n_mcount:\n\tret\n");
#endif

int main(int argc, char **argv)
{
	(void)argc;
	printf("%d\n", v_twice((int)strtol(argv[2], 0, 0)));
	return 0;
}
