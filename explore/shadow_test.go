package explore

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcountsim/mcountsim/kernel"
	"github.com/mcountsim/mcountsim/patch"
	"github.com/mcountsim/mcountsim/sched"
)

// The patcher's stores behind a breakpoint (sched/shadow.go) against the
// search without them (Scenario.NoQuiet turns them off with quiet.go's):
// the same verdicts, hazard kinds and distinct end states, with fewer
// states for text_poke_bp, whose bytes 1-4 are written behind the int3;
// and the same verdicts for two variants that drop a sync_core: after the
// int3 (a CPU whose view still holds the old byte 0 fetches it with the
// new bytes 1-4, a torn fetch: the tail store is no local step while a
// view of the int3 is stale) and after bytes 1-4 (a CPU that synchronized
// before the tail store fetches the new byte 0 with the old tail).
func TestShadowAgrees(t *testing.T) {
	bp, ok := patch.Lookup(kernel.X86, "text-poke-bp")
	require.True(t, ok)
	noTailSync := *bp
	noTailSync.Name, noTailSync.Origin = "poke-no-tail-sync", "text_poke_bp without the sync_core after bytes 1-4"
	// BreakpointOn, int3, sync, tail, sync, byte 0, sync, BreakpointOff.
	drop := func(steps []patch.Step, i int) []patch.Step {
		out := append([]patch.Step(nil), steps...)
		require.Equal(t, patch.SyncCore, out[i].Kind)
		return append(out[:i], out[i+1:]...)
	}
	noTailSync.Enable, noTailSync.Disable = drop(bp.Enable, 4), drop(bp.Disable, 4)
	noInt3Sync := *bp
	noInt3Sync.Name, noInt3Sync.Origin = "poke-no-int3-sync", "text_poke_bp without the sync_core after the int3"
	noInt3Sync.Enable, noInt3Sync.Disable = drop(bp.Enable, 2), drop(bp.Disable, 2)
	for _, c := range []struct {
		st           *patch.Strategy
		cpus, tasks  int
		iters, bound int
		want         Verdict
		fewer        bool
	}{
		{bp, 2, 2, 2, 2, Safe, true},
		{bp, 3, 2, 1, 1, Safe, true},
		{bp, 2, 3, 1, 1, Safe, true},
		{&noTailSync, 2, 2, 2, 2, Unsafe, false},
		{&noTailSync, 2, 1, 1, 1, Unsafe, false},
		{&noInt3Sync, 2, 2, 2, 2, Unsafe, false},
		{&noInt3Sync, 2, 1, 1, 1, Unsafe, false},
	} {
		if raceEnabled && (c.cpus > 2 || c.tasks > 2) {
			continue
		}
		t.Run(fmt.Sprintf("%s/cpus=%d,tasks=%d,iter=%d,bound=%d", c.st.Name, c.cpus, c.tasks, c.iters, c.bound), func(t *testing.T) {
			run := func(off bool) *Result {
				s := Scenario{Strategy: c.st, CPUs: c.cpus, Tasks: c.tasks, Iterations: c.iters, Preempt: sched.PreemptFull, NoQuiet: off}
				res, err := Check(s, Options{Bound: BoundOption(c.bound)})
				require.NoError(t, err)
				return res
			}
			on, off := run(false), run(true)
			require.Equal(t, c.want, off.Verdict)
			require.Equal(t, c.want, on.Verdict)
			if c.want == Unsafe {
				assert.Equal(t, kindOf(off), kindOf(on))
				assert.Equal(t, off.Preemptions, on.Preemptions)
			} else {
				assert.Equal(t, off.EndStates, on.EndStates, "distinct end states")
			}
			if c.fewer {
				assert.Less(t, on.States, off.States)
			}
			t.Logf("%v, %d states behind the breakpoint, %d without", on.Verdict, on.States, off.States)
		})
	}
}
