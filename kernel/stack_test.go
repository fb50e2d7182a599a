package kernel_test

import (
	"path/filepath"
	"testing"

	"github.com/mcountsim/mcountsim/explore"
	"github.com/mcountsim/mcountsim/kernel"
	"github.com/mcountsim/mcountsim/patch"
	"github.com/stretchr/testify/require"
)

// TestStackAccessesReduced: loads and stores through a base other than
// the stack pointer that reach the task's own stack (stack.c's local
// array: str r2, [r3, #-32] on ARM, mov %eax, (%rsp,%rcx,4) on x86-64)
// are thread-local for the partial-order reduction. The reduced search
// reaches the unreduced one's verdicts: SAFE under the Linux strategy, in
// fewer branching states, and the same first hazard under the unsafe one.
// sum_local(5, 9) returns 542 (stack.c, by hand: v[(3i+5)&7] = 9+i, then
// s = 3s + v[(9+i)&7] over i < 4).
func TestStackAccessesReduced(t *testing.T) {
	if testing.Short() {
		t.Skip("the unreduced searches take seconds")
	}
	for _, c := range []struct{ file, safe, unsafe string }{
		{"arm-stack.o", "jmp-over", "nop-nop"},
		{"x86-fentry-stack.o", "text-poke-bp", "plain-write"},
	} {
		t.Run(c.file, func(t *testing.T) {
			got, returned, m := runOnce(t, c.file, call{"sum_local", []int64{5, 9}})
			require.Empty(t, m.Hazards())
			require.True(t, returned)
			require.Equal(t, int32(542), got)
			run := func(strategy string, reduction explore.Reduction) *explore.Result {
				o, err := kernel.LoadObject(filepath.Join(objDir, c.file), kernel.ObjectConfig{Function: "sum_local", Args: []int64{5, 9}, Iterations: 1})
				require.NoError(t, err)
				s, ok := patch.Lookup(o.Image.Arch, strategy)
				require.True(t, ok)
				sc := explore.Scenario{Strategy: s, CPUs: 2, Tasks: 1, Iterations: 1, Toggles: 2, StackWords: 256,
					Image: func() (*kernel.Image, error) { return o.Image, nil }}
				res, err := explore.Check(sc, explore.Options{Bound: 1, Reduction: reduction})
				require.NoError(t, err)
				require.NotEqual(t, explore.Incomplete, res.Verdict, res.Reason)
				return res
			}
			full, states := run(c.safe, explore.ReduceFull), run(c.safe, explore.ReduceStates)
			require.Equal(t, explore.Safe, full.Verdict)
			require.Equal(t, explore.Safe, states.Verdict)
			require.Less(t, full.States, states.States)
			require.Equal(t, states.Runs, full.Runs, "the same distinct end states")
			t.Logf("%s SAFE: %d branching states reduced, %d unreduced", c.safe, full.States, states.States)
			hf, hs := run(c.unsafe, explore.ReduceFull), run(c.unsafe, explore.ReduceStates)
			require.Equal(t, explore.Unsafe, hf.Verdict)
			require.Equal(t, explore.Unsafe, hs.Verdict)
			require.Equal(t, hs.Hazard.Kind, hf.Hazard.Kind)
			require.Equal(t, hs.Hazard.Where, hf.Hazard.Where)
		})
	}
}
