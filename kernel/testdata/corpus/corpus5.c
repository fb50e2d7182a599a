/* The fifth corpus of issue 21: what a kernel object holds beside its
 * code, written for mcountsim (none is copied from Linux): static keys
 * (asm goto over a nop, a __jump_table entry of offsets), exported symbols
 * (___ksymtab entries of offsets, __ksymtab_strings), exception-table and
 * bug-table entries on paths not taken, and prefetch hints in list walks
 * (prefetch(), prefetchw()). The rules of corpus.c: every exported
 * function takes at most six int arguments and returns an int-sized
 * value; calls5.txt gives one call of each. */

typedef unsigned char u8;
typedef unsigned int u32;
typedef unsigned long ulong;
typedef unsigned long long u64;

#define NOINLINE __attribute__((noinline))

struct static_key {
	int enabled;
};
struct static_key h_key_a, h_key_b;

#if defined(__x86_64__)
#define JUMP_NOP ".byte 0x0f,0x1f,0x44,0x00,0x00"
#define JUMP_PTR ".quad %c0 - ."
#define BUG_INSN "ud2"
#elif defined(__arm__)
#define JUMP_NOP "nop"
#define JUMP_PTR ".long %c0 - ."
#define BUG_INSN ".word 0xe7f001f2"
#elif defined(__riscv)
#define JUMP_NOP "nop"
#define JUMP_PTR ".quad %0 - ."
#define BUG_INSN "ebreak"
#else
#define JUMP_NOP "nop"
#define JUMP_PTR ".quad %c0 - ."
#define BUG_INSN "brk #0x800"
#endif

static inline __attribute__((always_inline)) int static_branch(struct static_key *k)
{
	asm goto("1: " JUMP_NOP "\n\t.pushsection __jump_table, \"aw\"\n\t.balign 8\n\t"
		 ".long 1b - ., %l[l_yes] - .\n\t" JUMP_PTR "\n\t.popsection"
		 : : "i"(k) : : l_yes);
	return 0;
l_yes:
	return 1;
}

/* WARN_ON(c): a trap with a __bug_table entry, on a path not taken. */
#define WARN_ON(c)                                                                                        \
	({                                                                                                \
		int __c = !!(c);                                                                          \
		if (__builtin_expect(__c, 0))                                                             \
			asm volatile("2: " BUG_INSN "\n\t.pushsection __bug_table, \"aw\"\n\t.balign 4\n\t" \
				     ".long 2b - .\n\t.short %c0, 0\n\t.popsection" : : "i"(__LINE__));   \
		__c;                                                                                      \
	})

/* EXPORT_SYMBOL(f): an entry of offsets to the function and its name. */
#define EXPORT_SYMBOL(f)                                                                          \
	asm(".pushsection \"___ksymtab+" #f "\", \"a\"\n\t.balign 4\n__ksymtab_" #f ":\n\t"       \
	    ".long " #f " - ., __kstrtab_" #f " - ., __kstrtabns_" #f " - .\n\t.popsection\n\t" \
	    ".pushsection __ksymtab_strings, \"aMS\", %progbits, 1\n__kstrtab_" #f ":\n\t"       \
	    ".asciz \"" #f "\"\n__kstrtabns_" #f ":\n\t.asciz \"\"\n\t.popsection")

/* Two static branches, both keys disabled: the nops run. */
NOINLINE int h_static_key(int a, int b)
{
	int r = a * 7;
	if (static_branch(&h_key_a))
		r += 1000;
	for (int i = 0; i < b; i++) {
		if (static_branch(&h_key_b))
			r ^= 0x5555;
		r = r * 3 + i;
	}
	return r;
}
EXPORT_SYMBOL(h_static_key);

struct hnode {
	struct hnode *next;
	u32 key, val;
};

/* A chained hash on the stack, walked with prefetch() of the next node
 * and prefetchw() of the one to update. */
NOINLINE int h_prefetch(int seed, int n)
{
	struct hnode pool[24], *heads[8] = {0};
	u32 x = (u32)seed;
	for (int i = 0; i < 24; i++) {
		x = x * 1103515245u + 12345u;
		pool[i].key = x >> 20;
		pool[i].val = (u32)i;
		pool[i].next = heads[pool[i].key & 7];
		heads[pool[i].key & 7] = &pool[i];
	}
	u32 sum = 0;
	for (int k = 0; k < n; k++) {
		for (struct hnode *p = heads[k & 7]; p; p = p->next) {
			__builtin_prefetch(p->next);
			if ((p->key ^ (u32)k) & 1) {
				__builtin_prefetch(p, 1);
				p->val += (u32)k;
			}
			sum = sum * 31 + p->val + p->key;
		}
	}
	return (int)sum;
}
EXPORT_SYMBOL(h_prefetch);

static NOINLINE u32 checked_div(u32 a, u32 b)
{
	if (WARN_ON(b == 0))
		return 0;
	return a / b;
}

/* A division behind WARN_ON (its trap not reached). */
NOINLINE int h_warn(int a, int b)
{
	u32 r = 0;
	for (int i = 1; i <= 8; i++)
		r += checked_div((u32)a * (u32)i, (u32)b + (u32)i);
	return (int)r;
}
EXPORT_SYMBOL(h_warn);
