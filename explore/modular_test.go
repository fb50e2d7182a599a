package explore

import (
	"fmt"
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
				whole, err := Check(sc, Options{Modular: ModularOff, MaxStates: 2_000_000})
				require.NoError(t, err)
				if whole.Verdict == Incomplete {
					t.Skip("the whole search is out of budget")
				}
				mod := modularOnly(t, sc, Options{MaxStates: 2_000_000})
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
				got, err := Check(sc, Options{Modular: ModularOn, MaxStates: 2_000_000})
				require.NoError(t, err)
				assert.Equal(t, whole.Verdict, got.Verdict)
				if whole.Verdict == Unsafe {
					requireCounterexample(t, sc, whole, got)
				}
			})
		}
	}
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
	rep, err := Replay(sc, got.Schedule, Options{Bound: got.Space.Bound})
	require.NoError(t, err)
	require.NotNil(t, rep.Hazard, "the hunted schedule replays to a hazard")
	require.Equal(t, *got.Hazard, *rep.Hazard)
}
