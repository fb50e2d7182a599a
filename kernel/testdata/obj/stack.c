/* A local array reached through computed pointers (issue 21): the loads
 * and stores go through a base register other than sp, into the task's
 * own stack. */
__attribute__((noinline)) int sum_local(int a, int b)
{
	int v[8];
	for (int i = 0; i < 8; i++)
		v[(i * 3 + a) & 7] = b + i;
	int s = 0;
	for (int i = 0; i < 4; i++)
		s = s * 3 + v[(b + i) & 7];
	return s;
}
