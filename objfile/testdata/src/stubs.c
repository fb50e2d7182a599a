/*
 * stubs.c: the external functions shapes.c calls, so that ../build.sh can
 * link small freestanding executables. Compiled without instrumentation.
 */
int ext_g(int x)
{
	return x + 1;
}

void ext_use(void *p, int n)
{
	(void)p;
	(void)n;
}

void __fentry__(void)
{
}

void mcount(void)
{
}

void _start(void)
{
	for (;;)
		;
}
