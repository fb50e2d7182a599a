package sched

import (
	"github.com/mcountsim/mcountsim/detect"
	"github.com/mcountsim/mcountsim/kernel"
)

// Task symmetry in the state hash (issue 19).
//
// Every worker task runs the same program: it starts at the image's entry
// with every register zero but its stack pointer, and its workload (the
// loop, the functions, their arguments) is code in text that all workers
// share. Two workers differ only in the base of their stack (task t's is
// StackBase + t·size) and in the index the machine files them under. A
// permutation π of the workers, applied to a state s, gives the state π(s)
// in which worker π(t) holds what worker t held, every value that is an
// address in t's stack moved by the distance between the two stacks, and
// every reference to a task by index (the task a CPU runs, the run queue,
// synchronize_rcu_tasks' waiting set, the tracer kernel's per-task
// records) renamed by π. The patcher is not a worker: it stays where it
// is, hashed by index.
// The wrong-result detector's progress (each worker's returns and data
// stores so far) is in its digest; when the reference run owes the
// workers different results (detect.Results.Symmetric is false) they are
// not alike and the machine has no symmetry.
//
// Hash keys a state by its class under these permutations: each worker
// gets a 128-bit digest of its own state with its own-stack addresses
// written relative to its stack (registers, link taint, shadow frames'
// return addresses and stack pointers, its stack words and the register
// each was written from, indexed by word within its stack, its run-queue
// and wait bits, its tracer record), the digests are hashed as a sorted
// multiset, and each CPU record carries the digest of the task it runs in
// place of the task's index. The CPU records are sorted too, which renames
// the CPUs: what a CPU's identity reaches is in its record (its view, IPI,
// stopper and grace-period bits, and, in the tracer kernel, its per-CPU
// counter: perCPUDigest) or pins the renaming (a running task's
// thread_info.cpu is a word of its digest). The state's other parts (text and
// provenance, site histories, data, the patcher, its progress and waits,
// the CPUs' views) have no task index in them and are hashed as they are.
// Equal keys mean equal states up to a permutation (and a renaming of
// CPUs), barring a hash collision.
//
// An exited worker's digest is the mark of an exited task alone (and its
// synchronize_rcu_tasks bit, which is clear): it never runs again, no
// option names it, and nothing reads its registers, stack or records
// again (a task addresses only its own stack; the detectors watch running
// tasks), so two states that differ only in what exited tasks left behind
// have the same futures. The exact hash below, when the machine has the
// symmetry, hashes an exited worker so too: a symmetric state stands for
// every state of its class, whatever its exited workers left, and the
// successors of any of them must have one key however they are hashed,
// or which of them a search met first would decide the keys that follow
// (found so: l_shared, where a store to data after a worker's exit made
// the state odd, counted other states with 2 search workers than with 1).
// With the symmetry off, exited tasks are hashed in full, as before.
//
// Why π(s) has the permuted futures. The machine treats workers alike: the
// scheduler offers every runnable task and every CPU's step, its choices
// depend on task states and never on indices (indices only number the
// options), and every detector reads the state of the task it watches. A
// task can address only its own stack (a load or store anywhere else in
// the stack area faults: loadMem, storeMem), and the stack bases are
// multiples of the stack's size (a power of two for the tracer kernel,
// whose thread_info is found by masking sp, and StackBase is 16 MiB
// aligned), so the stack-relative operations the code performs on its
// addresses (adding offsets, loads and stores through them, saving them
// in its stack, comparing two of them, masking off the bits below the
// stack size) commute with moving the stack. So a run from s maps step by
// step, through π, to a run from π(s) with the same options (renumbered),
// the same hazards of the same kinds on the renamed tasks, the same
// preemptions. The visited set may therefore prune π(s) once s was
// expanded with as many preemptions used: every run through π(s) has a
// twin through s with the same hazards, already explored. Schedules are
// recorded along the path actually taken, so a counterexample replays
// whatever state of its class pruned a sibling.
//
// A value computed from a stack address by an operation that does not
// commute with moving the stack (the tracer kernel's current_thread_info()
// shifts sp right by THREAD_SHIFT, then back) differs between tasks and is
// hashed as it is: the two states stay apart, a merge missed, never a
// wrong one.
//
// What would break the map, and how Hash keeps out of it. A value in the
// stack window (the workers' stacks, with the width of all of them on
// either side) in a worker's register, link taint, shadow frame or stack
// word is taken for one computed from the holder's stack pointer and is
// written relative to the holder's stack base: the workloads compute no
// numbers there (StackBase is 0x7f000000, far above their loop counters,
// arguments, sums and text and data addresses), so such a value came from
// sp by the stack-relative operations above, and moving it with its
// holder keeps every use the holder can make of it: an address in its own
// stack is loaded and stored through; its stack's top (a stack pointer
// just moved past its end, before the store that faults), a pointer
// biased below its stack (gcc keeps p - 0x70 for an array p[] in the
// stack, and indexes it from 1) and an address in another worker's stack
// (reached by adding to such a pointer) only fault if loaded or stored
// through, and fault alike wherever they fall, because nothing else is
// mapped in the window (New and mapData refuse text and data there:
// meetsStackWindow). A task's registers and stack are its own, so such a
// value reaches another task only through data. Data is shared, so an
// address of a worker's stack there, its own or not, would have to move
// with that worker: whenever data may hold a stack address (dataOdd: a
// byte a store of a value in the stack window wrote, or a 4-byte window
// of the image's own bytes that spells such a value), or a register holds
// a value in ownTag's range, Hash falls back to the exact hash of the
// state (tasks by index, in a domain of its own), which prunes only
// identical states. The bytes of a number a store wrote are not taken
// for one, whatever they spell with their neighbours: the workloads'
// stack addresses come from sp, whole, so a store of one stores a value
// in the stack window. (Text is not scanned: instruction words hold such
// bit patterns, and a literal the code loads lands in a register, where
// the rule above sees it.) Until 6 December 2026 a value in the window
// outside its holder's own stack made the state odd too; on the corpus's
// m_rbtree (the biased pointer) and, with the stacks at 1 MiB, m_aes_round
// (a cipher word that fell in the other worker's stack) both workers were
// searched.
//
// Keys stay canonical across the fallback only where no step leads from
// a symmetric state to an odd one: the symmetric parent stands for every
// state of its class, and the exact keys of their successors differ by
// the permutation. Such a step is one that makes a value near the stacks
// appear where the rules above see it (a worker storing a stack address
// to data, a register computed into another's stack), outside the
// workloads' premise; there the counts, never the verdict, may depend on
// which state of a class the search met first, as in the tracer kernel
// (explore's package doc). While a number's bytes counted as a possible
// address, every state of loops.c's l_shared after its last store was
// odd (l_total = 0x10 after two zero bytes of .data spelled 0x100000,
// the first stack's base then), and its counts depended on the search
// workers. Config.NoSymmetry turns the reduction off;
// TestSymmetryIsABisimulation plays random runs and their
// permuted images side by side, and explore's tests compare the verdicts
// and hazard kinds of every built-in and example strategy with and
// without it.

// ownTag marks a value written relative to its task's stack base in a
// digest. A 64-bit value that is not an address in the stack window but
// lies in [ownTag, ownTag+4·stackArea] would be mistaken for one: such a
// state is hashed exactly instead.
const ownTag = 0x5a17_c3e1_0000_0000

// rebase writes the values of one task's digest that lie in the stack
// window relative to the task's stack base lo (window): its own stack
// addresses, its top (the stack pointer of an empty stack), a pointer
// biased below its stack and a value in another worker's stack alike; the
// zero value leaves every value as it is. A value in ownTag's range makes
// the state odd: it is hashed exactly.
type rebase struct {
	lo, area uint64
	odd      bool // some value was in ownTag's range
}

// v returns x as the digest holds it.
func (r *rebase) v(x uint64) uint64 {
	if r.area == 0 {
		return x
	}
	if x-(StackBase-r.area) <= 3*r.area {
		return x + 2*r.area - r.lo + ownTag // in [ownTag, ownTag+4·area]
	}
	if x-ownTag <= 4*r.area {
		r.odd = true
	}
	return x
}

// stackLo is the lowest address of worker t's stack.
func (m *Machine) stackLo(t int) uint64 { return StackBase + uint64(t)*m.st.stackSize }

// wordHash is the contribution of stack word w, of task t whose stack
// starts at lo, to t's stack sum: the stack is hashed incrementally, as a
// sum over its words updated by stores. A word holding a value in the
// stack window is written relative to lo, as rebase writes it.
func (m *Machine) wordHash(w, t int, lo uint64) [2]uint64 {
	return m.wordHashOf(w, t, lo, uint64(le32(m.stack[w*4:])))
}

// wordHashOf is wordHash with stack word w holding v.
func (m *Machine) wordHashOf(w, t int, lo, v uint64) [2]uint64 {
	x := uint64(w-t*m.cfg.StackWords)<<40 | uint64(m.slots[w])<<32
	if m.depth != nil {
		x |= uint64(m.depth[w]) << 53 // freed.go (the index takes bits 40-51: at most 4096 words)
	}
	if m.inStackWindow(v) {
		x |= v + 2*m.st.stackArea - lo | 1<<63 // below 4·area: 32 bits
	} else {
		x |= v
	}
	return [2]uint64{mix(x ^ 0x9e3779b97f4a7c15), mix(x + 0xc2b2ae3d27d4eb4f)}
}

// Data marks (Machine.dmark): what last wrote each byte of data.
const (
	markBoot   = iota // the image: no store wrote the byte
	markNumber        // a store of a value outside the stack window
	markStack         // a store of a value in the stack window
)

// inStackWindow reports whether x lies in the stack window (see rebase).
func (m *Machine) inStackWindow(x uint64) bool {
	return x-(StackBase-m.st.stackArea) <= 3*m.st.stackArea
}

// dataOdd counts what, in or next to the n bytes of data at off, makes
// the state odd (Machine.dataStack, kept up to date by every store to
// data), and sums their markHash (Machine.dataOddSum): each byte a store
// of a value in the stack window wrote (a stack address, the storer's own
// or another's: the permutation would have to move it with its task),
// and each 4-byte window of the image's bytes, none of them stored since,
// that holds a value in the stack window (a constant of the image there,
// kept exact however unlikely it is an address). A window a store of a
// number wrote into is not counted, whatever its bytes spell with their
// neighbours (l_total = 0x10 after two zero bytes spells 0x100000, a
// stack address when the stacks began at 1 MiB): the
// stack addresses of the workloads all come from sp and are stored whole,
// so a number's bytes are no address, and a permutation leaves them as
// they are. On read-only pages only the aligned windows count: no task
// stores there, so what they hold is the image's constants, and a
// constant is loaded from its own aligned word (a table of bytes or
// halfwords such as 00 00 00 7f holds the pattern 0x7f000000 astride two
// entries, a value no load of an entry returns).
func (m *Machine) dataOdd(off uint64, n int) (c int, sum [2]uint64) {
	add := func(x uint64) {
		c++
		h := markHash(x)
		sum[0] += h[0]
		sum[1] += h[1]
	}
	first, last := int(off)-3, int(off)+n-1
	first = max(first, 0)
	last = min(last, len(m.data)-4)
	for i := first; i <= last; i++ {
		if i%4 != 0 && m.st.roData != nil && m.st.roData[i] {
			continue
		}
		if m.dmark != nil && (m.dmark[i] != markBoot || m.dmark[i+1] != markBoot || m.dmark[i+2] != markBoot || m.dmark[i+3] != markBoot) {
			continue
		}
		if m.data[i+3] == 0 && m.inStackWindow(uint64(le32(m.data[i:]))) {
			add(uint64(i))
		}
	}
	if m.dmark != nil {
		for i := int(off); i < int(off)+n && i < len(m.dmark); i++ {
			if m.dmark[i] == markStack {
				add(uint64(i) | 1<<40)
			}
		}
	}
	return c, sum
}

// markHash is the part of Machine.dataOddSum of a counted window (x its
// offset) or marked byte (x its offset | 1<<40).
func markHash(x uint64) [2]uint64 {
	return [2]uint64{mix(x ^ 0x3c6ef372fe94f82b), mix(x + 0xa54ff53a5f1d36f1)}
}

// hashSym is Hash up to a permutation of the workers; ok is false when
// the state holds a value it cannot place (see above).
func (m *Machine) hashSym() (sum [2]uint64, ok bool) {
	m.flushWords()
	n := int(m.patcher)
	runq := m.runnable()
	var dig [MaxTasks][2]uint64
	for t := 0; t < n; t++ {
		var h hasher
		h.init()
		if m.tasks[t].State == Exited {
			// Dead: an exited task never runs again, and nothing reads
			// its registers or stack.
			h.u64(uint64(Exited) | uint64(m.gpTasks>>t&1)<<8)
			dig[t] = h.sum()
			continue
		}
		td, odd := m.taskDigest(t)
		if odd {
			return sum, false
		}
		h.u64(td[0])
		h.u64(td[1])
		ss := m.stackSum[t]
		if m.tr.on && m.tasks[t].State == Running {
			ss = m.cpuRelative(t, m.stackLo(t), ss)
		}
		h.u64(ss[0])
		h.u64(ss[1])
		h.u64(runq>>t&1 | uint64(m.gpTasks>>t&1)<<1)
		if m.tr.on {
			m.hashTracerTask(&h, int8(t))
		}
		dig[t] = h.sum()
	}
	if m.dataStack != 0 {
		return sum, false
	}
	var h hasher
	h.init()
	h.u64(1) // apart from hashExact's
	m.hashShared(&h)
	var cpus [MaxCPUs][2]uint64
	for c := 0; c < m.cfg.CPUs; c++ {
		r := m.cpuRecord(c)
		var d [2]uint64
		if cur := m.cpus[c].Cur; cur >= 0 && int(cur) < n {
			d = dig[cur]
			r |= 1 << 13
		} else {
			r |= uint64(uint8(cur))
		}
		var view uint64
		if len(m.st.dirty) > 0 {
			view = m.viewDigest(c)
		}
		if m.tr.on {
			view ^= m.perCPUDigest(c)
		}
		cpus[c] = [2]uint64{mix(mix(r^view) ^ d[0]), mix(mix(r+view+0x4b33a62ed433d4a3) + d[1])}
	}
	for c := 0; c < m.cfg.CPUs; c++ {
		m.cpuName[c] = cpus[c][0]
	}
	for t := 0; t < n; t++ {
		m.taskName[t] = dig[t][0]
	}
	m.taskName[n] = uint64(n)
	sortPairs(cpus[:m.cfg.CPUs])
	for _, v := range cpus[:m.cfg.CPUs] {
		h.u64(v[0])
		h.u64(v[1])
	}
	sortPairs(dig[:n])
	for _, v := range dig[:n] {
		h.u64(v[0])
		h.u64(v[1])
	}
	pd, _ := m.taskDigest(n)
	h.u64(pd[0])
	h.u64(pd[1])
	h.u64(runq >> n)
	h.u64(uint64(m.gpTasks >> n))
	m.hashProgress(&h, false)
	if m.tr.on {
		m.hashTracer(&h, false)
	}
	return h.sum(), true
}

// taskDigest is worker t's registers, flags, link taint, shadow stack and
// pass record as hashTaskState feeds them, rebased to its stack (the
// patcher's as they are), and whether one of them made the state odd (see
// rebase). It is kept between
// calls (Machine.tdig) as long as neither t's registers nor its Task
// change: every step marks the tasks it may change (touched), and nothing
// else writes them (the accessor Task marks the task it hands out), so a
// digest is recomputed only for a task that ran or was scheduled since.
// TestTaskDigestsHold compares the kept digests with fresh ones along
// random runs of every built-in strategy, the tracer kernel's too.
func (m *Machine) taskDigest(t int) (d [2]uint64, odd bool) {
	bit := uint32(1) << t
	if m.tdOK&bit != 0 {
		return m.tdig[t], m.tdOdd&bit != 0
	}
	var h hasher
	h.init()
	var rb rebase // the patcher's values as they are
	if t < int(m.patcher) {
		rb = rebase{lo: m.stackLo(t), area: m.st.stackArea}
	}
	m.hashTaskState(&h, int8(t), &rb)
	d = h.sum()
	m.tdig[t] = d
	m.tdOK |= bit
	if rb.odd {
		m.tdOdd |= bit
	} else {
		m.tdOdd &^= bit
	}
	return d, rb.odd
}

// exactDigest is task t's state as hashTaskState feeds it, by its index
// (hashExact), kept as taskDigest keeps its digest: a branching state
// hashes again only the tasks that ran or were scheduled since the last.
func (m *Machine) exactDigest(t int) [2]uint64 {
	bit := uint32(1) << t
	if m.xdOK&bit == 0 {
		var h hasher
		h.init()
		var none rebase
		m.hashTaskState(&h, int8(t), &none)
		m.xdig[t] = h.sum()
		m.xdOK |= bit
	}
	return m.xdig[t]
}

// touched marks the digests of the tasks named by mask (bit t: task t) as
// stale.
func (m *Machine) touched(mask uint32) { m.tdOK &^= mask; m.xdOK &^= mask }

// taskBit is the mask of task t, or 0 for none (a free CPU, the stopper).
func taskBit(t int8) uint32 {
	if t < 0 {
		return 0
	}
	return 1 << t
}

// perCPUDigest is CPU c's own words of the tracer kernel's per-CPU data
// (its data->disabled counter), folded into c's record so that renaming
// the CPUs, which sorting their records does, moves each CPU's data with
// it. Hashed by address alone, a state in which two CPUs with different
// records (one with an IPI pending, say) hold different counters would
// collide with the state in which the records are swapped and the
// counters are not, though a task scheduled onto the CPU with the IPI
// then reads another counter. The running tasks' thread_info.cpu already
// pins the CPUs they run on (it is a stack word of their digest); idle
// CPUs had nothing to pin them.
func (m *Machine) perCPUDigest(c int) uint64 {
	off, ok := m.dataOff(kernel.PerCPUBase+4*uint64(c), 4)
	if !ok {
		return 0
	}
	return mix(uint64(le32(m.data[off:])) + 0x7f4a7c15)
}

// cpuRelative returns the stack sum ss of running worker t with its
// thread_info.cpu word written relative to the CPU it runs on (0 when the
// scheduler's value is there): the CPU records are sorted, which renames
// the CPUs, and a running task's cpu word is the number of the record it
// is filed under, so hashed as it is it would keep apart two states that
// differ only by a renaming (sound, but which of them the search meets
// first would decide the states counted). A task that is not running
// holds the number of a CPU it left, rewritten before it runs again, and
// is hashed as it is.
func (m *Machine) cpuRelative(t int, lo uint64, ss [2]uint64) [2]uint64 {
	w := int(m.tiAddr(int8(t), kernel.TICPU)-StackBase) / 4
	old := m.wordHashOf(w, t, lo, uint64(le32(m.stack[w*4:])))
	rel := m.wordHashOf(w, t, lo, uint64(uint32(le32(m.stack[w*4:])-uint32(m.tasks[t].CPU))))
	return [2]uint64{ss[0] - old[0] + rel[0], ss[1] - old[1] + rel[1]}
}

// sortPairs sorts a handful of 128-bit values in place.
func sortPairs(v [][2]uint64) {
	for i := 1; i < len(v); i++ {
		for j := i; j > 0 && less2(v[j], v[j-1]); j-- {
			v[j], v[j-1] = v[j-1], v[j]
		}
	}
}

func less2(a, b [2]uint64) bool { return a[0] < b[0] || a[0] == b[0] && a[1] < b[1] }

// refSymmetric reports whether the wrong-result detector treats every
// worker alike (detect.Results.Symmetric), with each task's values that
// are addresses in its own stack taken relative to that stack: a traced
// void function leaves in the return register whatever it last computed,
// often a pointer into its caller's array on the stack, which differs
// between tasks by the distance between their stacks. Task t's returns
// and stores are compared with the reference's for t alone, and a value
// that is an address in t's stack is one a permuted task reproduces
// moved with its stack, as the hash's rebasing has it; a value in the
// stack window outside its task's own stack makes the workers unlike.
func (m *Machine) refSymmetric(r *detect.Results) bool {
	if r == nil || !r.Compared {
		return true
	}
	if r.Symmetric() {
		return true
	}
	rel := func(t int, v uint64) (uint64, bool) {
		rb := rebase{lo: m.stackLo(t), area: m.st.stackArea}
		x := rb.v(v)
		return x, !rb.odd
	}
	for i := 1; i < len(r.Tasks); i++ {
		a, b := r.Tasks[0], r.Tasks[i]
		if !alikeRelative(a.Returns, b.Returns, func(x *detect.Return) *uint64 { return &x.Value }, rel, i) ||
			!alikeRelative(a.Stores, b.Stores, func(x *detect.DataStore) *uint64 { return &x.Value }, rel, i) {
			return false
		}
	}
	return true
}

// alikeRelative reports whether task 0's records a and task i's b are
// equal but for their values (the field value points to), which must be
// equal taken relative to each task's stack (rel, as refSymmetric has it).
func alikeRelative[T comparable](a, b []T, value func(*T) *uint64, rel func(t int, v uint64) (uint64, bool), i int) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		x, y := a[k], b[k]
		vx, vy := value(&x), value(&y)
		va, oka := rel(0, *vx)
		vb, okb := rel(i, *vy)
		*vx, *vy = 0, 0
		if !oka || !okb || va != vb || x != y {
			return false
		}
	}
	return true
}
