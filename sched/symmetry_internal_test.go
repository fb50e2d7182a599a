package sched

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcountsim/mcountsim/detect"
	"github.com/mcountsim/mcountsim/kernel"
)

// A value in the stack window in data, or a value in ownTag's range in a
// task's registers, makes Hash fall back to the exact hash; a value in the
// stack window in a task's registers or stack words does not, whether it
// is an address in the task's own stack, its top, a pointer biased below
// it or an address in another task's stack: each is written relative to
// its holder's stack.
func TestSymmetryFallsBack(t *testing.T) {
	img, err := kernel.Build(kernel.ARM64, kernel.Config{})
	require.NoError(t, err)
	m, err := New(img, Config{Tasks: 3}, &Program{})
	require.NoError(t, err)
	canonical := func() bool {
		m.touched(^uint32(0)) // the test writes registers behind the steps' backs
		_, ok := m.hashSym()
		return ok
	}
	require.True(t, canonical())
	m.cur = 0
	lo0, hi0 := m.stackRange(0)
	lo1, _ := m.stackRange(1)
	require.NotEmpty(t, m.st.dataAt)
	d := m.st.dataAt[0].addr

	for _, c := range []struct {
		what  string
		at    uint64 // where task 0 stores
		v     uint64
		exact bool
	}{
		{"data: an address in task 1's stack", d + 3, lo1 + 8, true},
		{"data: an address in task 0's own stack", d + 16, lo0 + 8, true},
		{"data: a small number", d + 16, 17, false},
		// 00 7f after two zero bytes spells 0x7f000000, task 0's stack
		// base, astride: a number's bytes are no address (dataOdd).
		{"data: a number whose bytes spell a stack address astride", d + 18, StackBase >> 16, false},
		{"own stack: an address in task 1's stack", hi0 - 8, lo1 + 16, false},
		{"own stack: just below the stacks", hi0 - 8, StackBase - 4, false},
		{"own stack: its own top", hi0 - 8, hi0, false},
		{"own stack: an address in it", hi0 - 8, lo0 + 4, false},
		{"own stack: far from the stacks", hi0 - 8, 0x2000_0000, false},
	} {
		require.NoError(t, m.Store(c.at, 8, c.v, 0), c.what)
		require.Equal(t, !c.exact, canonical(), c.what)
		require.NoError(t, m.Store(c.at, 8, 0, 0), c.what)
		require.True(t, canonical(), c.what)
	}

	regs := &m.core.(*arm64Core).regs[0]
	regs.X[3] = lo1 + 8
	require.True(t, canonical(), "a register holding an address in task 1's stack")
	regs.X[3] = lo0 - 0x70
	require.True(t, canonical(), "a register holding a pointer biased below its stack")
	regs.X[3] = hi0
	require.True(t, canonical(), "a register holding its own stack's top")
	regs.X[3] = ownTag + 8
	require.False(t, canonical(), "a register holding a value in ownTag's range")
	regs.X[3] = 0
}

// In a machine with the symmetry, the exact hash (of a state hashSym
// cannot place) hashes an exited worker as hashSym does, by its exit
// alone: a symmetric state stands for every state of its class, whatever
// its exited workers left, and their successors must have one key. With
// the symmetry off an exited worker is hashed in full.
func TestExactHashForgetsExitedWorkers(t *testing.T) {
	img, err := kernel.Build(kernel.ARM64, kernel.Config{})
	require.NoError(t, err)
	for _, off := range []bool{false, true} {
		m, err := New(img, Config{Tasks: 3, NoSymmetry: off}, &Program{})
		require.NoError(t, err)
		m.cur = 0
		lo0, _ := m.stackRange(0)
		require.NoError(t, m.Store(m.st.dataAt[0].addr, 8, lo0+8, 0)) // odd: an address in data
		m.tasks[2].State = Exited
		m.touched(^uint32(0))
		_, ok := m.hashSym()
		require.False(t, ok)
		h := m.Hash()
		regs := &m.core.(*arm64Core).regs[2]
		regs.X[5] = 7 // what task 2 left in a register
		m.touched(^uint32(0))
		if off {
			require.NotEqual(t, h, m.Hash(), "without the symmetry")
		} else {
			require.Equal(t, h, m.Hash())
		}
	}
}

// Sorting the CPU records renames the CPUs; the tracer kernel's per-CPU
// counters, hashed by address, do not move with them, so each CPU's record
// carries its own counter. Two idle CPUs, one with a sync_core IPI
// pending: with equal counters, which of them has the IPI does not matter;
// with CPU 0's counter taken, a task woken onto the CPU with the IPI reads
// a different counter, and the two states must stay apart.
func TestSymmetryRenamesPerCPUData(t *testing.T) {
	img, err := kernel.Build(kernel.ARM, kernel.Config{Tracer: &kernel.Tracer{Name: "counter",
		Steps: []string{"disabled_inc", "record_if_first", "disabled_dec"}}})
	require.NoError(t, err)
	m, err := New(img, Config{CPUs: 2, Tasks: 2, StackWords: 1 << (kernel.DefaultThreadShift - 2)}, &Program{})
	require.NoError(t, err)
	for c := 0; c < 2; c++ {
		require.Equal(t, int8(-1), m.cpus[c].Cur, "both CPUs idle")
	}
	hash := func(ipi int, counter0 uint64) [2]uint64 {
		for c := 0; c < 2; c++ {
			m.cpus[c].IPI = c == ipi
		}
		require.NoError(t, m.Store(kernel.PerCPUBase, 4, counter0, 0))
		h, ok := m.hashSym()
		require.True(t, ok)
		return h
	}
	require.Equal(t, hash(0, 0), hash(1, 0), "equal counters: the CPUs are interchangeable")
	require.NotEqual(t, hash(0, 1), hash(1, 1), "CPU 0's counter taken: the IPI's CPU matters")
}

// twoTaskARM is a machine of two tasks on the default ARM kernel.
func twoTaskARM(t *testing.T) *Machine {
	img, err := kernel.Build(kernel.ARM, kernel.Config{})
	require.NoError(t, err)
	m, err := New(img, Config{Tasks: 2}, &Program{})
	require.NoError(t, err)
	return m
}

// The reference's results are alike up to each task's own stack: a value
// that is an address in its task's stack counts relative to that stack.
func TestRefSymmetricRebases(t *testing.T) {
	m := twoTaskARM(t)
	lo0, lo1 := m.stackLo(0), m.stackLo(1)
	ref := func(v0, v1 uint64) *detect.Results {
		r := func(v uint64) detect.TaskResults {
			return detect.TaskResults{Returns: []detect.Return{{Func: 0x100, Ret: 0x200, Value: 7}, {Func: 0x100, Ret: 0x200, Value: v}}}
		}
		return &detect.Results{Compared: true, Tasks: []detect.TaskResults{r(v0), r(v1)}}
	}
	for _, c := range []struct {
		what   string
		v0, v1 uint64
		want   bool
	}{
		{"equal numbers", 5, 5, true},
		{"different numbers", 5, 6, false},
		{"each an address in its own stack, at one offset", lo0 + 0x40, lo1 + 0x40, true},
		{"each in its own stack, at different offsets", lo0 + 0x40, lo1 + 0x44, false},
		{"task 0's address and a number", lo0 + 0x40, 0x40, false},
	} {
		require.Equal(t, c.want, m.refSymmetric(ref(c.v0, c.v1)), c.what)
	}
	require.True(t, m.refSymmetric(nil))
}

// Task 1's returns and stores must equal task 0's field by field, the
// values up to each task's stack.
func TestRefSymmetricComparesEveryField(t *testing.T) {
	m := twoTaskARM(t)
	lo0, lo1 := m.stackLo(0), m.stackLo(1)
	task := func(ret detect.Return, st detect.DataStore) detect.TaskResults {
		return detect.TaskResults{Returns: []detect.Return{ret}, Stores: []detect.DataStore{st}}
	}
	ret0 := detect.Return{Func: 0x100, Ret: 0x200, Value: lo0 + 8, Stores: 1}
	st0 := detect.DataStore{Addr: 0x9000, Value: lo0 + 16, Size: 4, Func: 0x100}
	ret1 := detect.Return{Func: 0x100, Ret: 0x200, Value: lo1 + 8, Stores: 1}
	st1 := detect.DataStore{Addr: 0x9000, Value: lo1 + 16, Size: 4, Func: 0x100}
	for _, c := range []struct {
		what string
		edit func(r *detect.Return, s *detect.DataStore)
		want bool
	}{
		{"alike", func(*detect.Return, *detect.DataStore) {}, true},
		{"return's function", func(r *detect.Return, _ *detect.DataStore) { r.Func++ }, false},
		{"return's address", func(r *detect.Return, _ *detect.DataStore) { r.Ret++ }, false},
		{"return's store count", func(r *detect.Return, _ *detect.DataStore) { r.Stores++ }, false},
		{"return's value", func(r *detect.Return, _ *detect.DataStore) { r.Value += 4 }, false},
		{"store's address", func(_ *detect.Return, s *detect.DataStore) { s.Addr += 4 }, false},
		{"store's size", func(_ *detect.Return, s *detect.DataStore) { s.Size = 8 }, false},
		{"store's function", func(_ *detect.Return, s *detect.DataStore) { s.Func++ }, false},
		{"store's value", func(_ *detect.Return, s *detect.DataStore) { s.Value = lo0 + 16 }, false},
	} {
		r, s := ret1, st1
		c.edit(&r, &s)
		ref := &detect.Results{Compared: true, Tasks: []detect.TaskResults{task(ret0, st0), task(r, s)}}
		require.Equal(t, c.want, m.refSymmetric(ref), c.what)
	}
	extra := &detect.Results{Compared: true, Tasks: []detect.TaskResults{task(ret0, st0), task(ret1, st1)}}
	extra.Tasks[1].Stores = append(extra.Tasks[1].Stores, st1)
	require.False(t, m.refSymmetric(extra), "one more store")
}

// A running task's thread_info.cpu names the CPU whose record it is filed
// under: the same task switched in on CPU 0 or on CPU 1, the other idle,
// is one state up to a renaming of the CPUs.
func TestSymmetryRunningTaskCPU(t *testing.T) {
	img, err := kernel.Build(kernel.ARM, kernel.Config{Tracer: &kernel.Tracer{Name: "counter",
		Steps: []string{"disabled_inc", "record_if_first", "disabled_dec"}}})
	require.NoError(t, err)
	on := func(c int8) [2]uint64 {
		m, err := New(img, Config{CPUs: 2, Tasks: 2, StackWords: 1 << (kernel.DefaultThreadShift - 2)}, &Program{})
		require.NoError(t, err)
		m.switchTo(c, 0)
		require.Equal(t, uint32(c), m.tiGet(0, kernel.TICPU))
		h, ok := m.hashSym()
		require.True(t, ok)
		return h
	}
	require.Equal(t, on(0), on(1))
}

// Worker 0's modular machine stands for every worker's only while no
// state it hashes is odd (modular.go: Mirror): a register holding a value
// in ownTag's range breaks the mirror (a store of a stack address to data
// is refused by the env cells: envcells.go); a worker's register or stack word holding an address in its own
// stack or in another worker's does not; a focus other than worker 0's,
// or the symmetry turned off, breaks it from the start.
func TestMirrorOdd(t *testing.T) {
	img, err := kernel.Build(kernel.ARM64, kernel.Config{})
	require.NoError(t, err)
	build := func(cfg Config) (*Machine, *Mirror) {
		x := &Mirror{}
		cfg.Tasks, cfg.Mirror = 2, x
		m, err := New(img, cfg, &Program{})
		require.NoError(t, err)
		return m, x
	}
	m, x := build(Config{Focus: 1})
	m.Hash()
	require.True(t, x.Holds(), "the initial state")
	lo0, hi0 := m.stackRange(0)
	lo1, _ := m.stackRange(1)
	regs := m.core.(*arm64Core).regs
	regs[0].X[3] = hi0 - 16
	m.touched(^uint32(0))
	m.Hash()
	require.True(t, x.Holds(), "worker 0 holding its own stack's address")
	regs[1].X[4] = lo0 + 8
	m.touched(^uint32(0))
	m.Hash()
	require.True(t, x.Holds(), "the stand-in holding an address in worker 0's stack")
	regs[1].X[4] = ownTag + 8
	m.touched(^uint32(0))
	m.Hash()
	require.False(t, x.Holds(), "the stand-in holding a value in ownTag's range")

	m, x = build(Config{Focus: 1})
	m.cur = 0
	require.NoError(t, m.Store(hi0-8, 8, lo1+8, 0))
	m.Hash()
	require.True(t, x.Holds(), "worker 0's stack word holding an address in worker 1's stack")

	for _, cfg := range []Config{{Focus: 2}, {Focus: 1, NoSymmetry: true}} {
		_, x = build(cfg)
		require.False(t, x.Holds(), "%+v", cfg)
	}
}

// A pointer gcc biases below an array in the task's own stack (rbtree's
// node array, addressed as p[i] with p 0x70 below the stack) is written
// relative to its holder's stack: the state where worker 0 holds it and
// the one where worker 1 holds its own (an address in worker 0's stack)
// are one state up to the permutation, and a worker 0 that holds worker
// 1's biased pointer is another.
func TestSymmetryBiasedPointer(t *testing.T) {
	img, err := kernel.Build(kernel.ARM64, kernel.Config{})
	require.NoError(t, err)
	holding := func(task int, v func(lo, size uint64) uint64) [2]uint64 {
		m, err := New(img, Config{Tasks: 2, StackWords: 256}, &Program{})
		require.NoError(t, err)
		lo, hi := m.stackRange(int8(task))
		m.core.(*arm64Core).regs[task].X[3] = v(lo, hi-lo)
		m.touched(^uint32(0))
		h, ok := m.hashSym()
		require.True(t, ok)
		return h
	}
	biased := func(lo, _ uint64) uint64 { return lo - 0x70 }
	require.Equal(t, holding(0, biased), holding(1, biased))
	require.NotEqual(t, holding(0, biased), holding(0, func(lo, size uint64) uint64 { return lo + size - 0x70 }))
	require.NotEqual(t, holding(0, biased), holding(1, func(lo, size uint64) uint64 { return lo - size - 0x70 }))
}
