package sched_test

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcountsim/mcountsim/detect"
	"github.com/mcountsim/mcountsim/kernel"
	"github.com/mcountsim/mcountsim/patch"
	"github.com/mcountsim/mcountsim/sched"
)

// permuted maps an action of one machine to its image in the machine whose
// workers are permuted by perm.
func permuted(a sched.Action, perm []int8) sched.Action {
	if (a.Kind == sched.ActPick || a.Kind == sched.ActPreempt) && a.Task >= 0 && int(a.Task) < len(perm) {
		a.Task = perm[a.Task]
	}
	return a
}

func kinds(hz []detect.Hazard) []detect.Kind {
	var k []detect.Kind
	for _, h := range hz {
		k = append(k, h.Kind)
	}
	return k
}

// Task symmetry is a bisimulation: a random run of one machine and its
// image under a random permutation of the workers, played on a twin
// machine, offer each other's options at every step, hash alike at every
// step with the symmetry and meet hazards of the same kinds, for every
// built-in strategy of every ISA and the tracer kernel. Without the
// symmetry the hashes of the two runs part (the test is not vacuous). The
// tracer kernel's current_thread_info() computes sp >> THREAD_SHIFT, a
// value that names the task's stack by number, for one instruction before
// it shifts it back: the two runs' states are apart there (a merge missed,
// never a wrong one: such values of two tasks differ).
func TestSymmetryIsABisimulation(t *testing.T) {
	type tc struct {
		st     *patch.Strategy
		tracer string
	}
	var cases []tc
	for _, st := range patch.Builtins() {
		cases = append(cases, tc{st: st})
	}
	addSP, _ := patch.Lookup(kernel.ARM, "add-sp")
	cases = append(cases, tc{addSP, "naive"}, tc{addSP, "irqsave"}, tc{addSP, "recursion-bits"})
	for _, c := range cases {
		st := c.st
		t.Run(fmt.Sprintf("%v/%s/%s", st.Arch, st.Name, c.tracer), func(t *testing.T) {
			kc := kernel.Config{Prologue: st.Prologue}
			irqs, words := 0, 0
			if c.tracer != "" {
				tr, err := patch.LookupTracer(c.tracer, []string{"preempt_schedule"})
				require.NoError(t, err)
				kc.Tracer, irqs, words = tr, 1, 256 // THREAD_SIZE 1 KiB
			}
			img, err := kernel.Build(st.Arch, kc)
			require.NoError(t, err)
			prog, err := patch.Compile(st, img, 2)
			require.NoError(t, err)
			rng := rand.New(rand.NewSource(3))
			parted := false
			steps, canonical, apart := 0, 0, 0
			for run := 0; run < 20; run++ {
				cfg := sched.Config{CPUs: 2, Tasks: 3, IRQBound: irqs, StackWords: words}
				a, err := sched.New(img, cfg, prog)
				require.NoError(t, err)
				b, err := sched.New(img, cfg, prog)
				require.NoError(t, err)
				cfg.NoSymmetry = true
				ea, err := sched.New(img, cfg, prog)
				require.NoError(t, err)
				eb, err := sched.New(img, cfg, prog)
				require.NoError(t, err)
				perm := []int8{0, 1, 2}
				rng.Shuffle(len(perm), func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
				var oa, ob []sched.Action
				for step := 0; !a.Done() && step < 4000; step++ {
					oa = a.OptionsWithin(oa, 2)
					ob = b.OptionsWithin(ob, 2)
					require.Len(t, ob, len(oa), "step %d", step)
					if len(oa) == 0 {
						break
					}
					x := oa[rng.Intn(len(oa))]
					y := permuted(x, perm)
					require.Contains(t, ob, y, "step %d: %v has no image %v", step, x, y)
					a.Apply(x)
					b.Apply(y)
					ea.Apply(x)
					eb.Apply(y)
					ca := sched.Canonical(a)
					require.Equal(t, ca, sched.Canonical(b), "step %d: one falls back to the exact hash, the other not", step)
					if ca && c.tracer != "" && a.Hash() != b.Hash() {
						apart++ // sp >> THREAD_SHIFT, for one instruction (see below)
					} else if ca {
						require.Equal(t, a.Hash(), b.Hash(), "step %d", step)
						canonical++
					}
					steps++
					require.Equal(t, a.Done(), b.Done())
					parted = parted || ea.Hash() != eb.Hash()
				}
				require.Equal(t, kinds(a.Hazards()), kinds(b.Hazards()))
				require.True(t, sched.StackSumsHold(a), "the incremental stack hash is the stack's")
				require.True(t, sched.DataStackHolds(a))
			}
			require.True(t, parted, "some permutation changes the exact hash")
			require.Greater(t, canonical, steps/2, "most states are hashed up to symmetry")
			require.Less(t, apart, steps/20)
			t.Logf("%d of %d states hashed up to symmetry (%d apart)", canonical, steps, apart)
		})
	}
}

// The digests the hash keeps between steps (each task's, each CPU's view,
// the shared state's) are always the ones computed afresh: random runs of every built-in
// strategy and of the tracer kernel, stepped by Apply and RunLocal and
// cloned into reused machines (as the search does), compared at every
// step. The test is not vacuous: most steps keep some digest (and it
// fails when a step's own task is left out of the tasks it touches).
func TestTaskDigestsHold(t *testing.T) {
	type tc struct {
		st     *patch.Strategy
		tracer string
	}
	var cases []tc
	for _, st := range patch.Builtins() {
		cases = append(cases, tc{st: st})
	}
	addSP, _ := patch.Lookup(kernel.ARM, "add-sp")
	cases = append(cases, tc{addSP, "naive"}, tc{addSP, "recursion-bits"})
	for _, c := range cases {
		st := c.st
		t.Run(fmt.Sprintf("%v/%s/%s", st.Arch, st.Name, c.tracer), func(t *testing.T) {
			kc := kernel.Config{Prologue: st.Prologue}
			irqs, words := 0, 0
			if c.tracer != "" {
				tr, err := patch.LookupTracer(c.tracer, []string{"preempt_schedule"})
				require.NoError(t, err)
				kc.Tracer, irqs, words = tr, 1, 256
			}
			img, err := kernel.Build(st.Arch, kc)
			require.NoError(t, err)
			prog, err := patch.Compile(st, img, 2)
			require.NoError(t, err)
			var data []uint64 // writable data words, for stores the workloads may not make
			for _, sg := range img.Data {
				for a := sg.Addr; !sg.ReadOnly && a+4 <= sg.Addr+uint64(len(sg.Bytes)); a += 4 {
					data = append(data, a)
				}
			}
			rng := rand.New(rand.NewSource(5))
			steps, kept := 0, 0
			var pool [4]sched.Machine
			for run := 0; run < 12; run++ {
				m, err := sched.New(img, sched.Config{CPUs: 1 + run%3, Tasks: 3, IRQBound: irqs, StackWords: words}, prog)
				require.NoError(t, err)
				var opts []sched.Action
				for step := 0; !m.Done() && len(m.Hazards()) == 0 && step < 3000; step++ {
					if rng.Intn(3) == 0 {
						m.RunLocal(1 + rng.Intn(40))
					} else {
						opts = m.OptionsWithin(opts, 2)
						if len(opts) == 0 {
							break
						}
						m.Apply(opts[rng.Intn(len(opts))])
					}
					if len(data) > 0 && rng.Intn(16) == 0 {
						require.NoError(t, m.Store(data[rng.Intn(len(data))], 4, uint64(rng.Intn(3)), 0))
					}
					if rng.Intn(4) == 0 {
						// Continue in a reused machine, as the search's
						// children do.
						p := &pool[rng.Intn(len(pool))]
						p.CopyFrom(m)
						require.True(t, sched.CopyHolds(p, m), "run %d step %d: the copy differs", run, step)
						m = p
					}
					require.True(t, sched.SumsHold(m), "run %d step %d: an incremental sum is stale", run, step)
					k, ok := sched.DigestsHold(m)
					require.True(t, ok, "run %d step %d: a kept digest is stale", run, step)
					if k > 0 {
						kept++
					}
					steps++
					m.Hash() // digests for the next step to keep
					sched.HashExact(m)
				}
			}
			if c.tracer == "" { // (the tracer kernel's steps touch every task)
				require.Greater(t, kept, steps/2, "most steps keep some digest")
			}
		})
	}
}
