/* Runs one deadregs.c function natively (under qemu-user):
 *   deadregsharness FUNCTION ARG   prints the return value in decimal. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

long r_entry(long), r_return(long);

#if defined(__arm__)
__asm__(".global __gnu_mcount_nc\n__gnu_mcount_nc:\n\tmov ip, lr\n\tldr lr, [sp], #4\n\tbx ip\n");
#elif defined(__x86_64__)
__asm__(".global __fentry__\n__fentry__:\n\tret\n");
#endif

int main(int argc, char **argv)
{
	long a = argc > 2 ? strtol(argv[2], 0, 0) : 0;
	printf("%ld\n", !strcmp(argv[1], "r_entry") ? r_entry(a) : r_return(a));
	return 0;
}
