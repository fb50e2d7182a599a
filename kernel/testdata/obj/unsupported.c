/* A function with an instruction outside the executor's set. */
int odd(int x)
{
	unsigned r;
#ifdef __arm__
	__asm__ volatile("mrs %0, apsr" : "=r"(r));
#else
	unsigned hi;
	__asm__ volatile("rdtsc" : "=a"(r), "=d"(hi));
#endif
	return x + (int)(r & 0);
}
