package sched

import (
	"bytes"
	"fmt"
	"slices"
	"unsafe"

	"github.com/mcountsim/mcountsim/detect"
	"github.com/mcountsim/mcountsim/kernel"
)

// Memoized thread-local stretches (the argument is in the package doc,
// "Memoized stretches"). A unit is a run of steps that RunLocal takes on
// one task, each of them memo-safe (memoSafe): it reads and writes only
// the task's registers, its own stack words and their provenance, its
// shadow stack, site pass, link taint and results cursor, immutable text,
// final text its CPU's view holds as the latest, and data that cannot
// change while the run has no hazard. From equal values of
// those (the key) a unit of k steps takes the same k steps to the same
// values, whatever the rest of the machine holds; so the table maps a key
// to the values after, and a later RunLocal from an equal key sets them
// instead of executing the k instructions again.

const (
	// memoLong: a RunLocal call of at least this many steps marks the
	// text offset it started at; only marked offsets are looked up, so
	// short stretches (the built-in texts: tens of instructions) pay a
	// byte load per RunLocal iteration and nothing else.
	memoLong = 1000
	// memoMin is the shortest unit kept.
	memoMin = 256
	// memoCap bounds the table: when it holds this many units it is
	// emptied (each unit is a few hundred bytes plus its stack words:
	// at most a few tens of MB).
	memoCap = 1 << 15
	// memoPerKey bounds the units kept per key (from one key, units differ
	// only by the patchable bytes final where they were recorded).
	memoPerKey = 8
)

// memoBounds returns memoLong and memoMin, both 1 under Config.MemoAll,
// which memoizes every unit to test it.
func (m *Machine) memoBounds() (long, min int) {
	if m.cfg.MemoAll {
		return 1, 1
	}
	return memoLong, memoMin
}

// memoTable is shared by a machine and its clones (it lives in static,
// which never crosses goroutines).
type memoTable struct {
	long []bool // per text offset: a long stretch started there
	// per text offset: lookups there and how many hit; an offset whose
	// lookups mostly miss (the state differs each time) is given up
	// (memoWorth), so that it costs no key and no recording any more
	tries, found []uint16
	// entries: per key, the units recorded from it, each with the
	// patchable bytes it fetched (memoEntry.fin), which must be final and
	// latest in the CPU's view for it to apply (memoFits)
	entries map[[2]uint64][]*memoEntry
	n       int // units held
	// scratch of the unit being recorded (one at a time per lineage)
	regs, stack []byte
	slots       []uint8
	depth       []uint8 // the words' call depths (freed.go)
	shadow      detect.Shadow
	// counters, for tests and profiles
	hits, units, mismatches int
}

// memoEntry is what a unit did: its steps and the values after it.
type memoEntry struct {
	k     int
	fin   []int32     // the patchable bytes (indices into static.dirty) its classFetch steps fetched
	fresh []int32     // the other patchable bytes in their fetch windows
	pass  detect.Pass // the task's site pass after the unit (open when it ended inside a site)
	regs  []byte
	words []memoWord // stack words (of the task's stack) it changed
	// the task's stack sum after it: the key holds the
	// sum before, so these follow, and memoApply sets them instead of
	// hashing every word it writes
	sum        [2]uint64
	shadow     detect.Shadow
	link       linkTaint
	results    detect.Cursor
	loadedInto uint8
	loadedLink uint8
	loadedFrom uint64
}

type memoWord struct {
	w     uint32 // word index from the bottom of the task's stack
	v     uint32
	slot  uint8
	depth uint8 // its call depth (freed.go; 0 with Config.KeepFreed)
}

// memoRec is RunLocal's unit being recorded.
type memoRec struct {
	on     bool
	t      int8
	key    [2]uint64
	steps0 int
	low    int     // the task's stackLow when it began, from its stack's first word
	fin    []int32 // the patchable bytes its classFetch steps fetched so far
	fresh  []int32 // the other patchable bytes in their fetch windows
}

// memoCore is what the memo needs of a core: the task's register file as
// bytes, and whether an offset holds a plain decoding (the step then
// takes the fast path: no fetch through the CPU's view).
type memoCore interface {
	regBytes(t int8) []byte
	plainAt(off uint64) bool
}

func (b *coreBase[C, I, R]) regBytes(t int8) []byte {
	r := &b.regs[t]
	return unsafe.Slice((*byte)(unsafe.Pointer(r)), unsafe.Sizeof(*r))
}

func (b *coreBase[C, I, R]) plainAt(off uint64) bool { return b.st.tab.at(off) != nil }

// initMemo builds the table (New), unless Config.NoMemo or Unreduced.
func (m *Machine) initMemo() {
	if m.cfg.NoMemo || m.cfg.Unreduced {
		return
	}
	if _, ok := m.core.(memoCore); !ok {
		return
	}
	n := len(m.text)
	m.st.memo = &memoTable{long: make([]bool, n), tries: make([]uint16, n), found: make([]uint16, n), entries: map[[2]uint64][]*memoEntry{}}
}

// MemoStats returns the memo's hits, the units it recorded, and the hits
// whose check (Config.MemoCheck) found a difference.
func (m *Machine) MemoStats() (hits, units, mismatches int) {
	if mt := m.st.memo; mt != nil {
		return mt.hits, mt.units, mt.mismatches
	}
	return 0, 0, 0
}

// memoOn reports whether RunLocal consults the memo for task t now: the
// conditions of the plain loop (no recording, no results, no open pass,
// no tracer) and a run without a hazard.
func (m *Machine) memoOn(t int8) bool {
	return m.st.memo != nil && !m.noMemo && !m.cfg.Record && m.res == nil && !m.tasks[t].Pass.Open && !m.tr.on && len(m.hazards) == 0
}

// memoStart returns the text offset of the pc RunLocal starts at (for
// memoLearn), or -1.
func (m *Machine) memoStart(c int8) int {
	if m.st.memo == nil || m.noMemo {
		return -1
	}
	t := m.cpus[c].Cur
	if t < 0 || t == m.patcher {
		return -1
	}
	if off, ok := m.textOff(m.core.pc(t)); ok {
		return int(off)
	}
	return -1
}

// memoLearn marks start after a RunLocal call that took n steps.
func (m *Machine) memoLearn(start, n int) {
	if long, _ := m.memoBounds(); start >= 0 && n >= long {
		m.st.memo.long[start] = true
	}
}

// memoSafe reports whether worker t's next step, at text offset off and
// local (RunLocal just asked), is memo-safe: no hook, and local by the
// state-independent rule (classLocal), or a load or store that reaches
// only t's own stack or loads read-only or quiet data (classLoad), or a
// fetch of final bytes the CPU's view holds as the latest (classFetch:
// the key says which bytes are so, hashFinal). Not: classTI (the
// tracer's thread_info) and classVisible, nor a load or store of stable
// data bytes (stable.go: the key does not hold data), nor a load of text
// bytes a store may write (local while they are final, finalText: the key
// does not hold them either).
func (m *Machine) memoSafe(t int8, off uint64) bool {
	if m.st.hook[off] != kernel.HookNone {
		return false
	}
	switch m.st.class[off] {
	case classLoad:
		return !m.stableAccess(t, off+m.img.Base) && !m.mutableTextAccess(t, off+m.img.Base)
	case classLocal, classFetch:
		return true
	}
	return false
}

// memoStep is RunLocal's hook before a step of worker t on CPU c (local,
// under memoOn), n steps into the call with left steps allowed: it ends the
// unit being recorded before a step that is not memo-safe, or, at a marked
// offset or once the call has taken memoLong steps (a long stretch), applies
// a known unit and returns its steps, or starts recording one (0: take the
// step as usual).
func (m *Machine) memoStep(c, t int8, n, left int, rec *memoRec) int {
	mt := m.st.memo
	off, ok := m.textOff(m.core.pc(t))
	if rec.on {
		switch {
		case !ok || m.tasks[t].InTrap || !m.memoSafe(t, off):
			m.memoEnd(t, rec)
		case m.st.class[off] == classFetch:
			m.memoFetched(off, rec)
		}
		return 0
	}
	long, _ := m.memoBounds()
	if !ok || !mt.long[off] && n < long || !m.memoWorth(off) {
		return 0
	}
	if !m.memoSafe(t, off) {
		return 0
	}
	key := m.memoKey(c, t)
	if mt.tries[off] < 1<<15 {
		mt.tries[off]++
	}
	var e *memoEntry
	for _, x := range mt.entries[key] {
		if (e == nil || x.k > e.k) && x.k <= left && m.steps+x.k < m.cfg.MaxSteps && m.memoFits(c, x) {
			e = x
		}
	}
	if e != nil {
		mt.hits++
		if mt.found[off] < 1<<15 {
			mt.found[off]++
		}
		if m.cfg.MemoCheck {
			m.memoCheck(t, e)
		} else {
			m.memoApply(t, e)
		}
		return e.k
	}
	m.memoBegin(t, key, rec)
	if m.st.class[off] == classFetch {
		m.memoFetched(off, rec)
	}
	return 0
}

// memoWorth reports whether lookups at text offset off still pay: after
// 4,096 of them, at least one in 16 must have hit (not under MemoAll).
func (m *Machine) memoWorth(off uint64) bool {
	mt := m.st.memo
	return m.cfg.MemoAll || mt.tries[off] < 4096 || mt.found[off] >= mt.tries[off]/16
}

// memoKey digests everything a unit of worker t on CPU c can read that
// is not immutable but the patchable bytes it fetches (memoFits): t, its
// registers, its stack words and their provenance, its shadow stack, site
// pass, link taint and results cursor.
func (m *Machine) memoKey(c, t int8) [2]uint64 {
	var h hasher
	h.init()
	h.u64(uint64(t))
	h.bytes(m.core.(memoCore).regBytes(t))
	// The stack's words, their provenance and call depths, as the state
	// hash has them (an incremental sum over the words, exact once the
	// pending words are flushed): the 4 KiB of a stack are not hashed
	// again at every lookup.
	m.flushWords()
	h.u64(m.stackSum[t][0])
	h.u64(m.stackSum[t][1])
	tk := &m.tasks[t]
	// The popped frames of the shadow stack are cleared (control), as
	// are a closed pass (closePass) and a link taint turned off.
	h.bytes(shadowBytes(&tk.Shadow))
	h.bytes(passBytes(&tk.Pass))
	h.u64(b2u(tk.link.on) | uint64(tk.link.src)<<8)
	h.u64(tk.link.val)
	h.u64(tk.link.from)
	h.u64(uint64(tk.Results.Returns) | uint64(tk.Results.Stores)<<32)
	return h.sum()
}

func shadowBytes(s *detect.Shadow) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(s)), unsafe.Sizeof(*s))
}

func passBytes(p *detect.Pass) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(p)), unsafe.Sizeof(*p))
}

// memoFits reports whether unit e's classFetch steps are local again, on
// CPU c, fetching the same bytes, as they were when e was recorded
// (localFetch): each patchable byte of their instructions holds the
// program's last write to it (no store can change it any more), and c's
// view of every patchable byte of their fetch windows is the latest. From
// a state of e's key the unit takes the same steps up to each of them, and
// nothing changes text or c's view while it runs (only the patcher writes
// text; a step that synchronizes is visible); the patchable bytes outside
// those windows it does not read.
func (m *Machine) memoFits(c int8, e *memoEntry) bool {
	fs := m.st.fetch
	nd := len(m.st.dirty)
	for _, d := range e.fin {
		o := m.st.dirty[d]
		hd := fs.hist[d]
		if m.prov[o] != hd[len(hd)-1].id || m.floor[int(c)*nd+int(d)] != m.prov[o] {
			return false
		}
	}
	for _, d := range e.fresh {
		if m.floor[int(c)*nd+int(d)] != m.prov[m.st.dirty[d]] {
			return false
		}
	}
	return true
}

// memoFetched adds to the unit being recorded the patchable bytes of the
// instruction at text offset off (a classFetch step, local now).
func (m *Machine) memoFetched(off uint64, rec *memoRec) {
	fs := m.st.fetch
	n, err := m.core.decode(off+m.img.Base, m.text[off:min(off+uint64(m.shape.maxLen), uint64(len(m.text)))])
	if err != nil {
		n = m.shape.maxLen // not local then; the unit ends before it
	}
	end := min(off+uint64(m.shape.maxLen), uint64(len(m.text)))
	for o := off; o < end; o++ {
		d := fs.dirtyOf[o]
		switch {
		case d < 0 || slices.Contains(rec.fin, d):
		case o < off+uint64(n):
			rec.fin = append(rec.fin, d)
			if i := slices.Index(rec.fresh, d); i >= 0 {
				rec.fresh = slices.Delete(rec.fresh, i, i+1)
			}
		case !slices.Contains(rec.fresh, d):
			rec.fresh = append(rec.fresh, d)
		}
	}
}

// memoBegin snapshots what a unit of worker t may change.
func (m *Machine) memoBegin(t int8, key [2]uint64, rec *memoRec) {
	mt := m.st.memo
	*rec = memoRec{on: true, t: t, key: key, steps0: m.steps, fin: rec.fin[:0], fresh: rec.fresh[:0]}
	mt.regs = append(mt.regs[:0], m.core.(memoCore).regBytes(t)...)
	// Only the words from the stack's low mark on: those below it hold
	// New's values (Machine.stackLow), and memoEnd knows them so.
	w0 := int(t) * m.cfg.StackWords
	rec.low = int(m.stackLow[t]) - w0
	lo, hi := 4*int(m.stackLow[t]), 4*(w0+m.cfg.StackWords)
	mt.stack = append(mt.stack[:0], m.stack[lo:hi]...)
	mt.slots = append(mt.slots[:0], m.slots[lo/4:hi/4]...)
	if m.depth != nil {
		mt.depth = append(mt.depth[:0], m.depth[lo/4:hi/4]...)
	}
	mt.shadow = m.tasks[t].Shadow
}

// memoEnd ends the unit being recorded and keeps it if it is long enough
// and ended with no hazard, no fault and no budget stop (the run not done).
// A unit may end inside a site, its pass open (the site's first word
// final, the next one not: the usual end of a forced path while the
// patcher is still at work): the pass it opened holds the bytes and write
// ids of its classFetch steps, which memoFits requires again, so the
// pass after it is a function of its key too.
func (m *Machine) memoEnd(t int8, rec *memoRec) {
	rec.on = false
	mt := m.st.memo
	k := m.steps - rec.steps0
	if _, min := m.memoBounds(); k < min || m.done || len(m.hazards) > 0 || m.tasks[t].InTrap {
		return
	}
	list := mt.entries[rec.key]
	at := len(list)
	for i, old := range list {
		if slices.Equal(old.fin, rec.fin) && slices.Equal(old.fresh, rec.fresh) {
			if old.k >= k {
				return
			}
			at = i
		}
	}
	if at == len(list) && len(list) >= memoPerKey {
		return
	}
	e := &memoEntry{k: k, fin: slices.Clone(rec.fin), fresh: slices.Clone(rec.fresh), pass: m.tasks[t].Pass, regs: append([]byte(nil), m.core.(memoCore).regBytes(t)...),
		shadow: m.tasks[t].Shadow, link: m.tasks[t].link, results: m.tasks[t].Results,
		loadedInto: m.loadedInto, loadedLink: m.loadedLink, loadedFrom: m.loadedFrom}
	lo := m.stackLo(int(t)) - StackBase
	st, sl := m.stack[lo:lo+m.st.stackSize], m.slots[lo/4:(lo+m.st.stackSize)/4]
	var dp []uint8
	if m.depth != nil {
		dp = m.depth[lo/4 : (lo+m.st.stackSize)/4]
	}
	for w := int(m.stackLow[t]) - int(t)*m.cfg.StackWords; w < len(sl); w++ {
		v0, s0, d0 := uint32(0), detect.SlotUnwritten, uint8(0) // below the low mark: New's
		if i := w - rec.low; i >= 0 {
			v0, s0 = le32(mt.stack[4*i:]), mt.slots[i]
			if dp != nil {
				d0 = mt.depth[i]
			}
		}
		if sl[w] != s0 || le32(st[4*w:]) != v0 || dp != nil && dp[w] != d0 {
			mw := memoWord{w: uint32(w), v: le32(st[4*w:]), slot: sl[w]}
			if dp != nil {
				mw.depth = dp[w]
			}
			e.words = append(e.words, mw)
		}
	}
	m.flushWords()
	e.sum = m.stackSum[t]
	if mt.n >= memoCap {
		clear(mt.entries)
		mt.n, list, at = 0, nil, 0
	}
	if at == len(list) {
		list = append(list, e)
		mt.n++
	} else {
		list[at] = e
	}
	mt.entries[rec.key] = list
	mt.units++
}

// memoApply sets what unit e does to worker t (from a state of e's key).
func (m *Machine) memoApply(t int8, e *memoEntry) {
	copy(m.core.(memoCore).regBytes(t), e.regs)
	lo := m.stackLo(int(t))
	w0 := int((lo - StackBase) / 4)
	// The key holds the stack's sums before the unit (memoKey flushed
	// the pending words), so the sums after it are the recorded ones: its
	// words are written without rehashing any.
	m.flushWords()
	for _, mw := range e.words {
		m.putWord(int(t), w0+int(mw.w), mw.v, mw.slot, mw.depth)
	}
	m.stackSum[t] = e.sum
	tk := &m.tasks[t]
	tk.Shadow, tk.link, tk.Results, tk.Pass = e.shadow, e.link, e.results, e.pass
	m.touched(taskBit(t)) // symmetry.go: its digest changes
	m.steps += e.k
	m.cur = t
	m.loadedInto, m.loadedLink, m.loadedFrom = e.loadedInto, e.loadedLink, e.loadedFrom
}

// memoCheck is memoApply checked (Config.MemoCheck): a clone takes the k
// steps for real, and every part of the state must come out the same. A
// difference ends the run without a verdict, saying so.
func (m *Machine) memoCheck(t int8, e *memoEntry) {
	real := m.Clone()
	real.noMemo = true
	n := real.RunLocal(e.k)
	m.memoApply(t, e)
	if d := m.memoDiff(real, t); d != "" || n != e.k {
		m.st.memo.mismatches++
		m.outOfSteps, m.done = true, true
		m.budgetWhy = fmt.Sprintf("memo check: a memoized stretch of %d steps (the real one took %d) differs from its execution: %s", e.k, n, d)
	}
}

// memoDiff names the first part of the state in which m and o differ: the
// hash, the steps, and a dump of worker t (registers, stack words and
// provenance, stack sums, its task record, and the Bus scratch: the
// control register the last step loaded from the stack, with the slot's
// address and provenance when there is one, which are read only in the
// step that set them; not the load and store counters, which only Record
// mode reads, after resetting them, and the memo is off in Record mode).
func (m *Machine) memoDiff(o *Machine, t int8) string {
	lo := m.stackLo(int(t)) - StackBase
	hi := lo + m.st.stackSize
	switch {
	case m.Hash() != o.Hash():
		return "the state hash"
	case m.steps != o.steps:
		return fmt.Sprintf("steps %d, not %d", m.steps, o.steps)
	case !bytes.Equal(m.core.(memoCore).regBytes(t), o.core.(memoCore).regBytes(t)):
		return "the registers"
	case !bytes.Equal(m.stack[lo:hi], o.stack[lo:hi]) || !bytes.Equal(m.slots[lo/4:hi/4], o.slots[lo/4:hi/4]):
		return "the stack"
	case m.depth != nil && !bytes.Equal(m.depth[lo/4:hi/4], o.depth[lo/4:hi/4]):
		return "the stack words' depths"
	case m.stackSum[t] != o.stackSum[t]:
		return "the stack sums"
	case !sameTask(m.tasks[t], o.tasks[t]):
		return "the task record"
	case m.cur != o.cur || m.loadedInto != o.loadedInto || m.loadedInto != 0 && (m.loadedLink != o.loadedLink || m.loadedFrom != o.loadedFrom):
		return "the Bus scratch"
	case m.done != o.done || len(m.hazards) != len(o.hazards):
		return "the run's end"
	}
	return ""
}

// sameTask compares two task records but for lowLive, bookkeeping that
// memoApply leaves at a bound no tighter than the execution's (freed.go).
func sameTask(a, b Task) bool {
	a.lowLive, b.lowLive = 0, 0
	return a == b
}
