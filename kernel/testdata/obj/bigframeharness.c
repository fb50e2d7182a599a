/* Runs bigframe.c's big_frame natively (under qemu-user):
 *   bigframeharness big_frame SEED   prints the return value in decimal. */
#include <stdio.h>
#include <stdlib.h>

int big_frame(int);

#if defined(__arm__)
__asm__(".global __gnu_mcount_nc\n__gnu_mcount_nc:\n\tmov ip, lr\n\tldr lr, [sp], #4\n\tbx ip\n");
#endif

int main(int argc, char **argv)
{
	printf("%d\n", big_frame(argc > 2 ? (int)strtol(argv[2], 0, 0) : 0));
	return 0;
}
