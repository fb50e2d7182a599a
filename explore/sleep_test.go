package explore

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcountsim/mcountsim/kernel"
)

// The sleep sets of commuting visible steps (sleep.go) agree with the
// search that takes every option: for every built-in strategy of the four
// ISAs and every example file, with 2 tasks (and 3: jmp-over by default,
// every one with MCOUNTSIM_SLOW=1) at the defaults otherwise, the verdict, the counterexample (its schedule, preemptions
// and the kinds of its hazards: minimization takes every option, so it is
// the same run), the states and the distinct end states are the same, the
// reduced search takes no more steps, and the counterexample replays.
func TestSleepSetsAgree(t *testing.T) {
	if raceEnabled || testing.Short() {
		t.Skip("every built-in twice with 3 tasks takes minutes; run without -race and -short")
	}
	for _, st := range symmetryStrategies(t) {
		for _, tasks := range []int{2, 3} {
			t.Run(fmt.Sprintf("%v/%s/tasks=%d", st.Arch, st.Name, tasks), func(t *testing.T) {
				if tasks == 3 && !(st.Arch == kernel.ARM && st.Name == "jmp-over") {
					// 3 tasks: jmp-over stands for the rest (about 30 s
					// over all, minutes with arm64 and riscv64).
					slow(t, "the 3-task searches of the other strategies")
				}
				sc := Scenario{Strategy: st, Tasks: tasks}
				por, err := Check(sc, Options{noOlderViews: true, POR: true})
				require.NoError(t, err)
				// Against the search without sleep sets that takes the
				// same steps but theirs: the sleep sets do without the
				// lookups before a site (worker.siteStops).
				all, err := Check(sc, Options{noOlderViews: true, noSiteStops: true})
				require.NoError(t, err)
				t.Logf("steps %d with sleep sets, %d without; states %d", por.Transitions, all.Transitions, all.States)
				require.NotEqual(t, Incomplete, all.Verdict, all.Reason)
				require.Equal(t, all.Verdict, por.Verdict)
				assert.Equal(t, kindOf(all), kindOf(por))
				assert.Equal(t, hazardKinds(all), hazardKinds(por))
				assert.Equal(t, all.Preemptions, por.Preemptions)
				assert.Equal(t, all.Schedule, por.Schedule)
				assert.Equal(t, all.States, por.States)
				assert.Equal(t, all.Runs, por.Runs)
				assert.Equal(t, all.EndStates, por.EndStates)
				assert.LessOrEqual(t, por.Transitions, all.Transitions)
				assert.Contains(t, por.Space.Reduction, "sleep sets")
				assert.NotContains(t, all.Space.Reduction, "sleep sets")
				if por.Verdict == Unsafe {
					again, err := Replay(sc, por.Schedule, Options{noOlderViews: true, POR: true})
					require.NoError(t, err)
					assert.Equal(t, kindOf(por), kindOf(again))
					assert.Equal(t, hazardKinds(por), hazardKinds(again))
				}
			})
		}
	}
}

// With the sleep sets the counts still do not depend on the workers: a
// key takes the options some arrival does not sleep on, whatever the
// order of the arrivals (package doc).
func TestSleepSetsWorkers(t *testing.T) {
	if raceEnabled || testing.Short() {
		t.Skip("two searches of 3 tasks; run without -race and -short")
	}
	sc := Scenario{Strategy: builtin(t, "jmp-over"), Tasks: 3}
	one, err := Check(sc, Options{noOlderViews: true, POR: true, Workers: 1})
	require.NoError(t, err)
	four, err := Check(sc, Options{noOlderViews: true, POR: true, Workers: 4})
	require.NoError(t, err)
	all, err := Check(sc, Options{noOlderViews: true, Workers: 1, noSiteStops: true})
	require.NoError(t, err)
	assert.Equal(t, Safe, one.Verdict)
	assert.Equal(t, one.States, four.States)
	assert.Equal(t, one.Transitions, four.Transitions)
	assert.Equal(t, one.EndStates, four.EndStates)
	assert.Equal(t, all.States, one.States)
	assert.Less(t, one.Transitions, all.Transitions)
}
