/*
 * The arm64 built-ins of mcountsim as an abstract Promela model (see
 * arm.pml for the scenario, the worker loop and what is not modelled). One
 * strategy per run: spin -DARM64_NOP_BL (or -DARM64_CALL_OPS,
 * -DARM64_MCOUNT, -DARM64_BOTH_PLAIN, -DARM64_BOTH_SM) -a arm64.pml &&
 * gcc -O2 -DSAFETY -o pan pan.c && ./pan
 *
 * The site (kernel/arm64.go): word 0 (compiled nop, mov x9, x30 once
 * enabled or after boot) and word 1, rec->ip (nop or bl ftrace_caller);
 * arm64-call-ops adds the 8-byte ftrace_ops literal before them, which
 * ftrace_caller reads as data; arm64-mcount has only word 1, the bl after
 * the frame record. Each word has a history of writes known in advance:
 * wr[i] is the index of its latest write, 0 the value after boot, and the
 * value of write k follows from k (odd: the enabled form).
 *
 * Per-CPU stale fetch and CMODX (model.md §1a): a worker fetching word i
 * sees any write from its floor view[p][i] up to the latest (SPIN chooses),
 * and its floor rises to what it fetched. synced[p][i] is the write it held
 * at its last synchronization point (exception entry and return, isb, the
 * stopper's entry and exit). A fetch of a word written since then is the
 * hazard cmodx unless both the word as synchronized and the latest word
 * are in the A64 concurrent-modification set (B, BL, BRK, HVC, ISB, NOP,
 * SMC, SVC: here nop and bl, not mov x9, x30). Views are kept per worker,
 * not per CPU; the synchronization of a timer preemption and its return is
 * left out (so is the storing CPU seeing its own stores): that only adds
 * stale choices and cmodx chances, never removes one.
 *
 * Registers (they live across passes and across preemptions, as in the
 * machine): x9, set by mov x9, x30 to the parent's return address RET;
 * ftrace_caller (WITH_ARGS) restores x30 from x9 and returns with ret x9
 * to the function, leaving x9 = the site's return LINK. The -pg era's
 * ftrace_caller saves and restores x29/x30 itself.
 *
 * Hazards:
 *   cmodx:      as above;
 *   bad-return: f0's ret goes to x30 other than RET (bl ran without this
 *               pass's mov x9, x30 and x9 held something else).
 *
 * Expected: ARM64_BOTH_PLAIN, ARM64_BOTH_SM "errors: 1"; ARM64_NOP_BL,
 * ARM64_CALL_OPS, ARM64_MCOUNT "errors: 0".
 */

#define NW	3		/* word 0, word 1, the ops literal */

byte wr[NW];
byte view[2 * NW];
byte synced[2 * NW];
byte sj;

mtype = { INIT, RET, LINK };

#if defined(ARM64_NOP_BL) || defined(ARM64_CALL_OPS)
#define W0MOV(k)	true		/* mov x9, x30 since boot, never written */
#elif defined(ARM64_BOTH_PLAIN) || defined(ARM64_BOTH_SM)
#define W0MOV(k)	((k) % 2 == 1)	/* nop, mov x9, x30, nop */
#elif !defined(ARM64_MCOUNT)
#error "define one of ARM64_NOP_BL ARM64_CALL_OPS ARM64_MCOUNT ARM64_BOTH_PLAIN ARM64_BOTH_SM"
#endif
#define W1BL(k)		((k) % 2 == 1)	/* nop, bl, nop */
#define INSET0(k)	(!W0MOV(k))	/* word 0 values in the CMODX set */

inline syncp(p)
{
	sj = 0;
	do
	:: sj < NW -> view[p * NW + sj] = wr[sj]; synced[p * NW + sj] = wr[sj]; sj++
	:: else -> break
	od;
	sj = 0
}

inline syncall()
{
	syncp(0);
	syncp(1)
}

inline pick(p, i, k)
{
	k = view[p * NW + i];
	do
	:: k < wr[i] -> k++
	:: break
	od;
	view[p * NW + i] = k
}

proctype worker(byte p)
{
	byte it = 0;
	byte k;
	mtype x9 = INIT, x30;
	do
	:: it < 2 ->
		x30 = RET;	/* the workload's bl f0 */
#ifndef ARM64_MCOUNT
		atomic {
			pick(p, 0, k);
			assert(wr[0] == synced[p * NW + 0] ||
				INSET0(synced[p * NW + 0]) && INSET0(wr[0]));	/* else cmodx */
			if
			:: W0MOV(k) -> x9 = x30
			:: else -> skip
			fi;
			k = 0
		};
#endif
		atomic {
			pick(p, 1, k);	/* nop and bl are both in the CMODX set */
			if
			:: W1BL(k) ->
#if defined(ARM64_MCOUNT)
				skip	/* mcount_enter/mcount_exit keep x29, x30 */
#else
				x30 = x9; x9 = LINK	/* ret x9 with x30 from x9's slot */
#endif
			:: else -> skip
			fi;
			k = 0
		};
#ifdef ARM64_CALL_OPS
		/* with the bl taken, ftrace_caller loads the ops literal: as data,
		 * the latest value, ftrace_nop_ops or tracer_ops: both valid ops */
#endif
		/* the body: stp x29, x30; bl g; ldp x29, x30; ret */
		assert(x30 == RET);	/* else bad-return */
		it++
	:: else -> break
	od
}

#if defined(ARM64_BOTH_SM)
#define STORE(f)	atomic { syncall(); wr[0]++; wr[1]++; syncall() }	/* one stop_machine */
#define ENABLE		STORE(1)
#define DISABLE		STORE(2)
#elif defined(ARM64_BOTH_PLAIN)
#define ENABLE		atomic { wr[0]++; wr[1]++ }	/* one plain store of both words */
#define DISABLE		atomic { wr[0]++; wr[1]++ }
#elif defined(ARM64_CALL_OPS)
#define ENABLE		wr[2]++; wr[1]++	/* the literal to tracer_ops, then nop -> bl */
#define DISABLE		wr[2]++; wr[1]++	/* the literal to ftrace_nop_ops, then bl -> nop */
#else
#define ENABLE		wr[1]++		/* nop -> bl by one plain store, no IPI */
#define DISABLE		wr[1]++
#endif

proctype patcher()
{
	ENABLE;
	DISABLE
}

init
{
	atomic {
		run worker(0);
		run worker(1);
		run patcher()
	}
}
