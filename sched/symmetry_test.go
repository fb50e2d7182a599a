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
// built-in strategy of every ISA. Without the symmetry the hashes of the
// two runs part (the test is not vacuous).
func TestSymmetryIsABisimulation(t *testing.T) {
	for _, st := range patch.Builtins() {
		t.Run(fmt.Sprintf("%v/%s", st.Arch, st.Name), func(t *testing.T) {
			img, err := kernel.Build(st.Arch, kernel.Config{Prologue: st.Prologue})
			require.NoError(t, err)
			prog, err := patch.Compile(st, img, 2)
			require.NoError(t, err)
			rng := rand.New(rand.NewSource(3))
			parted := false
			steps, canonical := 0, 0
			for run := 0; run < 20; run++ {
				cfg := sched.Config{CPUs: 2, Tasks: 3}
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
					if ca {
						require.Equal(t, a.Hash(), b.Hash(), "step %d", step)
						canonical++
					}
					steps++
					require.Equal(t, a.Done(), b.Done())
					parted = parted || ea.Hash() != eb.Hash()
				}
				require.Equal(t, kinds(a.Hazards()), kinds(b.Hazards()))
			}
			require.True(t, parted, "some permutation changes the exact hash")
			require.Greater(t, canonical, steps/2, "most states are hashed up to symmetry")
			t.Logf("%d of %d states hashed up to symmetry", canonical, steps)
		})
	}
}
