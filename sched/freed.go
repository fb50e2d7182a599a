package sched

import (
	"encoding/binary"

	"github.com/mcountsim/mcountsim/detect"
	"github.com/mcountsim/mcountsim/isa"
	"github.com/mcountsim/mcountsim/kernel"
)

// Freed frames are scrubbed (issue 21).
//
// A frame's words held, after the frame returned, whatever it had left
// there: two runs that called the same functions in another order, or
// one level deeper, reached states equal in everything but those
// leftovers below the stack pointer, and the state hash kept them apart
// (the corpus's c_heapsort at arm-O2, bound 2 alone: 180,679 branching
// states, 61,093 of them distinct but for leftovers).
// No kernel ABI lets code rely on its stack below sp: an interrupt or
// exception taken in the kernel pushes its frame on the current stack
// (x86-64 kernels build with -mno-red-zone for that reason; A32, A64 and
// RV64 have no red zone), so what a freed frame left may be overwritten
// at any moment, and correct code stores a word of a frame it allocates
// before it loads it. The machine therefore scrubs a frame when it
// returns: its words become 0 and never written, the canonical dead
// stack the tracer kernel's interrupt return already leaves (irq.go), and
// states that differ only by leftovers are one state. It is part of the
// model, not a reduction of the search: the state hash stays exact, and
// every search, replay and reference run scrubs alike.
//
// Which words a return frees. Every stack word remembers the depth of
// its task's shadow call stack when it was last stored (one more for the
// return address a call pushes: it belongs to the callee's frame). A
// return that leaves the shadow stack at depth d and the stack pointer at
// sp scrubs every word below sp (above the bottom's thread_info) stored at
// a depth above d: by the callee or deeper. A word the caller stored
// itself below its own stack pointer stays: the trampolines of RISC-V's
// first patchable-entry era (kernel.RVPFE16) save ra at -8(sp) before the
// call and reload it after, relying on ftrace_caller's frame skipping
// that word. The depths are part of the state (a live word is hashed with
// its depth: they decide what later returns scrub).
//
// What it changes. A load of a scrubbed word reads 0 from a never-written
// slot, where it read the leftover before. Correct code never loads one;
// a trampoline that pops a slot nothing pushed, and finds one a returned
// frame wrote, now finds the never-written slot the foreign-slot detector
// reports (as the interrupt frames overwriting it on real hardware would
// make it garbage). Config.KeepFreed keeps the leftovers;
// TestFreedFramesAgree (explore) and TestFreedFramesAgreeOnObjects
// (kernel) compare verdicts, hazard kinds, places and end states with and
// without it on every built-in strategy and on real objects.
//
// Task.lowLive is bookkeeping that makes a return cost the words it
// scrubs: no word stored at a depth above 0 lies below it. It is not in
// the hash (what a return scrubs is a function of the state).

// initFreed allocates the depths (New).
func (m *Machine) initFreed() {
	m.depth = make([]uint8, m.cfg.Tasks*m.cfg.StackWords)
	for t := range m.tasks {
		m.tasks[t].lowLive = ^uint64(0)
	}
}

// storeDepth is the depth a store by task t from reg to its stack word w
// leaves: 0 in thread_info, which no return frees (the machine writes it
// for the task at any depth).
func (m *Machine) storeDepth(t, w int, reg uint8) uint8 {
	if (w-t*m.cfg.StackWords)*4 < kernel.TISize {
		return 0
	}
	d := m.tasks[t].Shadow.N
	if reg == isa.RetAddr {
		d++ // a call's return address: the callee's frame
	}
	return d
}

// freeFrames scrubs the words of worker t's stack below sp, its stack
// pointer after a return, stored at a depth above the shadow stack's now.
func (m *Machine) freeFrames(t int8, sp uint64) {
	if int(t) >= m.cfg.Tasks {
		return
	}
	tk := &m.tasks[t]
	lo := m.stackLo(int(t))
	hi := min(max(sp, lo), lo+m.st.stackSize) &^ 3
	if tk.lowLive >= hi {
		return
	}
	d := tk.Shadow.N
	low := hi
	for a := max(tk.lowLive, lo+kernel.TISize) &^ 3; a < hi; a += 4 {
		w := int((a - StackBase) / 4)
		switch k := m.depth[w]; {
		case k == 0:
		case k <= d:
			low = min(low, a)
		default:
			m.scrubWord(int(t), w, lo)
		}
	}
	tk.lowLive = low
}

// scrubWord sets stack word w of task t (whose stack starts at lo) to 0,
// never written, as the model's canonical dead stack (the scrub is not a
// store of the run: it is not recorded).
func (m *Machine) scrubWord(t, w int, lo uint64) {
	p := m.stack[4*w : 4*w+4 : 4*w+4]
	if m.slots[w] == detect.SlotUnwritten && binary.LittleEndian.Uint32(p) == 0 && (m.depth == nil || m.depth[w] == 0) {
		return
	}
	m.pendWord(t, w, lo)
	binary.LittleEndian.PutUint32(p, 0)
	m.slots[w] = detect.SlotUnwritten
	if m.depth != nil {
		m.depth[w] = 0
	}
}

// putWord sets stack word w of task t to v from slot at call depth d, as
// a memoized stretch left it (memo.go: memoApply, which sets the stack
// sums after the stretch itself).
func (m *Machine) putWord(t, w int, v uint32, slot, d uint8) {
	binary.LittleEndian.PutUint32(m.stack[4*w:4*w+4], v)
	m.slots[w] = slot
	m.stackLow[t] = min(m.stackLow[t], int32(w))
	if m.depth != nil {
		m.depth[w] = d
		if a := StackBase + uint64(w)*4; d > 0 && a < m.tasks[t].lowLive {
			m.tasks[t].lowLive = a
		}
	}
}
