/* Static keys (issue 21): the kernel's jump labels put a __jump_table
 * entry beside every static branch: the branch's and the target's
 * offsets (.long 1b - ., %l[l_yes] - .) and the key's (a pointer-sized
 * difference: R_X86_64_PC64 on x86-64, R_AARCH64_PREL64 on arm64, the
 * ADD64/SUB64 pair on riscv64). The code runs the nop of the disabled
 * key; the table is data the function never reads. */
#define NOINLINE __attribute__((noinline))

struct static_key {
	int enabled;
};
struct static_key jl_key;

#if defined(__x86_64__)
#define JUMP_NOP ".byte 0x0f,0x1f,0x44,0x00,0x00"
#define JUMP_PTR ".quad %c0 - ."
#elif defined(__arm__)
#define JUMP_NOP "nop"
#define JUMP_PTR ".long %c0 - ."
#elif defined(__riscv)
#define JUMP_NOP "nop"
#define JUMP_PTR ".quad %0 - ."
#else
#define JUMP_NOP "nop"
#define JUMP_PTR ".quad %c0 - ."
#endif

static inline __attribute__((always_inline)) int key_false(struct static_key *k)
{
	asm goto("1: " JUMP_NOP "\n\t.pushsection __jump_table, \"aw\"\n\t.balign 8\n\t"
		 ".long 1b - ., %l[l_yes] - .\n\t" JUMP_PTR "\n\t.popsection"
		 : : "i"(k) : : l_yes);
	return 0;
l_yes:
	return 1;
}

NOINLINE int j_key(int a, int b)
{
	int r = a * 3;
	if (key_false(&jl_key))
		r += b * 1000;
	return r + b;
}
