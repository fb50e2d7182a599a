package sched

import (
	"fmt"

	"github.com/mcountsim/mcountsim/detect"
)

// A link register is a general register too: under register pressure gcc
// spills a data value to the stack and reloads it into lr (ARM), once lr's
// own value is saved. A word load into such a register from a slot that
// holds no saved link is therefore data, not yet a hazard; it becomes one
// when the value is used as a return address (a return to it, or a store of
// it that a later load into the pc reads back), or at once when the
// trampoline's contract says the slot must hold the saved link (the words a
// callee with a contract pops: __gnu_mcount_nc reloads the caller's lr from
// the word the site pushed). A load straight into the pc from a foreign
// slot is reported at once, as before.

// slotScratchLink is the provenance of a stack word stored from a link
// register that held a value loaded from a foreign slot.
const slotScratchLink uint8 = 0xfb

// linkTaint says that task's link register holds a value loaded from a
// foreign stack slot: which value, from where, written from what.
type linkTaint struct {
	on   bool
	src  uint8  // the slot's provenance
	val  uint64 // the value loaded
	from uint64 // the slot's address
}

// contractSlot reports whether the stack slot at a is one that the callee
// task t is running (by the top frame of its shadow stack) pops by its
// contract: such a slot must hold the saved link.
func (m *Machine) contractSlot(t int8, a uint64) bool {
	s := &m.tasks[t].Shadow
	if s.N == 0 {
		return false
	}
	f := s.Frames[s.N-1]
	return f.Pop > 0 && a >= f.SP && a < f.SP+uint64(f.Pop)
}

// foreignLink handles a control register loaded in this step from a slot
// that holds no saved link, by an instruction with flow: it reports the
// hazard, or (a link register used as scratch) taints the register.
func (m *Machine) foreignLink(c, t int8, pc uint64) {
	if m.core.scratchLink(m.loadedInto) && !m.contractSlot(t, m.loadedFrom) {
		m.tasks[t].link = linkTaint{on: true, src: m.loadedLink, val: m.core.reg(t, int(m.loadedInto)), from: m.loadedFrom}
		return
	}
	m.hazard(detect.ForeignSlot, int(c), int(t), pc, fmt.Sprintf("%s loaded from stack slot %#x, %s, not a saved link value",
		m.core.regName(m.loadedInto), m.loadedFrom, m.slotSource(m.loadedLink)))
	if h := m.lastHazard(m.steps); h != nil {
		h.Slot = m.loadedFrom
	}
}

// scratchReturn checks a return of task t to target against its tainted
// link register: a return to the value loaded from a foreign slot, or
// through a slot the tainted register was stored to, is the foreign-slot
// hazard. It clears a taint the link register no longer holds.
func (m *Machine) scratchReturn(c, t int8, pc, target uint64, ret bool) {
	if ret && m.loadedInto != 0 && m.loadedLink == slotScratchLink {
		// Reported before the return's own check, as a return to lr is.
		m.foreignLink(c, t, pc)
		m.loadedInto = 0
		return
	}
	lt := &m.tasks[t].link
	if !lt.on {
		return
	}
	if ret && m.loadedInto == 0 && target == lt.val {
		m.hazard(detect.ForeignSlot, int(c), int(t), pc, fmt.Sprintf("return to %#x, the value lr was loaded with from stack slot %#x, %s, not a saved link value",
			target, lt.from, m.slotSource(lt.src)))
		if h := m.lastHazard(m.steps); h != nil {
			h.Slot = lt.from
		}
		*lt = linkTaint{}
		return
	}
	if m.core.reg(t, int(m.shape.linkRegs[0])) != lt.val {
		*lt = linkTaint{}
	}
}

// stackSource is the provenance a store from reg by the task executing
// now leaves in its stack slot: a tainted link register stores a scratch link.
func (m *Machine) stackSource(reg uint8) uint8 {
	if lt := &m.tasks[m.cur].link; lt.on && reg == m.shape.linkRegs[0] && m.core.reg(m.cur, int(reg)) == lt.val {
		return slotScratchLink
	}
	return reg
}
