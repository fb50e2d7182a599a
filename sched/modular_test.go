package sched_test

import (
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcountsim/mcountsim/kernel"
	"github.com/mcountsim/mcountsim/patch"
	"github.com/mcountsim/mcountsim/sched"
)

// A modular machine (sched/modular.go) on random runs of every ISA's
// safe built-in: the focus worker runs its workload to the end, every
// stand-in stays at the schedule() hook, never exits and is switched
// voluntarily, and a run ends once the focus worker and the patcher have
// exited, with no hazard.
func TestStandIns(t *testing.T) {
	for _, c := range []struct {
		arch     kernel.Arch
		strategy string
	}{{kernel.ARM, "jmp-over"}, {kernel.ARM, "two-step-rcu-tasks"}, {kernel.X86, "text-poke-bp"}, {kernel.ARM64, "arm64-nop-bl"}, {kernel.RISCV64, "rv-atomic"}} {
		for focus := 1; focus <= 3; focus++ {
			m0 := machine(t, c.arch, c.strategy, sched.Config{Tasks: 3, Focus: focus})
			hook := uint64(0)
			for _, h := range m0.Image().Hooks {
				if h.Kind == kernel.HookSchedule {
					hook = h.Addr
				}
			}
			rng := rand.New(rand.NewSource(int64(focus)))
			for run := 0; run < 50; run++ {
				m := m0.Clone()
				runRandom(m, rng, 2)
				require.Empty(t, m.Hazards(), "%s focus %d", c.strategy, focus)
				require.True(t, m.Done())
				for w := 0; w < 3; w++ {
					if w == focus-1 {
						require.Equal(t, sched.Exited, m.Task(w).State)
						continue
					}
					require.NotEqual(t, sched.Exited, m.Task(w).State, "stand-in %d", w)
					require.Equal(t, hook, m.PC(w), "stand-in %d stays at schedule()", w)
				}
				require.Equal(t, sched.Exited, m.Task(m.Patcher()).State)
			}
		}
	}
}

// A modular machine refuses what it cannot model: a focus outside the
// workers, and the tracer kernel (whose workers share per-CPU counters).
func TestModularRefuses(t *testing.T) {
	img, err := kernel.Build(kernel.ARM, kernel.Config{})
	require.NoError(t, err)
	st, _ := patch.Lookup(kernel.ARM, "jmp-over")
	prog, err := patch.Compile(st, img, 2)
	require.NoError(t, err)
	_, err = sched.New(img, sched.Config{Tasks: 2, Focus: 3}, prog)
	require.ErrorIs(t, err, sched.ErrConfig)
	require.ErrorContains(t, err, "focus worker 2 of 2")
	timg, err := kernel.Build(kernel.ARM, kernel.Config{Tracer: &kernel.Tracer{Name: "counter",
		Steps: []string{"disabled_inc", "record_if_first", "disabled_dec"}}})
	require.NoError(t, err)
	_, err = sched.New(timg, sched.Config{Tasks: 2, Focus: 1, StackWords: 1 << (kernel.DefaultThreadShift - 2)}, &sched.Program{})
	require.ErrorContains(t, err, "the tracer kernel has no thread-modular machine")
}
