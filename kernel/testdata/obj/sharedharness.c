/* Runs one shared.c function natively (under qemu-user):
 *   sharedharness FUNCTION ARG...   prints the return value in decimal. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int s_lazy(int, int), s_silent(int, int), s_early(int), s_first(int);

#if defined(__arm__)
__asm__(".global __gnu_mcount_nc\n__gnu_mcount_nc:\n\tmov ip, lr\n\tldr lr, [sp], #4\n\tbx ip\n");
#elif defined(__x86_64__)
__asm__(".global __fentry__\n__fentry__:\n\tret\n");
#endif

int main(int argc, char **argv)
{
	int a[2] = {0};
	for (int i = 2; i < argc && i < 4; i++)
		a[i - 2] = (int)strtol(argv[i], 0, 0);
	int r = !strcmp(argv[1], "s_lazy")   ? s_lazy(a[0], a[1])
	      : !strcmp(argv[1], "s_silent") ? s_silent(a[0], a[1])
	      : !strcmp(argv[1], "s_early")  ? s_early(a[0])
	                                     : s_first(a[0]);
	printf("%d\n", r);
	return 0;
}
