/* A function that never returns: mcountsim must stop it at the step budget. */
int spin(int x)
{
	volatile int v = x;
	for (;;)
		v = v + 1;
	return v;
}
