/*
 * The ARM A32 built-ins of mcountsim as an abstract Promela model, for
 * comparing time to verdict with SPIN (bench/spin.sh). One strategy per
 * run: spin -DNOP_NOP (or -DJMP_OVER, -DPOP_LR, -DADD_SP, -DTWO_STEP_SCHED,
 * -DTWO_STEP_RCU_TASKS) -a arm.pml && gcc -O2 -DSAFETY -o pan pan.c && ./pan
 *
 * The scenario is `mcountsim check --arch arm --strategy S` at its
 * defaults: 2 worker tasks, 2 iterations each calling the traced function
 * f0 once, a voluntary schedule() between the iterations, then exit; a
 * patcher making 2 transitions (enable, then disable) by the strategy's
 * steps. CPUs are not modelled: with 2 CPUs and 3 tasks under full
 * preemption any task may be stopped at any instruction boundary while the
 * others run, which is what Promela's interleaving gives. SPIN does not
 * bound preemptions (mcountsim bounds them at 2): it explores every
 * interleaving.
 *
 * The site is two words: w0 at f0's site+0 (push {lr} when enabled) and w1
 * at +4 (bl __gnu_mcount_nc when enabled). A worker fetches and executes
 * them as two separate steps. Every ARM built-in writes text only inside
 * stop_machine, whose stoppers synchronize every CPU when they enter and
 * leave, and a preempted task resumes through an exception return, which
 * synchronizes too (model.md §1a): no CPU ever fetches a stale word, so no
 * per-CPU view is modelled, and no cmodx hazard can arise. stop_machine is
 * an atomic block: no worker executes an instruction while it runs, and a
 * worker preempted mid-site stays there.
 *
 * Hazards, as mcountsim's detectors see them (provenance of the stack
 * slot, not its value):
 *   foreign-slot:    bl's __gnu_mcount_nc (ldr lr, [sp, #4]; ldr pc, [sp],
 *                    #8) or a pop {lr} loads lr from a slot the site's
 *                    push {lr} did not write in this pass (f0's saved r4);
 *   stack-imbalance: the push {lr} ran and nothing consumed its word, or
 *                    add sp, sp, #4 dropped a word the push did not push.
 *
 * Waits (two-step-*): the patcher sets need[i] for every worker that has
 * not exited and waits until all are clear. A worker clears its own at its
 * voluntary schedule() and at exit. For synchronize_sched() a timer
 * interrupt at any instruction boundary of a running worker (or its
 * already being preempted, sitting in the run queue) is a quiescent state
 * of its CPU too: the process tick clears need[i] at any time. For
 * synchronize_rcu_tasks() only the voluntary switch and exit count.
 *
 * Expected (mcountsim's verdicts at the defaults): NOP_NOP, TWO_STEP_SCHED
 * "errors: 1"; JMP_OVER, POP_LR, ADD_SP, TWO_STEP_RCU_TASKS "errors: 0".
 */

mtype = { PUSH, BL, NOP, JMP, POPLR, ADDSP };

mtype w0, w1;
bool need[2];	/* a grace-period wait is still waiting for worker i */
bool exited[2];	/* worker i exited */

#if defined(NOP_NOP)
#define BOOT	w0 = NOP; w1 = NOP
#define ENABLE	atomic { w0 = PUSH; w1 = BL }
#define DISABLE	atomic { w0 = NOP; w1 = NOP }
#elif defined(JMP_OVER)
#define BOOT	w0 = JMP; w1 = BL
#define ENABLE	atomic { w0 = PUSH }
#define DISABLE	atomic { w0 = JMP }
#elif defined(POP_LR)
#define BOOT	w0 = PUSH; w1 = POPLR
#define ENABLE	atomic { w1 = BL }
#define DISABLE	atomic { w1 = POPLR }
#elif defined(ADD_SP)
#define BOOT	w0 = PUSH; w1 = ADDSP
#define ENABLE	atomic { w1 = BL }
#define DISABLE	atomic { w1 = ADDSP }
#elif defined(TWO_STEP_SCHED) || defined(TWO_STEP_RCU_TASKS)
#define BOOT	w0 = NOP; w1 = NOP
#define WAIT	atomic { need[0] = !exited[0]; need[1] = !exited[1] }; \
		(!need[0] && !need[1])
#define ENABLE	atomic { w0 = JMP }; WAIT; atomic { w1 = BL }; atomic { w0 = PUSH }
#define DISABLE	atomic { w0 = JMP }; WAIT; atomic { w0 = NOP; w1 = NOP }
#else
#error "define one of NOP_NOP JMP_OVER POP_LR ADD_SP TWO_STEP_SCHED TWO_STEP_RCU_TASKS"
#endif

proctype worker(byte p)
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
		:: w0 == JMP -> goto body	/* b .+8 over the bl */
		fi;
		if
		:: w1 == BL ->
			assert(pushed);		/* else foreign-slot */
			pushed = false
		:: w1 == POPLR ->
			assert(pushed);		/* else foreign-slot */
			pushed = false
		:: w1 == ADDSP ->
			assert(pushed);		/* else stack-imbalance */
			pushed = false
		:: w1 == NOP -> skip
		fi;
body:
		/* mov r4, r0; add r0, r4, #1; pop {r4, pc} */
		assert(!pushed);		/* else stack-imbalance */
		it++;
		if
		:: it < 2 -> need[p] = false	/* schedule(): a voluntary switch */
		:: else -> skip
		fi
	:: else -> break
	od;
	atomic { need[p] = false; exited[p] = true }	/* do_exit */
}

/* -DTICK_QUIESCES (a mutant for the test): the timer counts for any wait */
#if defined(TWO_STEP_SCHED) || defined(TICK_QUIESCES)
active proctype tick()
{
end:	do
	:: atomic { need[0] -> need[0] = false }
	:: atomic { need[1] -> need[1] = false }
	od
}
#endif

proctype patcher()
{
	ENABLE;
	DISABLE
}

init
{
	atomic {
		BOOT;		/* ftrace_init(): every site in its disabled form */
		run worker(0);
		run worker(1);
		run patcher()
	}
}
