/* Runs atomics.c's a_inc natively (under qemu-user):
 *   atomicsharness a_inc A N   prints the return value in decimal. */
#include <stdio.h>
#include <stdlib.h>

int a_inc(int, int);

#if defined(__arm__)
__asm__(".global __gnu_mcount_nc\n__gnu_mcount_nc:\n\tmov ip, lr\n\tldr lr, [sp], #4\n\tbx ip\n");
#endif

int main(int argc, char **argv)
{
	if (argc < 4)
		return 2;
	printf("%d\n", a_inc((int)strtol(argv[2], 0, 0), (int)strtol(argv[3], 0, 0)));
	return 0;
}
