/* Thread-local storage: a relocation mcountsim does not link (TLS). */
__thread int tv;

int tls(int x)
{
	tv += x;
	return tv;
}
