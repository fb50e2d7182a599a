/*
 * harness runs short RV64 instruction sequences for TestQEMUDifferential
 * (isa/riscv/qemu_test.go) under qemu-riscv64.
 *
 * stdin:  records of struct in (little endian): x0-x31 (x0 and x4 = tp are
 *         ignored: tp holds the harness's state pointer), CODE_SIZE bytes of
 *         instructions (padded with c.nop by the test) and MEM_SIZE bytes of
 *         memory placed at MEM_ADDR.
 * stdout: for each record a struct out: x0-x31 after the sequence (x0 is 0,
 *         x4 is the value that came in), the landing mark (below) and the
 *         memory at MEM_ADDR.
 *
 * Each record runs in a block of its own, generated once per batch:
 *
 *   +0   j save2        landing 2: a jump or branch 8 bytes back
 *   +4   nop
 *   +8   the record's CODE_SIZE bytes (entered here, with every register set)
 *   +24  j save0        landing 0: falling through the sequence
 *   +28  j save1        landing 1: a jump or branch 20 bytes forward
 *
 * save_k stores the registers and the mark k. The state pointer is parked in
 * a data slot (one page away from the code, as qemu watches writes per page)
 * and reloaded into tp by each save stub. Build with
 *   riscv64-linux-gnu-gcc -static -O2
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define MEM_ADDR 0x20000000u
#define MEM_SIZE 256
#define CODE_SIZE 16
#define CODE_ADDR 0x30000000u

struct in {
	uint64_t x[32];
	uint8_t code[CODE_SIZE];
	uint8_t mem[MEM_SIZE];
};

struct out {
	uint64_t x[32];
	uint64_t mark;
	uint8_t mem[MEM_SIZE];
};

/* The state the shared code reads and writes, in 8-byte slots. */
enum { ST_X = 0, ST_MARK = 32, ST_TARGET = 33, ST_HOST = 34, ST_SLOTS = 50 };
/* Host registers saved in ST_HOST..: ra sp gp tp s0-s11. */
static const int host_regs[16] = {1, 2, 3, 4, 8, 9, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27};

/* Byte offsets in the code region. */
enum { ENTER = 0, SAVE0 = 0x400, SAVE1 = 0x440, SAVE2 = 0x480, COMMON = 0x500,
       SLOT_STATE = 0x1000, BLOCKS = 0x2000, BLOCK = 32 };

static uint32_t itype(uint32_t op, uint32_t f3, int rd, int rs1, int32_t imm)
{
	return (uint32_t)imm << 20 | (uint32_t)rs1 << 15 | f3 << 12 | (uint32_t)rd << 7 | op;
}
static uint32_t sd(int rs2, int rs1, int32_t imm)
{
	uint32_t u = (uint32_t)imm;
	return (u >> 5) << 25 | (uint32_t)rs2 << 20 | (uint32_t)rs1 << 15 | 3u << 12 | (u & 31) << 7 | 0x23;
}
static uint32_t ld(int rd, int rs1, int32_t imm) { return itype(0x03, 3, rd, rs1, imm); }
static uint32_t addi(int rd, int rs1, int32_t imm) { return itype(0x13, 0, rd, rs1, imm); }
static uint32_t jalr(int rd, int rs1, int32_t imm) { return itype(0x67, 0, rd, rs1, imm); }
static uint32_t jal(int rd, int32_t off)
{
	uint32_t u = (uint32_t)off;
	return ((u >> 20) & 1) << 31 | ((u >> 1) & 0x3ff) << 21 | ((u >> 11) & 1) << 20 |
	       ((u >> 12) & 0xff) << 12 | (uint32_t)rd << 7 | 0x6f;
}

/* emit appends w at byte offset *at of code. */
static void emit(uint8_t *code, uint32_t *at, uint32_t w)
{
	memcpy(code + *at, &w, 4);
	*at += 4;
}

/* auipc rd + (ld|sd) of SLOT_STATE from the instruction at *at. */
static void slot_access(uint8_t *code, uint32_t *at, int reg, int base, int store)
{
	int32_t d = (int32_t)SLOT_STATE - (int32_t)*at;
	int32_t hi = (d + 0x800) >> 12, lo = d - hi * 4096;
	emit(code, at, (uint32_t)hi << 12 | (uint32_t)base << 7 | 0x17); /* auipc base, hi */
	emit(code, at, store ? sd(reg, base, lo) : ld(reg, base, lo));
}

static void gen_shared(uint8_t *code)
{
	uint32_t at = ENTER;
	/* enter(a0 = state): save the host registers, park a0, load the case. */
	for (int i = 0; i < 16; i++)
		emit(code, &at, sd(host_regs[i], 10, 8 * (ST_HOST + i)));
	slot_access(code, &at, 10, 5, 1);          /* slot_state = a0 (t0 scratch) */
	emit(code, &at, addi(4, 10, 0));           /* mv tp, a0 */
	for (int r = 1; r < 32; r++)
		if (r != 4)
			emit(code, &at, ld(r, 4, 8 * (ST_X + r)));
	emit(code, &at, ld(4, 4, 8 * ST_TARGET)); /* ld tp, target(tp) */
	emit(code, &at, jalr(0, 4, 0));           /* jr tp */

	const uint32_t saves[3] = {SAVE0, SAVE1, SAVE2};
	for (int k = 0; k < 3; k++) {
		at = saves[k];
		slot_access(code, &at, 4, 4, 0);           /* tp = slot_state */
		emit(code, &at, sd(1, 4, 8 * (ST_X + 1))); /* sd ra */
		emit(code, &at, addi(1, 0, k));            /* li ra, k */
		emit(code, &at, jal(0, (int32_t)COMMON - (int32_t)at));
	}
	at = COMMON;
	emit(code, &at, sd(1, 4, 8 * ST_MARK));
	for (int r = 2; r < 32; r++)
		if (r != 4)
			emit(code, &at, sd(r, 4, 8 * (ST_X + r)));
	for (int i = 0; i < 16; i++)
		if (host_regs[i] != 4)
			emit(code, &at, ld(host_regs[i], 4, 8 * (ST_HOST + i)));
	emit(code, &at, ld(4, 4, 8 * (ST_HOST + 3))); /* tp last */
	emit(code, &at, jalr(0, 1, 0));               /* ret */
}

#define BATCH 4096

static struct in in[BATCH];

int main(void)
{
	size_t size = BLOCKS + BATCH * BLOCK;
	uint8_t *code = mmap((void *)(uintptr_t)CODE_ADDR, size, PROT_READ | PROT_WRITE | PROT_EXEC,
	                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	uint8_t *mem = mmap((void *)(uintptr_t)MEM_ADDR, 4096, PROT_READ | PROT_WRITE,
	                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	if (code != (uint8_t *)(uintptr_t)CODE_ADDR || mem != (uint8_t *)(uintptr_t)MEM_ADDR) {
		fprintf(stderr, "harness: mmap failed\n");
		return 2;
	}
	gen_shared(code);
	static char obuf[1 << 16];
	setvbuf(stdout, obuf, _IOFBF, sizeof obuf);

	size_t n;
	while ((n = fread(in, sizeof in[0], BATCH, stdin)) > 0) {
		for (size_t i = 0; i < n; i++) {
			uint8_t *b = code + BLOCKS + i * BLOCK;
			uint32_t at = 0, base = BLOCKS + i * BLOCK;
			emit(b, &at, jal(0, (int32_t)SAVE2 - (int32_t)(base + 0)));
			emit(b, &at, addi(0, 0, 0));
			memcpy(b + 8, in[i].code, CODE_SIZE);
			at = 24;
			emit(b, &at, jal(0, (int32_t)SAVE0 - (int32_t)(base + 24)));
			emit(b, &at, jal(0, (int32_t)SAVE1 - (int32_t)(base + 28)));
		}
		__builtin___clear_cache((char *)code, (char *)(code + BLOCKS + n * BLOCK));
		for (size_t i = 0; i < n; i++) {
			static uint64_t st[ST_SLOTS];
			struct out out;
			void (*run)(uint64_t *) = (void (*)(uint64_t *))(uintptr_t)(code + ENTER);
			memcpy(st, in[i].x, sizeof in[i].x);
			st[ST_MARK] = ~0ull;
			st[ST_TARGET] = (uint64_t)(uintptr_t)(code + BLOCKS + i * BLOCK + 8);
			memcpy(mem, in[i].mem, MEM_SIZE);
			run(st);
			memcpy(out.x, st, sizeof out.x);
			out.x[0] = 0;
			out.mark = st[ST_MARK];
			memcpy(out.mem, mem, MEM_SIZE);
			if (fwrite(&out, sizeof out, 1, stdout) != 1)
				return 1;
		}
		if (n < BATCH)
			break;
	}
	return fflush(stdout) == 0 ? 0 : 1;
}
