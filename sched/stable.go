package sched

import (
	"fmt"
	"math/bits"
	"slices"
)

// Stable data bytes (issue 21): loads and stores of shared data that are
// thread-local steps because no schedule can change what they move.
//
// A stable byte is a writable data byte that the uninstrumented reference
// run loaded or stored, whose every store there wrote one value u (the
// byte as the image holds it, when no store wrote it), and that no store
// of the instrumentation wrote (detect.Results.Once). Its premises, which
// every run checks (a run that breaks one ends without a verdict, saying
// so: StableBroken):
//
//   - P1: every store to it writes u. The byte then goes from its initial
//     value to u at most once, and never back.
//   - P2, for a byte whose initial value is not u (a published byte): every
//     load of it happens after some store to it, in the happens-before
//     order of the run's visible steps (below). Such a load reads u in
//     every order of the run's steps that keeps that order.
//
// Under P1 and P2 a load of stable bytes reads u in every order of the
// other tasks' steps (for a byte whose initial value is u, trivially), and
// a store of them either writes what is there already or moves the byte
// to u before any load that could read it: it commutes with every step of
// every other task. So both are thread-local steps (localAccess), as a
// load of read-only data is, though not memo-safe (the memo's key does not
// hold data: memoSafe).
//
// Happens-before, as the check sees it: a task's own steps in program
// order, and the order of a store to a byte that is not stable and a
// later load or store of it by another task (the only data a visible step
// may move between tasks). Leaving out the other dependencies (the
// scheduler's, the patcher's) makes fewer loads "after a store", so the
// check is only stricter. The machine keeps it as knowledge sets: per
// task, the published bytes some store of which happens before its next
// step (know: a bit per published byte); per byte of data that is not
// stable, the knowledge of the task whose store last wrote it joined with
// what that byte carried before (rel). A task's store of a published byte
// sets its bit; its load of a byte that is not stable joins the byte's
// knowledge into the task's; its store of one joins the task's into the
// byte's. Both sets are part of the state (hashTaskState, hashShared):
// they decide which later loads break P2.
//
// Why the checks suffice (the argument of quiet.go's premises, for these):
// take any run R of the machine with the reduction off whose prefix breaks
// a premise first at step s, by task T. Before s every stable access reads
// and writes what it would in every order that keeps happens-before, which
// is the same in every such order; so the reduced search, which takes the
// stable accesses where their tasks reach them (moving them along R past
// steps of other tasks they commute with), reaches a run with the same
// visible steps in an order that keeps happens-before, where T is about to
// make step s in the same state of its own and with the same knowledge:
// the check there sees the same broken premise (P1: the same value; P2:
// the same missing bit). And a run that breaks none has, by the same
// argument, a run of the reduced search with the same visible steps and
// the same hazards. So a search whose runs break no premise loses no
// hazard, and one that does ends INCOMPLETE or, in explore, is searched
// again with the reduction off (explore.Scenario.NoStable).
//
// In a thread-modular machine (modular.go) a store to stable bytes does not
// break the premise that no worker stores outside its stack: a load of
// them reads u wherever another worker's store would have it read u.
// Under P2 a published byte's load happens after a store of its own task
// (a store of another happens before it only through a store to a byte
// that is not stable, which is a fault there), and a byte whose initial
// value is u reads u whoever stored.
type stableStatic struct {
	u     []int16 // per byte of data: the value its stores write, or -1 (not stable)
	pub   []int32 // per byte of data: its bit in the knowledge sets (published), or -1
	words int     // uint64 words of a knowledge set (0: no published byte)
	n     int     // stable bytes
}

// relEntry is the knowledge of a byte of data that is not stable: what
// the task whose store last wrote it knew (rel is sorted by off, and both
// it and the sets are copied on write: clones share them).
type relEntry struct {
	off uint64
	k   []uint64
}

// initStable builds the stable bytes from the reference (New, after
// initResults).
func (m *Machine) initStable() {
	ref := m.cfg.Reference
	if ref == nil || len(ref.Once) == 0 || m.cfg.Unreduced || m.cfg.NoStable || m.tr.on || len(m.data) == 0 {
		return
	}
	ss := &stableStatic{u: make([]int16, len(m.data)), pub: make([]int32, len(m.data))}
	for i := range ss.u {
		ss.u[i], ss.pub[i] = -1, -1
	}
	npub := 0
	for _, b := range ref.Once {
		off, ok := m.dataOff(b.Addr, 1)
		if !ok || m.readOnly(b.Addr, 1) {
			continue
		}
		if m.data[off] != b.Value {
			if b.Early {
				continue // P2 fails in the reference already
			}
			ss.pub[off] = int32(npub)
			npub++
		}
		ss.u[off] = int16(b.Value)
		ss.n++
	}
	if ss.n == 0 {
		return
	}
	ss.words = (npub + 63) / 64
	m.st.stable = ss
	if ss.words > 0 {
		m.know = make([]uint64, ss.words*(m.cfg.Tasks+1))
	}
}

// StableBytes returns how many data bytes the machine takes as stable.
func (m *Machine) StableBytes() int {
	if m.st.stable == nil {
		return 0
	}
	return m.st.stable.n
}

// PremiseBroken reports whether the run ended without a verdict because
// it broke a premise of the reductions that rest on the reference run
// (quiet.go, stable.go; BudgetText says which): a search with them off
// (Config.NoQuiet, NoStable) may still decide.
func (m *Machine) PremiseBroken() bool { return m.premiseBroken }

// stableRange reports whether the n bytes at a are all stable.
func (m *Machine) stableRange(a uint64, n int) bool {
	ss := m.st.stable
	if ss == nil {
		return false
	}
	off, ok := m.dataOff(a, n)
	if !ok {
		return false
	}
	for i := off; i < off+uint64(n); i++ {
		if ss.u[i] < 0 {
			return false
		}
	}
	return true
}

// stableAccess reports whether worker t's load or store at pc reaches
// stable bytes (and so is local for them, not for the memo).
func (m *Machine) stableAccess(t int8, pc uint64) bool {
	if m.st.stable == nil {
		return false
	}
	a, n, _, ok := m.core.memAddr(m, t, pc)
	return ok && m.stableRange(a, n)
}

// knows returns task t's knowledge set.
func (m *Machine) knows(t int8) []uint64 {
	w := m.st.stable.words
	return m.know[int(t)*w : int(t+1)*w]
}

// stableStored sees the running task store size bytes at data offset off
// (already written): P1 for its stable bytes, and the knowledge.
func (m *Machine) stableStored(off uint64, size int, a uint64) {
	ss := m.st.stable
	t := m.cur
	if int(t) >= m.cfg.Tasks {
		return
	}
	var k []uint64
	if ss.words > 0 {
		k = m.knows(t)
	}
	for i := off; i < off+uint64(size); i++ {
		u := ss.u[i]
		switch {
		case u >= 0 && int16(m.data[i]) != u:
			m.breakStable(fmt.Sprintf("a store of %d bytes at %#x writes %#x to the byte at %#x, where every store of the uninstrumented reference run wrote %#x", size, a, m.data[i], a+i-off, u))
			return
		case u >= 0 && ss.pub[i] >= 0:
			k[ss.pub[i]/64] |= 1 << (ss.pub[i] % 64)
		case u < 0 && k != nil:
			m.setRel(i, k)
		}
	}
}

// stableLoaded sees the running task load size bytes at data offset off:
// P2 for its published bytes, and the knowledge its other bytes carry.
func (m *Machine) stableLoaded(off uint64, size int, a uint64) {
	ss := m.st.stable
	t := m.cur
	if ss.words == 0 || int(t) >= m.cfg.Tasks {
		return
	}
	k := m.knows(t)
	for i := off; i < off+uint64(size); i++ {
		if p := ss.pub[i]; p >= 0 {
			if k[p/64]&(1<<(p%64)) == 0 {
				m.breakStable(fmt.Sprintf("task %d loads the byte at %#x (a load of %d bytes at %#x), which no store it knows of has written: another order of the steps may have it read its initial value, not the %#x every store writes", t, a+i-off, size, a, ss.u[i]))
				return
			}
			continue
		}
		if ss.u[i] >= 0 {
			continue
		}
		if j, ok := slices.BinarySearchFunc(m.rel, i, func(e relEntry, o uint64) int { return int(e.off) - int(o) }); ok {
			for w, x := range m.rel[j].k {
				k[w] |= x
			}
		}
	}
}

// setRel joins knowledge k into the byte at data offset off (copying rel).
func (m *Machine) setRel(off uint64, k []uint64) {
	j, ok := slices.BinarySearchFunc(m.rel, off, func(e relEntry, o uint64) int { return int(e.off) - int(o) })
	nk := slices.Clone(k)
	if ok {
		for w, x := range m.rel[j].k {
			nk[w] |= x
		}
		if slices.Equal(nk, m.rel[j].k) {
			return
		}
	}
	rel := make([]relEntry, 0, len(m.rel)+1)
	rel = append(rel, m.rel[:j]...)
	rel = append(rel, relEntry{off: off, k: nk})
	if ok {
		j++
	}
	m.rel = append(rel, m.rel[j:]...)
}

// hashRel feeds h the knowledge of the bytes that are not stable.
func (m *Machine) hashRel(h *hasher) {
	h.u64(uint64(len(m.rel)) | 0x72656c<<32)
	for _, e := range m.rel {
		h.u64(e.off)
		for _, x := range e.k {
			h.u64(x)
		}
	}
}

// hashKnow feeds h task t's knowledge set.
func (m *Machine) hashKnow(h *hasher, t int8) {
	n := 0
	for _, x := range m.knows(t) {
		n += bits.OnesCount64(x)
		h.u64(x)
	}
	h.u64(uint64(n) | 0x6b6e6f77<<32)
}

// breakStable ends the run without a verdict: it broke a premise of the
// stable bytes (breakPremise).
func (m *Machine) breakStable(what string) {
	m.breakPremise(what + ", which breaks a premise of the stable data bytes (sched/stable.go; --no-reference-reductions turns them off)")
}
