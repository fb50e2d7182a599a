package sched

import (
	"fmt"

	"github.com/mcountsim/mcountsim/detect"
)

// The bad-call detector: a call (or jump-and-link) must land on the first
// byte of a symbol in text (a function, a trampoline or a kernel service).
// Anything else, a target inside a function, between symbols or outside
// text, is hazard bad-call. It holds for every ISA; a core that can say
// where each part of the target came from (RISC-V: the auipc that produced
// the upper bits and the jalr that added the low 12) implements
// callExplainer.

// callExplainer is implemented by cores that can explain how a call
// instruction computed its target.
type callExplainer interface {
	// explainCall describes how task t's call at pc computed target.
	explainCall(m *Machine, t int8, pc, target uint64) string
}

// checkCall reports a call by task t at pc to target that is not the start
// of a symbol in text.
func (m *Machine) checkCall(c, t int8, pc, target uint64) {
	if _, off, ok := m.img.Lookup(target); ok && off == 0 {
		return
	}
	where := "outside text"
	if n := m.img.Name(target); n != "" {
		where = "inside " + n + ", not the start of a function or trampoline"
	} else if target >= m.img.Base && target < m.img.Base+uint64(len(m.text)) {
		where = "in text that no symbol covers"
	}
	detail := fmt.Sprintf("call from %#x <%s> to %#x, %s", pc, nameOr(m.img.Name(pc), "?"), target, where)
	if x, ok := m.core.(callExplainer); ok {
		detail += "; " + x.explainCall(m, t, pc, target)
	} else if off, ok := m.textOff(pc); ok {
		detail += "; the call's bytes came from " + m.writeName(m.prov[off])
	}
	m.hazard(detect.BadCall, int(c), int(t), pc, detail)
}

// writeStore returns the store that write id performed and the index of
// its operation in the program (-1 for a boot write). Write ids are handed
// out in program order (the boot writes first, then each op's stores, a
// bytewise store one id per byte), so the store of an id is known in every
// mode, not only when the machine records.
func (m *Machine) writeStore(id uint16) (Store, int, bool) {
	if id == 0 {
		return Store{}, 0, false
	}
	n := int(id) - 1
	if n < len(m.prog.Boot) {
		return m.prog.Boot[n], -1, true
	}
	n -= len(m.prog.Boot)
	for w := range m.prog.writes() {
		if n == 0 {
			return w.Store, w.op, true
		}
		n--
	}
	return Store{}, 0, false
}

// bytesWith returns the n bytes at addr as the operation op (-1: boot)
// wrote them, if one of its stores covered them all.
func (m *Machine) bytesWith(op int, addr uint64, n int) ([]byte, bool) {
	stores := m.prog.Boot
	if op >= 0 {
		stores = m.prog.Ops[op].Stores
	}
	for _, s := range stores {
		if addr >= s.Addr && addr+uint64(n) <= s.Addr+uint64(len(s.Bytes)) {
			o := addr - s.Addr
			return s.Bytes[o : o+uint64(n)], true
		}
	}
	return nil, false
}
