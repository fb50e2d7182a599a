// Package explore searches the schedules of a scenario for hazards, and
// replays one schedule with a full trace.
//
// # Search
//
// Check explores every run of the machine (package sched) within a
// preemption bound: at each step the machine lists its options (which CPU
// steps, whether a timer interrupt or a stopper preempts the task a CPU runs
// and what the CPU switches to, which runnable task a free CPU picks) and the
// explorer tries each. Bounds are searched in increasing order (0, 1, …,
// Bound), so the first counterexample found uses the fewest preemptions
// (but for a modular machine's search, which starts at Bound: below).
//
// # Reduction, and why it cannot hide a hazard
//
// The reduced search keeps a visited set of machine states. A state is the
// complete machine: text bytes that any store may write and the provenance of
// each, the site histories, every task's registers, flags, scheduler state,
// shadow call stack (and site-pass record in strict mode), every stack byte
// and the register each stack word was written from (and the call depth it
// was stored at: sched/freed.go), the CPUs, the run queue, the patcher's progress and the waits in flight, and the
// wrong-result detector's progress per task (how many traced returns and
// data stores it made; the reference it compares them with is one
// uninstrumented run made when the scenario is compiled, immutable and
// shared by every machine: results.go). What happens next
// depends only on that state and on the preemptions used (which decide the
// preemptions still offered); the step counter and recorded traces do not
// influence any later step. The visited set is keyed by the pair (state,
// preemptions used), so two paths that reach the same key have exactly the
// same futures, and exploring the second would repeat the first: pruning it
// loses no run, hence no hazard. Hazards are checked on every step before
// the visited-set lookup, so a pruned path has already had its hazards
// checked up to the merge point, and its continuations are the explored
// ones. (Keying by the state alone and keeping the fewest preemptions would
// prune a little more, 2-7% on the seed scenarios, but the work done would
// then depend on which path reaches a state first, and with parallel
// workers on timing; with the pair each key is expanded exactly once.)
// States are identified by a 128-bit hash (two independent 64-bit lanes),
// not stored: a collision would merge two different states, with a
// probability below 2^-100 for the state counts mcountsim reaches.
// That the hash leaves nothing out that a later step reads is checked by
// sched's TestHashDecidesTheFuture: on small scenarios of every ISA, every
// further arrival at a key is expanded one level, and its successors must
// have the keys of the first arrival's (it found a runnable task's
// Preempted flag missing, which decides whether its CPU's view is
// synchronized when it resumes).
//
// The machine's partial-order reduction: a worker whose next instruction
// touches only its own registers and stack (and immutable text) is stepped
// alone, with no other option and no preemption offered. Such a step is
// independent of every other CPU's actions (nothing another task does can
// change its effect, and it changes nothing another task can see), so
// running it first loses no ordering of visible actions. Withholding the
// preemption before it loses no hazard either: a run that preempts a task
// just before a local step L and resumes it later is matched, step for step
// on every other task, by the run that executes L (and the local steps after
// it) first and preempts the task just before its next visible step — with
// the same number of preemptions — and every detector of a local step
// depends on that task's state alone (the wrong-result check of a return
// reads the task's return register, shadow stack and counter, and the
// immutable reference). Visible steps are fetches of bytes a
// store may write, the scheduler hooks, loads and stores not based on sp or
// pc, and everything the patcher and the stoppers do but the end of a wait
// for IPIs (below). Runs always end (the
// workload is finite and waiting CPUs offer no step), so the state graph is
// acyclic and the reduction needs no cycle proviso.
//
// The visited set is looked up at one more kind of state: where a
// thread-local run is about to fetch a site whose bytes a store may write
// (Machine.RunLocalToSite stops there, after its first step). Once the
// patcher's writes to a site are all made and a CPU's view of it is the
// latest, that fetch is local, and a worker calling a traced function in
// a loop then runs alone to the end of its workload, or to its next
// visible step, from every state in which the patcher got there first;
// those runs pass through the same states at each site, so the second
// arrival at one would repeat the first one's steps (x86-O1-fentry
// d_bsearch(0,150) took 4,945,835,988 steps for 3,460,295 states, 1,430
// per state, most of them the same tails again). Pruning it there is the
// argument above: the key (state, preemptions used) decides the future,
// hazards were checked on every step up to it, and its continuation is
// the first arrival's. Such a key is claimed as a branching state's is
// but not counted as a state: the branching states reached are the same
// with or without the lookups (a pruned run's next branching state is
// one the first arrival reaches), and the counts stay independent of the
// workers (the steps from a key to the next key depend on the key
// alone). The same run: 115,384,188 steps, the same states, 38.0 to 32.4
// CPU s (the memo had made the repeated tails cheap already). A shard
// that exchanges states sends such a state it does not own to its owner,
// as it does a branching state, so the shards' steps still add up. Not
// with the sleep sets (their visited set keeps options per state) nor
// while minimizing. Looking up only every eighth traced return's sites
// was tried: the runs merge at the first sites they share, and it took
// 1.87 times the steps (a64-O1-pfe2 d_crc32_combine).
//
// The patcher's return from a sync_core() or flush_icache_all() once every
// other CPU has taken its IPI is a local step of the patcher too: it
// advances the patcher's own progress and nothing else (no text, view,
// task or CPU record changes, and no other CPU's options or steps read
// that progress: only the patcher's own next step does), and no other
// action can disable it (only the patcher sends IPIs). So it commutes
// with every action of every other CPU, and withholding the patcher's
// preemption before it is matched, as for a worker, by preempting the
// patcher before its next step (the next operation, or its exit), which
// stays visible. On RISC-V every rv-atomic transition ends with
// flush_icache_all(); on x86 text_poke_bp makes three sync_core() waits.
//
// The state hash reads of a CPU's view of text (sched/fetch.go: per byte a
// store may write, the oldest write it may still fetch and the write it
// last synchronized on) only what a later step can read. The synchronized
// write is read by the concurrent-modification rule alone, which ARM and
// arm64 have and x86 and RISC-V do not; and it can fire on a word only if
// the word changes after boot and two of the words its bytes can spell
// (its versions from the booted one on, when every store to it writes all
// its patchable bytes; every combination of its bytes' versions
// otherwise) are not both in the ISA's set. Elsewhere (arm64's nop <-> bl,
// arm64-nop-bl's boot-time mov x9, x30: every state of such a word's
// synchronized writes leads to the same steps) it is left out, so that two
// CPUs that fetched the same bytes but synchronized at different writes
// are one state (tested against the unreduced search by
// TestReductionsAgree, and by sched's TestHashDecidesTheFuture).
//
// A load whose address, computed from the task's registers in the current
// state, lies in read-only data pages (an object's sections without
// SHF_WRITE, such as .rodata; a page is read-only only when every segment
// on it is, and a store there faults) is local too, decided per state: no
// action of any task can change those bytes, so the load commutes with
// every other action exactly as a stack access does, and the argument above
// holds unchanged for the states where it is offered alone. So is a load or
// store through any base register whose bytes, computed the same way, lie
// in the task's own stack above thread_info (a local array or struct
// reached through a pointer, an rbp-based frame): a task can access no
// other task's stack (its loads and stores there fault), and the machine
// itself writes only thread_info there (need_resched set by a remote
// wakeup, the tracer kernel's counts), so nothing another CPU does can
// read or change those bytes, and such a step is as private as an
// sp-based one. Last, a fetch of text bytes that a store of the program
// may write is local in a state where the patcher has made every write of
// its program (a fixed sequence, so no store to text can follow) and the
// fetching CPU's view of those bytes is the latest (model.md §1a: then it
// fetches exactly the current bytes, and no later action can change them
// or that view), provided the instruction there is itself local by the
// rules above: the step then depends on, and changes, nothing another CPU
// can touch, as a fetch of immutable text. (Before the last write, or from
// a stale view, the fetch stays visible: which bytes it sees is the
// search's business.) Loads from writable data and every store to data stay
// visible but for the reductions that rest on the reference run, below
// (issue 21; tested in kernel's TestReadOnlyLoadsReduced against
// the search that takes .rodata for writable data and against the
// unreduced one, and in TestStackAccessesReduced against the unreduced
// one). The fetch rule asks only that the writes to the instruction's own
// bytes are all made (each byte holds the last write of the program to
// it), not every write of the program: a later store elsewhere cannot
// change those bytes, and the argument is the same. For the same reason a
// data load of text bytes (arm64 CALL_OPS's ftrace_caller reads the ops
// literal before the site) is local in a state where each of its bytes
// holds the program's last write to it: a load reads the text itself, not
// a CPU's view (model.md §1a: data accesses are coherent), and no store can
// change those bytes any more. Such a load is not memo-safe (the memo's
// key does not hold text bytes).
//
// Three more rest on the uninstrumented reference run (results.go),
// whether its results are compared or not, and each run checks them
// (sched/quiet.go, sched/stable.go).
// A quiet page is a writable data page that no store of the reference
// wrote; a load from one is local as a load from a read-only page is. A
// store of the patcher whose bytes lie in no fetch window (the ISA's
// longest instruction) of an instruction a worker executed in the
// reference, nor in text a worker loaded there, nor in a site of a
// function it executed (arm64 CALL_OPS keeps a literal there), is a local
// step of the patcher: Options offers it alone (an x86 object's text_poke_bp batch
// writes every site of the object, most of which the function never
// reaches). Every run enforces the premise: a store to a quiet page that
// is not itself a wrong-result hazard, a fetch whose window holds
// patchable bytes outside the reference's windows, or a load of such
// bytes ends the run without a verdict (the search is INCOMPLETE and
// says why); a run that has met a hazard goes on. Why no hazard is lost:
// take any run and its first step that breaks the premise, if any. Up to
// it, no store reaches a quiet page and no worker reads a byte the
// reduced stores write, so those loads read constant bytes and those
// stores change nothing any other step reads or enables (they touch
// only their own bytes' text, provenance and the views of bytes no one
// fetches): each commutes with every action of every other CPU, as a
// stack access does, and withholding the patcher's preemption before its
// local store is matched by preempting it before its next visible step,
// as for a worker. For the same reason the state hash leaves out the
// CPUs' views of those bytes (of every patchable byte outside the
// reference's fetch windows, and outside the concurrent-modification
// words that hold one of them), and of a site's bytes that lie outside
// its function and in no such window, which the instrumentation loads but
// never fetches (arm64 CALL_OPS's ops literal: its loads and the
// patcher's stores to it stay as they are): up to the first step that
// breaks the premise, no fetch reads them (a fetch whose window holds one
// is such a step), so two states that differ only there run the same steps to that
// point, and both reach it (arm64-nop-bl synchronizes a CPU only by an
// interrupt: a CPU preempted between two stores of the batch to sites no
// worker reaches would otherwise be a state apart). So the reduced search explores a run equal to that
// prefix up to such reorderings, with the same preemptions, and its
// task reaches the same breaking step, which ends the run INCOMPLETE; a
// run with no breaking step is matched whole, hazards included. Where
// the reference's results are compared, the premise holds in every
// hazard-free run in fact (the reference rule of detect/results.go: each
// task executes a prefix of its reference run, and the instrumentation
// the strategies add is the reference's trampolines or instructions at
// the sites), so it costs no verdict. Where they are not (the workers
// share data, and a schedule may send one where the reference never
// went), a run may break it: the search is then made again with these
// reductions off (below).
//
// The third: a stable data byte is one the reference loaded or stored
// whose every store there wrote one value (sched/stable.go). Its loads and
// stores are local, under two premises each run checks: every store
// writes that value (P1), and, for a byte whose initial value differs, a
// load happens after some store of it in the order of the run's visible
// steps (P2: stores to data that is not stable, and the loads and stores
// of it that follow, carry what their task knew was stored). Then every
// such load reads the one value in every order of the steps, and every
// such store commutes with every other task's step; the argument that a
// run breaking a premise first is matched by a reduced run breaking it is
// the one above (sched/stable.go gives it). A lazily built table published
// by a flag stored after it, or a word set to the value it holds, is so.
// In the thread-modular check (modular.go) a store to stable bytes does not
// break its premise.
//
// With them goes one more local step of the patcher, which rests on the
// breakpoint protocol instead (sched/shadow.go): text_poke_bp's store of a
// site's bytes 1-4, while its byte 0 holds int3 in every CPU's view and no
// task is inside the site, and the program synchronizes every CPU before it
// writes byte 0 again. No fetch reads those bytes then (each traps on the
// int3, whose handler emulates from the patcher's table), and the only
// steps it does not commute with, a CPU's synchronization before it, leave
// that CPU's view of them older, which no fetch reads before the sync_core
// makes every view the same. Its premises, that no worker loads a site's
// bytes as data or fetches an instruction starting inside a site, are
// checked by every run as these are (TestShadowAgrees compares verdicts
// and end states without it, on text_poke_bp and on two variants that
// drop one of its sync_cores).
//
// A search one of whose runs breaks a premise of these (the run ends
// with no verdict, sched.Machine.PremiseBroken) is made again from the
// start with them off, with what is left of the budget (modular.go:
// whole); its result says so (Space.NoReferenceReductions, and its
// reduction text names the broken premise), and its counterexample
// replays with them off (AsSearched; the CLI's --no-reference-reductions).
// Scenario.NoQuiet (quiet.go's and shadow.go's) and NoStable turn them
// off; TestQuietReductionsAgree
// (kernel) compares verdicts, hazard kinds, places and end states with and
// without them on real objects, and TestStableBytesAgree does on shared.c.
//
// Task symmetry: the visited set keys a state by its class under the
// permutations of the worker tasks (sched/symmetry.go). Workers run the
// same program from the same entry with the same arguments and differ only
// in their stack's base and their index; the machine's hash writes each
// worker's addresses in its own stack relative to that stack, hashes the
// workers' digests as a sorted multiset, and names the task a CPU runs,
// the run queue, the waits and the tracer kernel's records through the
// digests instead of indices (the patcher keeps its index; the reference
// results the wrong-result detector owes each worker must be alike, a
// value that is an address in the worker's own stack taken relative to
// it: a traced void function leaves a pointer into its caller's array in
// the return register); an exited
// worker counts only as exited, since it never runs again and nothing reads
// what it left in its registers and stack. A state s and a
// permuted state π(s) have the same futures up to the renaming: a task
// addresses only its own stack, the stacks sit at multiples of their size,
// the scheduler offers every runnable task alike and every detector reads
// the task it watches, so each run from s maps, step by step, to a run from
// π(s) with the same options (renumbered), preemptions, and hazards of the
// same kinds on the renamed tasks. Pruning π(s), keyed with the same
// preemptions used, after s therefore loses no hazard kind; the keys of a
// bound are still expanded exactly once, so the worker-independence below
// holds as before. A value is taken for an address in its holder's stack
// when it lies there (the workloads compute no numbers in the stack area;
// their stack addresses all come from sp); a state in which some other
// value near the stacks is held by a worker, or data may hold a stack
// address (a store of a value near the stacks wrote there, or the
// image's own bytes spell one: on a read-only page in an aligned word
// only, since no task stores there and a byte table's entries can spell
// such a value astride two of them), which the permutation would have to
// move with its task, is hashed exactly, tasks by index (an exited
// worker by its exit alone, as in the symmetric hash). The bytes of a
// number a store wrote are no address, whatever they spell with their
// neighbours (loops.c's l_total = 0x10 after two zero bytes spells the
// first stack's base). Schedules are recorded along the path actually taken,
// so a counterexample replays even when it was found through a state that
// stands for its class; minimization stays exact in length and
// preemptions, and canonical for one scenario (its run is the first of
// length L in option order among the runs the reduced search keeps).
// Options.NoSymmetry turns it off; TestSymmetryAgrees compares verdicts,
// counterexample preemptions and hazard kinds with and without it on every
// built-in and example strategy with 2 and 3 tasks (and on the tracer
// kernel), and sched's TestSymmetryIsABisimulation plays random runs and
// their permuted images side by side.
//
// # The tracer kernel's thread_info accesses
//
// In the tracer kernel (issue 17) the text reads and writes preempt_count,
// the interrupt mask, need_resched and the recursion bits as words of the
// running task's thread_info, through current_thread_info() (sp with its
// low bits cleared), not through sp; such loads and stores would all be
// visible. A single load or store of worker t is local too, decided per
// state (sched's tiLocal), when its address lies in one word of t's own
// thread_info and:
//
//  1. no interrupt can be taken on t's CPU before it: t's interrupts are
//     masked (only t's own code unmasks them), or the interrupt bound is
//     spent and no reschedule IPI is pending for that CPU (only a remote
//     wakeup, which needs the bound, makes one pending); and no NMI can
//     be (Scenario.NMI off, the bound spent, or t inside an NMI, which
//     only t's own nmi_exit store ends);
//  2. for thread_info.flags and for stores to preempt_count, no remote
//     wakeup can come either (the bound is spent): a wakeup sets
//     need_resched, and whether a store of 0 to preempt_count opens a
//     missed-preemption window depends on the flag and the pending IPI;
//  3. for flags and thread_info.cpu, t is not preemptible now
//     (preempt_count 0 with interrupts on): a preemption clears
//     need_resched, and t may resume on another CPU, which rewrites cpu;
//  4. a store leaves whether t may take an interrupt or an NMI and whether
//     it may be preempted as they were.
//
// Every thread_info access of the text goes through the running task's
// own sp, so no other task's code reaches t's thread_info; the machine
// writes it only when delivering an interrupt to t, for a remote wakeup
// (flags), and when t is switched out (flags) or in (cpu). By 1 and 2
// neither an interrupt nor a wakeup on t's CPU can come between this state
// and the step; by 3 and 4 a preemption of t withheld here is enabled
// exactly as it was and commutes with the step (it touches neither the
// word nor anything the step reads), and the step enables or disables no
// option of any CPU. So the step is independent of everything the others
// do, exactly as a stack access, and the argument above holds for the
// states where it is offered alone. TestTracerReductionsAgree compares
// every built-in tracer and three written ones with the search that takes
// none of these steps as local (ReduceStates): verdicts, hazard kinds,
// lost and recursed events, the longest interrupts-off stretch and the
// distinct end states agree. (It found a store whose new value was
// computed wrong, and an interrupts-off stretch that counted on past the
// store that unmasked, since fixed.)
//
// One thing makes states merge in every kernel, and it is part of the
// model, not a reduction of the search (sched/freed.go): a return scrubs
// the frames it frees. The words of the task's stack below the stack
// pointer the return leaves, stored by the callee or deeper calls, become
// 0 and never written (a word the caller stored below its own stack
// pointer stays: RISC-V's first patchable-entry era saves ra at -8(sp)
// around the call). No kernel ABI lets code rely on its stack below sp: an
// interrupt taken in the kernel pushes its frame there (x86-64 kernels
// build with -mno-red-zone; A32, A64 and RV64 have no red zone), so what
// a freed frame left may be gone at any moment, and a correct function
// loads no word of its frame before storing it. A run that loads a freed
// word reads the never-written slot, which the foreign-slot detector
// reports when a return address comes from it. Every machine of a check
// (search, replay, the reference run) scrubs alike, and states that
// differed only in what freed frames left are one state (the corpus's
// c_heapsort at arm-O2, bound 2 alone, sched's TestProfile: 180,679
// branching states kept, 61,093 scrubbed). Scenario.KeepFreed
// keeps the leftovers; TestFreedFramesAgree compares verdicts, first
// hazards, preemptions, replays and end states with and without it on
// every built-in and example strategy, kernel's TestFreedFramesAgreeOnObjects
// on real objects, and TestFreedFrameLoads shows what a load of a freed
// word reads.
//
// The same holds of registers, on objects (sched/deadregs.go): when a
// call enters a compiled function of the object, and when that call
// returns as expected, the registers the ISA's procedure call standard
// leaves undefined there become 0 (arm64: x9-x17 and NZCV at an entry,
// x2-x17 as well after a return; A32 r12 and the flags, r2 and r3 after
// a return; x86-64 r10, r11 and the flags, rcx, rsi, rdi, r8 and r9 after a
// return; RISC-V t0-t6, a2-a7 after a return: isa's ClearDead). Compiled
// code never reads them before writing them; ftrace_caller writes them
// (arm64 leaves x9 and x10 behind, riscv t0 and t1), so traced and
// untraced passes through the same function reached states that differed
// only there (the corpus's a64-O1-pfe2 d_bsearch under arm64-nop-bl:
// 1,247,229 states and 117 CPU s kept, 745,496 and 70 s cleared).
// Scenario.KeepDead keeps them; kernel's TestDeadRegsAgreeOnObjects
// compares verdicts, first hazards, preemptions, returns and end states
// with and without it, and TestDeadRegs shows what a read of one returns.
//
// Two more things make the tracer kernel's states merge; neither is a
// reduction of the search, both are part of the model (package sched):
// the return from an interrupt scrubs the task's stack below the restored
// sp (the frames the handler left there are dead; a later load of one
// reads 0 from a never-written slot, which the foreign-slot detector
// reports if a return address comes from it), and a task that has left
// do_exit has its whole stack scrubbed (nothing runs on it again).
//
// # Older views
//
// A CPU's view of text (model.md §1a, sched's fetch.go) is, per byte the
// patcher writes, the oldest write it may still fetch (its floor): the
// latest at its last synchronization, raised by its own stores and by
// what it has fetched since. Two states that differ only in the CPUs'
// floors are ordered when every floor of one is at most the other's: the
// one with the older views can take every step the other takes, to a
// state with floors again no newer and everything else the same (a fetch
// offers the values from the floor to the latest write; sched's
// views.go), so every hazard reachable from the newer is reachable from
// the older, with the same preemptions. So the exhaustive search keeps,
// in place of the visited set, an index from the key of a state without
// its floors (sched.Machine.HashFloorFree, with the preemptions used) to
// the floors of the states it claimed with that key; a state whose floors
// some recorded floors are all at most is pruned as if seen (the same
// floors: it was seen; older ones: Result.OlderViews counts it, and it is
// not a state), and otherwise its floors replace the recorded ones they
// are at most. A state once claimed is pruned ever after (its floors, or
// older ones, stay recorded), so the index is a visited set too, and the
// state is hashed once, without its floors. That is sound by
// the argument above: every claimed state is expanded, and by induction
// every reachable state is simulated by a claimed one, so a hazard
// reachable anywhere is reached from a claimed state, whose expansion
// meets it (runs stop at their first hazard, which is where the
// simulation is needed: sched's TestOlderViewsSimulate walks pairs of
// states, one with floors lowered, step by step on unreduced machines).
//
// Which of two such states is claimed first decides whether the newer
// is pruned, so dfs takes the options of a branching state in an order
// of its own (worker.order): a worker's fetch variants oldest first, and
// the patcher's CPU's steps after every other CPU's (a worker passing a
// site before the patcher stores to it has the older view of it than one
// that passes it after and fetches the new bytes). Both reach the same
// states either way; the option numbers, and so schedules, are the
// machine's.
//
// The new bytes are the multiplier where a traced callee is called in a
// loop: at each worker position, the patcher positions between a store
// and the next sync_core, times the sites whose new bytes the worker's CPU
// has fetched in between. x86-O1-fentry d_bsearch(0,150) under
// text-poke-bp, one worker: 3,460,295 states and 26.7 CPU s without,
// 1,426,719 and 17.8 s with (2,295,570 in the options' own order);
// a64-O1-pfe2 d_bsearch under arm64-nop-bl: 745,496 and 11.6 s, 235,212
// and 5.1 s. Where the patcher stores only under stop_machine (ARM's
// built-ins) every CPU synchronizes as it leaves its stopper and nothing
// is pruned.
//
// The cost is the count's independence of the workers: which of two
// ordered states a worker claims first depends on timing, so with more
// than one worker the states, steps and end states of a SAFE search (never
// its verdict, nor an UNSAFE counterexample, which minimization makes
// canonical) may vary from run to run. One worker's counts are exact.
// Not with the sleep sets (their visited set keeps options per state) nor
// in an exchanged split (whose shards' counts add up to the whole
// search's); TestOlderViewsAgree compares every built-in with and
// without, TestOlderViewsPrune pins what it prunes on loops.
//
// # Sleep sets of commuting visible steps
//
// Where the machine offers several options, two of them on different CPUs
// often commute: two workers fetching text that neither writes, a
// worker's step and a pick of a free CPU, schedule() on one CPU and a
// patcher's store to bytes the other does not fetch. Taking both orders
// reaches one state twice; the second arrival is pruned by the visited
// set, but only after its step and the steps up to the next branching
// point were taken. The sleep sets (sleep.go) skip that second order.
// They are off by default and Options.POR (check --por) turns them on:
// the states, end states, verdict and counterexample are the same either
// way, only fewer steps are taken, and computing names and footprints at
// every branching state costs about what the skipped steps save
// (measured below).
//
// Names and footprints. At a branching state every option gets a name
// that does not depend on how CPUs and workers are numbered: a hash of
// the digest Hash gives its CPU (the CPU's record with the task it runs),
// its kind, its fetch variant and the digest of the task it switches to
// (sched.Machine.Names: the per-CPU and per-task digests that hashSym
// builds from the kept stack digests and the CPUs' fetch views, or, where
// the state is hashed exactly (the symmetry off, or a value hashSym cannot
// place), the CPU records with tasks named by index). Two states with one
// key are images of each other under a renaming of CPUs and workers, so
// their options have the same names and, renamed, the same footprints.
// Options with one name are images of each other under a renaming that
// maps the state to itself (identical CPU records, tasks with identical
// digests), so they reach one key: the first of them stands for all. Each
// option also gets a footprint, computed from the state before it is taken
// (sched.Machine.Footprint, whose doc lists the rules): the tasks it
// switches, the data bytes it loads or stores (the address from its
// registers now), the text it fetches or the patcher stores (with the
// histories of the sites involved, and all of text for an option that
// synchronizes its CPU's view: a preemption or a return from an interrupt
// where the ISA synchronizes, or a fetch of bytes a store may make a
// breakpoint), and whether it counts a preemption. The patcher's steps
// other than stores, the stoppers, the int3 handler, exits, IPIs, fetches
// through a stale view, anything during stop_machine or in the tracer
// kernel are dependent on everything. Two options are independent when
// they are on different CPUs, switch no common task, do not both count a
// preemption, and neither writes data or text the other reads or writes.
// Such options are both still offered after the other (neither changes
// anything the other's enabledness reads: a CPU's options depend on its
// own task and the run queue's members, and the preemptions offered on
// the preemptions used, which only preemptions change), they reach the
// same state in either order (the run queue in another order, which Hash
// reads as a set), and each does the same in either order, hazards
// included (each detector reads the stepping task's state and the bytes
// in its footprint).
//
// The rule. The child of option a of a branching state s sleeps on every
// option b of s with a smaller name that is independent of a: the
// branching state it reaches does not take b. The visited set keeps, per
// key, the names no arrival has taken yet; an arrival takes those of them
// it does not sleep on (shared.claimAsleep). So the options a key takes
// are those that some arrival does not sleep on, each taken once, whatever
// the order of the arrivals: the explored graph is the least one closed
// under this rule (growing an arrival set only shrinks the intersection
// of the sleep sets), the same for any number of workers and any timing,
// and its counts (states, steps, end states) are exact as before. A
// sleep set is one level deep (a child's sleep set is made from its
// parent's options only, not inherited): an inherited one would depend on
// which arrival came first.
//
// Why nothing is lost. Let G be the graph the search without sleep sets
// explores (branching states, edges an option and the steps without
// choice after it), and order its paths lexicographically by the names of
// their options. For any branching state t of G take the least path to
// it; suppose its i-th option a_i is not taken at the state s_i it leaves.
// The path reached s_i from s_(i-1) through a_(i-1), so a_i is asleep
// there: its name is smaller than a_(i-1)'s and it is independent of
// a_(i-1) at s_(i-1). Then s_(i-1) -a_i-> -a_(i-1)-> is a path of G to the
// state the original reached after a_i (the steps without choice are
// thread-local ones, which commute with everything, and eager ones such
// as a sync_core IPI, which the swapped options do not touch), and with it
// the rest of the path reaches t: a smaller path, a contradiction. So every
// state of G is reached, with the same preemptions used (swapping two
// options changes neither the preemptions a path counts nor, since
// preemptions are dependent on each other, which are offered): the states
// and end states are those of G, and the bound in which the first hazard
// appears is the same. A hazard is met on a step; the same argument on the
// least path to a hazard step of G (the swap moves an asleep hazard step
// earlier, where it does the same) shows that a hazard step of G is taken
// in some order. Minimization takes every option, so the counterexample
// is exactly the one found without sleep sets. Bounding preemptions needs
// nothing more: commuting a CPU choice past another is free, a preemption
// is an option of its own that counts one whatever the order (Coons,
// Musuvathi, McKinley, "Bounded partial-order reduction", OOPSLA 2013,
// treat the harder case where a preemption is the order itself).
//
// The reductions of the other sections are untouched by the sleep sets:
// thread-local steps (the locality rules, the tracer kernel's thread_info
// accesses, the quiet reductions of objects) are taken inside advance
// and commute with everything, so they may sit between two swapped
// options; the task symmetry only merges keys, and the argument above is
// about the graph of keys; a fetch through a stale view is Global, so two
// options are never swapped across a change of what a view holds.
//
// Options.POR (--por) turns the sleep sets on; they stay off in a shard
// and in an exchanged split (whose paths carry no sleep sets: a state's
// sleep set would depend on which shard claimed it). TestSleepSetsAgree
// compares every built-in and example strategy with 2 tasks and with 3
// (jmp-over always, the others with MCOUNTSIM_SLOW=1) with and without
// them: verdicts, counterexamples (schedule, preemptions, hazard kinds),
// states, runs, end states, and the replay of the counterexample;
// TestSleepSetsWorkers that their counts do not depend on the workers.
//
// Measured (--workers 1, user time, best of three runs on a loaded
// machine, main at 33f2623, with the scrub of freed frames):
//
//	check --strategy jmp-over --tasks 4 --workers 1
//	  without: 24,664 states, 522,620 steps, 0.16 s user
//	  --por:   24,664 states, 490,571 steps, 0.19 s user
//	check --arch x86 --strategy text-poke-bp --cpus 3 --tasks 3 --workers 1
//	  without: 117,947 states, 2,610,985 steps, 0.83 s user
//	  --por:   117,947 states, 2,487,224 steps, 1.01 s user
//
// 6.1% and 4.7% fewer steps for 19-22% more time: the steps saved are
// few (the second order of a commuting pair is pruned by the visited set
// at the next branching state anyway), and naming and footprinting the
// options of every branching state costs more than they do. Hence off by
// default.
//
// Options.Reduction selects weaker searches: ReduceStates (visited set, no
// partial-order reduction) and ReduceNone (every sequence of options). Tests
// compare all three on small scenarios.
//
// # The thread-modular check
//
// For a workload linked from an object (Options.Modular: ModularAuto; on
// request for the built-in texts) Check first searches, for each worker
// f, the machine in which f alone runs the workload and the other workers
// are stand-ins looping on schedule() (sched/modular.go states the
// machine and proves the claim: under the premise that no worker stores
// outside its own stack, every hazard of f in a run of the check's
// machine is a hazard of f's modular machine within the same bound).
// Each modular machine is searched as above (the same budgets and
// reductions, no task symmetry), but at the bound alone, not bound by
// bound: its search is there to prove the check SAFE, which only the last
// bound can; a hazard it meets is not the verdict, and the bounds below
// would repeat the last one's runs with fewer preemptions, at a third or
// more of the cost (modular.go: firstBound; kernel's
// TestModularStartsAtTheBound). A modular search cut by a budget so
// claims no bound below the one it was in. When the workers are alike (the condition
// of task symmetry) worker 0's machine is the mirror image of every other
// worker's, and its search alone stands for all of them, provided no
// state it hashes is odd, which it checks (sched/modular.go: Mirror;
// Options.NoSymmetry searches each); the reduction's text says so. If every one is exhausted without a
// hazard the check is SAFE, for the check's own space, and the result
// says so (Space.Modular, and the reduction's text). A store outside a
// stack there, but to stable data bytes (sched/stable.go), is collected
// into the value set of a shared data cell,
// whose loads then read any value of that set: the check runs in rounds
// until no round collects a new value (explore/modular.go, and
// sched/modular.go's "Shared data cells", which proves the weaker
// premise this checks), and what the value sets cannot vouch for is a
// fault, so a check whose modular machines all finish without a hazard
// in a round that collects nothing satisfies that premise. Anything else (a hazard, which
// may be a stand-in's doing, or a run the reference run's reductions
// cannot vouch for) runs the check's own machine with the budget left:
// after a modular hazard, 240 random runs first (modular.go: hunt), then
// the whole search. 16 random runs of the check's own machine come before
// the modular check as well: an unsafe strategy usually meets a hazard in
// the first, where the modular search may take seconds.
// A hunted counterexample is shortened by the minimization within a fixed
// budget of states (huntMinStates; so it is the same whatever the
// workers) and replayed as any (Space.Found says so, and that the bounds
// below its preemptions were not searched). So an UNSAFE verdict and its counterexample always come
// from the check's own machine. The point is the cost: a traced callee called in a loop makes
// the whole search's states grow with the product of the workers' passes
// through its site, the modular check's with their sum
// (kernel/modular_test.go: TestModularDecidesLoops).
//
// # Parallel search, and why its result does not depend on the workers
//
// Each bound is split into a frontier: the branching points are expanded
// level by level, in option order, until there are at least 64 subtrees
// or 6 levels are expanded (constants, not functions of the number of
// workers). One goroutine builds the frontier, so it is serial work, kept
// small: before the load balancing below the split was 256 subtrees up to
// 64 levels deep, 12 levels and a third of bound 0's time in jmp-over with
// 4 tasks. The workers
// (Options.Workers, default all CPUs; each builds its own machine, since a
// Machine lineage shares its decode cache) take subtrees in order and
// search them depth first with one visited set shared by all, cut into 256
// locked parts. A key is claimed by the first worker to reach it and
// expanded by that worker only. Every reachable key is reached (by the
// argument above), and expanded exactly once; the steps from a key to the
// next branching point or to the end of a run depend on the key only. So
// the counts of a finished bound (branching states, steps, complete runs)
// are the same for any number of workers and any timing — without the
// pruning by older views (above), which trades that for fewer states.
// That rests on the keys being canonical: two states with one key must
// have successors with the same keys (sched's TestHashDecidesTheFuture), or which of them
// a worker meets first would decide the keys that follow. In the tracer
// kernel they are not quite: a register that loaded thread_info.cpu holds
// a CPU number, hashed as it is, while the CPUs are renamed, so there the
// counts (never the verdict or the hazard kinds, since every merge is of
// states with the same futures) may vary with timing. Nor are they where
// a step leads from a state the task symmetry keys by its class to one
// hashed exactly (a worker storing its stack address to data): the exact
// keys of the class's states' successors differ by the permutation
// (sched/symmetry.go). A number whose bytes spelled a stack address in
// data did so, until the hash stopped taking it for one: loops.c's
// l_shared, whose workers store to a global, counted other states with
// 2 workers than with 1 (TestWorkersSplitAgreeSharedData). A hazard stops
// the bound at once; which hazard a worker meets first depends on timing,
// so the counts of an UNSAFE result are those of the bounds finished before
// it, and the counterexample is made canonical by minimization.
//
// Load balancing. The subtrees are very uneven (in jmp-over with 4 tasks
// the first two of 256 held two thirds of bound 2), so a worker that finds
// no subtree left to take waits and says so, and a busy worker, at its
// next branching point, splits its own depth-first stack (share.go): of the
// shallowest branching state on it with options still to be taken, it
// hands the second half of those options over as pieces (the path from the
// initial state to the option, and what the child sleeps on), which the
// waiting worker replays and searches like subtrees, and can split again.
// The donor splits between two of its own steps, so no machine or buffer
// is read by two goroutines. A piece is the same search of the same child
// the donor would have made (the step to the child counted by the donor,
// the child's state claimed by whoever reaches it first), so the argument
// above holds as it is: which worker expands a key changes nothing. A
// subtree counts as searched (Result.Subtrees, the coverage of a search cut
// short) when every piece split off it is. TestWorkersSplitAgree compares
// every built-in with 1, 2 and 3 workers, and with workers that split at
// every branching point, with and without the sleep sets.
//
// # Counterexamples
//
// Every counterexample is shrunk to the fewest preemptions, then to the
// fewest steps: iterative bounding finds none with fewer preemptions than
// the bound b it is found in (so it has exactly b); then a depth-first
// branch and bound at bound b finds the shortest length L, and a depth-first
// search cut at L returns the first run, in option order, of length L that
// reaches a hazard. That run depends on the scenario and b only: were a
// state on it pruned because an earlier path reached it in no more steps,
// that path followed by the rest of the run would be a run to a hazard as
// short and earlier in option order. PCT and random searches shrink their
// counterexample the same way, after searching the bounds below its
// preemptions exhaustively. The shrunk run replays to its hazard (Check
// replays it to build the report).
//
// # PCT and random search
//
// Options.Search selects PCT (Burckhardt, Kothari, Musuvathi, Nagarakatte:
// "A Randomized Scheduler with Probabilistic Guarantees of Finding Bugs",
// ASPLOS 2010) or uniform random choices. PCT gives the n tasks (workers and
// the patcher; a stopper acts for the patcher) random distinct priorities
// d..d+n-1, picks d-1 change points uniformly in 1..k, where k is the
// length of the default run, and always takes the option that runs the
// task of highest priority (a preemption only for a task of higher priority
// than the one it preempts); at change point i the task about to run drops
// to priority d-i. A run then finds a given hazard of depth d with
// probability at least 1/(n·k^(d-1)); the result states that bound with the
// measured n and k. Run i draws from a generator seeded with (Seed, i), and
// the result is that of the lowest-numbered run that reaches a hazard, so
// runs spread over workers give the same result. A sampling search is never
// SAFE: without a hazard it is INCOMPLETE ("no hazard in N runs").
//
// # The searches' options
//
// ExhaustiveSearch, PCTSearch and RandomSearch each hold only the settings
// of their search, with the limits of every search in one Budget, so a
// combination that means nothing does not compile; their Check methods
// call Check with their Options. Options is the flat form a command line
// fills from its flags; Check refuses its wrong combinations (a shard of
// a sampling search) when it starts. In every form a zero value takes the
// documented default: a zero Bound is DefaultBound, and bound 0 is asked
// for with NoPreemptions.
//
// # Budgets and shards
//
// MaxStates, Timeout, MaxMemory and Context stop a search; the verdict is
// then INCOMPLETE, never SAFE, and Space.Coverage says what was covered
// ("exhaustive through bound 1; bound 2: 41% of frontier (26 of 64
// subtrees)"). Options.Shard makes an exhaustive search take only the
// subtrees i, i+n, i+2n, … of every bound's frontier: the shards of one
// split cover each subtree exactly once (Result.Subtrees adds up), and the
// verdict of the whole is UNSAFE if any shard is, SAFE only if every shard
// is. Shards cannot share a visited set, so their states and runs overlap
// where subtrees merge: their sums exceed the unsharded counts (command
// mcountsim merge combines shard results).
//
// With Options.Exchange (a directory all shards see, the shards running at
// the same time) the shards split the states themselves: every branching
// state, keyed with its preemptions used, has one owner, a hash of the key
// modulo n, and only the owner expands it. A shard that reaches a branching
// state it does not own sends the path to it (the options from the initial
// state, a few bytes: the positions of its non-zero options) to the owner
// once per bound, and goes on with the rest of its own search. A bound is
// searched in rounds: in round r each shard replays the paths it received
// in round r-1 (sorted, as a trie, so a shared prefix is replayed once),
// expands them and every state of its own it reaches, writes one file of
// paths per other shard and a status file, and waits for every shard's
// status of round r; the bound is over after a round in which nobody sent
// anything. This is the search of one process cut along ownership: every
// reachable key is reached (the path to a key is followed to its end, the
// parts by other shards), each key is expanded exactly once, by its owner,
// and the steps from a key to the next branching point are taken by the
// shard that expands the key. So the shards' states, steps and end states
// add up to exactly the unsharded counts, each shard holds about 1/n of
// the states, and a SAFE merge is exhaustive. A hazard or a budget stops
// every shard at the end of the round: the shard that met the hazard
// minimizes it alone (minimization needs no split), the others end
// INCOMPLETE with the counts of the bounds finished, as in an UNSAFE result.
// Within a round a shard's workers take the received paths in chunks and
// then balance the load as in a search of one process (share.go: the
// pieces are paths too, and what they reach is owned and sent the same
// way).
//
// # Schedules
//
// A schedule is the list of choices that differ from the default (option 0:
// the CPU that stepped last goes on running its task), written as
// "step:option" pairs, e.g. "14:1,20:2". Replaying a schedule re-runs the
// machine deterministically; a schedule that names a step the run does not
// reach, or an option that does not exist there, is an error.
//
// # One driver for choices
//
// A scenario is compiled once (compile: the text linked, the strategy
// compiled into the patcher's program); every machine of a check is built
// from it. Every way of choosing a run is a chooser driven by one loop
// (drive.go): replaying a schedule string or a path, fuzz input bytes
// (RunBytes), random and PCT runs, the default run and Preflight. The
// exhaustive search, its frontier and minimization share one step,
// advance, that takes every step without a choice in place and stops at
// the next branching point. The preemption bound is the explorer's: the
// machine lists preemptions last and sched.Machine.OptionsWithin drops them
// once a run has made that many, so option numbers, and with them
// schedules, do not depend on the bound.
//
// Imports: sched, patch, kernel, detect, isa, params and the standard library.
package explore
