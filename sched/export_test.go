package sched

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/mcountsim/mcountsim/isa"
)

// Canonical reports whether m's hash is the one up to task symmetry (not
// the exact fallback of symmetry.go).
func Canonical(m *Machine) bool {
	if !m.st.symmetric {
		return false
	}
	_, ok := m.hashSym()
	return ok
}

// StackSumsHold reports whether m's incremental per-task stack sums are the
// fresh sums.
func StackSumsHold(m *Machine) bool {
	m.flushWords()
	for t := 0; t < m.cfg.Tasks; t++ {
		var sum [2]uint64
		for w := t * m.cfg.StackWords; w < (t+1)*m.cfg.StackWords; w++ {
			h := m.wordHash(w, t, m.stackLo(t))
			sum[0] += h[0]
			sum[1] += h[1]
		}
		if sum != m.stackSum[t] {
			return false
		}
	}
	return true
}

// DigestsHold reports whether every digest m keeps (taskDigest, viewDigest,
// hashShared) is the one computed afresh, and how many it keeps.
func DigestsHold(m *Machine) (kept int, ok bool) {
	// fresh is task t's digest computed afresh, rebased to its stack or
	// not, and whether it made the state odd.
	fresh := func(t int, rebased bool) ([2]uint64, bool) {
		var h hasher
		h.init()
		var rb rebase
		if rebased && t < int(m.patcher) {
			rb = rebase{lo: m.stackLo(t), area: m.st.stackArea}
		}
		m.hashTaskState(&h, int8(t), &rb)
		return h.sum(), rb.odd
	}
	for t := 0; t <= int(m.patcher); t++ {
		bit := uint32(1) << t
		if m.tdOK&bit != 0 {
			kept++
			if d, odd := fresh(t, true); d != m.tdig[t] || odd != (m.tdOdd&bit != 0) {
				return kept, false
			}
		}
		if m.xdOK&bit != 0 { // the exact hash's (exactDigest)
			kept++
			if d, _ := fresh(t, false); d != m.xdig[t] {
				return kept, false
			}
		}
	}
	for c := 0; c < m.cfg.CPUs; c++ {
		if m.viewOK&(1<<c) != 0 {
			kept++
			d := m.vdig[c]
			m.viewOK &^= 1 << c
			if m.viewDigest(c) != d {
				return kept, false
			}
		}
	}
	if m.sharedOK {
		kept++
		d := m.shDig
		m.sharedOK = false
		var h hasher
		m.hashShared(&h)
		if m.shDig != d {
			return kept, false
		}
	}
	return kept, true
}

// ForgetDigests drops the digests m keeps.
func ForgetDigests(m *Machine) {
	m.touched(^uint32(0))
	m.viewOK, m.sharedOK = 0, false
}

// DataStackHolds reports whether m's count (and sum) of what makes the
// state odd in data is the one computed afresh.
func DataStackHolds(m *Machine) bool {
	n, sum := m.dataOdd(0, len(m.data))
	return m.dataStack == n && m.dataOddSum == sum
}

// ProfileKey describes m's state for the state-space profiler
// (profile_test.go): per CPU its task, the pc's symbol and class, and
// the patcher's progress.
func ProfileKey(m *Machine) string {
	var b strings.Builder
	for c := 0; c < m.cfg.CPUs; c++ {
		cpu := m.cpus[c]
		switch {
		case cpu.Stopper:
			b.WriteString("stopper")
		case cpu.Cur < 0:
			b.WriteString("idle")
		case cpu.Cur == m.patcher:
			b.WriteString("patcher")
		default:
			pc := m.core.pc(cpu.Cur)
			cls := "?"
			if off, ok := m.textOff(pc); ok {
				cls = [...]string{"unk", "local", "visible", "load", "fetch", "ti"}[m.st.class[off]]
				if m.stale(int8(c), off, m.shape.maxLen) {
					cls += "/stale"
				}
				if m.tasks[cpu.Cur].InTrap {
					cls += "/trap"
				}
			}
			fmt.Fprintf(&b, "w%d@%s[%s]", cpu.Cur, m.img.Name(pc), cls)
		}
		if cpu.IPI {
			b.WriteString("+ipi")
		}
		b.WriteString(" | ")
	}
	fmt.Fprintf(&b, "pop %d.%d w%d stop=%v spin=%v q=%d", m.pop, m.psub, m.nwrites, m.stopOn, m.spin, m.nrunq)
	return b.String()
}

// ProfileInst disassembles the instruction of worker t.
func ProfileInst(m *Machine, t int) string {
	pc := m.core.pc(int8(t))
	off, ok := m.textOff(pc)
	if !ok {
		return "?"
	}
	if _, err := m.core.decode(pc, m.text[off:min(off+uint64(m.shape.maxLen), uint64(len(m.text)))]); err != nil {
		return "undecodable"
	}
	return m.core.disasm(m, pc)
}

// ProfileDump summarizes the parts of m's state the hash reads, for the
// profiler to show how two states differ.
func ProfileDump(m *Machine) string {
	var b strings.Builder
	_, sym := m.hashSym()
	fmt.Fprintf(&b, "symmetric=%v sym=%v pop=%d.%d nwrites=%d done=%v\n", m.st.symmetric, sym, m.pop, m.psub, m.nwrites, m.done)
	for c := 0; c < m.cfg.CPUs; c++ {
		fmt.Fprintf(&b, "cpu%d cur=%d rec=%x view=%x\n", c, m.cpus[c].Cur, m.cpuRecord(c), m.viewDigest(c))
	}
	m.flushWords()
	for t := 0; t <= int(m.patcher); t++ {
		tk := &m.tasks[t]
		var h hasher
		h.init()
		var none rebase
		h, _ = m.core.hashTask(h, int8(t), none)
		fmt.Fprintf(&b, "task%d state=%v regs=%x shadow=%d res=%v sum=%x\n", t, tk.State, h.sum(), tk.Shadow.N, tk.Results, m.stackSum[t])
	}
	var h hasher
	h.init()
	m.hashShared(&h)
	fmt.Fprintf(&b, "shared=%x runq=%x\n", h.sum(), m.runnable())
	return b.String()
}

// ViewKeyed counts the patchable text bytes whose floors and whose
// synchronized writes the state hash reads (fetch.go's viewKey).
func ViewKeyed(m *Machine) (floors, synced int) {
	for _, k := range m.st.fetch.viewKey {
		if k&viewFloor != 0 {
			floors++
		}
		if k&viewSynced != 0 {
			synced++
		}
	}
	return floors, synced
}

// CopyHolds reports whether m, just made a copy of src by CopyFrom, holds
// src's text, provenance, site histories, data, stacks, views and write log
// (CopyFrom skips what a machine of the same lineage already holds).
func CopyHolds(m, src *Machine) bool {
	return bytes.Equal(m.text, src.text) && slices.Equal(m.prov, src.prov) && bytes.Equal(m.data, src.data) &&
		bytes.Equal(m.stack, src.stack) && bytes.Equal(m.slots, src.slots) && bytes.Equal(m.depth, src.depth) &&
		slices.Equal(m.dprov, src.dprov) && bytes.Equal(m.wtrans, src.wtrans) && sameMarks(m.dmark, src.dmark) &&
		slices.Equal(m.floor, src.floor) && slices.Equal(m.synced, src.synced) &&
		slices.EqualFunc(m.hist, src.hist, func(a, b []siteSnap) bool { return slices.Equal(a, b) })
}

// sameMarks reports whether two machines' data marks are the same (nil:
// all markBoot).
func sameMarks(a, b []uint8) bool {
	if a == nil || b == nil {
		return !slices.ContainsFunc(a, func(x uint8) bool { return x != markBoot }) &&
			!slices.ContainsFunc(b, func(x uint8) bool { return x != markBoot })
	}
	return bytes.Equal(a, b)
}

// SumsHold reports whether m's incremental sums (textSum, histSum, the
// views' vsum and dsum, dprov and the data digest) are those computed
// afresh, and the site histories end with the sites' provenance.
func SumsHold(m *Machine) bool {
	c := *m
	c.initSums()
	if c.textSum != m.textSum || c.histSum != m.histSum {
		return false
	}
	for i, s := range m.img.Sites {
		var snap siteSnap
		off := s.Addr - m.img.Base
		copy(snap[:], m.prov[off:off+uint64(s.Len)])
		if h := m.hist[i]; m.siteDirty == [2]uint64{} && h[len(h)-1] != snap {
			return false
		}
	}
	var dh hasher
	dh.init()
	dh.bytes(m.data)
	if m.dataOK && dh.sum() != m.dataDig || !m.dataWritten && dh.sum() != m.st.dataDig {
		return false
	}
	if m.st.fetch == nil {
		return true
	}
	for i, o := range m.st.dirty {
		if m.dprov[i] != m.prov[o] {
			return false
		}
	}
	c.floor, c.synced = slices.Clone(m.floor), slices.Clone(m.synced)
	c.initViewSums()
	return c.dsum == m.dsum && c.vsum == m.vsum
}

// DataBytes returns the n bytes of data at addr (nil outside data).
func (m *Machine) DataBytes(addr uint64, n int) []byte {
	off, ok := m.dataOff(addr, n)
	if !ok {
		return nil
	}
	return append([]byte(nil), m.data[off:off+uint64(n)]...)
}

// MonitorOfCPU returns CPU c's exclusive monitor.
func (m *Machine) MonitorOfCPU(c int) isa.Monitor { return m.mon[c] }

// ClearMonitorOfCPU opens CPU c's monitor as a context switch does.
func (m *Machine) ClearMonitorOfCPU(c int) { m.clearMonitor(int8(c)) }

// HashExact is the hash with every task by its index (hashExact), which
// keeps the exact digests that DigestsHold checks.
func HashExact(m *Machine) [2]uint64 { return m.hashExact() }

// LowerFloors lowers, at random, floors of m that are newer than the
// write their CPU last synchronized on to an older write of the byte (no
// older than that one), keeping the view sums: a state whose views are
// older than m's (views.go). It reports whether it lowered any.
func LowerFloors(m *Machine, r *rand.Rand) bool {
	if m.st.fetch == nil {
		return false
	}
	nd := len(m.st.dirty)
	lowered := false
	for c := 0; c < m.cfg.CPUs; c++ {
		for _, i := range m.st.opDirty {
			j := c*nd + int(i)
			f, s := m.floor[j], m.synced[j]
			if f == s || m.st.fetch.viewKey[i]&viewFloor == 0 || r.IntN(3) == 0 {
				continue
			}
			var ids []uint16
			for _, v := range m.st.fetch.hist[i] {
				if v.id >= s && v.id < f {
					ids = append(ids, v.id)
				}
			}
			if len(ids) == 0 {
				continue
			}
			nf := ids[r.IntN(len(ids))]
			if m.vsumOn {
				m.vsum[c] += m.viewHash(int(i), nf, s) - m.viewHash(int(i), f, s)
			}
			m.floor[j] = nf
			m.viewOK &^= 1 << c
			lowered = true
		}
	}
	return lowered
}

// LocalNext reports whether task t's next step is thread-local in m's
// state (Machine.local, which Options asks).
func LocalNext(m *Machine, t int) bool { return m.local(int8(t)) }

// ViewKeyedAt reports whether the state hash reads the CPUs' floors of the
// text byte at addr (a byte a store may write).
func ViewKeyedAt(m *Machine, addr uint64) bool {
	d := m.st.fetch.dirtyOf[addr-m.img.Base]
	return d >= 0 && m.st.fetch.viewKey[d]&viewFloor != 0
}

// SetPC moves task t's pc.
func SetPC(m *Machine, t int, pc uint64) { m.core.setPC(int8(t), pc) }
