/* Weak symbols (issue 21): a weak function the object defines (an arch
 * would override it) and undefined weak references tested for NULL, as
 * kernel code tests an optional hook; a static link resolves those to 0.
 * gcc reaches their addresses through the GOT on arm64, even with
 * -fno-pie (R_AARCH64_ADR_GOT_PAGE, R_AARCH64_LD64_GOT_LO12_NC). */
#define NOINLINE __attribute__((noinline))

__attribute__((weak)) NOINLINE int w_hook(int x) { return x * 5 + 1; }
extern int w_missing(int x) __attribute__((weak));
extern int w_missing_data __attribute__((weak));

NOINLINE int w_weak(int a, int b)
{
	int r = w_hook(a);
	if (w_missing)
		r += w_missing(b);
	else
		r -= b * 3;
	return r;
}

NOINLINE int w_null(int a)
{
	return (w_missing == 0) + 2 * (&w_missing_data == 0) + a * 4;
}
