package sched_test

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcountsim/mcountsim/explore"
	"github.com/mcountsim/mcountsim/kernel"
	"github.com/mcountsim/mcountsim/patch"
	. "github.com/mcountsim/mcountsim/sched"
)

// TestMemoAgreesOnBuiltins: the memo of thread-local stretches (memo.go)
// changes nothing but time. On every built-in strategy (2 CPUs, 2 tasks, one
// iteration, bound 1, one search goroutine) the search without the memo,
// with it, and with it in the check mode (every stretch memoized, however
// short, each memoized one executed for real too and compared state for
// state: a difference would end runs INCOMPLETE) find the same verdict, the
// same number of states and transitions, the same end states and hazard,
// and the schedule found replays to the same hazards.
func TestMemoAgreesOnBuiltins(t *testing.T) {
	if testing.Short() {
		t.Skip("three searches per strategy")
	}
	n := 0
	for _, st := range patch.Builtins() {
		t.Run(fmt.Sprintf("%s/%s", st.Arch, st.Name), func(t *testing.T) {
			run := func(noMemo, check bool) *explore.Result {
				sc := explore.Scenario{Strategy: st, CPUs: 2, Tasks: 2, Iterations: 1, NoMemo: noMemo, MemoAll: check, MemoCheck: check}
				res, err := explore.Check(sc, explore.Options{Bound: 1, Workers: 1})
				require.NoError(t, err)
				if res.Verdict == explore.Unsafe {
					rep, err := explore.Replay(sc, res.Schedule, explore.Options{Bound: 1, Workers: 1})
					require.NoError(t, err)
					require.Equal(t, res.Hazard, rep.Hazard, "the replayed schedule")
					res.Hazards = rep.Hazards
				}
				return res
			}
			off, on, check := run(true, false), run(false, false), run(false, true)
			require.NotEqual(t, explore.Incomplete, off.Verdict, off.Reason)
			for _, r := range []*explore.Result{on, check} {
				require.Equal(t, off.Verdict, r.Verdict, r.Reason)
				require.Equal(t, off.States, r.States)
				require.Equal(t, off.Transitions, r.Transitions)
				require.Equal(t, off.EndStates, r.EndStates)
				require.Equal(t, off.Hazard, r.Hazard)
				require.Equal(t, off.Hazards, r.Hazards)
				require.Equal(t, off.Schedule, r.Schedule)
				require.Equal(t, off.Preemptions, r.Preemptions)
				require.Equal(t, off.Steps, r.Steps)
			}
			n++
		})
	}
	require.GreaterOrEqual(t, n, 15)
}

// TestMemoSameRuns drives two machines, one with the memo in its check mode
// and one without it, through the same random choices: after every RunLocal
// and every Apply they have the same hash, and RunLocal takes the same
// number of steps; the memo is used (hits) and never differs from the
// execution it stands for (mismatches).
func TestMemoSameRuns(t *testing.T) {
	for _, c := range []struct {
		arch     kernel.Arch
		strategy string
	}{
		{kernel.X86, "text-poke-bp"},
		{kernel.ARM, "jmp-over"},
		{kernel.ARM64, "arm64-call-ops"},
		{kernel.RISCV64, "rv-atomic"},
	} {
		t.Run(fmt.Sprintf("%s/%s", c.arch, c.strategy), func(t *testing.T) {
			st, ok := patch.Lookup(c.arch, c.strategy)
			require.True(t, ok)
			img, err := kernel.Build(c.arch, kernel.Config{Iterations: 2, Prologue: st.Prologue})
			require.NoError(t, err)
			prog, err := patch.Compile(st, img, 1)
			require.NoError(t, err)
			memo, err := New(img, Config{CPUs: 2, Tasks: 2, MemoAll: true, MemoCheck: true}, prog)
			require.NoError(t, err)
			plain, err := New(img, Config{CPUs: 2, Tasks: 2, NoMemo: true}, prog)
			require.NoError(t, err)
			rng := rand.New(rand.NewSource(1))
			var buf []Action
			for run := 0; run < 200; run++ {
				a, b := memo.Clone(), plain.Clone()
				for steps := 0; !a.Done(); steps++ {
					require.Equal(t, b.RunLocal(1<<20), a.RunLocal(1<<20), a.BudgetText())
					require.Equal(t, b.Hash(), a.Hash(), "run %d, after RunLocal at step %d", run, a.Steps())
					buf = a.Options(buf)
					if len(buf) == 0 {
						break
					}
					o := buf[rng.Intn(len(buf))]
					a.Apply(o)
					b.Apply(o)
					require.Equal(t, b.Hash(), a.Hash(), "run %d step %d", run, a.Steps())
				}
				require.Equal(t, b.Done(), a.Done())
				require.Equal(t, b.OutOfSteps(), a.OutOfSteps(), a.BudgetText())
				require.Equal(t, b.Hazards(), a.Hazards())
			}
			hits, units, bad := memo.MemoStats()
			require.Zero(t, bad)
			require.Positive(t, units)
			require.Positive(t, hits)
			h, u, _ := plain.MemoStats()
			require.Zero(t, h+u)
		})
	}
}
