package explore

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcountsim/mcountsim/detect"
	"github.com/mcountsim/mcountsim/sched"
)

// Issue 5, acceptance 1: Philippe's two-step proposal fails on a
// preemptible kernel. The explanation shows synchronize_sched() returning
// while the task sits preempted inside the site, and the task then
// executing a word written after the wait.
func TestTwoStepSchedExplained(t *testing.T) {
	res, err := Check(Scenario{Strategy: builtin(t, "two-step-sched"), Preempt: sched.PreemptFull}, Options{Bound: 2})
	require.NoError(t, err)
	require.Equal(t, Unsafe, res.Verdict)
	require.Equal(t, detect.ForeignSlot, res.Hazard.Kind)
	require.Len(t, res.Replay.Explanation, 1)
	pass := res.Replay.Explanation[0]
	require.Len(t, pass.Insns, 2)

	preempted, waitReturned := -1, -1
	for _, d := range pass.During {
		switch {
		case strings.Contains(d.Text, "preempted"):
			preempted = d.Step
		case strings.Contains(d.Text, "synchronize_sched() returns"):
			waitReturned = d.Step
		}
	}
	require.NotEqual(t, -1, preempted, "the task is preempted inside the site: %+v", pass.During)
	require.NotEqual(t, -1, waitReturned, "synchronize_sched() returns during the pass: %+v", pass.During)
	assert.Less(t, pass.Insns[0].Step, preempted)
	assert.Less(t, preempted, waitReturned, "the wait returns while the task sits preempted")

	// The word the task executes next was written after the wait returned.
	next := pass.Insns[1]
	assert.Greater(t, next.Writer.Step, waitReturned)
	assert.Greater(t, next.Step, next.Writer.Step)
	assert.Equal(t, "enabled", next.Writer.Form)
}

// RCU-tasks does wait for the preempted task: SAFE, exhaustively.
func TestTwoStepRCUTasksSafe(t *testing.T) {
	res, err := Check(Scenario{Strategy: builtin(t, "two-step-rcu-tasks"), Preempt: sched.PreemptFull}, Options{Bound: 2})
	require.NoError(t, err)
	require.Equal(t, Safe, res.Verdict)
	assert.True(t, res.Space.Exhaustive)
	assert.Equal(t, 2, res.Space.CPUs)
	assert.Equal(t, 2, res.Space.Tasks)
	assert.Equal(t, 3, res.Space.BoundsDone)
}

// Strict mode reports a mixed-site pass as a hazard of its own: nop-nop's
// pass (boot nop, then the new bl) is one the site never held, and it is
// seen when the task leaves the site, before the trampoline misbehaves.
// The safe strategies never run such a pass.
func TestStrictMixedSite(t *testing.T) {
	res, err := Check(Scenario{Strategy: builtin(t, "nop-nop"), Strict: true}, Options{Bound: 2})
	require.NoError(t, err)
	require.Equal(t, Unsafe, res.Verdict)
	assert.Equal(t, detect.MixedSite, res.Hazard.Kind)
	assert.Contains(t, res.Hazard.Detail, "a combination the site never held")
	for _, name := range []string{"jmp-over", "pop-lr", "add-sp", "two-step-rcu-tasks"} {
		res, err := Check(Scenario{Strategy: builtin(t, name), Strict: true}, Options{Bound: 2})
		require.NoError(t, err)
		assert.Equal(t, Safe, res.Verdict, "%s: %v", name, res.Hazard)
	}
	x, err := Check(Scenario{Strategy: x86builtin(t, "text-poke-bp"), Strict: true}, Options{Bound: 2})
	require.NoError(t, err)
	assert.Equal(t, Safe, x.Verdict, "%v", x.Hazard)
}
