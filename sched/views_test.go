package sched_test

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcountsim/mcountsim/kernel"
	"github.com/mcountsim/mcountsim/patch"
	. "github.com/mcountsim/mcountsim/sched"
)

// A state whose views are older than another's simulates it (views.go):
// at states met on random runs, a copy with some floors lowered (LowerFloors)
// has the same floor-free hash and older floors, and every successor of the
// state is matched by a successor of the copy with the same floor-free hash,
// preemptions, hazards and end, and floors again no newer. That is the step
// of the induction explore's older-views pruning rests on; a floor read
// anywhere but in a fetch's choices (or a choice the older view lacks)
// breaks it. Runs stop at their first hazard, as a search does (a CPU
// whose view is up to date fetches without the concurrent-modification
// check, which its first fetch of the bytes made: past a hazard, an older
// view may report the same one again). The machines are unreduced: the reduced Options take forced
// steps (a pending IPI, a thread-local step) in an order that starts at
// the CPU that ran last, which the hash leaves out since such steps
// commute; that every reduction keeps the hazards reachable from any state
// is the reductions' own tests' (explore's TestReductionsAgree and others).
func TestOlderViewsSimulate(t *testing.T) {
	type scen struct {
		name string
		m0   func(t *testing.T) *Machine
	}
	built := func(arch kernel.Arch, strategy string, cpus, tasks int) scen {
		return scen{fmt.Sprintf("%s/%s/cpus=%d", arch, strategy, cpus), func(t *testing.T) *Machine {
			st, ok := patch.Lookup(arch, strategy)
			require.True(t, ok)
			img, err := kernel.Build(arch, kernel.Config{Iterations: 2, Prologue: st.Prologue})
			require.NoError(t, err)
			prog, err := patch.Compile(st, img, 2)
			require.NoError(t, err)
			m, err := New(img, Config{CPUs: cpus, Tasks: tasks, Unreduced: true}, prog)
			require.NoError(t, err)
			return m
		}}
	}
	object := func(file, fn string, args []int64, strategy string) scen {
		return scen{file + "/" + strategy, func(t *testing.T) *Machine {
			o, err := kernel.LoadObject(filepath.Join("..", "kernel", "testdata", "obj", file), kernel.ObjectConfig{Function: fn, Args: args})
			require.NoError(t, err)
			st, ok := patch.Lookup(o.Image.Arch, strategy)
			require.True(t, ok)
			prog, err := patch.Compile(st, o.Image, 2)
			require.NoError(t, err)
			m, err := New(o.Image, Config{CPUs: 2, Tasks: 1, StackWords: 256, Unreduced: true}, prog)
			require.NoError(t, err)
			return m
		}}
	}
	for _, c := range []struct {
		scen
		min int // lowered states checked, at least
	}{
		{built(kernel.X86, "text-poke-bp", 3, 2), 100},
		{built(kernel.X86, "plain-write", 2, 2), 100},
		{built(kernel.ARM64, "arm64-nop-bl", 2, 2), 100},
		{built(kernel.ARM64, "arm64-both-plain", 2, 2), 100},
		{built(kernel.ARM64, "arm64-call-ops", 2, 2), 100},
		{built(kernel.RISCV64, "rv-atomic", 2, 2), 100},
		{object("x86-fentry-loops.o", "l_classify", []int64{7, 12}, "text-poke-bp"), 100},
		{object("arm64-pfe2-loops.o", "l_classify", []int64{7, 12}, "arm64-nop-bl"), 100},
	} {
		t.Run(c.name, func(t *testing.T) {
			m0 := c.m0(t)
			r := rand.New(rand.NewPCG(1, 2))
			checked := 0
			for run := 0; run < 400 && checked < 4*c.min; run++ {
				m := m0.Clone()
				for step := 0; step < 4000 && !m.Done() && len(m.Hazards()) == 0; step++ {
					opts := m.OptionsWithin(nil, 2)
					if len(opts) == 0 {
						break
					}
					if len(opts) > 1 || r.IntN(8) == 0 {
						if older := m.Clone(); LowerFloors(older, r) {
							checked++
							// The pair walks on together, m's way.
							a, b := older, m.Clone()
							for k := 0; k < 40 && !b.Done() && len(b.Hazards()) == 0; k++ {
								if a, b = requireSimulates(t, a, b, r); a == nil {
									break
								}
							}
						}
					}
					m.Apply(opts[r.IntN(len(opts))])
				}
			}
			require.GreaterOrEqual(t, checked, c.min, "states checked with older views")
		})
	}
}

type viewsKey struct {
	free        [2]uint64
	preemptions int
	hazards     string
	done        bool
}

func keyOf(m *Machine) (viewsKey, []uint64) {
	free, f := m.HashFloorFree(nil)
	var hz []string
	for _, h := range m.Hazards() {
		hz = append(hz, h.Kind.String())
	}
	return viewsKey{free, m.Preemptions(), fmt.Sprint(hz), m.Done()}, f
}

// requireSimulates checks one step of the simulation: older, whose views
// are no newer than m's, matches every successor of m. It returns one
// successor of m, at random, with its match (nil, nil when m has none).
func requireSimulates(t *testing.T, older, m *Machine, r *rand.Rand) (*Machine, *Machine) {
	t.Helper()
	ka, fa := keyOf(older)
	kb, fb := keyOf(m)
	require.Equal(t, kb, ka, "the floor-free hashes differ")
	require.True(t, OlderViews(fa, fb), "floors %x not older than %x", fa, fb)
	type succ struct {
		m *Machine
		k viewsKey
		f []uint64
	}
	var as []succ
	for _, o := range older.OptionsWithin(nil, 2) {
		c := older.Clone()
		c.Apply(o)
		k, f := keyOf(c)
		as = append(as, succ{c, k, f})
	}
	var pairs [][2]*Machine
	for _, o := range m.OptionsWithin(nil, 2) {
		c := m.Clone()
		c.Apply(o)
		k, f := keyOf(c)
		i := slices.IndexFunc(as, func(a succ) bool { return a.k == k && OlderViews(a.f, f) })
		require.GreaterOrEqual(t, i, 0, "option %v of the newer state (floors %x) has no match among the older state's (floors %x) successors", o, fb, fa)
		pairs = append(pairs, [2]*Machine{as[i].m, c})
	}
	if len(pairs) == 0 {
		return nil, nil
	}
	p := pairs[r.IntN(len(pairs))]
	return p[0], p[1]
}
