package sched

import "github.com/mcountsim/mcountsim/kernel"

// Footprints of options, for the partial-order reduction of visible steps
// (package explore's doc, "Sleep sets"). A footprint says, before the
// option is taken, what it may read or write that an option of another
// CPU may also touch; Independent decides from two footprints of one state
// whether the two options commute: either order is possible and both reach
// the same state (up to the order of the run queue, which Hash reads as a
// set), and neither changes anything the other reads, so each does in the
// other order exactly what it does here (the same hazards included).
//
// Five kinds of options get a footprint of their own; everything else is
// Global (dependent on every option): the patcher's steps other than
// stores, the stoppers, the int3 handler, exits and the other hooks, IPIs,
// anything while stop_machine is requested or in the tracer kernel, a
// fetch through a stale view, an instruction that synchronizes or may
// fault.
//
//   - A worker's instruction that touches only its registers, its stack
//     and the text it fetches (the window of the longest instruction, and
//     the history of the site it is in or leaves), or that also loads or
//     stores one range of data: Lo..Hi, computed from its registers now.
//     Bytes a store may write may hold a breakpoint, whose exception
//     synchronizes the CPU's view where the ISA says so: such a fetch
//     reads all of text.
//   - An exclusive access (ldrex/strex, ldxr/stxr, lr/sc) counts as a
//     store to its bytes wherever they are, its own stack included: it
//     reads or writes its CPU's monitor, which any other CPU's store to
//     those bytes clears (monitor.go).
//   - schedule() (a worker's yield): its task goes to the run queue, its
//     CPU is free; the grace periods' bookkeeping it updates (a bit per CPU
//     and per task, cleared, and the patcher woken by the last) commutes
//     with the other such updates.
//   - A pick of a free CPU: the task leaves the run queue for the CPU (and,
//     returning from the interrupt that preempted it, synchronizes the
//     CPU's view: it reads all of text).
//   - A preemption by a timer interrupt: the task goes back to the run
//     queue, another (or the same) takes the CPU (synchronizing its view),
//     and the run's preemptions grow by one, which decides the preemptions
//     still offered: two preemptions are always dependent.
//   - A store of the patcher: it writes the stored bytes and the history
//     of their site.
type Footprint struct {
	// Global: the option may touch anything.
	Global bool
	// Tasks are the tasks whose state or place (a CPU, the run queue) the
	// option changes or reads.
	Tasks uint32
	// Preempt: the option counts a preemption.
	Preempt bool
	// Lo, Hi: the data bytes it loads or stores (Lo == Hi: none); Store
	// says it may store.
	Lo, Hi uint64
	Store  bool
	// TextLo, TextHi: the text offsets it fetches or writes, with the
	// sites whose histories it reads or extends (TextLo == TextHi: none);
	// TextStore says it writes (the patcher's stores).
	TextLo, TextHi uint64
	TextStore      bool
}

// Independent reports whether the options a of CPU ca and b of CPU cb,
// with footprints fa and fb in one state, commute.
func Independent(ca int8, fa Footprint, cb int8, fb Footprint) bool {
	switch {
	case ca == cb, fa.Global, fb.Global, fa.Tasks&fb.Tasks != 0, fa.Preempt && fb.Preempt:
		return false
	case fa.Lo < fa.Hi && fb.Lo < fb.Hi && fa.Lo < fb.Hi && fb.Lo < fa.Hi && (fa.Store || fb.Store):
		return false
	case fa.TextLo < fa.TextHi && fb.TextLo < fb.TextHi && fa.TextLo < fb.TextHi && fb.TextLo < fa.TextHi && (fa.TextStore || fb.TextStore):
		return false
	}
	return true
}

var global = Footprint{Global: true}

// Footprint returns the footprint of a, one of the current options.
func (m *Machine) Footprint(a Action) Footprint {
	if m.tr.on || m.stopOn || m.done || int(a.CPU) >= m.cfg.CPUs {
		return global
	}
	cpu := &m.cpus[a.CPU]
	t := cpu.Cur
	if cpu.Stopper || cpu.IPI {
		return global
	}
	switch a.Kind {
	case ActPick:
		if t >= 0 || a.Task < 0 || a.Task >= m.patcher {
			return global
		}
		f := Footprint{Tasks: 1 << a.Task}
		if m.shape.excSync {
			// Returning from the interrupt that preempted the task
			// synchronizes; whether it was preempted is not part of
			// Hash, so every pick is taken to.
			f.readsText(m)
		}
		return f
	case ActPreempt:
		if t < 0 || t == m.patcher || a.Task < 0 || a.Task >= m.patcher {
			return global
		}
		f := Footprint{Tasks: 1<<t | 1<<a.Task, Preempt: true}
		if m.shape.excSync {
			f.readsText(m) // the interrupt synchronizes
		}
		return f
	case ActRun:
		switch {
		case t == m.patcher:
			return m.patcherFootprint()
		case t < 0:
			return global
		}
		return m.runFootprint(a.CPU, t)
	}
	return global
}

// patcherFootprint is the footprint of the patcher's next step: a store
// to text (the bytes, and the histories of the sites it changes) is the
// only one that is not Global. (It also brings the program nearer its end,
// which decides whether other CPUs' fetches are thread-local: that changes
// which steps the machine takes alone, not what they do.)
func (m *Machine) patcherFootprint() Footprint {
	if m.pop >= len(m.prog.Ops) || m.prog.Ops[m.pop].Kind != OpStore {
		return global
	}
	op := &m.prog.Ops[m.pop]
	s := op.Stores[0]
	lo, hi := s.Addr-m.img.Base, s.Addr-m.img.Base+uint64(len(s.Bytes))
	if op.Bytewise {
		lo += uint64(m.psub)
		hi = lo + 1
	}
	f := Footprint{Tasks: 1 << m.patcher, TextLo: lo, TextHi: hi, TextStore: true}
	for o := lo; o < hi; o++ {
		f.withSite(m, m.st.siteOf[o])
	}
	return f
}

// readsText widens f's text to all of it: the option synchronizes its
// CPU's view of text, which reads what every byte holds now.
func (f *Footprint) readsText(m *Machine) { f.TextLo, f.TextHi = 0, uint64(len(m.text)) }

// withSite widens f's text to the bytes of site i (none when i < 0).
func (f *Footprint) withSite(m *Machine, i int8) {
	if i < 0 {
		return
	}
	s := m.img.Sites[i]
	lo, hi := s.Addr-m.img.Base, s.Addr-m.img.Base+uint64(s.Len)
	if f.TextLo == f.TextHi {
		f.TextLo, f.TextHi = lo, hi
		return
	}
	f.TextLo, f.TextHi = min(f.TextLo, lo), max(f.TextHi, hi)
}

// runFootprint is the footprint of worker t's next step on CPU c.
func (m *Machine) runFootprint(c, t int8) Footprint {
	if m.tasks[t].InTrap {
		return global
	}
	pc := m.core.pc(t)
	off, ok := m.textOff(pc)
	if !ok {
		return global
	}
	own := Footprint{Tasks: 1 << t}
	if p := &m.tasks[t].Pass; p.Open {
		own.withSite(m, int8(p.Site)) // closing the pass reads the site's history
	}
	switch m.st.hook[off] {
	case kernel.HookNone:
	case kernel.HookSchedule, kernel.HookTrace:
		return own
	default:
		return global
	}
	if m.stale(c, off, m.shape.maxLen) {
		return global
	}
	// The fetch reads the window of the longest instruction (whose
	// staleness decides the variants) and the history of its site.
	fl, fh := off, min(off+uint64(m.shape.maxLen), uint64(len(m.text)))
	if own.TextLo == own.TextHi {
		own.TextLo, own.TextHi = fl, fh
	} else {
		own.TextLo, own.TextHi = min(own.TextLo, fl), max(own.TextHi, fh)
	}
	own.withSite(m, m.st.siteOf[off])
	if _, err := m.core.decode(pc, m.text[off:min(off+uint64(m.shape.maxLen), uint64(len(m.text)))]); err != nil || m.core.syncs() {
		return global
	}
	if m.shape.excSync && m.mutable(off, m.shape.maxLen) {
		// Bytes a store may write may hold a breakpoint: taking the
		// exception synchronizes the CPU's view.
		own.readsText(m)
	}
	if m.core.exclusive() {
		// The monitor is shared state: the access is a store to its
		// bytes whatever they are (own stack included), a load-exclusive
		// too, since it marks them (monitor.go).
		a, n, _, ok := m.core.memAddr(m, t, pc)
		if !ok || n <= 0 || a+uint64(n) < a || a&uint64(n-1) != 0 {
			return global // a fault
		}
		if lo, hi := m.stackRange(t); !(a >= lo+kernel.TISize && a+uint64(n) <= hi) {
			if _, ok := m.dataOff(a, n); !ok || m.readOnly(a, 1) || m.readOnly(a+uint64(n)-1, 1) {
				return global // a fault, thread_info, another stack, text or read-only data
			}
		}
		own.Lo, own.Hi, own.Store = a, a+uint64(n), true
		return own
	}
	if m.core.localInst(len(m.st.dataAt) > 0) {
		return own
	}
	a, n, store, ok := m.core.memAddr(m, t, pc)
	if !ok || n <= 0 || a+uint64(n) < a {
		return global
	}
	if lo, hi := m.stackRange(t); a >= lo+kernel.TISize && a+uint64(n) <= hi {
		return own
	}
	if _, ok := m.dataOff(a, n); !ok || store && (m.readOnly(a, 1) || m.readOnly(a+uint64(n)-1, 1)) {
		return global // a fault, thread_info, another stack or text
	}
	own.Lo, own.Hi, own.Store = a, a+uint64(n), store
	return own
}

// Names returns, after Hash, a name for every CPU and every task that
// does not depend on the CPUs' numbering, nor, when Hash merges states up
// to a permutation of the workers, on the workers' numbering: the digest
// of the CPU's record (with the task it runs) and of the task's state, as
// Hash computed them. Two CPUs or two tasks with the same name are
// interchangeable in this state.
func (m *Machine) Names() (cpus [MaxCPUs]uint64, tasks [MaxTasks]uint64) {
	return m.cpuName, m.taskName
}
