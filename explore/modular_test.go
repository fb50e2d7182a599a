package explore

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcountsim/mcountsim/patch"
	"github.com/mcountsim/mcountsim/sched"
)

// modularOnly runs the thread-modular check of sc alone: its SAFE result,
// or nil where Check would run the whole search.
func modularOnly(t *testing.T, sc Scenario, opts Options) *Result {
	t.Helper()
	opts.Modular = ModularOn
	c, err := compile(sc.WithDefaults())
	require.NoError(t, err)
	c.noSym = opts.NoSymmetry
	e := newEngine(c, opts, time.Now())
	defer e.close()
	require.True(t, e.modular(), "the modular check applies")
	res, _, err := e.modularCheck()
	require.NoError(t, err)
	return res
}

// The modular check against the whole search on every built-in strategy
// at several sizes: a strategy the whole search finds UNSAFE is never
// modular-SAFE (the soundness the argument of sched/modular.go claims),
// and a modular-SAFE one is SAFE. The strategies whose workers store
// nothing outside their stacks and that are SAFE are decided by the
// modular check itself.
func TestModularAgreesOnBuiltins(t *testing.T) {
	sizes := []Scenario{{}, {CPUs: 1}, {Tasks: 3}, {Preempt: sched.PreemptNone}, {CPUs: 3, Tasks: 3}}
	if testing.Short() || raceEnabled {
		sizes = sizes[:2]
	}
	for _, st := range patch.Builtins() {
		for _, size := range sizes {
			sc := size
			sc.Strategy = st
			name := fmt.Sprintf("%s/%s/cpus=%d,tasks=%d,preempt=%v", st.Arch, st.Name, sc.CPUs, sc.Tasks, sc.Preempt)
			t.Run(name, func(t *testing.T) {
				whole, err := Check(sc, Options{noOlderViews: true, Modular: ModularOff, MaxStates: 2_000_000})
				require.NoError(t, err)
				if whole.Verdict == Incomplete {
					t.Skip("the whole search is out of budget")
				}
				mod := modularOnly(t, sc, Options{noOlderViews: true, MaxStates: 2_000_000})
				if mod != nil {
					require.Equal(t, Safe, mod.Verdict)
					assert.True(t, mod.Space.Modular)
				}
				switch whole.Verdict {
				case Unsafe:
					assert.Nil(t, mod, "UNSAFE (%v) but modular-SAFE", whole.Hazard.Kind)
				case Safe:
					if mod == nil {
						t.Logf("SAFE, not modular-SAFE (the whole search decides)")
					} else {
						t.Logf("SAFE, modular-SAFE: %d states, the whole search %d", mod.States, whole.States)
					}
				}
				// Check itself agrees with the whole search.
				got, err := Check(sc, Options{noOlderViews: true, Modular: ModularOn, MaxStates: 2_000_000})
				require.NoError(t, err)
				assert.Equal(t, whole.Verdict, got.Verdict)
				if whole.Verdict == Unsafe {
					requireCounterexample(t, sc, whole, got)
				}
			})
		}
	}
}

// Worker 0's modular machine stands for every worker's (sched/modular.go,
// Mirror): on every built-in strategy at several sizes, the check that
// searches only worker 0's machine (the workers alike, no state odd)
// decides as the one that searches each worker's (the symmetry off, which
// keeps the mirror off), and, on two CPUs, each of those machines has
// exactly worker 0's states and steps: the counts are the number of
// workers times worker 0's.
func TestModularMirror(t *testing.T) {
	sizes := []Scenario{{}, {Tasks: 3}, {CPUs: 3, Tasks: 3}}
	if testing.Short() || raceEnabled {
		sizes = sizes[:1]
	}
	mirrored := 0
	for _, st := range patch.Builtins() {
		for _, size := range sizes {
			sc := size
			sc.Strategy = st
			sc = sc.WithDefaults()
			t.Run(fmt.Sprintf("%s/%s/cpus=%d,tasks=%d", st.Arch, st.Name, sc.CPUs, sc.Tasks), func(t *testing.T) {
				one := modularOnly(t, sc, Options{noOlderViews: true, MaxStates: 2_000_000})
				each := modularOnly(t, sc, Options{noOlderViews: true, MaxStates: 2_000_000, NoSymmetry: true})
				if one == nil {
					require.Nil(t, each, "worker 0's machine met a hazard, so does the first of each")
					return
				}
				require.NotNil(t, each, "modular-SAFE with one machine, not with each worker's")
				require.Equal(t, Safe, each.Verdict)
				assert.Contains(t, each.Space.Reduction, modularReduction)
				if !strings.HasPrefix(one.Space.Reduction, modularMirrored) {
					t.Logf("not mirrored: %s", one.Space.Reduction)
					assert.Equal(t, each.States, one.States)
					return
				}
				mirrored++
				if sc.CPUs > 2 {
					// The exact hash keys a sync_core wait's CPUs by
					// number but sorts the CPU records, so states that
					// differ by renaming the CPUs merge in some
					// workers' machines and not in others: counts
					// within a percent, the verdicts as above.
					assert.InEpsilon(t, each.States, sc.Tasks*one.States, 0.01)
					return
				}
				assert.Equal(t, each.States, sc.Tasks*one.States)
				assert.Equal(t, each.Transitions, sc.Tasks*one.Transitions)
				assert.Equal(t, each.Runs, sc.Tasks*one.Runs)
			})
		}
	}
	assert.Positive(t, mirrored)
}

// requireCounterexample checks got, an UNSAFE result of Check, against
// whole, the whole search's: the same hazard kind, and a schedule that
// replays on the check's own machine to that hazard. Without the hunt
// (Space.Found) it is the whole search's counterexample itself.
func requireCounterexample(t *testing.T, sc Scenario, whole, got *Result) {
	t.Helper()
	require.Equal(t, Unsafe, got.Verdict)
	require.Equal(t, whole.Hazard.Kind, got.Hazard.Kind)
	if got.Space.Found == "" {
		require.Equal(t, whole.Schedule, got.Schedule, "the counterexample is the whole search's")
		return
	}
	require.LessOrEqual(t, got.Preemptions, got.Space.Bound)
	rep, err := Replay(sc, got.Schedule, Options{noOlderViews: true, Bound: got.Space.Bound})
	require.NoError(t, err)
	require.NotNil(t, rep.Hazard, "the hunted schedule replays to a hazard")
	require.Equal(t, *got.Hazard, *rep.Hazard)
}
