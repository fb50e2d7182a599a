package sched

import (
	"fmt"
	"slices"

	"github.com/mcountsim/mcountsim/kernel"
)

// Two reductions that rest on the uninstrumented reference run of the
// wrong-result detector (results.go), whether its results are compared or
// not (when they are, detect/results.go: up to the first hazard, every
// task of every run executes a prefix of its reference run, so no run
// breaks their premise; when they are not, a run may, and explore then
// searches again without them):
//
//   - a quiet page is a writable data page that no store of the reference
//     run wrote: a load from one is thread-local, as a load from a
//     read-only page is (localAccess);
//   - a store of the patcher to text bytes that no worker fetched (in the
//     window of an instruction it executed) or loaded in the reference run,
//     outside every site of a function it executed, is a thread-local step
//     of the patcher (patcherLocal), and the CPUs' views of those bytes
//     are left out of the state hash (viewDigest): no fetch reads them.
//     So are the views of a reached site's bytes outside its function
//     and every window of the reference (arm64 CALL_OPS's ops literal,
//     which ftrace_caller loads and no instruction fetches: fobs), whose
//     stores stay visible.
//
// Neither takes the reference's word for it: every run checks the
// assumption, and a store to a quiet page that is not already a
// wrong-result hazard, an instruction fetch at an address the reference
// never executed (or whose window holds a byte of such a literal), or a
// load of such text that a store may write ends the
// run without a verdict (Machine.OutOfSteps: the search is INCOMPLETE, and
// says why, and PremiseBroken reports it). The argument that this loses no
// hazard is in the package doc of explore. Config.NoQuiet turns both off;
// so does Unreduced.

// initQuiet builds the quiet pages and the observed text from the
// reference (New, after initResults).
func (m *Machine) initQuiet() {
	ref := m.cfg.Reference
	if ref == nil || len(ref.Tasks) == 0 || m.cfg.Unreduced || m.cfg.NoQuiet || m.tr.on {
		return
	}
	for i := range m.st.dataAt {
		d := &m.st.dataAt[i]
		q := make([]bool, d.size/PageSize)
		any := false
		for p := range q {
			lo, hi := d.addr+uint64(p)*PageSize, d.addr+uint64(p+1)*PageSize
			if d.ro != nil && d.ro[p] {
				continue
			}
			k, _ := slices.BinarySearch(ref.Written, lo)
			q[p] = k == len(ref.Written) || ref.Written[k] >= hi
			any = any || q[p]
		}
		if any {
			d.quiet = q
		}
	}
	if len(m.st.dirty) == 0 {
		return
	}
	n := uint64(len(m.text))
	obs := make([]bool, n)
	for _, a := range ref.Text {
		off := a - m.img.Base
		if a < m.img.Base || off >= n {
			continue
		}
		for i := off; i < min(off+uint64(m.shape.maxLen), n); i++ {
			obs[i] = true
		}
	}
	// A site counts whole once the reference executed anything of its
	// function or of the site itself: its bytes outside the function's
	// instructions (arm64 CALL_OPS' literal before the entry, which the
	// trampoline loads) are then the instrumentation's. Those of them in
	// no window of the reference and outside the function are data to
	// the instrumentation: it loads them, never fetches them (fobs).
	win := slices.Clone(obs)
	fobs := obs
	seen := func(lo, hi uint64) bool {
		for o := lo; o < hi && o < n; o++ {
			if obs[o] {
				return true
			}
		}
		return false
	}
	for _, s := range m.img.Sites {
		lo := s.Addr - m.img.Base
		hit := seen(lo, lo+uint64(s.Len))
		for _, sym := range m.img.Symbols {
			if !hit && sym.Name == s.Func {
				hit = seen(sym.Addr-m.img.Base, sym.Addr-m.img.Base+sym.Size)
			}
		}
		if !hit {
			continue
		}
		fn := kernel.Symbol{Size: ^uint64(0)} // no symbol: every byte may be fetched
		for _, sym := range m.img.Symbols {
			if sym.Name == s.Func {
				fn = sym
			}
		}
		for o := lo; o < lo+uint64(s.Len) && o < n; o++ {
			if a := o + m.img.Base; !win[o] && (a < fn.Addr || a-fn.Addr >= fn.Size) {
				if &fobs[0] == &obs[0] {
					fobs = slices.Clone(obs)
				}
				obs[o] = true
				continue
			}
			obs[o] = true
			fobs[o] = true
		}
	}
	m.st.obs, m.st.fobs = obs, fobs
	// A CPU's view of a byte outside every observed window, or of a
	// site's byte the instrumentation only loads, is read by no fetch
	// that runs on (a fetch whose window holds one ends the run, as
	// above; the concurrent-modification rule reads the words of the
	// window only): the state hash leaves it out (viewDigest), so that
	// two states whose CPUs last synchronized between different stores of
	// the batch to sites no worker reaches, or to a CALL_OPS literal,
	// are one.
	fs := m.st.fetch
	u := uint64(max(m.shape.cmodxUnit, 1))
	for i, o := range m.st.dirty {
		w := uint64(o) &^ (u - 1)
		if !slices.Contains(fobs[w:min(w+u, n)], true) {
			fs.viewKey[i] = 0
		}
	}
}

// quietLoad reports whether the n bytes at a lie in quiet pages.
func (m *Machine) quietLoad(a uint64, n int) bool {
	for _, d := range m.st.dataAt {
		if a >= d.addr && a+uint64(n) <= d.addr+d.size {
			if d.quiet == nil {
				return false
			}
			for p := (a - d.addr) / PageSize; p <= (a+uint64(n)-1-d.addr)/PageSize; p++ {
				if !d.quiet[p] {
					return false
				}
			}
			return true
		}
	}
	return false
}

// quietStore reports whether a store of n bytes at a touches a quiet page.
func (m *Machine) quietStore(a uint64, n int) bool {
	return m.quietLoad(a, 1) || m.quietLoad(a+uint64(n)-1, 1)
}

// observed reports whether every byte of [off, off+n) of text that a store
// may write lies in the text the reference observed.
func (m *Machine) observed(off uint64, n int) bool { return m.observedIn(m.st.obs, off, n) }

// fetchObserved is observed for an instruction fetch's window: a site's
// bytes the instrumentation only loads (a CALL_OPS literal) do not count.
func (m *Machine) fetchObserved(off uint64, n int) bool { return m.observedIn(m.st.fobs, off, n) }

func (m *Machine) observedIn(obs []bool, off uint64, n int) bool {
	for i := off; i < off+uint64(n) && i < uint64(len(m.text)); i++ {
		if m.st.mutable[i] && !obs[i] {
			return false
		}
	}
	return true
}

// unobserved ends the run without a verdict: it did what
// that the uninstrumented reference run never did, so the reductions of
// quiet.go cannot vouch for its schedules.
// A run that has already met a hazard goes on (it is evidence as it is).
func (m *Machine) unobserved(what string) {
	m.breakPremise(fmt.Sprintf("%s, which the uninstrumented reference run never made: the reductions of quiet pages and unreached text (explore.Scenario.NoQuiet, or --no-reference-reductions, turns them off) do not hold for this run", what))
}

// breakPremise ends the run without a verdict, saying why: it broke a
// premise of a reduction that the reductions of quiet.go, stable.go or
// shadow.go rest on (PremiseBroken). A run that has already met a hazard
// goes on (it is evidence as it is).
func (m *Machine) breakPremise(why string) {
	if m.done || len(m.hazards) > 0 {
		return
	}
	m.outOfSteps, m.done, m.premiseBroken = true, true, true
	m.budgetWhy = why
}

// patcherLocal reports whether the patcher's next step, on its CPU, is a
// store to text bytes no worker reaches (none lies in a fetch window of an
// instruction a worker executed in the reference, nor was loaded), or the
// end of a sync_core or flush_icache_all wait that every other CPU has
// answered (it advances the patcher's own progress alone: explore's
// package doc): it commutes with every action of every other CPU.
func (m *Machine) patcherLocal() bool {
	if m.pop >= len(m.prog.Ops) || m.spin {
		return false
	}
	op := &m.prog.Ops[m.pop]
	if (op.Kind == OpSyncCore || op.Kind == OpFlushIcacheAll) && m.psub == 1 && m.ipiWait == 0 {
		return true // patcher.go: the wait's end
	}
	if op.Kind != OpStore {
		return false
	}
	// Bytes no worker can see (a static test, so first), or behind a
	// breakpoint (shadow.go).
	return m.unseenStore(op) || m.shadowedNow(m.pop)
}

// unseenStore reports whether the store op writes only bytes the premise
// keeps every worker from fetching or loading (obs).
func (m *Machine) unseenStore(op *Op) bool {
	if m.st.obs == nil {
		return false
	}
	s := op.Stores[0]
	off := s.Addr - m.img.Base
	for i := range s.Bytes {
		if m.st.obs[off+uint64(i)] {
			return false
		}
	}
	return true
}
