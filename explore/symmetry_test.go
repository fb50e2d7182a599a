package explore

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcountsim/mcountsim/detect"
	"github.com/mcountsim/mcountsim/patch"
)

// hazardKinds lists the kinds of the hazards of a result's replay.
func hazardKinds(r *Result) []detect.Kind {
	var k []detect.Kind
	for _, h := range r.Hazards {
		k = append(k, h.Kind)
	}
	return k
}

// symmetryStrategies is every built-in strategy of every ISA and every
// example strategy file.
func symmetryStrategies(t *testing.T) []*patch.Strategy {
	strategies := patch.Builtins()
	paths, err := filepath.Glob(filepath.Join("..", "examples", "strategies", "*.strategy"))
	require.NoError(t, err)
	require.NotEmpty(t, paths)
	for _, p := range paths {
		f, err := patch.ReadFile(p)
		require.NoError(t, err)
		f.Strategy.Name = "file:" + f.Strategy.Name
		strategies = append(strategies, f.Strategy)
	}
	return strategies
}

// The task symmetry of the visited set (sched/symmetry.go) agrees with the
// search that hashes tasks by index: for every built-in strategy of the
// four ISAs and every example file, with 2 and 3 tasks at the defaults
// otherwise, the verdict, the preemptions of the counterexample and the
// kinds of its hazards are the same, and the reduced search has no more
// states than the unreduced one.
func TestSymmetryAgrees(t *testing.T) {
	if raceEnabled || testing.Short() {
		t.Skip("every built-in twice with 3 tasks takes minutes; run without -race and -short")
	}
	for _, st := range symmetryStrategies(t) {
		for _, tasks := range []int{2, 3} {
			t.Run(fmt.Sprintf("%v/%s/tasks=%d", st.Arch, st.Name, tasks), func(t *testing.T) {
				sc := Scenario{Strategy: st, Tasks: tasks}
				sym, err := Check(sc, Options{})
				require.NoError(t, err)
				exact, err := Check(sc, Options{NoSymmetry: true})
				require.NoError(t, err)
				t.Logf("states %d with symmetry, %d without", sym.States, exact.States)
				require.NotEqual(t, Incomplete, exact.Verdict, exact.Reason)
				require.Equal(t, exact.Verdict, sym.Verdict)
				assert.Equal(t, kindOf(exact), kindOf(sym))
				assert.Equal(t, hazardKinds(exact), hazardKinds(sym))
				assert.Equal(t, exact.Preemptions, sym.Preemptions)
				assert.LessOrEqual(t, sym.States, exact.States)
				assert.LessOrEqual(t, sym.Transitions, exact.Transitions)
				if sym.Verdict == Unsafe {
					// The counterexample found through merged states
					// replays to its hazard.
					again, err := Replay(sc, sym.Schedule, Options{})
					require.NoError(t, err)
					assert.Equal(t, kindOf(sym), kindOf(again))
					assert.Equal(t, hazardKinds(sym), hazardKinds(again))
				}
			})
		}
	}
}
