package sched

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mcountsim/mcountsim/detect"
)

// Instruction fetch through per-CPU views (model.md §1a).
//
// Every text byte that some store of the program may write (a "dirty"
// byte) has a history: its compiled value and then the value of every write
// to it, in the order the patcher performs them. Write ids are that order
// (the patcher's program is a fixed sequence), so the history of each
// dirty byte is known when the machine is built.
//
// Each CPU keeps, per dirty byte, the oldest write it may still fetch (its
// floor): the byte's latest write at the CPU's last synchronization point,
// raised by the CPU's own stores and by what it has already fetched. A
// fetch of dirty bytes whose floor is older than their latest write may
// see any value between the two, byte by byte — except that the bytes of
// one single-copy-atomic store (naturally aligned, at most 8 bytes) are
// seen together, old or new. Which combination the CPU fetches is the
// explorer's choice (Action.Fetch), numbered from the newest bytes (0, the
// only choice when the view is up to date) down.
//
// A synchronization point (taking or returning from an interrupt or an
// exception where the ISA says so, the sync_core IPI, entering and
// leaving the stopper, the ISA's own synchronizing instructions) makes the
// CPU's view the latest. A CPU also remembers, per dirty byte, the write it
// had when it last synchronized (synced): the concurrent-modification rule
// of ARM and arm64 speaks of words changed since then.

// version is one value of a dirty byte: the write id that stored it (0:
// compiled) and the value.
type version struct {
	id  uint16
	val byte
}

// fetchStatic is what the views need that never changes: the dirty bytes'
// histories and the extent of every write.
type fetchStatic struct {
	dirtyOf []int32     // per text byte: its index among the dirty bytes, or -1
	hist    [][]version // per dirty byte: its versions, oldest first
	wOff    []uint32    // per write id-1: the text offset of the store
	wLen    []uint8     // per write id-1: its length in bytes
	wAtomic []bool      // per write id-1: single-copy atomic (aligned, 1, 2, 4 or 8 bytes)
	// viewKey is, per dirty byte, what of a CPU's view of it the state
	// hash reads (viewDigest): viewFloor, viewSynced, both or neither.
	viewKey []uint8
	// scratch for enumerating the variants of one fetch (Options and
	// Apply run on one goroutine per machine lineage).
	variants []fetchVariant
	// memo holds the variants of the fetches enumerated so far (up to
	// maxMemo variants in all), by what decides them: see fetchKey.
	memo  map[fetchKey][]fetchVariant
	memoN int
}

// fetchKey is what decides the variants a CPU may fetch at a text offset:
// per dirty byte of the window, the CPU's floor and the byte's latest
// write (its value is that write's: the histories are static). The other
// bytes never change, and decoding is a function of the bytes.
type fetchKey struct {
	off       uint32
	floor, at [maxFetch]uint16
}

// maxMemo bounds the variants fetchVariants remembers (4 MiB).
const maxMemo = 1 << 16

// fetchVariant is one combination of byte values a CPU may fetch.
type fetchVariant struct {
	n     int // bytes in the window
	bytes [maxFetch]byte
	prov  [maxFetch]uint16
}

// maxFetch is the longest instruction of any ISA.
const maxFetch = 16

// maxCombos bounds the byte combinations one fetch may enumerate.
const maxCombos = 4096

// initFetch builds the histories from the program (boot writes first, then
// every op's writes in program order, as the patcher performs them) and
// starts every CPU synchronized with the booted text.
func (m *Machine) initFetch(prog *Program) {
	fs := &fetchStatic{dirtyOf: make([]int32, len(m.text))}
	for i := range fs.dirtyOf {
		fs.dirtyOf[i] = -1
	}
	for i, o := range m.st.dirty {
		fs.dirtyOf[o] = int32(i)
		fs.hist = append(fs.hist, []version{{0, m.img.Text[o]}})
	}
	add := func(s Store) {
		id := uint16(len(fs.wOff) + 1)
		off := s.Addr - m.img.Base
		fs.wOff = append(fs.wOff, uint32(off))
		fs.wLen = append(fs.wLen, uint8(len(s.Bytes)))
		n := len(s.Bytes)
		fs.wAtomic = append(fs.wAtomic, (n == 1 || n == 2 || n == 4 || n == 8) && off%uint64(n) == 0)
		for i, b := range s.Bytes {
			d := fs.dirtyOf[off+uint64(i)]
			fs.hist[d] = append(fs.hist[d], version{id, b})
		}
	}
	for _, s := range prog.Boot {
		add(s)
	}
	for w := range prog.writes() {
		add(w.Store)
	}
	m.st.fetch = fs
	m.initViewKey()
	nd := len(m.st.dirty)
	m.floor = make([]uint16, m.cfg.CPUs*nd)
	m.synced = make([]uint16, m.cfg.CPUs*nd)
	m.dprov = make([]uint16, nd)
	for i, o := range m.st.dirty {
		m.dprov[i] = m.prov[o]
	}
	for c := 0; c < m.cfg.CPUs; c++ {
		m.syncCPU(int8(c), "boot")
	}
}

// syncCPU is a synchronization point of CPU c: its view of text becomes the
// latest.
func (m *Machine) syncCPU(c int8, why string) { m.syncCPUTask(c, why, -1) }

// syncCPUTask is syncCPU for a reason that names task t: why holds a %d
// for it, formatted only when an explanation shows it (syncWhyText).
func (m *Machine) syncCPUTask(c int8, why string, t int8) {
	nd := len(m.st.dirty)
	copy(m.floor[int(c)*nd:int(c+1)*nd], m.dprov)
	copy(m.synced[int(c)*nd:int(c+1)*nd], m.dprov)
	m.vsum[c] = m.dsum
	m.viewOK &^= 1 << c
	m.syncStep[c] = m.steps
	m.syncWhy[c] = why
	m.syncTask[c] = t
}

// syncWhyText says why CPU c last synchronized.
func (m *Machine) syncWhyText(c int8) string {
	if t := m.syncTask[c]; t >= 0 {
		return fmt.Sprintf(m.syncWhy[c], t)
	}
	return m.syncWhy[c]
}

// ownStore notes that CPU c stored write id at [off, off+n): the storing
// CPU sees its own stores.
func (m *Machine) ownStore(c int, off uint64, n int, id uint16) {
	if c < 0 {
		return // boot: every CPU synchronizes after it
	}
	nd := len(m.st.dirty)
	for i := 0; i < n; i++ {
		if d := m.st.fetch.dirtyOf[off+uint64(i)]; d >= 0 {
			j := c*nd + int(d)
			if m.vsumOn {
				m.vsum[c] += m.viewHash(int(d), id, id) - m.viewHash(int(d), m.floor[j], m.synced[j])
			}
			m.floor[j] = id
			m.synced[j] = id
		}
	}
	m.viewOK &^= 1 << c
}

// stale reports whether CPU c may fetch, in the n bytes at off, an older
// value than the latest.
func (m *Machine) stale(c int8, off uint64, n int) bool {
	fs := m.st.fetch
	if fs == nil || len(m.st.dirty) == 0 {
		return false
	}
	nd := len(m.st.dirty)
	end := min(off+uint64(n), uint64(len(m.text)))
	for o := off; o < end; o++ {
		if d := fs.dirtyOf[o]; d >= 0 && m.floor[int(c)*nd+int(d)] != m.prov[o] {
			return true
		}
	}
	return false
}

// fetchVariants enumerates the byte combinations CPU c may fetch at off
// (a window of the ISA's longest instruction), newest first, one per
// distinct instruction, and returns them (remembered: the caller must not
// change them).
func (m *Machine) fetchVariants(c int8, pc, off uint64) []fetchVariant {
	fs := m.st.fetch
	nd := len(m.st.dirty)
	n := min(m.shape.maxLen, len(m.text)-int(off))
	key := fetchKey{off: uint32(off)}
	for j := 0; j < n; j++ {
		if d := fs.dirtyOf[off+uint64(j)]; d >= 0 {
			key.floor[j], key.at[j] = m.floor[int(c)*nd+int(d)], m.prov[off+uint64(j)]
		}
	}
	if vs, ok := fs.memo[key]; ok {
		return vs
	}
	vs := m.enumerateFetch(c, pc, off, n)
	if !m.outOfSteps && fs.memoN+len(vs) <= maxMemo { // (an enumeration too large to make is no variant list)
		if fs.memo == nil {
			fs.memo = map[fetchKey][]fetchVariant{}
		}
		fs.memo[key] = append([]fetchVariant(nil), vs...)
		fs.memoN += len(vs)
	}
	return vs
}

// enumerateFetch is fetchVariants without the memo: the n bytes of the
// window at off.
func (m *Machine) enumerateFetch(c int8, pc, off uint64, n int) []fetchVariant {
	fs := m.st.fetch
	nd := len(m.st.dirty)
	// The choices of each position: its versions from the latest down to
	// the floor (a clean byte has one).
	type pos struct {
		d       int32
		choices []version // newest first
	}
	var ps [maxFetch]pos
	for j := 0; j < n; j++ {
		o := off + uint64(j)
		d := fs.dirtyOf[o]
		ps[j].d = d
		if d < 0 {
			ps[j].choices = nil
			continue
		}
		h := fs.hist[d]
		lo, hi := -1, -1
		for k, v := range h {
			if v.id == m.floor[int(c)*nd+int(d)] {
				lo = k
			}
			if v.id == m.prov[o] {
				hi = k
			}
		}
		ps[j].choices = h[lo : hi+1]
	}
	combos := 1
	for j := 0; j < n; j++ {
		if ps[j].d >= 0 {
			combos *= len(ps[j].choices)
			if combos > maxCombos {
				// More unsynchronized writes to one instruction than the
				// search can enumerate: the run ends without a verdict
				// (the explorer reports INCOMPLETE), never with some of
				// the fetches dropped.
				m.outOfSteps = true
				m.done = true
				m.budgetWhy = fmt.Sprintf("cpu%d may fetch more than %d combinations of the bytes at %s (too many writes since it last synchronized)",
					c, maxCombos, nameOr(m.img.Name(pc), fmt.Sprintf("%#x", pc)))
				fs.variants = append(fs.variants[:0], fetchVariant{n: n})
				for k := 0; k < n; k++ {
					fs.variants[0].bytes[k], fs.variants[0].prov[k] = m.text[off+uint64(k)], m.prov[off+uint64(k)]
				}
				return fs.variants
			}
		}
	}
	out := fs.variants[:0]
	var idx [maxFetch]int // per position: index from the newest
	for {
		var v fetchVariant
		v.n = n
		for j := 0; j < n; j++ {
			o := off + uint64(j)
			if ps[j].d < 0 {
				v.bytes[j], v.prov[j] = m.text[o], m.prov[o]
				continue
			}
			ch := ps[j].choices[len(ps[j].choices)-1-idx[j]]
			v.bytes[j], v.prov[j] = ch.val, ch.id
		}
		if m.atomicOK(&v, off) {
			// One variant per distinct instruction: decode to its length.
			ln := n
			m.decodeBuf = v.bytes
			if k, err := m.core.decode(pc, m.decodeBuf[:n]); err == nil && k > 0 {
				ln = k
			}
			dup := false
			for i := range out {
				if out[i].n == ln && out[i].bytes == trimmed(v.bytes, ln) && out[i].prov == trimmedProv(v.prov, ln) {
					dup = true
					break
				}
			}
			if !dup {
				v.bytes, v.prov, v.n = trimmed(v.bytes, ln), trimmedProv(v.prov, ln), ln
				out = append(out, v)
			}
		}
		// Next combination: the last position varies fastest.
		j := n - 1
		for ; j >= 0; j-- {
			if ps[j].d >= 0 && idx[j]+1 < len(ps[j].choices) {
				idx[j]++
				break
			}
			idx[j] = 0
		}
		if j < 0 {
			break
		}
	}
	fs.variants = out
	return out
}

func trimmed(b [maxFetch]byte, n int) [maxFetch]byte {
	for i := n; i < maxFetch; i++ {
		b[i] = 0
	}
	return b
}

func trimmedProv(p [maxFetch]uint16, n int) [maxFetch]uint16 {
	for i := n; i < maxFetch; i++ {
		p[i] = 0
	}
	return p
}

// atomicOK reports whether a combination keeps every single-copy-atomic
// store whole: the bytes it wrote inside the window are all at least as new
// as it, or all older.
func (m *Machine) atomicOK(v *fetchVariant, off uint64) bool {
	fs := m.st.fetch
	for j := 0; j < v.n; j++ {
		if fs.dirtyOf[off+uint64(j)] < 0 {
			continue
		}
		for k := j + 1; k < v.n; k++ {
			if fs.dirtyOf[off+uint64(k)] < 0 {
				continue
			}
			// A store covering both j and k, newer than the older of the
			// two chosen values and not newer than the newer one, splits.
			lo, hi := v.prov[j], v.prov[k]
			if lo > hi {
				lo, hi = hi, lo
			}
			for id := lo + 1; id <= hi; id++ {
				w := int(id) - 1
				if !fs.wAtomic[w] {
					continue
				}
				a, b := uint64(fs.wOff[w]), uint64(fs.wOff[w])+uint64(fs.wLen[w])
				if off+uint64(j) >= a && off+uint64(j) < b && off+uint64(k) >= a && off+uint64(k) < b {
					return false
				}
			}
		}
	}
	return true
}

// fetched is what a worker's fetch produced: its bytes and, per byte, the
// write that stored it.
type fetched struct {
	bytes []byte
	prov  []uint16
	stale bool // the CPU's view was behind: the bytes are one variant of several
}

// fetch returns the bytes CPU c fetches at off for variant k (0 when the
// view is up to date: the text as it is), raises c's floors to what it
// fetched, and checks the concurrent-modification rule.
func (m *Machine) fetch(c, t int8, pc, off uint64, k int) fetched {
	end := min(off+uint64(m.shape.maxLen), uint64(len(m.text)))
	if k == 0 && !m.stale(c, off, int(end-off)) {
		return fetched{m.text[off:end], m.prov[off:end], false}
	}
	vs := m.fetchVariants(c, pc, off)
	if k >= len(vs) {
		k = 0
	}
	v := &m.fetchBuf
	*v = vs[k]
	nd := len(m.st.dirty)
	for j := 0; j < v.n; j++ {
		if d := m.st.fetch.dirtyOf[off+uint64(j)]; d >= 0 && m.floor[int(c)*nd+int(d)] < v.prov[j] {
			if m.vsumOn {
				k := int(c)*nd + int(d)
				m.vsum[c] += m.viewHash(int(d), v.prov[j], m.synced[k]) - m.viewHash(int(d), m.floor[k], m.synced[k])
			}
			m.floor[int(c)*nd+int(d)] = v.prov[j]
			m.viewOK &^= 1 << c
		}
	}
	m.checkCMODX(c, t, pc, off, v)
	return fetched{v.bytes[:v.n], v.prov[:v.n], true}
}

// checkCMODX reports a fetch of a word that another CPU changed since the
// fetching CPU last synchronized, where the word's values are not all in
// the ISA's concurrent-modification set (ARMv7 ARM A3.5.4, ARMv8 ARM
// B2.2.5): UNPREDICTABLE on real hardware.
func (m *Machine) checkCMODX(c, t int8, pc, off uint64, v *fetchVariant) {
	u := uint64(m.shape.cmodxUnit)
	if u == 0 {
		return
	}
	fs := m.st.fetch
	nd := len(m.st.dirty)
	for w := off &^ (u - 1); w < off+uint64(v.n); w += u {
		if w+u > uint64(len(m.text)) {
			break
		}
		// The word as c last synchronized on it, and as it is now.
		old, cur := &m.cmodxBuf[0], &m.cmodxBuf[1] // every byte below u is written
		changed := false
		for j := uint64(0); j < u; j++ {
			o := w + j
			cur[j] = m.text[o]
			old[j] = m.text[o]
			d := fs.dirtyOf[o]
			if d < 0 {
				continue
			}
			s := m.synced[int(c)*nd+int(d)]
			if s != m.prov[o] {
				changed = true
			}
			for _, ver := range fs.hist[d] {
				if ver.id == s {
					old[j] = ver.val
				}
			}
		}
		if !changed || m.core.cmodxOK(old[:u], cur[:u]) {
			continue
		}
		id := m.prov[w]
		m.hazard(detect.CMODX, int(c), int(t), pc, fmt.Sprintf(
			"cpu%d fetched %s at %s while it changed from %s to %s (%s), concurrent modification and execution outside the architecture's set: UNPREDICTABLE; cpu%d last synchronized at step %d (%s)",
			c, m.core.hex(v.bytes[:v.n]), nameOr(m.img.Name(pc), fmt.Sprintf("%#x", pc)),
			m.core.describe(w+m.img.Base, old[:u]), m.core.describe(w+m.img.Base, cur[:u]), m.writeName(id),
			c, m.syncStep[c], m.syncWhyText(c)))
		return
	}
}

// What of the views the state hash reads (viewDigest, fetchStatic.viewKey).
const (
	viewFloor  = 1 << iota // the byte's floor
	viewSynced             // the write the CPU last synchronized on
)

// initViewKey decides, per dirty byte, whether the state hash reads the
// write each CPU last synchronized on (synced). Only the
// concurrent-modification rule reads it (checkCMODX), and only for a word
// whose bytes' synced writes may differ from their latest: where the ISA
// has no such rule (cmodxUnit 0: x86, RISC-V), where no store follows the
// boot writes to the word (every CPU synchronizes after boot, and a
// CPU's synced write of a byte is always one of the byte's writes from
// the one it booted with to its latest, so it is then the latest), or
// where every word the word's bytes can spell from their booted versions
// on is in the ISA's concurrent-modification set with every other
// (arm64's nop <-> bl: the rule can never fire), two states that differ
// only in synced writes have the same futures, and synced is left out.
// The floors are always read (quiet.go narrows them further).
func (m *Machine) initViewKey() {
	fs := m.st.fetch
	fs.viewKey = make([]uint8, len(m.st.dirty))
	u := m.shape.cmodxUnit
	for i, o := range m.st.dirty {
		fs.viewKey[i] = viewFloor
		if !m.cfg.Unreduced && (u == 0 || m.cmodxQuiet(uint64(o)&^uint64(u-1))) {
			continue
		}
		fs.viewKey[i] |= viewSynced
	}
}

// maxCMODXWords bounds the words cmodxQuiet enumerates for one word.
const maxCMODXWords = 64

// cmodxQuiet reports whether the concurrent-modification rule cannot
// fire on the cmodxUnit-byte word at text offset w: either no byte of it
// has a write after the one it booted with, or every pair of words its
// bytes can spell is allowed. The words are its versions from the booted
// one on when every write to it writes all its dirty bytes (their
// histories have the same writes, so a CPU's synced writes of them are
// one write: syncCPU and ownStore set them together), and otherwise every
// combination of its bytes' versions. A word it cannot enumerate counts
// as not quiet.
func (m *Machine) cmodxQuiet(w uint64) bool {
	fs := m.st.fetch
	u := uint64(m.shape.cmodxUnit)
	if w+u > uint64(len(m.text)) {
		return false
	}
	var vals [maxFetch][]byte
	var ids []uint16 // the writes of the word's dirty bytes, when they are the same
	n, changes, whole := 1, false, true
	for j := uint64(0); j < u; j++ {
		o := w + j
		d := fs.dirtyOf[o]
		if d < 0 {
			vals[j] = []byte{m.text[o]}
			continue
		}
		h := fs.hist[d]
		k := 0
		for k < len(h) && h[k].id != m.prov[o] {
			k++
		}
		if k == len(h) {
			return false
		}
		var mine []uint16
		for _, v := range h[k:] {
			vals[j] = append(vals[j], v.val)
			mine = append(mine, v.id)
		}
		if ids == nil {
			ids = mine
		} else if !slices.Equal(ids, mine) {
			whole = false
		}
		changes = changes || len(h)-k > 1
		n *= len(vals[j])
	}
	if !changes {
		return true
	}
	var words [][]byte
	if whole {
		for k := range ids {
			word := make([]byte, u)
			for j := range word {
				word[j] = vals[j][min(k, len(vals[j])-1)]
			}
			words = append(words, word)
		}
	} else if words = m.cmodxCombos(vals[:u], n); words == nil {
		return false
	}
	for _, a := range words {
		for _, b := range words {
			if !m.core.cmodxOK(a, b) {
				return false
			}
		}
	}
	return true
}

// cmodxCombos returns every word whose byte j is one of vals[j] (n of
// them), or nil when there are more than maxCMODXWords.
func (m *Machine) cmodxCombos(vals [][]byte, n int) [][]byte {
	if n > maxCMODXWords {
		return nil
	}
	u := len(vals)
	words := make([][]byte, 0, n)
	var idx [maxFetch]int
	for {
		word := make([]byte, u)
		for j := range word {
			word[j] = vals[j][idx[j]]
		}
		words = append(words, word)
		j := u - 1
		for ; j >= 0; j-- {
			if idx[j]+1 < len(vals[j]) {
				idx[j]++
				break
			}
			idx[j] = 0
		}
		if j < 0 {
			return words
		}
	}
}

// viewDigest is CPU c's view for the state hash: its floors and the
// writes it last synchronized on, of the bytes viewKey says matter (fixed
// when the machine is built). It is kept (Machine.vdig) until one of them
// changes: syncCPU, ownStore and fetch, their only writers, mark it.
func (m *Machine) viewDigest(c int) uint64 {
	if m.floorFree {
		return m.syncedDigest(c)
	}
	if m.viewOK&(1<<c) != 0 {
		return m.vdig[c]
	}
	if m.vsumOn {
		d := mix(m.vsum[c])
		m.vdig[c] = d
		m.viewOK |= 1 << c
		return d
	}
	nd := len(m.st.dirty)
	key := m.st.fetch.viewKey
	fl, sy := m.floor[c*nd:(c+1)*nd], m.synced[c*nd:(c+1)*nd]
	var h hasher
	h.init()
	for _, i := range m.st.opDirty { // the others are boot's in every state
		switch key[i] {
		case viewFloor | viewSynced:
			h.u64(uint64(fl[i]) | uint64(sy[i])<<16)
		case viewFloor:
			h.u64(uint64(fl[i]))
		case viewSynced:
			h.u64(uint64(sy[i]) << 16)
		}
	}
	d := h.sum()[0]
	m.vdig[c] = d
	m.viewOK |= 1 << c
	return d
}

// viewHash is dirty byte i's part of a CPU's view sum (Machine.vsum) with
// floor fl and synced write sy: what viewKey says the hash reads of them.
func (m *Machine) viewHash(i int, fl, sy uint16) uint64 {
	var x uint64
	switch m.st.fetch.viewKey[i] {
	case viewFloor | viewSynced:
		x = uint64(fl) | uint64(sy)<<16
	case viewFloor:
		x = uint64(fl)
	case viewSynced:
		x = uint64(sy) << 16
	default:
		return 0
	}
	return mix(x | uint64(i)<<32)
}

// initViewSums computes the CPUs' view sums and dsum from scratch, once
// viewKey is final (initQuiet narrows it); syncCPU, ownStore, fetch and
// write keep them from then on, and viewDigest reads them instead of
// hashing every dirty byte.
func (m *Machine) initViewSums() {
	if m.st.fetch == nil {
		return
	}
	nd := len(m.st.dirty)
	m.st.syncedDirty, m.st.floorDirty = m.st.syncedDirty[:0], m.st.floorDirty[:0]
	for _, i := range m.st.opDirty {
		if m.st.fetch.viewKey[i]&viewSynced != 0 {
			m.st.syncedDirty = append(m.st.syncedDirty, i)
		}
		if m.st.fetch.viewKey[i]&viewFloor != 0 {
			m.st.floorDirty = append(m.st.floorDirty, i)
		}
	}
	m.dsum = 0
	for i := range nd {
		m.dsum += m.viewHash(i, m.dprov[i], m.dprov[i])
	}
	for c := 0; c < m.cfg.CPUs; c++ {
		m.vsum[c] = 0
		for i := range nd {
			m.vsum[c] += m.viewHash(i, m.floor[c*nd+i], m.synced[c*nd+i])
		}
	}
	m.vsumOn, m.viewOK = true, 0
}

// describeView renders CPU c's stale bytes, for explanations.
func (m *Machine) describeView(c int8) string {
	nd := len(m.st.dirty)
	var parts []string
	for i, o := range m.st.dirty {
		if f := m.floor[int(c)*nd+i]; f != m.prov[o] {
			parts = append(parts, fmt.Sprintf("%s may still see %s", m.img.Name(m.img.Base+uint64(o)), m.writeName(f)))
		}
	}
	return strings.Join(parts, "; ")
}
