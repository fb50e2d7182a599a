/*
 * The x86-64 built-ins of mcountsim as an abstract Promela model (see
 * arm.pml for the scenario, the worker loop and what is not modelled). One
 * strategy per run: spin -DPLAIN_WRITE (or -DSTOP_MACHINE, -DTEXT_POKE_BP)
 * -a x86.pml && gcc -O2 -DSAFETY -o pan pan.c && ./pan
 *
 * The site is f0's 5-byte call ftrace_caller (e8 rel32) or the nop5
 * (0f 1f 44 00 00). Each byte b has a history of writes, known in advance
 * (the patcher's writes happen in program order, model.md §1a): wr[b] is
 * the index of its latest write, 0 being the boot value. A byte's value is
 * named by the transition that wrote it (0 boot/nop5, 1 enable/call, 2
 * disable/nop5) and, for byte 0 of text-poke-bp, whether it is the int3.
 *
 * Per-CPU stale fetch (model.md §1a): a worker fetching byte b sees any
 * write from its floor view[p][b] up to the latest, chosen by SPIN, and
 * its floor rises to what it fetched. The floors are kept per worker, not
 * per CPU; a CPU synchronizes (floors to the latest) on the int3 trap and
 * its return, on the sync_core() IPI, and on entering and leaving the
 * stop_machine stopper. The synchronization a timer preemption and the
 * resumption of the preempted task bring is left out, as is the storing
 * CPU seeing its own stores at once: both only remove stale choices, so the
 * model has more behaviours than the machine, never fewer. Every byte is
 * fetched independently: bytes 1-4 of the site (at 0x401022) are not a
 * naturally aligned store, and plain-write stores single bytes.
 *
 * One fetch reads the instruction's bytes in one step: byte 0 first (the
 * int3 is one byte long), then bytes 1-4.
 *
 * Hazards:
 *   torn-fetch: the bytes of one fetched instruction come from writes of
 *               different transitions;
 *   fault:      an int3 whose handler finds no table.
 *
 * Patcher (one transition each, enable then disable):
 *   PLAIN_WRITE:  the 5 bytes stored one by one, each its own step;
 *   STOP_MACHINE: one stop_machine storing the 5 bytes;
 *   TEXT_POKE_BP: publish the handler's table (the new instruction), int3
 *                 over byte 0, sync_core, bytes 1-4, sync_core, byte 0,
 *                 sync_core, withdraw the table. sync_core and the table's
 *                 withdrawal wait until no CPU is inside the int3 handler
 *                 (which runs with interrupts off: no IPI, no preemption).
 *
 * Expected: PLAIN_WRITE "errors: 1"; STOP_MACHINE, TEXT_POKE_BP "errors: 0".
 */

#define NB	5

byte wr[NB];		/* index of byte b's latest write */
byte view[2 * NB];	/* worker p's floor for byte b: view[p * NB + b] */
bool inh[2];		/* worker p is inside the int3 handler */
byte table;		/* int3 handler's table: 0 none, 1 call, 2 nop5 */
byte sj;		/* loop index of the synchronizations */

#if defined(TEXT_POKE_BP)
/* byte 0's writes: boot nop5, int3, call, int3, nop5 */
#define INT3(k)		((k) % 2 == 1)
#define TRANS0(k)	(((k) + 1) / 2)
#elif defined(PLAIN_WRITE) || defined(STOP_MACHINE)
#define INT3(k)		false
#define TRANS0(k)	(k)
#else
#error "define one of PLAIN_WRITE STOP_MACHINE TEXT_POKE_BP"
#endif

/* a CPU synchronizes: its floors become the latest writes */
inline syncp(p)
{
	sj = 0;
	do
	:: sj < NB -> view[p * NB + sj] = wr[sj]; sj++
	:: else -> break
	od;
	sj = 0
}

inline syncall()
{
	syncp(0);
	syncp(1)
}

/* fetch byte b through worker p's view into k: any write from the floor on */
inline pick(p, b, k)
{
	k = view[p * NB + b];
	do
	:: k < wr[b] -> k++
	:: break
	od;
	view[p * NB + b] = k
}

proctype worker(byte p)
{
	byte it = 0;
	byte k0, k;
	bool call;
	do
	:: it < 2 ->
		/* f0: the site first, then push %rbp; ...; pop %rbp; ret */
		atomic {
			pick(p, 0, k0);
			if
			:: INT3(k0) ->
				inh[p] = true;	/* the trap: interrupts off */
				syncp(p)
			:: else ->
				pick(p, 1, k); assert(k == TRANS0(k0));	/* else torn-fetch */
				pick(p, 2, k); assert(k == TRANS0(k0));
				pick(p, 3, k); assert(k == TRANS0(k0));
				pick(p, 4, k); assert(k == TRANS0(k0));
				call = (TRANS0(k0) % 2 == 1)
			fi;
			k = 0; k0 = 0
		};
		if
		:: inh[p] ->
			/* the handler's table lookup and emulation, then iret */
			atomic {
				assert(table != 0);	/* else fault: no handler table */
				call = (table == 1);
				inh[p] = false;
				syncp(p)
			}
		:: else -> skip
		fi;
		/* call: ftrace_caller, trace_function, ret: nothing to see */
		call = false;
		it++
	:: else -> break
	od
}

#define SYNC_CORE	atomic { !inh[0] && !inh[1] -> syncall() }

#if defined(PLAIN_WRITE)
#define TRANSITION(f)	wr[0]++; wr[1]++; wr[2]++; wr[3]++; wr[4]++
#elif defined(STOP_MACHINE)
#define TRANSITION(f)	atomic { syncall(); wr[0]++; wr[1]++; wr[2]++; wr[3]++; wr[4]++; syncall() }
#else
#ifdef SKIP_FIRST_SYNC	/* a mutant for the test: no sync_core after the int3 */
#define SYNC1		skip
#else
#define SYNC1		SYNC_CORE
#endif
#define TRANSITION(f)	table = f; \
			wr[0]++; SYNC1; \
			atomic { wr[1]++; wr[2]++; wr[3]++; wr[4]++ }; SYNC_CORE; \
			wr[0]++; SYNC_CORE; \
			atomic { !inh[0] && !inh[1] -> table = 0 }
#endif

proctype patcher()
{
	TRANSITION(1);	/* enable: the call */
	TRANSITION(2)	/* disable: the nop5 */
}

init
{
	atomic {
		run worker(0);
		run worker(1);
		run patcher()
	}
}
