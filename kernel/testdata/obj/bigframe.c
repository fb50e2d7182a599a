/* A 5 KiB frame (issue 21): more than the 4 KiB stack mcountsim check
 * gives an --object's tasks by default, less than Linux's 8 KiB ARM
 * THREAD_SIZE; check --stack-words 2048 runs it. s_touch is traced too. */
#define NOINLINE __attribute__((noinline))

NOINLINE void s_touch(int *p, int n, int seed)
{
	for (int i = 0; i < n; i += 128)
		p[i] = seed * i + 1;
}

NOINLINE int big_frame(int seed)
{
	int buf[1280]; /* 5120 bytes */
	s_touch(buf, 1280, seed);
	int s = 0;
	for (int i = 0; i < 1280; i += 128)
		s += buf[i] ^ i;
	return s;
}
