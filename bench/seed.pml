/*
 * The seed scenario of mcountsim (issue 3: the 2011 LKML thread), as an
 * abstract Promela model, for comparing mcountsim's time to verdict with
 * SPIN's (bench/compare.sh). Defaults of `mcountsim check`: 2 worker tasks,
 * 2 iterations each calling the traced function f0 once, a patcher making
 * 2 transitions (enable, then disable), each one stop_machine that writes
 * the site atomically while no worker executes an instruction.
 *
 * The site is two words: w0 (push {lr} or its disabled form) and w1 (bl
 * __gnu_mcount_nc, or its disabled form). A worker executes them as two
 * separate steps; stop_machine may run between any two steps of a worker
 * (a preemptible kernel preempts a task anywhere; the stoppers then take
 * every CPU), which is what Promela's interleaving of the patcher's atomic
 * block with the workers' statements gives. Preemptions are not bounded
 * here: SPIN explores every interleaving.
 *
 * Hazards, as mcountsim's detectors see them:
 *   foreign-slot:    the bl runs (the trampoline reloads lr from the word the
 *                    site's push {lr} should have pushed) but that push did
 *                    not run in this pass;
 *   stack-imbalance: the push ran but the bl did not consume the word.
 *
 * Strategies (spin -DNOP_NOP or -DJMP_OVER):
 *   NOP_NOP:  disabled form mov r0,r0 over both words (the unsafe one);
 *   JMP_OVER: disabled form b 1f over the push {lr}, bl untouched.
 *
 * Run: spin -DNOP_NOP -a seed.pml && gcc -O2 -DSAFETY -o pan pan.c && ./pan
 * Expected: NOP_NOP "errors: 1" (assertion violated), JMP_OVER "errors: 0".
 */

mtype = { PUSH, BL, NOP, JMP };

#ifdef JMP_OVER
mtype w0 = JMP;		/* boot: ftrace_init() writes the disabled form */
mtype w1 = BL;
#define ENABLE	atomic { w0 = PUSH }
#define DISABLE	atomic { w0 = JMP }
#else
mtype w0 = NOP;
mtype w1 = NOP;
#define ENABLE	atomic { w0 = PUSH; w1 = BL }
#define DISABLE	atomic { w0 = NOP; w1 = NOP }
#endif

proctype worker()
{
	byte it = 0;
	bool pushed;
	do
	:: it < 2 ->
		/* f0: push {r4, lr}, then the site */
		pushed = false;
		if
		:: w0 == PUSH -> pushed = true
		:: w0 == NOP -> skip
		:: w0 == JMP -> goto body	/* b 1f over the call */
		fi;
		if
		:: w1 == BL ->
			/* __gnu_mcount_nc: ldr lr, [sp, #4]; ldr pc, [sp], #8 */
			assert(pushed);		/* else foreign-slot */
			pushed = false
		:: w1 == NOP -> skip
		fi;
body:
		/* the body, then pop {r4, pc} */
		assert(!pushed);		/* else stack-imbalance */
		it++
	:: else -> break
	od
}

proctype patcher()
{
	ENABLE;
	DISABLE
}

init
{
	atomic {
		run worker();
		run worker();
		run patcher()
	}
}
