/*
 * harness runs single A64 instructions for TestQEMUDifferential
 * (isa/arm64/qemu_test.go) under qemu-aarch64.
 *
 * stdin:  records of struct in (little endian): the instruction word (and
 *         4 bytes of padding), x0-x30, sp, nzcv (bits 31-28) and MEM_SIZE
 *         bytes of memory placed at MEM_ADDR.
 * stdout: for each record a struct out: x0-x30, sp and nzcv after the
 *         instruction, whether control reached the "taken" exit (the
 *         instruction's address + 8) rather than the next one (+4), and the
 *         memory at MEM_ADDR.
 *
 * Case i of a batch runs in the block at CODE_ADDR + 32*i:
 *     0: ldr x1, [x0, #8]     x0 = &ctx on entry, x1 = this block
 *     4: ldr x0, [x0]
 *     8: <instruction>
 *    12: b save_next
 *    16: b save_taken
 * entered from enter(), which saved the host's callee-saved registers, sp
 * and tpidr_el0 in ctx and loaded every other register, sp and nzcv from
 * it. The save stubs park x0 in tpidr_el0 (the only scratch place left),
 * store the state back into ctx and return to enter()'s caller. The code
 * block is mapped at a fixed address within B range of the stubs, the
 * memory window within LDR (literal) range of the blocks.
 * Build with  aarch64-linux-gnu-gcc -static -O2
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#define CODE_ADDR 0x04000000ul
#define MEM_ADDR  0x04040000ul
#define MEM_SIZE  256
#define BLOCK     8 /* words */
#define BATCH     4096

struct in {
	uint32_t word, pad;
	uint64_t x[31], sp, nzcv;
	uint8_t mem[MEM_SIZE];
};

struct out {
	uint64_t x[31], sp, nzcv, taken;
	uint8_t mem[MEM_SIZE];
};

/* ctx: x0-x30 at 0, sp at 248, nzcv at 256, taken at 264, host state at 272. */
struct ctx {
	uint64_t x[31], sp, nzcv, taken;
	uint64_t host[14];
} ctx;

void enter(struct ctx *c, uint32_t *block);
void save_next(void);
void save_taken(void);

__asm__(
	".text\n"
	".global enter\n"
	"enter:\n"
	"	stp x19, x20, [x0, #272]\n"
	"	stp x21, x22, [x0, #288]\n"
	"	stp x23, x24, [x0, #304]\n"
	"	stp x25, x26, [x0, #320]\n"
	"	stp x27, x28, [x0, #336]\n"
	"	stp x29, x30, [x0, #352]\n"
	"	mov x2, sp\n"
	"	str x2, [x0, #368]\n"
	"	mrs x2, tpidr_el0\n"
	"	str x2, [x0, #376]\n"
	"	ldr x2, [x0, #256]\n"
	"	msr nzcv, x2\n"
	"	ldr x2, [x0, #248]\n"
	"	mov sp, x2\n"
	"	ldp x2, x3, [x0, #16]\n"
	"	ldp x4, x5, [x0, #32]\n"
	"	ldp x6, x7, [x0, #48]\n"
	"	ldp x8, x9, [x0, #64]\n"
	"	ldp x10, x11, [x0, #80]\n"
	"	ldp x12, x13, [x0, #96]\n"
	"	ldp x14, x15, [x0, #112]\n"
	"	ldp x16, x17, [x0, #128]\n"
	"	ldp x18, x19, [x0, #144]\n"
	"	ldp x20, x21, [x0, #160]\n"
	"	ldp x22, x23, [x0, #176]\n"
	"	ldp x24, x25, [x0, #192]\n"
	"	ldp x26, x27, [x0, #208]\n"
	"	ldp x28, x29, [x0, #224]\n"
	"	ldr x30, [x0, #240]\n"
	"	clrex\n" /* the monitor is open, as on a fresh isatest.Bus */
	"	br x1\n"
	".global save_taken\n"
	"save_taken:\n"
	"	msr tpidr_el0, x0\n"
	"	adrp x0, ctx\n"
	"	add x0, x0, :lo12:ctx\n"
	"	str x1, [x0, #8]\n"
	"	mov x1, #1\n"
	"	b 1f\n"
	".global save_next\n"
	"save_next:\n"
	"	msr tpidr_el0, x0\n"
	"	adrp x0, ctx\n"
	"	add x0, x0, :lo12:ctx\n"
	"	str x1, [x0, #8]\n"
	"	mov x1, #0\n"
	"1:	str x1, [x0, #264]\n"
	"	stp x2, x3, [x0, #16]\n"
	"	stp x4, x5, [x0, #32]\n"
	"	stp x6, x7, [x0, #48]\n"
	"	stp x8, x9, [x0, #64]\n"
	"	stp x10, x11, [x0, #80]\n"
	"	stp x12, x13, [x0, #96]\n"
	"	stp x14, x15, [x0, #112]\n"
	"	stp x16, x17, [x0, #128]\n"
	"	stp x18, x19, [x0, #144]\n"
	"	stp x20, x21, [x0, #160]\n"
	"	stp x22, x23, [x0, #176]\n"
	"	stp x24, x25, [x0, #192]\n"
	"	stp x26, x27, [x0, #208]\n"
	"	stp x28, x29, [x0, #224]\n"
	"	str x30, [x0, #240]\n"
	"	mov x1, sp\n"
	"	str x1, [x0, #248]\n"
	"	mrs x1, nzcv\n"
	"	str x1, [x0, #256]\n"
	"	mrs x1, tpidr_el0\n"
	"	str x1, [x0]\n"
	"	ldr x1, [x0, #376]\n"
	"	msr tpidr_el0, x1\n"
	"	ldr x1, [x0, #368]\n"
	"	mov sp, x1\n"
	"	ldp x19, x20, [x0, #272]\n"
	"	ldp x21, x22, [x0, #288]\n"
	"	ldp x23, x24, [x0, #304]\n"
	"	ldp x25, x26, [x0, #320]\n"
	"	ldp x27, x28, [x0, #336]\n"
	"	ldp x29, x30, [x0, #352]\n"
	"	ret\n");

/* b from the word at `from` to `to`. */
static uint32_t branch(uint32_t *from, void (*to)(void))
{
	int64_t d = (int64_t)(uintptr_t)to - (int64_t)(uintptr_t)from;
	return 0x14000000u | ((uint32_t)(d >> 2) & 0x03ffffffu);
}

static struct in in[BATCH];

int main(void)
{
	size_t size = BATCH * BLOCK * 4;
	uint32_t *code = mmap((void *)CODE_ADDR, size, PROT_READ | PROT_WRITE | PROT_EXEC,
	                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	uint8_t *mem = mmap((void *)MEM_ADDR, 4096, PROT_READ | PROT_WRITE,
	                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	if (code != (uint32_t *)CODE_ADDR || mem != (uint8_t *)MEM_ADDR) {
		fprintf(stderr, "harness: mmap failed\n");
		return 2;
	}
	int64_t reach = (int64_t)(uintptr_t)save_next - (int64_t)CODE_ADDR;
	if (reach < -(1l << 27) + (int64_t)size || reach >= (1l << 27) - (int64_t)size) {
		fprintf(stderr, "harness: save stubs out of B range of the code\n");
		return 2;
	}
	for (size_t i = 0; i < BATCH; i++) {
		uint32_t *b = code + i * BLOCK;
		b[0] = 0xf9400401; /* ldr x1, [x0, #8] */
		b[1] = 0xf9400000; /* ldr x0, [x0] */
		b[2] = 0xd503201f;
		b[3] = branch(b + 3, save_next);
		b[4] = branch(b + 4, save_taken);
	}
	static char obuf[1 << 16];
	setvbuf(stdout, obuf, _IOFBF, sizeof obuf);

	size_t n;
	while ((n = fread(in, sizeof in[0], BATCH, stdin)) > 0) {
		for (size_t i = 0; i < n; i++)
			code[i * BLOCK + 2] = in[i].word;
		__builtin___clear_cache((char *)code, (char *)(code + n * BLOCK));
		for (size_t i = 0; i < n; i++) {
			struct out out;
			memcpy(ctx.x, in[i].x, sizeof ctx.x);
			ctx.sp = in[i].sp;
			ctx.nzcv = in[i].nzcv;
			memcpy(mem, in[i].mem, MEM_SIZE);
			enter(&ctx, code + i * BLOCK);
			memcpy(out.x, ctx.x, sizeof out.x);
			out.sp = ctx.sp;
			out.nzcv = ctx.nzcv & 0xf0000000u;
			out.taken = ctx.taken;
			memcpy(out.mem, mem, MEM_SIZE);
			if (fwrite(&out, sizeof out, 1, stdout) != 1)
				return 1;
		}
		if (n < BATCH)
			break;
	}
	return fflush(stdout) == 0 ? 0 : 1;
}
