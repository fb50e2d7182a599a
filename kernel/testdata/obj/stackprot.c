/* stackprot.c (issue 21): -fstack-protector-strong with the global guard
 * (ARM's and RISC-V's kernels, arm64's without STACKPROTECTOR_PER_TASK):
 * the canary is the kernel's __stack_chk_guard word, and a frame whose
 * canary was overwritten calls __stack_chk_fail, which panics. guarded
 * writes n bytes into a 16-byte array: n > 16 overruns it into the
 * canary. */

#define NOINLINE __attribute__((noinline))

NOINLINE int fill(char *p, int n, int v)
{
	for (int i = 0; i < n; i++)
		p[i] = (char)(v + i);
	return n;
}

NOINLINE int guarded(int n, int v)
{
	char buf[16];
	int s = fill(buf, n, v);
	for (int i = 0; i < 16; i++)
		s = s * 31 + buf[i];
	return s;
}
