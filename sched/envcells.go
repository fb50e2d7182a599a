package sched

import (
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
)

// Env cells: the modular machine of workers that share non-stack data
// (issue 21; the argument is in modular.go, "Shared data cells").
//
// An env cell is the size bytes at an address outside every stack that
// some worker's modular machine stored. In worker f's modular machine a
// load of exactly a cell reads, by the explorer's choice (Action.Load,
// offered by appendRun where the instruction's address is that cell), one
// value of the cell's value set V: its initial value and every value a
// round before stored there. A store outside the stacks writes nothing
// (no load reads the cells' bytes, and the data hash of the state stays
// that of the image); its value, when V lacks it, is collected, and the
// explorer runs the modular check again with the larger sets. Whatever
// the rule below cannot vouch for is refused with a fault that ends the
// run, so that the check falls back to the whole search (explore).

// EnvCells holds the value sets of one round of the modular check and
// collects the values its machines store outside them. The sets are fixed
// while the round's machines run; collecting is safe for concurrent use
// (every search goroutine's machines share one EnvCells, as they share a
// Mirror).
type EnvCells struct {
	cells []envCell // sorted by address, disjoint
	once  sync.Once // prepare: the initial values, from the first machine
	nvals int       // the values of every set, once prepared
	mu    sync.Mutex
	found map[envKey][]uint64 // stored this round and not in V (sorted)
	grew  atomic.Bool
	// refused says why a round could not even start (overlapping cells).
	refused string
}

// envKey names a cell: the size bytes at addr.
type envKey struct {
	addr uint64
	size uint8
}

type envCell struct {
	envKey
	stored []uint64 // the values stored there in rounds before, or seeded (sorted, distinct)
	vals   []uint64 // V: stored and the initial value (sorted, distinct; prepare)
	// stable: every byte of the cell is a stable data byte (stable.go),
	// whose loads and stores are thread-local steps and write memory: no
	// cell (a seed of the reference's stores), lookup passes it by
	stable bool
}

// NewEnvCells returns the value sets of a first round: no cells.
func NewEnvCells() *EnvCells { return &EnvCells{found: map[envKey][]uint64{}} }

// Seed adds v to the set of the size-byte cell at addr before any machine
// uses e (the explorer seeds the stores of the reference run: a larger
// set is still an over-approximation, and may save a round).
func (e *EnvCells) Seed(addr uint64, size int, v uint64) {
	e.cells = addEnv(e.cells, envKey{addr, uint8(size)}, maskTo(v, size))
}

// Grew reports whether a machine stored a value its cell's set lacked (or
// to a location that was not a cell yet): the round does not decide.
func (e *EnvCells) Grew() bool { return e.grew.Load() }

// Cells returns the number of cells, and Values the number of values in
// their sets (both known once a machine of the round was built: a seeded
// cell of stable bytes is none).
func (e *EnvCells) Cells() int {
	n := 0
	for i := range e.cells {
		if !e.cells[i].stable {
			n++
		}
	}
	return n
}

// Values: see Cells.
func (e *EnvCells) Values() int { return e.nvals }

// Next returns the sets of the next round: e's with every value collected
// added. Cells that overlap without being equal (stores of mixed sizes)
// are refused: an error saying so, after which the whole search decides.
func (e *EnvCells) Next() (*EnvCells, error) {
	n := NewEnvCells()
	for _, c := range e.cells {
		for _, v := range c.stored {
			n.cells = addEnv(n.cells, c.envKey, v)
		}
	}
	e.mu.Lock()
	for k, vs := range e.found {
		for _, v := range vs {
			n.cells = addEnv(n.cells, k, v)
		}
	}
	e.mu.Unlock()
	return n, n.Check()
}

// Check reports cells that overlap without being one cell (mixed sizes or
// partial overlap), which the rule refuses.
func (e *EnvCells) Check() error {
	for i := 1; i < len(e.cells); i++ {
		a, b := e.cells[i-1], e.cells[i]
		if b.addr < a.addr+uint64(a.size) {
			return fmt.Errorf("the shared data cells of %d bytes at %#x and of %d bytes at %#x overlap (stores of mixed sizes): the value sets do not apply", a.size, a.addr, b.size, b.addr)
		}
	}
	return nil
}

// addEnv adds v to the stored values of cell k in cells (sorted by
// address, then size).
func addEnv(cells []envCell, k envKey, v uint64) []envCell {
	i, ok := slices.BinarySearchFunc(cells, k, func(c envCell, k envKey) int {
		switch {
		case c.addr != k.addr:
			return cmpU64(c.addr, k.addr)
		}
		return int(c.size) - int(k.size)
	})
	if !ok {
		cells = slices.Insert(cells, i, envCell{envKey: k})
	}
	cells[i].stored = insertSorted(cells[i].stored, v)
	return cells
}

func cmpU64(a, b uint64) int {
	if a < b {
		return -1
	}
	return 1
}

func insertSorted(vs []uint64, v uint64) []uint64 {
	if j, ok := slices.BinarySearch(vs, v); !ok {
		vs = slices.Insert(vs, j, v)
	}
	return vs
}

func maskTo(v uint64, size int) uint64 {
	if size < 8 {
		v &= 1<<(8*size) - 1
	}
	return v
}

// lookup returns the cell the size bytes at a overlap (-1: none) and
// whether they are exactly that cell.
func (e *EnvCells) lookup(a uint64, size int) (int, bool) {
	for i := range e.cells {
		c := &e.cells[i]
		if a < c.addr+uint64(c.size) && c.addr < a+uint64(size) && !c.stable {
			return i, a == c.addr && size == int(c.size)
		}
	}
	return -1, false
}

// collect notes that a machine stored v (masked) in the size bytes at a,
// which overlap cell i exactly or no cell (i -1).
func (e *EnvCells) collect(i int, a uint64, size int, v uint64) {
	if i >= 0 {
		if _, ok := slices.BinarySearch(e.cells[i].vals, v); ok {
			return // the common case: no lock
		}
	}
	k := envKey{a, uint8(size)}
	e.mu.Lock()
	if vs := e.found[k]; !slices.Contains(vs, v) {
		e.found[k] = insertSorted(vs, v)
		e.grew.Store(true)
	}
	e.mu.Unlock()
}

// envStep is what the step being taken did to cells (Apply's envBegin
// and envEnd bracket a worker's step).
type envStep struct {
	on     bool   // Apply is taking a worker's step
	pick   uint16 // the load variant chosen (Action.Load: 1 + the value's index), 0: none or used
	loaded int16  // 1 + the cell the step loaded, 0: none
	stored bool   // the step stored outside the stacks
}

// initEnv prepares Config.Env (New): the machine is a modular one, whose
// data still holds the image's values, the cells' initial values.
func (m *Machine) initEnv() {
	e := m.cfg.Env
	if e == nil {
		return
	}
	if m.cfg.Focus == 0 {
		m.cfg.Env = nil // only a modular machine has cells
		return
	}
	e.once.Do(func() {
		for i := range e.cells {
			c := &e.cells[i]
			if c.stable = m.stableRange(c.addr, int(c.size)); c.stable {
				continue
			}
			c.vals = slices.Clone(c.stored)
			if off, ok := m.dataOff(c.addr, int(c.size)); ok {
				var v uint64
				for j := int(c.size) - 1; j >= 0; j-- {
					v = v<<8 | uint64(m.data[off+uint64(j)])
				}
				c.vals = insertSorted(c.vals, v)
			}
			e.nvals += len(c.vals)
		}
	})
}

// envVariants is the number of load variants of worker t's next
// instruction (appendRun): the size of the set of the cell it loads,
// where its address (the core's memAddr; on x86 also the target of a call
// or jump through memory, and a compare's memory destination, which it
// only reads) is exactly a cell; 0 otherwise.
// An instruction that loads a cell without being offered variants here is
// refused when it does (envLoad).
func (m *Machine) envVariants(t int8) int {
	if len(m.cfg.Env.cells) == 0 {
		return 0
	}
	pc := m.core.pc(t)
	a, n, store, ok := m.core.memAddr(m, t, pc)
	if k, x86 := m.core.(*x86Core); x86 {
		switch {
		case !ok:
			a, ok = k.branchLoad(m, t, pc) // call or jmp through memory
			n = 8
		case store && k.compares(m, pc):
			store = false
		}
	}
	if !ok || store {
		return 0
	}
	e := m.cfg.Env
	if i, exact := e.lookup(a, n); exact {
		return len(e.cells[i].vals)
	}
	return 0
}

// envTouches reports whether the n bytes at a overlap a cell: such an
// access is never thread-local (localAccess), so that it is taken by
// Apply, with its variants, and never by RunLocal or the memo.
func (m *Machine) envTouches(a uint64, n int) bool {
	i, _ := m.cfg.Env.lookup(a, n)
	return i >= 0
}

// envLoad is loadMem's data branch in a machine with cells: the value of
// the load variant chosen, when the size bytes at a are a cell (hit), or
// the refusal's fault.
func (m *Machine) envLoad(a uint64, size int) (v uint64, hit bool) {
	e := m.cfg.Env
	i, exact := e.lookup(a, size)
	if i < 0 {
		return 0, false
	}
	c := &e.cells[i]
	switch {
	case !exact:
		m.envRefuse(a, size, fmt.Sprintf("a load that overlaps the %d-byte shared data cell at %#x without being it", c.size, c.addr))
	case m.env.loaded != 0:
		m.envRefuse(a, size, "a second shared data cell loaded by one instruction")
	case !m.env.on || m.env.pick == 0 || int(m.env.pick) > len(c.vals):
		m.envRefuse(a, size, "a load of a shared data cell that the explorer was not offered values for (an access the core's memAddr does not foresee, or a read-modify-write)")
	default:
		v = c.vals[m.env.pick-1]
		m.env.pick = 0
	}
	m.env.loaded = int16(i + 1)
	return v, true
}

// envStore is storeMem's data branch in a modular machine: the store's
// value is collected for the next round (nothing is written), or refused.
// Without Config.Env every such store is a fault (sharedStore).
func (m *Machine) envStore(a uint64, size int, v uint64) {
	e := m.cfg.Env
	if e == nil {
		m.sharedStore(a, size) // modular.go
		return
	}
	x := maskTo(v, size)
	i, exact := e.lookup(a, size)
	switch {
	case !m.env.on:
		m.envRefuse(a, size, "a store outside the stacks that the explorer did not take as a step of its own")
		return
	case i >= 0 && !exact:
		m.envRefuse(a, size, fmt.Sprintf("a store that overlaps the %d-byte shared data cell at %#x without being it", e.cells[i].size, e.cells[i].addr))
		return
	case i >= 0 && int(m.env.loaded) == i+1:
		m.envRefuse(a, size, "a read-modify-write of a shared data cell (atomic, locked or not)")
		return
	case m.inStackWindow(x):
		m.envRefuse(a, size, fmt.Sprintf("the value %#x lies in the stack window (a pointer into a task's stack)", x))
		return
	}
	m.env.stored = true
	e.collect(i, a, size, x)
	h := len(m.hazards)
	if m.ref != nil || m.res != nil {
		m.resultStore(m.cur, m.core.pc(m.cur), a, size, v) // results.go
	}
	if len(m.hazards) == h && m.quietStore(a, size) {
		m.unobserved(fmt.Sprintf("a store of %d bytes at %#x, on a quiet page", size, a)) // quiet.go
	}
}

// envBegin starts a worker's step that Apply takes with load variant
// load (Action.Load).
func (m *Machine) envBegin(load uint16) { m.env = envStep{on: true, pick: load} }

// envEnd ends the step of worker t on CPU c, which began at pc: an
// exclusive access (ldrex/strex, ldxr/stxr, lr/sc) that loaded a cell or
// stored outside the stacks is refused. (Atomic read-modify-writes, the
// amo* and x86 locked instructions, load and store one cell in one step:
// envStore refuses them.)
func (m *Machine) envEnd(c, t int8, pc uint64) {
	s := m.env
	m.env = envStep{}
	if m.done || s.loaded == 0 && !s.stored {
		return
	}
	off, ok := m.textOff(pc)
	if !ok {
		return
	}
	if _, err := m.core.decode(pc, m.text[off:min(off+uint64(m.shape.maxLen), uint64(len(m.text)))]); err == nil && m.core.exclusive() {
		m.cur = t
		m.fault(c, t, pc, "an exclusive access to shared data, whose monitor no value set models: the thread-modular check's value sets do not apply")
	}
}

// envRefuse ends the run with the fault that sends the check to the whole
// search, saying why the value sets cannot vouch for the access.
func (m *Machine) envRefuse(a uint64, size int, why string) {
	t := m.cur
	m.fault(int8(m.tasks[t].CPU), t, m.core.pc(t), fmt.Sprintf("%s (%d bytes at %#x): the thread-modular check's value sets do not apply", why, size, a))
}
