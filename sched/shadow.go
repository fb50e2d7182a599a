package sched

import (
	"bytes"
	"fmt"
)

// Stores behind a breakpoint (issue 21): text_poke_bp writes a site's
// bytes 1-4 while byte 0 holds int3 in every CPU's view, and no fetch can
// read them then. Such a store of the patcher is a thread-local step, as
// quiet.go's stores to text no worker reaches are.
//
// The store of patcher op i is shadowed (shadowedNow) when:
//   - it is one store (not bytewise) whose bytes all lie in one site, past
//     the ISA's breakpoint instruction at the site's first bytes
//     (isaShape.breakpoint: x86 int3);
//   - the site's first bytes hold that breakpoint now and every CPU's view
//     of them is the latest, so every fetch at the site traps (the int3
//     handler emulates the instruction from the patcher's table, not from
//     text), and no task's pc lies inside the site past its first byte;
//   - the program synchronizes every CPU (sync_core) after op i before any
//     later store to the breakpoint's bytes, if there is one (static:
//     initShadow).
//
// Why no hazard is lost. Up to the first step of a run that breaks a
// premise (below), no step of another CPU reads the stored bytes: a fetch
// at the site decodes the breakpoint alone, a fetch elsewhere stops before
// the site (compiled code has no instruction astride a site's start, and
// none starts inside one), and a load of those bytes ends the run. So the
// store commutes with every such step but one that synchronizes a CPU's
// view, which differs with the order only in that CPU's view of the stored
// bytes: taken before the store it keeps the older bytes there. That view
// is read by no fetch while the breakpoint stands in it, and the program
// synchronizes every CPU before it writes the breakpoint's bytes again,
// which leaves the two states equal: the reduced search, taking the store
// at once, reaches a state that equals, up to views of those bytes that
// nothing reads before they are made the same, every state of a run that
// takes it later. Premises every run checks (a break ends it without a
// verdict, PremiseBroken, and explore searches again without quiet.go's
// reductions, this one included): no worker loads text bytes of a site
// past its first bytes as data, and no worker fetches an instruction that
// starts inside a site; a run that has met a hazard goes on. Off with
// NoQuiet, Unreduced or NoInt3Emulation (whose handler resumes inside the
// site), and for the tracer kernel.

// initShadow marks the patcher's stores that may be shadowed (New).
func (m *Machine) initShadow() {
	bp := m.shape.breakpoint
	if len(bp) == 0 || m.st.fetch == nil || m.cfg.Unreduced || m.cfg.NoQuiet || m.cfg.NoInt3Emulation || m.tr.on {
		return
	}
	ops := m.prog.Ops
	ok := make([]bool, len(ops))
	any := false
	for i, op := range ops {
		if op.Kind != OpStore || op.Bytewise || len(op.Stores) != 1 || len(op.Stores[0].Bytes) == 0 {
			continue
		}
		s := op.Stores[0]
		si, lo, in := m.siteSpan(s.Addr, len(s.Bytes))
		if !in || lo < uint64(len(bp)) {
			continue
		}
		site := m.img.Sites[si]
		ok[i] = m.syncedBefore(ops[i+1:], site.Addr, len(bp))
		any = any || ok[i]
	}
	if any {
		m.st.shadowOK = ok
	}
}

// siteSpan returns the site holding the n bytes at a, and their first
// byte's offset from its start, if they all lie in one.
func (m *Machine) siteSpan(a uint64, n int) (si int, lo uint64, ok bool) {
	off := a - m.img.Base
	if a < m.img.Base || off+uint64(n) > uint64(len(m.text)) {
		return 0, 0, false
	}
	i := m.st.siteOf[off]
	if i < 0 {
		return 0, 0, false
	}
	s := m.img.Sites[i]
	if a+uint64(n) > s.Addr+uint64(s.Len) {
		return 0, 0, false
	}
	return int(i), a - s.Addr, true
}

// syncedBefore reports whether ops synchronize every CPU (sync_core or
// flush_icache_all) before any store to the n bytes at a, or never store
// there.
func (m *Machine) syncedBefore(ops []Op, a uint64, n int) bool {
	for _, op := range ops {
		switch op.Kind {
		case OpSyncCore, OpFlushIcacheAll:
			return true
		case OpStore, OpStopMachine:
			for _, s := range op.Stores {
				if s.Addr < a+uint64(n) && a < s.Addr+uint64(len(s.Bytes)) {
					return false
				}
			}
		}
	}
	return true
}

// shadowedNow reports whether the patcher's store at op pop is shadowed in
// this state (the conditions of the file's doc).
func (m *Machine) shadowedNow(pop int) bool {
	if m.st.shadowOK == nil || !m.st.shadowOK[pop] {
		return false
	}
	s := m.prog.Ops[pop].Stores[0]
	si, _, _ := m.siteSpan(s.Addr, len(s.Bytes))
	site := m.img.Sites[si]
	bp := m.shape.breakpoint
	so := site.Addr - m.img.Base
	if !bytes.Equal(m.text[so:so+uint64(len(bp))], bp) {
		return false
	}
	for c := int8(0); int(c) < m.cfg.CPUs; c++ {
		if m.stale(c, so, len(bp)) {
			return false
		}
	}
	for t := range m.tasks {
		if int8(t) == m.patcher {
			continue
		}
		if pc := m.core.pc(int8(t)); pc > site.Addr && pc < site.Addr+uint64(site.Len) {
			return false
		}
	}
	return true
}

// shadowFetch checks, before worker t fetches at pc, that no instruction
// starts inside a site past its first byte (the premise of the shadowed
// stores).
func (m *Machine) shadowFetch(t int8, pc uint64) {
	off := pc - m.img.Base
	if off >= uint64(len(m.st.siteOf)) || m.st.siteOf[off] < 0 {
		return
	}
	if s := m.img.Sites[m.st.siteOf[off]]; pc > s.Addr {
		m.breakShadow(fmt.Sprintf("task %d fetches an instruction at %#x, inside the site at %#x <%s>", t, pc, s.Addr, m.img.Name(s.Addr)))
	}
}

// shadowLoad checks that a load of n text bytes at a reads no site's
// bytes past its first (the premise of the shadowed stores).
func (m *Machine) shadowLoad(a uint64, n int) {
	off := a - m.img.Base
	for o := off; o < off+uint64(n) && o < uint64(len(m.st.siteOf)); o++ {
		if i := m.st.siteOf[o]; i >= 0 && o+m.img.Base > m.img.Sites[i].Addr {
			m.breakShadow(fmt.Sprintf("a load of %d text bytes at %#x reads the site at %#x <%s>", n, a, m.img.Sites[i].Addr, m.img.Name(m.img.Sites[i].Addr)))
			return
		}
	}
}

// breakShadow ends the run without a verdict: it broke a premise of the
// stores behind a breakpoint (breakPremise).
func (m *Machine) breakShadow(what string) {
	m.breakPremise(what + ", which breaks a premise of the patcher's stores behind a breakpoint (sched/shadow.go; --no-reference-reductions turns them off)")
}
