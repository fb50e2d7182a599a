/*
 * harness runs single A32 instructions for TestQEMUDifferential
 * (isa/arm/qemu_test.go) under qemu-arm.
 *
 * stdin:  records of struct in  (little endian): the instruction word,
 *         r0-r15 (r13 = sp and r14 = lr are loaded too, r15 is ignored),
 *         the CPSR (only N Z C V, bits 31-28, are used) and MEM_SIZE bytes
 *         of memory placed at MEM_ADDR.
 * stdout: for each record a struct out: r0-r15 after the instruction (r15
 *         is 0), the APSR and the memory at MEM_ADDR.
 *
 * Each instruction runs in writable and executable memory between a stub
 * that loads the state and one that saves it (see gen_shared). Build with
 *   arm-linux-gnueabi-gcc -static -marm -march=armv7-a -O2
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define MEM_ADDR 0x20000000u
#define MEM_SIZE 128

struct in {
	uint32_t word;
	uint32_t r[16];
	uint32_t cpsr;
	uint8_t mem[MEM_SIZE];
};

struct out {
	uint32_t r[16];
	uint32_t cpsr;
	uint8_t mem[MEM_SIZE];
};

/*
 * The shared code, generated once:
 *   enter: r0 = uint32_t st[17] (r0-r15, cpsr); sets sp, lr, NZCV and
 *          r0-r12 from it and jumps through slot_target to a case block;
 *   save:  stores r0-r14 and the APSR back into st and returns.
 * A case block is: <instruction>; ldr pc, [pc, #-4]; .word save.
 */
enum {
	/* Word indices in the code region. The shared code ends page 0, its
	 * data slots start page 1 (qemu watches writes per page, and a write
	 * to a page holding translated code throws that code away), and the
	 * case blocks start at page 2. */
	ENTER = 1000, SAVE = ENTER + 12,
	SLOT_SP = 1024, SLOT_STATE, SLOT_SCRATCH, SLOT_TARGET,
	BLOCKS = 2048, BLOCK = 4
};

/* ldr/str Rt, [pc, #slot] from the instruction at index at. */
static uint32_t pcrel(uint32_t op, int rt, int at, int slot)
{
	return op | (uint32_t)rt << 12 | (uint32_t)(slot * 4 - (at * 4 + 8));
}

static void gen_shared(uint32_t *c)
{
	const uint32_t STR = 0xe58f0000, LDR = 0xe59f0000;
	const int E = ENTER, S = SAVE;
	c[E + 0] = 0xe92d5ff0;                   /* push {r4-r12, lr}          */
	c[E + 1] = pcrel(STR, 13, E + 1, SLOT_SP);    /* str sp, [slot_sp]     */
	c[E + 2] = pcrel(STR, 0, E + 2, SLOT_STATE);  /* str r0, [slot_state]  */
	c[E + 3] = 0xe5901040;                   /* ldr r1, [r0, #64]          */
	c[E + 4] = 0xe128f001;                   /* msr CPSR_f, r1             */
	c[E + 5] = 0xe590d034;                   /* ldr sp, [r0, #52]          */
	c[E + 6] = 0xe590e038;                   /* ldr lr, [r0, #56]          */
	c[E + 7] = 0xe8901fff;                   /* ldm r0, {r0-r12}           */
	c[E + 8] = 0xf57ff01f;                   /* clrex: the monitor is open, as
	                                          * on a fresh isatest.Bus      */
	c[E + 9] = pcrel(LDR, 15, E + 9, SLOT_TARGET); /* ldr pc, [slot_target] */
	c[S + 0] = pcrel(STR, 0, S + 0, SLOT_SCRATCH); /* str r0, [slot_scratch] */
	c[S + 1] = pcrel(LDR, 0, S + 1, SLOT_STATE);   /* ldr r0, [slot_state]   */
	c[S + 2] = 0xe2800004;                   /* add r0, r0, #4             */
	c[S + 3] = 0xe8807ffe;                   /* stm r0, {r1-r12, sp, lr}   */
	c[S + 4] = 0xe2400004;                   /* sub r0, r0, #4             */
	c[S + 5] = 0xe10f1000;                   /* mrs r1, APSR               */
	c[S + 6] = 0xe5801040;                   /* str r1, [r0, #64]          */
	c[S + 7] = pcrel(LDR, 1, S + 7, SLOT_SCRATCH); /* ldr r1, [slot_scratch] */
	c[S + 8] = 0xe5801000;                   /* str r1, [r0]               */
	c[S + 9] = pcrel(LDR, 13, S + 9, SLOT_SP);     /* ldr sp, [slot_sp]      */
	c[S + 10] = 0xe8bd9ff0;                  /* pop {r4-r12, pc}           */
}

/* Case blocks are generated for BATCH records at a time, each in its own
 * place, so that qemu translates each once instead of invalidating
 * translated code for every record. */
#define BATCH 4096

static struct in in[BATCH];

int main(void)
{
	size_t size = (BLOCKS + BATCH * BLOCK) * 4;
	uint32_t *code = mmap(0, size, PROT_READ | PROT_WRITE | PROT_EXEC,
	                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint8_t *mem = mmap((void *)MEM_ADDR, 4096, PROT_READ | PROT_WRITE,
	                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	if (code == MAP_FAILED || mem != (uint8_t *)MEM_ADDR) {
		fprintf(stderr, "harness: mmap failed\n");
		return 2;
	}
	uint32_t *blocks = code + BLOCKS;
	gen_shared(code);
	static char obuf[1 << 16];
	setvbuf(stdout, obuf, _IOFBF, sizeof obuf);

	size_t n;
	while ((n = fread(in, sizeof in[0], BATCH, stdin)) > 0) {
		for (size_t i = 0; i < n; i++) {
			uint32_t *b = blocks + i * BLOCK;
			b[0] = in[i].word;
			b[1] = 0xe51ff004; /* ldr pc, [pc, #-4] */
			b[2] = (uint32_t)(uintptr_t)(code + SAVE);
			b[3] = 0;
		}
		__builtin___clear_cache((char *)code, (char *)(blocks + n * BLOCK));
		for (size_t i = 0; i < n; i++) {
			struct out out;
			uint32_t st[17];
			void (*run)(uint32_t *) = (void (*)(uint32_t *))(code + ENTER);
			code[SLOT_TARGET] = (uint32_t)(uintptr_t)(blocks + i * BLOCK);
			memcpy(st, in[i].r, sizeof in[i].r);
			st[16] = in[i].cpsr;
			memcpy(mem, in[i].mem, MEM_SIZE);
			run(st);
			memcpy(out.r, st, sizeof out.r);
			out.r[15] = 0;
			out.cpsr = st[16];
			memcpy(out.mem, mem, MEM_SIZE);
			if (fwrite(&out, sizeof out, 1, stdout) != 1)
				return 1;
		}
		if (n < BATCH)
			break;
	}
	return fflush(stdout) == 0 ? 0 : 1;
}
