/*
 * The riscv64 built-ins of mcountsim as an abstract Promela model (see
 * arm.pml for the scenario, the worker loop and what is not modelled). One
 * strategy per run: spin -DRV_MCOUNT (or -DRV_PFE16, -DRV_PFE8, -DRV_ATOMIC,
 * -DRV_PFE8_RETARGET) -a riscv64.pml && gcc -O2 -DSAFETY -o pan pan.c &&
 * ./pan
 *
 * The sites (kernel/riscv.go), one word per instruction, each with a
 * history of writes known in advance: wr[i] is the index of word i's latest
 * write, 0 the value after boot, and the value of write k follows from k
 * (odd: the enabled form).
 *   RV_MCOUNT:  after the prologue (which saved ra): auipc ra; jalr ra
 *               <-> two nops; ftrace_caller returns with ret to the site;
 *               f0 reloads ra from its frame, so only the jalr matters;
 *   RV_PFE16:   at entry: sd ra,-8(sp); auipc ra; jalr ra; ld ra,-8(sp)
 *               <-> four nops; f0's own prologue then stores ra at the
 *               same slot (addi sp,sp,-16; sd ra,8(sp)) and reloads it;
 *   RV_PFE8:    at entry: auipc t0; jalr t0 <-> two nops; the trampoline
 *               returns with jr t0;
 *   RV_ATOMIC:  auipc t0 once at boot; nop <-> jalr t0 by one plain
 *               aligned store, then flush_icache_all();
 *   RV_PFE8_RETARGET: the pfe8 pair moved between ftrace_caller (C) and
 *               ftrace_regs_caller (R), which differ in both halves of the
 *               pc-relative offset (kernel/riscv.go rvRegsGap), so an old
 *               auipc with a new jalr lands on neither.
 * Every store except rv-atomic's is inside stop_machine; the stopper flushes
 * every hart when it leaves, so those fetches are never stale. rv-atomic's
 * jalr word is stored plainly: a hart fetches any write from its floor
 * view[p] up to the latest (SPIN chooses) until flush_icache_all()'s fence.i
 * reaches it (exception entry and return do not synchronize on RISC-V).
 * The word is naturally aligned, so it is fetched whole (Ziccif). Views are
 * per worker, not per hart (more stale choices, never fewer). RISC-V has no
 * CMODX rule.
 *
 * Registers live across passes and preemptions, as in the machine: ra is
 * RET (the return into the workload loop) at f0's entry; t0 holds what the
 * last pass left (INIT before the first: the workload never writes it).
 * auipc sets its register to the site's upper half for its target (HIC,
 * HIR); jalr reg, X jumps to that register's value plus X's lower half and
 * writes the return address LINK into its destination.
 *
 * Hazards:
 *   bad-call:   a jalr whose register does not hold its own target's upper
 *               half from this site (the target is no function's entry);
 *   bad-return: f0's ret goes to ra other than RET.
 *
 * Expected: RV_MCOUNT, RV_PFE16, RV_PFE8, RV_PFE8_RETARGET "errors: 1";
 * RV_ATOMIC "errors: 0".
 */

mtype = { INIT, RET, HIC, HIR, LINK, JUNK };

#define NW	4

byte wr[NW];
byte view[2 * NW];
byte sj;

#define ON(k)		((k) % 2 == 1)

inline syncall()
{
	sj = 0;
	do
	:: sj < 2 * NW -> view[sj] = wr[sj % NW]; sj++
	:: else -> break
	od;
	sj = 0
}

/* one stop_machine writing every word of the site */
#define SM	atomic { syncall(); wr[0]++; wr[1]++; wr[2]++; wr[3]++; syncall() }

inline pick(p, i, k)
{
	k = view[p * NW + i];
	do
	:: k < wr[i] -> k++
	:: break
	od;
	view[p * NW + i] = k
}

/* auipc reg, target, when word i's write k is the auipc */
#define AUIPC(reg, hi)	reg = hi
/* jalr: bad-call unless reg holds this target's upper half */
#define JALR(reg, hi)	assert(reg == hi); reg = LINK

proctype worker(byte p)
{
	byte it = 0;
	byte k;
	mtype ra, t0 = INIT, slot = JUNK;
	do
	:: it < 2 ->
		ra = RET;	/* the workload's call f0 (auipc ra + jalr ra) */
#if defined(RV_MCOUNT)
		/* addi sp,sp,-16; sd ra,8(sp); sd s0,0(sp); ...; then the site */
		atomic { pick(p, 0, k); if :: ON(k) -> AUIPC(ra, HIC) :: else -> skip fi; k = 0 };
		atomic { pick(p, 1, k); if :: ON(k) -> JALR(ra, HIC) :: else -> skip fi; k = 0 };
		ra = RET;	/* ...; ld ra,8(sp): the frame's ra */
#elif defined(RV_PFE16)
		atomic { pick(p, 0, k); if :: ON(k) -> slot = ra :: else -> skip fi; k = 0 };
		atomic { pick(p, 1, k); if :: ON(k) -> AUIPC(ra, HIC) :: else -> skip fi; k = 0 };
		atomic { pick(p, 2, k); if :: ON(k) -> JALR(ra, HIC) :: else -> skip fi; k = 0 };
		atomic { pick(p, 3, k); if :: ON(k) -> ra = slot :: else -> skip fi; k = 0 };
		/* addi sp,sp,-16; sd ra,8(sp) (the slot sd ra,-8(sp) used); call g;
		 * ld ra,8(sp); ...; ret */
		slot = ra;
#elif defined(RV_PFE8)
		atomic { pick(p, 0, k); if :: ON(k) -> AUIPC(t0, HIC) :: else -> skip fi; k = 0 };
		atomic { pick(p, 1, k); if :: ON(k) -> JALR(t0, HIC) :: else -> skip fi; k = 0 };
#elif defined(RV_PFE8_RETARGET)
		/* even writes: the pair to ftrace_caller, odd: to ftrace_regs_caller */
		atomic { pick(p, 0, k); if :: ON(k) -> AUIPC(t0, HIR) :: else -> AUIPC(t0, HIC) fi; k = 0 };
		atomic { pick(p, 1, k); if :: ON(k) -> JALR(t0, HIR) :: else -> JALR(t0, HIC) fi; k = 0 };
#elif defined(RV_ATOMIC)
		AUIPC(t0, HIC);	/* written at boot, never changed */
		atomic { pick(p, 1, k); if :: ON(k) -> JALR(t0, HIC) :: else -> skip fi; k = 0 };
#else
#error "define one of RV_MCOUNT RV_PFE16 RV_PFE8 RV_ATOMIC RV_PFE8_RETARGET"
#endif
		assert(ra == RET);	/* else bad-return */
		it++
	:: else -> break
	od
}

#if defined(RV_ATOMIC)
/* one aligned store of the jalr (or nop) word, then flush_icache_all():
 * fence.i on every hart */
#define TRANSITION	wr[1]++; atomic { syncall() }
#else
#define TRANSITION	SM
#endif

proctype patcher()
{
	TRANSITION;	/* enable (or retarget to ftrace_regs_caller) */
	TRANSITION	/* disable (or back to ftrace_caller) */
}

init
{
	atomic {
		run worker(0);
		run worker(1);
		run patcher()
	}
}
